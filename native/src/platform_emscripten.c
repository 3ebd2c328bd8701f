/* Emscripten implementation of the platform layer. */
#include "platform.h"

#include <emscripten.h>
#include <emscripten/heap.h>
#include <emscripten/threading.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Implemented in js/wasmtrace_library.js. */
extern char *wt_js_read_config(int *source_kind, char *error, size_t error_cap);
extern void wt_js_log_error(const char *message);
extern int wt_js_function_name(uint32_t table_index, char *buf, size_t cap);
extern double wt_js_clock_origin_ms(double now_ms);
extern double wt_js_time_origin_ms(void);
extern double wt_js_now_ms(double main_origin_ms);

/* The clock (js/wasmtrace_library.js says why it is not Emscripten's): the
 * main thread's performance.timeOrigin, or 0 where there is none; then the
 * fallback, emscripten_get_now() at navigation start (it counts from there
 * up to 3.1.27, from the Unix epoch since 3.1.28 with pthreads). Both are
 * set once on the main thread, before any other constructor (startup.c's
 * sessions start at priority 200) and before any pthread exists: workers
 * read them after their creation, which orders them after these writes. */
static double main_time_origin_ms;
static double clock_origin_ms;

__attribute__((constructor(101))) static void measure_clock_origin(void) {
  main_time_origin_ms = wt_js_time_origin_ms();
  if (!(main_time_origin_ms > 0)) clock_origin_ms = wt_js_clock_origin_ms(emscripten_get_now());
}

/* Whole microseconds: browsers' clocks are 5 us (or coarser) anyway, and
 * epoch-based values lose ~0.1 us to rounding when an origin is subtracted.
 * Fractions would then reach the trace as timestamps like 508959.961, and a
 * scope's end (ts + dur, each rounded when written) could land a hair after
 * its parent's end: DevTools' trace engine then leaves the scope out of the
 * flame chart and counts its time twice in Bottom-Up
 * (tests/browser/readers.test.mjs caught it on 3.1.69). */
double wt_platform_now_us(void) {
  double ms = main_time_origin_ms > 0 ? wt_js_now_ms(main_time_origin_ms)
                                      : emscripten_get_now() - clock_origin_ms;
  return __builtin_floor(ms * 1000.0 + 0.5);
}

void wt_platform_sleep_until(double deadline_us, _Atomic uint32_t *wake,
                             uint32_t expected) {
  double remaining_ms = (deadline_us - wt_platform_now_us()) / 1000.0;
  if (remaining_ms <= 0) return;
  /* emscripten_futex_wait really sleeps (Atomics.wait in a worker); the
   * nanosleep family busy-spins below 0.1 ms, which would burn a core at
   * high sampling rates. */
  emscripten_futex_wait((volatile void *)wake, expected, remaining_ms);
}

void wt_platform_wake(_Atomic uint32_t *wake) {
  atomic_fetch_add_explicit(wake, 1, memory_order_release);
  emscripten_futex_wake((volatile void *)wake, 1);
}

int wt_platform_is_main_thread(void) {
  return emscripten_is_main_browser_thread();
}

void wt_platform_log_error(const char *message) { wt_js_log_error(message); }

/* The config's source is resolved in one place, wasmtraceConfigSource of
 * js/wasmtrace_pre.js (its order and /wasmtrace.json included): the
 * server's JS reads the same sources before the module runs. */
char *wt_platform_read_config(wt_config_source *src) {
  int kind = 0;
  src->error[0] = '\0';
  src->untrusted = 0;
  char *blob = wt_js_read_config(&kind, src->error, sizeof src->error);
  src->name = kind == 1   ? "Module.wasmtraceConfig"
              : kind == 3 ? "globalThis.wasmtraceConfig"
              : kind == 2 ? "the 'wasmtrace' URL parameter"
                          : "/wasmtrace.json";
  src->untrusted = kind == 2;
  return blob;
}

int wt_platform_function_name(uint32_t table_index, char *buf, size_t cap) {
  return wt_js_function_name(table_index, buf, cap) > 0;
}

int64_t wt_platform_heap_bytes(void) { return (int64_t)__builtin_wasm_memory_size(0) * 65536; }

/* dlmalloc and emmalloc have mallinfo; mimalloc (-sMALLOC=mimalloc) has
 * none, and a strong reference would keep such an app from linking: weak,
 * and null there (the figures it gives are then unknown). */
#pragma weak mallinfo

int64_t wt_platform_malloc_bytes(void) {
  if (!mallinfo) return -1;
  /* dlmalloc's mallinfo takes the malloc lock: fine on the worker, which is
   * the only caller. */
  struct mallinfo mi = mallinfo();
  return (int64_t)(uint32_t)mi.uordblks;
}

size_t wt_platform_heap_room(int precise) {
  /* malloc (dlmalloc) grows the heap only through sbrk, and Emscripten's
   * aborting out-of-memory path is reached only when sbrk asks for more
   * than emscripten_get_heap_max(): what lies below it cannot abort. */
  uintptr_t brk = (uintptr_t)sbrk(0);
  size_t max = emscripten_get_heap_max();
  size_t room = max > brk ? max - brk : 0;
  /* dlmalloc serves a request from its top chunk before it calls sbrk. */
  if (precise && mallinfo) room += (size_t)mallinfo().keepcost;
  return room;
}

size_t wt_platform_heap_max(void) { return emscripten_get_heap_max(); }

/* Without mallinfo: none known (mem.c then takes no credit). */
size_t wt_platform_malloc_free_bytes(void) { return mallinfo ? (size_t)mallinfo().fordblks : 0; }
