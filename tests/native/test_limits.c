/* Limits of the runtime (docs/GUIDE.md, "Limits"; docs/INTERNALS.md,
 * "Limits' internals"): thread records are reused once their thread exited and no
 * session needs them, so more than WT_MAX_THREADS threads can come and go
 * while sessions sample; the threads refused at the limit are in the stats;
 * and a start past the session-id limit gets a failed record that says
 * why. */
#define _XOPEN_SOURCE 700
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "registry.h"
#include "runtime.h"
#include "runtime_start.h"
#include "session.h"
#include "wasmtrace/wasmtrace.h"
#include "wt_test.h"
#include "wt_test_fs.h"
#include "wt_test_session.h"

static char tmpdir[64];


static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  if (buf) buf[n] = '\0';
  fclose(f);
  return buf;
}

/* ---- thread records are reused --------------------------------------------- */

typedef struct churn_thread {
  uint32_t slot, number;
  int registered;
} churn_thread;

/* Registers, opens a scope for ~2 ms (long enough to be sampled), exits. */
static void *churn_main(void *arg) {
  churn_thread *c = arg;
  static wt_site site = WT_SITE_INIT("churn_work", "app");
  wt_scope_begin(&site);
  wt_thread *t = wt_i_tls_self;
  c->registered = t != NULL;
  if (t) {
    c->slot = t->slot;
    c->number = t->number;
  }
  double until = wt_test_now_s() + 0.002;
  while (wt_test_now_s() < until) {
  }
  wt_scope_end();
  return NULL;
}

#define CHURN_ROUNDS 24
#define CHURN_PER_ROUND 16 /* 384 threads in all, more than WT_MAX_THREADS */

WT_TEST(threads_over_the_limit_should_come_and_go_while_sessions_sample) {
  wt_runtime_reset_for_testing(0);
  static churn_thread seen[CHURN_ROUNDS * CHURN_PER_ROUND];
  memset(seen, 0, sizeof seen);
  char path[128], json[512];
  snprintf(path, sizeof path, "%s/churn.json", tmpdir);
  int reused_slot = 0;
  for (int round = 0; round < CHURN_ROUNDS; round++) {
    /* Sessions sample (at 200 us) while threads exit under them: the
     * records of threads a session saw are kept until it is done, the
     * others are freed while it samples. */
    snprintf(json, sizeof json,
             "{\"name\":\"churn\",\"output\":\"%s\",\"compression\":\"none\","
             "\"sampling\":{\"intervalUs\":200}}",
             path);
    int id = -1;
    REQUIRE_EQ_INT(wt_session_start(json, &id), WT_OK);
    pthread_t th[CHURN_PER_ROUND];
    for (int i = 0; i < CHURN_PER_ROUND; i++)
      REQUIRE_EQ_INT(pthread_create(&th[i], NULL, churn_main, &seen[round * CHURN_PER_ROUND + i]), 0);
    for (int i = 0; i < CHURN_PER_ROUND; i++) pthread_join(th[i], NULL);
    wt_session_stop(id);
    REQUIRE_EQ_INT(wt_test_pump_until_done(id, 30), WT_SESSION_STOPPED);
    wt_session_stats st;
    REQUIRE_EQ_INT(wt_session_stats_get(id, &st), WT_OK);
    /* Exact accounting, whatever happened to the records. */
    CHECK_EQ_U64(st.samples_taken, st.samples_written + st.samples_dropped);
    CHECK_EQ_U64(st.threads_refused, 0);
    CHECK_EQ_INT(st.threads_limit, WT_MAX_THREADS);
    CHECK(st.threads <= 1 + CHURN_PER_ROUND); /* main + this round's threads */
    /* In the last round, a thread numbered past the limit is in the trace
     * under its own name. */
    if (round == CHURN_ROUNDS - 1) {
      char *text = read_file(path);
      REQUIRE(text != NULL);
      char name[48];
      snprintf(name, sizeof name, "\"pthread %u\"", (unsigned)seen[round * CHURN_PER_ROUND].number);
      CHECK(seen[round * CHURN_PER_ROUND].number >= WT_MAX_THREADS);
      CHECK(strstr(text, "churn_work") != NULL);
      if (!strstr(text, name)) fprintf(stderr, "    %s is not in the trace\n", name);
      CHECK(strstr(text, name) != NULL);
      free(text);
    }
    remove(path);
  }
  /* Every thread registered: none refused over 384 threads. */
  for (int i = 0; i < CHURN_ROUNDS * CHURN_PER_ROUND; i++) {
    CHECK(seen[i].registered);
    for (int j = 0; j < i && !reused_slot; j++) reused_slot = seen[j].slot == seen[i].slot;
    /* A new occupant of a slot gets a new number (its name, its identity). */
    if (i > 0) CHECK(seen[i].number > 0);
  }
  for (int i = 1; i < CHURN_ROUNDS * CHURN_PER_ROUND; i++)
    for (int j = 0; j < i; j++)
      if (seen[i].number == seen[j].number) {
        CHECK(seen[i].number != seen[j].number);
        i = j = CHURN_ROUNDS * CHURN_PER_ROUND; /* report once */
      }
  CHECK(reused_slot);
  CHECK_EQ_U64(wt_registry_threads_dropped(), 0);
  /* Memory stays bounded: slots in use stay near what one round needs
   * (main, a round's threads, and the previous round's until the worker
   * frees them), far below the 384 threads that came and went. */
  CHECK(wt_registry_count() <= 1 + 3 * CHURN_PER_ROUND);
  /* Once the worker's loop ran with no session, every exited thread's
   * record is freed: only main's is left. */
  double give_up = wt_test_now_s() + 30;
  uint32_t live = 0;
  do {
    wt_test_sleep_ms(5);
    live = 0;
    for (uint32_t s = 0; s < wt_registry_count(); s++) live += wt_registry_get(s) != NULL;
  } while (live > 1 && wt_test_now_s() < give_up);
  CHECK_EQ_INT(live, 1);
  CHECK_EQ_U64(wt_registry_threads_reclaimed(), CHURN_ROUNDS * CHURN_PER_ROUND);
  wt_runtime_reset_for_testing(0);
}

/* A thread that exits inside a scope a session records: the session still
 * writes the scope (unfinished) and the thread's name, although the thread
 * is gone before the session stops. */
static void *exit_inside_scope(void *arg) {
  (void)arg;
  static wt_site site = WT_SITE_INIT("left_open", "app");
  wt_thread_set_name("leaver");
  wt_scope_begin(&site);
  return NULL; /* never closed */
}

WT_TEST(a_session_should_keep_the_name_and_open_scope_of_a_thread_that_exited) {
  wt_runtime_reset_for_testing(0);
  char path[128], json[512];
  snprintf(path, sizeof path, "%s/leaver.json", tmpdir);
  snprintf(json, sizeof json,
           "{\"name\":\"leaver\",\"output\":\"%s\",\"compression\":\"none\","
           "\"sampling\":{\"enabled\":false}}",
           path);
  int id = -1;
  REQUIRE_EQ_INT(wt_session_start(json, &id), WT_OK);
  while (wt_session_state_get(id) == WT_SESSION_STARTING) wt_test_sleep_ms(1);
  pthread_t th;
  REQUIRE_EQ_INT(pthread_create(&th, NULL, exit_inside_scope, NULL), 0);
  pthread_join(th, NULL);
  wt_test_sleep_ms(100); /* several worker iterations with the thread gone */
  wt_session_stop(id);
  REQUIRE_EQ_INT(wt_test_pump_until_done(id, 30), WT_SESSION_STOPPED);
  char *text = read_file(path);
  REQUIRE(text != NULL);
  CHECK(strstr(text, "left_open") != NULL);
  CHECK(strstr(text, "\"leaver\"") != NULL);
  free(text);
  remove(path);
  wt_runtime_reset_for_testing(0);
}

/* ---- threads refused at the limit are in the stats ------------------------- */

typedef struct holder {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  int release;
  int registered, refused;
} holder;

/* Registers and stays alive until released. */
static void *hold_record(void *arg) {
  holder *h = arg;
  wt_thread *t = wt_thread_self();
  pthread_mutex_lock(&h->mutex);
  if (t)
    h->registered++;
  else
    h->refused++;
  pthread_cond_broadcast(&h->cond);
  while (!h->release) pthread_cond_wait(&h->cond, &h->mutex);
  pthread_mutex_unlock(&h->mutex);
  return NULL;
}

WT_TEST(stats_should_count_the_threads_refused_at_the_limit) {
  wt_runtime_reset_for_testing(0);
  int id = -1;
  char json[512];
  snprintf(json, sizeof json,
           "{\"name\":\"full\",\"output\":\"%s/full.json\",\"compression\":\"none\","
           "\"sampling\":{\"enabled\":false}}",
           tmpdir);
  REQUIRE_EQ_INT(wt_session_start(json, &id), WT_OK);
  /* main holds one record: WT_MAX_THREADS - 1 more fit, 3 are refused. */
  enum { N = WT_MAX_THREADS - 1 + 3 };
  static pthread_t th[N];
  holder h = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
  int created = 0;
  for (int i = 0; i < N; i++) created += pthread_create(&th[i], NULL, hold_record, &h) == 0;
  REQUIRE_EQ_INT(created, N);
  pthread_mutex_lock(&h.mutex);
  while (h.registered + h.refused < N) pthread_cond_wait(&h.cond, &h.mutex);
  pthread_mutex_unlock(&h.mutex);
  CHECK_EQ_INT(h.registered, WT_MAX_THREADS - 1);
  CHECK_EQ_INT(h.refused, 3);
  wt_session_stats st;
  REQUIRE_EQ_INT(wt_session_stats_get(id, &st), WT_OK);
  CHECK_EQ_U64(st.threads_refused, 3);
  CHECK_EQ_INT(st.threads_limit, WT_MAX_THREADS);
  pthread_mutex_lock(&h.mutex);
  h.release = 1;
  pthread_cond_broadcast(&h.cond);
  pthread_mutex_unlock(&h.mutex);
  for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
  wt_session_stop(id);
  CHECK_EQ_INT(wt_test_pump_until_done(id, 30), WT_SESSION_STOPPED);
  wt_runtime_reset_for_testing(0);
}

/* ---- the session-id limit -------------------------------------------------- */

/* Counts the lines of `text` that contain `needle`. */
static int count_lines_with(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = text; p && *p;) {
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    const char *hit = strstr(p, needle);
    if (hit && hit < p + len) n++;
    p = end ? end + 1 : NULL;
  }
  return n;
}

/* Runs first: the cap counts over the process's life (a page's life). */
WT_TEST(session_failures_should_print_a_bounded_number_of_console_lines) {
  wt_runtime_reset_for_testing(0);
  char path[128];
  snprintf(path, sizeof path, "%s/stderr.txt", tmpdir);
  fflush(stderr);
  int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK(saved >= 0 && fd >= 0);
  if (saved < 0 || fd < 0) return;
  dup2(fd, 2);
  for (int i = 0; i < 3 * WT_FAILURE_LINES_MAX; i++) {
    int id = -1;
    wt_session_start("{\"sampling\":{\"intervalUs\":-1}}", &id);
    CHECK_EQ_INT(wt_session_state_get(id), WT_SESSION_FAILED);
  }
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd);
  char *text = read_file(path);
  CHECK(text != NULL);
  CHECK_EQ_INT(count_lines_with(text, "failed: session.sampling.intervalUs"), WT_FAILURE_LINES_MAX);
  CHECK_EQ_INT(count_lines_with(text, "further ones are not"), 1);
  CHECK_EQ_INT(count_lines_with(text, "wasmtrace"), WT_FAILURE_LINES_MAX + 1);
  free(text);
  /* Each session still has its error. */
  CHECK(strstr(wt_session_error(3 * WT_FAILURE_LINES_MAX - 1), "intervalUs") != NULL);
  wt_runtime_reset_for_testing(0);
}

WT_TEST(a_start_past_the_session_id_limit_should_fail_saying_why) {
  wt_runtime_reset_for_testing(0);
  /* Failed sessions (a config error) take ids like any other, at once; the
   * console gets the first WT_FAILURE_LINES_MAX of their lines (the test
   * before this one), not 4,095. */
  int last = -1;
  for (int i = 0; i < WT_MAX_SESSION_IDS - 1; i++) {
    int id = -1;
    wt_session_start("{\"sampling\":{\"intervalUs\":-1}}", &id);
    if (id != i) {
      CHECK_EQ_INT(id, i);
      break;
    }
    last = id;
  }
  CHECK_EQ_INT(last, WT_MAX_SESSION_IDS - 2);
  for (int k = 0; k < 3; k++) {
    int id = -1;
    CHECK_EQ_INT(wt_session_start("{\"name\":\"one-more\",\"compression\":\"none\"}", &id), WT_ERR_LIMIT);
    CHECK_EQ_INT(id, WT_MAX_SESSION_IDS - 1);
    CHECK_EQ_INT(wt_session_state_get(id), WT_SESSION_FAILED);
    const char *err = wt_session_error(id);
    CHECK(strstr(err, "too many sessions in this page's life") != NULL);
    CHECK(strstr(err, "4095") != NULL);
    CHECK_EQ_INT(wt_session_stop(id), WT_OK);
  }
  CHECK_EQ_INT(wt_session_count(), WT_MAX_SESSION_IDS);
  wt_runtime_reset_for_testing(0);
}

int main(int argc, char **argv) {
  if (!wt_test_make_tmpdir(tmpdir, sizeof tmpdir, "limits")) return 1;
  static const wt_test tests[] = {
      /* First: the cap on failure lines counts over the process's life. */
      WT_TEST_HOST_ONLY(session_failures_should_print_a_bounded_number_of_console_lines,
                        "the lines go to the JS console, which a wasm test cannot read"),
      /* A wasm test's main thread never returns to its event loop, so the
       * pool workers of exited pthreads never come back (pool of 8). */
      WT_TEST_HOST_ONLY(threads_over_the_limit_should_come_and_go_while_sessions_sample,
                        "hundreds of pthreads need pool workers back, which needs the event loop"),
      WT_TEST_HOST_ONLY(a_session_should_keep_the_name_and_open_scope_of_a_thread_that_exited,
                        "a pthread's exit is handled on the main thread's event loop"),
      WT_TEST_HOST_ONLY(stats_should_count_the_threads_refused_at_the_limit,
                        "258 pthreads at once need 258 pool workers"),
      WT_TEST_ENTRY(a_start_past_the_session_id_limit_should_fail_saying_why),
  };
  int rc = wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
  wt_runtime_reset_for_testing(0);
  wt_test_remove_tree(tmpdir);
  return rc;
}
