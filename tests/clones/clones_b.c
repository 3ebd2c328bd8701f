/* The other half: another file-local `helper` (see clones_a.c). */
#include "clones.h"

static __attribute__((noinline)) uint32_t helper(uint32_t x) {
  for (int i = 0; i < 48; i++) x = (x ^ (x >> 7)) * 40503u + (uint32_t)i;
  clones_sink = x;
  return x;
}

uint32_t clones_b(uint32_t n) {
  uint32_t s = 0;
  for (uint32_t i = 0; i < n; i++) s ^= helper(i * 3 + s);
  return s;
}
