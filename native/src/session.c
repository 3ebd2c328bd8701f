/* Session buffers: samples as call-tree nodes, scopes, bounded memory
 * (the session record's `rec`; session_encode.c encodes what they hold). */
#include "session.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
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
void wt_session_release_reserve(wt_session *s) {
  if (s->rec.reserve_released) return;
  s->rec.reserve_released = 1;
  wt_mem_free(s->rec.reserve);
  s->rec.reserve = NULL;
  wt_mem_credit_add(s->rec.reserve_bytes);
  finishing++;
}

/* The session no longer needs the credit its reserve gave. */
static void settle_reserve(wt_session *s) {
  wt_mem_free(s->rec.reserve);
  s->rec.reserve = NULL;
  if (!s->rec.reserve_released || s->rec.reserve_settled) return;
  s->rec.reserve_settled = 1;
  if (--finishing <= 0) {
    finishing = 0;
    wt_mem_credit_clear();
  }
}

/* An allocation of the session was refused (`n` of them): counted; the
 * first one while it records stops it early. While it records, the
 * reserve stays taken: it is released once the session finishes (a
 * refusal while it stops, the output queue's hook below, the final step),
 * so that as little as can be of the app's allocations comes between its
 * release and its use (a fresh-clone run under load, Emscripten 3.1.69,
 * once failed its final step "out of memory" when the reserve was
 * released at a refusal while recording, long before the final step).
 * Worker only. */
void wt_session_note_no_memory(wt_session *s, uint64_t n) {
  atomic_fetch_add_explicit(&s->alloc_refused, n, memory_order_relaxed);
  int st = atomic_load_explicit(&s->state, memory_order_acquire);
  if (st == WT_SESSION_STOPPING) wt_session_release_reserve(s); /* finishing: counted, not "stopped early" */
  if (st != WT_SESSION_RUNNING) return; /* before it starts, prealloc says it */
  if (atomic_exchange_explicit(&s->oom_stop, 1, memory_order_relaxed)) return;
  atomic_store_explicit(&s->stop_requested, 1, memory_order_release);
  /* Said on the main thread once the file is complete (wt_session_log_end):
   * a console line from a worker may be lost, or (Node, Emscripten 3.1.69)
   * turn the process's exit status into 1. */
}

void wt_session_note_app_short(wt_session *s, size_t room, size_t keep) {
  if (atomic_load_explicit(&s->state, memory_order_acquire) != WT_SESSION_RUNNING) return;
  if (atomic_load_explicit(&s->oom_stop, memory_order_relaxed)) return; /* already stopping early */
  atomic_store_explicit(&s->app_short_room_kib, (uint32_t)(room / 1024), memory_order_relaxed);
  atomic_store_explicit(&s->app_short_keep_kib, (uint32_t)(keep / 1024), memory_order_relaxed);
  if (atomic_exchange_explicit(&s->app_short_stop, 1, memory_order_relaxed)) return;
  atomic_store_explicit(&s->stop_requested, 1, memory_order_release);
}

void wt_app_short_text(char *out, size_t cap, uint32_t room_kib, uint32_t keep_kib) {
  wt_snprintf(out, cap,
              "the app's heap ran low: %u KiB free, below the %u KiB wasmtrace keeps free for the app (its "
              "headroom and what wasmtrace held); the session stopped to give its memory back",
              (unsigned)room_kib, (unsigned)keep_kib);
}

int wt_session_stop_reason(const wt_session *s, char *out, size_t cap) {
  if (cap) out[0] = '\0';
  if (atomic_load_explicit(&s->app_short_stop, memory_order_relaxed)) {
    wt_app_short_text(out, cap, atomic_load(&s->app_short_room_kib), atomic_load(&s->app_short_keep_kib));
    return 1;
  }
  if (!atomic_load_explicit(&s->oom_stop, memory_order_relaxed)) return 0;
  wt_snprintf(out, cap, "out of memory (%llu allocations refused)",
              (unsigned long long)atomic_load(&s->alloc_refused));
  return 1;
}

void wt_session_log_end(const wt_session *s) {
  char why[WT_APP_SHORT_TEXT_MAX], line[WT_NAME_MAX + WT_APP_SHORT_TEXT_MAX + 60];
  if (!wt_session_stop_reason(s, why, sizeof why)) return;
  wt_snprintf(line, sizeof line, "session '%s' stopped early: %s; its trace keeps what it recorded",
              s->config.name, why);
  wt_platform_log_error(line);
}

/* The output queue could not have a block (on the worker, while it
 * encodes): stop early and release the reserve for the block, then wait
 * for the main thread to give one back while the session lives. */
static int out_no_memory(void *owner, int waited) {
  wt_session *s = owner;
  if (!waited) {
    wt_session_note_no_memory(s, 1);
    wt_session_release_reserve(s);
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
    wt_snprintf(line, sizeof line, "session '%s' failed: %s", name, error);
  else
    wt_snprintf(line, sizeof line,
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
  wt_vsnprintf(s->error, sizeof s->error, fmt, ap);
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
  size_t state = s->enc.encoder && s->enc.encoder_state ? s->enc.encoder->state_bytes : 0;
  return s->rec.samples.cap * SAMPLE_BYTES + wt_ring_bytes(&s->rec.events) + s->rec.node_cap * NODE_BYTES + state +
         s->enc.encoder_retained + (size_t)wt_outq_in_flight(&s->out);
}

void wt_session_note_memory(wt_session *s) {
  size_t m = wt_session_memory(s);
  if (m > atomic_load_explicit(&s->high_water, memory_order_relaxed))
    atomic_store_explicit(&s->high_water, (uint32_t)m, memory_order_relaxed);
}

/* The firefox and folded encoders: in a wasm build they are their own
 * archive (libwasmtrace_formats.a), which only apps that ask for them link
 * (wasmtrace_formats(app)): 11.1 kB of gzip'd download the others do not
 * pay. Weak references there, so that this file does not pull the archive
 * member in; NULL when it was not linked. The host library holds them all
 * (strong references, which pull them out of it). */
#ifdef __EMSCRIPTEN__
extern const wt_encoder wt_encoder_firefox __attribute__((weak));
extern const wt_encoder wt_encoder_folded __attribute__((weak));
#endif

static const wt_encoder *encoder_for(wt_format format) {
  switch (format) {
    case WT_FORMAT_CHROME: return &wt_encoder_chrome;
    case WT_FORMAT_FIREFOX: return &wt_encoder_firefox;
    case WT_FORMAT_FOLDED: return &wt_encoder_folded;
    default: return NULL;
  }
}

int wt_session_format_linked(wt_format format) { return encoder_for(format) != NULL; }

/* The smallest memory limit (bytes) that leaves the buffers at least as
 * much as the encoder's fixed state takes. */
static size_t limit_needed(const wt_encoder *e) { return e ? 2 * e->state_bytes : 0; }

/* Takes the encoder's fixed state off the memory limit, splits the rest
 * between the buffers, and gives the encoder the part of them it declared
 * it keeps: a share of the pending samples and events (at least 16 entries
 * stay pending) and bits per call-tree node. 0 if the limit is below
 * limit_needed (the budgets are then left unset). */
static int set_budgets(wt_session *s) {
  if (!s->rec.samples.elem) wt_ring_init(&s->rec.samples, sizeof(wt_sample));
  if (!s->rec.events.elem) wt_ring_init(&s->rec.events, sizeof(wt_event_rec));
  const wt_encoder *e = encoder_for(s->config.format);
  size_t limit = (size_t)s->config.max_buffer_kb * 1024;
  if (limit < limit_needed(e)) return 0;
  if (e) limit -= e->state_bytes;
  /* Its recorders' records wait with the events (the heap's allocations
   * and frees come in bursts, a loop of small blocks, between encode
   * steps): they move a share from the samples (recorders.h). */
  size_t shift = s->events_share_pct < SHARE_SAMPLES / 2 ? s->events_share_pct : SHARE_SAMPLES / 2;
  s->rec.budget_samples = limit / 100 * (SHARE_SAMPLES - shift) / SAMPLE_BYTES;
  s->rec.budget_events = limit / 100 * (SHARE_EVENTS + shift) / sizeof(wt_event_rec);
  s->rec.budget_nodes = limit / 100 * SHARE_NODES / NODE_BYTES;
  s->rec.budget_out = limit / 100 * SHARE_OUT;
  s->rec.retain_sample_bytes = s->rec.retain_event_bytes = 0;
  if (!e) return 1;
  if (e->retain_samples_pct) {
    size_t keep = s->rec.budget_samples * (100 - e->retain_samples_pct) / 100;
    s->rec.retain_sample_bytes = (s->rec.budget_samples - keep) * SAMPLE_BYTES;
    s->rec.budget_samples = keep > 16 ? keep : 16;
  }
  if (e->retain_events_pct) {
    size_t keep = s->rec.budget_events * (100 - e->retain_events_pct) / 100;
    s->rec.retain_event_bytes = (s->rec.budget_events - keep) * sizeof(wt_event_rec);
    s->rec.budget_events = keep > 16 ? keep : 16;
  }
  if (e->bits_per_node)
    s->rec.budget_nodes = s->rec.budget_nodes * NODE_BYTES * 8 / (NODE_BYTES * 8 + e->bits_per_node);
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
  if (r->cap < budget) wt_session_note_no_memory(s, 1); /* it could not grow */
  if (dropped) atomic_fetch_add_explicit(dropped, 1, memory_order_relaxed);
  return room == WT_RING_EVICTED;
}

static int grow_nodes(wt_session *s);

/* The batch scratch follows the sample ring's capacity. */
static void grow_sort_tmp(wt_session *s) {
  if (s->rec.sort_tmp && s->rec.sort_cap >= s->rec.samples.cap) return;
  uint32_t *tmp = wt_mem_realloc(s->rec.sort_tmp, s->rec.samples.cap * sizeof *tmp);
  if (!tmp) {
    wt_session_note_no_memory(s, 1); /* sort_batch takes fewer at a time */
    return;
  }
  s->rec.sort_tmp = tmp;
  s->rec.sort_cap = s->rec.samples.cap;
}

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* Output blocks: a quarter of the output budget each, so that at least a
 * few fit; 64 KiB at most (zlib output arrives in 16 KiB pieces). */
static size_t block_size_for(const wt_session *s) {
  size_t block = WT_BLOCK_SIZE_MAX;
  while (block > WT_BLOCK_SIZE_MIN && block * 4 > s->rec.budget_out) block /= 2;
  return block;
}

static size_t reserve_size(const wt_session *s) {
  const wt_encoder *e = encoder_for(s->config.format);
  return (e ? e->state_bytes : 0) + RESERVE_SCRATCH;
}

/* The call tree's first capacity (grow_nodes). */
static size_t first_nodes(const wt_session *s) {
  size_t n = INITIAL_ENTRIES;
  if (n > s->rec.budget_nodes) {
    n = s->rec.budget_nodes;
    while (n & (n - 1)) n &= n - 1;
  }
  return n;
}

size_t wt_session_start_bytes(const wt_session *s) {
  size_t nodes = first_nodes(s), slots = 16;
  while (slots < 2 * nodes) slots *= 2;
  size_t samples = min_size(INITIAL_ENTRIES, s->rec.budget_samples);
  size_t bytes = WT_MAX_THREADS * sizeof(wt_session_thread) + samples * SAMPLE_BYTES +
                 min_size(INITIAL_ENTRIES, s->rec.budget_events) * sizeof(wt_event_rec) +
                 nodes * sizeof(wt_node) + slots * sizeof(uint32_t) +
                 2 * (sizeof(wt_block) + block_size_for(s)) + reserve_size(s);
  if (s->config.gzip) bytes += sizeof(wt_gzip_sink) + WT_GZIP_STATE_BYTES;
  return bytes;
}

void wt_session_no_room_text(char *out, size_t cap, size_t need_kib, size_t avail) {
  wt_snprintf(out, cap,
              "needs %zu KiB to start, and may take %zu KiB of the wasm heap's %zu KiB free (at most half, "
              "leaving the app %zu KiB): free memory in the app or give it a larger heap (-sINITIAL_MEMORY, or "
              "-sALLOW_MEMORY_GROWTH with -sMAXIMUM_MEMORY)",
              need_kib, avail / 1024, wt_mem_heap_free() / 1024, wt_mem_app_keep() / 1024);
}

wt_status wt_session_prealloc(wt_session *s) {
  /* A limit too small for the format: the worker fails the session with
   * the reason when it adopts it (wt_session_setup_sampling). */
  if (!set_budgets(s)) return WT_OK;
  size_t need = wt_session_start_bytes(s), avail = wt_mem_available();
  int ok = avail == SIZE_MAX || need <= avail;
  if (ok) {
    if (!s->rec.threads) s->rec.threads = wt_mem_calloc(WT_MAX_THREADS, sizeof *s->rec.threads);
    ok = s->rec.threads && wt_ring_resize(&s->rec.samples, min_size(INITIAL_ENTRIES, s->rec.budget_samples)) &&
         wt_ring_resize(&s->rec.events, min_size(INITIAL_ENTRIES, s->rec.budget_events));
    if (ok) {
      s->rec.sort_tmp = wt_mem_alloc(s->rec.samples.cap * sizeof *s->rec.sort_tmp);
      s->rec.sort_cap = s->rec.sort_tmp ? s->rec.samples.cap : 0;
    }
    ok = ok && s->rec.sort_tmp && grow_nodes(s) && wt_session_setup_output(s) == WT_OK;
    if (ok) {
      s->rec.reserve_bytes = reserve_size(s);
      ok = (s->rec.reserve = wt_mem_alloc(s->rec.reserve_bytes)) != NULL;
    }
    if (ok) wt_session_note_memory(s);
  }
  if (ok) return WT_OK;
  /* Nobody else has seen the session: undo it all. */
  wt_session_free_buffers(s);
  if (atomic_load_explicit(&s->output_ready, memory_order_relaxed)) wt_outq_free(&s->out);
  atomic_store_explicit(&s->output_ready, 0, memory_order_relaxed);
  s->enc.encoder_sink = NULL;
  size_t kib = (need + 1023) / 1024;
  if (avail == SIZE_MAX) /* no heap limit known (host): the allocator refused */
    wt_snprintf(s->error, sizeof s->error, "needs %zu KiB to start, and the allocator refused part of it",
                kib);
  else if (need <= avail) /* the room was there when checked: another thread took it */
    wt_snprintf(s->error, sizeof s->error,
                "needs %zu KiB to start, and the wasm heap refused part of it (%zu KiB free when checked)",
                kib, avail / 1024);
  else
    wt_session_no_room_text(s->error, sizeof s->error, kib, avail);
  return WT_ERR_NO_MEMORY;
}

wt_status wt_session_setup_sampling(wt_session *s, double now_us) {
  (void)now_us; /* the first deadline is the sampler's (rec_samples.c) */
  s->enc.encoder = encoder_for(s->config.format);
  if (!s->enc.encoder) return WT_ERR_UNSUPPORTED;
  if (!set_budgets(s)) {
    size_t need = limit_needed(s->enc.encoder);
    wt_session_fail(s, "maxBufferKB is %u, below the %zu that the %s format needs",
                    (unsigned)s->config.max_buffer_kb, (need + 1023) / 1024, s->enc.encoder->name);
    return WT_ERR_CONFIG;
  }
  /* start_us was set when the session was created: events from then on
   * belong to it even if the worker adopts it later. */
  s->rec.worker_busy_at_start = 0;
  if (s->host && s->host->worker_times) {
    double created, started;
    s->host->worker_times(&created, &started, &s->rec.worker_busy_at_start);
  }
  if (!s->rec.threads) s->rec.threads = wt_mem_calloc(WT_MAX_THREADS, sizeof *s->rec.threads);
  return s->rec.threads ? WT_OK : WT_ERR_NO_MEMORY;
}

wt_status wt_session_setup_output(wt_session *s) {
  if (s->enc.encoder_sink) return WT_OK;
  wt_status st = wt_outq_init(&s->out, block_size_for(s));
  if (st != WT_OK) return st;
  s->out.on_no_memory = out_no_memory;
  s->out.owner = s;
  s->out.tee = s->stream;
  if (s->config.gzip) {
    s->enc.gzip = wt_mem_alloc(sizeof *s->enc.gzip);
    st = s->enc.gzip ? wt_gzip_sink_init(s->enc.gzip, &s->out.base, s->config.gzip_level) : WT_ERR_NO_MEMORY;
    if (st != WT_OK) {
      /* output_ready stays 0, so nobody else frees these: undo it all. */
      wt_mem_free(s->enc.gzip);
      s->enc.gzip = NULL;
      wt_outq_free(&s->out);
      return st;
    }
    s->enc.encoder_sink = &s->enc.gzip->base;
  } else {
    s->enc.encoder_sink = &s->out.base;
  }
  wt_json_init(&s->enc.json, s->enc.encoder_sink);
  atomic_store_explicit(&s->output_ready, 1, memory_order_release);
  return WT_OK;
}

void wt_session_free_buffers(wt_session *s) {
  if (s->enc.encoder && s->enc.encoder->free) s->enc.encoder->free(s->enc.encoder_state);
  s->enc.encoder_state = NULL;
  s->enc.encoder_retained = 0;
  wt_ring_free(&s->rec.samples);
  wt_ring_free(&s->rec.events);
  wt_u32map_free(&s->rec.node_index);
  wt_mem_free(s->rec.nodes);
  wt_mem_free(s->rec.sort_tmp);
  wt_mem_free(s->rec.threads);
  settle_reserve(s);
  s->rec.threads = NULL;
  s->rec.nodes = NULL;
  s->rec.sort_tmp = NULL;
  s->rec.sort_cap = 0;
  s->rec.node_cap = s->rec.node_count = 0;
  if (s->enc.gzip) {
    wt_gzip_sink_free(s->enc.gzip);
    wt_mem_free(s->enc.gzip);
    s->enc.gzip = NULL;
  }
}

static uint32_t node_hash(const wt_node *n) { return wt_u32map_hash3(n->thread, n->parent, n->frame); }

static void index_node(wt_session *s, uint32_t id) {
  wt_u32map *m = &s->rec.node_index;
  uint32_t i = wt_u32map_first(m, node_hash(&s->rec.nodes[id - 1]));
  while (wt_u32map_get(m, i)) i = wt_u32map_next(m, i);
  wt_u32map_set(m, i, id);
}

static int grow_nodes(wt_session *s) {
  if (s->rec.node_cap >= s->rec.budget_nodes) return 0;
  uint32_t new_cap = s->rec.node_cap ? s->rec.node_cap * 2 : INITIAL_ENTRIES;
  while (new_cap & (new_cap - 1)) new_cap &= new_cap - 1; /* power of two */
  if (new_cap > s->rec.budget_nodes) {
    /* The last step may not double: round the budget down to a power of two. */
    uint32_t b = (uint32_t)s->rec.budget_nodes;
    while (b & (b - 1)) b &= b - 1;
    if (b <= s->rec.node_cap) return 0;
    new_cap = b;
  }
  wt_node *nodes = wt_mem_realloc(s->rec.nodes, new_cap * sizeof *nodes);
  if (!nodes) {
    wt_session_note_no_memory(s, 1);
    return 0;
  }
  s->rec.nodes = nodes;
  wt_u32map index;
  if (!wt_u32map_init(&index, 2 * new_cap, 0)) {
    wt_session_note_no_memory(s, 1);
    return 0;
  }
  wt_u32map_free(&s->rec.node_index);
  s->rec.node_index = index;
  s->rec.node_cap = new_cap;
  for (uint32_t id = 1; id <= s->rec.node_count; id++) index_node(s, id);
  wt_session_note_memory(s);
  return 1;
}

/* The node for (thread, parent, frame), created if needed; 0 if the table
 * is full. */
static uint32_t node_get(wt_session *s, uint16_t thread, uint32_t parent, uint32_t frame) {
  const wt_node key = {.parent = parent, .frame = frame, .thread = thread};
  if (s->rec.node_cap) {
    const wt_u32map *m = &s->rec.node_index;
    uint32_t id;
    for (uint32_t i = wt_u32map_first(m, node_hash(&key)); (id = wt_u32map_get(m, i)) != 0;
         i = wt_u32map_next(m, i)) {
      const wt_node *n = &s->rec.nodes[id - 1];
      if (n->parent == parent && n->frame == frame && n->thread == thread) return id;
    }
  }
  if (s->rec.node_count == s->rec.node_cap && !grow_nodes(s)) return 0;
  uint32_t id = ++s->rec.node_count;
  s->rec.nodes[id - 1] = key;
  index_node(s, id);
  return id;
}

static wt_session_thread *see_thread(wt_session *s, uint16_t slot) {
  wt_session_thread *st = &s->rec.threads[slot];
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
  if (!make_room(s, &s->rec.samples, s->rec.budget_samples, &s->samples_dropped_full)) return;
  grow_sort_tmp(s);
  /* Grid periods since this thread's previous recorded sample (encoder.h). */
  uint32_t weight = 1;
  if (!st->root) {
    st->root = node_get(s, slot, 0, WT_NODE_ROOT);
    st->first_us = ts_us;
  } else if (s->config.interval_us > 0) {
    weight = wt_grid_weight(ts_us, st->last_us, s->config.interval_us);
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
  *(wt_sample *)wt_ring_push(&s->rec.samples) = (wt_sample){.ts_us = ts_us, .node = node, .thread = slot, .weight = (uint16_t)weight};
}

void wt_session_record_stack_event(wt_session *s, wt_event_rec rec, uint16_t slot, const uint32_t *frames, int n,
                                   int truncated) {
  wt_session_thread *st = see_thread(s, slot);
  /* The thread's root, without touching what its samples keep (their
   * first one sets st->root and its time). */
  uint32_t node = node_get(s, slot, 0, WT_NODE_ROOT);
  int cut = 0;
  for (int i = 0; i < n && node && !cut; i++) node = child_or_truncated(s, st, slot, node, frames[i], &cut);
  if (node && !cut && truncated) node = child_or_truncated(s, st, slot, node, WT_NODE_TRUNCATED, &cut);
  rec.id = node;
  if (!make_room(s, &s->rec.events, s->rec.budget_events, &s->events_dropped)) return;
  *(wt_event_rec *)wt_ring_push(&s->rec.events) = rec;
}

void wt_session_record_torn(wt_session *s) {
  atomic_fetch_add_explicit(&s->samples_taken, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&s->samples_torn, 1, memory_order_relaxed);
}

void wt_session_record_event(wt_session *s, const wt_event_rec *rec) {
  if (rec->thread != WT_PROCESS_THREAD) see_thread(s, rec->thread);
  if (!make_room(s, &s->rec.events, s->rec.budget_events, &s->events_dropped)) return;
  *(wt_event_rec *)wt_ring_push(&s->rec.events) = *rec;
}
