/* Bounded rings (see ring.h). */
#include "ring.h"
#include "mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void wt_ring_init(wt_ring *r, size_t elem) { *r = (wt_ring){.elem = elem}; }

void wt_ring_free(wt_ring *r) {
  wt_mem_free(r->data);
  wt_ring_init(r, r->elem);
}

int wt_ring_resize(wt_ring *r, size_t new_cap) {
  if (new_cap < r->count) return 0;
  if (r->elem && new_cap > SIZE_MAX / r->elem) return 0;
  unsigned char *fresh = wt_mem_alloc(new_cap * r->elem);
  if (!fresh) return 0;
  /* At most two contiguous pieces: head..end, then 0..rest. */
  size_t first = r->count;
  if (r->cap && r->head + first > r->cap) first = r->cap - r->head;
  if (first) memcpy(fresh, r->data + r->head * r->elem, first * r->elem);
  if (r->count > first) memcpy(fresh + first * r->elem, r->data, (r->count - first) * r->elem);
  wt_mem_free(r->data);
  r->data = fresh;
  r->head = 0;
  r->cap = new_cap;
  return 1;
}

wt_ring_room wt_ring_when_full(wt_ring *r, size_t budget, size_t initial, int keep_newest) {
  if (r->count < r->cap) return WT_RING_FREE;
  if (r->cap < budget) {
    size_t new_cap = r->cap ? r->cap * 2 : (initial ? initial : 1);
    if (new_cap > budget) new_cap = budget;
    if (wt_ring_resize(r, new_cap)) return WT_RING_GREW;
  }
  if (keep_newest && r->cap > 0) {
    wt_ring_drop(r, 1);
    return WT_RING_EVICTED;
  }
  return WT_RING_REFUSED;
}
