/* Call-heavy benchmark (issue 16): what the sampler keeps of a thread whose
 * stack never stops moving. Built with -finstrument-functions. The main
 * thread alternates two phases for MS milliseconds while a session samples
 * it every INTERVAL_US:
 *   sort  qsort of 20,000 strings through a non-inlined comparator
 *         (cmp_entries -> key_less -> char_code), a few ns per call
 *   eval  a recursive evaluator of a random expression tree, 14 deep
 * Prints one JSON line: samples taken, dropped as torn, kept as partial,
 * their rates in %, and the measured time share of each phase (the ground
 * truth a trace's total-time shares can be compared with).
 *
 *   callheavy.js [MS] [INTERVAL_US] [TRACE_FILE]
 * The trace (chrome format) is written to TRACE_FILE on the host's file
 * system (default /tmp/wasmtrace-callheavy.json.gz). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <emscripten.h>
#include <wasmtrace/wasmtrace.h>

#define NKEYS 20000
#define KEYLEN 12

static char g_keys[NKEYS][KEYLEN];
static const char *g_sorted[NKEYS];
static volatile int64_t g_sink;

/* One call per character: the comparator's stack moves every few ns. */
__attribute__((noinline)) static int char_code(const char *s, int i) { return (unsigned char)s[i]; }

__attribute__((noinline)) static int key_less(const char *a, const char *b) {
  for (int i = 0;; i++) {
    int ca = char_code(a, i), cb = char_code(b, i);
    if (ca != cb || !ca) return ca - cb;
  }
}

__attribute__((noinline)) static int cmp_entries(const void *pa, const void *pb) {
  return key_less(*(const char *const *)pa, *(const char *const *)pb);
}

__attribute__((noinline)) static void phase_sort(unsigned round) {
  for (int i = 0; i < NKEYS; i++) g_sorted[i] = g_keys[(i * 7919u + round * 104729u) % NKEYS];
  qsort(g_sorted, NKEYS, sizeof g_sorted[0], cmp_entries);
  g_sink += g_sorted[round % NKEYS][0];
}

/* An expression tree in an array: node i has children 2i+1 and 2i+2. */
#define EVAL_DEPTH 14
#define EVAL_NODES ((1 << EVAL_DEPTH) - 1)
static uint8_t g_ops[EVAL_NODES];

__attribute__((noinline)) static int64_t apply(uint8_t op, int64_t a, int64_t b) {
  switch (op & 3) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return (a * b) % 1000003;
    default: return a ^ b;
  }
}

__attribute__((noinline)) static int64_t eval(int node) {
  if (node >= EVAL_NODES / 2) return g_ops[node];
  return apply(g_ops[node], eval(2 * node + 1), eval(2 * node + 2));
}

__attribute__((noinline)) static void phase_eval(unsigned round) {
  for (int k = 0; k < 24; k++) g_sink += eval(0) + round;
}

int main(int argc, char **argv) {
  double ms = argc > 1 ? atof(argv[1]) : 2000;
  int interval = argc > 2 ? atoi(argv[2]) : 1000;
  const char *out = argc > 3 ? argv[3] : "/tmp/wasmtrace-callheavy.json.gz";
  uint32_t x = 12345;
  for (int i = 0; i < NKEYS; i++) {
    x = x * 1103515245u + 12345u;
    snprintf(g_keys[i], KEYLEN, "k%08x", (unsigned)x);
  }
  for (int i = 0; i < EVAL_NODES; i++) {
    x = x * 1103515245u + 12345u;
    g_ops[i] = (uint8_t)(x >> 24);
  }
  char config[256];
  snprintf(config, sizeof config,
           "{\"name\":\"callheavy\",\"output\":\"%s\",\"overwrite\":true,"
           "\"sampling\":{\"intervalUs\":%d},\"counters\":{\"enabled\":false},\"maxBufferKB\":65536}",
           out, interval);
  int session = -1;
  if (wt_session_start(config, &session) != WT_OK) {
    fprintf(stderr, "callheavy: session: %s\n", wt_session_error(session));
    return 2;
  }
  double t0 = emscripten_get_now(), end = t0 + ms, sort_ms = 0, eval_ms = 0;
  unsigned round = 0;
  while (emscripten_get_now() < end) {
    double a = emscripten_get_now();
    phase_sort(round);
    double b = emscripten_get_now();
    phase_eval(round);
    double c = emscripten_get_now();
    sort_ms += b - a;
    eval_ms += c - b;
    round++;
  }
  /* Stop, and write the trace out (NODERAWFS: the host's file system). */
  wt_session_stop(session);
  double give_up = emscripten_get_now() + 30000;
  while (wt_session_state_get(session) != WT_SESSION_STOPPED &&
         wt_session_state_get(session) != WT_SESSION_FAILED && emscripten_get_now() < give_up)
    wt_io_pump();
  wt_session_stats st;
  wt_session_stats_get(session, &st);
  double taken = st.samples_taken ? (double)st.samples_taken : 1;
  printf("{\"samplesTaken\":%llu,\"torn\":%llu,\"partial\":%llu,\"tornPct\":%.4f,\"partialPct\":%.4f,"
         "\"rounds\":%u,\"sortShare\":%.4f,\"evalShare\":%.4f}\n",
         (unsigned long long)st.samples_taken, (unsigned long long)st.samples_torn,
         (unsigned long long)st.samples_partial, 100.0 * (double)st.samples_torn / taken,
         100.0 * (double)st.samples_partial / taken, round, sort_ms / (sort_ms + eval_ms),
         eval_ms / (sort_ms + eval_ms));
  return 0;
}
