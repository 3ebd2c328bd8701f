/* Shadow-stack push and pop on the owning thread (see registry.h for the
 * publication protocol). Inline: these are the hot path of scopes and of the
 * -finstrument-functions hooks. */
#ifndef WT_STACK_OPS_H
#define WT_STACK_OPS_H

#include "registry.h"

/* Pushes a frame; returns the depth below it. The depth is 32 bits: it
 * cannot overflow in practice, so there is no branch for it. */
WT_I_NOINSTR static inline uint32_t wt_stack_push(wt_thread *t, uint32_t id) {
  uint64_t top = WT_I_LOAD_OWN_U64(&t->top);
  uint64_t next = top + WT_TOP_PUSH_STEP;
  uint32_t depth = WT_TOP_DEPTH(top);
  /* The slot's tag is the new push count: the high half of `next`. */
  if (__builtin_expect(depth < WT_MAX_DEPTH, 1))
    WT_I_STORE_FRAME(&t->frames[depth], (next & ~(uint64_t)UINT32_MAX) | id);
  WT_I_PUBLISH_U64(&t->top, next);
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
