/* Shadow-stack push and pop on the owning thread (see registry.h for the
 * publication protocol). Inline: these are the hot path of scopes and of the
 * -finstrument-functions hooks. */
#ifndef WT_STACK_OPS_H
#define WT_STACK_OPS_H

#include "registry.h"

/* Pushes a frame; returns the depth below it. The depth is 32 bits: it
 * cannot overflow in practice, so there is no branch for it.
 *
 * Written so that only `top` is live through it, never `top` and the new
 * `top` together: inlined into every instrumented function (-flto), each
 * value live at once is a wasm local, and V8's baseline tier (Liftoff,
 * where startup code runs) gives every local a stack slot in every frame.
 * Computing the new `top` first and the depth from the old one kept both
 * live: one local more, 8 bytes per frame, and a deep recursion overflowed
 * the browser's stack ~9 % sooner (tests/moving/depth.c,
 * tests/node/hook-frame.test.mjs, issue 23). */
WT_I_NOINSTR static inline uint32_t wt_stack_push(wt_thread *t, uint32_t id) {
  uint64_t top = WT_I_LOAD_OWN_U64(&t->top);
  uint32_t depth = WT_TOP_DEPTH(top);
  /* The slot is this `top` xor the id (WT_SLOT_ID, WT_SLOT_TAG). */
  if (__builtin_expect(depth < WT_MAX_DEPTH, 1)) WT_I_STORE_FRAME(&t->frames[depth], top ^ id);
  WT_I_PUBLISH_U64(&t->top, top + WT_TOP_PUSH_STEP);
  return depth;
}

/* Pops a frame; returns 0 (and does nothing) on an empty stack. */
WT_I_NOINSTR static inline int wt_stack_pop(wt_thread *t, uint32_t *depth_after) {
  uint64_t top = WT_I_LOAD_OWN_U64(&t->top);
  if (__builtin_expect(WT_TOP_DEPTH(top) == 0, 0)) return 0; /* unbalanced end: ignore */
  WT_I_PUBLISH_U64(&t->top, top - 1);
  *depth_after = WT_TOP_DEPTH(top) - 1;
  return 1;
}

#endif
