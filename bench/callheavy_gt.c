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
 * per-call self cost. The program counts the calls. The per-call self
 * cost of a function is n x c + h: n its spin length (fixed), c the cost of
 * one spin step and h what one call costs besides its spin (the call, the
 * two hooks, the call counter, the spin's setup). c and h are calibrated
 * in the same page right before and right after the recording from the
 * inclusive costs of two leaves of different spin lengths, each called
 * directly in a timed loop (the same call, with its hooks, as in the tree):
 * a slope and an intercept, no difference of two large numbers. The
 * inclusive costs of the inner functions, calibrated the same way, check
 * the model (bench/callheavy.mjs reports how far it is off). gt_empty (no
 * work) measures a bare call with its two hooks: the part of the truth
 * that a profiler may put on either side of a call boundary.
 *
 * Exports (the page calls them on the main thread, see callheavy_gt.html):
 *   gt_calibrate(ms)  self.gtCalibration = {spin: {fn: n}, rounds: [{fn: ns}]}
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

/* Calls f n times, as the tree does (a direct call with its hooks). */
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

/* A block of n calls of f, ms. */
static double block_ms(int f, int n) {
  double t = emscripten_get_now();
  gt_loop(f, n);
  return emscripten_get_now() - t;
}

#define MAX_ROUNDS 4096
static double g_rounds[MAX_ROUNDS][F_COUNT];

/* Exports, per round, each function's inclusive cost per call, ns, and the
 * spin length of each (the page turns them into per-call self costs): a
 * round times one block of ~1 ms per function, the functions in turn, so
 * that within a round all see the same moment of a loaded machine (the
 * page takes the median over rounds, which leaves out the rounds a
 * preemption hit). Runs the tree first so that V8 has tiered it up as it
 * has in a recording. */
EMSCRIPTEN_KEEPALIVE void gt_calibrate(double ms) {
  int n[F_COUNT], rounds = 0;
  double warm = emscripten_get_now() + ms / 4;
  while (emscripten_get_now() < warm) gt_loop(F_ROOT, 256);
  for (int f = 0; f < F_COUNT; f++) {
    /* Grow a block until it lasts ~1 ms (timer resolution in a page: 5 us). */
    for (n[f] = 256; block_ms(f, n[f]) < 1.0 && n[f] < (1 << 26); n[f] *= 2) {
    }
  }
  double end = emscripten_get_now() + ms;
  do {
    for (int f = 0; f < F_COUNT; f++) g_rounds[rounds][f] = block_ms(f, n[f]) * 1e6 / n[f];
    rounds++;
  } while (emscripten_get_now() < end && rounds < MAX_ROUNDS);
  char json[512];
  int k = snprintf(json, sizeof json, "{");
  for (int f = 0; f < F_COUNT; f++)
    k += snprintf(json + k, sizeof json - k, "%s\"%s\":%d", f ? "," : "", g_names[f], f == F_EMPTY ? 0 : g_len[f]);
  snprintf(json + k, sizeof json - k, "}");
  /* (No commas in the JS outside parentheses: EM_ASM is a macro.) */
  EM_ASM({
    var spin = JSON.parse(UTF8ToString($0));
    var names = Object.keys(spin);
    var rounds = [];
    for (var r = 0; r < $2; r++) {
      var row = {};
      for (var f = 0; f < names.length; f++) row[names[f]] = HEAPF64[($1 >> 3) + r * names.length + f];
      rounds.push(row);
    }
    self.gtCalibration = {};
    self.gtCalibration.spin = spin;
    self.gtCalibration.rounds = rounds;
  }, json, &g_rounds[0][0], rounds);
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
