/* Platform layer: clock, sleeping until a deadline, and main-thread checks.
 * Two implementations: platform_emscripten.c (wasm) and platform_host.c
 * (the host build used by the native unit tests). */
#ifndef WT_PLATFORM_H
#define WT_PLATFORM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "wasmtrace/wasmtrace.h"

/* Monotonic time in microseconds. On the web: whole microseconds since the
 * main thread's performance.timeOrigin (the page's navigation start), read
 * from the web's clock shared by all threads, so timestamps from every
 * thread line up exactly and read as "us after navigation start" on every
 * Emscripten version (emscripten_get_now() is not used where timeOrigin
 * exists: it counts from the Unix epoch since 3.1.28 with pthreads, and
 * before that its workers were off by a message latency;
 * platform_emscripten.c). On the host: since an arbitrary point
 * (CLOCK_MONOTONIC). */
double wt_platform_now_us(void) WT_I_NOINSTR;

/* Sleeps until wt_platform_now_us() >= deadline_us or until *wake changes
 * from `expected` (wt_platform_wake). Really sleeps (never spins): on the
 * web through emscripten_futex_wait, on the host through a futex-like
 * condition variable. Returns early on spurious wake-ups; callers loop. */
void wt_platform_sleep_until(double deadline_us, _Atomic uint32_t *wake,
                             uint32_t expected);

/* Wakes a thread sleeping in wt_platform_sleep_until on `wake`. */
void wt_platform_wake(_Atomic uint32_t *wake);

/* 1 on the main browser thread (the thread that runs main()), else 0. */
int wt_platform_is_main_thread(void) WT_I_NOINSTR;

/* Prints one line to the console (console.error on the web, stderr on the
 * host). */
void wt_platform_log_error(const char *message);

/* Where the startup config blob came from (wt_platform_read_config). */
typedef struct wt_config_source {
  const char *name; /* static description, e.g. "Module.wasmtraceConfig" */
  int untrusted;    /* 1 for a source anyone can set: the URL parameter */
  char error[256];  /* set when a source was given but could not be read */
} wt_config_source;

/* Returns a malloc'd copy of the startup config blob, or NULL if none was
 * given or it could not be read (then src->error says why). Fills *src. */
char *wt_platform_read_config(wt_config_source *src);

/* Bytes of wasm linear memory (the heap's reserved size), or -1. */
int64_t wt_platform_heap_bytes(void);

/* Bytes malloc has handed out and not freed, or -1 if not measurable. */
int64_t wt_platform_malloc_bytes(void);

/* Bytes malloc can still take without growing the heap past its maximum
 * (a fixed heap's size, or a growable heap's MAXIMUM_MEMORY): the room
 * between the heap's break and that maximum, plus with `precise` malloc's
 * top chunk (which walks malloc's heap under its lock: not for hot paths).
 * SIZE_MAX where the heap has no known limit (host). mem.c. */
size_t wt_platform_heap_room(int precise);
/* The heap's maximum in bytes (emscripten_get_heap_max()), SIZE_MAX on
 * the host. */
size_t wt_platform_heap_max(void);

/* Bytes free inside malloc's heap (its bins and top chunk: mallinfo's
 * fordblks), SIZE_MAX on the host, 0 for an allocator without mallinfo
 * (mimalloc). Walks malloc's heap under its lock. */
size_t wt_platform_malloc_free_bytes(void);

/* Writes the name of the function at wasm table index `table_index` into
 * buf (NUL-terminated): its name-section name if the module has one, else
 * "wasm-function[<function index>]" if the engine tells its function index
 * (V8 does), else "wasm-table[<table index>]" (js/wasmtrace_library.js);
 * on the host, "function[<table index>]". Returns 0 if the slot holds no
 * function (wt_symbols_function_name then says "wasm-table[N]"). Called on
 * the worker only. */
int wt_platform_function_name(uint32_t table_index, char *buf, size_t cap);

#endif
