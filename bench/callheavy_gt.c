/* Call-heavy workload with a ground truth per function (issue 16), for
 * bench/callheavy.mjs: a fixed call tree of ns-scale functions, built with
 * -finstrument-functions (FULL), run on the page's main thread.
 *
 *   gt_root      self: spin(S_ROOT); calls gt_mid_a, gt_mid_b once each
 *   gt_mid_a     self: spin(S_MID_A); calls gt_leaf_x 4 times
 *   gt_mid_b     self: spin(S_MID_B); calls gt_leaf_y twice, gt_leaf_z once
 *   gt_leaf_x/y/z  self: spin(S_LEAF_*), no calls
 *
 * Every function does a fixed amount of work per call (a dependent chain of
 * integer steps, never a call: spin is always_inline and carries no
 * hooks), so its self time over a recording is exactly calls x its
 * per-call self cost. The program counts the calls; the per-call costs are
 * calibrated in the same process right before and right after the
 * recording: each function is called directly in a timed loop (the same
 * call, with its hooks, as in the tree), which gives its inclusive cost
 * per call, and self = inclusive - sum over its callees of (calls per call
 * x the callee's inclusive cost). gt_empty (no work) measures what one
 * call with its two hooks costs: the part of the truth that a profiler
 * may put on either side of a call boundary.
 *
 * Exports (the page calls them on the main thread, see callheavy_gt.html):
 *   gt_calibrate(ms)  self.gtCalibration = {fn: ns per call, self}
 *   gt_run(ms)        runs gt_root for ms; self.gtRun = {calls, wall ms}
 */
#include <stdint.h>
#include <stdio.h>

#include <emscripten.h>

#define S_ROOT 90
#define S_MID_A 50
#define S_MID_B 30
#define S_LEAF_X 12
#define S_LEAF_Y 40
#define S_LEAF_Z 140

/* Read at run time, so the compiler cannot fold the spins. */
static volatile int g_len[6] = {S_ROOT, S_MID_A, S_MID_B, S_LEAF_X, S_LEAF_Y, S_LEAF_Z};
static volatile uint32_t g_sink;

/* Calls per function during gt_run (the calibration loops count too; gt_run
 * resets them first). */
enum { F_ROOT, F_MID_A, F_MID_B, F_LEAF_X, F_LEAF_Y, F_LEAF_Z, F_EMPTY, F_COUNT };
static uint64_t g_calls[F_COUNT];
static const char *const g_names[F_COUNT] = {"gt_root",   "gt_mid_a",  "gt_mid_b", "gt_leaf_x",
                                              "gt_leaf_y", "gt_leaf_z", "gt_empty"};

/* A fixed chain of n dependent xorshift-multiply steps: no call, no hooks.
 * (Not a plain multiply-add: the compiler composes affine steps and runs
 * eight of them in one.) */
__attribute__((always_inline, no_instrument_function)) static inline void spin(int n) {
  uint32_t x = g_sink;
  for (int i = 0; i < n; i++) {
    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    x ^= x >> 12;
  }
  g_sink = x;
}

__attribute__((noinline)) void gt_empty(void) { g_calls[F_EMPTY]++; }

__attribute__((noinline)) void gt_leaf_x(void) {
  g_calls[F_LEAF_X]++;
  spin(g_len[F_LEAF_X]);
}

__attribute__((noinline)) void gt_leaf_y(void) {
  g_calls[F_LEAF_Y]++;
  spin(g_len[F_LEAF_Y]);
}

__attribute__((noinline)) void gt_leaf_z(void) {
  g_calls[F_LEAF_Z]++;
  spin(g_len[F_LEAF_Z]);
}

__attribute__((noinline)) void gt_mid_a(void) {
  g_calls[F_MID_A]++;
  spin(g_len[F_MID_A]);
  for (int i = 0; i < 4; i++) gt_leaf_x();
}

__attribute__((noinline)) void gt_mid_b(void) {
  g_calls[F_MID_B]++;
  spin(g_len[F_MID_B]);
  gt_leaf_y();
  gt_leaf_z();
  gt_leaf_y();
}

__attribute__((noinline)) void gt_root(void) {
  g_calls[F_ROOT]++;
  spin(g_len[F_ROOT]);
  gt_mid_a();
  gt_mid_b();
}

typedef void (*gt_fn)(void);
static gt_fn const g_fns[F_COUNT] = {gt_root, gt_mid_a, gt_mid_b, gt_leaf_x, gt_leaf_y, gt_leaf_z, gt_empty};

/* Calls of each function per call of its caller: [caller][callee]. */
static const int g_tree[F_COUNT][F_COUNT] = {
    [F_ROOT] = {[F_MID_A] = 1, [F_MID_B] = 1},
    [F_MID_A] = {[F_LEAF_X] = 4},
    [F_MID_B] = {[F_LEAF_Y] = 2, [F_LEAF_Z] = 1},
};

/* Calls f n times, as the tree does (a direct call with its hooks); the
 * pointer is resolved once, the calls themselves are direct. */
__attribute__((noinline)) static void gt_loop(int f, int n) {
  switch (f) {
    case F_ROOT: for (int i = 0; i < n; i++) gt_root(); break;
    case F_MID_A: for (int i = 0; i < n; i++) gt_mid_a(); break;
    case F_MID_B: for (int i = 0; i < n; i++) gt_mid_b(); break;
    case F_LEAF_X: for (int i = 0; i < n; i++) gt_leaf_x(); break;
    case F_LEAF_Y: for (int i = 0; i < n; i++) gt_leaf_y(); break;
    case F_LEAF_Z: for (int i = 0; i < n; i++) gt_leaf_z(); break;
    default: for (int i = 0; i < n; i++) gt_empty(); break;
  }
}

/* The inclusive cost of one call of f, ns: the best of several timed
 * blocks (the fastest block is the one least disturbed by preemption on a
 * loaded machine). */
static double inclusive_ns(int f, double budget_ms) {
  int n = 1000;
  double t, best = 1e30;
  /* Grow a block until it lasts ~2 ms (timer resolution in a page: 5 us). */
  for (;;) {
    t = emscripten_get_now();
    gt_loop(f, n);
    t = emscripten_get_now() - t;
    if (t > 2.0 || n > (1 << 26)) break;
    n *= 2;
  }
  double end = emscripten_get_now() + budget_ms;
  do {
    t = emscripten_get_now();
    gt_loop(f, n);
    t = emscripten_get_now() - t;
    if (t < best) best = t;
  } while (emscripten_get_now() < end);
  return best * 1e6 / n;
}

EMSCRIPTEN_KEEPALIVE void gt_calibrate(double ms) {
  double incl[F_COUNT], self[F_COUNT];
  for (int f = 0; f < F_COUNT; f++) incl[f] = inclusive_ns(f, ms / F_COUNT);
  for (int f = 0; f < F_COUNT; f++) {
    self[f] = incl[f];
    for (int c = 0; c < F_COUNT; c++) self[f] -= g_tree[f][c] * incl[c];
  }
  char json[1024];
  int n = snprintf(json, sizeof json, "{");
  for (int f = 0; f < F_COUNT; f++)
    n += snprintf(json + n, sizeof json - n, "%s\"%s\":{\"inclusiveNs\":%.4f,\"selfNs\":%.4f}", f ? "," : "",
                  g_names[f], incl[f], self[f]);
  snprintf(json + n, sizeof json - n, "}");
  EM_ASM({ self.gtCalibration = JSON.parse(UTF8ToString($0)); }, json);
}

EMSCRIPTEN_KEEPALIVE void gt_run(double ms) {
  for (int f = 0; f < F_COUNT; f++) g_calls[f] = 0;
  double t0 = emscripten_get_now(), end = t0 + ms, now;
  /* Blocks of 256 roots between clock reads: the clock (a JS call) stays
   * out of the tree's time. */
  do {
    for (int i = 0; i < 256; i++) gt_root();
  } while ((now = emscripten_get_now()) < end);
  char json[512];
  int n = snprintf(json, sizeof json, "{\"wallMs\":%.3f,\"calls\":{", now - t0);
  for (int f = 0; f < F_COUNT; f++)
    n += snprintf(json + n, sizeof json - n, "%s\"%s\":%llu", f ? "," : "", g_names[f],
                  (unsigned long long)g_calls[f]);
  snprintf(json + n, sizeof json - n, "}}");
  EM_ASM({ self.gtRun = JSON.parse(UTF8ToString($0)); }, json);
}

int main(void) {
  EM_ASM({ self.gtReady = true; });
  return 0;
}
