// The other `step` (see clones_c.cpp).
#include "clones.h"

namespace {
__attribute__((noinline)) uint32_t step(uint32_t x) {
  for (int i = 0; i < 56; i++) x = (x << 5) ^ (x >> 3) ^ 0x9e3779b9u;
  clones_sink = x;
  return x;
}
} // namespace

extern "C" uint32_t clones_d(uint32_t n) {
  uint32_t s = 0;
  for (uint32_t i = 0; i < n; i++) s -= step(i + s);
  return s;
}
