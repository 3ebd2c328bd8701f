// The C++ part of tests/shapes: where exceptions can be caught (-fexceptions:
// __USING_EMSCRIPTEN_EXCEPTIONS__; -fwasm-exceptions: __USING_WASM_EXCEPTIONS__)
// odd rounds throw and are caught; elsewhere they are counted the same way
// (Emscripten compiles `throw` by default, but a throw then aborts). The
// result is the same either way.
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__USING_EMSCRIPTEN_EXCEPTIONS__) || defined(__USING_WASM_EXCEPTIONS__)
#define SHAPES_CATCHES 1
#else
#define SHAPES_CATCHES 0
#endif

namespace {
int shapes_round(int i) {
#if SHAPES_CATCHES
  if (i % 2) throw std::runtime_error("odd round " + std::to_string(i));
#endif
  return i % 2;
}
}  // namespace

extern "C" int shapes_cxx(int rounds) {
  std::vector<std::string> seen;
  int odd = 0;
  for (int i = 0; i < rounds; i++) {
#if SHAPES_CATCHES
    try {
      odd += shapes_round(i);
    } catch (const std::runtime_error &e) {
      seen.push_back(e.what());
      odd++;
    }
#else
    odd += shapes_round(i);
#endif
  }
  return odd;
}
