/* Hot-path benchmark: ns per call of a call-heavy workload. Built twice from
 * this file: plain, and with -finstrument-functions (every call then runs
 * the wasmtrace enter/exit hooks). The difference per call is the cost of one
 * enter+exit pair. Prints one JSON line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
static double now_ms(void) { return emscripten_get_now(); }
#else
static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
#endif

#include <wasmtrace/wasmtrace.h>

static volatile uint32_t g_sink;

__attribute__((noinline)) uint32_t leaf(uint32_t x) {
  __asm__ volatile("" ::: "memory"); /* keep the call */
  return x * 2654435761u + 1;
}

__attribute__((noinline)) uint32_t branch(uint32_t x) { return leaf(x) ^ leaf(x + 1); }

/* 3 calls per iteration: branch, leaf, leaf. */
#define CALLS_PER_ITER 3

int main(int argc, char **argv) {
  long iters = argc > 1 ? atol(argv[1]) : 20000000;
  int reps = argc > 2 ? atoi(argv[2]) : 7;
  /* Warm up, then take the median of `reps` runs. */
  double best[64];
  if (reps > 64) reps = 64;
  uint32_t acc = 0;
  for (long i = 0; i < iters / 10; i++) acc += branch((uint32_t)i);
  for (int r = 0; r < reps; r++) {
    double t0 = now_ms();
    for (long i = 0; i < iters; i++) acc += branch((uint32_t)i);
    best[r] = (now_ms() - t0) * 1e6 / ((double)iters * CALLS_PER_ITER);
  }
  g_sink = acc;
  for (int i = 1; i < reps; i++)
    for (int j = i; j > 0 && best[j] < best[j - 1]; j--) {
      double t = best[j]; best[j] = best[j - 1]; best[j - 1] = t;
    }
  printf("{\"nsPerCall\":%.3f,\"min\":%.3f,\"max\":%.3f,\"reps\":%d,\"calls\":%ld}\n", best[reps / 2], best[0],
         best[reps - 1], reps, iters * CALLS_PER_ITER);
#ifdef __EMSCRIPTEN__
  EM_ASM({ globalThis.benchDone = true; });
#endif
  return 0;
}
