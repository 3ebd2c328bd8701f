/* The startup timeline's recorder (recorder.h): the page's startup phases
 * (phases.h), written by a session whose categories have "startup" (the
 * default ["*"] has it) on its final step: its "startup" member of the
 * stats record, and its spans on tracks of their own ("Startup", ...) in
 * the chrome and firefox formats. A session started before main() writes
 * every phase that begins before it stopped, a later one those that begin
 * while it recorded. */
#include "phases.h"
#include "recorder.h"

static int wanted(const wt_session_config *c) { return wt_config_category_enabled(c, "startup"); }

/* The final step's copy of the table (published phases never change): worker
 * only, one step at a time. The spans' order and lanes, read by get(). */
static wt_phase all[WT_PHASES_MAX];
static uint16_t span_order[WT_PHASES_MAX];
static uint8_t span_lane[WT_PHASES_MAX];

/* The phases the session writes: order[] their table indices in begin
 * order (ties: the longer first), lane[] a lane each in which no two spans
 * overlap; *nlanes the lanes used. Returns how many. */
static size_t collect(const wt_encode_view *v, uint16_t order[WT_PHASES_MAX], uint8_t lane[WT_PHASES_MAX],
                      int *nlanes) {
  size_t n = 0;
  uint32_t count = wt_phases_count();
  for (uint32_t i = 0; i < count; i++) {
    if (!wt_phase_get(i, &all[i]) || !wt_recorder_span_wanted(v, &all[i])) continue;
    /* Insertion sort by begin, the longer first (at most a few hundred). */
    size_t at = n++;
    while (at > 0) {
      const wt_phase *q = &all[order[at - 1]], *p = &all[i];
      if (q->begin_us < p->begin_us || (q->begin_us == p->begin_us && q->end_us >= p->end_us)) break;
      order[at] = order[at - 1];
      at--;
    }
    order[at] = (uint16_t)i;
  }
  /* Interval partitioning: each span in the first lane that is free at its
   * begin (optimal in begin order); instants and notes in lane 0. */
  double free_at[WT_SPAN_LANES];
  int used = n ? 1 : 0;
  for (int l = 0; l < WT_SPAN_LANES; l++) free_at[l] = -1;
  for (size_t k = 0; k < n; k++) {
    const wt_phase *p = &all[order[k]];
    int l = 0;
    if (p->kind == WT_PHASE_SPAN) {
      while (l < WT_SPAN_LANES - 1 && free_at[l] > p->begin_us) l++;
      if (p->end_us > free_at[l]) free_at[l] = p->end_us;
    }
    lane[k] = (uint8_t)l;
    if (l + 1 > used) used = l + 1;
  }
  if (nlanes) *nlanes = used;
  return n;
}

static int get(const wt_span_set *set, size_t k, wt_span *out) {
  if (k >= set->n) return 0;
  wt_phase p;
  if (!wt_phase_get(span_order[k], &p)) return 0;
  *out = p;
  out->lane = span_lane[k];
  return 1;
}

static void spans(const wt_encode_view *v, wt_span_set *set) {
  *set = (wt_span_set){.category = "startup", .track = "Startup", .color = "lightblue", .get = get};
  set->n = collect(v, span_order, span_lane, &set->nlanes);
}

/* "startup":{"phases":[{"name","kind","beginUs","endUs","bytes"}...],
 * "dropped":N}, in begin order; kind is "span", "instant" or "note"; bytes
 * only where known: the machine-readable form every format carries. Only
 * on the final step of a session that has some of it (or started before
 * main() and had some refused). */
static void write_stats(const wt_encode_view *v, const uint64_t fig[WT_RECORDER_STATS_MAX], wt_json *j) {
  (void)fig;
  static const char *const kinds[] = {"", "span", "instant", "note"};
  if (!v->final || !(wt_phases_count() || wt_phases_dropped())) return;
  uint16_t order[WT_PHASES_MAX];
  uint8_t lane[WT_PHASES_MAX];
  size_t n = collect(v, order, lane, NULL);
  if (!n && !(v->before_main && wt_phases_dropped())) return;
  wt_json_lit(j, ",\"startup\":{\"phases\":[");
  int first = 1;
  for (size_t k = 0; k < n; k++) {
    wt_phase p;
    if (!wt_phase_get(order[k], &p)) continue;
    wt_json_lit(j, first ? "{\"name\":" : ",{\"name\":");
    first = 0;
    wt_json_string(j, p.name);
    wt_json_lit(j, ",\"kind\":\"");
    wt_json_lit(j, kinds[p.kind <= WT_PHASE_NOTE ? p.kind : 0]);
    wt_json_lit(j, "\",\"beginUs\":");
    wt_json_double3(j, p.begin_us);
    wt_json_lit(j, ",\"endUs\":");
    wt_json_double3(j, p.end_us);
    if (p.bytes >= 0) {
      wt_json_lit(j, ",\"bytes\":");
      wt_json_u64(j, (uint64_t)p.bytes);
    }
    wt_json_lit(j, "}");
  }
  wt_json_lit(j, "],\"dropped\":");
  wt_json_u64(j, wt_phases_dropped());
  wt_json_lit(j, "}");
}

const wt_recorder wt_recorder_timeline = {
    .name = "timeline",
    .wanted = wanted,
    .write_stats = write_stats,
    .spans = spans,
};
