/* The Firefox Profiler encoder's markers and sampled allocations (see
 * encoder_firefox.h). */
#include "encoder_firefox.h"

/* ,"key":[ : a column of a table. */
static void open_column(wt_json *j, const char *key) {
  wt_json_lit(j, ",\"");
  wt_json_lit(j, key);
  wt_json_lit(j, "\":[");
}

/* The profile category of a marker of wasmtrace category `cat`. */
static uint32_t marker_category(ff_writer *w, uint32_t cat) {
  if (cat >= WT_MAX_CATEGORY_NAMES) return CAT_OTHER;
  return w->marker_cat[cat] ? w->marker_cat[cat] : CAT_OTHER;
}

/* The thread's events: ev_order[*lo .. *hi), in time order. */
void ff_thread_events(const ff_writer *w, uint16_t slot, uint32_t *lo_out, uint32_t *hi_out) {
  const ff_state *f = w->f;
  uint32_t lo = 0, hi = (uint32_t)f->events.count;
  while (lo < hi && ff_event_at(f, w->ev_order[lo])->thread < slot) lo++;
  hi = lo;
  while (hi < f->events.count && ff_event_at(f, w->ev_order[hi])->thread == slot) hi++;
  *lo_out = lo;
  *hi_out = hi;
}

/* A record that is a marker: a scope, an instant, or a growth of the wasm
 * memory (an instant whose cause is its stack). */
int ff_is_marker(const wt_event_rec *r) {
  int kind = WT_REC_KIND(r->kind);
  return kind == WT_REC_SCOPE || kind == WT_REC_INSTANT || kind == WT_REC_GROW;
}

/* The thread's sampled allocations and frees (heap.h) as the profile's
 * nativeAllocations table, balanced: an allocation has its stack and a
 * positive weight, its free the same address and the negative weight, on
 * the allocating thread's table (the Firefox Profiler matches them by
 * address within a table for its "Retained memory" view); threadId says
 * which thread allocated or freed. A free has no stack (the shim copies
 * none at free): the profiler finds its allocation by address. */
void ff_write_allocations(ff_writer *w, uint16_t slot) {
  wt_json *j = w->j;
  const ff_state *f = w->f;
  uint32_t lo, hi, n = 0;
  ff_thread_events(w, slot, &lo, &hi);
  for (uint32_t i = lo; i < hi; i++) n += WT_REC_IS_HEAP(ff_event_at(f, w->ev_order[i])->kind) != 0;
  static const char *const cols[] = {"time", "weight", "stack", "memoryAddress", "threadId"};
  wt_json_lit(j, "\"nativeAllocations\":{\"length\":");
  wt_json_u64(j, n);
  wt_json_lit(j, ",\"weightType\":\"bytes\"");
  for (int c = 0; c < 5; c++) {
    open_column(j, cols[c]);
    int first = 1;
    for (uint32_t i = lo; i < hi; i++) {
      const wt_event_rec *r = ff_event_at(f, w->ev_order[i]);
      if (!WT_REC_IS_HEAP(r->kind)) continue;
      int alloc = WT_REC_KIND(r->kind) == WT_REC_ALLOC;
      if (!first) wt_json_lit(j, ",");
      first = 0;
      switch (c) {
        case 0: ff_write_ms(w, r->ts_us); break;
        case 1:
          if (!alloc) wt_json_lit(j, "-");
          wt_json_u64(j, r->heap.bytes);
          break;
        case 2:
          if (alloc && r->id && w->stack_of[r->id]) wt_json_u64(j, w->stack_of[r->id] - 1);
          else wt_json_lit(j, "null");
          break;
        case 3: wt_json_u64(j, r->heap.addr); break;
        default: wt_json_u64(j, r->cat + 1u); break; /* the tid the threads carry */
      }
    }
    wt_json_lit(j, "]");
  }
  wt_json_lit(j, "},\n");
}

/* Column c of a recorder's span as a marker (ff_write_markers' columns). */
static void write_span_column(ff_writer *w, const wt_span_set *set, uint32_t cat, const wt_span *p, int c) {
  wt_json *j = w->j;
  switch (c) {
    case 0: {
      uint32_t s = wt_strtab_index(&w->strings, p->kind == WT_SPAN_NOTE ? "note" : p->name);
      if (s == NO_INDEX) w->oom = 1;
      wt_json_u64(j, s);
      break;
    }
    case 1: wt_json_u64(j, cat); break;
    case 2: ff_write_ms(w, p->begin_us); break;
    case 3:
      if (p->kind == WT_SPAN_SPAN) ff_write_ms(w, p->end_us);
      else wt_json_lit(j, "null");
      break;
    case 4: wt_json_u64(j, p->kind == WT_SPAN_SPAN ? PHASE_INTERVAL : PHASE_INSTANT); break;
    default:
      wt_json_lit(j, "{\"type\":\"wasmtrace\",\"category\":");
      wt_json_string(j, set->category);
      if (p->bytes >= 0) {
        wt_json_lit(j, ",\"bytes\":");
        wt_json_u64(j, (uint64_t)p->bytes);
      }
      if (p->kind == WT_SPAN_NOTE) {
        wt_json_lit(j, ",\"text\":");
        wt_json_string(j, p->name);
      }
      wt_json_lit(j, "}");
      break;
  }
}

void ff_write_markers(ff_writer *w, uint16_t slot) {
  wt_json *j = w->j;
  const ff_state *f = w->f;
  /* This thread's scopes and instants, in begin-time order. */
  uint32_t lo, hi;
  ff_thread_events(w, slot, &lo, &hi);
  uint32_t n = 0;
  for (uint32_t i = lo; i < hi; i++) n += ff_is_marker(ff_event_at(f, w->ev_order[i]));
  int spans_here = slot == w->span_slot;
  if (spans_here) n += (uint32_t)w->nspans;

  static const char *const cols[] = {"name", "category", "startTime", "endTime", "phase", "data"};
  wt_json_lit(j, "\"markers\":{\"length\":");
  wt_json_u64(j, n);
  for (int c = 0; c < 6; c++) {
    open_column(j, cols[c]);
    int first = 1;
    for (uint32_t i = lo; i < hi; i++) {
      const wt_event_rec *r = ff_event_at(f, w->ev_order[i]);
      int kind = WT_REC_KIND(r->kind);
      if (!ff_is_marker(r)) continue;
      if (!first) wt_json_lit(j, ",");
      first = 0;
      int unfinished = kind == WT_REC_SCOPE && (r->kind & WT_REC_UNFINISHED);
      int grow = kind == WT_REC_GROW;
      switch (c) {
        case 0:
          if (grow) {
            uint32_t s = wt_strtab_index(&w->strings, WT_GROW_EVENT_NAME);
            if (s == NO_INDEX) w->oom = 1;
            wt_json_u64(j, s);
          } else {
            wt_json_u64(j, ff_name_index(w, r->id));
          }
          break;
        case 1: wt_json_u64(j, marker_category(w, r->cat)); break;
        case 2: ff_write_ms(w, r->ts_us); break;
        case 3:
          if (kind == WT_REC_SCOPE && !unfinished) ff_write_ms(w, r->value);
          else wt_json_lit(j, "null");
          break;
        case 4:
          wt_json_u64(j, kind == WT_REC_INSTANT || grow ? PHASE_INSTANT
                         : unfinished           ? PHASE_INTERVAL_START
                                                : PHASE_INTERVAL);
          break;
        default:
          wt_json_lit(j, "{\"type\":\"wasmtrace\",\"category\":");
          wt_json_string(j, wt_registry_category_name(r->cat));
          if (unfinished) wt_json_lit(j, ",\"unfinished\":\"still open when the session stopped\"");
          if (grow) {
            wt_json_lit(j, ",\"fromBytes\":");
            wt_json_u64(j, (uint64_t)r->heap.addr * 65536);
            wt_json_lit(j, ",\"toBytes\":");
            wt_json_u64(j, (uint64_t)r->heap.bytes * 65536);
            /* The profiler shows a marker's cause stack in its tooltip. */
            if (r->id && w->stack_of[r->id]) {
              wt_json_lit(j, ",\"cause\":{\"stack\":");
              wt_json_u64(j, w->stack_of[r->id] - 1);
              wt_json_lit(j, "}");
            }
          }
          wt_json_lit(j, "}");
          break;
      }
    }
    for (size_t set = 0; spans_here && set < w->v->nspans; set++) {
      const wt_span_set *ss = &w->v->spans[set];
      for (size_t k = 0; k < ss->n; k++) {
        wt_span p;
        /* Every column has a row for each span counted above. */
        if (!ss->get(ss, k, &p)) p = (wt_span){.kind = WT_SPAN_NOTE, .bytes = -1};
        if (!first) wt_json_lit(j, ",");
        first = 0;
        write_span_column(w, ss, w->span_cat[set], &p, c);
      }
    }
    wt_json_lit(j, "]");
  }
  wt_json_lit(j, "}");
}
