/* A table of strings (see strtab.h). */
#include "strtab.h"

#include <string.h>

#include "mem.h"

uint32_t wt_str_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static int grow(wt_strtab *t) {
  uint32_t nslots = t->index.cap ? t->index.cap * 2 : 1024;
  wt_u32map index;
  if (!wt_u32map_init(&index, nslots, 0)) return 0;
  char **str = wt_mem_realloc(t->str, (size_t)(nslots / 2) * sizeof *str);
  if (!str) {
    wt_u32map_free(&index);
    return 0;
  }
  t->str = str;
  for (uint32_t i = 0; i < t->count; i++) {
    uint32_t j = wt_u32map_first(&index, wt_str_hash(str[i]));
    while (wt_u32map_get(&index, j)) j = wt_u32map_next(&index, j);
    wt_u32map_set(&index, j, i + 1);
  }
  wt_u32map_free(&t->index);
  t->index = index;
  t->cap = nslots / 2;
  return 1;
}

uint32_t wt_strtab_index(wt_strtab *t, const char *s) {
  if (t->count + 1 > t->cap && !grow(t)) return WT_STRTAB_NONE;
  uint32_t j = wt_u32map_first(&t->index, wt_str_hash(s)), v;
  for (; (v = wt_u32map_get(&t->index, j)) != 0; j = wt_u32map_next(&t->index, j))
    if (strcmp(t->str[v - 1], s) == 0) return v - 1;
  char *copy = wt_mem_strdup(s);
  if (!copy) return WT_STRTAB_NONE;
  t->str[t->count] = copy;
  wt_u32map_set(&t->index, j, ++t->count);
  return t->count - 1;
}

void wt_strtab_free(wt_strtab *t) {
  for (uint32_t i = 0; i < t->count; i++) wt_mem_free(t->str[i]);
  wt_mem_free(t->str);
  wt_u32map_free(&t->index);
}
