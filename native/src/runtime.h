/* The one global runtime object: session table, worker thread, wake word. */
#ifndef WT_RUNTIME_H
#define WT_RUNTIME_H

#include <pthread.h>
#include <stdatomic.h>

#include "session.h"

typedef struct wt_runtime {
  pthread_mutex_t mutex; /* session creation only; never held while waiting */
  wt_session *sessions[WT_MAX_SESSION_IDS];
  _Atomic int session_count;
  pthread_t worker;
  _Atomic int worker_state; /* 0 none, 1 running, 2 failed to start */
  _Atomic int shutdown;
  _Atomic uint32_t wake;    /* bumped to wake the worker */
  _Atomic uint64_t worker_busy_us; /* time the worker spent awake (CPU upper bound) */
  _Atomic double worker_started_us; /* when the worker thread began running */
  double worker_created_us;         /* when wt_runtime_init created it */
  char config_error[WT_ERROR_MAX];
  int startup_ids[WT_MAX_SESSIONS];
  int startup_count;
} wt_runtime;

extern wt_runtime wt_rt;

/* The worker thread's entry point (worker.c). */
void *wt_worker_main(void *arg);

/* Names of the built-in counters (heap bytes, malloc bytes in use, live
 * threads) and their category, interned by wt_runtime_init. */
extern uint32_t wt_builtin_counter_ids[3];
extern uint32_t wt_builtin_counter_cat;

/* Recomputes which categories each running session records, and the
 * global mask the hot path reads. Any thread; takes a mutex of its own. */
void wt_runtime_update_categories(void);

/* Tests: records these categories as if a running session wanted them. */
void wt_runtime_force_categories_for_testing(uint64_t mask);

/* Wakes the worker (new session, stop request). Any thread. */
void wt_runtime_wake(void);

/* Reads the startup config blob and starts its sessions (runs before main()
 * in the wasm build). */
void wt_runtime_start_from_config(void);

/* Stops the worker and frees every session. Tests only (host build). */
void wt_runtime_shutdown_for_testing(void);

#endif
