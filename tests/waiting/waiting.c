/* Waiting-state workload for tests/browser/waiting.test.mjs (built with
 * -finstrument-functions). Four app threads, each alternating between
 * spinning (running) and blocking on a condition variable that nobody
 * signals (pthread_cond_timedwait times out: waiting), in periods that are
 * not multiples of the 1 ms sampling period:
 *   main             wait_loop: 4.3 ms busy, 2.9 ms waiting
 *   pool worker 1    pool_worker_1 -> wait_loop: 2.1 ms busy, 5.3 ms waiting
 *   pool worker 2    pool_worker_2 -> wait_loop: 3.7 ms busy, 3.1 ms waiting
 *   quiet thread     quiet_main: 3.3 ms busy, 3.3 ms waiting; nothing on
 *                    this thread is instrumented and it never calls
 *                    wasmtrace: only the link-time wrappers can see it
 * Each thread measures its own time in the wait and its whole loop with the
 * clock the trace uses; on a loaded machine (four threads, two cores) the
 * planned split drifts, and the measured one is the truth the test
 * compares the sampled waiting share with. */
#include <emscripten.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define RUN_MS 2500.0

typedef struct truth {
  double wait_ms, total_ms;
} truth;

typedef struct job {
  const char *role;
  double busy_ms, wait_ms, end;
  truth truth;
} job;

static pthread_mutex_t queue_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;

/* Spins until `t` (ms, emscripten_get_now) without calling anything
 * instrumented. */
__attribute__((always_inline, no_instrument_function)) static inline double spin_until(double t) {
  double now;
  while ((now = emscripten_get_now()) < t) {
  }
  return now;
}

/* Blocks on the queue's condition variable for about `ms`; returns the time
 * it took, measured. Inlined into its callers (the quiet thread's too, which
 * stays uninstrumented). */
__attribute__((always_inline, no_instrument_function)) static inline double block_for(double ms) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  long long ns = (long long)ts.tv_nsec + (long long)(ms * 1e6);
  ts.tv_sec += (time_t)(ns / 1000000000LL);
  ts.tv_nsec = (long)(ns % 1000000000LL);
  double t0 = emscripten_get_now();
  pthread_mutex_lock(&queue_mutex);
  int rc = 0;
  while (rc != ETIMEDOUT) rc = pthread_cond_timedwait(&queue_cond, &queue_mutex, &ts);
  pthread_mutex_unlock(&queue_mutex);
  return emscripten_get_now() - t0;
}

/* The measured loop, shared by the instrumented threads. */
__attribute__((noinline)) void wait_loop(job *j) {
  double start = emscripten_get_now(), now = start;
  while (now < j->end) {
    spin_until(now + j->busy_ms);
    j->truth.wait_ms += block_for(j->wait_ms);
    now = emscripten_get_now();
  }
  j->truth.total_ms = now - start;
}

/* Two start routines, so that the test tells the pool's threads apart by
 * name ("pthread N (pool_worker_1)"). */
__attribute__((noinline)) void *pool_worker_1(void *arg) {
  wait_loop(arg);
  return NULL;
}

__attribute__((noinline)) void *pool_worker_2(void *arg) {
  wait_loop(arg);
  return NULL;
}

/* The quiet thread: no hooks, no wasmtrace call. */
__attribute__((noinline, no_instrument_function)) void *quiet_main(void *arg) {
  job *j = arg;
  double start = emscripten_get_now(), now = start;
  while (now < j->end) {
    spin_until(now + j->busy_ms);
    j->truth.wait_ms += block_for(j->wait_ms);
    now = emscripten_get_now();
  }
  j->truth.total_ms = now - start;
  return NULL;
}

int main(void) {
  double end = emscripten_get_now() + RUN_MS;
  job jobs[4] = {{"main", 4.3, 2.9, end, {0, 0}},
                 {"pool-1", 2.1, 5.3, end, {0, 0}},
                 {"pool-2", 3.7, 3.1, end, {0, 0}},
                 {"quiet", 3.3, 3.3, end, {0, 0}}};
  pthread_t threads[3];
  int made = 0;
  made += pthread_create(&threads[0], NULL, pool_worker_1, &jobs[1]) == 0;
  made += pthread_create(&threads[1], NULL, pool_worker_2, &jobs[2]) == 0;
  made += pthread_create(&threads[2], NULL, quiet_main, &jobs[3]) == 0;
  if (made != 3) {
    printf("waiting: pthread_create failed\n");
    return 1;
  }
  wait_loop(&jobs[0]);
  for (int i = 0; i < 3; i++) pthread_join(threads[i], NULL);
  char json[512];
  int n = 0;
  for (int i = 0; i < 4; i++)
    n += snprintf(json + n, sizeof json - n, "%s\"%s\":{\"waitMs\":%.3f,\"totalMs\":%.3f}", i ? "," : "{",
                  jobs[i].role, jobs[i].truth.wait_ms, jobs[i].truth.total_ms);
  snprintf(json + n, sizeof json - n, "}");
  printf("waiting: done\n");
  EM_ASM({ self.waitingTruth = JSON.parse(UTF8ToString($0)); self.waitingDone = true; }, json);
  return 0;
}
