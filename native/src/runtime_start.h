/* The runtime's control: the worker's start (wt_runtime_init, declared in
 * wasmtrace/wasmtrace.h), exit()'s hook, and the test reset. Above the
 * runtime object (runtime.h) and every module these start or reset. */
#ifndef WT_RUNTIME_START_H
#define WT_RUNTIME_START_H

#include <stdint.h>

/* exit()'s hook (atexit, registered once the worker exists): tells the
 * worker to shut down and waits, at most 250 ms, until it has left its
 * loop, so that exit's termination of the pthreads never catches it inside
 * the sampler or an encoder. Sessions are left as they are. Any thread but
 * the worker; idempotent. */
void wt_runtime_quiesce_for_exit(void);

/* Test seam, the only one: stops and joins the worker (also one that
 * exited on its own for lack of memory), frees every session, forgets the
 * startup config, every registered thread, interned name and cached symbol,
 * and then records the categories in `record_categories` (bit i: category
 * index i) as if a running session wanted them (0: none). The calling
 * thread registers again on its next use. For the native unit tests, on the
 * host and compiled to wasm; not exported to JS. No other thread may be
 * using wasmtrace. */
void wt_runtime_reset_for_testing(uint64_t record_categories);

#endif
