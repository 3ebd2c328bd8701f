/* The one allocator of wasmtrace's own memory.
 *
 * Every buffer wasmtrace allocates goes through these functions (zlib's too,
 * through zalloc/zfree). On the web they refuse (return NULL, counted) any
 * request that could make malloc grow the heap past what it can give, so
 * that Emscripten's aborting out-of-memory path (ABORTING_MALLOC, the
 * default with a fixed heap) is never reached from wasmtrace's code: a
 * refusal is an ordinary NULL that the caller handles (a session that
 * cannot have its memory fails before it starts, or stops early keeping
 * what it recorded; session.c).
 *
 * The reserve credit. A session keeps a reserve block to finish with; when
 * it must finish on memory it no longer gets, it frees the block and adds
 * its size to the calling thread's credit (wt_mem_credit_add): a request
 * the heap check refuses is then granted while the credit covers it (the
 * freed reserve is free memory inside the heap: malloc serves it without
 * growing the heap). Frees on that thread give credit back, up to what was
 * added. The credit is thread-local (the worker's) and cleared with
 * wt_mem_credit_clear once no session is finishing, so that it never
 * outlives the memory it stands for. It is spent only while it is open
 * (wt_mem_credit_open): the worker opens it around encoding alone, so that
 * the sampling side (ring, call-tree and snapshot growth, which may run
 * between a release and the final step) cannot eat what the final step
 * needs.
 *
 * Thread-safe; the counters are relaxed atomics. */
#ifndef WT_MEM_H
#define WT_MEM_H

#include <stddef.h>
#include <stdint.h>

/* Nonzero while wasmtrace allocates its own memory on this thread (these
 * functions set it around malloc & co.): the heap shim never samples such
 * an allocation (heap.h). Volatile: with LTO, Emscripten 3.1.6's clang
 * dropped the increment and decrement around an inlined malloc whose
 * sampling path reads it, and wasmtrace's worker sampled its own buffers
 * (36 blocks, 20.7 MiB "not attributed" in a one-thread app). */
extern _Thread_local volatile int wt_i_heap_own;

void *wt_mem_alloc(size_t n);
void *wt_mem_calloc(size_t count, size_t size);
/* Like realloc; on refusal the old block is left as it was. */
void *wt_mem_realloc(void *p, size_t n);
/* Like aligned_alloc (align a power of two, n a multiple of it). */
void *wt_mem_aligned_alloc(size_t align, size_t n);
void wt_mem_free(void *p);
char *wt_mem_strdup(const char *s);

/* Requests refused since the process started (or the last test reset). */
uint64_t wt_mem_refusals(void);

/* The heap rule (docs/GUIDE.md, "Memory"). "Room" is what malloc can take
 * without growing the heap past its maximum (the room above the heap's
 * break plus malloc's top chunk; memory free inside malloc's bins is not
 * counted). A request of wasmtrace's is granted only if, after it:
 *   - the room left covers the app's headroom, wt_mem_app_keep() (1/8 of
 *     the heap's maximum, at least 1 MiB: 2 MiB of Emscripten's default
 *     16 MiB heap), plus every byte wasmtrace then holds; and
 *   - wasmtrace's own bytes are at most half of its own plus the room
 *     (it never holds more than 1/2 of the memory the app is not using).
 * While sessions record, the worker checks wt_mem_app_short(): once the
 * app's own allocations have taken the room below the headroom plus
 * wasmtrace's bytes, every running session stops early (session.h) and
 * gives its memory back, before the app can reach its last headroom. */

/* Bytes wasmtrace may still allocate now under the rule. SIZE_MAX where
 * the heap has no known limit (host). May walk malloc's heap: not for hot
 * paths. */
size_t wt_mem_available(void);
/* The room now (see above); SIZE_MAX on the host. Walks malloc's heap. */
size_t wt_mem_heap_free(void);
/* The app's headroom in bytes (0 on the host). */
size_t wt_mem_app_keep(void);
/* Bytes wasmtrace's own blocks hold now. */
size_t wt_mem_own_bytes(void);
/* 1 when the room is below the app's headroom plus wasmtrace's bytes (and
 * then the room and that sum through the pointers, which may be NULL),
 * else 0. Cheap when the
 * room is ample (one sbrk(0)); walks malloc's heap only near the edge. */
int wt_mem_app_short(size_t *room_out, size_t *keep_out);

/* Calling thread's reserve credit (see above). */
void wt_mem_credit_add(size_t bytes);
void wt_mem_credit_clear(void);
/* Opens (1) or closes (0) the calling thread's credit for spending; closed
 * at first. Frees give credit back either way. */
void wt_mem_credit_open(int open);
size_t wt_mem_credit(void);

/* Test seam: after `n` more successful allocations, every allocation is
 * refused (the credit still applies); n < 0 turns it off. Also resets the
 * refusal count. Process-wide. */
void wt_mem_fail_after_for_testing(long n);

#endif
