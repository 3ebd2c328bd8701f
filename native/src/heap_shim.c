/* The allocator shim: the library wasmtrace_heap, linked only by apps that
 * opt into heap profiling (CMake: wasmtrace_heap(target); docs/GUIDE.md,
 * "Where the memory went"). malloc, free, calloc, memalign, posix_memalign
 * and aligned_alloc are defined here, on top of the allocator's
 * emscripten_builtin_malloc / _free / _memalign, which dlmalloc and emmalloc
 * export for apps that replace malloc (their own malloc & co. are weak, so
 * these win, JS's _malloc and _free included). realloc has no builtin form:
 * the link wraps it (-Wl,--wrap=realloc: every call goes to __wrap_realloc,
 * which calls the allocator's as __real_realloc), and emscripten_resize_heap
 * (heap_grow.c) and sbrk, to see where the wasm memory grows. (Wrapping malloc and
 * free too would work for C, but wasm-ld then no longer exports them to
 * the JS runtime, which needs _malloc.) Each function calls the
 * allocator first and returns its result unchanged: out of memory, the app
 * sees exactly what it would see without wasmtrace, and no allocation fails
 * because of it. The sampling path is heap.c's. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "heap.h"

void *emscripten_builtin_malloc(size_t n);
void emscripten_builtin_free(void *p);
void *emscripten_builtin_memalign(size_t align, size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_sbrk(intptr_t increment);

/* The non-sampled path: a thread-local subtraction and a branch. */
#define WT_I_HEAP_COUNT(p, n)                                                     \
  do {                                                                            \
    if ((wt_i_heap_countdown -= (int64_t)(n)) < 0) wt_heap_on_alloc((p), (n));    \
  } while (0)

/* A free looks its address up only when the filter says it may be a
 * sampled block (heap.h): one load otherwise. */
static inline int WT_I_NOINSTR maybe_sampled(void *p) {
  _Atomic uint16_t *f = atomic_load_explicit(&wt_i_heap_filter, memory_order_relaxed);
  return p && f && atomic_load_explicit(&f[WT_I_HEAP_FILTER_INDEX((uintptr_t)p)], memory_order_relaxed);
}
#define WT_I_HEAP_FORGET(p)                    \
  do {                                         \
    if (maybe_sampled(p)) wt_heap_on_free(p);  \
  } while (0)

WT_I_NOINSTR void *malloc(size_t n) {
  void *p = emscripten_builtin_malloc(n);
  WT_I_HEAP_COUNT(p, n);
  return p;
}

WT_I_NOINSTR void free(void *p) {
  WT_I_HEAP_FORGET(p);
  emscripten_builtin_free(p);
}

WT_I_NOINSTR void *calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) {
    errno = ENOMEM;
    return NULL;
  }
  size_t n = count * size;
  void *p = emscripten_builtin_malloc(n);
  if (!p) return NULL;
  memset(p, 0, n);
  WT_I_HEAP_COUNT(p, n);
  return p;
}

WT_I_NOINSTR void *__wrap_realloc(void *p, size_t n) {
  if (!p) return malloc(n);
  /* The old block leaves the set before the real call can free it (its
   * address may be reused by another thread at once); realloc(p, 0) frees
   * it. A failed realloc keeps p, which is then no longer followed
   * (counted). */
  int tracked = maybe_sampled(p) && wt_heap_on_free(p);
  void *q = __real_realloc(p, n);
  if (!q) {
    if (tracked && n) wt_heap_note_realloc_failed();
    return q;
  }
  WT_I_HEAP_COUNT(q, n);
  return q;
}

WT_I_NOINSTR void *memalign(size_t align, size_t n) {
  void *p = emscripten_builtin_memalign(align, n);
  WT_I_HEAP_COUNT(p, n);
  return p;
}

WT_I_NOINSTR int posix_memalign(void **out, size_t align, size_t n) {
  /* POSIX: a power of two, a multiple of sizeof(void *); *out untouched on failure. */
  if (align < sizeof(void *) || (align & (align - 1))) return EINVAL;
  void *p = emscripten_builtin_memalign(align, n);
  if (!p) return ENOMEM;
  *out = p;
  WT_I_HEAP_COUNT(p, n);
  return 0;
}

WT_I_NOINSTR void *aligned_alloc(size_t align, size_t n) {
  void *p = emscripten_builtin_memalign(align, n);
  WT_I_HEAP_COUNT(p, n);
  return p;
}

/* Where the wasm memory grows is marked by heap_grow.c, which wraps
 * emscripten_resize_heap (every allocator, every version). An app linked
 * with the flags of before (-Wl,--wrap=sbrk only) does not have it: there
 * sbrk's wrapper marks it, for the allocators whose sbrk calls reach the
 * wrap (dlmalloc; emmalloc up to Emscripten 3), and a heap session says
 * once how to relink (wt_heap_grow_wrapped, heap.c). */
WT_I_NOINSTR void *__wrap_sbrk(intptr_t increment) {
  if (wt_heap_grow_wrapped()) return __real_sbrk(increment);
  uint32_t before = (uint32_t)__builtin_wasm_memory_size(0);
  void *r = __real_sbrk(increment);
  uint32_t after = (uint32_t)__builtin_wasm_memory_size(0);
  if (after > before) wt_heap_on_grow(before, after);
  return r;
}
