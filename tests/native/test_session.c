/* Sessions end to end on the host: the public API starts the worker, app
 * threads open scopes, the test's main thread writes the output with
 * wt_io_pump(), and the trace is read back with zlib and cJSON. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <zlib.h>

#include "cJSON.h"
#include "registry.h"
#include "runtime.h"
#include "runtime_start.h"
#include "wasmtrace/wasmtrace.h"
#include "wt_test.h"
#include "wt_test_fs.h"
#include "wt_test_session.h"

/* ---- helpers ------------------------------------------------------------ */

static char tmpdir[64]; /* one directory for the whole run */


/* Pumps until the session is RUNNING (or left STARTING for good). */
static wt_session_state wait_running(int id) {
  double give_up = wt_test_now_s() + 10;
  wt_session_state st;
  while ((st = wt_session_state_get(id)) == WT_SESSION_STARTING && wt_test_now_s() < give_up) {
    wt_io_pump();
    wt_test_sleep_ms(1);
  }
  return st;
}


static long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static const char *str_at(const cJSON *obj, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int has_num(const cJSON *obj, const char *key) {
  return cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(obj, key));
}

static double num_at(const cJSON *obj, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static const cJSON *path_at(const cJSON *obj, const char *a, const char *b, const char *c) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, a);
  if (v && b) v = cJSON_GetObjectItemCaseSensitive(v, b);
  if (v && c) v = cJSON_GetObjectItemCaseSensitive(v, c);
  return v;
}

/* The first event with this ph and name, or NULL. */
static const cJSON *find_event(const cJSON *events, const char *ph, const char *name) {
  const cJSON *e;
  cJSON_ArrayForEach(e, events) {
    const char *p = str_at(e, "ph"), *n = str_at(e, "name");
    if (p && n && strcmp(p, ph) == 0 && strcmp(n, name) == 0) return e;
  }
  return NULL;
}

/* The last thread_name of a tid (a renamed thread gets a second one). */
static const char *thread_name_of(const cJSON *events, int tid) {
  const char *name = NULL;
  const cJSON *e;
  cJSON_ArrayForEach(e, events) {
    const char *p = str_at(e, "ph"), *n = str_at(e, "name");
    if (p && n && !strcmp(p, "M") && !strcmp(n, "thread_name") && num_at(e, "tid") == tid)
      name = str_at(cJSON_GetObjectItemCaseSensitive(e, "args"), "name");
  }
  return name;
}

static char *session_json(const char *fmt, const char *name) {
  static char json[1024];
  snprintf(json, sizeof json, fmt, name, tmpdir, name);
  return json;
}

/* ---- app threads -------------------------------------------------------- */

typedef struct app_thread {
  const char *name; /* NULL: keep the default name */
  _Atomic int *stop;
  _Atomic uint64_t rounds;
  uint32_t slot;
} app_thread;

static void spin_us(double us) {
  double until = wt_test_now_s() + us / 1e6;
  while (wt_test_now_s() < until) {
  }
}

static void *app_main(void *arg) {
  app_thread *a = arg;
  if (a->name) WT_THREAD_NAME(a->name);
  wt_thread *self = wt_thread_self();
  a->slot = self ? self->slot : UINT32_MAX;
  while (!atomic_load(a->stop)) {
    WT_SCOPE("outer");
    for (int k = 0; k < 3; k++) {
      WT_SCOPE("inner");
      spin_us(150);
    }
    atomic_fetch_add(&a->rounds, 1);
  }
  return NULL;
}

/* ---- the end-to-end trace ----------------------------------------------- */

/* Structure of the Profile/ProfileChunk events of one thread: every node's
 * parent and every sample's node is defined before it is used. */
typedef struct profile_check {
  int tid;
  int profiles, chunks;
  long samples, deltas, bad_refs, negative_deltas;
  int has_inner_under_outer, has_idle;
  uint32_t known[4096]; /* node ids seen so far, with their names below */
  const char *names[4096];
  uint32_t parents[4096];
  int count;
} profile_check;

static int node_index(const profile_check *p, uint32_t id) {
  for (int i = 0; i < p->count; i++)
    if (p->known[i] == id) return i;
  return -1;
}

static void check_profiles(const cJSON *events, profile_check *p) {
  const cJSON *e;
  cJSON_ArrayForEach(e, events) {
    const char *ph = str_at(e, "ph"), *name = str_at(e, "name");
    if (!ph || strcmp(ph, "P") != 0 || num_at(e, "tid") != p->tid) continue;
    if (!strcmp(name, "Profile")) {
      p->profiles++;
      CHECK(has_num(path_at(e, "args", "data", NULL), "startTime"));
      continue;
    }
    if (strcmp(name, "ProfileChunk") != 0) continue;
    p->chunks++;
    const cJSON *nodes = path_at(e, "args", "data", "cpuProfile");
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(nodes, "samples");
    const cJSON *deltas = path_at(e, "args", "data", "timeDeltas");
    nodes = cJSON_GetObjectItemCaseSensitive(nodes, "nodes");
    if (!cJSON_IsArray(nodes) || !cJSON_IsArray(samples) || !cJSON_IsArray(deltas)) {
      p->bad_refs++;
      continue;
    }
    CHECK_EQ_INT(cJSON_GetArraySize(samples), cJSON_GetArraySize(deltas));
    const cJSON *n;
    cJSON_ArrayForEach(n, nodes) {
      uint32_t id = (uint32_t)num_at(n, "id");
      const cJSON *parent = cJSON_GetObjectItemCaseSensitive(n, "parent");
      const char *fn = str_at(cJSON_GetObjectItemCaseSensitive(n, "callFrame"), "functionName");
      if (!fn || node_index(p, id) >= 0 || p->count == 4096 ||
          (parent && node_index(p, (uint32_t)parent->valuedouble) < 0)) {
        p->bad_refs++;
        continue;
      }
      p->known[p->count] = id;
      p->names[p->count] = fn;
      p->parents[p->count] = parent ? (uint32_t)parent->valuedouble : 0;
      p->count++;
    }
    const cJSON *s;
    cJSON_ArrayForEach(s, samples) {
      p->samples++;
      if (node_index(p, (uint32_t)s->valuedouble) < 0) p->bad_refs++;
    }
    cJSON_ArrayForEach(s, deltas) {
      p->deltas++;
      if (s->valuedouble < 0) p->negative_deltas++;
    }
  }
  for (int i = 0; i < p->count; i++) {
    if (!strcmp(p->names[i], "(idle)")) p->has_idle = 1;
    if (strcmp(p->names[i], "inner") != 0) continue;
    int up = node_index(p, p->parents[i]);
    if (up < 0 || strcmp(p->names[up], "outer") != 0) continue;
    int root = node_index(p, p->parents[up]);
    if (root >= 0 && !strcmp(p->names[root], "(root)") && p->parents[root] == 0)
      p->has_inner_under_outer = 1;
  }
}

WT_TEST(session_should_write_a_chrome_trace_with_samples_scopes_and_stats) {
  char path[256];
  snprintf(path, sizeof path, "%s/nested/dir/t1.json.gz", tmpdir);
  char json[512];
  snprintf(json, sizeof json,
           "{\"name\":\"t1\",\"output\":\"%s\",\"sampling\":{\"intervalUs\":500}}", path);
  int id = -1;
  REQUIRE_EQ_INT(wt_session_start(json, &id), WT_OK);
  REQUIRE(id >= 0);
  CHECK_EQ_STR(wt_session_error(id), "");
  REQUIRE_EQ_INT(wait_running(id), WT_SESSION_RUNNING);

  _Atomic int stop = 0;
  app_thread apps[2] = {{"alpha", &stop, 0, 0}, {NULL, &stop, 0, 0}};
  pthread_t threads[2];
  for (int i = 0; i < 2; i++) REQUIRE(pthread_create(&threads[i], NULL, app_main, &apps[i]) == 0);
  /* Run until the sampler has seen plenty, whatever the machine's speed. */
  double give_up = wt_test_now_s() + 10;
  wt_session_stats stats;
  for (;;) {
    wt_io_pump();
    wt_session_stats_get(id, &stats);
    if (stats.samples_taken >= 150 && atomic_load(&apps[0].rounds) >= 3 &&
        atomic_load(&apps[1].rounds) >= 3)
      break;
    if (wt_test_now_s() > give_up) break;
    wt_test_sleep_ms(2);
  }
  atomic_store(&stop, 1);
  for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
  CHECK(stats.samples_taken >= 150);

  CHECK_EQ_INT(wt_session_stop(id), WT_OK);
  CHECK_EQ_INT(wt_session_stop(id), WT_OK); /* twice is fine */
  REQUIRE_EQ_INT(wt_test_pump_until_done(id, 10), WT_SESSION_STOPPED);
  CHECK_EQ_STR(wt_session_error(id), "");
  CHECK_EQ_INT(wt_session_stop(id), WT_OK); /* and after the end too */
  CHECK_EQ_INT(wt_session_state_get(id), WT_SESSION_STOPPED);
  REQUIRE_EQ_INT(wt_session_stats_get(id, &stats), WT_OK);

  size_t len = 0;
  char *text = wt_test_read_trace(path, &len);
  REQUIRE(text != NULL);
  CHECK_EQ_U64(stats.bytes_written, (uint64_t)file_size(path));
  CHECK_EQ_U64(stats.bytes_encoded, len);
  cJSON *events = cJSON_ParseWithLength(text, len);
  free(text);
  REQUIRE(events != NULL);
  if (!cJSON_IsArray(events)) cJSON_Delete(events);
  REQUIRE(cJSON_IsArray(events));

  /* Every event: a phase, pid and tid; categories where readers need one;
   * a thread's name comes before its first event. */
  int tid_named[WT_MAX_THREADS + 2] = {0}, unnamed_before_use = 0, malformed = 0;
  long app_scopes = 0, counters = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, events) {
    const char *ph = str_at(e, "ph"), *name = str_at(e, "name"), *cat = str_at(e, "cat");
    if (!ph || !name || !has_num(e, "pid") || !has_num(e, "tid") || !has_num(e, "ts")) {
      malformed++;
      continue;
    }
    int tid = (int)num_at(e, "tid");
    if (tid < 0 || tid > WT_MAX_THREADS) {
      malformed++;
      continue;
    }
    if (!strcmp(ph, "M")) {
      if (!cat || strcmp(cat, "__metadata") != 0) malformed++;
      if (!strcmp(name, "thread_name")) tid_named[tid] = 1;
      continue;
    }
    if (strchr("XBEI", ph[0]) && !cat) malformed++;
    if (tid != 0 && !tid_named[tid]) unnamed_before_use++;
    if (!strcmp(ph, "X") && cat && !strcmp(cat, "app")) {
      app_scopes++;
      if (!has_num(e, "dur") || num_at(e, "dur") < 0) malformed++;
    }
    if (!strcmp(ph, "C")) {
      /* Built-in counters: process-wide (tid 0), a numeric value. */
      counters++;
      const cJSON *cargs = cJSON_GetObjectItemCaseSensitive(e, "args");
      if (tid != 0 || !cat || strcmp(cat, "wasmtrace") != 0 || !cargs || !has_num(cargs, "value"))
        malformed++;
    }
  }
  CHECK_EQ_INT(malformed, 0);
  CHECK_EQ_INT(unnamed_before_use, 0);

  /* Process and thread names. */
  const cJSON *process = find_event(events, "M", "process_name");
  REQUIRE(process != NULL);
  CHECK_EQ_STR(str_at(cJSON_GetObjectItemCaseSensitive(process, "args"), "name"), "wasmtrace: t1");
  wt_thread *main_thread = wt_thread_self();
  REQUIRE(main_thread != NULL);
  int tid_main = (int)main_thread->slot + 1, tid_a = (int)apps[0].slot + 1,
      tid_b = (int)apps[1].slot + 1;
  char pthread_name[32];
  snprintf(pthread_name, sizeof pthread_name, "pthread %u", apps[1].slot);
  CHECK_EQ_STR(thread_name_of(events, tid_main), "main");
  CHECK_EQ_STR(thread_name_of(events, tid_a), "alpha");
  CHECK_EQ_STR(thread_name_of(events, tid_b), pthread_name);

  /* Samples: one Profile per thread, chunks that refer only to nodes they
   * (or earlier chunks) define, the scopes' call tree, idle samples. */
  static profile_check checks[3];
  const int tids[3] = {tid_main, tid_a, tid_b};
  long samples_in_trace = 0;
  for (int i = 0; i < 3; i++) {
    memset(&checks[i], 0, sizeof checks[i]);
    checks[i].tid = tids[i];
    check_profiles(events, &checks[i]);
    CHECK_EQ_INT(checks[i].profiles, 1);
    CHECK(checks[i].chunks >= 1);
    CHECK(checks[i].samples > 0);
    CHECK_EQ_INT(checks[i].samples, checks[i].deltas);
    CHECK_EQ_INT(checks[i].bad_refs, 0);
    CHECK_EQ_INT(checks[i].negative_deltas, 0);
    samples_in_trace += checks[i].samples;
  }
  fprintf(stderr, "    trace: %d events; samples main %ld, alpha %ld, %s %ld; %ld scopes\n",
          cJSON_GetArraySize(events), checks[0].samples, checks[1].samples, pthread_name,
          checks[2].samples, app_scopes);
  CHECK(checks[0].has_idle);              /* main only pumps */
  CHECK(checks[1].has_inner_under_outer); /* (root) > outer > inner */
  CHECK(checks[2].has_inner_under_outer);

  /* Scopes: X events in category "app", each inner inside an outer. */
  long inner_outside = 0, inners[3] = {0}, outers[3] = {0};
  cJSON_ArrayForEach(e, events) {
    const char *ph = str_at(e, "ph"), *name = str_at(e, "name"), *cat = str_at(e, "cat");
    if (!ph || strcmp(ph, "X") != 0 || !cat || strcmp(cat, "app") != 0) continue;
    int tid = (int)num_at(e, "tid");
    int t = tid == tid_a ? 1 : tid == tid_b ? 2 : 0;
    if (!strcmp(name, "outer")) outers[t]++;
    if (strcmp(name, "inner") != 0) continue;
    inners[t]++;
    double ts = num_at(e, "ts"), end = ts + num_at(e, "dur");
    int inside = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, events) {
      const char *oname = str_at(o, "name");
      if (oname && !strcmp(oname, "outer") && num_at(o, "tid") == tid &&
          num_at(o, "ts") <= ts + 0.002 && end <= num_at(o, "ts") + num_at(o, "dur") + 0.002)
        inside = 1;
      if (inside) break;
    }
    if (!inside) inner_outside++;
  }
  CHECK(outers[1] >= 1 && inners[1] >= 3);
  CHECK(outers[2] >= 1 && inners[2] >= 3);
  /* Unless events were lost: a thread's ring that filled while the worker
   * was not running (a loaded machine) drops events, and the worker then
   * discards the scopes left open across the gap (rec_events.c), so an
   * "outer" whose begin came before it is gone while its later "inner"s
   * are whole (seen once: a fresh-clone run under two CPU hogs). */
  if (stats.events_dropped == 0) CHECK_EQ_INT(inner_outside, 0);
  else fprintf(stderr, "    %llu events dropped (rings full): %ld inner scopes outside an outer\n",
               (unsigned long long)stats.events_dropped, inner_outside);

  /* The stats event agrees with itself, with the trace and with the API. */
  const cJSON *st = find_event(events, "M", "wasmtrace_stats");
  REQUIRE(st != NULL);
  const cJSON *args = cJSON_GetObjectItemCaseSensitive(st, "args");
  double taken = num_at(args, "samplesTaken"), written = num_at(args, "samplesWritten"),
         dropped = num_at(args, "samplesDropped");
  CHECK(taken > 0);
  CHECK(taken == written + dropped);
  CHECK_EQ_U64((uint64_t)taken, stats.samples_taken);
  CHECK_EQ_U64((uint64_t)written, stats.samples_written);
  CHECK_EQ_U64((uint64_t)dropped, stats.samples_dropped);
  CHECK_EQ_U64(stats.samples_taken, stats.samples_written + stats.samples_dropped);
  CHECK_EQ_U64((uint64_t)samples_in_trace, stats.samples_written);
  CHECK_EQ_U64((uint64_t)num_at(args, "eventsWritten"), stats.events_written);
  CHECK_EQ_U64((uint64_t)(app_scopes + counters), stats.events_written);
  CHECK(counters >= 2); /* "live threads" and "malloc bytes in use" on the host */
  CHECK_EQ_INT(num_at(args, "threads"), stats.threads);
  CHECK(stats.threads >= 3);
  cJSON_Delete(events);
}

/* ---- failures and edge cases -------------------------------------------- */

WT_TEST(session_should_fail_with_the_config_error_for_a_bad_config) {
  int id = -1;
  CHECK_EQ_INT(wt_session_start("{\"sampling\":{\"intervalUs\":5}}", &id), WT_ERR_CONFIG);
  REQUIRE(id >= 0);
  CHECK_EQ_INT(wt_session_state_get(id), WT_SESSION_FAILED);
  CHECK_EQ_STR(wt_session_error(id),
               "session.sampling.intervalUs: expected an integer from 50 to 1000000, got 5");
  CHECK_EQ_INT(wt_session_stop(id), WT_OK); /* stopping a failed session is fine */
  CHECK_EQ_INT(wt_session_state_get(id), WT_SESSION_FAILED);
  wt_io_pump();
  CHECK_EQ_INT(wt_session_state_get(id), WT_SESSION_FAILED);

  int id2 = -1;
  CHECK_EQ_INT(wt_session_start("{\"name\":\"x\",}", &id2), WT_ERR_CONFIG);
  CHECK(id2 > id);
  CHECK_EQ_INT(wt_session_state_get(id2), WT_SESSION_FAILED);
  CHECK_EQ_STR(wt_session_error(id2), "config: malformed JSON at line 1, column 13 (byte 12)");
  CHECK_EQ_INT(wt_session_start(NULL, &id2), WT_ERR_INVALID_ARG);
}

WT_TEST(session_functions_should_reject_unknown_ids) {
  wt_session_stats stats;
  CHECK_EQ_INT(wt_session_stop(-1), WT_ERR_NOT_FOUND);
  CHECK_EQ_INT(wt_session_stop(99999), WT_ERR_NOT_FOUND);
  CHECK_EQ_INT(wt_session_state_get(99999), WT_SESSION_FAILED);
  CHECK_EQ_STR(wt_session_error(99999), "no such session");
  CHECK_EQ_INT(wt_session_stats_get(99999, &stats), WT_ERR_NOT_FOUND);
  int id = -1;
  wt_session_start("{\"durationMs\":-5}", &id);
  REQUIRE(id >= 0);
  CHECK_EQ_INT(wt_session_stats_get(id, NULL), WT_ERR_INVALID_ARG);
  CHECK_EQ_INT(wt_session_count(), id + 1);
}

WT_TEST(session_should_fail_when_its_output_directory_cannot_be_created) {
  char blocker[256], path[300], json[512], expected[512];
  snprintf(blocker, sizeof blocker, "%s/blocker", tmpdir);
  FILE *f = fopen(blocker, "w");
  REQUIRE(f != NULL);
  fclose(f);
  snprintf(path, sizeof path, "%s/sub/out.json.gz", blocker);
  snprintf(json, sizeof json, "{\"name\":\"blocked\",\"output\":\"%s\"}", path);
  int id = -1;
  REQUIRE_EQ_INT(wt_session_start(json, &id), WT_OK);
  REQUIRE_EQ_INT(wait_running(id), WT_SESSION_RUNNING);
  CHECK_EQ_INT(wt_session_stop(id), WT_OK);
  REQUIRE_EQ_INT(wt_test_pump_until_done(id, 10), WT_SESSION_FAILED);
  snprintf(expected, sizeof expected, "cannot open output \"%s\": %s", path, strerror(ENOTDIR));
  CHECK_EQ_STR(wt_session_error(id), expected);
  CHECK_EQ_INT(wt_session_stop(id), WT_OK);
  CHECK_EQ_INT(wt_session_state_get(id), WT_SESSION_FAILED);
}

WT_TEST(session_should_refuse_an_output_in_use_by_a_live_session) {
  const char *fmt = "{\"name\":\"%s\",\"output\":\"%s/shared.json.gz\",\"sampling\":{\"enabled\":false}}";
  int a = -1, b = -1, c = -1;
  char json[512];
  snprintf(json, sizeof json, fmt, "first", tmpdir);
  REQUIRE_EQ_INT(wt_session_start(json, &a), WT_OK);
  snprintf(json, sizeof json, fmt, "second", tmpdir);
  CHECK(wt_session_start(json, &b) != WT_OK);
  REQUIRE(b >= 0);
  CHECK_EQ_INT(wt_session_state_get(b), WT_SESSION_FAILED);
  char expected[WT_ERROR_MAX];
  snprintf(expected, sizeof expected,
           "output \"%s/shared.json.gz\" is in use by running session 'first'", tmpdir);
  CHECK_EQ_STR(wt_session_error(b), expected);
  /* Once the first one is done, its trace is kept: replacing it takes
   * "overwrite" (the output policy, outputs.h). */
  wt_session_stop(a);
  CHECK_EQ_INT(wt_test_pump_until_done(a, 10), WT_SESSION_STOPPED);
  snprintf(json, sizeof json, fmt, "third", tmpdir);
  CHECK_EQ_INT(wt_session_start(json, &c), WT_ERR_STATE);
  snprintf(expected, sizeof expected,
           "output \"%s/shared.json.gz\" is the trace of earlier session 'first' of this page: "
           "choose another output, or set \"overwrite\": true to replace it",
           tmpdir);
  CHECK_EQ_STR(wt_session_error(c), expected);
  snprintf(json, sizeof json,
           "{\"name\":\"third\",\"output\":\"%s/shared.json.gz\",\"overwrite\":true,"
           "\"sampling\":{\"enabled\":false}}",
           tmpdir);
  CHECK_EQ_INT(wt_session_start(json, &c), WT_OK);
  wt_session_stop(c);
  CHECK_EQ_INT(wt_test_pump_until_done(c, 10), WT_SESSION_STOPPED);
}

WT_TEST(session_should_stop_by_itself_after_its_duration) {
  int id = -1;
  REQUIRE_EQ_INT(
      wt_session_start(session_json("{\"name\":\"%s\",\"output\":\"%s/%s.json.gz\",\"durationMs\":30}",
                                    "timed"),
                       &id),
      WT_OK);
  /* No wt_session_stop(): only the duration ends it. */
  REQUIRE_EQ_INT(wt_test_pump_until_done(id, 10), WT_SESSION_STOPPED);
  char path[256];
  snprintf(path, sizeof path, "%s/timed.json.gz", tmpdir);
  size_t len;
  char *text = wt_test_read_trace(path, &len);
  REQUIRE(text != NULL);
  cJSON *events = cJSON_Parse(text);
  free(text);
  REQUIRE(events != NULL);
  const cJSON *session = find_event(events, "M", "wasmtrace_session");
  CHECK(session != NULL);
  if (session) CHECK_EQ_INT(num_at(cJSON_GetObjectItemCaseSensitive(session, "args"), "durationMs"), 30);
  const cJSON *st = find_event(events, "M", "wasmtrace_stats");
  CHECK(st != NULL);
  if (st) {
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(st, "args");
    CHECK(num_at(args, "stopTimeUs") - num_at(args, "startTimeUs") >= 30000);
  }
  cJSON_Delete(events);
}

/* exit() (with -sEXIT_RUNTIME) runs this hook before Emscripten terminates
 * the pthreads' workers: the worker must be out of its loop when it returns,
 * even while a session samples at 10 kHz. */
WT_TEST(the_exit_hook_should_return_once_the_worker_has_left_its_loop) {
  int id = -1;
  REQUIRE_EQ_INT(wt_session_start(session_json("{\"name\":\"%s\",\"output\":\"%s/%s.json.gz\","
                                               "\"sampling\":{\"intervalUs\":100}}",
                                               "atexit"),
                                  &id),
                 WT_OK);
  REQUIRE_EQ_INT(wait_running(id), WT_SESSION_RUNNING);
  int exited_before = atomic_load(&wt_rt.worker_exited);
  CHECK_EQ_INT(exited_before, 0);
  wt_runtime_quiesce_for_exit();
  int exited_after = atomic_load(&wt_rt.worker_exited);
  CHECK_EQ_INT(exited_after, 1);
  wt_runtime_quiesce_for_exit(); /* a second exit hook call returns at once */
  /* The session is left as it was: the app is ending. */
  CHECK_EQ_INT(wt_session_state_get(id), WT_SESSION_RUNNING);
  /* The runtime is shared by this file's tests: a fresh one for the next. */
  wt_runtime_reset_for_testing(0);
}

WT_TEST(session_should_write_plain_json_without_compression) {
  int id = -1;
  REQUIRE_EQ_INT(
      wt_session_start(session_json("{\"name\":\"%s\",\"output\":\"%s/%s.json\",\"compression\":\"none\"}",
                                    "plain"),
                       &id),
      WT_OK);
  REQUIRE_EQ_INT(wait_running(id), WT_SESSION_RUNNING);
  wt_session_stop(id);
  REQUIRE_EQ_INT(wt_test_pump_until_done(id, 10), WT_SESSION_STOPPED);
  char path[256];
  snprintf(path, sizeof path, "%s/plain.json", tmpdir);
  FILE *f = fopen(path, "rb");
  REQUIRE(f != NULL);
  char head[2] = {0};
  CHECK_EQ_INT(fread(head, 1, 2, f), 2);
  fclose(f);
  CHECK(head[0] == '[' && head[1] == '\n'); /* not the gzip magic */
  size_t len;
  char *text = wt_test_read_trace(path, &len);
  REQUIRE(text != NULL);
  cJSON *events = cJSON_Parse(text);
  CHECK(cJSON_IsArray(events));
  CHECK(find_event(events, "M", "wasmtrace_stats") != NULL);
  wt_session_stats stats;
  wt_session_stats_get(id, &stats);
  CHECK_EQ_U64(stats.bytes_written, len);
  cJSON_Delete(events);
  free(text);
}

/* Starts n live sessions that do not sample; ids in ids[]. */
static int start_idle_sessions(int *ids, int n, const char *prefix) {
  for (int i = 0; i < n; i++) {
    char name[32], json[512];
    snprintf(name, sizeof name, "%s%d", prefix, i);
    snprintf(json, sizeof json,
             "{\"name\":\"%s\",\"output\":\"%s/%s.json.gz\",\"sampling\":{\"enabled\":false},"
             "\"maxBufferKB\":64}",
             name, tmpdir, name);
    if (wt_session_start(json, &ids[i]) != WT_OK) return 0;
  }
  return 1;
}

static void stop_sessions(const int *ids, int n) {
  for (int i = 0; i < n; i++) wt_session_stop(ids[i]);
  for (int i = 0; i < n; i++) CHECK_EQ_INT(wt_test_pump_until_done(ids[i], 10), WT_SESSION_STOPPED);
}

WT_TEST(session_should_fail_beyond_sixteen_live_sessions) {
  int ids[WT_MAX_SESSIONS], extra = -1;
  REQUIRE(start_idle_sessions(ids, WT_MAX_SESSIONS, "live"));
  CHECK(wt_session_start("{\"name\":\"one-too-many\",\"output\":\"/nonexistent/x.json\"}", &extra) !=
        WT_OK);
  CHECK(extra >= 0);
  CHECK_EQ_INT(wt_session_state_get(extra), WT_SESSION_FAILED);
  CHECK_EQ_STR(wt_session_error(extra), "too many sessions at once (limit 16)");
  stop_sessions(ids, WT_MAX_SESSIONS);
}

/* Regression (fixed): add_session() returned WT_ERR_STATE here, while wasmtrace.h
 * documents WT_ERR_LIMIT as "a fixed limit (sessions, threads) was
 * reached". */
WT_TEST(session_start_should_return_limit_beyond_sixteen_live_sessions) {
  int ids[WT_MAX_SESSIONS], extra = -1;
  REQUIRE(start_idle_sessions(ids, WT_MAX_SESSIONS, "limit"));
  CHECK_EQ_INT(wt_session_start("{\"name\":\"one-too-many\",\"output\":\"/nonexistent/y.json\"}",
                                &extra),
               WT_ERR_LIMIT);
  stop_sessions(ids, WT_MAX_SESSIONS);
}

/* ---- the session's host: what it reads of the runtime ----------------------- */

static int host_category_calls;
static void host_categories_changed(void) { host_category_calls++; }
static void host_worker_times(double *created_us, double *started_us, uint64_t *busy_us) {
  *created_us = 11;
  *started_us = 22;
  *busy_us = 1000 + 333 * (uint64_t)host_category_calls;
}

WT_TEST(session_should_reach_the_runtime_only_through_its_host) {
  static const wt_session_host host = {host_categories_changed, host_worker_times, NULL};
  wt_session *s = calloc(1, sizeof *s);
  REQUIRE(s != NULL);
  wt_config_defaults(&s->config, "hosted");
  s->host = &host;
  host_category_calls = 0;
  REQUIRE_EQ_INT(wt_session_setup_sampling(s, 5000), WT_OK); /* busy time starts at 1000 */
  wt_stats_rec rec;
  wt_session_stats_snapshot(s, &rec);
  CHECK(rec.worker_created_us == 11 && rec.worker_started_us == 22);
  CHECK_EQ_U64(rec.worker_busy_us, 0);
  wt_session_fail(s, "test failure %d", 1);
  wt_session_fail(s, "a second failure is ignored");
  CHECK_EQ_INT(host_category_calls, 1);
  CHECK_EQ_STR(s->error, "test failure 1");
  wt_session_stats_snapshot(s, &rec); /* busy time since it started */
  CHECK_EQ_U64(rec.worker_busy_us, 333);
  wt_session_free_buffers(s);
  free(s);

  /* Without a host (tests, tools): the same calls, zero times. */
  s = calloc(1, sizeof *s);
  REQUIRE(s != NULL);
  wt_config_defaults(&s->config, "hostless");
  REQUIRE_EQ_INT(wt_session_setup_sampling(s, 5000), WT_OK);
  wt_session_fail(s, "no host");
  wt_session_stats_snapshot(s, &rec);
  CHECK_EQ_U64(rec.worker_busy_us, 0);
  CHECK(rec.worker_started_us == 0);
  wt_session_free_buffers(s);
  free(s);
}

int main(int argc, char **argv) {
  if (!wt_test_make_tmpdir(tmpdir, sizeof tmpdir, "test")) return 1;
  static const wt_test tests[] = {
      WT_TEST_ENTRY(session_should_write_a_chrome_trace_with_samples_scopes_and_stats),
      WT_TEST_ENTRY(session_should_fail_with_the_config_error_for_a_bad_config),
      WT_TEST_ENTRY(session_functions_should_reject_unknown_ids),
      WT_TEST_ENTRY(session_should_fail_when_its_output_directory_cannot_be_created),
      WT_TEST_ENTRY(session_should_refuse_an_output_in_use_by_a_live_session),
      WT_TEST_ENTRY(session_should_stop_by_itself_after_its_duration),
      WT_TEST_ENTRY(session_should_write_plain_json_without_compression),
      WT_TEST_ENTRY(session_should_fail_beyond_sixteen_live_sessions),
      WT_TEST_ENTRY(session_start_should_return_limit_beyond_sixteen_live_sessions),
      WT_TEST_ENTRY(session_should_reach_the_runtime_only_through_its_host),
      WT_TEST_ENTRY(the_exit_hook_should_return_once_the_worker_has_left_its_loop),
  };
  int rc = wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
  /* Joins the worker and frees every session; then the registry, so that
   * LeakSanitizer sees nothing left. */
  wt_runtime_reset_for_testing(0);
  wt_test_remove_tree(tmpdir);
  return rc;
}
