/* The wasmtrace worker thread (worker.c): what the rest of the runtime
 * starts and reads of it. */
#ifndef WT_WORKER_H
#define WT_WORKER_H

#include <stdint.h>

/* The worker thread's entry point (pthread_create by wt_runtime_init). */
void *wt_worker_main(void *arg);

/* Time the worker has spent awake, all sessions' work (an upper bound of
 * its CPU time), in us. Any thread. */
uint64_t wt_worker_busy_us(void);

/* When wt_runtime_init created the worker, and when it began running
 * (0 until then), in wt_platform_now_us time. Any thread. */
double wt_worker_created_us(void);
double wt_worker_started_us(void);

#endif
