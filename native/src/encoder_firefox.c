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
 *     out, "(idle)" samples have a one-frame stack in the "Idle" category;
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
 *     wasmtrace_stats, for scripts).
 * Times are milliseconds since the session started (meta.startTime is that
 * moment as Unix-epoch milliseconds).
 *
 * Memory: the format is column-oriented per thread, so nothing can be
 * written before the end. Every step moves pending samples (12 bytes each)
 * and events (24 bytes each) into retained buffers owned by this encoder;
 * at the end the file is written in one go. To keep the session inside its
 * maxBufferKB, the first step gives three quarters of the session's sample
 * and event shares to the retained buffers and leaves one quarter for the
 * pending rings (which the worker drains every 100 ms). When a retained
 * buffer is full the session's whenFull policy applies: "ring" drops the
 * oldest, "stop" the newest; dropped samples move from samplesWritten to
 * samplesDropped (bufferFull) and dropped events to events dropped. The
 * final write goes past the output share once (compressed, the whole file
 * waits for the main thread) and uses temporary tables proportional to the
 * call tree (not counted). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "platform.h"
#include "session.h"

#define PROCESSED_VERSION 57
#define FIXED_CATEGORIES 4
enum { CAT_OTHER = 0, CAT_IDLE = 1, CAT_WASM = 2, CAT_SCOPE = 3 };
/* Marker phases of the processed format. */
enum { PHASE_INSTANT = 0, PHASE_INTERVAL = 1, PHASE_INTERVAL_START = 2 };
#define NO_INDEX 0xffffffffu

typedef struct ff_state {
  /* Retained samples: a ring of (time, node). */
  double *ts;
  uint32_t *node;
  size_t head, count, cap, budget;
  /* Retained events: a ring of records. */
  wt_event_rec *ev;
  size_t ev_head, ev_count, ev_cap, ev_budget;
  uint64_t dropped_in_batch; /* samples dropped while taking a batch */
  double epoch_ms;           /* wall clock at the session's start */
} ff_state;

/* ---- wall clock ----------------------------------------------------------- */

/* Unix-epoch milliseconds of the session's start: the wall clock now, less
 * the time since the session started on the session clock. */
static double session_epoch_ms(const wt_session *s, double now_us) {
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return 0;
  double now_ms = (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
  double ms = now_ms - (now_us - s->start_us) / 1000.0;
  return ms > 0 ? floor(ms) : 0;
}

/* Tests pin meta.startTime (golden files must be byte-stable): when this is
 * >= 0 it is used instead of the wall clock. Not part of any header. */
double wt_encoder_firefox_epoch_ms_for_testing = -1;

/* ---- retained buffers ------------------------------------------------------- */

static size_t state_bytes(const ff_state *f) {
  return f->cap * (sizeof(double) + sizeof(uint32_t)) + f->ev_cap * sizeof(wt_event_rec);
}

static void note_memory(wt_session *s, const ff_state *f) {
  size_t m = wt_session_memory(s) + state_bytes(f);
  if (m > atomic_load_explicit(&s->high_water, memory_order_relaxed))
    atomic_store_explicit(&s->high_water, (uint32_t)m, memory_order_relaxed);
}

static ff_state *state_get(wt_session *s) {
  if (s->encoder_state) return s->encoder_state;
  ff_state *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  /* Three quarters of the sample and event shares (in bytes) move here. */
  size_t sample_bytes = sizeof(wt_sample) + sizeof(uint32_t);
  size_t keep_samples = s->budget_samples / 4, keep_events = s->budget_events / 4;
  f->budget = (s->budget_samples - keep_samples) * sample_bytes / (sizeof(double) + sizeof(uint32_t));
  f->ev_budget = s->budget_events - keep_events;
  s->budget_samples = keep_samples > 16 ? keep_samples : 16;
  s->budget_events = keep_events > 16 ? keep_events : 16;
  f->epoch_ms = wt_encoder_firefox_epoch_ms_for_testing >= 0
                    ? wt_encoder_firefox_epoch_ms_for_testing
                    : session_epoch_ms(s, wt_platform_now_us());
  s->encoder_state = f;
  return f;
}

static void ff_free(wt_session *s) {
  ff_state *f = s->encoder_state;
  if (!f) return;
  free(f->ts);
  free(f->node);
  free(f->ev);
  free(f);
  s->encoder_state = NULL;
}

/* Doubles a ring's capacity (up to budget), keeping order. 0 on failure. */
static int grow_samples(ff_state *f) {
  size_t cap = f->cap ? f->cap * 2 : 1024;
  if (cap > f->budget) cap = f->budget;
  if (cap <= f->cap) return 0;
  double *ts = malloc(cap * sizeof *ts);
  uint32_t *node = malloc(cap * sizeof *node);
  if (!ts || !node) {
    free(ts);
    free(node);
    return 0;
  }
  for (size_t i = 0; i < f->count; i++) {
    ts[i] = f->ts[(f->head + i) % f->cap];
    node[i] = f->node[(f->head + i) % f->cap];
  }
  free(f->ts);
  free(f->node);
  f->ts = ts;
  f->node = node;
  f->head = 0;
  f->cap = cap;
  return 1;
}

static int grow_events(ff_state *f) {
  size_t cap = f->ev_cap ? f->ev_cap * 2 : 256;
  if (cap > f->ev_budget) cap = f->ev_budget;
  if (cap <= f->ev_cap) return 0;
  wt_event_rec *ev = malloc(cap * sizeof *ev);
  if (!ev) return 0;
  for (size_t i = 0; i < f->ev_count; i++) ev[i] = f->ev[(f->ev_head + i) % f->ev_cap];
  free(f->ev);
  f->ev = ev;
  f->ev_head = 0;
  f->ev_cap = cap;
  return 1;
}

static void retain_samples(wt_session *s, uint16_t slot, const uint32_t *idx, size_t n) {
  (void)slot;
  ff_state *f = s->encoder_state;
  for (size_t i = 0; i < n; i++) {
    if (f->count == f->cap && !grow_samples(f)) {
      if (s->config.when_full != WT_FULL_RING || !f->cap) {
        f->dropped_in_batch++;
        continue;
      }
      f->head = (f->head + 1) % f->cap; /* ring: the oldest goes */
      f->count--;
      f->dropped_in_batch++;
    }
    size_t at = (f->head + f->count) % f->cap;
    f->ts[at] = s->samples[idx[i]].ts_us;
    f->node[at] = s->samples[idx[i]].node;
    f->count++;
  }
}

static void retain_event(wt_session *s, ff_state *f, const wt_event_rec *r) {
  if (f->ev_count == f->ev_cap && !grow_events(f)) {
    atomic_fetch_add_explicit(&s->events_dropped, 1, memory_order_relaxed);
    if (s->config.when_full != WT_FULL_RING || !f->ev_cap) return;
    f->ev_head = (f->ev_head + 1) % f->ev_cap;
    f->ev_count--;
  }
  f->ev[(f->ev_head + f->ev_count) % f->ev_cap] = *r;
  f->ev_count++;
}

/* ---- a small u32 -> u32 map with generations (reset per thread in O(1)) ---- */

typedef struct u32map {
  uint32_t *key, *val, *gen;
  uint32_t cap, used, cur;
} u32map;

static int map_init(u32map *m, uint32_t expected) {
  uint32_t cap = 64;
  while (cap < expected * 2 + 2) cap *= 2;
  m->key = calloc(cap, sizeof *m->key);
  m->val = calloc(cap, sizeof *m->val);
  m->gen = calloc(cap, sizeof *m->gen);
  m->cap = cap;
  m->used = 0;
  m->cur = 1;
  return m->key && m->val && m->gen;
}

static void map_free(u32map *m) {
  free(m->key);
  free(m->val);
  free(m->gen);
}

static void map_reset(u32map *m) {
  m->cur++;
  m->used = 0;
}

static uint32_t map_hash(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

/* Returns the slot of key (found or free). The map never fills: it is sized
 * for twice the most keys it can get. */
static uint32_t map_slot(const u32map *m, uint32_t key) {
  uint32_t i = map_hash(key) & (m->cap - 1);
  while (m->gen[i] == m->cur && m->key[i] != key) i = (i + 1) & (m->cap - 1);
  return i;
}

static uint32_t map_get(const u32map *m, uint32_t key) {
  uint32_t i = map_slot(m, key);
  return m->gen[i] == m->cur ? m->val[i] : NO_INDEX;
}

static void map_put(u32map *m, uint32_t key, uint32_t val) {
  uint32_t i = map_slot(m, key);
  if (m->gen[i] != m->cur) m->used++;
  m->gen[i] = m->cur;
  m->key[i] = key;
  m->val[i] = val;
}

/* ---- the string table --------------------------------------------------------- */

typedef struct strtab {
  char **str; /* copies, freed with the table */
  uint32_t count, cap;
  uint32_t *slots; /* open addressing: index + 1 */
  uint32_t nslots;
} strtab;

static uint32_t str_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static int strtab_grow(strtab *t) {
  uint32_t nslots = t->nslots ? t->nslots * 2 : 1024;
  uint32_t *slots = calloc(nslots, sizeof *slots);
  char **str = realloc(t->str, (size_t)(nslots / 2) * sizeof *str);
  if (!slots || !str) {
    free(slots);
    if (str) t->str = str;
    return 0;
  }
  t->str = str;
  for (uint32_t i = 0; i < t->count; i++) {
    uint32_t j = str_hash(str[i]) & (nslots - 1);
    while (slots[j]) j = (j + 1) & (nslots - 1);
    slots[j] = i + 1;
  }
  free(t->slots);
  t->slots = slots;
  t->nslots = nslots;
  t->cap = nslots / 2;
  return 1;
}

/* Index of s in the table, added if new; NO_INDEX if out of memory. */
static uint32_t strtab_index(strtab *t, const char *s) {
  if (t->count + 1 > t->cap && !strtab_grow(t)) return NO_INDEX;
  uint32_t j = str_hash(s) & (t->nslots - 1);
  while (t->slots[j]) {
    if (strcmp(t->str[t->slots[j] - 1], s) == 0) return t->slots[j] - 1;
    j = (j + 1) & (t->nslots - 1);
  }
  char *copy = strdup(s);
  if (!copy) return NO_INDEX;
  t->str[t->count] = copy;
  t->slots[j] = ++t->count;
  return t->count - 1;
}

static void strtab_free(strtab *t) {
  for (uint32_t i = 0; i < t->count; i++) free(t->str[i]);
  free(t->str);
  free(t->slots);
}

/* ---- writing ------------------------------------------------------------------- */

/* Everything the final write needs besides the session. */
typedef struct ff_writer {
  wt_session *s;
  ff_state *f;
  wt_json *j;
  strtab strings;
  uint32_t *order;      /* retained sample positions grouped by thread, time order */
  uint32_t first[WT_MAX_THREADS + 1]; /* order[first[t] .. first[t+1]) belong to thread t */
  uint32_t *ev_order;   /* retained event positions sorted by (thread, time) */
  uint32_t *stack_of;   /* node id -> stack index + 1 in its thread (0: none yet) */
  uint32_t *stack_frame, *stack_prefix; /* this thread's stack table */
  uint32_t *frame_func, *frame_cat;     /* this thread's frame table */
  uint32_t *func_name;                  /* this thread's func table */
  uint32_t nstacks, nframes, nfuncs;
  u32map frame_of;  /* frame id -> frame index (per thread) */
  u32map func_of;   /* name string index -> func index (per thread) */
  uint8_t marker_cat[WT_MAX_CATEGORY_NAMES]; /* wasmtrace category -> profile category, 0: unused */
  uint32_t ncats;
  int oom;
} ff_writer;

static double rel_ms(const wt_session *s, double us) { return (us - s->start_us) / 1000.0; }

static void write_ms(ff_writer *w, double us) { wt_json_double3(w->j, rel_ms(w->s, us)); }

/* The string index of a frame's (or event's) name; NO_INDEX sets oom. */
static uint32_t name_index(ff_writer *w, uint32_t frame) {
  char tmp[64];
  uint32_t i = strtab_index(&w->strings, wt_session_frame_name(frame, tmp, sizeof tmp));
  if (i == NO_INDEX) w->oom = 1;
  return i;
}

static uint32_t frame_category(uint32_t frame) {
  if (frame == WT_NODE_IDLE) return CAT_IDLE;
  if (frame == WT_NODE_ROOT || frame == WT_NODE_TRUNCATED) return CAT_OTHER;
  return (frame & WT_FRAME_SCOPE_BIT) ? CAT_SCOPE : CAT_WASM;
}

/* The stack index of node `id` in the current thread, creating it and its
 * missing ancestors; NO_INDEX for the thread's root (an empty stack). */
static uint32_t stack_for(ff_writer *w, uint32_t id) {
  const wt_node *nodes = w->s->nodes;
  uint32_t chain[WT_MAX_DEPTH + 8];
  int n = 0;
  while (id && !w->stack_of[id] && nodes[id - 1].frame != WT_NODE_ROOT &&
         n < (int)(sizeof chain / sizeof chain[0])) {
    chain[n++] = id;
    id = nodes[id - 1].parent;
  }
  uint32_t prefix = (id && w->stack_of[id]) ? w->stack_of[id] - 1 : NO_INDEX;
  while (n--) {
    uint32_t node = chain[n], frame = nodes[node - 1].frame;
    uint32_t fi = map_get(&w->frame_of, frame);
    if (fi == NO_INDEX) {
      uint32_t name = name_index(w, frame);
      if (name == NO_INDEX) return NO_INDEX;
      uint32_t fn = map_get(&w->func_of, name);
      if (fn == NO_INDEX) {
        fn = w->nfuncs++;
        w->func_name[fn] = name;
        map_put(&w->func_of, name, fn);
      }
      fi = w->nframes++;
      w->frame_func[fi] = fn;
      w->frame_cat[fi] = frame_category(frame);
      map_put(&w->frame_of, frame, fi);
    }
    uint32_t si = w->nstacks++;
    w->stack_frame[si] = fi;
    w->stack_prefix[si] = prefix;
    w->stack_of[node] = si + 1;
    prefix = si;
  }
  return prefix;
}

static void write_u32_list(ff_writer *w, const uint32_t *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) wt_json_lit(w->j, ",");
    if (v[i] == NO_INDEX) wt_json_lit(w->j, "null");
    else wt_json_u64(w->j, v[i]);
  }
}

/* "key":[lit,lit,...] with n copies of lit. */
static void write_repeat(ff_writer *w, const char *key, const char *lit, uint32_t n) {
  wt_json_lit(w->j, ",\"");
  wt_json_lit(w->j, key);
  wt_json_lit(w->j, "\":[");
  for (uint32_t i = 0; i < n; i++) {
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
  const ff_state *f = sort_state;
  const wt_event_rec *ra = &f->ev[(f->ev_head + a) % f->ev_cap];
  const wt_event_rec *rb = &f->ev[(f->ev_head + b) % f->ev_cap];
  if (ra->thread != rb->thread) return ra->thread < rb->thread ? -1 : 1;
  if (ra->ts_us != rb->ts_us) return ra->ts_us < rb->ts_us ? -1 : 1;
  return a < b ? -1 : a > b;
}

static const wt_event_rec *event_at(const ff_state *f, uint32_t i) {
  return &f->ev[(f->ev_head + i) % f->ev_cap];
}

/* The profile category of a marker of wasmtrace category `cat`. */
static uint32_t marker_category(ff_writer *w, uint32_t cat) {
  if (cat >= WT_MAX_CATEGORY_NAMES) return CAT_OTHER;
  return w->marker_cat[cat] ? w->marker_cat[cat] : CAT_OTHER;
}

static void write_markers(ff_writer *w, uint16_t slot) {
  wt_json *j = w->j;
  const ff_state *f = w->f;
  /* This thread's scopes and instants, in begin-time order. */
  uint32_t lo = 0, hi = (uint32_t)f->ev_count;
  while (lo < hi && event_at(f, w->ev_order[lo])->thread < slot) lo++;
  hi = lo;
  while (hi < f->ev_count && event_at(f, w->ev_order[hi])->thread == slot) hi++;
  uint32_t n = 0;
  for (uint32_t i = lo; i < hi; i++)
    if (WT_REC_KIND(event_at(f, w->ev_order[i])->kind) != WT_REC_COUNTER) n++;

  static const char *const cols[] = {"name", "category", "startTime", "endTime", "phase", "data"};
  wt_json_lit(j, "\"markers\":{\"length\":");
  wt_json_u64(j, n);
  for (int c = 0; c < 6; c++) {
    wt_json_lit(j, ",\"");
    wt_json_lit(j, cols[c]);
    wt_json_lit(j, "\":[");
    int first = 1;
    for (uint32_t i = lo; i < hi; i++) {
      const wt_event_rec *r = event_at(f, w->ev_order[i]);
      int kind = WT_REC_KIND(r->kind);
      if (kind == WT_REC_COUNTER) continue;
      if (!first) wt_json_lit(j, ",");
      first = 0;
      int unfinished = kind == WT_REC_SCOPE && (r->kind & WT_REC_UNFINISHED);
      switch (c) {
        case 0: wt_json_u64(j, name_index(w, r->id)); break;
        case 1: wt_json_u64(j, marker_category(w, r->cat)); break;
        case 2: write_ms(w, r->ts_us); break;
        case 3:
          if (kind == WT_REC_SCOPE && !unfinished) write_ms(w, r->value);
          else wt_json_lit(j, "null");
          break;
        case 4:
          wt_json_u64(j, kind == WT_REC_INSTANT ? PHASE_INSTANT
                         : unfinished           ? PHASE_INTERVAL_START
                                                : PHASE_INTERVAL);
          break;
        default:
          wt_json_lit(j, "{\"type\":\"wasmtrace\",\"category\":");
          wt_json_string(j, wt_registry_category_name(r->cat));
          if (unfinished) wt_json_lit(j, ",\"unfinished\":\"still open when the session stopped\"");
          wt_json_lit(j, "}");
          break;
      }
    }
    wt_json_lit(j, "]");
  }
  wt_json_lit(j, "}");
  atomic_fetch_add_explicit(&w->s->events_written, n, memory_order_relaxed);
}

static void write_thread(ff_writer *w, uint16_t slot, int *first_thread) {
  wt_session *s = w->s;
  wt_json *j = w->j;
  char name[WT_THREAD_NAME_MAX];
  wt_thread *t = wt_registry_get(slot);
  if (t) wt_registry_thread_name(t, name);
  else snprintf(name, sizeof name, "thread %u", (unsigned)slot);

  /* Build this thread's tables from its samples. */
  w->nstacks = w->nframes = w->nfuncs = 0;
  map_reset(&w->frame_of);
  map_reset(&w->func_of);
  uint32_t lo = w->first[slot], hi = w->first[slot + 1];
  for (uint32_t i = lo; i < hi; i++) stack_for(w, w->f->node[w->order[i]]);

  if (!*first_thread) wt_json_lit(j, ",");
  *first_thread = 0;
  wt_json_lit(j, "\n{\"name\":");
  wt_json_string(j, name);
  wt_json_lit(j, ",\"isMainThread\":");
  wt_json_lit(j, t && t->is_main ? "true" : "false");
  wt_json_lit(j, ",\"processType\":\"default\",\"processName\":");
  char pname[WT_NAME_MAX + 32];
  snprintf(pname, sizeof pname, "wasmtrace: %s", s->config.name);
  wt_json_string(j, pname);
  wt_json_lit(j, ",\"processStartupTime\":0,\"processShutdownTime\":");
  write_ms(w, s->stop_us > s->start_us ? s->stop_us : s->start_us);
  wt_json_lit(j, ",\"registerTime\":");
  write_ms(w, hi > lo ? w->f->ts[w->order[lo]] : s->start_us); /* its first kept sample */
  wt_json_lit(j, ",\"unregisterTime\":null,\"pausedRanges\":[],\"showMarkersInTimeline\":true,"
                 "\"pid\":\"1\",\"tid\":\"");
  wt_json_u64(j, slot + 1u);
  wt_json_lit(j, "\",\n\"samples\":{\"length\":");
  wt_json_u64(j, hi - lo);
  wt_json_lit(j, ",\"weightType\":\"samples\",\"weight\":null,\"stack\":[");
  for (uint32_t i = lo; i < hi; i++) {
    if (i > lo) wt_json_lit(j, ",");
    uint32_t node = w->f->node[w->order[i]];
    uint32_t si = node && w->stack_of[node] ? w->stack_of[node] - 1 : NO_INDEX;
    if (si == NO_INDEX) wt_json_lit(j, "null");
    else wt_json_u64(j, si);
  }
  wt_json_lit(j, "],\"time\":[");
  for (uint32_t i = lo; i < hi; i++) {
    if (i > lo) wt_json_lit(j, ",");
    write_ms(w, w->f->ts[w->order[i]]);
  }
  wt_json_lit(j, "]},\n\"stackTable\":{\"length\":");
  wt_json_u64(j, w->nstacks);
  wt_json_lit(j, ",\"frame\":[");
  write_u32_list(w, w->stack_frame, w->nstacks);
  wt_json_lit(j, "],\"prefix\":[");
  write_u32_list(w, w->stack_prefix, w->nstacks);
  wt_json_lit(j, "]},\n\"frameTable\":{\"length\":");
  wt_json_u64(j, w->nframes);
  wt_json_lit(j, ",\"func\":[");
  write_u32_list(w, w->frame_func, w->nframes);
  wt_json_lit(j, "],\"category\":[");
  write_u32_list(w, w->frame_cat, w->nframes);
  wt_json_lit(j, "]");
  write_repeat(w, "subcategory", "0", w->nframes);
  write_repeat(w, "address", "-1", w->nframes);
  write_repeat(w, "inlineDepth", "0", w->nframes);
  write_repeat(w, "nativeSymbol", "null", w->nframes);
  write_repeat(w, "innerWindowID", "0", w->nframes);
  write_repeat(w, "line", "null", w->nframes);
  write_repeat(w, "column", "null", w->nframes);
  wt_json_lit(j, "},\n\"funcTable\":{\"length\":");
  wt_json_u64(j, w->nfuncs);
  wt_json_lit(j, ",\"name\":[");
  write_u32_list(w, w->func_name, w->nfuncs);
  wt_json_lit(j, "]");
  write_repeat(w, "isJS", "false", w->nfuncs);
  write_repeat(w, "relevantForJS", "false", w->nfuncs);
  write_repeat(w, "resource", "-1", w->nfuncs);
  write_repeat(w, "fileName", "null", w->nfuncs);
  write_repeat(w, "lineNumber", "null", w->nfuncs);
  write_repeat(w, "columnNumber", "null", w->nfuncs);
  wt_json_lit(j, "},\n\"resourceTable\":{\"length\":0,\"lib\":[],\"name\":[],\"host\":[],\"type\":[]},"
                 "\"nativeSymbols\":{\"length\":0,\"libIndex\":[],\"address\":[],\"name\":[],"
                 "\"functionSize\":[]},\n");
  write_markers(w, slot);
  wt_json_lit(j, "}");
}

/* Counter samples are deltas: the running sum is the counter's value. */
static void write_counters(ff_writer *w) {
  wt_json *j = w->j;
  const ff_state *f = w->f;
  /* Counters by name, in order of first appearance, each in time order. */
  uint32_t *ids = malloc((f->ev_count + 1) * sizeof *ids);
  uint32_t *idx = malloc((f->ev_count + 1) * sizeof *idx);
  if (!ids || !idx) {
    w->oom = 1;
    free(ids);
    free(idx);
    return;
  }
  uint32_t nids = 0;
  for (uint32_t i = 0; i < f->ev_count; i++) {
    const wt_event_rec *r = event_at(f, i);
    if (WT_REC_KIND(r->kind) != WT_REC_COUNTER) continue;
    uint32_t k = 0;
    while (k < nids && ids[k] != r->id) k++;
    if (k == nids) ids[nids++] = r->id;
  }
  for (uint32_t k = 0; k < nids; k++) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->ev_count; i++) {
      const wt_event_rec *r = event_at(f, i);
      if (WT_REC_KIND(r->kind) == WT_REC_COUNTER && r->id == ids[k]) idx[n++] = i;
    }
    /* Insertion sort by time (counters arrive almost sorted). */
    for (uint32_t a = 1; a < n; a++) {
      uint32_t v = idx[a], b = a;
      while (b > 0 && event_at(f, idx[b - 1])->ts_us > event_at(f, v)->ts_us) {
        idx[b] = idx[b - 1];
        b--;
      }
      idx[b] = v;
    }
    char tmp[64];
    const char *name = wt_session_frame_name(ids[k], tmp, sizeof tmp);
    int memory = strstr(name, "bytes") != NULL;
    const wt_event_rec *r0 = event_at(f, idx[0]);
    wt_json_lit(j, k ? ",\n{\"name\":" : "\n{\"name\":");
    wt_json_string(j, name);
    wt_json_lit(j, ",\"category\":");
    wt_json_string(j, memory ? "Memory" : wt_registry_category_name(r0->cat));
    wt_json_lit(j, ",\"description\":");
    char desc[WT_CATEGORY_MAX + 64];
    snprintf(desc, sizeof desc, "wasmtrace counter (category %s)", wt_registry_category_name(r0->cat));
    wt_json_string(j, desc);
    wt_json_lit(j, ",\"pid\":\"1\",\"mainThreadIndex\":0,\"samples\":{\"length\":");
    wt_json_u64(j, n);
    wt_json_lit(j, ",\"time\":[");
    for (uint32_t a = 0; a < n; a++) {
      if (a) wt_json_lit(j, ",");
      write_ms(w, event_at(f, idx[a])->ts_us);
    }
    wt_json_lit(j, "],\"count\":[");
    double prev = 0;
    for (uint32_t a = 0; a < n; a++) {
      double v = event_at(f, idx[a])->value;
      if (!isfinite(v) || !isfinite(v - prev)) v = prev; /* JSON has no inf/NaN */
      char num[40];
      snprintf(num, sizeof num, "%.17g", v - prev);
      if (a) wt_json_lit(j, ",");
      wt_json_lit(j, num);
      prev = v;
    }
    wt_json_lit(j, "]}}");
    atomic_fetch_add_explicit(&w->s->events_written, n, memory_order_relaxed);
  }
  free(ids);
  free(idx);
}

static const char *const palette[] = {"green", "orange", "purple", "lightblue", "brown", "magenta", "red"};

static void write_meta(ff_writer *w) {
  wt_session *s = w->s;
  wt_json *j = w->j;
  const wt_session_config *c = &s->config;
  wt_json_lit(j, "{\"meta\":{\"version\":24,\"preprocessedProfileVersion\":");
  wt_json_u64(j, PROCESSED_VERSION);
  wt_json_lit(j, ",\"product\":");
  char product[WT_NAME_MAX + 32];
  snprintf(product, sizeof product, "wasmtrace: %s", c->name);
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
  for (size_t i = 0; i < w->f->ev_count; i++) {
    const wt_event_rec *r = event_at(w->f, (uint32_t)i);
    if (WT_REC_KIND(r->kind) == WT_REC_COUNTER || r->cat >= WT_MAX_CATEGORY_NAMES || w->marker_cat[r->cat])
      continue;
    w->marker_cat[r->cat] = (uint8_t)w->ncats;
    wt_json_lit(j, ",{\"name\":");
    wt_json_string(j, wt_registry_category_name(r->cat));
    wt_json_lit(j, ",\"color\":\"");
    wt_json_lit(j, palette[(w->ncats - FIXED_CATEGORIES) % (sizeof palette / sizeof palette[0])]);
    wt_json_lit(j, "\",\"subcategories\":[\"Other\"]}");
    w->ncats++;
  }
  wt_json_lit(j, "],\n\"markerSchema\":[{\"name\":\"wasmtrace\",\"display\":[\"marker-chart\","
                 "\"marker-table\",\"timeline-overview\"],\"chartLabel\":\"{marker.name}\","
                 "\"tooltipLabel\":\"{marker.name}\",\"tableLabel\":\"{marker.name}\","
                 "\"description\":\"A wasmtrace scope (interval) or instant marker.\","
                 "\"fields\":[{\"key\":\"category\",\"label\":\"Category\",\"format\":\"string\"},"
                 "{\"key\":\"unfinished\",\"label\":\"Unfinished\",\"format\":\"string\"}]}],\n");

  uint64_t taken = atomic_load(&s->samples_taken), written = atomic_load(&s->samples_written);
  uint64_t torn = atomic_load(&s->samples_torn), full = atomic_load(&s->samples_dropped_full);
  uint64_t ev_dropped = atomic_load(&s->events_dropped);
  /* What the profile info panel shows. */
  struct {
    const char *label;
    uint64_t value;
  } rows[] = {{"Samples taken", taken},
              {"Samples written", written},
              {"Samples dropped: buffer full", full},
              {"Samples dropped: stack changed during every copy", torn},
              {"Events dropped", ev_dropped},
              {"Sampler ticks missed", atomic_load(&s->ticks_missed)},
              {"Threads not registered (limit reached)", wt_registry_threads_dropped()},
              {"Buffer high water (bytes)", atomic_load(&s->high_water)}};
  wt_json_lit(j, "\"extra\":[{\"label\":\"wasmtrace " WT_VERSION_STRING "\",\"entries\":[");
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    wt_json_lit(j, i ? ",{\"label\":" : "{\"label\":");
    wt_json_string(j, rows[i].label);
    wt_json_lit(j, ",\"format\":\"integer\",\"value\":");
    wt_json_u64(j, rows[i].value);
    wt_json_lit(j, "}");
  }
  wt_json_lit(j, "]}],\n\"wasmtrace\":{\"version\":\"" WT_VERSION_STRING "\",\"session\":");
  wt_json_string(j, c->name);
  wt_json_lit(j, ",\"format\":\"firefox\",\"intervalUs\":");
  wt_json_u64(j, c->interval_us);
  wt_json_lit(j, ",");
  /* The meta comes before the markers and counters it counts: every
   * buffered event is written below, so count them in advance here. */
  uint64_t pending = w->f->ev_count;
  atomic_fetch_add_explicit(&s->events_written, pending, memory_order_relaxed);
  wt_session_write_stats(s, j);
  atomic_fetch_sub_explicit(&s->events_written, pending, memory_order_relaxed);
  wt_json_lit(j, "}},\n\"libs\":[],\"pages\":[],\"profilerOverhead\":[],\n");
}

static int writer_init(ff_writer *w, wt_session *s, ff_state *f) {
  memset(w, 0, sizeof *w);
  w->s = s;
  w->f = f;
  w->j = &s->json;
  w->ncats = FIXED_CATEGORIES;
  uint32_t nodes = s->node_count;
  w->order = malloc((f->count + 1) * sizeof *w->order);
  w->ev_order = malloc((f->ev_count + 1) * sizeof *w->ev_order);
  w->stack_of = calloc((size_t)nodes + 1, sizeof *w->stack_of);
  w->stack_frame = malloc(((size_t)nodes + 1) * sizeof(uint32_t));
  w->stack_prefix = malloc(((size_t)nodes + 1) * sizeof(uint32_t));
  w->frame_func = malloc(((size_t)nodes + 1) * sizeof(uint32_t));
  w->frame_cat = malloc(((size_t)nodes + 1) * sizeof(uint32_t));
  w->func_name = malloc(((size_t)nodes + 1) * sizeof(uint32_t));
  if (!w->order || !w->ev_order || !w->stack_of || !w->stack_frame || !w->stack_prefix ||
      !w->frame_func || !w->frame_cat || !w->func_name || !map_init(&w->frame_of, nodes) ||
      !map_init(&w->func_of, nodes))
    return 0;
  /* Samples grouped by thread (counting sort keeps each thread's order). */
  memset(w->first, 0, sizeof w->first);
  for (size_t i = 0; i < f->count; i++) {
    uint32_t node = f->node[(f->head + i) % f->cap];
    uint16_t t = node ? s->nodes[node - 1].thread : 0;
    w->first[t + 1]++;
  }
  for (int t = 0; t < WT_MAX_THREADS; t++) w->first[t + 1] += w->first[t];
  uint32_t pos[WT_MAX_THREADS];
  memcpy(pos, w->first, sizeof pos);
  for (size_t i = 0; i < f->count; i++) {
    uint32_t at = (uint32_t)((f->head + i) % f->cap);
    uint32_t node = f->node[at];
    w->order[pos[node ? s->nodes[node - 1].thread : 0]++] = at;
  }
  for (uint32_t i = 0; i < f->ev_count; i++) w->ev_order[i] = i;
  sort_state = f;
  qsort(w->ev_order, f->ev_count, sizeof *w->ev_order, cmp_event_index);
  return 1;
}

static void writer_free(ff_writer *w) {
  free(w->order);
  free(w->ev_order);
  free(w->stack_of);
  free(w->stack_frame);
  free(w->stack_prefix);
  free(w->frame_func);
  free(w->frame_cat);
  free(w->func_name);
  map_free(&w->frame_of);
  map_free(&w->func_of);
  strtab_free(&w->strings);
}

static wt_status write_profile(wt_session *s, ff_state *f) {
  ff_writer w;
  if (!writer_init(&w, s, f)) {
    writer_free(&w);
    return WT_ERR_NO_MEMORY;
  }
  wt_json *j = w.j;
  write_meta(&w);
  wt_json_lit(j, "\"threads\":[");
  int first = 1;
  uint32_t nthreads = wt_registry_count();
  for (uint32_t slot = 0; slot < nthreads && slot < WT_MAX_THREADS; slot++)
    if (s->threads[slot].seen) write_thread(&w, (uint16_t)slot, &first);
  wt_json_lit(j, "],\n\"counters\":[");
  write_counters(&w);
  /* The string table last: every table above has added to it. */
  wt_json_lit(j, "],\n\"shared\":{\"stringArray\":[");
  for (uint32_t i = 0; i < w.strings.count; i++) {
    if (i) wt_json_lit(j, ",");
    wt_json_string(j, w.strings.str[i]);
  }
  wt_json_lit(j, "]}}\n");
  int oom = w.oom;
  writer_free(&w);
  return oom ? WT_ERR_NO_MEMORY : WT_OK;
}

static wt_status ff_step(wt_session *s, size_t max_samples, int final) {
  ff_state *f = state_get(s);
  if (!f) return WT_ERR_NO_MEMORY;
  const wt_event_rec *r;
  for (size_t n = 0; (final || n < max_samples) && (r = wt_session_next_event(s)) != NULL; n++)
    retain_event(s, f, r);
  f->dropped_in_batch = 0;
  wt_session_take_samples(s, final ? s->sample_count : max_samples, retain_samples);
  if (f->dropped_in_batch) {
    /* take_samples counted them as written: they were dropped here. */
    atomic_fetch_sub_explicit(&s->samples_written, f->dropped_in_batch, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->samples_dropped_full, f->dropped_in_batch, memory_order_relaxed);
  }
  note_memory(s, f);
  if (!final) return WT_OK;

  wt_status st = write_profile(s, f);
  s->header_written = 1;
  s->footer_written = 1;
  wt_status fl = wt_json_flush(&s->json);
  atomic_store_explicit(&s->bytes_encoded, s->encoder_sink->bytes_in, memory_order_relaxed);
  if (st != WT_OK) return st;
  if (fl != WT_OK) return fl;
  return wt_sink_close(s->encoder_sink);
}

const wt_encoder wt_encoder_firefox = {"firefox", ff_step, ff_free};
