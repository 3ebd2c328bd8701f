// The C++ half: `step` in an anonymous namespace here and in clones_d.cpp.
// With -flto, LTO renames one before demangling: "(anonymous
// namespace)::step(unsigned int) (.1)"; without, the linker appends ".1".
#include "clones.h"

namespace {
__attribute__((noinline)) uint32_t step(uint32_t x) {
  for (int i = 0; i < 40; i++) x = x * 69069u + 1u;
  clones_sink = x;
  return x;
}
} // namespace

extern "C" uint32_t clones_c(uint32_t n) {
  uint32_t s = 0;
  for (uint32_t i = 0; i < n; i++) s += step(i ^ s);
  return s;
}
