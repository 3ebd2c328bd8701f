/* Hash table of u32 values with caller-side keys (see u32map.h). */
#include "u32map.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

int wt_u32map_init(wt_u32map *m, uint32_t min_cap, int resettable) {
  uint32_t cap = 16;
  while (cap < min_cap && cap < (1u << 31)) cap *= 2;
  *m = (wt_u32map){.cap = cap, .cur = 1};
  m->val = wt_mem_calloc(cap, sizeof *m->val);
  if (resettable) m->gen = wt_mem_calloc(cap, sizeof *m->gen);
  if (!m->val || (resettable && !m->gen)) {
    wt_u32map_free(m);
    return 0;
  }
  return 1;
}

void wt_u32map_free(wt_u32map *m) {
  wt_mem_free(m->val);
  wt_mem_free(m->gen);
  *m = (wt_u32map){0};
}

void wt_u32map_reset(wt_u32map *m) {
  if (!m->gen) {
    memset(m->val, 0, (size_t)m->cap * sizeof *m->val);
  } else if (++m->cur == 0) { /* generations wrapped: clear for real */
    memset(m->gen, 0, (size_t)m->cap * sizeof *m->gen);
    m->cur = 1;
  }
}

uint64_t wt_u32map_bytes(const wt_u32map *m) {
  return (uint64_t)m->cap * sizeof *m->val * (m->gen ? 2 : 1);
}
