/* The one global runtime object, and the worker's wake.
 *
 * Every piece of process-wide mutable state above the thread registry lives
 * in `wt_rt`, one part per concern, each part written only by the files
 * named beside it. What stays outside, and why:
 *   - registry.c: the thread registry and interned names. It sits below the
 *     runtime (the hooks use it before any runtime exists) and must not
 *     depend on it.
 *   - symbols.c: the worker-private cache of function names, used by the
 *     encoders through session.c; below the runtime for the same reason.
 *   - wt_i_category_mask (categories.c, declared in registry.h): read by the
 *     hot path with one relaxed load, on its own, like Perfetto's "enabled"
 *     flag; a field of a larger struct would share its cache line with
 *     control-path writes.
 *   - per-thread state (_Thread_local) in registry.c.
 * Tests reset everything at once with wt_runtime_reset_for_testing
 * (runtime_start.h, with the worker's start and exit()'s hook). */
#ifndef WT_RUNTIME_H
#define WT_RUNTIME_H

#include <pthread.h>
#include <stdatomic.h>

#include "session.h"

typedef struct wt_runtime {
  /* --- session table (api.c; read by categories.c, io_pump.c, worker.c) */
  pthread_mutex_t mutex; /* session creation only; never held while waiting */
  wt_session *sessions[WT_MAX_SESSION_IDS];
  _Atomic int session_count;

  /* --- worker thread (runtime.c starts it, worker.c runs it) ----------- */
  pthread_t worker;
  int worker_created;       /* pthread_create succeeded: the thread is joinable */
  /* 0 none, 1 running, 2 failed: pthread_create failed, or the worker ran
   * out of memory and exited (worker.c). Read under `mutex` by api.c when
   * it adds a session, so that no session is published for a worker that
   * will never adopt it. */
  _Atomic int worker_state;
  /* Why the worker cannot run (set before worker_state becomes 2 by
   * runtime.c; "" when it ran out of memory: api.c then says so). */
  char worker_error[WT_ERROR_MAX];
  _Atomic int shutdown;
  /* Set by the worker as the last thing it does (runtime.c's exit hook
   * waits for it, bounded). */
  _Atomic int worker_exited;
  /* startup.c's batch: odd while it adds the startup sessions, so that the
   * worker adopts all of them in one iteration or none (a count, not a
   * flag: the worker reads it before and after the session count and
   * compares, which a flag that went 0, 1, 0 meanwhile would fool). */
  _Atomic uint32_t hold_seq;
  _Atomic uint32_t wake;     /* bumped to wake the worker */
  _Atomic uint64_t worker_busy_us;  /* time the worker spent awake (CPU upper bound) */
  _Atomic double worker_started_us; /* when the worker thread began running */
  double worker_created_us;         /* when wt_runtime_init created it */

  /* --- categories (categories.c) -------------------------------------- */
  pthread_mutex_t categories_mutex;
  uint64_t categories_forced; /* tests: recorded as if a session wanted them */

  /* --- startup config (startup.c) ------------------------------------- */
  char config_error[WT_ERROR_MAX];
  int startup_ids[WT_MAX_SESSIONS];
  int startup_count;
} wt_runtime;

extern wt_runtime wt_rt;

/* Wakes the worker (new session, stop request, room for output). Any
 * thread. */
void wt_runtime_wake(void);

#endif
