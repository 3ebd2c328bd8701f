/* Where the wasm memory grows, for every allocator and Emscripten version
 * (part of wasmtrace_heap): every growth of the memory by C code goes
 * through the JS import emscripten_resize_heap, whichever allocator asked
 * (dlmalloc through sbrk; emmalloc and mimalloc on Emscripten 4+ through
 * _sbrk64, which --wrap=sbrk does not see). The link wraps it
 * (-Wl,--wrap=emscripten_resize_heap: calls come here and go on to the
 * import as __real_emscripten_resize_heap). Its own object file: an app
 * linked without that flag never pulls it in (so never needs the __real_
 * symbol), and then heap_shim.c's sbrk wrapper marks the growth instead,
 * where it can (wt_i_heap_grow_linked says which). */
#include <stddef.h>
#include <stdint.h>

#include "heap.h"

int __real_emscripten_resize_heap(size_t requested_size);

/* Defined only here: heap_shim.c reads it as a weak symbol (0: this file
 * is not linked). */
const int wt_i_heap_grow_linked = 1;

WT_I_NOINSTR int __wrap_emscripten_resize_heap(size_t requested_size) {
  uint32_t before = (uint32_t)__builtin_wasm_memory_size(0);
  int ok = __real_emscripten_resize_heap(requested_size);
  uint32_t after = (uint32_t)__builtin_wasm_memory_size(0);
  /* Another thread may grow it meanwhile: the sizes read around the call. */
  if (after > before) wt_heap_on_grow(before, after);
  return ok;
}
