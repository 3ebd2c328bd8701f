/* A bounded ring of fixed-size entries that grows on demand up to a budget,
 * then applies a full policy: keep the newest (drop the oldest) or keep the
 * oldest (refuse the new). The one ring behind the session's pending samples
 * and events and the firefox encoder's retained buffers. Not thread-safe:
 * one owner (the worker). */
#ifndef WT_RING_H
#define WT_RING_H

#include <stddef.h>

typedef struct wt_ring {
  unsigned char *data;
  size_t elem;  /* bytes per entry */
  size_t head;  /* position of the oldest entry */
  size_t count; /* entries held */
  size_t cap;   /* entries allocated */
} wt_ring;

/* What wt_ring_make_room did. */
typedef enum {
  WT_RING_REFUSED = 0, /* full, stop policy: the new entry must be dropped */
  WT_RING_FREE = 1,    /* there was room */
  WT_RING_GREW = 2,    /* capacity grew (memory changed) */
  WT_RING_EVICTED = 3  /* full, ring policy: the oldest entry was dropped */
} wt_ring_room;

/* An empty ring of `elem`-byte entries; allocates nothing. */
void wt_ring_init(wt_ring *r, size_t elem);
void wt_ring_free(wt_ring *r);

/* Reallocates to new_cap entries (>= count), keeping order. 0 if out of
 * memory (the ring is unchanged). */
int wt_ring_resize(wt_ring *r, size_t new_cap);

/* The slow path of wt_ring_make_room, when every entry is in use. */
wt_ring_room wt_ring_when_full(wt_ring *r, size_t budget, size_t initial, int keep_newest);

/* Makes room for one more entry: doubles the capacity (first `initial`)
 * up to `budget` entries, then drops the oldest if keep_newest, else
 * refuses. A failed allocation counts as full: the caller tells it by a
 * capacity still below the budget. */
static inline wt_ring_room wt_ring_make_room(wt_ring *r, size_t budget, size_t initial, int keep_newest) {
  return r->count < r->cap ? WT_RING_FREE : wt_ring_when_full(r, budget, initial, keep_newest);
}

/* The i-th oldest entry (i < count). */
static inline void *wt_ring_at(const wt_ring *r, size_t i) {
  return r->data + ((r->head + i) % r->cap) * r->elem;
}

/* Appends an entry after wt_ring_make_room said there is room; returns
 * where to write it. */
static inline void *wt_ring_push(wt_ring *r) { return wt_ring_at(r, r->count++); }

/* Forgets the k oldest entries (k <= count). */
static inline void wt_ring_drop(wt_ring *r, size_t k) {
  if (!k) return;
  r->head = (r->head + k) % r->cap;
  r->count -= k;
}

/* Bytes allocated. */
static inline size_t wt_ring_bytes(const wt_ring *r) { return r->cap * r->elem; }

#endif
