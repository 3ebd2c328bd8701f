/* Session buffers: samples as call-tree nodes, scopes, bounded memory. */
#include "session.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "runtime.h"
#include "symbols.h"

/* How a session's memory limit is split between its buffers. Fixed
 * per-session overhead (the zlib state, this struct) is not included. */
#define SHARE_SAMPLES 40 /* percent: pending samples (+ sort scratch) */
#define SHARE_EVENTS 15  /* pending event records */
#define SHARE_NODES 20   /* the call tree and its hash table */
#define SHARE_OUT 25     /* compressed output waiting for the main thread */
#define SAMPLE_BYTES (sizeof(wt_sample) + sizeof(uint32_t))
#define NODE_BYTES (sizeof(wt_node) + 2 * sizeof(uint32_t))
#define INITIAL_ENTRIES 1024

void wt_session_fail(wt_session *s, const char *fmt, ...) {
  /* Claim the failure first (only one thread may write the message), then
   * publish FAILED. Stopped and failed sessions never move again. */
  int st = atomic_load_explicit(&s->state, memory_order_acquire);
  if (st == WT_SESSION_FAILED || st == WT_SESSION_STOPPED) return;
  int unclaimed = 0;
  if (!atomic_compare_exchange_strong(&s->failing, &unclaimed, 1)) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->error, sizeof s->error, fmt, ap);
  va_end(ap);
  while (!atomic_compare_exchange_weak_explicit(&s->state, &st, WT_SESSION_FAILED,
                                                memory_order_acq_rel, memory_order_acquire)) {
    if (st == WT_SESSION_STOPPED) return;
  }
  char line[WT_ERROR_MAX + 80];
  snprintf(line, sizeof line, "session '%s' failed: %s", s->config.name, s->error);
  wt_platform_log_error(line);
  wt_runtime_update_categories(); /* app threads stop writing its events */
}

size_t wt_session_memory(wt_session *s) {
  return s->sample_cap * SAMPLE_BYTES + s->event_cap * sizeof(wt_event_rec) +
         s->node_cap * NODE_BYTES + (size_t)wt_outq_in_flight(&s->out);
}

void wt_session_note_memory(wt_session *s) {
  size_t m = wt_session_memory(s);
  if (m > atomic_load_explicit(&s->high_water, memory_order_relaxed))
    atomic_store_explicit(&s->high_water, (uint32_t)m, memory_order_relaxed);
}

static void set_budgets(wt_session *s) {
  size_t limit = (size_t)s->config.max_buffer_kb * 1024;
  s->budget_samples = limit / 100 * SHARE_SAMPLES / SAMPLE_BYTES;
  s->budget_events = limit / 100 * SHARE_EVENTS / sizeof(wt_event_rec);
  s->budget_nodes = limit / 100 * SHARE_NODES / NODE_BYTES;
  s->budget_out = limit / 100 * SHARE_OUT;
}

static int make_room(wt_session *s, void **buf, size_t elem, size_t *head, size_t *count,
                     size_t *cap, size_t budget, int *evicted);
static int grow_nodes(wt_session *s);

wt_status wt_session_prealloc(wt_session *s) {
  set_budgets(s);
  if (!s->threads) s->threads = calloc(WT_MAX_THREADS, sizeof *s->threads);
  if (!s->threads) return WT_ERR_NO_MEMORY;
  int evicted;
  /* One entry of room in each ring grows it to its first capacity. */
  if (!make_room(s, (void **)&s->samples, sizeof(wt_sample), &s->sample_head, &s->sample_count,
                 &s->sample_cap, s->budget_samples, &evicted) ||
      !make_room(s, (void **)&s->events, sizeof(wt_event_rec), &s->event_head, &s->event_count,
                 &s->event_cap, s->budget_events, &evicted))
    return WT_ERR_NO_MEMORY;
  s->sort_tmp = malloc(s->sample_cap * sizeof *s->sort_tmp);
  if (!s->sort_tmp) return WT_ERR_NO_MEMORY;
  s->last_sort_cap = s->sample_cap;
  if (!s->node_cap && !grow_nodes(s)) return WT_ERR_NO_MEMORY;
  return WT_OK;
}

wt_status wt_session_setup_sampling(wt_session *s, double now_us) {
  set_budgets(s);
  /* start_us was set when the session was created: events from then on
   * belong to it even if the worker adopts it later. */
  /* Deadlines on a grid of the interval in the shared clock: sessions with
   * the same interval (or multiples) tick together and take the very same
   * samples, whenever the worker adopted them. The first deadline is the
   * grid point just passed, so the first sample is taken at once. */
  double interval = s->config.interval_us;
  s->next_sample_us = floor(now_us / interval) * interval;
  s->worker_busy_at_start = atomic_load_explicit(&wt_rt.worker_busy_us, memory_order_relaxed);
  if (!s->threads) s->threads = calloc(WT_MAX_THREADS, sizeof *s->threads);
  if (!s->threads) return WT_ERR_NO_MEMORY;
  switch (s->config.format) {
    case WT_FORMAT_CHROME: s->encoder = &wt_encoder_chrome; break;
    case WT_FORMAT_FIREFOX: s->encoder = &wt_encoder_firefox; break;
    case WT_FORMAT_FOLDED: s->encoder = &wt_encoder_folded; break;
    default: return WT_ERR_UNSUPPORTED;
  }
  return WT_OK;
}

wt_status wt_session_setup_output(wt_session *s) {
  if (s->encoder_sink) return WT_OK;
  /* Output blocks: a quarter of the output budget each, so that at least a
   * few fit; 64 KiB at most (zlib output arrives in 16 KiB pieces). */
  size_t block = WT_BLOCK_SIZE_MAX;
  while (block > WT_BLOCK_SIZE_MIN && block * 4 > s->budget_out) block /= 2;
  wt_status st = wt_outq_init(&s->out, block);
  if (st != WT_OK) return st;
  if (s->config.gzip) {
    s->gzip = malloc(sizeof *s->gzip);
    if (!s->gzip) return WT_ERR_NO_MEMORY;
    st = wt_gzip_sink_init(s->gzip, &s->out.base, s->config.gzip_level);
    if (st != WT_OK) return st;
    s->encoder_sink = &s->gzip->base;
  } else {
    s->encoder_sink = &s->out.base;
  }
  wt_json_init(&s->json, s->encoder_sink);
  atomic_store_explicit(&s->output_ready, 1, memory_order_release);
  return WT_OK;
}

wt_status wt_session_setup(wt_session *s, double now_us) {
  wt_status st = wt_session_setup_sampling(s, now_us);
  return st == WT_OK ? wt_session_setup_output(s) : st;
}

void wt_session_free_buffers(wt_session *s) {
  free(s->samples);
  if (s->encoder && s->encoder->free) s->encoder->free(s);
  free(s->events);
  free(s->nodes);
  free(s->node_hash);
  free(s->sort_tmp);
  free(s->threads);
  s->threads = NULL;
  s->samples = NULL;
  s->events = NULL;
  s->nodes = NULL;
  s->node_hash = NULL;
  s->sort_tmp = NULL;
  s->sample_cap = s->event_cap = 0;
  s->node_cap = s->node_count = 0;
  s->sample_count = s->event_count = 0;
  if (s->gzip) {
    wt_gzip_sink_free(s->gzip);
    free(s->gzip);
    s->gzip = NULL;
  }
}

/* Grows a ring buffer (head/count/cap) to new_cap, keeping order. */
static int grow_ring(void **buf, size_t elem, size_t *head, size_t count, size_t *cap,
                     size_t new_cap) {
  unsigned char *fresh = malloc(new_cap * elem);
  if (!fresh) return 0;
  unsigned char *old = *buf;
  for (size_t i = 0; i < count; i++)
    memcpy(fresh + i * elem, old + ((*head + i) % *cap) * elem, elem);
  free(old);
  *buf = fresh;
  *head = 0;
  *cap = new_cap;
  return 1;
}

/* Makes room for one more entry: grows up to the budget, then applies the
 * session's full policy. Returns 1 if an entry may be appended, 0 if the new
 * entry must be dropped. *evicted is set when the oldest entry was dropped. */
static int make_room(wt_session *s, void **buf, size_t elem, size_t *head, size_t *count,
                     size_t *cap, size_t budget, int *evicted) {
  *evicted = 0;
  if (*count < *cap) return 1;
  if (*cap < budget) {
    size_t new_cap = *cap ? *cap * 2 : INITIAL_ENTRIES;
    if (new_cap > budget) new_cap = budget;
    if (grow_ring(buf, elem, head, *count, cap, new_cap)) {
      wt_session_note_memory(s);
      return 1;
    }
  }
  if (s->config.when_full == WT_FULL_RING && *cap > 0) {
    *head = (*head + 1) % *cap;
    (*count)--;
    *evicted = 1;
    return 1;
  }
  return 0;
}

static uint32_t hash3(uint32_t a, uint32_t b, uint32_t c) {
  uint64_t x = ((uint64_t)a << 32 | b) ^ ((uint64_t)c * 0x9e3779b97f4a7c15ULL);
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 29;
  return (uint32_t)x;
}

static void hash_insert(wt_session *s, uint32_t id) {
  const wt_node *n = &s->nodes[id - 1];
  uint32_t mask = 2 * s->node_cap - 1;
  uint32_t i = hash3(n->thread, n->parent, n->frame) & mask;
  while (s->node_hash[i]) i = (i + 1) & mask;
  s->node_hash[i] = id;
}

static int grow_nodes(wt_session *s) {
  if (s->node_cap >= s->budget_nodes) return 0;
  uint32_t new_cap = s->node_cap ? s->node_cap * 2 : INITIAL_ENTRIES;
  while (new_cap & (new_cap - 1)) new_cap &= new_cap - 1; /* power of two */
  if (new_cap > s->budget_nodes) {
    /* The last step may not double: round the budget down to a power of two. */
    uint32_t b = (uint32_t)s->budget_nodes;
    while (b & (b - 1)) b &= b - 1;
    if (b <= s->node_cap) return 0;
    new_cap = b;
  }
  wt_node *nodes = realloc(s->nodes, new_cap * sizeof *nodes);
  if (!nodes) return 0;
  s->nodes = nodes;
  uint32_t *hash = calloc(2 * (size_t)new_cap, sizeof *hash);
  if (!hash) return 0;
  free(s->node_hash);
  s->node_hash = hash;
  s->node_cap = new_cap;
  for (uint32_t id = 1; id <= s->node_count; id++) hash_insert(s, id);
  wt_session_note_memory(s);
  return 1;
}

/* The node for (thread, parent, frame), created if needed; 0 if the table
 * is full. */
static uint32_t node_get(wt_session *s, uint16_t thread, uint32_t parent, uint32_t frame) {
  if (s->node_cap) {
    uint32_t mask = 2 * s->node_cap - 1;
    for (uint32_t i = hash3(thread, parent, frame) & mask;; i = (i + 1) & mask) {
      uint32_t id = s->node_hash[i];
      if (!id) break;
      const wt_node *n = &s->nodes[id - 1];
      if (n->parent == parent && n->frame == frame && n->thread == thread) return id;
    }
  }
  if (s->node_count == s->node_cap && !grow_nodes(s)) return 0;
  uint32_t id = ++s->node_count;
  s->nodes[id - 1] = (wt_node){.parent = parent, .frame = frame, .thread = thread};
  hash_insert(s, id);
  return id;
}

static wt_session_thread *see_thread(wt_session *s, uint16_t slot) {
  wt_session_thread *st = &s->threads[slot];
  if (!st->seen) {
    st->seen = 1;
    atomic_fetch_add_explicit(&s->threads_seen, 1, memory_order_relaxed);
  }
  return st;
}

void wt_session_record_sample(wt_session *s, uint16_t slot, const uint32_t *frames, int n,
                              double ts_us) {
  atomic_fetch_add_explicit(&s->samples_taken, 1, memory_order_relaxed);
  wt_session_thread *st = see_thread(s, slot);
  int evicted;
  if (!make_room(s, (void **)&s->samples, sizeof(wt_sample), &s->sample_head,
                 &s->sample_count, &s->sample_cap, s->budget_samples, &evicted)) {
    atomic_fetch_add_explicit(&s->samples_dropped_full, 1, memory_order_relaxed);
    return;
  }
  if (evicted) atomic_fetch_add_explicit(&s->samples_dropped_full, 1, memory_order_relaxed);
  if (!s->sort_tmp || s->sample_cap > s->last_sort_cap) {
    uint32_t *tmp = realloc(s->sort_tmp, s->sample_cap * sizeof *tmp);
    if (tmp) {
      s->sort_tmp = tmp;
      s->last_sort_cap = s->sample_cap;
    }
  }
  if (!st->root) {
    st->root = node_get(s, slot, 0, WT_NODE_ROOT);
    st->first_us = ts_us;
  }
  uint32_t node = st->root;
  if (n == 0) {
    if (!st->idle) st->idle = node_get(s, slot, st->root, WT_NODE_IDLE);
    node = st->idle;
  } else {
    for (int i = 0; i < n && node; i++) {
      uint32_t child = node_get(s, slot, node, frames[i]);
      if (!child) {
        /* One "(truncated)" per thread, under its root: the part of the
         * stack that did fit says nothing about the part that did not. */
        if (!st->truncated) st->truncated = node_get(s, slot, st->root, WT_NODE_TRUNCATED);
        child = st->truncated ? st->truncated : node;
        node = child;
        break;
      }
      node = child;
    }
  }
  if (!node) { /* table full before this thread's root existed */
    atomic_fetch_add_explicit(&s->samples_dropped_full, 1, memory_order_relaxed);
    return;
  }
  st->last_us = ts_us;
  wt_sample *dst = &s->samples[(s->sample_head + s->sample_count) % s->sample_cap];
  *dst = (wt_sample){.ts_us = ts_us, .node = node, .thread = slot};
  s->sample_count++;
}

void wt_session_record_torn(wt_session *s) {
  atomic_fetch_add_explicit(&s->samples_taken, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&s->samples_torn, 1, memory_order_relaxed);
}

void wt_session_record_event(wt_session *s, const wt_event_rec *rec) {
  if (rec->thread != WT_PROCESS_THREAD) see_thread(s, rec->thread);
  int evicted;
  if (!make_room(s, (void **)&s->events, sizeof(wt_event_rec), &s->event_head, &s->event_count,
                 &s->event_cap, s->budget_events, &evicted)) {
    atomic_fetch_add_explicit(&s->events_dropped, 1, memory_order_relaxed);
    return;
  }
  if (evicted) atomic_fetch_add_explicit(&s->events_dropped, 1, memory_order_relaxed);
  s->events[(s->event_head + s->event_count) % s->event_cap] = *rec;
  s->event_count++;
}

size_t wt_session_encode_quota(wt_session *s, size_t max_batch) {
  /* Keep half of the output budget free for what one step produces: at
   * most ~64 bytes of output per sample (JSON of the sample, its share of
   * new stack nodes, gzip's worst case), measured upper bound. */
  uint64_t in_flight = wt_outq_in_flight(&s->out);
  if (in_flight * 2 > s->budget_out) return 0;
  size_t quota = (s->budget_out / 2 - (size_t)in_flight) / 64;
  if (quota < 16) quota = 16;
  return quota < max_batch ? quota : max_batch;
}

const wt_event_rec *wt_session_next_event(wt_session *s) {
  if (!s->event_count) return NULL;
  const wt_event_rec *r = &s->events[s->event_head];
  s->event_head = (s->event_head + 1) % s->event_cap;
  s->event_count--;
  return r;
}

void wt_session_take_samples(wt_session *s, size_t k,
                             void (*fn)(wt_session *s, uint16_t slot, const uint32_t *idx, size_t n)) {
  if (k > s->sample_count) k = s->sample_count;
  if (k > s->last_sort_cap) k = s->last_sort_cap; /* scratch could not grow */
  if (!k) return;
  /* Counting sort of the batch by thread, keeping time order. */
  uint32_t counts[WT_MAX_THREADS + 1];
  memset(counts, 0, sizeof counts);
  for (size_t i = 0; i < k; i++) counts[s->samples[(s->sample_head + i) % s->sample_cap].thread + 1]++;
  for (int t = 0; t < WT_MAX_THREADS; t++) counts[t + 1] += counts[t];
  uint32_t pos[WT_MAX_THREADS];
  memcpy(pos, counts, sizeof pos);
  for (size_t i = 0; i < k; i++) {
    uint32_t at = (uint32_t)((s->sample_head + i) % s->sample_cap);
    s->sort_tmp[pos[s->samples[at].thread]++] = at;
  }
  for (int t = 0; t < WT_MAX_THREADS; t++) {
    uint32_t n = counts[t + 1] - counts[t];
    if (n) fn(s, (uint16_t)t, s->sort_tmp + counts[t], n);
  }
  s->sample_head = (s->sample_head + k) % s->sample_cap;
  s->sample_count -= k;
  atomic_fetch_add_explicit(&s->samples_written, k, memory_order_relaxed);
}

const char *wt_session_frame_name(uint32_t frame, char *tmp, size_t cap) {
  switch (frame) {
    case WT_NODE_ROOT: return "(root)";
    case WT_NODE_IDLE: return "(idle)";
    case WT_NODE_TRUNCATED: return "(truncated)";
    default: break;
  }
  if (frame & WT_FRAME_SCOPE_BIT) {
    const char *name = wt_registry_scope_name(frame);
    return name ? name : "(unknown scope)";
  }
  (void)tmp;
  (void)cap;
  return wt_symbols_function_name(frame);
}

uint64_t wt_session_lateness_percentile(const wt_session *s, unsigned pct) {
  uint64_t total = 0, seen = 0;
  for (int b = 0; b < WT_LATENESS_BUCKETS; b++) total += s->lateness_hist[b];
  if (!total) return 0;
  for (int b = 0; b < WT_LATENESS_BUCKETS; b++) {
    seen += s->lateness_hist[b];
    if (seen * 100 >= total * pct) return 1ull << b;
  }
  return 1ull << (WT_LATENESS_BUCKETS - 1);
}

#define FLUSH_EVERY_BYTES (64 * 1024)
#define FLUSH_EVERY_US 1000000.0

wt_status wt_session_flush_point(wt_session *s, double now_us) {
  uint64_t encoded = s->encoder_sink->bytes_in;
  atomic_store_explicit(&s->bytes_encoded, encoded, memory_order_relaxed);
  if (encoded == s->last_flush_bytes) return WT_OK;
  if (encoded - s->last_flush_bytes < FLUSH_EVERY_BYTES && now_us - s->last_flush_us < FLUSH_EVERY_US)
    return WT_OK;
  s->last_flush_bytes = encoded;
  s->last_flush_us = now_us;
  return wt_sink_flush(s->encoder_sink);
}

uint64_t wt_session_worker_busy_us(const wt_session *s) {
  return atomic_load_explicit(&wt_rt.worker_busy_us, memory_order_relaxed) - s->worker_busy_at_start;
}

void wt_session_write_stats(wt_session *s, wt_json *j) {
  uint64_t torn = atomic_load(&s->samples_torn), full = atomic_load(&s->samples_dropped_full);
  wt_json_lit(j, "\"samplesTaken\":");
  wt_json_u64(j, atomic_load(&s->samples_taken));
  wt_json_lit(j, ",\"samplesWritten\":");
  wt_json_u64(j, atomic_load(&s->samples_written));
  wt_json_lit(j, ",\"samplesDropped\":");
  wt_json_u64(j, torn + full);
  wt_json_lit(j, ",\"dropped\":{\"bufferFull\":");
  wt_json_u64(j, full);
  wt_json_lit(j, ",\"tornStack\":");
  wt_json_u64(j, torn);
  wt_json_lit(j, ",\"events\":");
  wt_json_u64(j, atomic_load(&s->events_dropped));
  wt_json_lit(j, ",\"threadsNotRegistered\":");
  wt_json_u64(j, wt_registry_threads_dropped());
  wt_json_lit(j, "},\"eventsWritten\":");
  wt_json_u64(j, atomic_load(&s->events_written));
  wt_json_lit(j, ",\"ticksMissed\":");
  wt_json_u64(j, atomic_load(&s->ticks_missed));
  wt_json_lit(j, ",\"encodeUs\":");
  wt_json_double3(j, s->encode_us);
  wt_json_lit(j, ",\"workerCreatedUs\":");
  wt_json_double3(j, wt_rt.worker_created_us);
  wt_json_lit(j, ",\"workerStartedUs\":");
  wt_json_double3(j, atomic_load_explicit(&wt_rt.worker_started_us, memory_order_relaxed));
  wt_json_lit(j, ",\"workerBusyUs\":");
  wt_json_u64(j, wt_session_worker_busy_us(s));
  wt_json_lit(j, ",\"samplerLatenessUs\":{\"p50Below\":");
  wt_json_u64(j, wt_session_lateness_percentile(s, 50));
  wt_json_lit(j, ",\"p99Below\":");
  wt_json_u64(j, wt_session_lateness_percentile(s, 99));
  wt_json_lit(j, ",\"max\":");
  wt_json_double3(j, s->lateness_max_us);
  wt_json_lit(j, "},\"threads\":");
  wt_json_u64(j, atomic_load(&s->threads_seen));
  wt_json_lit(j, ",\"startTimeUs\":");
  wt_json_double3(j, s->start_us);
  wt_json_lit(j, ",\"stopTimeUs\":");
  wt_json_double3(j, s->stop_us);
  wt_json_lit(j, ",\"bufferHighWaterBytes\":");
  wt_json_u64(j, atomic_load(&s->high_water));
}
