/* -finstrument-functions support: every instrumented function pushes its
 * wasm table index (the function pointer value the compiler passes) on the
 * calling thread's shadow stack, and pops it on return. This file itself is
 * never instrumented: every function here is no_instrument_function, and the
 * library is compiled without -finstrument-functions. Other hook designs,
 * measured against these, live in bench/hooks_experiments.c. */
#include <stdint.h>

#include "calls.h"
#include "registry.h"
#include "stack_ops.h"

WT_I_NOINSTR void __cyg_profile_func_enter(void *fn, void *call_site) {
  (void)call_site;
  wt_thread *t = wt_i_tls_self;
  /* First call on this thread: register (the registry guards re-entry and
   * refuses the wasmtrace worker). */
  if (__builtin_expect(t == NULL, 0) && (t = wt_thread_self()) == NULL) return;
  uint32_t id = (uint32_t)(uintptr_t)fn;
  wt_stack_push(t, id);
  wt_calls_count(t, id); /* calls.h: exact counts */
}

WT_I_NOINSTR void __cyg_profile_func_exit(void *fn, void *call_site) {
  (void)fn;
  (void)call_site;
  wt_thread *t = wt_i_tls_self;
  if (__builtin_expect(t == NULL, 0)) return;
  uint32_t depth;
  wt_stack_pop(t, &depth);
}

#ifdef __EMSCRIPTEN__
/* The compiler passes __builtin_return_address(0) to the hooks, which
 * Emscripten implements in JS (it aborts without -sUSE_OFFSET_CONVERTER and
 * is very slow with it). We do not use the call site, so this definition
 * replaces Emscripten's for the whole program: it returns 0. */
WT_I_NOINSTR void *emscripten_return_address(int level) {
  (void)level;
  return 0;
}
#endif
