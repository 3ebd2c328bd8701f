/* The long-task recorder (recorder.h): the page main thread's long tasks
 * (tasks of 50 ms or more: the browser's `longtask` PerformanceObserver
 * entries, Chromium only): markers on the main thread in the firefox
 * format, spans on a track of their own beside the threads in the chrome
 * format (encoder_chrome.c says why not on the main thread's own), and a
 * "longTasks" member of the stats record. The
 * page-side shim observes them (js/wasmtrace_startup.js, wasmtraceLongTasks)
 * and hands each one here (wt_js_longtask) once the module is up. A session
 * whose categories have "longtask" (the default ["*"] has it) writes them:
 * one started before main() every task that began before it stopped, a
 * later one those that began while it recorded. */
#include <stdatomic.h>

#include "recorder.h"
#include "span_table.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#define WT_I_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define WT_I_EXPORT
#endif

#define LONGTASKS_MAX 256 /* 40 KiB of static table: 256 tasks of 50 ms or more is 12.8 s of a blocked page */

WT_SPAN_TABLE(tasks, LONGTASKS_MAX);

/* What the page said: -1 nothing (Node, an app without the pre-js), 0 its
 * browser has no longtask entries, 1 it observes them. */
static _Atomic int observed = -1;

/* One long task, from the page's main thread: begin and end in
 * microseconds on the samples' clock. Returns 0, or -1 if refused
 * (counted in "dropped"). */
WT_I_EXPORT int wt_js_longtask(double begin_us, double end_us) {
  return wt_span_table_add(&tasks, WT_SPAN_SPAN, "long task", begin_us, end_us, -1);
}

/* Whether the page observes long tasks (1) or its browser has none (0),
 * and how many it could not keep before the module was up (counted as
 * dropped). */
WT_I_EXPORT void wt_js_longtasks_observed(int yes, int lost) {
  atomic_store(&observed, yes ? 1 : 0);
  if (lost > 0) wt_span_table_note_dropped(&tasks, (uint64_t)lost);
}

/* Tests only: forgets every task and what the page said. */
void wt_longtasks_reset_for_testing(void) {
  wt_span_table_reset(&tasks);
  atomic_store(&observed, -1);
}

static int wanted(const wt_session_config *c) { return wt_config_category_enabled(c, "longtask"); }

/* The final step's spans (table indices), read by get() after spans()
 * chose them: worker only, one step at a time. write_stats chooses again
 * into its own array, so that a task published in between cannot move the
 * spans an encoder is still writing. */
static uint16_t chosen[LONGTASKS_MAX];

static size_t collect(const wt_encode_view *v, uint16_t out[LONGTASKS_MAX]) {
  size_t n = 0;
  uint32_t count = wt_span_table_count(&tasks);
  for (uint32_t i = 0; i < count; i++) {
    wt_span p;
    if (wt_span_table_get(&tasks, i, &p) && wt_recorder_span_wanted(v, &p)) out[n++] = (uint16_t)i;
  }
  return n;
}

static int get(const wt_span_set *set, size_t k, wt_span *out) {
  return k < set->n && wt_span_table_get(&tasks, chosen[k], out);
}

/* One lane: the main thread runs one task at a time. */
static void spans(const wt_encode_view *v, wt_span_set *set) {
  *set = (wt_span_set){.category = "longtask", .track = "Long tasks (main thread)", .color = "red", .get = get};
  set->n = collect(v, chosen);
  set->nlanes = set->n ? 1 : 0;
}

/* "longTasks":{"observed":true,"count":N,"totalUs":T,"longestUs":L,
 * "dropped":D}, or {"observed":false,"reason":"..."}, on the final step of
 * a page that said whether it observes them. */
static void write_stats(const wt_encode_view *v, const uint64_t fig[WT_RECORDER_STATS_MAX], wt_json *j) {
  (void)fig;
  int seen = atomic_load(&observed);
  if (!v->final || seen < 0) return;
  if (!seen) {
    wt_json_lit(j, ",\"longTasks\":{\"observed\":false,\"reason\":\"this browser gives no longtask entries "
                   "(PerformanceObserver.supportedEntryTypes)\"}");
    return;
  }
  uint16_t mine[LONGTASKS_MAX];
  size_t n = collect(v, mine);
  double total = 0, longest = 0;
  for (size_t k = 0; k < n; k++) {
    wt_span p;
    if (!wt_span_table_get(&tasks, mine[k], &p)) continue;
    total += p.end_us - p.begin_us;
    if (p.end_us - p.begin_us > longest) longest = p.end_us - p.begin_us;
  }
  wt_json_lit(j, ",\"longTasks\":{\"observed\":true,\"count\":");
  wt_json_u64(j, n);
  wt_json_lit(j, ",\"totalUs\":");
  wt_json_double3(j, total);
  wt_json_lit(j, ",\"longestUs\":");
  wt_json_double3(j, longest);
  wt_json_lit(j, ",\"dropped\":");
  wt_json_u64(j, wt_span_table_dropped(&tasks));
  wt_json_lit(j, "}");
}

const wt_recorder wt_recorder_longtask = {
    .name = "longtask",
    .wanted = wanted,
    .write_stats = write_stats,
    .spans = spans,
};
