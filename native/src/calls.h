/* Exact call counts (issue 40): every instrumented call adds one to its
 * function's count on the calling thread, beside the shadow stack's push
 * (hooks.c). A count is a measure without noise: two runs of the same
 * work count the same, so `wasmtrace diff` states a changed count as a
 * change, with no statistics (lib/diff.mjs). The calls recorder
 * (rec_calls.c) writes them in the trace's stats record.
 *
 * A thread's counts are a table indexed by the function's wasm table
 * index, allocated on its first instrumented call (WT_CALLS_MIN entries,
 * doubled as higher indices come, at most WT_CALLS_MAX: 256 KiB a thread)
 * from wasmtrace's own memory (mem.h: refused when the app's headroom
 * would not be left). Calls it cannot count (a higher index, a table the
 * heap refused) are counted as such (calls_not_counted). Only the owner
 * writes its counts, with plain stores (one load and one store, no atomic
 * read-modify-write); the worker reads them. A table that grows is copied
 * into its successor, which the owner then publishes; the worker may still
 * read the old one, so tables are freed with the thread's record
 * (registry.c), never before. */
#ifndef WT_CALLS_H
#define WT_CALLS_H

#include <stdint.h>

#include "registry.h"

#define WT_CALLS_MIN 1024u  /* a thread's first table, entries (a power of two) */
#define WT_CALLS_MAX 65536u /* its largest (a power of two): 256 KiB */

/* The slow path: a table index at or past the table's end (or no table
 * yet). Owner. */
void wt_calls_grow(wt_thread *t, uint32_t id) WT_I_NOINSTR __attribute__((noinline));

/* Counts a call of the function at table index `id` on t. Owner; hot. */
WT_I_NOINSTR static inline void wt_calls_count(wt_thread *t, uint32_t id) {
  if (__builtin_expect(id < t->calls_cap, 1)) {
    _Atomic uint32_t *c = &t->calls[id];
    WT_I_STORE_OWN_U32(c, WT_I_LOAD_OWN_U32(c) + 1);
  } else {
    wt_calls_grow(t, id);
  }
}

/* The thread's newest table, or NULL if it counted nothing yet. Worker. */
const wt_calls *wt_calls_of(const wt_thread *t);

/* Calls the thread could not count. Any thread. */
uint32_t wt_calls_not_counted(const wt_thread *t);

#endif
