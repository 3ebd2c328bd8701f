/* Sampler benchmark: N threads busy for T ms, each 8 scopes deep, while a
 * session samples them (its interval comes from the page's config). The
 * page reads the trace's stats: achieved rate, lateness, worker time.
 *
 *   sampler.js THREADS MS [FLOOR_INTERVAL_US]
 *
 * main() starts the threads and returns to the browser's event loop: a
 * main thread blocked in pthread_join spins in Emscripten's main-thread
 * wait, so "1 busy thread" would be two busy threads on two cores (issue
 * 28). The busy threads meet at a barrier among themselves; the first past
 * it marks the start of the busy window and the last to finish its end
 * (both on the page's clock, emscripten_get_now()), and the page's globals
 * are set on the main thread (MAIN_THREAD_EM_ASM: it is idle then).
 *
 * With FLOOR_INTERVAL_US, one more thread is the floor (bench/floor.mjs):
 * it does nothing but sleep to the same absolute deadlines as the sampler
 * (a grid of the interval, the next grid point after each wake-up) with the
 * same primitive (emscripten_futex_wait, Atomics.wait), and counts its
 * wake-ups inside the busy window and their lateness. Run without a session:
 * what any thread of the page gets from the OS and the browser. */
#include <emscripten.h>
#include <emscripten/threading.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <wasmtrace/wasmtrace.h>

static double g_end;
static int g_threads;
static pthread_barrier_t g_ready;
static atomic_int g_started, g_finished;
static _Atomic double g_window_start, g_window_end;
/* The page gets the window on the trace's clock (ms since the main thread's
 * timeOrigin), which emscripten_get_now() is not on every toolchain: since
 * 3.1.28 a pthread's counts from the Unix epoch. */
extern double wt_platform_now_us(void);

static void nest(int depth) {
  WT_SCOPE("nest");
  if (depth > 1) {
    nest(depth - 1);
    return;
  }
  volatile unsigned x = 0;
  while (emscripten_get_now() < g_end) x++;
}

static void *busy(void *arg) {
  (void)arg;
  WT_THREAD_NAME("busy");
  { WT_SCOPE("register"); } /* registers this thread before the barrier */
  pthread_barrier_wait(&g_ready);
  if (atomic_fetch_add(&g_started, 1) == 0) {
    g_window_start = emscripten_get_now();
    MAIN_THREAD_EM_ASM({
      self.memAfterThreads = Module.wasmtrace.memory();
      self.busyStartMs = $0;
    }, wt_platform_now_us() / 1000.0);
  }
  nest(8);
  if (atomic_fetch_add(&g_finished, 1) + 1 == g_threads) {
    g_window_end = emscripten_get_now();
    MAIN_THREAD_EM_ASM({
      self.busyEndMs = $0;
      self.benchDone = true;
    }, wt_platform_now_us() / 1000.0);
  }
  return NULL;
}

/* ---- the floor: a thread that only sleeps to the sampler's deadlines ---- */

static double g_floor_interval_us;
static _Atomic uint32_t g_floor_futex;
static double g_floor_late_us[1 << 16];

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void *floor_sleeper(void *arg) {
  (void)arg;
  const double P = g_floor_interval_us;
  int n = 0;
  uint64_t wakes = 0;
  /* Until the busy window has ended (plus a period), counting the wake-ups
   * inside it, exactly as the sampler's ticks are counted from its trace. */
  double t = emscripten_get_now() * 1000.0;
  double deadline = (floor(t / P) + 1) * P;
  for (;;) {
    double end = g_window_end;
    if (end > 0 && t > end * 1000.0 + P) break;
    double remaining_ms = (deadline - emscripten_get_now() * 1000.0) / 1000.0;
    if (remaining_ms > 0) emscripten_futex_wait((volatile void *)&g_floor_futex, 0, remaining_ms);
    t = emscripten_get_now() * 1000.0;
    if (t < deadline) continue; /* woke early (spurious): sleep again */
    double start = g_window_start, stop = g_window_end;
    if (start > 0 && t >= start * 1000.0 && (stop == 0 || t <= stop * 1000.0)) {
      wakes++;
      if (n < (int)(sizeof g_floor_late_us / sizeof g_floor_late_us[0])) g_floor_late_us[n++] = t - deadline;
    }
    deadline = (floor(t / P) + 1) * P;
  }
  qsort(g_floor_late_us, (size_t)n, sizeof g_floor_late_us[0], cmp_double);
  double p50 = n ? g_floor_late_us[(n - 1) / 2] : -1;
  double p99 = n ? g_floor_late_us[(int)ceil(0.99 * n) - 1] : -1;
  double max = n ? g_floor_late_us[n - 1] : -1;
  /* (No object literal: its commas would split the macro's arguments.) */
  MAIN_THREAD_EM_ASM({
    var r = {};
    r.ticks = $0;
    r.p50 = $1;
    r.p99 = $2;
    r.max = $3;
    r.intervalUs = $4;
    self.floorResult = r;
  }, (double)wakes, p50, p99, max, P);
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4;
  double ms = argc > 2 ? atof(argv[2]) : 2000;
  g_floor_interval_us = argc > 3 ? atof(argv[3]) : 0;
  if (n < 1 || n > 8) n = 4;
  g_threads = n;
  EM_ASM({ self.memBeforeThreads = Module.wasmtrace.memory(); });
  pthread_barrier_init(&g_ready, NULL, (unsigned)n);
  g_end = emscripten_get_now() + ms + 100;
  pthread_attr_t detached;
  pthread_attr_init(&detached);
  pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
  pthread_t t;
  if (g_floor_interval_us > 0) pthread_create(&t, &detached, floor_sleeper, NULL);
  for (int i = 0; i < n; i++) pthread_create(&t, &detached, busy, NULL);
  return 0; /* to the event loop; -sEXIT_RUNTIME=0 keeps the runtime */
}
