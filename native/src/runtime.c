/* The one global runtime object (runtime.h) and the worker's wake. Its
 * start, exit hook and test reset, which reach every module above it, are
 * runtime_start.c's: the runtime object sits below the worker, the
 * categories and the server, which read it. */
#include "runtime.h"

#include "platform.h"

wt_runtime wt_rt = {.mutex = PTHREAD_MUTEX_INITIALIZER,
                    .categories_mutex = PTHREAD_MUTEX_INITIALIZER};

void wt_runtime_wake(void) { wt_platform_wake(&wt_rt.wake); }
