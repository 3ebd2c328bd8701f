/* Hot-path benchmark: ns per operation of a tight loop. Prints one JSON line.
 *
 *   calls.js MODE [ITERS] [REPS] [SESSION_JSON]
 *
 *   calls      3 tiny non-inlined calls per iteration; built plain and with
 *              -finstrument-functions, the difference per call is the cost
 *              of one enter+exit pair of hooks
 *   empty      one non-inlined call per iteration (baseline of the modes below)
 *   scope      the same plus a WT_SCOPE in category "app"
 *   scope_off  the same plus a WT_SCOPE_CAT in category "off", which no
 *              session records (the cost of a disabled category)
 *   instant    the same plus a WT_INSTANT ("app")
 *   counter    the same plus a WT_COUNTER ("app")
 *   clock2     the same plus two reads of the clock a recorded scope reads
 *              (emscripten_get_now(): performance.now() in a browser), so
 *              scope - clock2 is what of a scope is wasmtrace's own
 *   wait       emscripten_futex_wait on a word that does not hold the value
 *              (returns at once): through wasmtrace's wrapper (the link's
 *              --wrap), which marks the registered caller waiting and back
 *   wait_direct  the same wait, calling the real function (the wrapper's
 *              __real_ alias): wait - wait_direct is the wrapper's cost
 *              on the wait path (wasm only)
 *
 * Each run is the median of REPS repetitions of ITERS iterations (ITERS 0:
 * as many as take about 30 ms, found by doubling). With
 * SESSION_JSON, a session is started first (where the page cannot pass a
 * startup config: Node, native). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <emscripten/threading.h>
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

typedef uint32_t (*loop_fn)(long iters);

static uint32_t loop_calls(long n) {
  uint32_t acc = 0;
  for (long i = 0; i < n; i++) acc += branch((uint32_t)i);
  return acc;
}
static uint32_t loop_empty(long n) {
  uint32_t acc = 0;
  for (long i = 0; i < n; i++) acc += leaf((uint32_t)i);
  return acc;
}
static uint32_t loop_scope(long n) {
  uint32_t acc = 0;
  for (long i = 0; i < n; i++) {
    WT_SCOPE("bench_scope");
    acc += leaf((uint32_t)i);
  }
  return acc;
}
static uint32_t loop_scope_off(long n) {
  uint32_t acc = 0;
  for (long i = 0; i < n; i++) {
    WT_SCOPE_CAT("off", "bench_scope_off");
    acc += leaf((uint32_t)i);
  }
  return acc;
}
static uint32_t loop_instant(long n) {
  uint32_t acc = 0;
  for (long i = 0; i < n; i++) {
    WT_INSTANT("bench_instant");
    acc += leaf((uint32_t)i);
  }
  return acc;
}
static volatile double g_clock_sink;
static uint32_t loop_clock2(long n) {
  uint32_t acc = 0;
  for (long i = 0; i < n; i++) {
    g_clock_sink = now_ms();
    acc += leaf((uint32_t)i);
    g_clock_sink = now_ms();
  }
  return acc;
}
static uint32_t loop_counter(long n) {
  uint32_t acc = 0;
  for (long i = 0; i < n; i++) {
    WT_COUNTER("bench_counter", i);
    acc += leaf((uint32_t)i);
  }
  return acc;
}

#ifdef __EMSCRIPTEN__
/* The real wait, bypassing the wrapper (defined by the linker's --wrap). */
int __real_emscripten_futex_wait(volatile void *addr, uint32_t val, double max_wait_ms);
static volatile uint32_t g_word = 1;
static uint32_t loop_wait(long n) {
  uint32_t acc = 0;
  for (long i = 0; i < n; i++) acc += (uint32_t)emscripten_futex_wait(&g_word, 0, 0.0);
  return acc;
}
static uint32_t loop_wait_direct(long n) {
  uint32_t acc = 0;
  for (long i = 0; i < n; i++) acc += (uint32_t)__real_emscripten_futex_wait(&g_word, 0, 0.0);
  return acc;
}
#endif

static void sort_doubles(double *t, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
      double x = t[j];
      t[j] = t[j - 1];
      t[j - 1] = x;
    }
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "calls";
  long iters = argc > 2 ? atol(argv[2]) : 20000000;
  int reps = argc > 3 ? atoi(argv[3]) : 7;
#ifndef WASMTRACE_DISABLED
  int session = -1;
  if (argc > 4 && wt_session_start(argv[4], &session) != WT_OK) {
    fprintf(stderr, "calls: session: %s\n", wt_session_error(session));
    return 2;
  }
#endif
  static const struct { const char *name; loop_fn fn; int ops; } modes[] = {
      {"calls", loop_calls, 3}, {"empty", loop_empty, 1},     {"scope", loop_scope, 1},
      {"scope_off", loop_scope_off, 1}, {"instant", loop_instant, 1}, {"counter", loop_counter, 1},
      {"clock2", loop_clock2, 1},
#ifdef __EMSCRIPTEN__
      {"wait", loop_wait, 1}, {"wait_direct", loop_wait_direct, 1},
#endif
  };
  /* "A:B" (e.g. scope:clock2): both loops in one process, alternating
   * repetition by repetition, so that the machine's drift is shared; prints
   * the median over repetitions of A - B (ns per op) beside each. */
  const char *colon = strchr(mode, ':');
  char first[32];
  const char *mode_a = mode;
  if (colon) {
    size_t len = (size_t)(colon - mode);
    if (len >= sizeof first) len = sizeof first - 1;
    memcpy(first, mode, len);
    first[len] = 0;
    mode_a = first;
  }
  loop_fn fn = NULL, fn_b = NULL;
  int ops = 1, ops_b = 1;
  for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
    if (strcmp(mode_a, modes[i].name) == 0) {
      fn = modes[i].fn;
      ops = modes[i].ops;
    }
    if (colon && strcmp(colon + 1, modes[i].name) == 0) {
      fn_b = modes[i].fn;
      ops_b = modes[i].ops;
    }
  }
  if (!fn || (colon && !fn_b)) {
    fprintf(stderr, "calls: unknown mode %s\n", mode);
    return 2;
  }
  double t[64];
  if (reps > 64) reps = 64;
  if (reps < 1) reps = 1;
  uint32_t acc = 0;
  if (iters <= 0) { /* calibrate: about 30 ms per repetition */
    for (iters = 1000;; iters *= 2) {
      double c0 = now_ms();
      acc += fn(iters);
      if (now_ms() - c0 >= 30 || iters >= (1L << 30)) break;
    }
  }
  acc += fn(iters / 10); /* warm up */
  if (fn_b) {
    acc += fn_b(iters / 10);
    double a[64], b[64], d[64];
    for (int r = 0; r < reps; r++) {
      double t0 = now_ms();
      acc += fn(iters);
      double t1 = now_ms();
      acc += fn_b(iters);
      double t2 = now_ms();
      a[r] = (t1 - t0) * 1e6 / ((double)iters * ops);
      b[r] = (t2 - t1) * 1e6 / ((double)iters * ops_b);
      d[r] = a[r] - b[r];
    }
    g_sink = acc;
    sort_doubles(a, reps);
    sort_doubles(b, reps);
    sort_doubles(d, reps);
    printf("{\"mode\":\"%s\",\"diffNs\":%.3f,\"a\":%.3f,\"b\":%.3f,\"reps\":%d,\"ops\":%ld}\n", mode,
           d[reps / 2], a[reps / 2], b[reps / 2], reps, iters * ops);
    return 0;
  }
  for (int r = 0; r < reps; r++) {
    double t0 = now_ms();
    acc += fn(iters);
    t[r] = (now_ms() - t0) * 1e6 / ((double)iters * ops);
  }
  g_sink = acc;
  sort_doubles(t, reps);
  printf("{\"mode\":\"%s\",\"nsPerOp\":%.3f,\"min\":%.3f,\"max\":%.3f,\"reps\":%d,\"ops\":%ld}\n", mode,
         t[reps / 2], t[0], t[reps - 1], reps, iters * ops);
  return 0;
}
