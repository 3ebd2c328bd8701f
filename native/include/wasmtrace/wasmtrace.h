/*
 * wasmtrace — in-page tracing and sampling profiler for Emscripten pthread apps.
 *
 * This header is the manual for the C surface. Two layers:
 *   - real functions (wt_runtime_*, wt_session_*, wt_thread_*, wt_scope_*),
 *     stable and documented below;
 *   - instrumentation macros (WT_SCOPE, WT_BEGIN, WT_END, WT_THREAD_NAME) on
 *     top, which compile to nothing when WASMTRACE_DISABLED is defined.
 *
 * Threads: every function here may be called from any thread unless its
 * comment says otherwise. Hot-path functions (scopes, the
 * -finstrument-functions hooks) never allocate after a thread's first use,
 * never lock and never fail loudly: what they cannot record is counted, and
 * the counts reach the trace.
 */
#ifndef WASMTRACE_WASMTRACE_H
#define WASMTRACE_WASMTRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WT_VERSION_STRING "0.1.0"

#if defined(__GNUC__) || defined(__clang__)
#define WT_I_NOINSTR __attribute__((no_instrument_function))
#else
#define WT_I_NOINSTR
#endif

/* Status codes of control-path functions: 0 is success, negative is an error.
 * wt_status_str() turns any of them into a short English message. */
typedef enum wt_status {
  WT_OK = 0,
  WT_ERR_INVALID_ARG = -1,  /* a NULL or out-of-range argument */
  WT_ERR_CONFIG = -2,       /* the config blob is malformed or invalid */
  WT_ERR_NO_MEMORY = -3,    /* an allocation failed */
  WT_ERR_THREAD = -4,       /* the wasmtrace worker could not be started */
  WT_ERR_IO = -5,           /* the output file could not be opened or written */
  WT_ERR_STATE = -6,        /* the operation does not fit the current state */
  WT_ERR_LIMIT = -7,        /* a fixed limit (sessions, threads) was reached */
  WT_ERR_NOT_FOUND = -8,    /* no session with that id */
  WT_ERR_UNSUPPORTED = -9   /* a feature this build does not have */
} wt_status;

/* Returns a static, never-NULL message for a status (unknown codes included). */
const char *wt_status_str(wt_status status);

/* Lifecycle of a session. Transitions only move forward:
 * STARTING -> RUNNING -> STOPPING -> STOPPED, or any of them -> FAILED. */
typedef enum wt_session_state {
  WT_SESSION_STARTING = 0,
  WT_SESSION_RUNNING = 1,
  WT_SESSION_STOPPING = 2,
  WT_SESSION_STOPPED = 3,
  WT_SESSION_FAILED = 4
} wt_session_state;

/* Returns "starting", "running", "stopping", "stopped" or "failed". */
const char *wt_session_state_str(wt_session_state state);

/* Counters of one session (listed, with their JS and trace names, in
 * native/src/stats_list.h). samples_taken == samples_written + samples_dropped
 * once the session is stopped. Byte counts are what reached the output file. */
typedef struct wt_session_stats {
  uint64_t samples_taken;         /* per-thread samples the sampler recorded */
  uint64_t samples_written;       /* samples encoded into the output */
  uint64_t samples_dropped;       /* samples lost: buffer full or stack unreadable */
  uint64_t samples_dropped_full;  /* ... of which: session buffer full */
  uint64_t samples_torn;          /* ... of which: stack unreadable (kept for compatibility:
                                   * the copy protocol no longer drops any, see samples_partial) */
  uint64_t events_written;        /* scope begin/end events encoded */
  uint64_t events_dropped;        /* events lost: per-thread ring or session buffer full */
  uint64_t ticks_missed;          /* sampler deadlines skipped because it ran late */
  uint64_t bytes_encoded;         /* uncompressed trace bytes produced */
  uint64_t bytes_written;         /* compressed bytes written to the output file */
  uint32_t threads;               /* threads that appear in this session */
  uint32_t buffer_high_water;     /* peak bytes held by the session's buffers */
  /* Threads the registry refused so far in the process's life (they are
   * never sampled): at most threads_limit thread records exist at once,
   * counting running threads and exited ones that a recording session
   * still needs; an exited thread's record is reused once none does. */
  uint64_t threads_refused;
  uint32_t threads_limit;         /* thread records at once (256) */
  /* Samples (of samples_taken) whose stack moved during every copy try:
   * written with only a true prefix of it and a "(partial stack)" leaf, not
   * dropped for it (a full buffer may still drop one, like any sample). */
  uint64_t samples_partial;
  /* Samples (of samples_taken) whose thread was blocked in a wait: mutex,
   * condition variable, join, semaphore, sleep. Seen only in apps linked
   * with the wait wrapper (-Wl,--wrap=emscripten_futex_wait). */
  uint64_t samples_waiting;
} wt_session_stats;

/* Starts the runtime (registry and worker thread) if it is not running.
 * Normally called for you before main() by a constructor, which also starts
 * the startup sessions of the config blob. Idempotent. Main thread only for
 * the first call. The worker is a pthread: with a config present before
 * main() the JS shim adds a pool worker for it; otherwise it takes a pool
 * worker only if one more stays free for the app (with
 * -sPTHREAD_POOL_SIZE_STRICT=2 it refuses: WT_ERR_THREAD, and sessions fail
 * naming the -sPTHREAD_POOL_SIZE to set). Tried once per process. */
wt_status wt_runtime_init(void);

/* Starts a session described by one session object of the config blob
 * (e.g. {"name":"later","sampling":{"intervalUs":500}}). On success stores
 * the new session's id in *out_id. On a config error the session still
 * exists in state FAILED with a message (wt_session_error), *out_id is set,
 * and WT_ERR_CONFIG is returned; out_id may be NULL only if the id is not
 * wanted. A process keeps the records of at most 4,095 sessions (ids are
 * never reused): every start past that returns WT_ERR_LIMIT with *out_id
 * set to id 4095, a FAILED record whose error says so. */
wt_status wt_session_start(const char *session_json, int *out_id);

/* Asks a session to stop. Returns at once: the worker finishes encoding and
 * the output is complete when wt_session_state() reports STOPPED. Calling it
 * again, or on a stopped or failed session, returns WT_OK and does nothing. */
wt_status wt_session_stop(int session_id);

/* Current state of a session; FAILED for an unknown id. */
wt_session_state wt_session_state_get(int session_id);

/* The error message of a FAILED session ("" otherwise). The string lives as
 * long as the session, which is until the process ends. */
const char *wt_session_error(int session_id);

/* Whether a session stopped early, and why: 1 with the reason in out (up to
 * cap bytes, NUL-terminated; 200 is enough), e.g. "the app's heap ran low:
 * 3094 KiB free, below the 3115 KiB wasmtrace keeps free for the app (...)"
 * or "out of memory (3 allocations refused)"; 0 with out "" if it did not
 * (or there is no such session). Its trace says so too ("stoppedEarly"). */
int wt_session_stopped_early(int session_id, char *out, size_t cap);

/* Copies a session's counters into *out. */
wt_status wt_session_stats_get(int session_id, wt_session_stats *out);

/* Number of sessions ever created (ids are 0 .. count-1). */
int wt_session_count(void);

/* Writes output produced by the worker to the sessions' files on the VFS.
 * Main browser thread only (VFS writes from other threads are proxied to it
 * and would block while it is busy). The JS shim calls this from a timer; a
 * C program without the shim calls it from its main loop. Returns the number
 * of bytes written. Never blocks on other threads. */
size_t wt_io_pump(void);

/* Names the calling thread in traces. The name is copied (at most 63 bytes).
 * Without a name, threads are called "main" or "pthread <n>". */
void wt_thread_set_name(const char *name);

/* A static call site of a scope, instant or counter: its name and category
 * are interned on first use. Used by the macros; declare one `static` per
 * site if you call the functions directly. */
typedef struct wt_site {
  const char *name;      /* must outlive the program (a string literal) */
  const char *category;  /* e.g. "app" (the macros' default); NULL means "app" */
  uint32_t id;           /* 0 until first use; written by wasmtrace */
  uint32_t cat;          /* category index + 1, 0 until first use; written by wasmtrace */
} wt_site;

#define WT_SITE_INIT(name, category) {(name), (category), 0, 0}

/* Opens a scope on the calling thread: pushes its frame on the thread's
 * shadow stack (sampled stacks always show it) and, if a running session
 * records the site's category, a begin event. Hot path: with the category
 * disabled it costs the push, a few loads (the site and one relaxed load of
 * the category mask) and no clock read. */
void wt_scope_begin(wt_site *site) WT_I_NOINSTR;

/* Closes the innermost scope of the calling thread. Hot path. */
void wt_scope_end(void) WT_I_NOINSTR;

/* Records an instant marker named by the site on the calling thread. */
void wt_instant(wt_site *site) WT_I_NOINSTR;

/* Records a value of the counter named by the site (a counter track in the
 * trace). */
void wt_counter(wt_site *site, double value) WT_I_NOINSTR;

/* Marks a moment of the app's startup, e.g. wt_mark("ready"), in the
 * startup timeline that sessions started before main() write (the
 * "Startup" track; `wasmtrace report` and `record` say when "ready" came):
 * the same as Module.wasmtrace.mark(name) from JS. Any thread; no heap, no
 * lock (the name, UTF-8, is copied; at most 127 bytes are kept). Returns
 * WT_OK, WT_ERR_INVALID_ARG for a NULL or empty name, or WT_ERR_LIMIT when
 * the timeline is full (counted in the trace). */
wt_status wt_mark(const char *name) WT_I_NOINSTR;

/* ---- instrumentation macros ------------------------------------------- */

#define WT_I_CAT2(a, b) a##b
#define WT_I_CAT(a, b) WT_I_CAT2(a, b)

WT_I_NOINSTR static inline void wt_i_scope_cleanup(int *unused) {
  (void)unused;
  wt_scope_end();
}

WT_I_NOINSTR static inline int wt_i_scope_enter(wt_site *site) {
  wt_scope_begin(site);
  return 0;
}

#ifndef WASMTRACE_DISABLED
/* Traces the rest of the enclosing block as a scope named `name` (a string
 * literal) in category "app". Works in C (cleanup attribute) and C++. */
#define WT_SCOPE(name) WT_SCOPE_CAT("app", name)
/* The same with a category of your own (a string literal). */
#define WT_SCOPE_CAT(category, name)                                          \
  static wt_site WT_I_CAT(wt_i_site_, __LINE__) = WT_SITE_INIT(name, category); \
  __attribute__((cleanup(wt_i_scope_cleanup), unused)) int                   \
      WT_I_CAT(wt_i_scope_, __LINE__) =                                       \
          wt_i_scope_enter(&WT_I_CAT(wt_i_site_, __LINE__))
/* Opens a scope that WT_END() closes; the two must nest properly. */
#define WT_BEGIN(name)                                                        \
  do {                                                                        \
    static wt_site wt_i_site_ = WT_SITE_INIT(name, "app");                    \
    wt_scope_begin(&wt_i_site_);                                              \
  } while (0)
#define WT_END() wt_scope_end()
/* An instant marker (a vertical line in the viewers). */
#define WT_INSTANT(name)                                                      \
  do {                                                                        \
    static wt_site wt_i_site_ = WT_SITE_INIT(name, "app");                    \
    wt_instant(&wt_i_site_);                                                  \
  } while (0)
/* A counter sample: `value` is converted to double. */
#define WT_COUNTER(name, value)                                               \
  do {                                                                        \
    static wt_site wt_i_site_ = WT_SITE_INIT(name, "app");                    \
    wt_counter(&wt_i_site_, (double)(value));                                 \
  } while (0)
#define WT_THREAD_NAME(name) wt_thread_set_name(name)
/* A mark of the startup timeline (wt_mark), e.g. WT_MARK("ready"). */
#define WT_MARK(name) ((void)wt_mark(name))
#else
#define WT_SCOPE(name) ((void)0)
#define WT_SCOPE_CAT(category, name) ((void)0)
#define WT_BEGIN(name) ((void)0)
#define WT_END() ((void)0)
#define WT_INSTANT(name) ((void)0)
#define WT_COUNTER(name, value) ((void)(value))
#define WT_THREAD_NAME(name) ((void)0)
#define WT_MARK(name) ((void)0)
#endif

#ifdef __cplusplus
}
#endif

#endif /* WASMTRACE_WASMTRACE_H */
