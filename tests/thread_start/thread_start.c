/* Pthreads that start while others hold malloc's lock, in pool workers that
 * ran registered threads before, linked with wasmtrace's thread wrappers
 * (-Wl,--wrap=pthread_create,--wrap=emscripten_futex_wait, from the CMake
 * target). A new pthread can wait for malloc's lock while Emscripten is
 * still allocating its thread-local storage, and a reused worker then holds
 * the previous thread's stale TLS base: the wait wrapper must not read TLS
 * there (it did, and crashed with "memory access out of bounds" when
 * bench/e2e.mjs started two pthreads at once). Every round starts three
 * threads at once that churn malloc, and joins them; a session samples all
 * along. (The same run in a 16 MiB heap also showed that thread records
 * taken at every start could leave the app's own malloc no room, and abort
 * it: the wrapper now registers a thread at its start only while a quarter
 * of the heap is free, threads.c.) Ends with THREAD-START-PASSED when every round ran, the session
 * stopped, and it saw the threads (registered at their start) waiting.
 *   node thread_start.js DIR */
#include <emscripten.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wasmtrace/wasmtrace.h>

#define ROUNDS 150
#define THREADS 3

static double now_s(void) { return emscripten_get_now() / 1000.0; }

static _Atomic int churned;

/* Many small allocations: holds malloc's lock often, so that the threads
 * starting beside it wait for it while their TLS is allocated. */
static void *churn(void *arg) {
  (void)arg;
  void *keep[64] = {0};
  for (int i = 0; i < 4000; i++) {
    int k = i & 63;
    free(keep[k]);
    keep[k] = malloc(16 + (size_t)(i % 200));
  }
  for (int k = 0; k < 64; k++) free(keep[k]);
  atomic_fetch_add(&churned, 1);
  return NULL;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "/tmp";
  char path[256], json[512];
  snprintf(path, sizeof path, "%s/wasmtrace-thread-start.json", dir);
  snprintf(json, sizeof json,
           "{\"name\":\"threads\",\"output\":\"%s\",\"overwrite\":true,\"compression\":\"none\","
           "\"format\":\"folded\",\"maxBufferKB\":1024,\"sampling\":{\"intervalUs\":200}}",
           path);
  int id = -1;
  if (argc > 2 && strcmp(argv[2], "nosession") == 0) { /* the same app without wasmtrace recording */
    int created = 0;
    for (int round = 0; round < ROUNDS; round++) {
      pthread_t th[THREADS];
      for (int i = 0; i < THREADS; i++) created += pthread_create(&th[i], NULL, churn, NULL) == 0;
      for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    }
    printf("nosession: %d threads\n", created);
    return 0;
  }
  if (wt_session_start(json, &id) != WT_OK) {
    printf("FAIL: the session did not start: %s\n", wt_session_error(id));
    return 1;
  }
  double give_up = now_s() + 30;
  while (wt_session_state_get(id) == WT_SESSION_STARTING && now_s() < give_up) usleep(1000);
  int created = 0;
  for (int round = 0; round < ROUNDS; round++) {
    pthread_t th[THREADS];
    int ok[THREADS];
    for (int i = 0; i < THREADS; i++) {
      ok[i] = pthread_create(&th[i], NULL, churn, NULL) == 0;
      created += ok[i];
    }
    for (int i = 0; i < THREADS; i++)
      if (ok[i]) pthread_join(th[i], NULL);
    wt_io_pump();
  }
  printf("THREAD-START-APP-ALIVE: %d threads created, %d churned\n", created, atomic_load(&churned));
  wt_session_stop(id);
  give_up = now_s() + 60;
  wt_session_state st;
  while ((st = wt_session_state_get(id)) != WT_SESSION_STOPPED && st != WT_SESSION_FAILED && now_s() < give_up) {
    wt_io_pump();
    usleep(1000);
  }
  wt_session_stats stats;
  wt_session_stats_get(id, &stats);
  printf("session: state %d, %llu samples, %llu waiting, %llu threads\n", (int)st,
         (unsigned long long)stats.samples_written, (unsigned long long)stats.samples_waiting,
         (unsigned long long)stats.threads);
  int failures = 0;
  if (created != ROUNDS * THREADS || atomic_load(&churned) != created) {
    printf("FAIL: every thread should have been created and run\n");
    failures++;
  }
  if (st != WT_SESSION_STOPPED) {
    printf("FAIL: the session should end stopped: %s\n", wt_session_error(id));
    failures++;
  }
  /* Threads registered at their start: more than main was seen. */
  if (stats.threads < 2) {
    printf("FAIL: the session should have seen the pthreads\n");
    failures++;
  }
  remove(path);
  printf(failures ? "THREAD-START-FAILED\n" : "THREAD-START-PASSED\n");
  return failures ? 1 : 0;
}
