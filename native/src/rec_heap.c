/* The heap recorder (recorder.h): a session's sampled allocations, their
 * frees and the wasm memory's growth, from the allocator shim's queue
 * (heap.h), with the session's estimates of its live, peak and allocated
 * bytes, its two counters and its "heap" member of the stats record. The
 * firefox encoder writes the allocations as the profile's allocation
 * tables; the chrome and folded formats carry the estimates. */
#include <stdatomic.h>

#include "config_read.h"
#include "fmt.h"
#include "heap.h"
#include "platform.h"
#include "recorders.h"
#include "registry.h"
#include "session.h"

/* Per session: its estimates (read by anyone through the snapshot) and the
 * first queue position it takes (worker). */
typedef struct heap_state {
  _Atomic uint64_t allocs, frees, live, peak, total;
  uint32_t from_pos;
} heap_state;
_Static_assert(sizeof(heap_state) <= WT_RECORDER_STATE_MAX, "heap_state must fit the recorder's state");

/* Its figures in the stats snapshot. */
enum { FIG_ALLOCS, FIG_FREES, FIG_LIVE, FIG_PEAK, FIG_TOTAL };

const wt_recorder wt_recorder_heap;

static uint32_t grow_cat;       /* the memory growth events' category ("heap") */
static uint32_t counter_cat;    /* its counters' category ("wasmtrace", as the built-in ones) */
static uint32_t counter_ids[2]; /* "heap live bytes (sampled)", "heap allocated bytes (sampled)" */
static uint32_t interval_was;   /* the shim's interval before the worker read its table (worker) */

static void init(void) {
  grow_cat = wt_registry_intern_category("heap");
  counter_cat = wt_registry_intern_category("wasmtrace");
  counter_ids[0] = wt_registry_intern("heap live bytes (sampled)");
  counter_ids[1] = wt_registry_intern("heap allocated bytes (sampled)");
}

/* Its settings (config "heap"): the mean bytes between samples; 0: off. */
enum { OPT_SAMPLE_BYTES };
#define DEFAULT_SAMPLE_BYTES 524288u /* "heap": {} samples every 512 KiB on average */

static uint32_t sample_bytes(const wt_session_config *c) {
  return wt_recorder_options(c, &wt_recorder_heap)[OPT_SAMPLE_BYTES];
}

static int wanted(const wt_session_config *c) { return sample_bytes(c) != 0; }

/* "heap": {"enabled", "sampleBytes"}; present: on, at 512 KiB unless it
 * says otherwise. */
static int read_key(const cJSON *v, const char *path, uint32_t options[WT_RECORDER_OPTIONS],
                    const wt_cfg_ctx *ctx, char *err, size_t cap) {
  int on = 1;
  uint32_t bytes = DEFAULT_SAMPLE_BYTES;
  if (!wt_config_read_switch(v, path, "heap", "sampleBytes", 1, 1u << 30, &on, &bytes, ctx, err, cap)) return 0;
  options[OPT_SAMPLE_BYTES] = on ? bytes : 0;
  return 1;
}
static const wt_config_key keys[] = {{"heap", read_key}, {NULL, NULL}};

/* A session asked for "heap" and gets nothing: said once per page (the
 * session's stats say it too: "linked": false or "unavailable"). */
static void note_unavailable(const char *session) {
  static atomic_int said;
  if (atomic_exchange_explicit(&said, 1, memory_order_relaxed)) return;
  char line[WT_NAME_MAX + 400];
  if (!wt_heap_linked())
    wt_snprintf(line, sizeof line,
                "session '%s' asks for \"heap\", but the app was not linked with the allocator shim: no allocation "
                "is recorded. Link it (CMake: wasmtrace_heap(app); plain emcc: libwasmtrace_heap.a before libwasmtrace.a, "
                "-Wl,--wrap=realloc,--wrap=sbrk,--wrap=emscripten_resize_heap -Wl,--undefined=__wrap_realloc; docs/GUIDE.md, \"Where the memory went\")",
                session);
  else
    wt_snprintf(line, sizeof line,
                "session '%s' asks for \"heap\", but the wasm heap had no room for the sampler's queue and address "
                "set (about 2 MiB): no allocation is recorded",
                session);
  wt_platform_log_error(line);
}

/* A heap session in an app linked with the shim's flags of before (no
 * -Wl,--wrap=emscripten_resize_heap): said once per page. */
static void note_grow_unwrapped(const char *session) {
  static atomic_int said;
  if (atomic_exchange_explicit(&said, 1, memory_order_relaxed)) return;
  char line[WT_NAME_MAX + 400];
  wt_snprintf(line, sizeof line,
              "session '%s': the app was linked without -Wl,--wrap=emscripten_resize_heap (wasmtrace's earlier "
              "heap flags): where the wasm memory grows is marked only when dlmalloc grows it. Relink "
              "(CMake: wasmtrace_heap(app) adds it; plain emcc: -Wl,--wrap=realloc,--wrap=sbrk,--wrap="
              "emscripten_resize_heap)",
              session);
  wt_platform_log_error(line);
}

/* After the session is in the table (heap.h: the worker may only raise the
 * interval from a value it read before its table). */
static void created(wt_session *s, void *state) {
  (void)state;
  if (!wt_heap_request(sample_bytes(&s->config)))
    note_unavailable(s->config.name);
  else if (!wt_heap_grow_wrapped())
    note_grow_unwrapped(s->config.name);
}

static void adopted(wt_session *s, void *state, double now) {
  (void)s;
  (void)now;
  ((heap_state *)state)->from_pos = wt_heap_drain_position();
}

/* A sampled allocation or its free that the session takes: its estimates,
 * and for the firefox format the allocation with its stack as a node of
 * the call tree (WT_REC_ALLOC) or its free (WT_REC_FREE); a growth of the
 * wasm memory (WT_REC_GROW) with its stack for chrome and firefox. */
static void record(wt_session *s, heap_state *h, const wt_heap_entry *e) {
  wt_event_rec rec = {.ts_us = e->ts_us, .heap = {.addr = e->addr, .bytes = e->bytes}, .thread = e->slot};
  if (e->kind == WT_HEAP_GROW) {
    if (s->config.format == WT_FORMAT_FOLDED) return; /* no place for an event */
    rec.heap.bytes = e->size; /* pages before in addr, after in bytes */
    rec.kind = WT_REC_GROW;
    rec.cat = (uint8_t)grow_cat;
    wt_session_record_stack_event(s, rec, e->slot, e->frames, e->depth, e->truncated);
    return;
  }
  uint64_t live = atomic_load_explicit(&h->live, memory_order_relaxed);
  if (e->kind == WT_HEAP_ALLOC) {
    atomic_fetch_add_explicit(&h->allocs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->total, e->bytes, memory_order_relaxed);
    live += e->bytes;
    if (live > atomic_load_explicit(&h->peak, memory_order_relaxed))
      atomic_store_explicit(&h->peak, live, memory_order_relaxed);
  } else {
    atomic_fetch_add_explicit(&h->frees, 1, memory_order_relaxed);
    live = live > e->bytes ? live - e->bytes : 0;
  }
  atomic_store_explicit(&h->live, live, memory_order_relaxed);
  if (s->config.format != WT_FORMAT_FIREFOX) return; /* the others write the estimates */
  if (e->kind == WT_HEAP_ALLOC) {
    rec.kind = WT_REC_ALLOC;
    rec.cat = (uint8_t)e->slot;
    wt_session_record_stack_event(s, rec, e->slot, e->frames, e->depth, e->truncated);
  } else {
    rec.kind = WT_REC_FREE;
    rec.cat = (uint8_t)(e->free_slot < WT_MAX_THREADS ? e->free_slot : e->slot);
    wt_session_record_event(s, &rec);
  }
}

typedef struct table {
  wt_session *const *sessions;
  int n;
} table;

/* Gives a sampled allocation to every running session that samples the
 * heap and started before it, and its free to those that took the
 * allocation. */
static void dispatch(const wt_heap_entry *e, void *ctx) {
  const table *t = ctx;
  for (int i = 0; i < t->n; i++) {
    wt_session *s = t->sessions[i];
    heap_state *h = wt_session_running(s) ? wt_recorder_state(s, &wt_recorder_heap) : NULL;
    /* An allocation drained before the session ran is not its own, nor is
     * its free: positions, not times, say which (heap.h). */
    if (!h || e->alloc_ts_us < s->start_us || (int32_t)(e->alloc_pos - h->from_pos) < 0) continue;
    /* Growth events are of category "heap" (the counters and allocations
     * come with the "heap" key itself). */
    if (e->kind == WT_HEAP_GROW && !((atomic_load_explicit(&s->cat_mask, memory_order_relaxed) >> grow_cat) & 1))
      continue;
    record(s, h, e);
  }
}

/* Before the table: a session added after this read lowered it, and the
 * CAS in step then fails (heap.h). */
static void before_table(void) { interval_was = wt_heap_interval(); }

/* Samples the heap at the smallest interval the live sessions ask for (0:
 * none does), and moves the shim's queue into the sessions. */
static void step(wt_session *const *sessions, int n) {
  uint32_t want = 0;
  for (int i = 0; i < n; i++) {
    wt_session *s = sessions[i];
    int st = s ? atomic_load_explicit(&s->state, memory_order_acquire) : -1;
    uint32_t b = s ? sample_bytes(&s->config) : 0;
    if ((st == WT_SESSION_STARTING || st == WT_SESSION_RUNNING) && b && (!want || b < want)) want = b;
  }
  if (want != interval_was) wt_heap_set_interval(want, interval_was);
  table t = {sessions, n};
  wt_heap_drain(dispatch, &t);
  /* The address set grows while the shim's blocks fill it (heap.h). */
  if (want) wt_heap_grow();
}

static void flush(wt_session *const *sessions, int n) {
  table t = {sessions, n};
  wt_heap_drain(dispatch, &t);
}

/* Its counters: the session's own estimates. */
static void counters(wt_session *s, void *state, double now) {
  const heap_state *h = state;
  const double values[2] = {(double)atomic_load_explicit(&h->live, memory_order_relaxed),
                            (double)atomic_load_explicit(&h->total, memory_order_relaxed)};
  for (int i = 0; i < 2; i++) {
    wt_event_rec rec = {.ts_us = now, .value = values[i], .id = counter_ids[i], .thread = WT_PROCESS_THREAD,
                        .kind = WT_REC_COUNTER, .cat = (uint8_t)counter_cat};
    wt_session_record_event(s, &rec);
  }
}

static void snapshot(const wt_session *s, const void *state, uint64_t out[WT_RECORDER_STATS_MAX]) {
  (void)s;
  const heap_state *h = state;
  out[FIG_ALLOCS] = atomic_load(&h->allocs);
  out[FIG_FREES] = atomic_load(&h->frees);
  out[FIG_LIVE] = atomic_load(&h->live);
  out[FIG_PEAK] = atomic_load(&h->peak);
  out[FIG_TOTAL] = atomic_load(&h->total);
}

/* Its members are the trace paths of stats_list.h (tests/node/counters.test.mjs
 * checks the golden traces against the list). */
typedef struct member {
  const char *key;
  uint64_t value;
} member;

/* ,"key":value for each member (the first without its comma when `first`). */
static void write_members(wt_json *j, const member *f, size_t n, int first) {
  for (size_t i = 0; i < n; i++) {
    wt_json_lit(j, first && i == 0 ? "\"" : ",\"");
    wt_json_lit(j, f[i].key);
    wt_json_lit(j, "\":");
    wt_json_u64(j, f[i].value);
  }
}
#define WT_MEMBERS(j, f, first) write_members((j), (f), sizeof(f) / sizeof((f)[0]), (first))

/* "heap":{...}: the session's estimates and the process-wide drops of the
 * shim (heap.h). */
static void write_stats(const wt_encode_view *v, const uint64_t fig[WT_RECORDER_STATS_MAX], wt_json *j) {
  wt_heap_counts c;
  wt_heap_counts_get(&c);
  wt_json_lit(j, ",\"heap\":{\"sampleBytes\":");
  wt_json_u64(j, sample_bytes(v->config));
  wt_json_lit(j, ",\"linked\":");
  wt_json_lit(j, c.linked ? "true" : "false");
  if (c.unavailable) wt_json_lit(j, ",\"unavailable\":\"out of memory for its queue and address set\"");
  const member session[] = {{"allocations", fig[FIG_ALLOCS]}, {"frees", fig[FIG_FREES]},
                            {"liveBytes", fig[FIG_LIVE]},     {"peakBytes", fig[FIG_PEAK]},
                            {"allocatedBytes", fig[FIG_TOTAL]}};
  WT_MEMBERS(j, session, 0);
  /* Process-wide, since the page started: a drop belongs to no session.
   * "bytes": what the dropped samples stood for (the readers say by how
   * much a figure may be low). */
  const member dropped[] = {{"queueFull", c.queue_full},
                            {"setFull", c.set_full},
                            {"freesLost", c.frees_lost},
                            {"bytes", c.dropped_bytes}};
  wt_json_lit(j, ",\"dropped\":{");
  WT_MEMBERS(j, dropped, 1);
  const member set[] = {{"tables", c.set_tables}, {"slots", c.set_slots}};
  wt_json_lit(j, "},\"addressSet\":{");
  WT_MEMBERS(j, set, 1);
  const member unattributed[] = {{"allocations", c.no_thread}, {"bytes", c.no_thread_bytes}};
  wt_json_lit(j, "},\"withoutThread\":{");
  WT_MEMBERS(j, unattributed, 1);
  wt_json_lit(j, "}}");
}

/* Its allocations and frees wait with the events, in bursts (a loop of
 * small blocks) between encode steps: 20 % of the session's memory moves
 * there from the samples. */
const wt_recorder wt_recorder_heap = {
    .name = "heap",
    .keys = keys,
    .record_kinds = 1u << WT_REC_ALLOC | 1u << WT_REC_FREE | 1u << WT_REC_GROW,
    .init = init,
    .wanted = wanted,
    .events_share_pct = 20,
    .created = created,
    .adopted = adopted,
    .before_table = before_table,
    .step = step,
    .flush = flush,
    .counters = counters,
    .snapshot = snapshot,
    .write_stats = write_stats,
};
