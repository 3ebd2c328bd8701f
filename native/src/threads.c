/* Link-time wrappers that let wasmtrace see every pthread and know when a
 * thread waits. Active only in apps linked with
 *   -Wl,--wrap=pthread_create -Wl,--wrap=emscripten_futex_wait
 * (the wasmtrace CMake target and the guide's plain-emcc flags add them).
 * Nothing else references the __wrap_ symbols, so without those flags the
 * linker never pulls this file out of the archive, and the app keeps
 * today's behaviour: threads register on first use, no waiting state.
 *
 * pthread_create: the new thread runs a trampoline that registers it before
 * the app's start routine runs (so a thread that never calls wasmtrace is
 * sampled too), names it after that routine ("pthread N (decoder_main)" in
 * the trace) and pushes the routine as the stack's base frame (so a thread
 * with no instrumented frames still says where it runs; when the routine is
 * itself instrumented, its hook pushes it again and the sampler shows it
 * once, rec_samples.c). Registration happens only while wasmtrace's runtime is
 * up (a startup config or a session started): an app that never records
 * pays no thread record (~100 KiB each, registry.h) for its pthreads.
 *
 * emscripten_futex_wait: since Emscripten 3.1.6 every blocking wait of
 * musl and Emscripten (mutex, condition variable, join, semaphore,
 * barrier, sleep, waits for proxied calls) ends in this one C function.
 * The wrapper counts the registered caller as waiting around the real
 * call; the sampler marks its samples WT_SAMPLE_WAITING. Cost: on the wait
 * path only (a relaxed load of the "wrapped" flag, a thread-specific-data
 * load and two plain stores); the hooks do not change.
 *
 * Each wrapper also says it is linked in (threads.h: the trace, record,
 * report and the page's console say when it is not). */
#ifdef __EMSCRIPTEN__
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "mem.h"
#include "platform.h"
#include "registry.h"
#include "runtime.h"
#include "stack_ops.h"
#include "threads.h"
#include "worker.h"

int __real_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
int __real_emscripten_futex_wait(volatile void *addr, uint32_t val, double max_wait_ms);

/* What the trampoline needs; malloc'd by the creator, freed by the thread. */
typedef struct wt_start {
  void *(*fn)(void *);
  void *arg;
} wt_start;

/* Registration at a thread's start is wasmtrace's choice, not the app's:
 * it takes a thread record (~100 KiB, registry.h) only while the heap keeps
 * ample room for the app (a quarter of the heap, and at least 4 MiB), since
 * the app's own malloc aborts when the heap is full (a test that starts 450
 * short threads in a 16 MiB heap aborted 3 runs in 5 without this). Below
 * it the thread registers on first use, as without the wrapper. */
#define START_KEEP_MIN ((size_t)4 << 20)
WT_I_NOINSTR static int room_for_a_record(void) {
  /* The heap's room itself (mem.h): the record's own allocation then also
   * goes through mem.c's rule. */
  size_t room = wt_mem_heap_free();
  if (room == SIZE_MAX) return 1;
  int64_t heap = wt_platform_heap_bytes();
  size_t keep = heap > 0 && (size_t)heap / 4 > START_KEEP_MIN ? (size_t)heap / 4 : START_KEEP_MIN;
  return room >= keep + sizeof(wt_thread);
}

WT_I_NOINSTR static void *start_trampoline(void *p) {
  wt_start start = *(wt_start *)p;
  free(p);
  uint32_t fn = (uint32_t)(uintptr_t)start.fn;
  wt_thread *t = NULL;
  if (atomic_load_explicit(&wt_rt.worker_state, memory_order_acquire) == 1 && room_for_a_record())
    t = wt_registry_register_started(fn + 1, 1);
  if (t) wt_stack_push(t, fn);
  void *result = start.fn(start.arg);
  /* Only if the routine left the stack as it found it (a scope left open
   * would otherwise lose its frame, not ours). */
  uint32_t depth;
  if (t && wt_i_tls_self == t && WT_TOP_DEPTH(WT_I_LOAD_OWN_U64(&t->top)) == 1) wt_stack_pop(t, &depth);
  return result;
}

WT_I_NOINSTR int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *),
                                       void *arg) {
  /* The app has this wrapper (threads.h); wasmtrace's own worker comes
   * through here too, so the flag is set before any session records. */
  if (!atomic_load_explicit(&wt_i_wrapped_create, memory_order_relaxed))
    atomic_store_explicit(&wt_i_wrapped_create, 1, memory_order_relaxed);
  /* wasmtrace's own worker is never registered: it goes straight through. */
  if (fn == wt_worker_main || !fn) return __real_pthread_create(thread, attr, fn, arg);
  wt_start *start = malloc(sizeof *start);
  if (!start) return __real_pthread_create(thread, attr, fn, arg);
  start->fn = fn;
  start->arg = arg;
  int rc = __real_pthread_create(thread, attr, start_trampoline, start);
  if (rc != 0) free(start);
  return rc;
}

WT_I_NOINSTR int __wrap_emscripten_futex_wait(volatile void *addr, uint32_t val, double max_wait_ms) {
  /* Never through TLS: a new pthread can wait here (for malloc's lock)
   * while Emscripten is still allocating its TLS block, and a reused pool
   * worker then holds the previous thread's stale TLS base; reading
   * wt_i_tls_self there crashed ("memory access out of bounds", found by
   * bench/e2e.mjs starting two pthreads at once). NULL: not registered, or
   * the worker. */
  if (!atomic_load_explicit(&wt_i_wrapped_wait, memory_order_relaxed))
    atomic_store_explicit(&wt_i_wrapped_wait, 1, memory_order_relaxed);
  wt_thread *t = wt_registry_self_without_tls();
  if (!t) return __real_emscripten_futex_wait(addr, val, max_wait_ms);
  uint32_t n = WT_I_LOAD_OWN_U32(&t->waiting);
  WT_I_STORE_WAITING(&t->waiting, n + 1);
  int rc = __real_emscripten_futex_wait(addr, val, max_wait_ms);
  WT_I_STORE_WAITING(&t->waiting, n);
  return rc;
}
#endif
