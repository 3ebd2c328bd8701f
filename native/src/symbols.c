/* Function-name cache for table indices (see symbols.h). */
#include "symbols.h"
#include "fmt.h"
#include "mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

#define CACHE_SIZE 8192 /* open addressing; grows by rehashing when half full */

typedef struct entry {
  uint32_t key; /* table index + 1; 0 = empty */
  char *name;
} entry;

/* Worker-private, below the runtime object (see runtime.h). */
static struct {
  entry *table;
  uint32_t cap, used;
} cache;

static uint32_t hash(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  return x;
}

static entry *slot_for(entry *table, uint32_t cap, uint32_t key) {
  uint32_t i = hash(key) & (cap - 1);
  while (table[i].key && table[i].key != key) i = (i + 1) & (cap - 1);
  return &table[i];
}

static int grow(void) {
  uint32_t cap = cache.cap ? cache.cap * 2 : CACHE_SIZE;
  entry *table = wt_mem_calloc(cap, sizeof *table);
  if (!table) return 0;
  for (uint32_t i = 0; i < cache.cap; i++)
    if (cache.table[i].key) *slot_for(table, cap, cache.table[i].key) = cache.table[i];
  wt_mem_free(cache.table);
  cache.table = table;
  cache.cap = cap;
  return 1;
}

const char *wt_symbols_function_name(uint32_t table_index) {
  uint32_t key = table_index + 1;
  if (cache.cap) {
    entry *e = slot_for(cache.table, cache.cap, key);
    if (e->key) return e->name;
  }
  char buf[512];
  /* No function there (or none the platform can name): the slot's number,
   * spelled as the JS side spells it when it has no function index. */
  if (!wt_platform_function_name(table_index, buf, sizeof buf))
    wt_snprintf(buf, sizeof buf, "wasm-table[%u]", (unsigned)table_index);
  char *name = wt_mem_strdup(buf);
  if (!name) return "(out of memory)";
  if ((cache.used + 1) * 2 > cache.cap && !grow()) return name; /* leaks one name; never fails */
  entry *e = slot_for(cache.table, cache.cap, key);
  e->key = key;
  e->name = name;
  cache.used++;
  return name;
}

void wt_symbols_reset(void) {
  for (uint32_t i = 0; i < cache.cap; i++) wt_mem_free(cache.table[i].name);
  wt_mem_free(cache.table);
  cache.table = NULL;
  cache.cap = cache.used = 0;
}
