/* A table of strings: each distinct string gets a dense index, in the order
 * first seen (the Firefox format's string array). The table keeps copies,
 * grows on wasmtrace's heap (mem.h) and hashes with FNV-1a (wt_str_hash,
 * which the chrome encoder uses for its thread names too). */
#ifndef WT_STRTAB_H
#define WT_STRTAB_H

#include <stdint.h>

#include "u32map.h"

#define WT_STRTAB_NONE 0xffffffffu /* no index: out of memory */

typedef struct wt_strtab {
  char **str; /* copies, freed with the table */
  uint32_t count, cap;
  wt_u32map index; /* string index + 1 by hash */
} wt_strtab;

/* FNV-1a of a NUL-terminated string. */
uint32_t wt_str_hash(const char *s);
/* Index of s in the table (zeroed at first), added if new; WT_STRTAB_NONE
 * if out of memory. */
uint32_t wt_strtab_index(wt_strtab *t, const char *s);
void wt_strtab_free(wt_strtab *t);

#endif
