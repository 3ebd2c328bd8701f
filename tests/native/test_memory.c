/* Out of memory: every allocation of a whole record-and-encode refused in
 * turn (mem.c's test seam refuses every allocation after the k-th), for each
 * format. Each run must end one of two ways: the session fails before it
 * starts, saying so, or it ends STOPPED with a trace that reads back whole
 * (gunzip, then JSON or folded lines), its refusals counted in it. Never a
 * crash, a hang or a leak (ASan). */
#define _XOPEN_SOURCE 700
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cJSON.h"
#include "mem.h"
#include "runtime.h"
#include "runtime_start.h"
#include "sink.h"
#include "wasmtrace/wasmtrace.h"
#include "wt_test.h"
#include "wt_test_fs.h"
#include "wt_test_session.h"

static char tmpdir[64];


/* The trace reads back whole: JSON for chrome and firefox; for folded, a
 * JSON stats line and then "stack count" lines. */
static int trace_reads(const char *format, const char *text, size_t len) {
  if (strcmp(format, "folded") != 0) {
    cJSON *doc = cJSON_ParseWithLength(text, len);
    int ok = doc && (strcmp(format, "chrome") == 0 ? cJSON_IsArray(doc)
                                                   : cJSON_IsObject(cJSON_GetObjectItem(doc, "meta")));
    cJSON_Delete(doc);
    return ok;
  }
  if (len == 0 || text[len - 1] != '\n') return 0;
  int ok = 1, stats_lines = 0;
  for (const char *line = text; ok && *line; line = strchr(line, '\n') + 1) {
    const char *end = strchr(line, '\n'), *sp = end;
    if (strncmp(line, "# wasmtrace {", 13) == 0) {
      cJSON *stats = cJSON_ParseWithLength(line + 12, (size_t)(end - line - 12));
      ok = stats != NULL;
      cJSON_Delete(stats);
      stats_lines++;
      continue;
    }
    while (sp > line && sp[-1] != ' ') sp--;
    ok = sp > line + 1 && sp < end && strspn(sp, "0123456789") == (size_t)(end - sp);
  }
  return ok && stats_lines == 1;
}

typedef struct app_thread {
  _Atomic int stop;
  int many_stacks; /* nest 32 scope sites 4 deep at random: the call tree must grow */
} app_thread;

static const char *const site_names[32] = {
    "s00", "s01", "s02", "s03", "s04", "s05", "s06", "s07", "s08", "s09", "s10",
    "s11", "s12", "s13", "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21",
    "s22", "s23", "s24", "s25", "s26", "s27", "s28", "s29", "s30", "s31"};
static wt_site sites[32];

static void *app_main(void *arg) {
  app_thread *a = arg;
  WT_THREAD_NAME("app");
  uint32_t rng = 1;
  while (a->many_stacks && !atomic_load(&a->stop)) {
    for (int d = 0; d < 4; d++) {
      rng = rng * 1103515245u + 12345u;
      wt_scope_begin(&sites[(rng >> 16) & 31]);
    }
    double until = wt_test_now_s() + 20e-6;
    while (wt_test_now_s() < until) {
    }
    for (int d = 0; d < 4; d++) wt_scope_end();
  }
  while (!atomic_load(&a->stop)) {
    WT_SCOPE("outer");
    for (int k = 0; k < 3; k++) {
      WT_SCOPE("inner");
      double until = wt_test_now_s() + 100e-6;
      while (wt_test_now_s() < until) {
      }
    }
  }
  return NULL;
}

/* STOPPED_CLEAN: refusals hit nothing of the session's; RAN_CLEAN: none at all
 * (the run is past its last allocation). */
enum { FAILED_BEFORE_START, STOPPED_EARLY, STOPPED_WITH_REFUSALS, STOPPED_CLEAN, RAN_CLEAN, BAD };

/* One record-and-encode with every allocation after the k-th refused. */
static int run_once(const char *format, long k, int many_stacks) {
  char path[256], json[512];
  snprintf(path, sizeof path, "%s/oom-%s-%s%ld.gz", tmpdir, format, many_stacks ? "many-" : "", k);
  snprintf(json, sizeof json,
           "{\"name\":\"oom\",\"output\":\"%s\",\"format\":\"%s\",\"sampling\":{\"intervalUs\":%d},"
           "\"counters\":{\"intervalMs\":2},\"maxBufferKB\":512}",
           path, format, many_stacks ? 100 : 200);
  wt_mem_fail_after_for_testing(k);
  int id = -1;
  wt_status rc = wt_session_start(json, &id);
  int outcome = BAD;
  if (rc != WT_OK) {
    /* No session record at all (its own struct was refused), or a failed
     * one that says why. */
    const char *err = id >= 0 ? wt_session_error(id) : "";
    if (rc == WT_ERR_NO_MEMORY && (id < 0 || strstr(err, "KiB to start")))
      outcome = FAILED_BEFORE_START;
    else if (rc == WT_ERR_THREAD && strstr(err, "worker"))
      outcome = FAILED_BEFORE_START;
    else
      fprintf(stderr, "    k=%ld: start returned %s, error \"%s\"\n", k, wt_status_str(rc), err);
    wt_mem_fail_after_for_testing(-1);
    wt_runtime_reset_for_testing(0);
    return outcome;
  }
  app_thread app = {.many_stacks = many_stacks};
  /* The registry was reset after the last run: the sites intern again. */
  for (int i = 0; i < 32; i++) sites[i] = (wt_site)WT_SITE_INIT(site_names[i], "app");
  pthread_t thread;
  int spawned = pthread_create(&thread, NULL, app_main, &app) == 0;
  double give_up = wt_test_now_s() + 5;
  wt_session_stats stats;
  while (wt_test_now_s() < give_up) {
    wt_io_pump();
    wt_session_stats_get(id, &stats);
    wt_session_state st = wt_session_state_get(id);
    if (st != WT_SESSION_RUNNING && st != WT_SESSION_STARTING) break; /* stopping early, or failed */
    if (stats.samples_taken >= (many_stacks ? 1200u : 200u)) break;
    wt_test_sleep_ms(1);
  }
  atomic_store(&app.stop, 1);
  if (spawned) pthread_join(thread, NULL);
  wt_session_stop(id);
  give_up = wt_test_now_s() + 30;
  wt_session_state st;
  while ((st = wt_session_state_get(id)) != WT_SESSION_STOPPED && st != WT_SESSION_FAILED &&
         wt_test_now_s() < give_up) {
    wt_io_pump();
    wt_test_sleep_ms(1);
  }
  uint64_t refusals = wt_mem_refusals();
  wt_mem_fail_after_for_testing(-1);
  if (st != WT_SESSION_STOPPED) {
    fprintf(stderr, "    k=%ld: ended in state %d: \"%s\"\n", k, (int)st, wt_session_error(id));
  } else {
    size_t len = 0;
    char *text = wt_test_read_trace(path, &len);
    if (!text || !trace_reads(format, text, len)) {
      fprintf(stderr, "    k=%ld: the trace does not read back (%zu bytes): %.400s\n", k, len, text ? text : "(none)");
    } else {
      int early = strstr(text, "\"stoppedEarly\":\"out of memory\"") != NULL;
      int counted = strstr(text, "\"allocationsRefused\":") != NULL;
      /* The C API says what the trace says (and the console line). */
      char why[200];
      int api_early = wt_session_stopped_early(id, why, sizeof why);
      if (api_early != early || (early && strncmp(why, "out of memory (", 15) != 0)) {
        fprintf(stderr, "    k=%ld: wt_session_stopped_early %d \"%s\", the trace early=%d\n", k, api_early, why, early);
        outcome = BAD;
      } else if (early && !counted)
        fprintf(stderr, "    k=%ld: stopped early without a refusal count\n", k);
      else
        outcome = early ? STOPPED_EARLY : counted ? STOPPED_WITH_REFUSALS : refusals ? STOPPED_CLEAN : RAN_CLEAN;
      if (!refusals && (early || counted)) {
        fprintf(stderr, "    k=%ld: no refusal, yet the trace says early=%d counted=%d\n", k, early, counted);
        outcome = BAD;
      }
    }
    free(text);
  }
  wt_runtime_reset_for_testing(0);
  return outcome;
}

static void refuse_each_allocation_in_turn(const char *format, int many_stacks) {
  int seen[BAD] = {0};
  long k;
  for (k = 0; k < 2000; k++) {
    double t0 = wt_test_now_s();
    int outcome = run_once(format, k, many_stacks);
    if (getenv("WT_MEMORY_TIMES")) fprintf(stderr, "    k=%ld outcome %d: %.3f s\n", k, outcome, wt_test_now_s() - t0);
    if (outcome == BAD) {
      CHECK(outcome != BAD);
      fprintf(stderr, "    format %s, allocations refused after the first %ld\n", format, k);
      break;
    }
    seen[outcome]++;
    if (outcome == RAN_CLEAN) break; /* every allocation was allowed */
  }
  fprintf(stderr, "    %s%s: %ld runs: %d failed before start, %d stopped early, %d stopped with refusals counted, %d clean\n",
          format, many_stacks ? " (many stacks)" : "", k + 1, seen[FAILED_BEFORE_START], seen[STOPPED_EARLY], seen[STOPPED_WITH_REFUSALS],
          seen[STOPPED_CLEAN] + seen[RAN_CLEAN]);
  CHECK(seen[RAN_CLEAN] == 1); /* the loop reached the end of the allocations */
  CHECK(seen[FAILED_BEFORE_START] > 0);
  CHECK(seen[STOPPED_EARLY] > 0);
}

WT_TEST(chrome_sessions_should_fail_before_start_or_stop_early_with_a_readable_trace_at_every_refused_allocation) {
  refuse_each_allocation_in_turn("chrome", 0);
}
WT_TEST(firefox_sessions_should_fail_before_start_or_stop_early_with_a_readable_trace_at_every_refused_allocation) {
  refuse_each_allocation_in_turn("firefox", 0);
}
WT_TEST(folded_sessions_should_fail_before_start_or_stop_early_with_a_readable_trace_at_every_refused_allocation) {
  refuse_each_allocation_in_turn("folded", 0);
}
/* The same while the call tree, the event buffer and the encoders' tables
 * grow: refusals come while the session records. */
WT_TEST(growing_sessions_should_stop_early_with_a_readable_trace_at_every_refused_allocation) {
  refuse_each_allocation_in_turn("chrome", 1);
  refuse_each_allocation_in_turn("firefox", 1);
  refuse_each_allocation_in_turn("folded", 1);
}

/* zlib's state, what wt_session_start_bytes counts for it, is an upper
 * bound of what deflateInit2 really takes through the allocator. */
WT_TEST(gzip_state_should_fit_the_bytes_a_session_counts_for_it) {
  wt_mem_sink inner;
  wt_mem_sink_init(&inner);
  wt_gzip_sink gz;
  /* Refuse everything after n allocations: the smallest n that works is
   * the number of zlib's allocations; their sizes are not visible here, so
   * the check is on the credit instead: with only WT_GZIP_STATE_BYTES of
   * credit and nothing from the heap, the sink still sets up. */
  /* As a session does: a reserve freed inside the heap, lent as credit. */
  void *reserve = wt_mem_alloc(WT_GZIP_STATE_BYTES);
  REQUIRE(reserve != NULL);
  wt_mem_free(reserve);
  wt_mem_fail_after_for_testing(0);
  wt_mem_credit_add(WT_GZIP_STATE_BYTES);
  wt_mem_credit_open(1);
  wt_status st = wt_gzip_sink_init(&gz, &inner.base, 6);
  wt_mem_credit_open(0);
  wt_mem_credit_clear();
  wt_mem_fail_after_for_testing(-1);
  CHECK_EQ_INT(st, WT_OK);
  if (st == WT_OK) wt_gzip_sink_free(&gz);
  wt_mem_sink_free(&inner);
}

/* With the heap refusing, the allocator counts each refusal and leaves a
 * realloc'd block as it was. */
WT_TEST(refused_allocations_should_be_counted_and_leave_blocks_alone) {
  char *p = wt_mem_alloc(16);
  REQUIRE(p != NULL);
  memcpy(p, "kept", 5);
  wt_mem_fail_after_for_testing(0);
  CHECK(wt_mem_alloc(8) == NULL);
  CHECK(wt_mem_calloc(4, 4) == NULL);
  CHECK(wt_mem_realloc(p, 1 << 20) == NULL);
  CHECK(wt_mem_strdup("x") == NULL);
  CHECK(wt_mem_calloc(SIZE_MAX / 2, 4) == NULL);
  CHECK_EQ_U64(wt_mem_refusals(), 5);
  CHECK_EQ_STR(p, "kept");
  /* A closed credit grants nothing (the sampling side allocates with it
   * closed); open, it grants what it covers, then refuses again. */
  wt_mem_credit_add(100);
  CHECK(wt_mem_alloc(50) == NULL);
  wt_mem_credit_open(1);
  char *q = wt_mem_alloc(50);
  CHECK(q != NULL);
  CHECK(wt_mem_alloc(50) == NULL);
  wt_mem_free(q); /* gives its credit back */
  q = wt_mem_alloc(50);
  CHECK(q != NULL);
  wt_mem_free(q);
  wt_mem_credit_open(0);
  wt_mem_credit_clear();
  wt_mem_fail_after_for_testing(-1);
  wt_mem_free(p);
}

int main(int argc, char **argv) {
  if (!wt_test_make_tmpdir(tmpdir, sizeof tmpdir, "memory")) return 1;
  static const wt_test tests[] = {
      WT_TEST_ENTRY(refused_allocations_should_be_counted_and_leave_blocks_alone),
      WT_TEST_ENTRY(gzip_state_should_fit_the_bytes_a_session_counts_for_it),
      WT_TEST_ENTRY(chrome_sessions_should_fail_before_start_or_stop_early_with_a_readable_trace_at_every_refused_allocation),
      WT_TEST_ENTRY(firefox_sessions_should_fail_before_start_or_stop_early_with_a_readable_trace_at_every_refused_allocation),
      WT_TEST_ENTRY(folded_sessions_should_fail_before_start_or_stop_early_with_a_readable_trace_at_every_refused_allocation),
      WT_TEST_ENTRY(growing_sessions_should_stop_early_with_a_readable_trace_at_every_refused_allocation),
  };
  int rc = wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
  wt_runtime_reset_for_testing(0);
  wt_test_remove_tree(tmpdir);
  return rc;
}
