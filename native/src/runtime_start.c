/* The runtime's start (the worker thread), exit()'s hook and the test
 * reset (runtime_start.h), above every module they start or reset. */
#include "runtime_start.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "categories.h"
#include "fmt.h"
#include "heap.h"
#include "mem.h"
#include "outputs.h"
#include "phases.h"
#include "platform.h"
#include "recorders.h"
#include "registry.h"
#include "runtime.h"
#include "symbols.h"
#include "worker.h"

#ifdef __EMSCRIPTEN__
/* js/wasmtrace_library.js: 0 to create the worker, or -1 with the reason
 * (it would take the app's last free worker of a strict pthread pool). */
extern int wt_js_pool_prepare(char *error, int cap);
#endif

/* The worker cannot run: sessions fail with `why` (api.c), printed once. */
static wt_status worker_failed(const char *why) {
  wt_snprintf(wt_rt.worker_error, sizeof wt_rt.worker_error, "%s", why);
  atomic_store(&wt_rt.worker_state, 2);
  wt_platform_log_error(why);
  /* A session another thread added meanwhile (it saw the state at 1) will
   * never be adopted: fail it. api.c reads the state under the mutex, so
   * after this lock every later session fails at once (as in worker.c). */
  pthread_mutex_lock(&wt_rt.mutex);
  pthread_mutex_unlock(&wt_rt.mutex);
  int n = atomic_load_explicit(&wt_rt.session_count, memory_order_acquire);
  for (int i = 0; i < n; i++) {
    wt_session *s = wt_rt.sessions[i];
    if (s && atomic_load(&s->state) == WT_SESSION_STARTING) wt_session_fail(s, "%s", why);
  }
  return WT_ERR_THREAD;
}


/* How long exit() waits for the worker to leave its loop. It normally
 * takes microseconds (the wake ends its sleep; an iteration's work is
 * bounded by the sampling period); the bound covers a worker waiting for
 * the main thread (out of memory, worker.c), which is the thread in exit(). */
#define EXIT_WAIT_US 250000.0

/* Registered with atexit() once the worker exists (runtime.h). exit()
 * with -sEXIT_RUNTIME runs atexit handlers before it terminates the
 * pthreads' workers (Emscripten runs none without it): the worker is told
 * to shut down and given a bounded time to leave its loop, so that it is
 * not inside the sampler or an encoder when its Web Worker is terminated
 * (Emscripten's terminateAllThreads says it cannot know when a terminated
 * thread stops). Sessions are not finished: the app is ending, and an exit
 * never waited for them. */
void wt_runtime_quiesce_for_exit(void) {
  if (!wt_rt.worker_created || atomic_load(&wt_rt.worker_exited)) return;
  if (pthread_equal(pthread_self(), wt_rt.worker)) return; /* never waits for itself */
  atomic_store(&wt_rt.shutdown, 1);
  wt_runtime_wake();
  /* Not begun yet (a pool worker still loading): it sees the shutdown as
   * it starts and runs nothing. */
  if (atomic_load(&wt_rt.worker_started_us) == 0) return;
  double until = wt_platform_now_us() + EXIT_WAIT_US;
  while (!atomic_load_explicit(&wt_rt.worker_exited, memory_order_acquire) && wt_platform_now_us() < until)
    sched_yield();
}

wt_status wt_runtime_init(void) {
  int expected = 0;
  if (!atomic_compare_exchange_strong(&wt_rt.worker_state, &expected, 1))
    return atomic_load(&wt_rt.worker_state) == 1 ? WT_OK : WT_ERR_THREAD;
  /* Register the caller (normally the main thread) so it is sampled from
   * the first tick, before it ever opens a scope. */
  wt_thread_self();
  wt_recorders_init(); /* the names and categories they record under */
#ifdef __EMSCRIPTEN__
  char refused[WT_ERROR_MAX] = "";
  if (wt_js_pool_prepare(refused, (int)sizeof refused) != 0) return worker_failed(refused);
#endif
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  wt_rt.worker_created_us = wt_platform_now_us();
  wt_heap_set_waker(wt_runtime_wake); /* a filling heap queue wakes the worker */
  int rc = pthread_create(&wt_rt.worker, &attr, wt_worker_main, NULL);
  pthread_attr_destroy(&attr);
  wt_rt.worker_created = rc == 0;
  static int exit_hook;
  if (rc == 0 && !exit_hook) exit_hook = atexit(wt_runtime_quiesce_for_exit) == 0;
  if (rc != 0) {
    char msg[WT_ERROR_MAX];
    wt_snprintf(msg, sizeof msg, "%s (pthread_create: %s)%s", wt_status_str(WT_ERR_THREAD), strerror(rc),
                rc == EAGAIN ? ": no free pthread pool worker; link with "
                            "-sPTHREAD_POOL_SIZE=<your threads + 1>"
                          : "");
    return worker_failed(msg);
  }
  return WT_OK;
}

void wt_runtime_reset_for_testing(uint64_t record_categories) {
  /* The worker runs until told to shut down; its thread is joined here. */
  if (wt_rt.worker_created) {
    atomic_store(&wt_rt.shutdown, 1);
    wt_runtime_wake();
    pthread_join(wt_rt.worker, NULL);
    wt_rt.worker_created = 0;
  }
  atomic_store(&wt_rt.worker_exited, 0);
  int n = atomic_load(&wt_rt.session_count);
  for (int i = 0; i < n; i++) {
    wt_session *s = wt_rt.sessions[i];
    if (s->file) fclose(s->file);
    wt_session_free_buffers(s);
    if (atomic_load(&s->output_ready) && !s->out_freed) wt_outq_free(&s->out);
    wt_mem_free(s);
    wt_rt.sessions[i] = NULL;
  }
  atomic_store(&wt_rt.session_count, 0);
  atomic_store(&wt_rt.worker_state, 0);
  atomic_store(&wt_rt.shutdown, 0);
  atomic_store(&wt_rt.hold_seq, 0);
  atomic_store(&wt_rt.worker_busy_us, 0);
  atomic_store(&wt_rt.worker_started_us, 0);
  wt_rt.worker_created_us = 0;
  wt_rt.startup_count = 0;
  wt_rt.config_error[0] = '\0';
  wt_rt.worker_error[0] = '\0';
  wt_symbols_reset();
  wt_registry_reset();
  wt_outputs_reset_for_testing();
  wt_phases_reset_for_testing();
  wt_heap_reset_for_testing();
  wt_categories_force(record_categories);
}
