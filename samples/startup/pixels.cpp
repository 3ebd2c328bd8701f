// The sample's pixel conversion, in C++: templates and namespaces, so that
// traces of the instrumented build show demangled C++ names. to_luma is
// noinline: -finstrument-functions-after-inlining (the default of
// wasmtrace_instrument) instruments only functions left after inlining, and
// a small static method would otherwise vanish into its caller, leaving no
// C++ frame on the stack (tests/browser/formats.test.mjs checks it is there).
#include <cstddef>
#include <cstdint>

namespace sample {
namespace pixels {

struct Rgba {
  uint8_t r, g, b, a;
};

template <typename Pixel>
class Converter {
 public:
  // Luma into the alpha channel; returns the sum, so the work is kept.
  __attribute__((noinline)) static uint64_t to_luma(Pixel *px, size_t count) {
    uint64_t acc = 0;
    for (size_t i = 0; i < count; i++) acc += luma_of(px[i]);
    return acc;
  }

 private:
  static uint32_t luma_of(Pixel &p) {
    uint32_t y = (p.r * 77u + p.g * 150u + p.b * 29u) >> 8;
    p.a = static_cast<uint8_t>(y);
    return y;
  }
};

}  // namespace pixels
}  // namespace sample

extern "C" uint64_t sample_convert_pixels(uint8_t *bytes, size_t n) {
  using sample::pixels::Converter;
  using sample::pixels::Rgba;
  return Converter<Rgba>::to_luma(reinterpret_cast<Rgba *>(bytes), n / sizeof(Rgba));
}
