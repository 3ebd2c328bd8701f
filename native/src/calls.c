/* Exact call counts: the tables' slow path (calls.h). Never instrumented. */
#include "calls.h"

#include <stddef.h>

#include "mem.h"

void wt_calls_grow(wt_thread *t, uint32_t id) {
  if (id >= WT_CALLS_MAX || t->calls_refused) {
    atomic_fetch_add_explicit(&t->calls_not_counted, 1, memory_order_relaxed);
    return;
  }
  uint32_t cap = t->calls_cap ? t->calls_cap : WT_CALLS_MIN;
  while (cap <= id) cap *= 2; /* both powers of two: at most WT_CALLS_MAX */
  wt_calls *n = wt_mem_calloc(1, offsetof(wt_calls, counts) + (size_t)cap * sizeof(uint32_t));
  if (!n) {
    /* Not asked again: a refused table stays refused for this thread. */
    t->calls_refused = 1;
    atomic_fetch_add_explicit(&t->calls_not_counted, 1, memory_order_relaxed);
    return;
  }
  wt_calls *old = atomic_load_explicit(&t->calls_table, memory_order_relaxed);
  n->older = old;
  n->cap = cap;
  for (uint32_t i = 0; i < t->calls_cap; i++)
    atomic_store_explicit(&n->counts[i], WT_I_LOAD_OWN_U32(&t->calls[i]), memory_order_relaxed);
  atomic_store_explicit(&n->counts[id], 1, memory_order_relaxed);
  t->calls = n->counts;
  t->calls_cap = cap;
  /* The worker reads the table from here on (the counts above first). */
  atomic_store_explicit(&t->calls_table, n, memory_order_release);
}

const wt_calls *wt_calls_of(const wt_thread *t) {
  return atomic_load_explicit(&((wt_thread *)t)->calls_table, memory_order_acquire);
}

uint32_t wt_calls_not_counted(const wt_thread *t) {
  return atomic_load_explicit(&((wt_thread *)t)->calls_not_counted, memory_order_relaxed);
}
