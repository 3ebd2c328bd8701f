/* An open-addressing hash table of nonzero u32 values whose keys live with
 * the caller: typically "index + 1" into the caller's arrays. The caller
 * hashes its key and compares candidates itself, so one table serves any
 * key (a node's (thread, parent, frame), a string, a frame id):
 *
 *   uint32_t i = wt_u32map_first(m, hash), v;
 *   while ((v = wt_u32map_get(m, i)) != 0 && !same_key(v)) i = wt_u32map_next(m, i);
 *   if (!v) wt_u32map_set(m, i, new_value);   // i is the free slot
 *
 * The table never fills: the caller keeps it at most half full (grow by
 * initialising a bigger one and setting every value again). With
 * `resettable`, wt_u32map_reset empties it in O(1) (a generation per slot). */
#ifndef WT_U32MAP_H
#define WT_U32MAP_H

#include <stdint.h>

typedef struct wt_u32map {
  uint32_t *val; /* 0: empty */
  uint32_t *gen; /* NULL unless resettable: a slot is live if gen == cur */
  uint32_t cap;  /* power of two */
  uint32_t cur;
} wt_u32map;

/* A table of at least `min_cap` slots (rounded up to a power of two, 16 at
 * least). 0 if out of memory (nothing to free then). */
int wt_u32map_init(wt_u32map *m, uint32_t min_cap, int resettable);
void wt_u32map_free(wt_u32map *m);
/* Empties the table. */
void wt_u32map_reset(wt_u32map *m);
/* Bytes allocated. */
uint64_t wt_u32map_bytes(const wt_u32map *m);

/* A well-mixed hash of one u32, and of three (a, b, c). Inline: the
 * session hashes every frame of every sample. */
static inline uint32_t wt_u32map_hash(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
static inline uint32_t wt_u32map_hash3(uint32_t a, uint32_t b, uint32_t c) {
  uint64_t x = ((uint64_t)a << 32 | b) ^ ((uint64_t)c * 0x9e3779b97f4a7c15ULL);
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 29;
  return (uint32_t)x;
}

static inline uint32_t wt_u32map_first(const wt_u32map *m, uint32_t hash) { return hash & (m->cap - 1); }
static inline uint32_t wt_u32map_next(const wt_u32map *m, uint32_t i) { return (i + 1) & (m->cap - 1); }
/* The value in slot i, 0 if the slot is empty. */
static inline uint32_t wt_u32map_get(const wt_u32map *m, uint32_t i) {
  return (!m->gen || m->gen[i] == m->cur) ? m->val[i] : 0;
}
static inline void wt_u32map_set(wt_u32map *m, uint32_t i, uint32_t v) {
  m->val[i] = v;
  if (m->gen) m->gen[i] = m->cur;
}

#endif
