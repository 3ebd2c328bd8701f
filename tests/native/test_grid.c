/* The sampling tick grid (rec_samples.c, in worker.c's loop): sessions
 * that start together share every sample timestamp, a session started later ticks on the grid of the
 * running ones, and the grid points of a session's life, from its first
 * tick's to its stop's, are each sampled or counted as missed, exactly, the
 * last one sampled, also when the worker notices a stop late. A startup
 * batch made while the worker runs is adopted whole, and keeps the events
 * recorded between its sessions' creation and their adoption. Where the
 * worker must be held at a given point, the test holds the runtime's own
 * category mutex (no test hook in the library). Each recording is made once
 * and serves several tests; no test asserts a rate or a delay, only what a
 * loaded machine cannot change (waits are for conditions, bounded
 * generously). */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <math.h>
#include <pthread.h>
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
#include "recorders.h"
#include "runtime.h"
#include "runtime_start.h"
#include "session.h"
#include "startup.h"
#include "wasmtrace/wasmtrace.h"
#include "wt_test.h"
#include "wt_test_fs.h"

#define INTERVAL_US 1000
#define MAX_TS 200000

/* ---- helpers ------------------------------------------------------------ */

static char tmpdir[64];

/* Pumps output until `done(id)` holds; gives up after 30 s. */
static int pump_until(int (*done)(int id, uint64_t arg), int id, uint64_t arg) {
  double give_up = wt_test_now_s() + 30;
  while (!done(id, arg)) {
    if (wt_test_now_s() > give_up) return 0;
    wt_io_pump();
    wt_test_sleep_ms(1);
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

/* Waits without pumping output (the caller holds a lock that the pump
 * could want) until `done(id)` holds; gives up after 30 s. */
static int wait_until(int (*done)(int id, uint64_t arg), int id, uint64_t arg) {
  double give_up = wt_test_now_s() + 30;
  while (!done(id, arg)) {
    if (wt_test_now_s() > give_up) return 0;
    wt_test_sleep_ms(1);
  }
  return 1;
}

static int has_sessions(int unused, uint64_t n) {
  (void)unused;
  return wt_session_count() >= (int)n;
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
  r->ticks = s->grid.ticks;
  r->missed = atomic_load(&s->ticks_missed);
  r->samples = atomic_load(&s->samples_taken);
  r->start_us = s->start_us;
  r->stop_us = s->stop_us;
}

/* The grid point (its index) at or before a time in us. */
static int64_t grid_point(double us) { return (int64_t)floor(us / INTERVAL_US); }

/* The accounting rec_samples.c states, checked exactly from the recorded
 * timestamps and the stop time: one thread (this one), so one sample and
 * one distinct timestamp per tick, each tick on its own grid point, and
 * ticks + missed == the grid points from the first tick's through the
 * stop's, which is the last tick's (the stop leaves no point over). */
static void check_grid_accounting(const recording *r) {
  CHECK_EQ_U64(r->samples, r->ticks);
  CHECK_EQ_U64(r->n, r->ticks);
  if (r->n == 0) return;
  /* Tick times and the stop time are whole microseconds. */
  CHECK(r->stop_us == floor(r->stop_us));
  size_t shared = 0;
  for (size_t i = 1; i < r->n; i++) shared += grid_point((double)r->ts[i]) == grid_point((double)r->ts[i - 1]);
  CHECK_EQ_INT(shared, 0);
  int64_t first = grid_point((double)r->ts[0]), last = grid_point((double)r->ts[r->n - 1]);
  int64_t stop = grid_point(r->stop_us);
  CHECK_EQ_INT(stop, last);
  CHECK_EQ_U64(r->ticks + r->missed, (uint64_t)(stop - first + 1));
  const char *name = strrchr(r->path, '/');
  fprintf(stderr, "      %s: %llu ticks + %llu missed = %lld grid points, first tick's through the stop's\n",
          name ? name + 1 : r->path, (unsigned long long)r->ticks, (unsigned long long)r->missed,
          (long long)(stop - first + 1));
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

/* Each of n stopped recordings: its accounting and its trace's samples. */
static int finish(recording *r, int n) {
  for (int i = 0; i < n; i++) {
    if (wt_session_state_get(r[i].id) != WT_SESSION_STOPPED) return 0;
    note_accounting(&r[i]);
    if (!read_samples(&r[i]) || r[i].n == 0) return 0;
  }
  return 1;
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
  if (!finish(rec, 3)) return 0;
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
  for (int i = 0; i < 3; i++) check_grid_accounting(&rec[i]);
  /* A and B began on the same grid point. */
  CHECK(rec[0].ts[0] == rec[1].ts[0]);
}

/* ---- a stop the worker notices late ------------------------------------------ */

/* E runs alone; D is started at runtime by another thread while this one
 * holds the category mutex, so that the worker, adopting D, blocks in the
 * category update that ends its adoption (worker.c: start_session), at the
 * start of an iteration whose sample tick is still to come. E's stop is
 * requested while the worker is blocked, and the worker is kept there for
 * many grid points: when it goes on, E is late and asked to stop. No test
 * hook in the library: the mutex is the runtime's own. F then ends by its
 * duration. */
static recording late[3]; /* E, D, F */
static int late_recorded;

static char d_config[400];
static void *start_d(void *arg) {
  wt_session_start(d_config, (int *)arg);
  return NULL;
}

static int record_late_once(void) {
  if (late_recorded) return late_recorded > 0;
  late_recorded = -1;
  const char *fmt = "{\"name\":\"%s\",\"output\":\"%s/%s.json\",\"compression\":\"none\","
                    "\"sampling\":{\"intervalUs\":%d},\"counters\":{\"enabled\":false},\"categories\":[]%s}";
  char e[400], f[400];
  snprintf(e, sizeof e, fmt, "e", tmpdir, "e", INTERVAL_US, "");
  snprintf(d_config, sizeof d_config, fmt, "d", tmpdir, "d", INTERVAL_US, "");
  snprintf(f, sizeof f, fmt, "f", tmpdir, "f", INTERVAL_US, ",\"durationMs\":30");
  for (int i = 0; i < 3; i++) snprintf(late[i].path, sizeof late[i].path, "%s/%c.json", tmpdir, "edf"[i]);

  if (wt_session_start(e, &late[0].id) != WT_OK) return 0;
  if (!pump_until(is_running, late[0].id, 0) || !pump_until(has_samples, late[0].id, 5)) return 0;

  pthread_mutex_lock(&wt_rt.categories_mutex);
  pthread_t adder;
  late[1].id = late[0].id + 1; /* D's id: the next one (nothing else adds sessions) */
  int d_id = -1;
  int ok = pthread_create(&adder, NULL, start_d, &d_id) == 0;
  /* D is RUNNING once the worker has adopted it, just before the update
   * that blocks it. */
  ok = ok && wait_until(has_sessions, 0, (uint64_t)late[1].id + 1) && wait_until(is_running, late[1].id, 0);
  if (ok) {
    wt_session_stop(late[0].id);
    wt_test_sleep_ms(12 * INTERVAL_US / 1000); /* 12 grid points */
  }
  pthread_mutex_unlock(&wt_rt.categories_mutex);
  pthread_join(adder, NULL);
  if (!ok || d_id != late[1].id) return 0;
  if (!pump_until(is_over, late[0].id, 0)) return 0;
  wt_session_stop(late[1].id);
  if (!pump_until(is_over, late[1].id, 0)) return 0;

  /* F: alone, until its duration is over. */
  if (wt_session_start(f, &late[2].id) != WT_OK || !pump_until(is_over, late[2].id, 0)) return 0;

  if (!finish(late, 3)) return 0;
  late_recorded = 1;
  return 1;
}

WT_TEST(a_stop_noticed_late_should_sample_the_due_grid_point_not_count_it_missed) {
  REQUIRE(record_late_once());
  const recording *e = &late[0], *d = &late[1];
  /* The worker was late: the grid points it slept through are missed... */
  CHECK(e->missed >= 5);
  /* ...but the stop came after the late tick, which took the last point
   * (check_grid_accounting: the stop's grid point is the last tick's). */
  check_grid_accounting(e);
  check_grid_accounting(d);
  /* D, adopted in that iteration, joined E's late tick: its first. */
  CHECK_EQ_INT(d->ts[0], e->ts[e->n - 1]);
}

WT_TEST(a_session_ended_by_its_duration_should_end_on_a_tick) {
  REQUIRE(record_late_once());
  const recording *f = &late[2];
  check_grid_accounting(f);
  CHECK(f->stop_us - f->start_us >= 30000);
}

/* ---- a startup batch while the worker runs ------------------------------------ */

/* H samples, so the worker iterates every interval. A startup batch of G1
 * and G2 is then made on this thread while another thread, the blocker,
 * holds the category mutex: the batch stops in the category update that
 * ends G1's creation, with G1 in the table and G2 not yet. Meanwhile the
 * blocker records an instant (after G1's start, so G1's) and the worker
 * iterates for many intervals; then the blocker lets the batch go on. */
static recording batch[3]; /* H, G1, G2 */
static int batch_recorded;
static int batch_base;              /* G1's id */
static int g1_state_during_batch = -1;
static int g1_events_in_file, g2_events_in_file;
static _Atomic int blocker_locked;

static void *block_batch(void *arg) {
  (void)arg;
  static wt_site site = WT_SITE_INIT("in_batch", "app");
  pthread_mutex_lock(&wt_rt.categories_mutex);
  atomic_store(&blocker_locked, 1);
  if (wait_until(has_sessions, 0, (uint64_t)batch_base + 1)) {
    wt_test_sleep_ms(5);
    wt_instant(&site);
    wt_test_sleep_ms(10); /* ten grid points: the worker iterates meanwhile */
    g1_state_during_batch = wt_session_state_get(batch_base);
  }
  pthread_mutex_unlock(&wt_rt.categories_mutex);
  return NULL;
}

/* Instants named `name` in a chrome trace. */
static int count_instants(const char *path, const char *name) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)len + 1);
  size_t got = text ? fread(text, 1, (size_t)len, f) : 0;
  fclose(f);
  if (!text || got != (size_t)len) {
    free(text);
    return -1;
  }
  text[len] = '\0';
  cJSON *events = cJSON_Parse(text);
  free(text);
  int n = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, events) {
    const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
    if (cJSON_IsString(ph) && !strcmp(ph->valuestring, "I") && cJSON_IsString(nm) && !strcmp(nm->valuestring, name)) n++;
  }
  cJSON_Delete(events);
  return n;
}

static int record_batch_once(void) {
  if (batch_recorded) return batch_recorded > 0;
  batch_recorded = -1;
  const char *fmt = "{\"name\":\"%s\",\"output\":\"%s/%s.json\",\"compression\":\"none\","
                    "\"sampling\":{\"intervalUs\":%d},\"counters\":{\"enabled\":false},\"categories\":[\"app\"]}";
  char h[400], g1[400], g2[400], config[1024];
  snprintf(h, sizeof h, fmt, "h", tmpdir, "h", INTERVAL_US);
  snprintf(g1, sizeof g1, fmt, "g1", tmpdir, "g1", INTERVAL_US);
  snprintf(g2, sizeof g2, fmt, "g2", tmpdir, "g2", INTERVAL_US);
  snprintf(config, sizeof config, "{\"sessions\":[%s,%s]}", g1, g2);
  snprintf(batch[0].path, sizeof batch[0].path, "%s/h.json", tmpdir);
  snprintf(batch[1].path, sizeof batch[1].path, "%s/g1.json", tmpdir);
  snprintf(batch[2].path, sizeof batch[2].path, "%s/g2.json", tmpdir);

  if (wt_session_start(h, &batch[0].id) != WT_OK) return 0;
  if (!pump_until(is_running, batch[0].id, 0) || !pump_until(has_samples, batch[0].id, 5)) return 0;
  /* Interns the category "app" now: a new category would take the mutex
   * the blocker holds. */
  static wt_site warm = WT_SITE_INIT("warm", "app");
  wt_instant(&warm);

  batch_base = wt_session_count();
  int startups = wt_startup_count();
  pthread_t blocker;
  if (pthread_create(&blocker, NULL, block_batch, NULL) != 0) return 0;
  while (!atomic_load(&blocker_locked)) wt_test_sleep_ms(1);
#ifdef __EMSCRIPTEN__
  EM_ASM({ Module['wasmtraceConfig'] = UTF8ToString($0); }, config);
  wt_runtime_start_from_config();
  EM_ASM({ delete Module['wasmtraceConfig']; });
#else
  setenv("WASMTRACE_CONFIG", config, 1);
  wt_runtime_start_from_config();
  unsetenv("WASMTRACE_CONFIG");
#endif
  pthread_join(blocker, NULL);
  if (wt_startup_count() != startups + 2) return 0;
  batch[1].id = wt_startup_id(startups);
  batch[2].id = wt_startup_id(startups + 1);
  if (batch[1].id != batch_base) return 0;
  for (int i = 1; i < 3; i++)
    if (!pump_until(is_running, batch[i].id, 0) || !pump_until(has_samples, batch[i].id, 5)) return 0;
  for (int i = 0; i < 3; i++) wt_session_stop(batch[i].id);
  for (int i = 0; i < 3; i++) {
    if (!pump_until(is_over, batch[i].id, 0) || wt_session_state_get(batch[i].id) != WT_SESSION_STOPPED) return 0;
    note_accounting(&batch[i]);
    if (!read_samples(&batch[i]) || batch[i].n == 0) return 0;
  }
  g1_events_in_file = count_instants(batch[1].path, "in_batch");
  g2_events_in_file = count_instants(batch[2].path, "in_batch");
  batch_recorded = 1;
  return 1;
}

WT_TEST(a_startup_batch_should_be_adopted_whole_while_the_worker_runs) {
  REQUIRE(record_batch_once());
  /* Not adopted while the batch was under way, though the worker ran... */
  CHECK_EQ_INT(g1_state_during_batch, WT_SESSION_STARTING);
  /* ...then both at once: the same first tick, on H's grid. */
  CHECK_EQ_INT(batch[1].ts[0], batch[2].ts[0]);
  const int64_t *sh;
  CHECK_EQ_INT(slice(&batch[0], batch[1].ts[0], batch[1].ts[0], &sh), 1);
}

WT_TEST(events_between_a_startup_sessions_creation_and_adoption_should_reach_it) {
  REQUIRE(record_batch_once());
  /* The instant came after G1's creation and before G2's. */
  CHECK_EQ_INT(g1_events_in_file, 1);
  CHECK_EQ_INT(g2_events_in_file, 0);
}

/* The CPU samples are a recorder (rec_samples.c): the worker learns a
 * session's deadline and its sleep's period from the registry, which asks
 * the sampler only for a session that samples; a session adopted while
 * another samples is due at the next grid point, else at once. No worker
 * reads these sessions (they are not in the table): the hooks are called
 * as the worker calls them. Runs before any test starts the worker (the
 * sampler's adopt state is the worker's). */
WT_TEST(the_sampler_recorder_should_set_deadlines_only_for_sessions_that_sample) {
  static wt_session on, off, later;
  wt_config_defaults(&on.config, "on");
  on.config.interval_us = 500;
  wt_config_defaults(&off.config, "off");
  off.config.sampling = 0;
  wt_config_defaults(&later.config, "later");
  later.config.interval_us = 500;
  wt_session *const all[] = {&on, &off, &later};
  for (int i = 0; i < 3; i++) {
    wt_recorders_prepare(all[i]);
    atomic_store(&all[i]->state, WT_SESSION_STARTING);
  }
  /* `off` runs but does not sample: `on` joins no grid, due at once. */
  wt_recorders_adopting(all, 3);
  wt_recorders_adopted(&off, 10000);
  atomic_store(&off.state, WT_SESSION_RUNNING);
  wt_recorders_adopting(all, 3);
  wt_recorders_adopted(&on, 10250);
  atomic_store(&on.state, WT_SESSION_RUNNING);
  CHECK(wt_recorders_deadline(&on, 1e9) == 10250);
  CHECK(wt_recorders_deadline(&off, 1e9) == 1e9); /* no sampling deadline */
  CHECK(wt_recorders_period(&on) == 500);
  CHECK(wt_recorders_period(&off) == 0);
  /* A tick before the deadline takes nothing and returns the time asked. */
  CHECK(wt_recorders_tick(all, 3, 10000) == 10000);
  /* `on` samples now: `later` joins its grid at the point after 10600. */
  wt_recorders_adopting(all, 3);
  wt_recorders_adopted(&later, 10600);
  CHECK(wt_recorders_deadline(&later, 1e9) == 11000);
  CHECK(off.grid.next_us == 0 && off.grid.ticks == 0);
}

/* The grid's arithmetic alone (grid.h): deadlines, missed points, lateness
 * and weights, on made-up times. */
WT_TEST(the_grid_should_count_missed_points_lateness_and_weights) {
  wt_grid g = {0};
  wt_grid_start(&g, 1234, 1000, 1); /* joining: the next grid point */
  CHECK(g.next_us == 2000);
  wt_grid_start(&g, 1234, 1000, 0); /* alone: at once */
  CHECK(g.next_us == 1234);
  CHECK_EQ_U64(wt_grid_tick(&g, 1240, 1000), 0); /* the first tick: no deadline, no lateness */
  CHECK(g.next_us == 2000);
  CHECK_EQ_U64(wt_grid_lateness_percentile(&g, 50), 0);
  CHECK_EQ_U64(wt_grid_tick(&g, 2003, 1000), 0); /* 3 us late */
  CHECK(g.next_us == 3000);
  CHECK_EQ_U64(wt_grid_tick(&g, 5500, 1000), 2); /* 3000 and 4000 missed */
  CHECK(g.next_us == 6000);
  CHECK_EQ_U64(g.ticks, 3);
  CHECK(g.lateness_max_us == 2500);
  CHECK_EQ_U64(wt_grid_lateness_percentile(&g, 50), 4);    /* 3 us: below 2^2 */
  CHECK_EQ_U64(wt_grid_lateness_percentile(&g, 99), 4096); /* 2500 us: below 2^12 */
  CHECK_EQ_U64(wt_grid_weight(2003, 1240, 1000), 1);
  CHECK_EQ_U64(wt_grid_weight(5500, 2003, 1000), 3);
  CHECK_EQ_U64(wt_grid_weight(2003, 2001, 1000), 1); /* same period: still one */
  CHECK_EQ_U64(wt_grid_weight(1e12, 0, 1000), UINT16_MAX);
}

int main(int argc, char **argv) {
  if (!wt_test_make_tmpdir(tmpdir, sizeof tmpdir, "grid")) return 1;
  static const wt_test tests[] = {
      WT_TEST_ENTRY(the_sampler_recorder_should_set_deadlines_only_for_sessions_that_sample),
      WT_TEST_ENTRY(the_grid_should_count_missed_points_lateness_and_weights),
      WT_TEST_ENTRY(sessions_started_together_should_share_every_sample_timestamp),
      WT_TEST_ENTRY(a_session_started_later_should_tick_with_the_running_ones),
      WT_TEST_ENTRY(every_grid_point_of_a_session_should_be_sampled_or_counted_missed),
      WT_TEST_ENTRY(a_stop_noticed_late_should_sample_the_due_grid_point_not_count_it_missed),
      WT_TEST_ENTRY(a_session_ended_by_its_duration_should_end_on_a_tick),
      WT_TEST_ENTRY(a_startup_batch_should_be_adopted_whole_while_the_worker_runs),
      WT_TEST_ENTRY(events_between_a_startup_sessions_creation_and_adoption_should_reach_it),
  };
  int rc = wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
  for (int i = 0; i < 3; i++) {
    free(rec[i].ts);
    free(late[i].ts);
    free(batch[i].ts);
  }
  wt_runtime_reset_for_testing(0);
  wt_test_remove_tree(tmpdir);
  return rc;
}
