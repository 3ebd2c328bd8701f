/* Hook designs measured against the shipped hooks (bench/CMakeLists.txt,
 * targets bench_calls_<design>; docs/BENCHMARKS.md, "Hooks"). None is
 * shipped: the library keeps only native/src/hooks.c. One design per build,
 * chosen by a macro:
 *   WT_HOOKS_BRANCHLESS   push and pop without a branch. A push past
 *                         WT_MAX_DEPTH rewrites the deepest kept slot instead
 *                         of skipping the store (a copy of a deeper stack
 *                         would show a wrong last frame); a pop on an empty
 *                         stack subtracts 0.
 *   WT_HOOKS_TLS_ONLY     the hooks' thread lookup and nothing else, so that
 *                         the shipped hooks minus this are what the push and
 *                         pop cost. Records no stack.
 *   WT_HOOKS_STORES_ONLY  the push's two stores without its load of `top`,
 *                         i.e. without the dependency from one hook to the
 *                         next through memory. Wrong stacks.
 * This file takes the place of the library's hooks.o: it defines every
 * symbol hooks.c defines, so the linker never pulls that archive member. */
#include <stdint.h>

#include "registry.h"

#if !defined(WT_HOOKS_BRANCHLESS) && !defined(WT_HOOKS_TLS_ONLY) && !defined(WT_HOOKS_STORES_ONLY)
#error "define one of WT_HOOKS_BRANCHLESS, WT_HOOKS_TLS_ONLY, WT_HOOKS_STORES_ONLY"
#endif

WT_I_NOINSTR void __cyg_profile_func_enter(void *fn, void *call_site) {
  (void)call_site;
  wt_thread *t = wt_i_tls_self;
  if (__builtin_expect(t == NULL, 0) && (t = wt_thread_self()) == NULL) return;
#if defined(WT_HOOKS_BRANCHLESS)
  uint64_t top = WT_I_LOAD_OWN_U64(&t->top);
  uint64_t next = top + WT_TOP_PUSH_STEP;
  uint32_t depth = WT_TOP_DEPTH(top);
  uint32_t at = depth < WT_MAX_DEPTH ? depth : WT_MAX_DEPTH - 1; /* a select */
  WT_I_STORE_FRAME(&t->frames[at], top ^ (uint32_t)(uintptr_t)fn); /* the shipped slot format */
  WT_I_PUBLISH_U64(&t->top, next);
#elif defined(WT_HOOKS_TLS_ONLY)
  (void)fn;
  __asm__ volatile("" ::"r"(t));
#else
  WT_I_STORE_FRAME(&t->frames[0], (uint64_t)(uintptr_t)fn);
  WT_I_PUBLISH_U64(&t->top, WT_TOP_PUSH_STEP);
#endif
}

WT_I_NOINSTR void __cyg_profile_func_exit(void *fn, void *call_site) {
  (void)fn;
  (void)call_site;
  wt_thread *t = wt_i_tls_self;
  if (__builtin_expect(t == NULL, 0)) return;
#if defined(WT_HOOKS_BRANCHLESS)
  uint64_t top = WT_I_LOAD_OWN_U64(&t->top);
  uint32_t nonempty = WT_TOP_DEPTH(top) != 0;
  WT_I_PUBLISH_U64(&t->top, top - nonempty);
#elif defined(WT_HOOKS_TLS_ONLY)
  __asm__ volatile("" ::"r"(t));
#else
  WT_I_PUBLISH_U64(&t->top, 0);
#endif
}

#ifdef __EMSCRIPTEN__
/* As hooks.c: the call site the compiler passes is not used. */
WT_I_NOINSTR void *emscripten_return_address(int level) {
  (void)level;
  return 0;
}
#endif
