/* Session buffers: samples as call-tree nodes, scopes, bounded memory. */
#include "session.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "mem.h"
#include "platform.h"
#include "symbols.h"

/* How a session's memory limit is split between its buffers, after the
 * encoder's fixed state (wt_encoder.state_bytes) is taken off it. Fixed
 * per-session overhead is not included (docs/GUIDE.md, "Memory"): the zlib
 * state, this struct, its thread table (WT_MAX_THREADS wt_session_thread),
 * the output queue's first two blocks and the reserve; wt_session_prealloc
 * takes them at start, with the buffers' first capacity. */
#define SHARE_SAMPLES 40 /* percent: pending samples (+ sort scratch) */
#define SHARE_EVENTS 15  /* pending event records */
#define SHARE_NODES 20   /* the call tree and its hash table */
#define SHARE_OUT 25     /* compressed output waiting for the main thread */
#define SAMPLE_BYTES (sizeof(wt_sample) + sizeof(uint32_t))
#define NODE_BYTES (sizeof(wt_node) + 2 * sizeof(uint32_t))
#define INITIAL_ENTRIES 1024
/* The reserve a session finishes with, besides its encoder's state: the
 * final step's scratch (a bit or a count per call-tree node, firefox's
 * small tables) when the heap gives nothing more. */
#define RESERVE_SCRATCH ((size_t)64 * 1024)
/* How long the worker waits, out of memory, for the main thread to write
 * queued output and give a block back (outq.c), before the session fails. */
#define NO_MEMORY_WAIT_STEPS 20000 /* x 1 ms */

/* Sessions of this worker finishing on their released reserve: the
 * worker's credit (mem.h) is cleared when none is left. Worker only (and
 * the test reset, after the worker is joined). */
static int finishing;

/* Gives the session's reserve back to the heap and as credit to the
 * calling thread (the worker), for its final step. */
static void release_reserve(wt_session *s) {
  if (s->reserve_released) return;
  s->reserve_released = 1;
  wt_mem_free(s->reserve);
  s->reserve = NULL;
  wt_mem_credit_add(s->reserve_bytes);
  finishing++;
}

/* The session no longer needs the credit its reserve gave. */
static void settle_reserve(wt_session *s) {
  wt_mem_free(s->reserve);
  s->reserve = NULL;
  if (!s->reserve_released || s->reserve_settled) return;
  s->reserve_settled = 1;
  if (--finishing <= 0) {
    finishing = 0;
    wt_mem_credit_clear();
  }
}

/* An allocation of the session was refused (`n` of them): counted; the
 * first one while it records stops it early, and its reserve is released
 * so that it can finish. Worker only. */
static void note_no_memory(wt_session *s, uint64_t n) {
  atomic_fetch_add_explicit(&s->alloc_refused, n, memory_order_relaxed);
  int st = atomic_load_explicit(&s->state, memory_order_acquire);
  if (st == WT_SESSION_STOPPING) release_reserve(s); /* finishing: counted, not "stopped early" */
  if (st != WT_SESSION_RUNNING) return; /* before it starts, prealloc says it */
  if (atomic_exchange_explicit(&s->oom_stop, 1, memory_order_relaxed)) return;
  release_reserve(s);
  atomic_store_explicit(&s->stop_requested, 1, memory_order_release);
  /* Said on the main thread once the file is complete (wt_session_log_end):
   * a console line from a worker may be lost, or (Node, Emscripten 3.1.69)
   * turn the process's exit status into 1. */
}

void wt_session_log_end(const wt_session *s) {
  if (!atomic_load_explicit(&s->oom_stop, memory_order_relaxed)) return;
  char line[WT_NAME_MAX + 200];
  snprintf(line, sizeof line,
           "session '%s' stopped early: out of memory (%llu allocations refused); its trace keeps what "
           "it recorded",
           s->config.name, (unsigned long long)atomic_load(&s->alloc_refused));
  wt_platform_log_error(line);
}

/* The output queue could not have a block: stop early, then wait for the
 * main thread to give one back while the session lives. */
static int out_no_memory(void *owner, int waited) {
  wt_session *s = owner;
  if (!waited) {
    note_no_memory(s, 1);
    return 1;
  }
  return waited < NO_MEMORY_WAIT_STEPS &&
         atomic_load_explicit(&s->state, memory_order_acquire) != WT_SESSION_FAILED;
}

/* Console lines of failed sessions printed so far in the page's life. */
static _Atomic uint32_t failure_lines;

void wt_session_log_failure(const char *name, const char *error) {
  uint32_t n = atomic_fetch_add_explicit(&failure_lines, 1, memory_order_relaxed);
  if (n > WT_FAILURE_LINES_MAX) return;
  char line[WT_ERROR_MAX + WT_NAME_MAX + 80];
  if (n < WT_FAILURE_LINES_MAX)
    snprintf(line, sizeof line, "session '%s' failed: %s", name, error);
  else
    snprintf(line, sizeof line,
             "session '%s' failed too; %d session failures were printed, further ones are not "
             "(each session's error and state stay readable from JS and C)",
             name, WT_FAILURE_LINES_MAX);
  wt_platform_log_error(line);
}

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
  wt_session_log_failure(s->config.name, s->error);
  /* App threads stop writing its events. */
  if (s->host && s->host->categories_changed) s->host->categories_changed();
}

size_t wt_session_memory(wt_session *s) {
  size_t state = s->encoder && s->encoder_state ? s->encoder->state_bytes : 0;
  return s->samples.cap * SAMPLE_BYTES + wt_ring_bytes(&s->events) + s->node_cap * NODE_BYTES + state +
         s->encoder_retained + (size_t)wt_outq_in_flight(&s->out);
}

void wt_session_note_memory(wt_session *s) {
  size_t m = wt_session_memory(s);
  if (m > atomic_load_explicit(&s->high_water, memory_order_relaxed))
    atomic_store_explicit(&s->high_water, (uint32_t)m, memory_order_relaxed);
}

static const wt_encoder *encoder_for(wt_format format) {
  switch (format) {
    case WT_FORMAT_CHROME: return &wt_encoder_chrome;
    case WT_FORMAT_FIREFOX: return &wt_encoder_firefox;
    case WT_FORMAT_FOLDED: return &wt_encoder_folded;
    default: return NULL;
  }
}

/* The smallest memory limit (bytes) that leaves the buffers at least as
 * much as the encoder's fixed state takes. */
static size_t limit_needed(const wt_encoder *e) { return e ? 2 * e->state_bytes : 0; }

/* Takes the encoder's fixed state off the memory limit, splits the rest
 * between the buffers, and gives the encoder the part of them it declared
 * it keeps: a share of the pending samples and events (at least 16 entries
 * stay pending) and bits per call-tree node. 0 if the limit is below
 * limit_needed (the budgets are then left unset). */
static int set_budgets(wt_session *s) {
  if (!s->samples.elem) wt_ring_init(&s->samples, sizeof(wt_sample));
  if (!s->events.elem) wt_ring_init(&s->events, sizeof(wt_event_rec));
  const wt_encoder *e = encoder_for(s->config.format);
  size_t limit = (size_t)s->config.max_buffer_kb * 1024;
  if (limit < limit_needed(e)) return 0;
  if (e) limit -= e->state_bytes;
  s->budget_samples = limit / 100 * SHARE_SAMPLES / SAMPLE_BYTES;
  s->budget_events = limit / 100 * SHARE_EVENTS / sizeof(wt_event_rec);
  s->budget_nodes = limit / 100 * SHARE_NODES / NODE_BYTES;
  s->budget_out = limit / 100 * SHARE_OUT;
  s->retain_sample_bytes = s->retain_event_bytes = 0;
  if (!e) return 1;
  if (e->retain_samples_pct) {
    size_t keep = s->budget_samples * (100 - e->retain_samples_pct) / 100;
    s->retain_sample_bytes = (s->budget_samples - keep) * SAMPLE_BYTES;
    s->budget_samples = keep > 16 ? keep : 16;
  }
  if (e->retain_events_pct) {
    size_t keep = s->budget_events * (100 - e->retain_events_pct) / 100;
    s->retain_event_bytes = (s->budget_events - keep) * sizeof(wt_event_rec);
    s->budget_events = keep > 16 ? keep : 16;
  }
  if (e->bits_per_node)
    s->budget_nodes = s->budget_nodes * NODE_BYTES * 8 / (NODE_BYTES * 8 + e->bits_per_node);
  return 1;
}

/* Makes room for one entry in a pending ring; counts a dropped entry. A
 * growth refused for lack of memory is a full ring, and stops the session
 * early (note_no_memory). */
static int make_room(wt_session *s, wt_ring *r, size_t budget, _Atomic uint64_t *dropped) {
  wt_ring_room room = wt_ring_make_room(r, budget, INITIAL_ENTRIES, s->config.when_full == WT_FULL_RING);
  if (room == WT_RING_FREE) return 1;
  if (room == WT_RING_GREW) {
    wt_session_note_memory(s);
    return 1;
  }
  if (r->cap < budget) note_no_memory(s, 1); /* it could not grow */
  if (dropped) atomic_fetch_add_explicit(dropped, 1, memory_order_relaxed);
  return room == WT_RING_EVICTED;
}

static int grow_nodes(wt_session *s);

/* The batch scratch follows the sample ring's capacity. */
static void grow_sort_tmp(wt_session *s) {
  if (s->sort_tmp && s->sort_cap >= s->samples.cap) return;
  uint32_t *tmp = wt_mem_realloc(s->sort_tmp, s->samples.cap * sizeof *tmp);
  if (!tmp) {
    note_no_memory(s, 1); /* sort_batch takes fewer at a time */
    return;
  }
  s->sort_tmp = tmp;
  s->sort_cap = s->samples.cap;
}

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* Output blocks: a quarter of the output budget each, so that at least a
 * few fit; 64 KiB at most (zlib output arrives in 16 KiB pieces). */
static size_t block_size_for(const wt_session *s) {
  size_t block = WT_BLOCK_SIZE_MAX;
  while (block > WT_BLOCK_SIZE_MIN && block * 4 > s->budget_out) block /= 2;
  return block;
}

static size_t reserve_size(const wt_session *s) {
  const wt_encoder *e = encoder_for(s->config.format);
  return (e ? e->state_bytes : 0) + RESERVE_SCRATCH;
}

/* The call tree's first capacity (grow_nodes). */
static size_t first_nodes(const wt_session *s) {
  size_t n = INITIAL_ENTRIES;
  if (n > s->budget_nodes) {
    n = s->budget_nodes;
    while (n & (n - 1)) n &= n - 1;
  }
  return n;
}

size_t wt_session_start_bytes(const wt_session *s) {
  size_t nodes = first_nodes(s), slots = 16;
  while (slots < 2 * nodes) slots *= 2;
  size_t samples = min_size(INITIAL_ENTRIES, s->budget_samples);
  size_t bytes = WT_MAX_THREADS * sizeof(wt_session_thread) + samples * SAMPLE_BYTES +
                 min_size(INITIAL_ENTRIES, s->budget_events) * sizeof(wt_event_rec) +
                 nodes * sizeof(wt_node) + slots * sizeof(uint32_t) +
                 2 * (sizeof(wt_block) + block_size_for(s)) + reserve_size(s);
  if (s->config.gzip) bytes += sizeof(wt_gzip_sink) + WT_GZIP_STATE_BYTES;
  return bytes;
}

wt_status wt_session_prealloc(wt_session *s) {
  /* A limit too small for the format: the worker fails the session with
   * the reason when it adopts it (wt_session_setup_sampling). */
  if (!set_budgets(s)) return WT_OK;
  size_t need = wt_session_start_bytes(s), avail = wt_mem_available();
  int ok = avail == SIZE_MAX || need <= avail;
  if (ok) {
    if (!s->threads) s->threads = wt_mem_calloc(WT_MAX_THREADS, sizeof *s->threads);
    ok = s->threads && wt_ring_resize(&s->samples, min_size(INITIAL_ENTRIES, s->budget_samples)) &&
         wt_ring_resize(&s->events, min_size(INITIAL_ENTRIES, s->budget_events));
    if (ok) {
      s->sort_tmp = wt_mem_alloc(s->samples.cap * sizeof *s->sort_tmp);
      s->sort_cap = s->sort_tmp ? s->samples.cap : 0;
    }
    ok = ok && s->sort_tmp && grow_nodes(s) && wt_session_setup_output(s) == WT_OK;
    if (ok) {
      s->reserve_bytes = reserve_size(s);
      ok = (s->reserve = wt_mem_alloc(s->reserve_bytes)) != NULL;
    }
    if (ok) wt_session_note_memory(s);
  }
  if (ok) return WT_OK;
  /* Nobody else has seen the session: undo it all. */
  wt_session_free_buffers(s);
  if (atomic_load_explicit(&s->output_ready, memory_order_relaxed)) wt_outq_free(&s->out);
  atomic_store_explicit(&s->output_ready, 0, memory_order_relaxed);
  s->encoder_sink = NULL;
  size_t kib = (need + 1023) / 1024;
  if (avail == SIZE_MAX) /* no heap limit known (host): the allocator refused */
    snprintf(s->error, sizeof s->error, "needs %zu KiB to start, and the allocator refused part of it",
             kib);
  else if (need <= avail) /* the room was there when checked: another thread took it */
    snprintf(s->error, sizeof s->error,
             "needs %zu KiB to start, and the wasm heap refused part of it (%zu KiB free when checked)",
             kib, avail / 1024);
  else
    snprintf(s->error, sizeof s->error,
             "needs %zu KiB to start, the wasm heap has %zu KiB free: free memory in the app or give it "
             "a larger heap (-sINITIAL_MEMORY, or -sALLOW_MEMORY_GROWTH with -sMAXIMUM_MEMORY)",
             kib, avail / 1024);
  return WT_ERR_NO_MEMORY;
}

wt_status wt_session_setup_sampling(wt_session *s, double now_us) {
  (void)now_us; /* the first deadline is the worker's (worker.c) */
  s->encoder = encoder_for(s->config.format);
  if (!s->encoder) return WT_ERR_UNSUPPORTED;
  if (!set_budgets(s)) {
    size_t need = limit_needed(s->encoder);
    wt_session_fail(s, "maxBufferKB is %u, below the %zu that the %s format needs",
                    (unsigned)s->config.max_buffer_kb, (need + 1023) / 1024, s->encoder->name);
    return WT_ERR_CONFIG;
  }
  /* start_us was set when the session was created: events from then on
   * belong to it even if the worker adopts it later. */
  s->worker_busy_at_start = 0;
  if (s->host && s->host->worker_times) {
    double created, started;
    s->host->worker_times(&created, &started, &s->worker_busy_at_start);
  }
  if (!s->threads) s->threads = wt_mem_calloc(WT_MAX_THREADS, sizeof *s->threads);
  return s->threads ? WT_OK : WT_ERR_NO_MEMORY;
}

wt_status wt_session_setup_output(wt_session *s) {
  if (s->encoder_sink) return WT_OK;
  wt_status st = wt_outq_init(&s->out, block_size_for(s));
  if (st != WT_OK) return st;
  s->out.on_no_memory = out_no_memory;
  s->out.owner = s;
  s->out.tee = s->stream;
  if (s->config.gzip) {
    s->gzip = wt_mem_alloc(sizeof *s->gzip);
    st = s->gzip ? wt_gzip_sink_init(s->gzip, &s->out.base, s->config.gzip_level) : WT_ERR_NO_MEMORY;
    if (st != WT_OK) {
      /* output_ready stays 0, so nobody else frees these: undo it all. */
      wt_mem_free(s->gzip);
      s->gzip = NULL;
      wt_outq_free(&s->out);
      return st;
    }
    s->encoder_sink = &s->gzip->base;
  } else {
    s->encoder_sink = &s->out.base;
  }
  wt_json_init(&s->json, s->encoder_sink);
  atomic_store_explicit(&s->output_ready, 1, memory_order_release);
  return WT_OK;
}

void wt_session_free_buffers(wt_session *s) {
  if (s->encoder && s->encoder->free) s->encoder->free(s->encoder_state);
  s->encoder_state = NULL;
  s->encoder_retained = 0;
  wt_ring_free(&s->samples);
  wt_ring_free(&s->events);
  wt_u32map_free(&s->node_index);
  wt_mem_free(s->nodes);
  wt_mem_free(s->sort_tmp);
  wt_mem_free(s->threads);
  settle_reserve(s);
  s->threads = NULL;
  s->nodes = NULL;
  s->sort_tmp = NULL;
  s->sort_cap = 0;
  s->node_cap = s->node_count = 0;
  if (s->gzip) {
    wt_gzip_sink_free(s->gzip);
    wt_mem_free(s->gzip);
    s->gzip = NULL;
  }
}

static uint32_t node_hash(const wt_node *n) { return wt_u32map_hash3(n->thread, n->parent, n->frame); }

static void index_node(wt_session *s, uint32_t id) {
  wt_u32map *m = &s->node_index;
  uint32_t i = wt_u32map_first(m, node_hash(&s->nodes[id - 1]));
  while (wt_u32map_get(m, i)) i = wt_u32map_next(m, i);
  wt_u32map_set(m, i, id);
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
  wt_node *nodes = wt_mem_realloc(s->nodes, new_cap * sizeof *nodes);
  if (!nodes) {
    note_no_memory(s, 1);
    return 0;
  }
  s->nodes = nodes;
  wt_u32map index;
  if (!wt_u32map_init(&index, 2 * new_cap, 0)) {
    note_no_memory(s, 1);
    return 0;
  }
  wt_u32map_free(&s->node_index);
  s->node_index = index;
  s->node_cap = new_cap;
  for (uint32_t id = 1; id <= s->node_count; id++) index_node(s, id);
  wt_session_note_memory(s);
  return 1;
}

/* The node for (thread, parent, frame), created if needed; 0 if the table
 * is full. */
static uint32_t node_get(wt_session *s, uint16_t thread, uint32_t parent, uint32_t frame) {
  const wt_node key = {.parent = parent, .frame = frame, .thread = thread};
  if (s->node_cap) {
    const wt_u32map *m = &s->node_index;
    uint32_t id;
    for (uint32_t i = wt_u32map_first(m, node_hash(&key)); (id = wt_u32map_get(m, i)) != 0;
         i = wt_u32map_next(m, i)) {
      const wt_node *n = &s->nodes[id - 1];
      if (n->parent == parent && n->frame == frame && n->thread == thread) return id;
    }
  }
  if (s->node_count == s->node_cap && !grow_nodes(s)) return 0;
  uint32_t id = ++s->node_count;
  s->nodes[id - 1] = key;
  index_node(s, id);
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

/* The child of `node` for `frame`; when the node table is full, the
 * thread's one "(truncated)" node under its root (the part of the stack
 * that did fit says nothing about the part that did not), and *cut is set.
 * 0 only if even that cannot be made. */
static uint32_t child_or_truncated(wt_session *s, wt_session_thread *st, uint16_t slot,
                                   uint32_t node, uint32_t frame, int *cut) {
  uint32_t child = node_get(s, slot, node, frame);
  if (child) return child;
  *cut = 1;
  if (!st->truncated) st->truncated = node_get(s, slot, st->root, WT_NODE_TRUNCATED);
  return st->truncated ? st->truncated : node;
}

void wt_session_record_sample(wt_session *s, uint16_t slot, const uint32_t *frames, int n,
                              double ts_us, uint32_t flags) {
  atomic_fetch_add_explicit(&s->samples_taken, 1, memory_order_relaxed);
  if (flags & WT_SAMPLE_PARTIAL) atomic_fetch_add_explicit(&s->samples_partial, 1, memory_order_relaxed);
  if (flags & WT_SAMPLE_WAITING) atomic_fetch_add_explicit(&s->samples_waiting, 1, memory_order_relaxed);
  wt_session_thread *st = see_thread(s, slot);
  if (!make_room(s, &s->samples, s->budget_samples, &s->samples_dropped_full)) return;
  grow_sort_tmp(s);
  /* Grid periods since this thread's previous recorded sample (encoder.h). */
  uint32_t weight = 1;
  if (!st->root) {
    st->root = node_get(s, slot, 0, WT_NODE_ROOT);
    st->first_us = ts_us;
  } else if (s->config.interval_us > 0) {
    double p = s->config.interval_us, periods = floor(ts_us / p) - floor(st->last_us / p);
    weight = periods < 1 ? 1 : periods > UINT16_MAX ? UINT16_MAX : (uint32_t)periods;
  }
  uint32_t node = st->root;
  if (n == 0 && !flags) {
    if (!st->idle) st->idle = node_get(s, slot, st->root, WT_NODE_IDLE);
    node = st->idle;
  } else {
    int cut = 0;
    for (int i = 0; i < n && node && !cut; i++) node = child_or_truncated(s, st, slot, node, frames[i], &cut);
    if (node && !cut && (flags & WT_SAMPLE_PARTIAL))
      node = child_or_truncated(s, st, slot, node, WT_NODE_PARTIAL, &cut);
    if (node && !cut && (flags & WT_SAMPLE_WAITING))
      node = child_or_truncated(s, st, slot, node, WT_NODE_WAITING, &cut);
  }
  if (!node) { /* table full before this thread's root existed */
    atomic_fetch_add_explicit(&s->samples_dropped_full, 1, memory_order_relaxed);
    return;
  }
  st->last_us = ts_us;
  *(wt_sample *)wt_ring_push(&s->samples) = (wt_sample){.ts_us = ts_us, .node = node, .thread = slot, .weight = (uint16_t)weight};
}

void wt_session_record_torn(wt_session *s) {
  atomic_fetch_add_explicit(&s->samples_taken, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&s->samples_torn, 1, memory_order_relaxed);
}

void wt_session_record_event(wt_session *s, const wt_event_rec *rec) {
  if (rec->thread != WT_PROCESS_THREAD) see_thread(s, rec->thread);
  if (!make_room(s, &s->events, s->budget_events, &s->events_dropped)) return;
  *(wt_event_rec *)wt_ring_push(&s->events) = *rec;
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

/* Sorts the k oldest pending samples by thread (counting sort, keeping
 * time order): order[] gets ring positions, group[t] where thread t starts. */
static size_t sort_batch(wt_session *s, size_t k, uint32_t group[WT_MAX_THREADS + 1]) {
  if (k > s->samples.count) k = s->samples.count;
  if (k > s->sort_cap) k = s->sort_cap; /* scratch could not grow */
  memset(group, 0, (WT_MAX_THREADS + 1) * sizeof *group);
  const wt_sample *base = (const wt_sample *)s->samples.data;
  size_t head = s->samples.head, cap = s->samples.cap;
  for (size_t i = 0; i < k; i++) group[base[(head + i) % cap].thread + 1]++;
  for (int t = 0; t < WT_MAX_THREADS; t++) group[t + 1] += group[t];
  uint32_t pos[WT_MAX_THREADS];
  memcpy(pos, group, sizeof pos);
  for (size_t i = 0; i < k; i++) {
    uint32_t at = (uint32_t)((head + i) % cap);
    s->sort_tmp[pos[base[at].thread]++] = at;
  }
  return k;
}

/* The threads' names as they are now, for the encoder's view. */
static uint32_t snapshot_threads(wt_session *s) {
  uint32_t n = wt_registry_count();
  if (n > WT_MAX_THREADS) n = WT_MAX_THREADS;
  for (uint32_t slot = 0; slot < n; slot++) {
    wt_session_thread *st = &s->threads[slot];
    if (!st->seen) continue;
    wt_thread *t = wt_registry_get(slot);
    if (t) {
      wt_registry_thread_name(t, st->name);
      /* A thread registered as it started, still unnamed by the app, is
       * named after its start routine too: "pthread 3 (decoder_main)". */
      uint32_t start = wt_registry_thread_start(t);
      size_t len = strlen(st->name);
      if (start && len + 4 < sizeof st->name) {
        /* " (routine)", cut whole characters first and ")" kept. */
        char routine[WT_THREAD_NAME_MAX];
        wt_json_utf8_copy(routine, sizeof st->name - len - 3, wt_symbols_function_name(start - 1));
        snprintf(st->name + len, sizeof st->name - len, " (%s)", routine);
      }
    } else {
      snprintf(st->name, sizeof st->name, "thread %u", (unsigned)slot);
    }
    st->is_main = t && t->is_main;
  }
  return n;
}

wt_status wt_session_encode_step(wt_session *s, size_t max_batch, int final) {
  if (s->footer_written) return WT_OK;
  if (!s->encoder || !s->encoder_sink || !s->threads) return WT_ERR_INVALID_ARG;
  uint32_t group[WT_MAX_THREADS + 1];
  wt_encode_view v = {
      .config = &s->config,
      .start_us = s->start_us,
      .stop_us = s->stop_us,
      .final = final,
      .nodes = s->nodes,
      .node_count = s->node_count,
      .node_cap = s->node_cap,
      .threads = s->threads,
      .nthreads = snapshot_threads(s),
      .samples = (const wt_sample *)s->samples.data,
      .order = s->sort_tmp,
      .group = group,
      .events = &s->events,
      .retain_sample_bytes = s->retain_sample_bytes,
      .retain_event_bytes = s->retain_event_bytes,
  };
  /* The final step finishes on the reserve taken at start, whatever the
   * heap can still give. */
  if (final) release_reserve(s);
  v.nsamples = sort_batch(s, final ? s->samples.count : max_batch, group);
  v.nevents = final || s->events.count < max_batch ? s->events.count : max_batch;
  wt_session_stats_snapshot(s, &v.stats);

  wt_encode_tally t = {.retained_bytes = s->encoder_retained};
  wt_status st = s->encoder->step(&s->encoder_state, &v, &s->json, &t);
  if (t.alloc_failures) note_no_memory(s, t.alloc_failures);
  /* Nothing of the batch was taken: it waits for the final step, which
   * has the reserve. */
  if (st == WT_ERR_NO_MEMORY && !final) return WT_OK;

  /* The batch is consumed whatever happened: this session alone counts it. */
  wt_ring_drop(&s->samples, v.nsamples);
  wt_ring_drop(&s->events, v.nevents);
  uint64_t dropped = t.samples_dropped < v.nsamples ? t.samples_dropped : v.nsamples;
  atomic_fetch_add_explicit(&s->samples_written, v.nsamples - dropped, memory_order_relaxed);
  atomic_fetch_add_explicit(&s->samples_dropped_full, dropped, memory_order_relaxed);
  atomic_fetch_add_explicit(&s->events_written, t.events_written, memory_order_relaxed);
  atomic_fetch_add_explicit(&s->events_dropped, t.events_dropped, memory_order_relaxed);
  s->encoder_retained = t.retained_bytes;
  if (st == WT_OK) st = wt_json_flush(&s->json);
  wt_session_note_memory(s);
  if (st != WT_OK || !final) return st;
  atomic_store_explicit(&s->bytes_encoded, s->encoder_sink->bytes_in, memory_order_relaxed);
  s->footer_written = 1;
  return wt_sink_close(s->encoder_sink);
}

const char *wt_encode_frame_name(uint32_t frame) {
  switch (frame) {
    case WT_NODE_ROOT: return "(root)";
    case WT_NODE_IDLE: return "(idle)";
    case WT_NODE_TRUNCATED: return "(truncated)";
    case WT_NODE_PARTIAL: return "(partial stack)";
    case WT_NODE_WAITING: return "(waiting)";
    default: break;
  }
  if (frame & WT_FRAME_SCOPE_BIT) {
    const char *name = wt_registry_scope_name(frame);
    return name ? name : "(unknown scope)";
  }
  return wt_symbols_function_name(frame);
}

const uint32_t *wt_node_chain(const wt_encode_view *v, uint32_t id, int skip_root,
                              int (*stop)(const void *ctx, uint32_t node), const void *ctx,
                              uint32_t buf[WT_NODE_CHAIN_MAX], int *n, uint32_t *above) {
  uint32_t *at = buf + WT_NODE_CHAIN_MAX;
  while (id && at > buf && !(stop && stop(ctx, id)) &&
         !(skip_root && v->nodes[id - 1].frame == WT_NODE_ROOT)) {
    *--at = id;
    id = v->nodes[id - 1].parent;
  }
  *n = (int)(buf + WT_NODE_CHAIN_MAX - at);
  if (above) *above = id;
  return at;
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
/* A streamed session flushes ten times as often: a tool sees its bytes
 * within ~100 ms (a Z_SYNC_FLUSH costs a few bytes). */
#define FLUSH_EVERY_US_STREAMED 100000.0

wt_status wt_session_flush_point(wt_session *s, double now_us) {
  uint64_t encoded = s->encoder_sink->bytes_in;
  atomic_store_explicit(&s->bytes_encoded, encoded, memory_order_relaxed);
  if (encoded == s->last_flush_bytes) return WT_OK;
  double every = s->stream ? FLUSH_EVERY_US_STREAMED : FLUSH_EVERY_US;
  if (encoded - s->last_flush_bytes < FLUSH_EVERY_BYTES && now_us - s->last_flush_us < every)
    return WT_OK;
  s->last_flush_bytes = encoded;
  s->last_flush_us = now_us;
  return wt_sink_flush(s->encoder_sink);
}

void wt_session_stats_snapshot(const wt_session *s, wt_stats_rec *o) {
  *o = (wt_stats_rec){
      .samples_taken = atomic_load(&s->samples_taken),
      .samples_written = atomic_load(&s->samples_written),
      .samples_full = atomic_load(&s->samples_dropped_full),
      .samples_torn = atomic_load(&s->samples_torn),
      .samples_partial = atomic_load(&s->samples_partial),
      .samples_waiting = atomic_load(&s->samples_waiting),
      .events_written = atomic_load(&s->events_written),
      .events_dropped = atomic_load(&s->events_dropped),
      .ticks_missed = atomic_load(&s->ticks_missed),
      .threads_dropped = wt_registry_threads_dropped(),
      .threads_seen = atomic_load(&s->threads_seen),
      .high_water = atomic_load(&s->high_water),
      .lateness_p50 = wt_session_lateness_percentile(s, 50),
      .lateness_p99 = wt_session_lateness_percentile(s, 99),
      .lateness_max_us = s->lateness_max_us,
      .encode_us = s->encode_us,
      .allocations_refused = atomic_load(&s->alloc_refused),
      .stopped_early_oom = atomic_load(&s->oom_stop),
  };
  uint64_t busy = 0;
  if (s->host && s->host->worker_times)
    s->host->worker_times(&o->worker_created_us, &o->worker_started_us, &busy);
  o->worker_busy_us = busy - s->worker_busy_at_start;
}

void wt_encode_write_session(const wt_encode_view *v, wt_json *j) {
  const wt_session_config *c = v->config;
  static const char *const formats[] = {"chrome", "firefox", "folded"};
  wt_json_lit(j, "\"version\":\"" WT_VERSION_STRING "\",\"session\":");
  wt_json_string(j, c->name);
  wt_json_lit(j, ",\"format\":");
  wt_json_string(j, (unsigned)c->format < 3 ? formats[c->format] : "unknown");
  wt_json_lit(j, ",\"output\":");
  wt_json_string(j, c->output);
  wt_json_lit(j, ",\"samplingEnabled\":");
  wt_json_lit(j, c->sampling ? "true" : "false");
  wt_json_lit(j, ",\"intervalUs\":");
  wt_json_u64(j, c->interval_us);
  wt_json_lit(j, ",\"durationMs\":");
  wt_json_u64(j, c->duration_ms);
  wt_json_lit(j, ",\"maxBufferKB\":");
  wt_json_u64(j, c->max_buffer_kb);
  wt_json_lit(j, ",\"whenFull\":");
  wt_json_lit(j, c->when_full == WT_FULL_RING ? "\"ring\"" : "\"stop\"");
  wt_json_lit(j, ",\"categories\":[");
  for (int i = 0; i < c->category_count; i++) {
    if (i) wt_json_lit(j, ",");
    wt_json_string(j, c->categories[i]);
  }
  wt_json_lit(j, "],\"startTimeUs\":");
  wt_json_double3(j, v->start_us);
}

/* Its members are the trace paths of stats_list.h (tests/node/counters.test.mjs
 * checks the golden traces against the list). */
void wt_encode_write_stats(const wt_encode_view *v, const wt_encode_tally *t, wt_json *j) {
  const wt_stats_rec *r = &v->stats;
  uint64_t lost = t->samples_dropped < v->nsamples ? t->samples_dropped : v->nsamples;
  uint64_t torn = r->samples_torn, full = r->samples_full + lost;
  wt_json_lit(j, "\"samplesTaken\":");
  wt_json_u64(j, r->samples_taken);
  wt_json_lit(j, ",\"samplesWritten\":");
  wt_json_u64(j, r->samples_written + v->nsamples - lost);
  wt_json_lit(j, ",\"samplesDropped\":");
  wt_json_u64(j, torn + full);
  wt_json_lit(j, ",\"dropped\":{\"bufferFull\":");
  wt_json_u64(j, full);
  wt_json_lit(j, ",\"tornStack\":");
  wt_json_u64(j, torn);
  wt_json_lit(j, ",\"events\":");
  wt_json_u64(j, r->events_dropped + t->events_dropped);
  wt_json_lit(j, ",\"threadsNotRegistered\":");
  wt_json_u64(j, r->threads_dropped);
  /* Kept samples, not drops: only a true prefix of their stack is known. */
  wt_json_lit(j, "},\"partialStack\":");
  wt_json_u64(j, r->samples_partial);
  /* Samples whose thread was blocked in a wait (they keep their stack,
   * with a "(waiting)" leaf). */
  wt_json_lit(j, ",\"waiting\":");
  wt_json_u64(j, r->samples_waiting);
  wt_json_lit(j, ",\"eventsWritten\":");
  wt_json_u64(j, r->events_written + t->events_written);
  wt_json_lit(j, ",\"ticksMissed\":");
  wt_json_u64(j, r->ticks_missed);
  wt_json_lit(j, ",\"encodeUs\":");
  wt_json_double3(j, r->encode_us);
  wt_json_lit(j, ",\"workerCreatedUs\":");
  wt_json_double3(j, r->worker_created_us);
  wt_json_lit(j, ",\"workerStartedUs\":");
  wt_json_double3(j, r->worker_started_us);
  wt_json_lit(j, ",\"workerBusyUs\":");
  wt_json_u64(j, r->worker_busy_us);
  wt_json_lit(j, ",\"samplerLatenessUs\":{\"p50Below\":");
  wt_json_u64(j, r->lateness_p50);
  wt_json_lit(j, ",\"p99Below\":");
  wt_json_u64(j, r->lateness_p99);
  wt_json_lit(j, ",\"max\":");
  wt_json_double3(j, r->lateness_max_us);
  wt_json_lit(j, "},\"threads\":");
  wt_json_u64(j, r->threads_seen);
  wt_json_lit(j, ",\"startTimeUs\":");
  wt_json_double3(j, v->start_us);
  wt_json_lit(j, ",\"stopTimeUs\":");
  wt_json_double3(j, v->stop_us);
  wt_json_lit(j, ",\"bufferHighWaterBytes\":");
  wt_json_u64(j, r->high_water);
  /* Only when memory ran out (outputs without it stay as they were). */
  if (r->allocations_refused || r->stopped_early_oom || t->alloc_failures) {
    wt_json_lit(j, ",\"allocationsRefused\":");
    wt_json_u64(j, r->allocations_refused + t->alloc_failures);
  }
  if (r->stopped_early_oom) wt_json_lit(j, ",\"stoppedEarly\":\"out of memory\"");
  if (t->lost) {
    wt_json_lit(j, ",\"lost\":");
    wt_json_string(j, t->lost);
  }
}
