/* A page app whose heap the page fills on demand (tests/browser/lowheap.test.mjs):
 * lowheap_fill(left) mallocs until about `left` bytes are left, lowheap_release()
 * frees it all. The page then starts sessions with the heap nearly full. Fixed
 * heap: Emscripten's malloc aborts when it cannot grow, so the fill measures
 * what is left the way wasmtrace's allocator does and stops in time. */
#include <emscripten.h>
#include <emscripten/heap.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_BLOCKS 16384
static void *blocks[MAX_BLOCKS];
static int nblocks;

/* What malloc can still take without growing the heap (as tests/oom/oom.c). */
EMSCRIPTEN_KEEPALIVE double lowheap_left(void) {
  uintptr_t brk = (uintptr_t)sbrk(0);
  size_t max = emscripten_get_heap_max();
  return (double)((max > brk ? max - brk : 0) + (size_t)mallinfo().keepcost);
}

/* Fills the heap until at most `left` bytes (and more than left - 4 KiB)
 * are left; returns what is left. */
EMSCRIPTEN_KEEPALIVE double lowheap_fill(double left) {
  size_t chunks[] = {1 << 20, 64 << 10, 4 << 10, 512};
  for (int c = 0; c < 4; c++) {
    while (nblocks < MAX_BLOCKS && lowheap_left() > left + chunks[c] + 64) {
      void *p = malloc(chunks[c]);
      if (!p) break;
      blocks[nblocks++] = p;
    }
  }
  return lowheap_left();
}

EMSCRIPTEN_KEEPALIVE void lowheap_release(void) {
  while (nblocks > 0) free(blocks[--nblocks]);
}

int main(void) { return 0; }
