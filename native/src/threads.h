/* Whether the app was linked with the pthread wrappers (threads.c):
 *   -Wl,--wrap=pthread_create -Wl,--wrap=emscripten_futex_wait
 * Without them wasmtrace sees only the threads that call it (they register
 * on first use) and no waiting, silently; the trace says so
 * ("pthreadsWrapped": false in the session record) and the tools print one
 * line about it. */
#ifndef WT_THREADS_H
#define WT_THREADS_H

#include <stdatomic.h>

/* Set to 1 by each wrapper when it runs (threads.c). They live outside
 * threads.c (api.c): nothing may reference threads.c's symbols, or an app
 * linked without the flags would pull it in and fail on the __real_ ones. */
extern _Atomic int wt_i_wrapped_create;
extern _Atomic int wt_i_wrapped_wait;

/* 1 if both wrappers are linked in, 0 if either is not, -1 if not known
 * (a host build, or wasmtrace's worker not started yet: its creation is
 * what passes through the pthread_create wrapper). The wait wrapper is
 * probed with a wait that returns at once. Any thread. */
int wt_threads_wrapped(void);

#endif
