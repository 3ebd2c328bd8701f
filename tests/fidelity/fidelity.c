/* Calibrated workload for the fidelity test (built with
 * -finstrument-functions). On the main thread and on two pthreads, every
 * period of P ms is split by wall-clock time between three nested
 * functions: fid_outer spends 50% of it in its own body, fid_middle 30%,
 * fid_inner 20%. The split is made with the clock, not with iteration
 * counts, so the truth does not depend on the machine's speed. Periods differ
 * per thread and are not multiples of the 1 ms sampling period, so sampling
 * cannot lock onto a phase. */
#include <emscripten.h>
#include <pthread.h>
#include <stdio.h>

#include <wasmtrace/wasmtrace.h>

#define RUN_MS 2500.0

/* Busy-waits without calling any instrumented function. */
__attribute__((always_inline, no_instrument_function)) static inline void spin_until(double t) {
  while (emscripten_get_now() < t) {
  }
}

__attribute__((noinline)) void fid_inner(double start, double period) {
  spin_until(start + period); /* 80% .. 100% of the period */
}

__attribute__((noinline)) void fid_middle(double start, double period) {
  spin_until(start + period * 0.80); /* 50% .. 80% */
  fid_inner(start, period);
}

__attribute__((noinline)) void fid_outer(double start, double period) {
  spin_until(start + period * 0.50); /* 0% .. 50% */
  fid_middle(start, period);
}

__attribute__((noinline)) void run_workload(double period, double end) {
  for (double start = emscripten_get_now(); start < end; start += period) fid_outer(start, period);
}

typedef struct job {
  double period, end;
} job;

static void *worker(void *arg) {
  job *j = arg;
  run_workload(j->period, j->end);
  return NULL;
}

int main(void) {
  double end = emscripten_get_now() + RUN_MS;
  job jobs[2] = {{6.1, end}, {8.7, end}};
  pthread_t threads[2];
  for (int i = 0; i < 2; i++) pthread_create(&threads[i], NULL, worker, &jobs[i]);
  run_workload(7.3, end); /* the main thread is busy for RUN_MS without yielding */
  for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
  printf("fidelity: done\n");
  EM_ASM({ self.fidelityDone = true; });
  return 0;
}
