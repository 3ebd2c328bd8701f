/* Calibrated workload for the fidelity test (built with
 * -finstrument-functions). On the main thread and on two pthreads (by default), every
 * period of P ms is split by wall-clock time between three nested
 * functions: fid_outer spends 50% of it in its own body, fid_middle 30%,
 * fid_inner 20%. The split is made with the clock, not with iteration
 * counts, so it does not depend on the machine's speed. Periods differ per
 * thread and are not multiples of the 1 ms sampling period, so sampling
 * cannot lock onto a phase.
 *
 * Each function also measures its own self time with the same clock the
 * trace uses: when the OS preempts a thread (three busy threads on a
 * two-core machine), the nominal 50/30/20 shifts, and the measured self
 * times are the truth the sampled shares are compared with. */
#include <emscripten.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <wasmtrace/wasmtrace.h>

#define RUN_MS 2500.0

typedef struct truth {
  double outer, middle, inner; /* self time, ms */
} truth;

static _Thread_local truth *tl_truth;

/* Busy-waits without calling any instrumented function. */
__attribute__((always_inline, no_instrument_function)) static inline double spin_until(double t) {
  double now;
  while ((now = emscripten_get_now()) < t) {
  }
  return now;
}

__attribute__((noinline)) void fid_inner(double start, double period) {
  double t0 = emscripten_get_now();
  tl_truth->inner += spin_until(start + period) - t0; /* 80% .. 100% */
}

__attribute__((noinline)) void fid_middle(double start, double period) {
  double t0 = emscripten_get_now();
  double t1 = spin_until(start + period * 0.80); /* 50% .. 80% */
  tl_truth->middle += t1 - t0;
  fid_inner(start, period);
}

__attribute__((noinline)) void fid_outer(double start, double period) {
  double t0 = emscripten_get_now();
  double t1 = spin_until(start + period * 0.50); /* 0% .. 50% */
  tl_truth->outer += t1 - t0;
  fid_middle(start, period);
}

__attribute__((noinline)) void run_workload(double period, double end, truth *out) {
  tl_truth = out;
  for (double start = emscripten_get_now(); start < end; start += period) fid_outer(start, period);
}

typedef struct job {
  const char *name;
  double period, end;
  truth truth;
} job;

static void *worker(void *arg) {
  job *j = arg;
  wt_thread_set_name(j->name);
  run_workload(j->period, j->end, &j->truth);
  return NULL;
}

/* argv[1]: pthreads besides main (default 2, at most MAX_WORKERS; the
 * benchmark of late ticks runs 3, i.e. 4 busy threads on 2 cores). Their
 * periods are not multiples of the 1 ms sampling period either. */
#define MAX_WORKERS 6
static const double worker_period_ms[MAX_WORKERS] = {6.1, 8.7, 5.3, 9.1, 6.7, 7.9};

int main(int argc, char **argv) {
  int nworkers = argc > 1 ? atoi(argv[1]) : 2;
  if (nworkers < 1 || nworkers > MAX_WORKERS) nworkers = 2;
  double end = emscripten_get_now() + RUN_MS;
  static char names[MAX_WORKERS][32];
  job jobs[MAX_WORKERS + 1] = {{"main", 7.3, end, {0}}};
  for (int i = 0; i < nworkers; i++) {
    snprintf(names[i], sizeof names[i], "fid-worker-%d", i + 1);
    jobs[i + 1] = (job){names[i], worker_period_ms[i], end, {0}};
  }
  pthread_t threads[MAX_WORKERS];
  for (int i = 0; i < nworkers; i++) pthread_create(&threads[i], NULL, worker, &jobs[i + 1]);
  run_workload(jobs[0].period, end, &jobs[0].truth); /* main stays busy, never yields */
  for (int i = 0; i < nworkers; i++) pthread_join(threads[i], NULL);
  char json[1024];
  int n = 0;
  for (int i = 0; i <= nworkers; i++)
    n += snprintf(json + n, sizeof json - n, "%s\"%s\":{\"fid_outer\":%.3f,\"fid_middle\":%.3f,\"fid_inner\":%.3f}",
                  i ? "," : "{", jobs[i].name, jobs[i].truth.outer, jobs[i].truth.middle, jobs[i].truth.inner);
  snprintf(json + n, sizeof json - n, "}");
  printf("fidelity: done\n");
  EM_ASM({ self.fidelityTruth = JSON.parse(UTF8ToString($0)); self.fidelityDone = true; }, json);
  return 0;
}
