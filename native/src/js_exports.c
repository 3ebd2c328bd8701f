/* Functions for the JS shim (js/wasmtrace_post.js, js/wasmtrace_server.js): plain C signatures
 * over the public API, exported from the wasm module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "config.h"
#include "fmt.h"
#include "mem.h"
#include "phases.h"
#include "platform.h"
#include "registry.h"
#include "session.h"
#include "startup.h"
#include "stats_list.h"
#include "threads.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#define WT_I_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define WT_I_EXPORT
#endif

/* The library's version (WT_VERSION_STRING): the shim checks it against its
 * own, so that the string has one source. */
WT_I_EXPORT const char *wt_js_version(void) { return WT_VERSION_STRING; }

/* Through wasmtrace's allocator: a full heap is a NULL the shim reports,
 * never Emscripten's aborting out-of-memory path. */
WT_I_EXPORT void *wt_js_alloc(size_t n) { return wt_mem_alloc(n); }
WT_I_EXPORT void wt_js_free(void *p) { wt_mem_free(p); }

WT_I_EXPORT int wt_js_startup_count(void) { return wt_startup_count(); }

/* One phase of the startup timeline (phases.h), from js/wasmtrace_startup.js:
 * kind WT_PHASE_*, its name (UTF-8), begin and end in microseconds on the
 * samples' clock, bytes transferred or -1. Returns 0, or -1 if refused
 * (counted). Any thread; no heap. */
WT_I_EXPORT int wt_js_phase(int kind, const char *name, double begin_us, double end_us, double bytes) {
  return wt_phase_add(kind, name, begin_us, end_us, bytes);
}

/* Where the shim writes a phase's name for wt_js_phase: static, so that
 * the timeline needs no heap, and apart from the text buffer below, which
 * a call of the shim may be using. Main thread. */
static char js_phase_name[2 * WT_PHASE_NAME_MAX];
WT_I_EXPORT char *wt_js_phase_name(void) { return js_phase_name; }
WT_I_EXPORT int wt_js_phase_name_capacity(void) { return (int)sizeof js_phase_name; }

WT_I_EXPORT int wt_js_startup_id(int i) { return wt_startup_id(i); }

WT_I_EXPORT const char *wt_js_config_error(void) { return wt_startup_config_error(); }

WT_I_EXPORT const char *wt_js_session_name(int id) {
  wt_session *s = wt_session_get(id);
  return s ? s->config.name : "";
}

WT_I_EXPORT const char *wt_js_session_output(int id) {
  wt_session *s = wt_session_get(id);
  return s ? s->config.output : "";
}

WT_I_EXPORT int wt_js_session_format(int id) {
  wt_session *s = wt_session_get(id);
  return s ? (int)s->config.format : 0;
}

/* The session's stream ring (stream.h) for the diagnostic server's JS
 * reader, or 0 (not streamed, or no memory for it). Main thread. */
WT_I_EXPORT void *wt_js_session_stream(int id) {
  wt_session *s = wt_session_get(id);
  return s ? s->stream : NULL;
}

/* 1: linked with the pthread wrappers, 0: without (the shim prints one
 * line), -1: not known yet (threads.h). */
WT_I_EXPORT int wt_js_threads_wrapped(void) { return wt_threads_wrapped(); }

/* Threads registered so far (the diagnostic server's hello). */
WT_I_EXPORT int wt_js_thread_count(void) { return (int)wt_registry_count(); }

WT_I_EXPORT int wt_js_session_gzip(int id) {
  wt_session *s = wt_session_get(id);
  return s ? s->config.gzip : 0;
}

WT_I_EXPORT int wt_js_session_start(const char *json) {
  int id = -1;
  wt_session_start(json, &id);
  return id;
}

/* Why the last wt_js_session_start or wt_js_session_fail_new of this
 * thread returned -1 (no memory even for the session's record: what the
 * session needs), or "". */
WT_I_EXPORT const char *wt_js_no_record_error(void) { return wt_api_no_record_error(); }

/* Memory the shim uses on the main thread without the heap, so that
 * stats() and a failed start still work when the heap is full: the stats
 * (wt_js_session_stats writes one double per counter; room for more
 * counters than there are) and the text of a config or error up to
 * WT_JS_TEXT_BYTES (a longer one goes through wt_js_alloc). Main thread
 * only (the shim's thread), one use at a time. */
#define WT_JS_STATS_MAX 64
#define WT_JS_TEXT_BYTES 4096
static double js_stats[WT_JS_STATS_MAX];
_Static_assert(WT_STATS_COUNT <= WT_JS_STATS_MAX, "wt_js_stats_buffer holds every counter of stats_list.h");
static char js_text[WT_JS_TEXT_BYTES];
WT_I_EXPORT double *wt_js_stats_buffer(void) { return js_stats; }
WT_I_EXPORT int wt_js_stats_capacity(void) { return WT_JS_STATS_MAX; }
WT_I_EXPORT char *wt_js_text_buffer(void) { return js_text; }
WT_I_EXPORT int wt_js_text_capacity(void) { return WT_JS_TEXT_BYTES; }

WT_I_EXPORT int wt_js_session_stop(int id) { return wt_session_stop(id); }
WT_I_EXPORT int wt_js_session_state(int id) { return wt_session_state_get(id); }
WT_I_EXPORT const char *wt_js_session_error(int id) { return wt_session_error(id); }
/* Why the session stopped early, in the static text buffer (no heap), or 0. */
WT_I_EXPORT const char *wt_js_session_stopped_early(int id) {
  return wt_session_stopped_early(id, js_text, sizeof js_text) ? js_text : 0;
}
WT_I_EXPORT size_t wt_js_io_pump(void) { return wt_io_pump(); }

/* out[0] = wasm memory bytes, out[1] = malloc bytes in use (-1 if unknown),
 * out[2] = bytes per registered thread, out[3] = bytes of a session record. */
WT_I_EXPORT void wt_js_memory(double *out) {
  out[0] = (double)wt_platform_heap_bytes();
  out[1] = (double)wt_platform_malloc_bytes();
  out[2] = (double)sizeof(wt_thread);
  out[3] = (double)sizeof(wt_session);
}

/* Fills out[0..WT_STATS_COUNT) with the stats as doubles (exact below
 * 2^53), in the order of stats_list.h (STAT_KEYS in js/wasmtrace_post.js). */
WT_I_EXPORT int wt_js_session_stats(int id, double *out) {
  wt_session_stats st;
  wt_status rc = wt_session_stats_get(id, &st);
  if (rc != WT_OK) memset(&st, 0, sizeof st); /* unknown id: all zero */
  int i = 0;
#define WT_I_STAT_OUT(field, type, js, trace, shown, doc) out[i++] = (double)st.field;
  WT_STATS(WT_I_STAT_OUT, WT_I_STAT_NONE)
#undef WT_I_STAT_OUT
  return rc;
}

/* Registers a session that failed before it could start: the shim refused
 * the JS value given to startSession() (`error` says why). It gets an id,
 * the default name session-<id>, state 'failed' and the error, like any
 * failed session, and is printed once to the console. Returns its id, or -1
 * when even that record cannot be had (no memory, id limit). */
WT_I_EXPORT int wt_js_session_fail_new(const char *error) {
  wt_session_config config;
  char name[WT_NAME_MAX];
  wt_snprintf(name, sizeof name, "session-%d", wt_session_count());
  wt_config_defaults(&config, name);
  int id = -1;
  wt_api_add_session(&config, error && error[0] ? error : "invalid session config", &id);
  return id;
}
