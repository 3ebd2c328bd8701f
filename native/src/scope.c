/* The hot path of explicit instrumentation: scopes, instants and counters
 * on the calling thread. */
#include <stdatomic.h>

#include "categories.h"
#include "platform.h"
#include "registry.h"
#include "stack_ops.h"

/* Appends an event stamped ts_us (wt_platform_now_us time). Owner only. */
WT_I_NOINSTR static inline void ring_put(wt_thread *t, uint32_t info, uint32_t id, double ts_us,
                                         double value) {
  uint32_t w = WT_I_LOAD_OWN_U32(&t->ring_write);
  if (__builtin_expect(w - t->ring_read_cache >= WT_RING_CAPACITY, 0)) {
    t->ring_read_cache = atomic_load_explicit(&t->ring_read, memory_order_acquire);
    if (w - t->ring_read_cache >= WT_RING_CAPACITY) {
      t->ring_gap = 1;
      /* Only the owner writes this counter: no RMW, and in wasm not even
       * an atomic store (an xchg there, even relaxed): a flood of scopes
       * that fills the ring must not pay more per dropped event than per
       * recorded one. */
      WT_I_STORE_OWN_U64(&t->ring_dropped, atomic_load_explicit(&t->ring_dropped, memory_order_relaxed) + 1);
      return;
    }
  }
  wt_event *e = &t->ring[w & (WT_RING_CAPACITY - 1)];
  e->ts_us = ts_us;
  e->value = value;
  e->id = id;
  e->info = info | (t->ring_gap ? WT_EVENT_GAP : 0);
  t->ring_gap = 0;
  /* Published like the shadow stack (registry.h, WT_I_PUBLISH_RING): in
   * wasm a plain store behind a compiler barrier (an atomic store is an
   * xchg there: with two events per scope, about a third of what a scope
   * cost beyond its two clock reads), a release store on the host and
   * with WT_PUBLISH_ATOMIC. */
  WT_I_PUBLISH_RING(&t->ring_write, w + 1);
}

/* First use of a site: intern its name and category (takes a mutex once
 * per site), then let running sessions see the new category. */
WT_I_NOINSTR static void resolve_site(wt_site *site) {
  uint32_t known = wt_registry_category_count();
  uint32_t cat = wt_registry_intern_category(site->category ? site->category : "app");
  if (wt_registry_category_count() != known) wt_runtime_update_categories(); /* a new category */
  /* 0 only if the name table could not be allocated at all. */
  uint32_t id = wt_registry_intern(site->name ? site->name : "(unnamed)");
  /* cat before id (release): a thread that sees the id sees the category. */
  __atomic_store_n(&site->cat, cat + 1, __ATOMIC_RELAXED);
  __atomic_store_n(&site->id, id, __ATOMIC_RELEASE);
}

/* The site's category index if some running session records it, else -1. */
WT_I_NOINSTR static inline int site_enabled(wt_site *site, uint32_t *id) {
  *id = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);
  if (__builtin_expect(*id == 0, 0)) {
    resolve_site(site);
    *id = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);
  }
  uint32_t cat = __atomic_load_n(&site->cat, __ATOMIC_RELAXED) - 1;
  uint64_t mask = atomic_load_explicit(&wt_i_category_mask, memory_order_relaxed);
  return (mask >> cat) & 1 ? (int)cat : -1;
}

void wt_scope_begin(wt_site *site) {
  wt_thread *t = wt_i_tls_self;
  if (__builtin_expect(t == NULL, 0) && (t = wt_thread_self()) == NULL) return;
  uint32_t id;
  int cat = site_enabled(site, &id);
  /* The clock before the push (and after the pop in wt_scope_end): the
   * scope's time then contains every sample that shows it, even when the
   * thread is preempted in between. */
  double ts = cat >= 0 ? wt_platform_now_us() : 0;
  uint32_t depth = wt_stack_push(t, id);
  if (depth >= WT_MAX_DEPTH) return;
  uint64_t bit = 1ull << (depth & 63);
  if (cat >= 0) {
    t->recorded[depth >> 6] |= bit;
    ring_put(t, WT_EVENT_INFO(WT_EVENT_BEGIN, depth, cat), id, ts, 0);
  } else {
    t->recorded[depth >> 6] &= ~bit;
  }
}

void wt_scope_end(void) {
  wt_thread *t = wt_i_tls_self;
  if (__builtin_expect(t == NULL, 0)) return;
  uint32_t depth;
  if (!wt_stack_pop(t, &depth) || depth >= WT_MAX_DEPTH) return;
  if (t->recorded[depth >> 6] & (1ull << (depth & 63)))
    ring_put(t, WT_EVENT_INFO(WT_EVENT_END, depth, 0), 0, wt_platform_now_us(), 0);
}

void wt_instant(wt_site *site) {
  wt_thread *t = wt_i_tls_self;
  if (__builtin_expect(t == NULL, 0) && (t = wt_thread_self()) == NULL) return;
  uint32_t id;
  int cat = site_enabled(site, &id);
  if (cat >= 0) ring_put(t, WT_EVENT_INFO(WT_EVENT_INSTANT, 0, cat), id, wt_platform_now_us(), 0);
}

void wt_counter(wt_site *site, double value) {
  wt_thread *t = wt_i_tls_self;
  if (__builtin_expect(t == NULL, 0) && (t = wt_thread_self()) == NULL) return;
  uint32_t id;
  int cat = site_enabled(site, &id);
  if (cat >= 0) ring_put(t, WT_EVENT_INFO(WT_EVENT_COUNTER, 0, cat), id, wt_platform_now_us(), value);
}
