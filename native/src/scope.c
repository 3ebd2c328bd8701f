/* The hot path: scope begin/end on the calling thread. */
#include <stdatomic.h>

#include "platform.h"
#include "registry.h"
#include "stack_ops.h"

WT_I_NOINSTR static inline void ring_put(wt_thread *t, uint32_t info, uint32_t id) {
  uint32_t w = WT_I_LOAD_OWN_U32(&t->ring_write);
  if (__builtin_expect(w - t->ring_read_cache >= WT_RING_CAPACITY, 0)) {
    t->ring_read_cache = atomic_load_explicit(&t->ring_read, memory_order_acquire);
    if (w - t->ring_read_cache >= WT_RING_CAPACITY) {
      t->ring_gap = 1;
      /* Only the owner writes this counter; a relaxed RMW would cost an
       * atomic in wasm on a path that is already the slow one. */
      atomic_store_explicit(&t->ring_dropped,
                            atomic_load_explicit(&t->ring_dropped, memory_order_relaxed) + 1,
                            memory_order_relaxed);
      return;
    }
  }
  wt_event *e = &t->ring[w & (WT_RING_CAPACITY - 1)];
  e->ts_us = wt_platform_now_us();
  e->id = id;
  e->info = info | (t->ring_gap ? WT_EVENT_GAP : 0);
  t->ring_gap = 0;
  WT_I_PUBLISH_U32(&t->ring_write, w + 1);
}

void wt_scope_begin(wt_site *site) {
  wt_thread *t = wt_thread_self();
  if (!t) return;
  uint32_t id = __atomic_load_n(&site->id, __ATOMIC_RELAXED);
  if (__builtin_expect(id == 0, 0)) {
    id = wt_registry_intern(site->name);
    __atomic_store_n(&site->id, id, __ATOMIC_RELAXED);
  }
  uint32_t depth = wt_stack_push(t, id);
  ring_put(t, WT_EVENT_BEGIN | (depth << 8), id);
}

void wt_scope_end(void) {
  wt_thread *t = wt_thread_self();
  if (!t) return;
  uint32_t depth;
  if (wt_stack_pop(t, &depth)) ring_put(t, WT_EVENT_END | (depth << 8), 0);
}
