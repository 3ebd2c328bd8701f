/* Firefox Profiler encoder: the processed profile format, version 57 (the
 * layout the fxprof-processed-profile crate wrote at that version; it is
 * what wasmtime's guest profiler and samply produce). The Firefox Profiler
 * upgrades any older processed version on load, so one fixed version is
 * enough and stays readable by later releases.
 *
 * What goes where:
 *   - one entry of `threads` per app thread the session saw, named like the
 *     chrome format names it; samples with their own stackTable, frameTable
 *     and funcTable (one frame and one func per distinct function; a
 *     function's name is its func's name, so the call tree merges by name
 *     as the other formats do); the thread's "(root)" pseudo frame is left
 *     out, "(idle)" samples have a one-frame stack in the "Idle" category,
 *     and samples of a thread blocked in a wait keep their stack with a
 *     "(waiting)" leaf frame in that category (the CPU graph shows them
 *     as idle, the call tree says where the thread waits);
 *   - one string table for the whole file (`shared.stringArray`, v56+);
 *   - scopes are interval markers, instants instant markers, both of the
 *     marker type "wasmtrace" (category shown as a field); a scope still
 *     open when the session stopped is an IntervalStart marker (the
 *     profiler draws it to the end of the thread);
 *   - counters are `counters` tracks, one per counter name; their samples
 *     are deltas, as the format wants (the running sum is the value), and a
 *     counter whose name contains "bytes" (e.g. the built-in "wasm heap
 *     bytes" and "malloc bytes in use") is in category "Memory", which the
 *     profiler draws as a memory track;
 *   - the session's stats (drops and why) are in meta.extra (the profile
 *     info panel) and in meta.wasmtrace (the same keys as chrome's
 *     wasmtrace_session and wasmtrace_stats, for scripts).
 * Times are milliseconds since the session started (meta.startTime is that
 * moment as Unix-epoch milliseconds).
 *
 * Memory: the format is column-oriented per thread, so nothing can be
 * written before the end. Every step moves pending samples (14 bytes each)
 * and events (24 bytes each) into retained buffers owned by this encoder;
 * at the end the file is written in one go. To keep the session inside its
 * maxBufferKB, it declares three quarters of the session's sample and event
 * shares for the retained buffers (and its small state as state_bytes);
 * the session keeps one quarter for the pending rings (which the worker
 * drains every 100 ms). When a retained buffer is full the session's
 * whenFull policy applies: "ring" drops the oldest, "stop" the newest; the
 * session counts what it drops (samples as samplesDropped.bufferFull,
 * events as dropped.events). The final write goes past the output share once (compressed, the whole file
 * waits for the main thread) and uses temporary tables proportional to the
 * call tree (not counted). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "encoder_firefox.h"
#include "fmt.h"
#include "mem.h"
#include "platform.h"


/* ---- wall clock ----------------------------------------------------------- */

/* Unix-epoch milliseconds of the session's start: the wall clock now, less
 * the time since the session started on the session clock. */
static double session_epoch_ms(double start_us, double now_us) {
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return 0;
  double now_ms = (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
  double ms = now_ms - (now_us - start_us) / 1000.0;
  return ms > 0 ? floor(ms) : 0;
}

/* Tests pin meta.startTime (golden files must be byte-stable): when this is
 * >= 0 it is used instead of the wall clock. Not part of any header. */
double wt_encoder_firefox_epoch_ms_for_testing = -1;

/* ---- retained buffers ------------------------------------------------------- */

/* A retained sample's time and node, by position in the ring's storage
 * (not age: the final write visits them often, in its own order). */
static double sample_ts(const ff_state *f, uint32_t pos) {
  double ts;
  memcpy(&ts, f->samples.data + (size_t)pos * SAMPLE_ENTRY, sizeof ts);
  return ts;
}

static uint32_t sample_node(const ff_state *f, uint32_t pos) {
  uint32_t node;
  memcpy(&node, f->samples.data + (size_t)pos * SAMPLE_ENTRY + sizeof(double), sizeof node);
  return node;
}

static uint16_t sample_weight(const ff_state *f, uint32_t pos) {
  uint16_t weight;
  memcpy(&weight, f->samples.data + (size_t)pos * SAMPLE_ENTRY + sizeof(double) + sizeof(uint32_t), sizeof weight);
  return weight;
}


/* Moves the step's batch into the retained rings; what does not fit is
 * dropped by the session's whenFull policy and tallied. */
static void retain_batch(ff_state *f, const wt_encode_view *v, wt_encode_tally *t) {
  int keep_newest = v->config->when_full == WT_FULL_RING;
  size_t budget = v->retain_sample_bytes / SAMPLE_ENTRY, ev_budget = v->retain_event_bytes / sizeof(wt_event_rec);
  for (size_t i = 0; i < v->nsamples; i++) {
    wt_ring_room room = wt_ring_make_room(&f->samples, budget, 1024, keep_newest);
    if (room == WT_RING_REFUSED || room == WT_RING_EVICTED) {
      t->samples_dropped++;
      if (f->samples.cap < budget) t->alloc_failures++; /* it could not grow */
    }
    if (room == WT_RING_REFUSED) continue;
    const wt_sample *s = &v->samples[v->order[i]];
    unsigned char *at = wt_ring_push(&f->samples);
    memcpy(at, &s->ts_us, sizeof s->ts_us);
    memcpy(at + sizeof(double), &s->node, sizeof s->node);
    memcpy(at + sizeof(double) + sizeof s->node, &s->weight, sizeof s->weight);
  }
  for (size_t i = 0; i < v->nevents; i++) {
    wt_ring_room room = wt_ring_make_room(&f->events, ev_budget, 256, keep_newest);
    if (room == WT_RING_REFUSED || room == WT_RING_EVICTED) {
      t->events_dropped++;
      if (f->events.cap < ev_budget) t->alloc_failures++;
    }
    if (room == WT_RING_REFUSED) continue;
    *(wt_event_rec *)wt_ring_push(&f->events) = *(const wt_event_rec *)wt_ring_at(v->events, i);
  }
  t->retained_bytes = wt_ring_bytes(&f->samples) + wt_ring_bytes(&f->events);
}

/* ---- writing ------------------------------------------------------------------- */


void ff_write_ms(ff_writer *w, double us) { wt_json_double3(w->j, (us - w->v->start_us) / 1000.0); }

/* The string index of a frame's (or event's) name; NO_INDEX sets oom. */
uint32_t ff_name_index(ff_writer *w, uint32_t frame) {
  uint32_t i = wt_strtab_index(&w->strings, wt_encode_frame_name(frame));
  if (i == NO_INDEX) w->oom = 1;
  return i;
}

static uint32_t frame_category(uint32_t frame) {
  /* A thread blocked in a wait is idle too: its CPU graph shows it. */
  if (frame == WT_NODE_IDLE || frame == WT_NODE_WAITING) return CAT_IDLE;
  if (frame == WT_NODE_ROOT || frame == WT_NODE_TRUNCATED) return CAT_OTHER;
  if (frame == WT_NODE_PARTIAL) return CAT_OTHER; /* busy, in frames that moved */
  return (frame & WT_FRAME_SCOPE_BIT) ? CAT_SCOPE : CAT_WASM;
}

/* The frame index of frame id `frame` in the current thread, created (with
 * its func) if new. */
static uint32_t frame_for(ff_writer *w, uint32_t frame) {
  uint32_t i = wt_u32map_first(&w->frame_of, wt_u32map_hash(frame)), fi;
  while ((fi = wt_u32map_get(&w->frame_of, i)) != 0 && w->frame_id[fi - 1] != frame)
    i = wt_u32map_next(&w->frame_of, i);
  if (fi) return fi - 1;
  uint32_t name = ff_name_index(w, frame);
  if (name == NO_INDEX) return NO_INDEX;
  uint32_t k = wt_u32map_first(&w->func_of, wt_u32map_hash(name)), fn;
  while ((fn = wt_u32map_get(&w->func_of, k)) != 0 && w->func_name[fn - 1] != name)
    k = wt_u32map_next(&w->func_of, k);
  if (!fn) {
    w->func_name[w->nfuncs++] = name;
    wt_u32map_set(&w->func_of, k, fn = w->nfuncs);
  }
  w->frame_id[w->nframes] = frame;
  w->frame_func[w->nframes] = fn - 1;
  w->frame_cat[w->nframes] = frame_category(frame);
  wt_u32map_set(&w->frame_of, i, ++w->nframes);
  return w->nframes - 1;
}

static int has_stack(const void *ctx, uint32_t node) { return ((const ff_writer *)ctx)->stack_of[node] != 0; }

/* The stack index of node `id` in the current thread, creating it and its
 * missing ancestors; NO_INDEX for the thread's root (an empty stack). */
static uint32_t stack_for(ff_writer *w, uint32_t id) {
  uint32_t buf[WT_NODE_CHAIN_MAX], above;
  int n;
  const uint32_t *chain = wt_node_chain(w->v, id, 1, has_stack, w, buf, &n, &above);
  uint32_t prefix = (above && w->stack_of[above]) ? w->stack_of[above] - 1 : NO_INDEX;
  for (int i = 0; i < n; i++) {
    uint32_t fi = frame_for(w, w->v->nodes[chain[i] - 1].frame);
    if (fi == NO_INDEX) return NO_INDEX;
    w->stack_frame[w->nstacks] = fi;
    w->stack_prefix[w->nstacks] = prefix;
    w->stack_of[chain[i]] = ++w->nstacks;
    prefix = w->nstacks - 1;
  }
  return prefix;
}

/* A JSON array's members: n values (NO_INDEX as null) or n copies of lit. */
static void write_u32_list(ff_writer *w, const uint32_t *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) wt_json_lit(w->j, ",");
    if (v[i] == NO_INDEX) wt_json_lit(w->j, "null");
    else wt_json_u64(w->j, v[i]);
  }
}

/* "key":[...] of a table column: n values, or n copies of lit. */
static void write_column(ff_writer *w, const char *key, const uint32_t *v, const char *lit, uint32_t n) {
  wt_json_lit(w->j, ",\"");
  wt_json_lit(w->j, key);
  wt_json_lit(w->j, "\":[");
  if (v) write_u32_list(w, v, n);
  for (uint32_t i = 0; !v && i < n; i++) {
    if (i) wt_json_lit(w->j, ",");
    wt_json_lit(w->j, lit);
  }
  wt_json_lit(w->j, "]");
}

/* Events sorted by (thread, begin time), stable: an index sort over the
 * retained ring (ctx-free qsort through a file-local pointer). */
static const ff_state *sort_state;
static int cmp_event_index(const void *pa, const void *pb) {
  uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
  const wt_event_rec *ra = ff_event_at(sort_state, a), *rb = ff_event_at(sort_state, b);
  if (ra->thread != rb->thread) return ra->thread < rb->thread ? -1 : 1;
  if (ra->ts_us != rb->ts_us) return ra->ts_us < rb->ts_us ? -1 : 1;
  return a < b ? -1 : a > b;
}

static void write_thread(ff_writer *w, uint16_t slot, int *first_thread) {
  const wt_encode_view *v = w->v;
  const wt_session_thread *st = &v->threads[slot];
  wt_json *j = w->j;

  /* Build this thread's tables from its samples. */
  w->nstacks = w->nframes = w->nfuncs = 0;
  wt_u32map_reset(&w->frame_of);
  wt_u32map_reset(&w->func_of);
  uint32_t lo = w->first[slot], hi = w->first[slot + 1];
  for (uint32_t i = lo; i < hi; i++) stack_for(w, sample_node(w->f, w->order[i]));
  int heap = (v->record_kinds >> WT_REC_ALLOC) & 1;
  if (heap) { /* the allocations' stacks too */
    uint32_t elo, ehi;
    ff_thread_events(w, slot, &elo, &ehi);
    for (uint32_t i = elo; i < ehi; i++) {
      const wt_event_rec *r = ff_event_at(w->f, w->ev_order[i]);
      int k = WT_REC_KIND(r->kind);
      if ((k == WT_REC_ALLOC || k == WT_REC_GROW) && r->id) stack_for(w, r->id);
    }
  }

  if (!*first_thread) wt_json_lit(j, ",");
  *first_thread = 0;
  wt_json_lit(j, "\n{\"name\":");
  wt_json_string(j, st->name);
  wt_json_lit(j, ",\"isMainThread\":");
  wt_json_lit(j, st->is_main ? "true" : "false");
  wt_json_lit(j, ",\"processType\":\"default\",\"processName\":");
  char pname[WT_NAME_MAX + 32];
  wt_snprintf(pname, sizeof pname, "wasmtrace: %s", v->config->name);
  wt_json_string(j, pname);
  wt_json_lit(j, ",\"processStartupTime\":0,\"processShutdownTime\":");
  ff_write_ms(w, v->stop_us > v->start_us ? v->stop_us : v->start_us);
  wt_json_lit(j, ",\"registerTime\":");
  ff_write_ms(w, hi > lo ? sample_ts(w->f, w->order[lo]) : v->start_us); /* its first kept sample */
  wt_json_lit(j, ",\"unregisterTime\":null,\"pausedRanges\":[],\"showMarkersInTimeline\":true,"
                 "\"pid\":\"1\",\"tid\":\"");
  wt_json_u64(j, slot + 1u);
  wt_json_lit(j, "\",\n\"samples\":{\"length\":");
  wt_json_u64(j, hi - lo);
  /* Weights (the periods a late sample stands for) only if one is not 1. */
  int weighted = 0;
  for (uint32_t i = lo; i < hi && !weighted; i++) weighted = sample_weight(w->f, w->order[i]) != 1;
  wt_json_lit(j, ",\"weightType\":\"samples\",\"weight\":");
  if (weighted) {
    wt_json_lit(j, "[");
    for (uint32_t i = lo; i < hi; i++) {
      if (i > lo) wt_json_lit(j, ",");
      wt_json_u64(j, sample_weight(w->f, w->order[i]));
    }
    wt_json_lit(j, "]");
  } else {
    wt_json_lit(j, "null");
  }
  wt_json_lit(j, ",\"stack\":[");
  for (uint32_t i = lo; i < hi; i++) {
    if (i > lo) wt_json_lit(j, ",");
    uint32_t node = sample_node(w->f, w->order[i]);
    if (node && w->stack_of[node]) wt_json_u64(j, w->stack_of[node] - 1);
    else wt_json_lit(j, "null");
  }
  wt_json_lit(j, "],\"time\":[");
  for (uint32_t i = lo; i < hi; i++) {
    if (i > lo) wt_json_lit(j, ",");
    ff_write_ms(w, sample_ts(w->f, w->order[i]));
  }
  wt_json_lit(j, "]},\n\"stackTable\":{\"length\":");
  wt_json_u64(j, w->nstacks);
  write_column(w, "frame", w->stack_frame, NULL, w->nstacks);
  write_column(w, "prefix", w->stack_prefix, NULL, w->nstacks);
  wt_json_lit(j, "},\n\"frameTable\":{\"length\":");
  wt_json_u64(j, w->nframes);
  write_column(w, "func", w->frame_func, NULL, w->nframes);
  write_column(w, "category", w->frame_cat, NULL, w->nframes);
  static const char *const frame_cols[][2] = {{"subcategory", "0"}, {"address", "-1"}, {"inlineDepth", "0"},
                                              {"nativeSymbol", "null"}, {"innerWindowID", "0"},
                                              {"line", "null"}, {"column", "null"}};
  for (size_t c = 0; c < sizeof frame_cols / sizeof frame_cols[0]; c++)
    write_column(w, frame_cols[c][0], NULL, frame_cols[c][1], w->nframes);
  wt_json_lit(j, "},\n\"funcTable\":{\"length\":");
  wt_json_u64(j, w->nfuncs);
  write_column(w, "name", w->func_name, NULL, w->nfuncs);
  static const char *const func_cols[][2] = {{"isJS", "false"}, {"relevantForJS", "false"},
                                             {"resource", "-1"}, {"fileName", "null"},
                                             {"lineNumber", "null"}, {"columnNumber", "null"}};
  for (size_t c = 0; c < sizeof func_cols / sizeof func_cols[0]; c++)
    write_column(w, func_cols[c][0], NULL, func_cols[c][1], w->nfuncs);
  wt_json_lit(j, "},\n\"resourceTable\":{\"length\":0,\"lib\":[],\"name\":[],\"host\":[],\"type\":[]},"
                 "\"nativeSymbols\":{\"length\":0,\"libIndex\":[],\"address\":[],\"name\":[],"
                 "\"functionSize\":[]},\n");
  if (heap) ff_write_allocations(w, slot);
  ff_write_markers(w, slot);
  wt_json_lit(j, "}");
}

/* Counter samples are deltas: the running sum is the counter's value. */
static void write_counters(ff_writer *w) {
  wt_json *j = w->j;
  const ff_state *f = w->f;
  /* Counters by name, in order of first appearance, each in time order. */
  uint32_t *ids = wt_mem_alloc((f->events.count + 1) * sizeof *ids);
  uint32_t *idx = wt_mem_alloc((f->events.count + 1) * sizeof *idx);
  if (!ids || !idx) {
    w->oom = 1;
    wt_mem_free(ids);
    wt_mem_free(idx);
    return;
  }
  uint32_t nids = 0;
  for (uint32_t i = 0; i < f->events.count; i++) {
    const wt_event_rec *r = ff_event_at(f, i);
    if (WT_REC_KIND(r->kind) != WT_REC_COUNTER) continue;
    uint32_t k = 0;
    while (k < nids && ids[k] != r->id) k++;
    if (k == nids) ids[nids++] = r->id;
  }
  for (uint32_t k = 0; k < nids; k++) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->events.count; i++) {
      const wt_event_rec *r = ff_event_at(f, i);
      if (WT_REC_KIND(r->kind) == WT_REC_COUNTER && r->id == ids[k]) idx[n++] = i;
    }
    /* Insertion sort by time (counters arrive almost sorted). */
    for (uint32_t a = 1; a < n; a++) {
      uint32_t v = idx[a], b = a;
      while (b > 0 && ff_event_at(f, idx[b - 1])->ts_us > ff_event_at(f, v)->ts_us) {
        idx[b] = idx[b - 1];
        b--;
      }
      idx[b] = v;
    }
    const char *name = wt_encode_frame_name(ids[k]);
    int memory = strstr(name, "bytes") != NULL;
    const wt_event_rec *r0 = ff_event_at(f, idx[0]);
    wt_json_lit(j, k ? ",\n{\"name\":" : "\n{\"name\":");
    wt_json_string(j, name);
    wt_json_lit(j, ",\"category\":");
    wt_json_string(j, memory ? "Memory" : wt_registry_category_name(r0->cat));
    wt_json_lit(j, ",\"description\":");
    char desc[WT_CATEGORY_MAX + 64];
    wt_snprintf(desc, sizeof desc, "wasmtrace counter (category %s)", wt_registry_category_name(r0->cat));
    wt_json_string(j, desc);
    wt_json_lit(j, ",\"pid\":\"1\",\"mainThreadIndex\":0,\"samples\":{\"length\":");
    wt_json_u64(j, n);
    wt_json_lit(j, ",\"time\":[");
    for (uint32_t a = 0; a < n; a++) {
      if (a) wt_json_lit(j, ",");
      ff_write_ms(w, ff_event_at(f, idx[a])->ts_us);
    }
    wt_json_lit(j, "],\"count\":[");
    double prev = 0;
    for (uint32_t a = 0; a < n; a++) {
      double v = ff_event_at(f, idx[a])->value;
      if (!isfinite(v) || !isfinite(v - prev)) v = prev; /* JSON has no inf/NaN */
      char num[40];
      wt_fmt_double(num, sizeof num, v - prev, 17);
      if (a) wt_json_lit(j, ",");
      wt_json_lit(j, num);
      prev = v;
    }
    wt_json_lit(j, "]}}");
  }
  wt_mem_free(ids);
  wt_mem_free(idx);
}

static const char *const palette[] = {"green", "orange", "purple", "lightblue", "brown", "magenta", "red"};

static void write_meta(ff_writer *w, wt_encode_tally *t) {
  const wt_encode_view *v = w->v;
  wt_json *j = w->j;
  const wt_session_config *c = v->config;
  wt_json_lit(j, "{\"meta\":{\"version\":24,\"preprocessedProfileVersion\":");
  wt_json_u64(j, PROCESSED_VERSION);
  wt_json_lit(j, ",\"product\":");
  char product[WT_NAME_MAX + 32];
  wt_snprintf(product, sizeof product, "wasmtrace: %s", c->name);
  wt_json_string(j, product);
  wt_json_lit(j, ",\"startTime\":");
  wt_json_double3(j, w->f->epoch_ms);
  wt_json_lit(j, ",\"interval\":");
  wt_json_double3(j, c->interval_us / 1000.0);
  wt_json_lit(j, ",\"processType\":0,\"debug\":false,\"symbolicated\":true,\"usesOnlyOneStackType\":true,"
                 "\"sourceCodeIsNotOnSearchfox\":true,\"pausedRanges\":[],"
                 "\"extensions\":{\"length\":0,\"baseURL\":[],\"id\":[],\"name\":[]},\n\"categories\":["
                 "{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]},"
                 "{\"name\":\"Idle\",\"color\":\"transparent\",\"subcategories\":[\"Other\"]},"
                 "{\"name\":\"WebAssembly\",\"color\":\"blue\",\"subcategories\":[\"Other\"]},"
                 "{\"name\":\"Scope\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]}");
  /* One category per wasmtrace category that names a marker. */
  for (size_t i = 0; i < w->f->events.count; i++) {
    const wt_event_rec *r = ff_event_at(w->f, i);
    if (!ff_is_marker(r) || r->cat >= WT_MAX_CATEGORY_NAMES || w->marker_cat[r->cat])
      continue;
    w->marker_cat[r->cat] = (uint8_t)w->ncats;
    wt_json_lit(j, ",{\"name\":");
    wt_json_string(j, wt_registry_category_name(r->cat));
    wt_json_lit(j, ",\"color\":\"");
    wt_json_lit(j, palette[(w->ncats - FIXED_CATEGORIES) % (sizeof palette / sizeof palette[0])]);
    wt_json_lit(j, "\",\"subcategories\":[\"Other\"]}");
    w->ncats++;
  }
  for (size_t i = 0; w->nspans && i < v->nspans; i++) {
    w->span_cat[i] = w->ncats++;
    wt_json_lit(j, ",{\"name\":");
    wt_json_string(j, v->spans[i].track);
    wt_json_lit(j, ",\"color\":");
    wt_json_string(j, v->spans[i].color);
    wt_json_lit(j, ",\"subcategories\":[\"Other\"]}");
  }
  wt_json_lit(j, "],\n\"markerSchema\":[{\"name\":\"wasmtrace\",\"display\":[\"marker-chart\","
                 "\"marker-table\",\"timeline-overview\"],\"chartLabel\":\"{marker.name}\","
                 "\"tooltipLabel\":\"{marker.name}\",\"tableLabel\":\"{marker.name}\","
                 "\"description\":\"A wasmtrace scope (interval) or instant marker.\","
                 "\"fields\":[{\"key\":\"category\",\"label\":\"Category\",\"format\":\"string\"},"
                 "{\"key\":\"unfinished\",\"label\":\"Unfinished\",\"format\":\"string\"},"
                 "{\"key\":\"bytes\",\"label\":\"Bytes transferred\",\"format\":\"bytes\"},"
                 "{\"key\":\"text\",\"label\":\"Note\",\"format\":\"string\"},"
                 "{\"key\":\"fromBytes\",\"label\":\"Memory before\",\"format\":\"bytes\"},"
                 "{\"key\":\"toBytes\",\"label\":\"Memory after\",\"format\":\"bytes\"}]}],\n");

  /* The meta comes before the markers and counters it counts: every
   * retained event is written below. */
  t->events_written += w->f->events.count;
  const wt_stats_rec *r = &v->stats;
  /* What the profile info panel shows. */
  struct {
    const char *label;
    uint64_t value;
  } rows[] = {{"Samples taken", r->samples_taken},
              {"Samples written", r->samples_written + v->nsamples - t->samples_dropped},
              {"Samples dropped: buffer full", r->samples_full + t->samples_dropped},
              {"Samples dropped: stack unreadable", r->samples_torn},
              {"Samples kept with a partial stack (it moved during every copy)", r->samples_partial},
              {"Samples of a thread blocked in a wait", r->samples_waiting},
              {"Events dropped", r->events_dropped + t->events_dropped},
              {"Sampler ticks missed", r->ticks_missed},
              {"Threads not registered (limit reached)", r->threads_dropped},
              {"Buffer high water (bytes)", r->high_water}};
  wt_json_lit(j, "\"extra\":[{\"label\":\"wasmtrace " WT_VERSION_STRING "\",\"entries\":[");
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    wt_json_lit(j, i ? ",{\"label\":" : "{\"label\":");
    wt_json_string(j, rows[i].label);
    wt_json_lit(j, ",\"format\":\"integer\",\"value\":");
    wt_json_u64(j, rows[i].value);
    wt_json_lit(j, "}");
  }
  wt_json_lit(j, "]}],\n\"wasmtrace\":{");
  wt_encode_write_session(v, j);
  wt_json_lit(j, ",");
  wt_encode_write_stats(v, t, j);
  wt_json_lit(j, "}},\n\"libs\":[],\"pages\":[],\"profilerOverhead\":[],\n");
}

static int writer_init(ff_writer *w, const wt_encode_view *v, const ff_state *f, wt_json *j) {
  memset(w, 0, sizeof *w);
  w->v = v;
  w->f = f;
  w->j = j;
  w->ncats = FIXED_CATEGORIES;
  w->span_slot = -1;
  for (size_t i = 0; i < v->nspans; i++) w->nspans += v->spans[i].n; /* final step only */
  for (uint32_t slot = 0; slot < v->nthreads && w->nspans; slot++) {
    if (!v->threads[slot].seen) continue;
    if (w->span_slot < 0 || v->threads[slot].is_main) w->span_slot = (int)slot;
    if (v->threads[slot].is_main) break;
  }
  if (w->span_slot < 0) w->nspans = 0; /* no thread to carry them: the stats record still does */
  size_t nodes = (size_t)v->node_count + 1, nsamples = f->samples.count, nevents = f->events.count;
  w->order = wt_mem_alloc((nsamples + 1) * sizeof *w->order);
  w->ev_order = wt_mem_alloc((nevents + 1) * sizeof *w->ev_order);
  w->stack_of = wt_mem_calloc(nodes, sizeof *w->stack_of);
  uint32_t **tables[] = {&w->stack_frame, &w->stack_prefix, &w->frame_id, &w->frame_func, &w->frame_cat,
                         &w->func_name};
  int ok = w->order && w->ev_order && w->stack_of;
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) ok &= (*tables[i] = wt_mem_alloc(nodes * sizeof(uint32_t))) != NULL;
  if (!ok || !wt_u32map_init(&w->frame_of, 2 * (uint32_t)nodes, 1) ||
      !wt_u32map_init(&w->func_of, 2 * (uint32_t)nodes, 1))
    return 0;
  /* Samples grouped by thread (counting sort keeps each thread's order). */
  for (size_t i = 0; i < nsamples; i++) {
    uint32_t node = sample_node(f, (uint32_t)((f->samples.head + i) % f->samples.cap));
    w->first[(node ? v->nodes[node - 1].thread : 0) + 1]++;
  }
  for (int t = 0; t < WT_MAX_THREADS; t++) w->first[t + 1] += w->first[t];
  uint32_t pos[WT_MAX_THREADS];
  memcpy(pos, w->first, sizeof pos);
  for (size_t i = 0; i < nsamples; i++) {
    uint32_t at = (uint32_t)((f->samples.head + i) % f->samples.cap);
    uint32_t node = sample_node(f, at);
    w->order[pos[node ? v->nodes[node - 1].thread : 0]++] = at;
  }
  for (uint32_t i = 0; i < nevents; i++) w->ev_order[i] = i;
  sort_state = f;
  qsort(w->ev_order, nevents, sizeof *w->ev_order, cmp_event_index);
  return 1;
}

static void writer_free(ff_writer *w) {
  void *p[] = {w->order, w->ev_order, w->stack_of, w->stack_frame, w->stack_prefix,
               w->frame_id, w->frame_func, w->frame_cat, w->func_name};
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) wt_mem_free(p[i]);
  wt_u32map_free(&w->frame_of);
  wt_u32map_free(&w->func_of);
  wt_strtab_free(&w->strings);
}

static wt_status write_profile(const wt_encode_view *v, const ff_state *f, wt_json *j, wt_encode_tally *t) {
  ff_writer w;
  if (!writer_init(&w, v, f, j)) {
    /* No memory for the tables: still a valid profile, with its settings
     * and stats and no threads or counters; the stats say so. */
    writer_free(&w);
    t->alloc_failures++;
    t->lost = "out of memory while writing: the profile's threads, samples, markers and counters are "
              "not in this file";
    memset(&w, 0, sizeof w);
    w.v = v;
    w.f = f;
    w.j = j;
    w.ncats = FIXED_CATEGORIES;
    write_meta(&w, t);
    wt_json_lit(j, "\"threads\":[],\n\"counters\":[],\n\"shared\":{\"stringArray\":[]}}\n");
    return WT_OK;
  }
  write_meta(&w, t);
  wt_json_lit(j, "\"threads\":[");
  int first = 1;
  for (uint32_t slot = 0; slot < v->nthreads; slot++)
    if (v->threads[slot].seen) write_thread(&w, (uint16_t)slot, &first);
  wt_json_lit(j, "],\n\"counters\":[");
  write_counters(&w);
  /* The string table last: every table above has added to it. */
  wt_json_lit(j, "],\n\"shared\":{\"stringArray\":[");
  for (uint32_t i = 0; i < w.strings.count; i++) {
    if (i) wt_json_lit(j, ",");
    wt_json_string(j, w.strings.str[i]);
  }
  wt_json_lit(j, "]}}\n");
  if (w.oom) {
    t->alloc_failures++;
    t->lost = "out of memory while writing: some names or counters are missing";
  }
  writer_free(&w);
  return WT_OK;
}

static wt_status ff_step(void **state, const wt_encode_view *v, wt_json *j, wt_encode_tally *t) {
  ff_state *f = *state;
  if (!f) {
    if (!(f = *state = wt_mem_calloc(1, sizeof *f))) {
      t->alloc_failures++;
      return WT_ERR_NO_MEMORY;
    }
    wt_ring_init(&f->samples, SAMPLE_ENTRY);
    wt_ring_init(&f->events, sizeof(wt_event_rec));
    f->epoch_ms = wt_encoder_firefox_epoch_ms_for_testing >= 0
                      ? wt_encoder_firefox_epoch_ms_for_testing
                      : session_epoch_ms(v->start_us, wt_platform_now_us());
  }
  retain_batch(f, v, t);
  return v->final ? write_profile(v, f, j, t) : WT_OK;
}

static void ff_free(void *state) {
  ff_state *f = state;
  if (!f) return;
  wt_ring_free(&f->samples);
  wt_ring_free(&f->events);
  wt_mem_free(f);
}

const wt_encoder wt_encoder_firefox = {.name = "firefox", .state_bytes = sizeof(ff_state),
                                       .retain_samples_pct = 75, .retain_events_pct = 75,
                                       .step = ff_step, .free = ff_free};
