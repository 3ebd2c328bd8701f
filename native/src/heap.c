/* Sampled heap profiling: the countdown's slow path, the address set and the
 * queue to the worker (see heap.h). Every function here is reached from
 * inside the app's malloc or free: no lock, no wait, no allocation except
 * the worker's one-time setup, and nothing instrumented. */
#include "heap.h"

#include <math.h>
#include <string.h>

#include "mem.h"
#include "platform.h"
#include "registry.h"

_Thread_local int64_t wt_i_heap_countdown;
_Atomic uint32_t wt_i_heap_tracked;
_Atomic uint16_t *_Atomic wt_i_heap_filter;

/* The interval the calling thread's countdown was drawn for (0: idle). */
static _Thread_local uint32_t armed_for;
static _Thread_local uint64_t rng;

static _Atomic uint32_t interval_now;
static _Atomic int linked, unavailable;
static _Atomic uint64_t n_sampled, n_frees, n_queue_full, n_set_full, n_dropped_bytes, n_frees_lost,
    n_no_thread, n_no_thread_bytes, n_realloc_failed;

/* ---- the address set ------------------------------------------------------ *
 * Open addressing, linear probing over at most WT_HEAP_PROBES slots. A key
 * is an address, or EMPTY, BUSY (an insert fills the slot's values) or
 * GONE (removed; a later insert may reuse it, a lookup walks past it).
 * Addresses are malloc's: aligned to 8 at least, so never 0..2. The values
 * are written only while the key is BUSY and read only while it is the
 * address, which only the one thread that frees that block can remove. */
enum { KEY_EMPTY = 0, KEY_BUSY = 1, KEY_GONE = 2 };

typedef struct set_slot {
  _Atomic uint32_t key;
  uint32_t bytes;
  uint16_t slot;
  uint16_t pad;
  uint32_t pos; /* the allocation's queue position */
  double ts_us;
} set_slot;

/* The tables, newest last; `ntables` of them are published. Table k has
 * WT_HEAP_SET << k slots. */
static set_slot *_Atomic tables[WT_HEAP_SET_TABLES];
static _Atomic uint32_t ntables;
static wt_heap_entry *_Atomic queue;
static _Atomic uint32_t enqueue_pos;
/* Wakes the worker to drain the queue (wt_heap_set_waker): the runtime
 * registers it, so that this module needs nothing above it. */
static void (*_Atomic waker)(void);
static uint32_t dequeue_pos; /* the worker's */
static _Atomic uint32_t drained_pos; /* dequeue_pos after each drain, for any thread to read */

/* Fibonacci hashing: the product's high bits mix every bit of the address
 * (its low bits would not: blocks a power of two apart would collide). */
static uint32_t hash_addr(uint32_t a, uint32_t bits) { return ((a >> 3) * 2654435761u) >> (32 - bits); }

static int table_insert(set_slot *t, uint32_t k, uint32_t addr, uint32_t bytes, uint16_t slot, double ts,
                        uint32_t pos) {
  uint32_t mask = (WT_HEAP_SET << k) - 1, h = hash_addr(addr, 16 + k);
  for (uint32_t i = 0; i < WT_HEAP_PROBES; i++) {
    set_slot *s = &t[(h + i) & mask];
    uint32_t key = atomic_load_explicit(&s->key, memory_order_relaxed);
    if (key != KEY_EMPTY && key != KEY_GONE) continue;
    if (!atomic_compare_exchange_strong_explicit(&s->key, &key, KEY_BUSY, memory_order_acquire,
                                                 memory_order_relaxed))
      continue;
    s->bytes = bytes;
    s->slot = slot;
    s->ts_us = ts;
    s->pos = pos;
    _Atomic uint16_t *f = atomic_load_explicit(&wt_i_heap_filter, memory_order_relaxed);
    atomic_fetch_add_explicit(&f[WT_I_HEAP_FILTER_INDEX(addr)], 1, memory_order_relaxed);
    atomic_store_explicit(&s->key, addr, memory_order_release);
    return 1;
  }
  return 0;
}

/* Into the newest table with room (an older one may have room where the
 * newest's probes are all taken). */
static int set_insert(uint32_t addr, uint32_t bytes, uint16_t slot, double ts, uint32_t pos) {
  for (uint32_t k = atomic_load_explicit(&ntables, memory_order_acquire); k-- > 0;) {
    set_slot *t = atomic_load_explicit(&tables[k], memory_order_acquire);
    if (table_insert(t, k, addr, bytes, slot, ts, pos)) return 1;
  }
  return 0;
}

static int table_remove(set_slot *t, uint32_t k, uint32_t addr, set_slot *out) {
  uint32_t mask = (WT_HEAP_SET << k) - 1, h = hash_addr(addr, 16 + k);
  for (uint32_t i = 0; i < WT_HEAP_PROBES; i++) {
    set_slot *s = &t[(h + i) & mask];
    uint32_t key = atomic_load_explicit(&s->key, memory_order_acquire);
    if (key == KEY_EMPTY) return 0;
    if (key != addr) continue;
    out->bytes = s->bytes;
    out->slot = s->slot;
    out->ts_us = s->ts_us;
    out->pos = s->pos;
    /* Only this thread frees addr: nobody else can change this key now. */
    atomic_store_explicit(&s->key, KEY_GONE, memory_order_release);
    _Atomic uint16_t *f = atomic_load_explicit(&wt_i_heap_filter, memory_order_relaxed);
    atomic_fetch_sub_explicit(&f[WT_I_HEAP_FILTER_INDEX(addr)], 1, memory_order_relaxed);
    return 1;
  }
  return 0;
}

/* Removes addr from whichever table holds it (at most one: a block enters
 * once, and leaves before its address can be reused); 1 with its values
 * if it was there. */
static int set_remove(uint32_t addr, set_slot *out) {
  for (uint32_t k = atomic_load_explicit(&ntables, memory_order_acquire); k-- > 0;) {
    set_slot *t = atomic_load_explicit(&tables[k], memory_order_acquire);
    if (table_remove(t, k, addr, out)) return 1;
  }
  return 0;
}

/* ---- the queue (a bounded multi-producer queue with one consumer) ---------- *
 * Cell i holds seq == pos when free for the producer of position pos, and
 * pos + 1 once that producer published it; the consumer gives it back as
 * pos + WT_HEAP_QUEUE. A producer that stops between taking a position and
 * publishing it holds up the worker's drain (not other producers) until it
 * runs again. */

static wt_heap_entry *queue_reserve(wt_heap_entry *q, uint32_t *pos_out) {
  uint32_t pos = atomic_load_explicit(&enqueue_pos, memory_order_relaxed);
  for (;;) {
    wt_heap_entry *e = &q[pos & (WT_HEAP_QUEUE - 1)];
    uint32_t seq = atomic_load_explicit(&e->seq, memory_order_acquire);
    int32_t dif = (int32_t)(seq - pos);
    if (dif == 0) {
      if (atomic_compare_exchange_weak_explicit(&enqueue_pos, &pos, pos + 1, memory_order_relaxed,
                                                memory_order_relaxed)) {
        *pos_out = pos;
        return e;
      }
    } else if (dif < 0) {
      return NULL; /* full */
    } else {
      pos = atomic_load_explicit(&enqueue_pos, memory_order_relaxed);
    }
  }
}

static void queue_publish(wt_heap_entry *e, uint32_t pos) {
  atomic_store_explicit(&e->seq, pos + 1, memory_order_release);
  /* Every quarter of the queue, the worker is woken to drain it rather
   * than at its next deadline: a burst of sampled allocations (a loop of
   * small blocks at a small interval) fills it within a millisecond. */
  if ((pos & (WT_HEAP_QUEUE / 4 - 1)) == WT_HEAP_QUEUE / 4 - 1) {
    void (*wake)(void) = atomic_load_explicit(&waker, memory_order_acquire);
    if (wake) wake();
  }
}

/* ---- sampling ---------------------------------------------------------------- */

/* A uniform double in (0, 1] from the thread's xorshift64*. */
static double uniform(void) {
  if (!rng) {
    /* Seeded per thread: where its TLS lives and when it first sampled. */
    rng = ((uint64_t)(uintptr_t)&rng << 16) ^ (uint64_t)(wt_platform_now_us() * 1000.0) ^
          UINT64_C(0x9e3779b97f4a7c15);
    if (!rng) rng = 1;
  }
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  uint64_t r = rng * UINT64_C(2685821657736338717);
  return ((double)(r >> 11) + 1.0) / 9007199254740992.0;
}

static int64_t draw(uint32_t interval) {
  /* 1: every allocation (of at least a byte) takes the countdown below zero. */
  if (interval == 1) return 0;
  double x = -log(uniform()) * (double)interval;
  return x < 1 ? 1 : x > 4e15 ? (int64_t)4e15 : (int64_t)x;
}

uint32_t wt_heap_weight(uint64_t n, uint32_t interval) {
  if (interval <= 1 || !n) return (uint32_t)(n > UINT32_MAX ? UINT32_MAX : n);
  double p = -expm1(-(double)n / (double)interval);
  double w = p > 0 ? (double)n / p : (double)interval;
  return w >= 4294967295.0 ? UINT32_MAX : (uint32_t)(w + 0.5);
}

/* Copies the calling thread's own stack (it is its only writer). */
static uint16_t own_stack(wt_thread *t, uint32_t *out, uint8_t *truncated) {
  uint64_t top = WT_I_LOAD_OWN_U64(&t->top);
  uint32_t depth = WT_TOP_DEPTH(top);
  if (depth > WT_MAX_DEPTH) depth = WT_MAX_DEPTH;
  uint32_t n = depth < WT_HEAP_DEPTH ? depth : WT_HEAP_DEPTH;
  *truncated = depth > n;
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t id = WT_SLOT_ID(WT_I_LOAD_OWN_U64(&t->frames[i]), i);
    /* The start routine pushed as a base frame and again by its own hook
     * is shown once, as the sampler shows it (rec_samples.c). */
    if (i == 1 && k == 1 && out[0] == id && atomic_load_explicit(&t->base_frame, memory_order_relaxed))
      continue;
    out[k++] = id;
  }
  return (uint16_t)k;
}

static void sample(void *p, size_t n, uint32_t interval) {
  wt_heap_entry *q = atomic_load_explicit(&queue, memory_order_acquire);
  if (!q) return;
  uint32_t weight = wt_heap_weight(n, interval);
  wt_thread *self = wt_i_tls_self;
  if (!self) {
    atomic_fetch_add_explicit(&n_no_thread, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&n_no_thread_bytes, weight, memory_order_relaxed);
    return;
  }
  uint32_t pos;
  wt_heap_entry *e = queue_reserve(q, &pos);
  if (!e) {
    atomic_fetch_add_explicit(&n_queue_full, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&n_dropped_bytes, weight, memory_order_relaxed);
    return;
  }
  double ts = wt_platform_now_us();
  uint16_t slot = (uint16_t)self->slot;
  /* In the set before it is published; p is the caller's until we return. */
  if (!set_insert((uint32_t)(uintptr_t)p, weight, slot, ts, pos)) {
    atomic_fetch_add_explicit(&n_set_full, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&n_dropped_bytes, weight, memory_order_relaxed);
    e->kind = WT_HEAP_SKIP;
    queue_publish(e, pos);
    return;
  }
  atomic_fetch_add_explicit(&wt_i_heap_tracked, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&n_sampled, 1, memory_order_relaxed);
  e->kind = WT_HEAP_ALLOC;
  e->slot = slot;
  e->free_slot = 0xffff;
  e->addr = (uint32_t)(uintptr_t)p;
  e->bytes = weight;
  e->size = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
  e->interval = interval;
  e->ts_us = ts;
  e->alloc_ts_us = ts;
  e->alloc_pos = pos;
  e->depth = own_stack(self, e->frames, &e->truncated);
  queue_publish(e, pos);
}

void wt_heap_on_alloc(void *p, size_t n) {
  if (!atomic_load_explicit(&linked, memory_order_relaxed)) atomic_store_explicit(&linked, 1, memory_order_relaxed);
  uint32_t was = armed_for;
  uint32_t now = atomic_load_explicit(&interval_now, memory_order_acquire);
  armed_for = now;
  /* The process is memoryless: the next point lies an exponential draw past
   * this allocation, however far the countdown overshot. */
  wt_i_heap_countdown = now ? draw(now) : WT_HEAP_IDLE_REARM;
  /* A countdown drawn while idle ends at no sample point. */
  if (!was || !now || !p || wt_i_heap_own) return;
  wt_i_heap_own++;
  sample(p, n, was);
  wt_i_heap_own--;
}

int wt_heap_on_free(void *p) {
  set_slot v;
  if (!p || !set_remove((uint32_t)(uintptr_t)p, &v)) return 0;
  atomic_fetch_sub_explicit(&wt_i_heap_tracked, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&n_frees, 1, memory_order_relaxed);
  wt_heap_entry *q = atomic_load_explicit(&queue, memory_order_acquire);
  uint32_t pos;
  wt_heap_entry *e = q ? queue_reserve(q, &pos) : NULL;
  if (!e) {
    atomic_fetch_add_explicit(&n_frees_lost, 1, memory_order_relaxed);
    return 1;
  }
  wt_thread *self = wt_i_tls_self;
  e->kind = WT_HEAP_FREE;
  e->slot = v.slot;
  e->free_slot = self ? (uint16_t)self->slot : 0xffff;
  e->addr = (uint32_t)(uintptr_t)p;
  e->bytes = v.bytes;
  e->size = 0;
  e->interval = 0;
  e->ts_us = wt_platform_now_us();
  e->alloc_ts_us = v.ts_us;
  e->alloc_pos = v.pos;
  e->depth = 0;
  e->truncated = 0;
  queue_publish(e, pos);
  return 1;
}

void wt_heap_on_grow(uint32_t from_pages, uint32_t to_pages) {
  if (!atomic_load_explicit(&interval_now, memory_order_acquire)) return;
  wt_heap_entry *q = atomic_load_explicit(&queue, memory_order_acquire);
  if (!q) return;
  /* No thread-local storage here: the allocator may grow the memory while
   * a new pthread's TLS block is being allocated (older Emscripten: with
   * emscripten_builtin_memalign, before __wasm_init_tls), when a reused
   * pool worker still has the previous thread's TLS base (threads.c). */
  wt_thread *self = wt_registry_self_without_tls();
  if (!self) return;
  uint32_t pos;
  wt_heap_entry *e = queue_reserve(q, &pos);
  if (!e) {
    atomic_fetch_add_explicit(&n_queue_full, 1, memory_order_relaxed);
    return;
  }
  e->kind = WT_HEAP_GROW;
  e->slot = (uint16_t)self->slot;
  e->free_slot = 0xffff;
  e->addr = from_pages;
  e->size = to_pages;
  e->bytes = 0;
  e->interval = 0;
  e->ts_us = wt_platform_now_us();
  e->alloc_ts_us = e->ts_us;
  e->alloc_pos = pos;
  e->depth = own_stack(self, e->frames, &e->truncated);
  queue_publish(e, pos);
}

void wt_heap_note_realloc_failed(void) {
  atomic_fetch_add_explicit(&n_realloc_failed, 1, memory_order_relaxed);
}

/* ---- the worker's side --------------------------------------------------- */

/* The queue and the set, allocated once (by whichever thread first asks). */
static int ensure_buffers(void) {
  if (atomic_load_explicit(&queue, memory_order_acquire)) return 1;
  /* Without the shim nothing would fill them: an app that does not link it
   * pays nothing (the shim runs before any session can start: the session's
   * own allocations go through it). */
  if (!wt_heap_linked()) return 0;
  if (atomic_load_explicit(&unavailable, memory_order_relaxed)) return 0;
  set_slot *t = wt_mem_calloc(WT_HEAP_SET, sizeof *t);
  wt_heap_entry *q = wt_mem_calloc(WT_HEAP_QUEUE, sizeof *q);
  _Atomic uint16_t *f = wt_mem_calloc(WT_HEAP_FILTER, sizeof *f);
  if (!t || !q || !f) {
    wt_mem_free(t);
    wt_mem_free(q);
    wt_mem_free(f);
    atomic_store_explicit(&unavailable, 1, memory_order_relaxed);
    return 0;
  }
  for (uint32_t i = 0; i < WT_HEAP_QUEUE; i++) atomic_store_explicit(&q[i].seq, i, memory_order_relaxed);
  /* The filter first: a set without it is never published. */
  _Atomic uint16_t *no_filter = NULL;
  if (!atomic_compare_exchange_strong_explicit(&wt_i_heap_filter, &no_filter, f, memory_order_acq_rel,
                                               memory_order_acquire))
    wt_mem_free(f);
  set_slot *no_set = NULL;
  if (!atomic_compare_exchange_strong_explicit(&tables[0], &no_set, t, memory_order_acq_rel, memory_order_acquire))
    wt_mem_free(t);
  /* Whichever thread got here first, the first table is there: counted
   * before the queue that makes it reachable is published. */
  uint32_t none = 0;
  atomic_compare_exchange_strong_explicit(&ntables, &none, 1, memory_order_acq_rel, memory_order_relaxed);
  wt_heap_entry *no_queue = NULL;
  if (!atomic_compare_exchange_strong_explicit(&queue, &no_queue, q, memory_order_acq_rel, memory_order_acquire))
    wt_mem_free(q);
  return 1;
}

void wt_heap_set_waker(void (*wake)(void)) { atomic_store_explicit(&waker, wake, memory_order_release); }

int wt_heap_linked(void) { return atomic_load_explicit(&linked, memory_order_relaxed); }

/* Defined only in heap_grow.c (a weak reference: 0 when it is not linked). */
extern const int wt_i_heap_grow_linked __attribute__((weak));

int wt_heap_grow_wrapped(void) { return &wt_i_heap_grow_linked != NULL; }

uint32_t wt_heap_interval(void) { return atomic_load_explicit(&interval_now, memory_order_acquire); }

int wt_heap_set_interval(uint32_t interval, uint32_t expected) {
  if (interval && !ensure_buffers()) return 0;
  return atomic_compare_exchange_strong_explicit(&interval_now, &expected, interval, memory_order_acq_rel,
                                                 memory_order_relaxed);
}

int wt_heap_request(uint32_t interval) {
  if (!ensure_buffers()) return 0;
  uint32_t now = atomic_load_explicit(&interval_now, memory_order_acquire);
  while ((!now || interval < now) &&
         !atomic_compare_exchange_weak_explicit(&interval_now, &now, interval, memory_order_acq_rel,
                                                memory_order_acquire)) {
  }
  /* This thread counts down at the new rate from here. */
  now = atomic_load_explicit(&interval_now, memory_order_acquire);
  armed_for = now;
  wt_i_heap_countdown = draw(now);
  return 1;
}

int wt_heap_grow(void) {
  uint32_t n = atomic_load_explicit(&ntables, memory_order_acquire);
  if (!n || n >= WT_HEAP_SET_TABLES) return 0;
  uint64_t slots = (uint64_t)WT_HEAP_SET * ((UINT64_C(1) << n) - 1);
  if ((uint64_t)atomic_load_explicit(&wt_i_heap_tracked, memory_order_relaxed) * 2 < slots) return 0;
  /* Refused under the heap rule, it is asked again on the next drain: the
   * samples the full set drops meanwhile are counted (setFull). */
  set_slot *t = wt_mem_calloc((size_t)WT_HEAP_SET << n, sizeof *t);
  if (!t) return 0;
  atomic_store_explicit(&tables[n], t, memory_order_release);
  atomic_store_explicit(&ntables, n + 1, memory_order_release);
  return 1;
}

uint32_t wt_heap_drain_position(void) { return dequeue_pos; }

size_t wt_heap_drain(void (*fn)(const wt_heap_entry *e, void *ctx), void *ctx) {
  wt_heap_entry *q = atomic_load_explicit(&queue, memory_order_acquire);
  if (!q) return 0;
  size_t n = 0;
  for (;;) {
    wt_heap_entry *e = &q[dequeue_pos & (WT_HEAP_QUEUE - 1)];
    if (atomic_load_explicit(&e->seq, memory_order_acquire) != dequeue_pos + 1) break;
    if (e->kind != WT_HEAP_SKIP) fn(e, ctx);
    atomic_store_explicit(&e->seq, dequeue_pos + WT_HEAP_QUEUE, memory_order_release);
    dequeue_pos++;
    n++;
  }
  atomic_store_explicit(&drained_pos, dequeue_pos, memory_order_release);
  return n;
}

uint32_t wt_heap_backlog(void) {
  if (!atomic_load_explicit(&queue, memory_order_acquire)) return 0;
  uint32_t drained = atomic_load_explicit(&drained_pos, memory_order_acquire);
  return atomic_load_explicit(&enqueue_pos, memory_order_relaxed) - drained;
}

void wt_heap_counts_get(wt_heap_counts *out) {
  memset(out, 0, sizeof *out);
  out->linked = atomic_load_explicit(&linked, memory_order_relaxed);
  out->unavailable = atomic_load_explicit(&unavailable, memory_order_relaxed);
  out->interval = atomic_load_explicit(&interval_now, memory_order_relaxed);
  out->sampled = atomic_load_explicit(&n_sampled, memory_order_relaxed);
  out->frees = atomic_load_explicit(&n_frees, memory_order_relaxed);
  out->queue_full = atomic_load_explicit(&n_queue_full, memory_order_relaxed);
  out->set_full = atomic_load_explicit(&n_set_full, memory_order_relaxed);
  out->dropped_bytes = atomic_load_explicit(&n_dropped_bytes, memory_order_relaxed);
  out->set_tables = atomic_load_explicit(&ntables, memory_order_acquire);
  out->set_slots = (uint64_t)WT_HEAP_SET * ((UINT64_C(1) << out->set_tables) - 1);
  out->frees_lost = atomic_load_explicit(&n_frees_lost, memory_order_relaxed) +
                    atomic_load_explicit(&n_realloc_failed, memory_order_relaxed);
  out->no_thread = atomic_load_explicit(&n_no_thread, memory_order_relaxed);
  out->no_thread_bytes = atomic_load_explicit(&n_no_thread_bytes, memory_order_relaxed);
  out->tracked = atomic_load_explicit(&wt_i_heap_tracked, memory_order_relaxed);
}

void wt_heap_reset_for_testing(void) {
  atomic_store_explicit(&interval_now, 0, memory_order_relaxed);
  dequeue_pos = 0;
  atomic_store_explicit(&drained_pos, 0, memory_order_relaxed);
  atomic_store_explicit(&enqueue_pos, 0, memory_order_relaxed);
  uint32_t n = atomic_exchange_explicit(&ntables, 0, memory_order_relaxed);
  for (uint32_t k = 0; k < n; k++) wt_mem_free(atomic_exchange_explicit(&tables[k], NULL, memory_order_relaxed));
  wt_mem_free(atomic_exchange_explicit(&queue, NULL, memory_order_relaxed));
  wt_mem_free((void *)atomic_exchange_explicit(&wt_i_heap_filter, NULL, memory_order_relaxed));
  _Atomic uint64_t *const counts[] = {&n_sampled,    &n_frees,         &n_queue_full, &n_set_full,
                                      &n_dropped_bytes, &n_frees_lost, &n_no_thread, &n_no_thread_bytes,
                                      &n_realloc_failed};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) atomic_store_explicit(counts[i], 0, memory_order_relaxed);
  atomic_store_explicit(&wt_i_heap_tracked, 0, memory_order_relaxed);
  atomic_store_explicit(&unavailable, 0, memory_order_relaxed);
  atomic_store_explicit(&linked, 0, memory_order_relaxed);
  wt_i_heap_countdown = 0;
  armed_for = 0;
}
