/* Chrome Trace Event encoder (JSON array format, so that a file cut short
 * after a flush point still opens: readers accept a missing closing ']').
 *
 * Per thread: thread_name/thread_sort_index metadata, a "Profile" event and
 * "ProfileChunk" events carrying a cpuProfile (nodes/samples/timeDeltas;
 * DevTools and speedscope read CPU samples only from these), scopes as "X"
 * events, and at the end one "X" event spanning the sampled time (DevTools
 * gives a thread a track only if it has an X/B/E/I event).
 *
 * Memory kept between steps: a small record per possible thread (its
 * fixed state, declared as state_bytes) and one bit per call-tree node of
 * capacity (written to the trace already; declared as bits_per_node). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encoder.h"
#include "fmt.h"
#include "mem.h"
#include "strtab.h"

/* What this encoder remembers of a thread between steps: 32 bytes, for
 * each of WT_MAX_THREADS slots. */
typedef struct ch_thread {
  double span_lo, span_hi; /* earliest begin / latest end of its X events (valid if has_span) */
  int64_t prev_sample_us;  /* for timeDeltas */
  uint32_t announced_hash; /* wt_str_hash of the name it was announced with */
  uint8_t has_span, announced, profile_started;
} ch_thread;

typedef struct ch_state {
  int header_written;
  uint8_t *emitted; /* bit per node id - 1: its cpuProfile node was written */
  uint32_t emitted_cap; /* node ids the bitmap covers */
  ch_thread threads[WT_MAX_THREADS];
} ch_state;

/* A thread renamed after it was announced gets a second thread_name event
 * at the end; a hash (wt_str_hash, FNV-1a) tells the names apart without
 * keeping a copy of each: two names that collide would only miss that
 * second event. */

/* One step's context. */
typedef struct ch_writer {
  ch_state *c;
  const wt_encode_view *v;
  wt_json *j;
  wt_encode_tally *t;
} ch_writer;

static void event_start(ch_writer *w) {
  wt_json_lit(w->j, w->c->header_written ? ",\n" : "[\n");
  w->c->header_written = 1;
}

static int64_t us_int(double us) { return (int64_t)llround(us); }

/* Opens a metadata event of the process (tid 0) or a thread, up to "args":{. */
static void metadata_start(ch_writer *w, const char *name, uint64_t tid) {
  event_start(w);
  wt_json_lit(w->j, "{\"ph\":\"M\",\"cat\":\"__metadata\",\"name\":\"");
  wt_json_lit(w->j, name);
  wt_json_lit(w->j, "\",\"pid\":1,\"tid\":");
  wt_json_u64(w->j, tid);
  wt_json_lit(w->j, ",\"ts\":0,\"args\":{");
}

static void write_thread_name(ch_writer *w, uint16_t slot, const char *name) {
  metadata_start(w, "thread_name", slot + 1u);
  wt_json_lit(w->j, "\"name\":");
  wt_json_string(w->j, name);
  wt_json_lit(w->j, "}}");
}

static void announce(ch_writer *w, uint16_t slot) {
  ch_thread *ct = &w->c->threads[slot];
  if (ct->announced) return;
  ct->announced = 1;
  char name[WT_THREAD_NAME_MAX];
  if (slot < w->v->nthreads && w->v->threads[slot].seen)
    memcpy(name, w->v->threads[slot].name, sizeof name);
  else
    wt_snprintf(name, sizeof name, "thread %u", (unsigned)slot);
  ct->announced_hash = wt_str_hash(name);
  write_thread_name(w, slot, name);
  metadata_start(w, "thread_sort_index", slot + 1u);
  wt_json_lit(w->j, "\"sort_index\":");
  wt_json_u64(w->j, slot);
  wt_json_lit(w->j, "}}");
}

static void write_header(ch_writer *w) {
  metadata_start(w, "process_name", 0);
  char name[WT_NAME_MAX + 32];
  wt_snprintf(name, sizeof name, "wasmtrace: %s", w->v->config->name);
  wt_json_lit(w->j, "\"name\":");
  wt_json_string(w->j, name);
  wt_json_lit(w->j, "}}");
  metadata_start(w, "wasmtrace_session", 0);
  wt_encode_write_session(w->v, w->j);
  wt_json_lit(w->j, "}}");
}

/* A growth of the wasm memory (WT_REC_GROW): an instant on the thread
 * that grew it, its sizes and its stack (outermost first, ';'-separated,
 * as folded lines write them) in args, which Perfetto and DevTools show. */
static void write_grow(ch_writer *w, const wt_event_rec *r) {
  wt_json *j = w->j;
  announce(w, r->thread);
  event_start(w);
  wt_json_lit(j, "{\"ph\":\"I\",\"s\":\"t\",\"cat\":");
  wt_json_string(j, wt_registry_category_name(r->cat));
  wt_json_lit(j, ",\"name\":\"" WT_GROW_EVENT_NAME "\",\"pid\":1,\"tid\":");
  wt_json_u64(j, r->thread + 1u);
  wt_json_lit(j, ",\"ts\":");
  wt_json_double3(j, r->ts_us);
  wt_json_lit(j, ",\"args\":{\"fromBytes\":");
  wt_json_u64(j, (uint64_t)r->heap.addr * 65536);
  wt_json_lit(j, ",\"toBytes\":");
  wt_json_u64(j, (uint64_t)r->heap.bytes * 65536);
  wt_json_lit(j, ",\"stack\":");
  uint32_t buf[WT_NODE_CHAIN_MAX];
  int n = 0;
  const uint32_t *chain = r->id ? wt_node_chain(w->v, r->id, 1, NULL, NULL, buf, &n, NULL) : buf;
  char text[4096];
  size_t len = 0;
  for (int i = 0; i < n && len < sizeof text - 1; i++) {
    int k = wt_snprintf(text + len, sizeof text - len, "%s%s", i ? ";" : "",
                        wt_encode_frame_name(w->v->nodes[chain[i] - 1].frame));
    if (k < 0) break;
    len += (size_t)k < sizeof text - len ? (size_t)k : sizeof text - 1 - len; /* cut at the buffer */
  }
  text[len] = '\0';
  wt_json_string(j, text);
  wt_json_lit(j, "}}");
  w->t->events_written++;
}

/* Scopes become X events, instants I events, counters C events. */
static void write_event(ch_writer *w, const wt_event_rec *r) {
  wt_json *j = w->j;
  int kind = WT_REC_KIND(r->kind);
  if (kind == WT_REC_GROW) {
    write_grow(w, r);
    return;
  }
  if (r->thread != WT_PROCESS_THREAD) announce(w, r->thread);
  event_start(w);
  wt_json_lit(j, kind == WT_REC_SCOPE     ? "{\"ph\":\"X\",\"cat\":"
                 : kind == WT_REC_INSTANT ? "{\"ph\":\"I\",\"s\":\"t\",\"cat\":"
                                          : "{\"ph\":\"C\",\"cat\":");
  wt_json_string(j, wt_registry_category_name(r->cat));
  wt_json_lit(j, ",\"name\":");
  wt_json_string(j, wt_encode_frame_name(r->id));
  wt_json_lit(j, ",\"pid\":1,\"tid\":");
  wt_json_u64(j, r->thread == WT_PROCESS_THREAD ? 0u : r->thread + 1u);
  wt_json_lit(j, ",\"ts\":");
  wt_json_double3(j, r->ts_us);
  if (kind == WT_REC_SCOPE) {
    wt_json_lit(j, ",\"dur\":");
    wt_json_double3(j, r->value - r->ts_us);
    if (r->kind & WT_REC_UNFINISHED) wt_json_lit(j, ",\"args\":{\"unfinished\":true}");
    ch_thread *ct = &w->c->threads[r->thread];
    if (!ct->has_span || r->ts_us < ct->span_lo) ct->span_lo = r->ts_us;
    if (!ct->has_span || r->value > ct->span_hi) ct->span_hi = r->value;
    ct->has_span = 1;
  } else if (kind == WT_REC_COUNTER) {
    wt_json_lit(j, ",\"args\":{\"value\":");
    char num[40];
    wt_fmt_double(num, sizeof num, r->value, 17);
    wt_json_lit(j, num);
    wt_json_lit(j, "}");
  }
  wt_json_lit(j, "}");
  w->t->events_written++;
}

static int emitted(const void *ctx, uint32_t id) {
  const ch_state *c = ctx;
  uint32_t bit = id - 1;
  return bit < c->emitted_cap && (c->emitted[bit >> 3] >> (bit & 7) & 1);
}

/* Writes the not-yet-written ancestors of `id` and `id` itself, parents
 * first. *first tracks the comma in the enclosing array. */
static void emit_node_path(ch_writer *w, uint32_t id, int *first) {
  uint32_t buf[WT_NODE_CHAIN_MAX];
  int n;
  const uint32_t *chain = wt_node_chain(w->v, id, 0, emitted, w->c, buf, &n, NULL);
  for (int i = 0; i < n; i++) {
    const wt_node *node = &w->v->nodes[chain[i] - 1];
    if (!*first) wt_json_lit(w->j, ",");
    *first = 0;
    wt_json_lit(w->j, "{\"id\":");
    wt_json_u64(w->j, chain[i]);
    if (node->parent) {
      wt_json_lit(w->j, ",\"parent\":");
      wt_json_u64(w->j, node->parent);
    }
    wt_json_lit(w->j, ",\"callFrame\":{\"functionName\":");
    wt_json_string(w->j, wt_encode_frame_name(node->frame));
    wt_json_lit(w->j, ",\"scriptId\":0,\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1}}");
    uint32_t bit = chain[i] - 1;
    if (bit < w->c->emitted_cap) w->c->emitted[bit >> 3] |= (uint8_t)(1u << (bit & 7));
  }
}

/* Opens a Profile or ProfileChunk event of a thread's profile (id = tid),
 * up to and including its "ts". */
static void profile_event_start(ch_writer *w, const char *name, uint16_t slot, int64_t ts) {
  wt_json *j = w->j;
  event_start(w);
  wt_json_lit(j, "{\"ph\":\"P\",\"cat\":\"disabled-by-default-v8.cpu_profiler\",\"name\":\"");
  wt_json_lit(j, name);
  wt_json_lit(j, "\",\"id\":\"0x");
  char hex[16];
  wt_snprintf(hex, sizeof hex, "%x", slot + 1u);
  wt_json_lit(j, hex);
  wt_json_lit(j, "\",\"pid\":1,\"tid\":");
  wt_json_u64(j, slot + 1u);
  wt_json_lit(j, ",\"ts\":");
  wt_json_i64(j, ts);
}

/* One ProfileChunk for the samples of `slot` listed in idx[0..n). */
static void write_chunk(ch_writer *w, uint16_t slot, const uint32_t *idx, size_t n) {
  wt_json *j = w->j;
  const wt_sample *samples = w->v->samples;
  ch_thread *ct = &w->c->threads[slot];
  announce(w, slot);
  int64_t first_us = us_int(samples[idx[0]].ts_us);
  if (!ct->profile_started) {
    ct->profile_started = 1;
    ct->prev_sample_us = first_us;
    profile_event_start(w, "Profile", slot, first_us);
    wt_json_lit(j, ",\"args\":{\"data\":{\"startTime\":");
    wt_json_i64(j, first_us);
    wt_json_lit(j, "}}}");
  }
  profile_event_start(w, "ProfileChunk", slot, us_int(samples[idx[n - 1]].ts_us));
  wt_json_lit(j, ",\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[");
  int firstnode = 1;
  for (size_t i = 0; i < n; i++) emit_node_path(w, samples[idx[i]].node, &firstnode);
  wt_json_lit(j, "],\"samples\":[");
  for (size_t i = 0; i < n; i++) {
    if (i) wt_json_lit(j, ",");
    wt_json_u64(j, samples[idx[i]].node);
  }
  wt_json_lit(j, "]},\"timeDeltas\":[");
  for (size_t i = 0; i < n; i++) {
    int64_t t = us_int(samples[idx[i]].ts_us);
    if (i) wt_json_lit(j, ",");
    wt_json_i64(j, t - ct->prev_sample_us);
    ct->prev_sample_us = t;
  }
  wt_json_lit(j, "]}}}");
}

/* The recorders' spans (recorder.h: the startup timeline's, the main
 * thread's long tasks) on tracks of their own, named after the set
 * ("Startup", "Startup 2", ..., "Long tasks (main thread)") above the app's
 * threads: spans as X events of the set's category (lanes keep them from
 * overlapping, which DevTools would not draw), instants as I events, notes
 * as I events named "note" with the sentence in args.text. Never on an
 * app thread's own track: DevTools drops an X that begins inside another
 * and ends after it, and a scope of the app's may begin inside a task and
 * end in a later one. Their tids are far above any thread's, WT_SPAN_LANES
 * apart per set. */
#define SPAN_TID_BASE 100000u
static void write_spans(ch_writer *w, const wt_span_set *set, unsigned tid_base, int sort_base) {
  wt_json *j = w->j;
  for (int l = 0; l < set->nlanes; l++) {
    char name[WT_NAME_MAX + 16], sort[32];
    if (l) wt_snprintf(name, sizeof name, "%s %d", set->track, l + 1);
    else wt_snprintf(name, sizeof name, "%s", set->track);
    metadata_start(w, "thread_name", tid_base + (unsigned)l);
    wt_json_lit(j, "\"name\":");
    wt_json_string(j, name);
    wt_json_lit(j, "}}");
    metadata_start(w, "thread_sort_index", tid_base + (unsigned)l);
    wt_snprintf(sort, sizeof sort, "\"sort_index\":%d}}", sort_base + l);
    wt_json_lit(j, sort);
  }
  for (size_t k = 0; k < set->n; k++) {
    wt_span p;
    if (!set->get(set, k, &p)) continue;
    event_start(w);
    wt_json_lit(j, p.kind == WT_SPAN_SPAN ? "{\"ph\":\"X\",\"cat\":" : "{\"ph\":\"I\",\"s\":\"t\",\"cat\":");
    wt_json_string(j, set->category);
    wt_json_lit(j, ",\"name\":");
    wt_json_string(j, p.kind == WT_SPAN_NOTE ? "note" : p.name);
    wt_json_lit(j, ",\"pid\":1,\"tid\":");
    wt_json_u64(j, tid_base + p.lane);
    wt_json_lit(j, ",\"ts\":");
    wt_json_double3(j, p.begin_us);
    if (p.kind == WT_SPAN_SPAN) {
      wt_json_lit(j, ",\"dur\":");
      wt_json_double3(j, p.end_us - p.begin_us);
    }
    if (p.kind == WT_SPAN_NOTE) {
      wt_json_lit(j, ",\"args\":{\"text\":");
      wt_json_string(j, p.name);
      wt_json_lit(j, "}");
    } else if (p.bytes >= 0) {
      wt_json_lit(j, ",\"args\":{\"bytes\":");
      wt_json_u64(j, (uint64_t)p.bytes);
      wt_json_lit(j, "}");
    }
    wt_json_lit(j, "}");
  }
}

static void write_footer(ch_writer *w) {
  wt_json *j = w->j;
  for (size_t i = 0; i < w->v->nspans; i++)
    write_spans(w, &w->v->spans[i], SPAN_TID_BASE + (unsigned)i * WT_SPAN_LANES, (int)i * WT_SPAN_LANES - 100);
  for (uint32_t slot = 0; slot < w->v->nthreads; slot++) {
    const wt_session_thread *st = &w->v->threads[slot];
    const ch_thread *ct = &w->c->threads[slot];
    if (!st->seen) continue;
    announce(w, (uint16_t)slot);
    if (wt_str_hash(st->name) != ct->announced_hash) write_thread_name(w, (uint16_t)slot, st->name);
    if (!st->root) continue;
    event_start(w);
    wt_json_lit(j, "{\"ph\":\"X\",\"cat\":\"wasmtrace\",\"name\":\"wasmtrace: sampled\",\"pid\":1,\"tid\":");
    wt_json_u64(j, slot + 1u);
    /* Enclose every other X of the thread: DevTools (treify) drops an
     * event that starts inside another and ends after it. */
    double lo = us_int(st->first_us), hi = us_int(st->last_us);
    if (ct->has_span && ct->span_lo < lo) lo = ct->span_lo;
    if (ct->has_span && ct->span_hi > hi) hi = ct->span_hi;
    wt_json_lit(j, ",\"ts\":");
    wt_json_double3(j, lo);
    wt_json_lit(j, ",\"dur\":");
    wt_json_double3(j, hi - lo);
    wt_json_lit(j, "}");
  }
  metadata_start(w, "wasmtrace_stats", 0);
  wt_encode_write_stats(w->v, w->t, j);
  wt_json_lit(j, "}}\n]\n");
}

/* Sizes the emitted bitmap to the call tree's capacity: one bit per node
 * (id - 1), what bits_per_node declares. */
static int cover_nodes(ch_state *c, const wt_encode_view *v, wt_encode_tally *t) {
  if (v->node_cap <= c->emitted_cap) return 1;
  size_t old_bytes = ((size_t)c->emitted_cap + 7) / 8, bytes = ((size_t)v->node_cap + 7) / 8;
  uint8_t *bits = wt_mem_realloc(c->emitted, bytes);
  if (!bits) return 0;
  memset(bits + old_bytes, 0, bytes - old_bytes);
  c->emitted = bits;
  c->emitted_cap = v->node_cap;
  t->retained_bytes = bytes;
  return 1;
}

static wt_status chrome_step(void **state, const wt_encode_view *v, wt_json *j, wt_encode_tally *t) {
  if (!*state) *state = wt_mem_calloc(1, sizeof(ch_state));
  ch_writer w = {*state, v, j, t};
  if (!w.c) {
    t->alloc_failures++;
    return WT_ERR_NO_MEMORY;
  }
  /* Without a bit per node, the batch's nodes could be written twice:
   * its samples are dropped (counted), the rest is written. */
  int covered = cover_nodes(w.c, v, t);
  if (!covered) {
    t->alloc_failures++;
    t->samples_dropped = v->nsamples;
  }
  if (!w.c->header_written) write_header(&w);
  /* Events first: each is complete, order does not matter to readers. */
  for (size_t i = 0; i < v->nevents; i++) write_event(&w, wt_ring_at(v->events, i));
  for (uint32_t slot = 0; slot < WT_MAX_THREADS && covered; slot++) {
    uint32_t lo = v->group[slot], hi = v->group[slot + 1];
    if (hi > lo) write_chunk(&w, (uint16_t)slot, v->order + lo, hi - lo);
  }
  if (v->final) write_footer(&w);
  return WT_OK;
}

static void chrome_free(void *state) {
  ch_state *c = state;
  if (c) wt_mem_free(c->emitted);
  wt_mem_free(c);
}

const wt_encoder wt_encoder_chrome = {
    .name = "chrome", .state_bytes = sizeof(ch_state), .bits_per_node = 1, .step = chrome_step, .free = chrome_free};
