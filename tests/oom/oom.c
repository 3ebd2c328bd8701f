/* An app that runs out of memory under wasmtrace (tests/oom/CMakeLists.txt
 * builds it with a fixed 64 MB heap, where Emscripten's malloc aborts the
 * whole app when the heap cannot grow, and with a capped growable one).
 *
 * A session records while the app fills its heap until less than
 * LEFT_BYTES are left; then another session is started (it must fail before
 * it starts, saying how much it needs), and the app runs code with many
 * distinct stacks, so that the recording session's call tree must grow (it
 * must stop early, not abort the app). Then the app frees its memory, reads
 * the trace back, and prints OOM-APP-ALIVE and what it found. Exit status
 * 0 if everything held. On wasmtrace before the fix the app aborted
 * ("Aborted(OOM)") and printed nothing after "filled".
 *
 *   node --no-experimental-fetch build/wasm/tests/oom/oom_fixed.js <dir> */
#include <emscripten/heap.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "cJSON.h"
#include "wasmtrace/wasmtrace.h"

#define LEFT_BYTES (600 * 1024) /* below what a session needs to start */

/* The library's explanation of a session refused before it had a record
 * (js_exports.c: what the JS shim reads). */
const char *wt_js_no_record_error(void);

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What malloc can still take without growing the heap (the app measures
 * it the way mem.c does, to stop filling in time: the app itself must not
 * hit the aborting path either). */
static size_t heap_left(void) {
  uintptr_t brk = (uintptr_t)sbrk(0);
  size_t max = emscripten_get_heap_max();
  return (max > brk ? max - brk : 0) + (size_t)mallinfo().keepcost;
}

/* ---- a workload with many distinct stacks ---------------------------------- */

static volatile uint32_t sink;
static uint32_t rng = 12345;
static uint32_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}

__attribute__((noinline)) static void walk_b(int depth, uint32_t bits);
__attribute__((noinline)) static void walk_a(int depth, uint32_t bits) {
  if (!depth) {
    for (int i = 0; i < 200; i++) sink += i;
    return;
  }
  if (bits & 1) walk_a(depth - 1, bits >> 1);
  else walk_b(depth - 1, bits >> 1);
}
__attribute__((noinline)) static void walk_b(int depth, uint32_t bits) {
  if (!depth) {
    for (int i = 0; i < 200; i++) sink += i;
    return;
  }
  if (bits & 1) walk_b(depth - 1, bits >> 1);
  else walk_a(depth - 1, bits >> 1);
}

/* ---- reading the trace back ------------------------------------------------ */

static char *read_gz(const char *path, size_t *out_len) {
  gzFile f = gzopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 20, len = 0;
  char *buf = malloc(cap + 1);
  int n;
  while (buf && (n = gzread(f, buf + len, (unsigned)(cap - len))) > 0) {
    len += (size_t)n;
    if (len == cap) {
      char *bigger = realloc(buf, cap * 2 + 1);
      if (!bigger) break;
      buf = bigger;
      cap *= 2;
    }
  }
  int err = Z_OK;
  gzerror(f, &err);
  gzclose(f);
  if (!buf || err != Z_OK) {
    free(buf);
    return NULL;
  }
  buf[len] = '\0';
  *out_len = len;
  return buf;
}

static wt_session_state pump_until_done(int id, double seconds) {
  double give_up = now_s() + seconds;
  wt_session_state st;
  while ((st = wt_session_state_get(id)) != WT_SESSION_STOPPED && st != WT_SESSION_FAILED &&
         now_s() < give_up) {
    wt_io_pump();
    usleep(1000);
  }
  return st;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "/tmp";
  char path[512], json[1024];
  snprintf(path, sizeof path, "%s/oom-running.json.gz", dir);
  snprintf(json, sizeof json,
           "{\"name\":\"running\",\"output\":\"%s\",\"overwrite\":true,"
           "\"sampling\":{\"intervalUs\":100},\"counters\":{\"intervalMs\":5}}",
           path);
  int failures = 0, running = -1;
  if (wt_session_start(json, &running) != WT_OK) {
    printf("FAIL: the first session did not start: %s\n", wt_session_error(running));
    return 1;
  }
  double give_up = now_s() + 20;
  while (wt_session_state_get(running) == WT_SESSION_STARTING && now_s() < give_up) usleep(1000);
  printf("heap: %zu KiB of %zu KiB left before filling\n", heap_left() / 1024,
         emscripten_get_heap_max() / 1024);

  /* Fill the heap, in shrinking pieces, until less than LEFT_BYTES is left. */
  void **filler = NULL;
  size_t nfill = 0, capfill = 0, filled = 0;
  for (size_t piece = 1 << 20; piece >= 4096; piece /= 2) {
    while (heap_left() > LEFT_BYTES + piece) {
      if (nfill == capfill) {
        capfill = capfill ? capfill * 2 : 256;
        void **bigger = realloc(filler, capfill * sizeof *bigger);
        if (!bigger) break;
        filler = bigger;
      }
      void *p = malloc(piece);
      if (!p) break;
      memset(p, 1, piece);
      filler[nfill++] = p;
      filled += piece;
    }
  }
  printf("filled %zu KiB: %zu KiB left\n", filled / 1024, heap_left() / 1024);
  fflush(stdout);

  /* A session started now cannot have its memory: it fails before it starts. */
  char path2[512], json2[1024];
  snprintf(path2, sizeof path2, "%s/oom-late.json.gz", dir);
  snprintf(json2, sizeof json2, "{\"name\":\"late\",\"output\":\"%s\"}", path2);
  int late = -1;
  wt_status rc = wt_session_start(json2, &late);
  /* With no room even for its record the session has no id: the library
   * keeps the explanation where the JS shim reads it. */
  const char *late_error = late >= 0 ? wt_session_error(late) : wt_js_no_record_error();
  printf("late session: %s, \"%s\"\n", wt_status_str(rc), late_error);
  if (rc != WT_ERR_NO_MEMORY || !strstr(late_error, "KiB to start") || !strstr(late_error, "KiB free")) {
    printf("FAIL: the late session should fail before it starts, saying what it needs\n");
    failures++;
  }

  /* Distinct stacks until the recording session's call tree cannot grow. */
  give_up = now_s() + 60;
  uint64_t calls = 0;
  while (wt_session_state_get(running) == WT_SESSION_RUNNING && now_s() < give_up) {
    for (int i = 0; i < 64; i++, calls++) walk_a(14, next_rand());
    wt_io_pump();
  }
  printf("OOM-APP-ALIVE: main continues after %llu calls; the session is %s\n",
         (unsigned long long)calls,
         wt_session_state_get(running) == WT_SESSION_RUNNING ? "still running" : "stopping");
  wt_session_stop(running);
  wt_session_state st = pump_until_done(running, 60);
  wt_session_stats stats;
  wt_session_stats_get(running, &stats);
  printf("session: state %d, error \"%s\", %llu samples written, %llu bytes written\n", (int)st,
         wt_session_error(running), (unsigned long long)stats.samples_written,
         (unsigned long long)stats.bytes_written);
  if (st != WT_SESSION_STOPPED) {
    printf("FAIL: the session should end stopped\n");
    failures++;
  }

  /* The app gives its memory back; the trace reads back whole. */
  for (size_t i = 0; i < nfill; i++) free(filler[i]);
  free(filler);
  size_t len = 0;
  char *text = st == WT_SESSION_STOPPED ? read_gz(path, &len) : NULL;
  cJSON *doc = text ? cJSON_ParseWithLength(text, len) : NULL;
  /* Stopped early either way: its allocations refused ("out of memory"),
   * or, first, the app's filling took the heap below the headroom
   * wasmtrace leaves the app ("the app's heap ran low: ..."). */
  const char *early = text ? strstr(text, "\"stoppedEarly\":\"") : NULL;
  const char *refused = text ? strstr(text, "\"allocationsRefused\":") : NULL;
  int why_ok = early && (!strncmp(early + 16, "out of memory", 13) ? refused != NULL
                                                                     : !strncmp(early + 16, "the app's heap ran low", 22));
  printf("trace: %zu bytes, %s JSON, stoppedEarly %.40s, allocationsRefused %s\n", len,
         cJSON_IsArray(doc) ? "valid" : "INVALID", early ? early + 16 : "absent",
         refused ? refused + 21 : "absent");
  /* The C API gives the same reason (its text starts as the trace's). */
  char api_why[200];
  int api_early = wt_session_stopped_early(running, api_why, sizeof api_why);
  printf("wt_session_stopped_early: %d \"%.60s\"\n", api_early, api_why);
  if (!api_early || !early || strncmp(api_why, early + 16, 13) != 0) {
    printf("FAIL: wt_session_stopped_early should give the trace's reason\n");
    failures++;
  }
  if (!cJSON_IsArray(doc) || !why_ok || stats.samples_written == 0) {
    printf("FAIL: the trace should read back, keep its samples and say it stopped early\n");
    failures++;
  }
  cJSON_Delete(doc);
  free(text);
  printf(failures ? "OOM-TEST-FAILED\n" : "OOM-TEST-PASSED\n");
  return failures ? 1 : 0;
}
