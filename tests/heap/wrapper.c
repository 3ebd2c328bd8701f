/* A heap shaped like Lua's (issue 38): every allocation goes through one
 * allocator callback, l_alloc(ud, ptr, osize, nsize), as lua_newstate's
 * frealloc does (and C++'s operator new, xmalloc, sqlite3Malloc), the app
 * keeps its own exact count of the bytes it holds (Lua's GCdebt), and more
 * than 100,000 small blocks are live at once: more than the first table of
 * the shim's address set holds (65,536).
 *
 *   new_object   120,000 objects of 16..271 B (a table's nodes)
 *   grow_array   1,000 arrays, each grown by realloc from 16 B to 1 KiB
 *   collect      frees every third object (not a site: frees have none)
 *   new_string   20,000 strings of 32..95 B
 *
 * The app's own count at its peak and at the end, and each site's live
 * bytes, are what a session at "sampleBytes": 1 must find to the byte, with
 * every site the caller of l_alloc, not l_alloc. The page reads
 * self.wrapperExpect and waits for self.wrapperDone.
 *
 * Repeated samplings (the page's ?rounds=N): wrapper_round(seed) frees the
 * previous round's blocks and allocates a new set of small ones that stay
 * live; the page records each round with its own session at a sampling
 * interval and checks how often the live-at-stop interval covers the truth. */
#include <emscripten.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pace.h"

/* What the app holds now, by its own count, and its largest. */
static size_t total, peak;

/* Lua's l_alloc (lauxlib.c), with the count Lua keeps in its state. */
__attribute__((noinline)) static void *l_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (nsize == 0) {
    free(ptr);
    total -= ptr ? osize : 0;
    return NULL;
  }
  void *p = realloc(ptr, nsize);
  if (!p) return NULL;
  total = total - (ptr ? osize : 0) + nsize;
  if (total > peak) peak = total;
  return p;
}

/* Called through a pointer, as Lua calls its state's frealloc: nothing can
 * inline the wrapper away. */
static void *(*volatile frealloc)(void *, void *, size_t, size_t) = l_alloc;

/* At one sample per allocation the loops wait for wasmtrace's worker
 * whenever it falls behind (pace.h), and pause now and then as before. */
static int paced;
static void pace(void) {
  if (!paced) return;
  pace_wait_for_worker();
  if ((++paced & 63) == 0) usleep(1000);
}

static uint32_t lcg = 12345;
static uint32_t next(void) { return lcg = lcg * 1664525u + 1013904223u; }

#define OBJECTS 120000
#define ARRAYS 1000
#define STRINGS 20000
static void *objects[OBJECTS];
static size_t object_size[OBJECTS];
static void *arrays[ARRAYS];
static void *strings[STRINGS];
static size_t live_object, live_array, live_string;

__attribute__((noinline)) static void new_object(int i) {
  object_size[i] = 16 + next() % 256;
  objects[i] = frealloc(NULL, NULL, 0, object_size[i]);
  memset(objects[i], 1, object_size[i]);
  live_object += object_size[i];
  pace();
}

__attribute__((noinline)) static void grow_array(int i) {
  size_t n = 16;
  arrays[i] = frealloc(NULL, NULL, 0, n);
  pace();
  for (; n < 1024; n *= 2) {
    arrays[i] = frealloc(NULL, arrays[i], n, n * 2);
    pace();
  }
  live_array += n;
}

__attribute__((noinline)) static void collect(void) {
  for (int i = 0; i < OBJECTS; i += 3) {
    frealloc(NULL, objects[i], object_size[i], 0);
    live_object -= object_size[i];
    objects[i] = NULL;
    pace();
  }
}

__attribute__((noinline)) static void new_string(int i) {
  size_t n = 32 + next() % 64;
  strings[i] = frealloc(NULL, NULL, 0, n);
  memset(strings[i], 'a', n);
  live_string += n;
  pace();
}

/* ---- repeated samplings ------------------------------------------------------ */

#define ROUND_BLOCKS 40000
static void *round_blocks[ROUND_BLOCKS];
static size_t round_live;

/* Frees the previous round's blocks (before the caller's session starts:
 * the page calls wrapper_round_free first), then allocates ROUND_BLOCKS
 * blocks of 16..527 B through the wrapper and keeps a seed-chosen half:
 * ~5.5 MiB live at the end, in blocks far smaller than the interval.
 * Returns the bytes kept. */
EMSCRIPTEN_KEEPALIVE void wrapper_round_free(void) {
  for (int i = 0; i < ROUND_BLOCKS; i++) {
    if (round_blocks[i]) frealloc(NULL, round_blocks[i], 0, 0);
    round_blocks[i] = NULL;
  }
  round_live = 0;
}

__attribute__((noinline)) static void round_fill(uint32_t seed) {
  lcg = seed * 2654435761u + 1;
  for (int i = 0; i < ROUND_BLOCKS; i++) {
    size_t n = 16 + next() % 512;
    round_blocks[i] = frealloc(NULL, NULL, 0, n);
    if ((next() >> 16) & 1) {
      frealloc(NULL, round_blocks[i], n, 0);
      round_blocks[i] = NULL;
    } else {
      round_live += n;
    }
  }
}

EMSCRIPTEN_KEEPALIVE double wrapper_round(uint32_t seed) {
  round_fill(seed);
  return (double)round_live;
}

int main(void) {
  if (EM_ASM_INT({ return new URLSearchParams(location.search).has('rounds') ? 1 : 0; })) {
    EM_ASM({ self.wrapperReady = true; });
    return 0;
  }
  paced = EM_ASM_INT({ return Number(new URLSearchParams(location.search).get('sampleBytes') || 1) === 1 ? 1 : 0; });
  for (int i = 0; i < OBJECTS; i++) new_object(i);
  for (int i = 0; i < ARRAYS; i++) grow_array(i);
  collect();
  for (int i = 0; i < STRINGS; i++) new_string(i);
  size_t blocks = 0;
  for (int i = 0; i < OBJECTS; i++) blocks += objects[i] != NULL;
  blocks += ARRAYS + STRINGS;
  char expect[512];
  snprintf(expect, sizeof expect,
           "{\"peak\":%zu,\"live\":%zu,\"liveBlocks\":%zu,"
           "\"sites\":{\"new_object\":%zu,\"grow_array\":%zu,\"new_string\":%zu}}",
           peak, total, blocks, live_object, live_array, live_string);
  EM_ASM({
    self.wrapperExpect = JSON.parse(UTF8ToString($0));
    self.wrapperDone = true;
  }, expect);
  return 0;
}
