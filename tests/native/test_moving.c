/* No sample lost to a moving stack (issue 16), end to end: a thread calls
 * tiny functions in a tight loop, several levels deep, with a known call
 * structure, through the -finstrument-functions hooks, while a session
 * samples it at 10 kHz. Every stack the trace keeps must be one the thread
 * really had (a path of the known structure) or a prefix of one marked
 * "(partial stack)"; samples lost must stay at or below 0.5 %.
 *
 * The loss bound is an invariant of the copy protocol, not a speed: a
 * loaded machine that deschedules the writer only makes its stack hold
 * still. The test counts samples, not time, so a slow machine only makes
 * it run longer. The trace is folded (one "thread;frames count" line per
 * stack); the frames are interned names pushed through the hooks, so they
 * print the same on the host and in wasm. */
#define _XOPEN_SOURCE 700
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "runtime.h"
#include "runtime_start.h"
#include "wasmtrace/wasmtrace.h"
#include "wt_test.h"
#include "wt_test_fs.h"
#include "wt_test_session.h"

/* The -finstrument-functions hooks (hooks.c); no header declares them. */
void __cyg_profile_func_enter(void *fn, void *call_site);
void __cyg_profile_func_exit(void *fn, void *call_site);

static char tmpdir[64];

/* The known call structure: run -> main_loop -> work, then in a tight loop
 * either sort -> cmp -> less -> leaf (many times) or format -> leaf.
 * Every stack the thread ever has is a prefix of one of these paths. */
enum { F_RUN, F_LOOP, F_WORK, F_SORT, F_CMP, F_LESS, F_LEAF, F_FORMAT, F_COUNT };
static const char *const frame_names[F_COUNT] = {"run", "main_loop", "work", "sort",
                                                 "cmp", "less", "leaf", "format"};
static const int paths[][7] = {
    {F_RUN, F_LOOP, F_WORK, F_SORT, F_CMP, F_LESS, F_LEAF},
    {F_RUN, F_LOOP, F_WORK, F_FORMAT, F_LEAF, -1},
};
#define NPATHS (int)(sizeof paths / sizeof paths[0])
#define PATH_LEN(p) ((p) == 0 ? 7 : 5)

typedef struct mover {
  uint32_t ids[F_COUNT];
  _Atomic int stop;
  _Atomic int ready;
  _Atomic uint64_t rounds;
} mover;

static void enter(const mover *m, int f) { __cyg_profile_func_enter((void *)(uintptr_t)m->ids[f], NULL); }
static void leave(void) { __cyg_profile_func_exit(NULL, NULL); }

static void *mover_main(void *arg) {
  mover *m = arg;
  wt_thread_set_name("mover");
  enter(m, F_RUN);
  enter(m, F_LOOP);
  enter(m, F_WORK);
  atomic_store(&m->ready, 1);
  while (!atomic_load_explicit(&m->stop, memory_order_relaxed)) {
    enter(m, F_SORT);
    for (int k = 0; k < 64; k++) {
      enter(m, F_CMP);
      enter(m, F_LESS);
      enter(m, F_LEAF);
      leave();
      leave();
      leave();
    }
    leave();
    for (int k = 0; k < 8; k++) {
      enter(m, F_FORMAT);
      enter(m, F_LEAF);
      leave();
      leave();
    }
    atomic_fetch_add_explicit(&m->rounds, 1, memory_order_relaxed);
  }
  leave();
  leave();
  leave();
  return NULL;
}

/* Judges the frames of one folded stack of the mover (after its thread
 * name): 1 if they are a path prefix, with "(partial stack)" allowed only
 * as the last frame; *partial says whether it was there. */
static int stack_is_true(char *frames, int *partial) {
  int seq[64], n = 0;
  *partial = 0;
  if (!strcmp(frames, "(idle)")) return 1; /* sampled before its first push */
  char *save = NULL;
  for (char *f = strtok_r(frames, ";", &save); f; f = strtok_r(NULL, ";", &save)) {
    if (*partial) return 0; /* the marker is only ever a leaf */
    if (!strcmp(f, "(partial stack)")) {
      *partial = 1;
      continue;
    }
    int id = -1;
    for (int i = 0; i < F_COUNT; i++)
      if (!strcmp(f, frame_names[i])) id = i;
    if (id < 0 || n == 64) return 0;
    seq[n++] = id;
  }
  if (n == 0 && !*partial) return 0;
  for (int p = 0; p < NPATHS; p++) {
    int ok = n <= PATH_LEN(p);
    for (int i = 0; ok && i < n; i++) ok = seq[i] == paths[p][i];
    /* A complete stack of this loop is never shorter than run;main_loop;work. */
    if (ok && (*partial || n >= 3)) return 1;
  }
  return 0;
}

WT_TEST(sampler_should_keep_only_true_stacks_of_a_thread_that_never_stops_calling) {
  mover *m = calloc(1, sizeof *m);
  REQUIRE(m != NULL);
  for (int i = 0; i < F_COUNT; i++) {
    m->ids[i] = wt_registry_intern(frame_names[i]);
    REQUIRE(m->ids[i] != 0);
  }
  char path[256], json[512];
  snprintf(path, sizeof path, "%s/moving.folded", tmpdir);
  snprintf(json, sizeof json,
           "{\"name\":\"moving\",\"output\":\"%s\",\"format\":\"folded\",\"compression\":\"none\","
           "\"sampling\":{\"intervalUs\":100},\"counters\":{\"enabled\":false},\"maxBufferKB\":16384}",
           path);
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, mover_main, m) == 0);
  while (!atomic_load(&m->ready)) wt_test_sleep_ms(1);
  int id = -1;
  REQUIRE_EQ_INT(wt_session_start(json, &id), WT_OK);
  /* 4000 samples of the mover (plus the idle main thread's), and the mover
   * made many rounds meanwhile: counts, not time (a hang guard only). */
  uint64_t rounds0 = atomic_load(&m->rounds);
  double give_up = wt_test_now_s() + 120;
  wt_session_stats st;
  for (;;) {
    wt_io_pump();
    wt_session_stats_get(id, &st);
    if (st.samples_taken >= 8000 && atomic_load(&m->rounds) - rounds0 >= 1000) break;
    if (wt_test_now_s() > give_up) break;
    wt_test_sleep_ms(5);
  }
  CHECK_EQ_INT(wt_session_stop(id), WT_OK);
  atomic_store(&m->stop, 1);
  pthread_join(th, NULL);
  uint64_t rounds = atomic_load(&m->rounds) - rounds0;
  REQUIRE_EQ_INT(wt_test_pump_until_done(id, 60), WT_SESSION_STOPPED);
  REQUIRE_EQ_INT(wt_session_stats_get(id, &st), WT_OK);
  CHECK(st.samples_taken >= 8000);
  CHECK(rounds >= 1000);

  size_t len = 0;
  char *text = wt_test_read_trace(path, &len);
  REQUIRE(text != NULL);
  uint64_t kept = 0, partial = 0, bare = 0, wrong = 0, written = 0;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (line[0] == '#') continue; /* the stats line */
    char *sp = strrchr(line, ' ');
    if (!sp) {
      wrong++;
      continue;
    }
    uint64_t count = strtoull(sp + 1, NULL, 10);
    *sp = '\0';
    written += count;
    if (strncmp(line, "mover;", 6) != 0) continue; /* the main thread, idle */
    int is_partial = 0;
    if (stack_is_true(line + 6, &is_partial)) {
      kept += count;
      partial += is_partial ? count : 0;
      /* A partial sample that kept no frame says only "busy": lost. */
      if (strcmp(line + 6, "(partial stack)") == 0) bare += count;
    } else {
      if (wrong < 5) fprintf(stderr, "    not a stack the thread had: %s (%llu)\n", line + 6,
                             (unsigned long long)count);
      wrong += count;
    }
  }
  free(text);
  uint64_t lost = st.samples_dropped + bare;
  fprintf(stderr,
          "    %llu samples taken, %llu lost (%llu torn); mover: %llu kept, %llu partial (%.2f %%), "
          "%llu wrong; %llu writer rounds\n",
          (unsigned long long)st.samples_taken, (unsigned long long)lost,
          (unsigned long long)st.samples_torn, (unsigned long long)kept, (unsigned long long)partial,
          kept ? 100.0 * (double)partial / (double)kept : 0.0, (unsigned long long)wrong,
          (unsigned long long)rounds);
  CHECK_EQ_U64(wrong, 0);
  CHECK(kept >= 3000); /* the mover was sampled (about half the samples) */
  /* Folded counts are sample weights (encoder.h): each sample counts the
   * grid periods since its thread's previous one, so the two threads
   * (main and mover, sampled at every tick) add at most the missed ticks
   * each, and the periods of dropped samples, to the samples written. */
  CHECK(written >= st.samples_written);
  CHECK(written <= st.samples_written + 2 * st.ticks_missed + st.samples_dropped);
  /* Lost (dropped, or partial with no frame kept): at most 0.5 % of the
   * samples taken. */
  CHECK(lost * 200 <= st.samples_taken);
  /* Partial samples stay the exception (measured: 0-1.2 % of the mover's):
   * a protocol that cut most copies short would fail here, not pass. */
  CHECK(partial * 10 <= kept);
  free(m);
}

int main(int argc, char **argv) {
  if (!wt_test_make_tmpdir(tmpdir, sizeof tmpdir, "moving")) return 1;
  static const wt_test tests[] = {
      WT_TEST_ENTRY(sampler_should_keep_only_true_stacks_of_a_thread_that_never_stops_calling),
  };
  int rc = wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
  wt_runtime_reset_for_testing(0);
  wt_test_remove_tree(tmpdir);
  return rc;
}
