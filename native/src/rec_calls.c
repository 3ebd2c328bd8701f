/* The calls recorder (recorder.h): the exact call counts of instrumented
 * builds (calls.h), as the "calls" member of the trace's stats record:
 *   "calls":{"since":"threadStart","threads":[{"name":"main",
 *     "functions":[["parse",12],["lex",480],...],"notCounted":0},...]}
 * one entry per thread the session saw that counted any call, its
 * functions in table order with their counts since the thread's first
 * instrumented call (a session started before main() sees every call;
 * one started later sees the calls before it too: "since" says so). The
 * counts are read as the trace is finished, just after the session
 * stopped: a thread still running then may have added some. Builds
 * without -finstrument-functions count nothing and write no member. */
#include "calls.h"
#include "recorder.h"
#include "symbols.h"

/* Thread `slot` of the view, if the session saw it and it counted any
 * call (its table in *c, NULL if the heap refused it; its uncounted calls
 * in *lost). */
static int counted(const wt_encode_view *v, uint32_t slot, const wt_calls **c, uint32_t *lost) {
  if (!v->threads[slot].seen) return 0;
  const wt_thread *t = wt_registry_get(slot);
  if (!t) return 0;
  *c = wt_calls_of(t);
  *lost = wt_calls_not_counted(t);
  return *c != NULL || *lost != 0;
}

static void write_thread(const wt_encode_view *v, uint32_t slot, const wt_calls *c, uint32_t lost, wt_json *j) {
  wt_json_lit(j, "{\"name\":");
  wt_json_string(j, v->threads[slot].name);
  wt_json_lit(j, ",\"functions\":[");
  int first = 1;
  for (uint32_t id = 0; c && id < c->cap; id++) {
    uint32_t n = atomic_load_explicit(&((wt_calls *)c)->counts[id], memory_order_relaxed);
    if (!n) continue;
    wt_json_lit(j, first ? "[" : ",[");
    first = 0;
    wt_json_string(j, wt_symbols_function_name(id));
    wt_json_lit(j, ",");
    wt_json_u64(j, n);
    wt_json_lit(j, "]");
  }
  wt_json_lit(j, "],\"notCounted\":");
  wt_json_u64(j, lost);
  wt_json_lit(j, "}");
}

static void write_stats(const wt_encode_view *v, const uint64_t fig[WT_RECORDER_STATS_MAX], wt_json *j) {
  (void)fig;
  if (!v->final) return;
  int any = 0;
  for (uint32_t slot = 0; slot < v->nthreads; slot++) {
    uint32_t lost = 0;
    const wt_calls *c = NULL;
    if (!counted(v, slot, &c, &lost)) continue;
    wt_json_lit(j, any ? "," : ",\"calls\":{\"since\":\"threadStart\",\"threads\":[");
    any = 1;
    write_thread(v, slot, c, lost, j);
  }
  if (any) wt_json_lit(j, "]}");
}

const wt_recorder wt_recorder_calls = {
    .name = "calls",
    .write_stats = write_stats,
};
