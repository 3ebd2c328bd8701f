/* Half of the clone-suffix test app (tests/browser/clones.test.mjs): a
 * file-local `helper`, like clones_b.c's. Two statics of one name are what
 * makes the linker number one of them (`helper.1`) in the wasm name section. */
#include "clones.h"

static __attribute__((noinline)) uint32_t helper(uint32_t x) {
  for (int i = 0; i < 64; i++) x = x * 2654435761u + (uint32_t)i;
  clones_sink = x;
  return x;
}

uint32_t clones_a(uint32_t n) {
  uint32_t s = 0;
  for (uint32_t i = 0; i < n; i++) s += helper(i + s);
  return s;
}
