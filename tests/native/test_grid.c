/* The sampling tick grid (worker.c): sessions that start together share
 * every sample timestamp, a session started later ticks on the grid of the
 * running ones, and every grid point of a session's life is either sampled
 * or counted as missed. One recording, made once, serves every test; no
 * test asserts a rate or a delay, only what a loaded machine cannot change
 * (waits are for conditions, bounded generously). */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cJSON.h"
#include "runtime.h"
#include "session.h"
#include "startup.h"
#include "wasmtrace/wasmtrace.h"
#include "wt_test.h"
#include "wt_test_fs.h"

#define INTERVAL_US 1000
#define MAX_TS 200000

/* ---- helpers ------------------------------------------------------------ */

static char tmpdir[64];

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Pumps output until `done(id)` holds; gives up after 30 s. */
static int pump_until(int (*done)(int id, uint64_t arg), int id, uint64_t arg) {
  double give_up = now_s() + 30;
  while (!done(id, arg)) {
    if (now_s() > give_up) return 0;
    wt_io_pump();
    sleep_ms(1);
  }
  return 1;
}

static int is_running(int id, uint64_t arg) {
  (void)arg;
  return wt_session_state_get(id) == WT_SESSION_RUNNING;
}

static int is_over(int id, uint64_t arg) {
  (void)arg;
  wt_session_state st = wt_session_state_get(id);
  return st == WT_SESSION_STOPPED || st == WT_SESSION_FAILED;
}

static int has_samples(int id, uint64_t n) {
  wt_session_stats st;
  return wt_session_stats_get(id, &st) == WT_OK && st.samples_taken >= n;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* What one session recorded: its distinct sample timestamps (integer us,
 * as the chrome format writes them), sorted, and its accounting. */
typedef struct recording {
  int id;
  char path[256];
  int64_t *ts;
  size_t n;
  uint64_t ticks, missed, samples;
  double start_us, stop_us;
} recording;

/* Reads the chrome trace: each thread's Profile startTime plus its chunks'
 * timeDeltas gives its sample times. */
static int read_samples(recording *r) {
  FILE *f = fopen(r->path, "rb");
  if (!f) return 0;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)len + 1);
  if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) {
    fclose(f);
    free(text);
    return 0;
  }
  fclose(f);
  text[len] = '\0';
  cJSON *events = cJSON_Parse(text);
  free(text);
  if (!cJSON_IsArray(events)) {
    cJSON_Delete(events);
    return 0;
  }
  r->ts = malloc(MAX_TS * sizeof *r->ts);
  r->n = 0;
  int64_t clock[WT_MAX_THREADS + 2] = {0};
  const cJSON *e;
  cJSON_ArrayForEach(e, events) {
    const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
    const cJSON *tid = cJSON_GetObjectItemCaseSensitive(e, "tid");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "args"), "data");
    if (!cJSON_IsString(ph) || strcmp(ph->valuestring, "P") || !cJSON_IsNumber(tid) || !data) continue;
    int t = (int)tid->valuedouble;
    if (t < 0 || t > WT_MAX_THREADS) continue;
    if (!strcmp(name->valuestring, "Profile")) {
      clock[t] = (int64_t)cJSON_GetObjectItemCaseSensitive(data, "startTime")->valuedouble;
      continue;
    }
    const cJSON *d;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(data, "timeDeltas")) {
      clock[t] += (int64_t)d->valuedouble;
      if (r->n < MAX_TS) r->ts[r->n++] = clock[t];
    }
  }
  cJSON_Delete(events);
  /* Every thread of a tick has the same timestamp: keep distinct ones. */
  qsort(r->ts, r->n, sizeof *r->ts, cmp_i64);
  size_t k = 0;
  for (size_t i = 0; i < r->n; i++)
    if (k == 0 || r->ts[i] != r->ts[k - 1]) r->ts[k++] = r->ts[i];
  r->n = k;
  return 1;
}

static void note_accounting(recording *r) {
  wt_session *s = wt_session_get(r->id);
  r->ticks = s->ticks;
  r->missed = atomic_load(&s->ticks_missed);
  r->samples = atomic_load(&s->samples_taken);
  r->start_us = s->start_us;
  r->stop_us = s->stop_us;
}

/* The timestamps of r inside [lo, hi]. */
static size_t slice(const recording *r, int64_t lo, int64_t hi, const int64_t **out) {
  size_t a = 0, b;
  while (a < r->n && r->ts[a] < lo) a++;
  for (b = a; b < r->n && r->ts[b] <= hi; b++) {
  }
  *out = r->ts + a;
  return b - a;
}

/* ---- the recording ---------------------------------------------------------- */

/* A and B: startup sessions (one config, started together); C: started at
 * runtime while they run, and stopped before them. */
static recording rec[3];
static int recorded;

static int record_once(void) {
  if (recorded) return recorded > 0;
  recorded = -1;
  char config[1024];
  const char *fmt = "{\"name\":\"%s\",\"output\":\"%s/%s.json\",\"compression\":\"none\","
                    "\"sampling\":{\"intervalUs\":%d},\"counters\":{\"enabled\":false},\"categories\":[]}";
  char a[400], b[400], c[400];
  snprintf(a, sizeof a, fmt, "a", tmpdir, "a", INTERVAL_US);
  snprintf(b, sizeof b, fmt, "b", tmpdir, "b", INTERVAL_US);
  snprintf(c, sizeof c, fmt, "c", tmpdir, "c", INTERVAL_US);
  snprintf(config, sizeof config, "{\"sessions\":[%s,%s]}", a, b);
  for (int i = 0; i < 3; i++) snprintf(rec[i].path, sizeof rec[i].path, "%s/%c.json", tmpdir, 'a' + i);

#ifdef __EMSCRIPTEN__
  /* The wasm build reads the startup config from Module.wasmtraceConfig. */
  EM_ASM({ Module['wasmtraceConfig'] = UTF8ToString($0); }, config);
  wt_runtime_start_from_config();
  EM_ASM({ delete Module['wasmtraceConfig']; });
#else
  setenv("WASMTRACE_CONFIG", config, 1);
  wt_runtime_start_from_config();
  unsetenv("WASMTRACE_CONFIG");
#endif
  if (wt_startup_count() != 2) return 0;
  rec[0].id = wt_startup_id(0);
  rec[1].id = wt_startup_id(1);
  if (!pump_until(is_running, rec[0].id, 0) || !pump_until(is_running, rec[1].id, 0)) return 0;
  if (!pump_until(has_samples, rec[0].id, 30)) return 0;

  if (wt_session_start(c, &rec[2].id) != WT_OK) return 0;
  if (!pump_until(is_running, rec[2].id, 0) || !pump_until(has_samples, rec[2].id, 30)) return 0;
  wt_session_stop(rec[2].id);
  if (!pump_until(is_over, rec[2].id, 0)) return 0;

  /* A and B outlive C by some ticks. */
  wt_session_stats st;
  wt_session_stats_get(rec[0].id, &st);
  if (!pump_until(has_samples, rec[0].id, st.samples_taken + 10)) return 0;
  wt_session_stop(rec[0].id);
  wt_session_stop(rec[1].id);
  if (!pump_until(is_over, rec[0].id, 0) || !pump_until(is_over, rec[1].id, 0)) return 0;
  for (int i = 0; i < 3; i++) {
    if (wt_session_state_get(rec[i].id) != WT_SESSION_STOPPED) return 0;
    note_accounting(&rec[i]);
    if (!read_samples(&rec[i]) || rec[i].n == 0) return 0;
  }
  recorded = 1;
  return 1;
}

/* ---- tests ------------------------------------------------------------------ */

WT_TEST(sessions_started_together_should_share_every_sample_timestamp) {
  REQUIRE(record_once());
  const recording *a = &rec[0], *b = &rec[1];
  /* The same first tick; then, while both run, the very same ticks. */
  CHECK_EQ_INT(a->ts[0], b->ts[0]);
  int64_t hi = a->ts[a->n - 1] < b->ts[b->n - 1] ? a->ts[a->n - 1] : b->ts[b->n - 1];
  const int64_t *sa, *sb;
  size_t na = slice(a, a->ts[0], hi, &sa), nb = slice(b, b->ts[0], hi, &sb);
  REQUIRE_EQ_INT(na, nb);
  size_t differ = 0;
  for (size_t i = 0; i < na; i++) differ += sa[i] != sb[i];
  CHECK_EQ_INT(differ, 0);
}

WT_TEST(a_session_started_later_should_tick_with_the_running_ones) {
  REQUIRE(record_once());
  const recording *a = &rec[0], *c = &rec[2];
  /* C started after A's first tick and stopped before A. */
  CHECK(c->ts[0] > a->ts[0]);
  CHECK(c->ts[c->n - 1] < a->ts[a->n - 1]);
  /* While both ran, C's ticks are exactly A's. */
  const int64_t *sa;
  size_t na = slice(a, c->ts[0], c->ts[c->n - 1], &sa);
  REQUIRE_EQ_INT(na, c->n);
  size_t differ = 0;
  for (size_t i = 0; i < na; i++) differ += sa[i] != c->ts[i];
  CHECK_EQ_INT(differ, 0);
}

WT_TEST(every_grid_point_of_a_session_should_be_sampled_or_counted_missed) {
  REQUIRE(record_once());
  const double period = INTERVAL_US;
  for (int i = 0; i < 3; i++) {
    const recording *r = &rec[i];
    /* One thread (this one), so one sample per tick, one timestamp each. */
    CHECK_EQ_U64(r->samples, r->ticks);
    CHECK_EQ_U64(r->n, r->ticks);
    /* Ticks and missed points cover the grid points from the first
     * deadline through the stop: the first deadline they imply is a grid
     * point no earlier than the session's creation's grid point and no
     * later than its first sample. */
    double last = floor(r->stop_us / period) * period;
    double first = last - (double)(r->ticks + r->missed - 1) * period;
    CHECK(first >= floor(r->start_us / period) * period);
    CHECK(first <= (double)r->ts[0] + 0.5);
  }
  /* A and B began on the same grid point. */
  CHECK(rec[0].ts[0] == rec[1].ts[0]);
}

int main(int argc, char **argv) {
  if (!wt_test_make_tmpdir(tmpdir, sizeof tmpdir, "grid")) return 1;
  static const wt_test tests[] = {
      WT_TEST_ENTRY(sessions_started_together_should_share_every_sample_timestamp),
      WT_TEST_ENTRY(a_session_started_later_should_tick_with_the_running_ones),
      WT_TEST_ENTRY(every_grid_point_of_a_session_should_be_sampled_or_counted_missed),
  };
  int rc = wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
  for (int i = 0; i < 3; i++) free(rec[i].ts);
  wt_runtime_reset_for_testing(0);
  wt_test_remove_tree(tmpdir);
  return rc;
}
