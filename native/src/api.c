/* The public session API (wasmtrace.h) and the session table it fills:
 * sessions are added once and never removed, so an id stays valid for the
 * life of the process. The table holds WT_MAX_SESSION_IDS - 1 sessions;
 * every start past that gets the last id, a failed record whose error says
 * so (docs/GUIDE.md, "Limits"). */
#include "api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __EMSCRIPTEN__
#include <emscripten/threading.h>
#endif

#include "categories.h"
#include "fmt.h"
#include "mem.h"
#include "outputs.h"
#include "platform.h"
#include "recorders.h"
#include "runtime.h"
#include "threads.h"
#include "worker.h"

/* What a session reads of the runtime: session.c does not see wt_rt. */
static void worker_times(double *created_us, double *started_us, uint64_t *busy_us) {
  *created_us = wt_worker_created_us();
  *started_us = wt_worker_started_us();
  *busy_us = wt_worker_busy_us();
}
static const wt_session_host session_host = {wt_runtime_update_categories, worker_times, wt_threads_wrapped};

_Atomic int wt_i_wrapped_create;
_Atomic int wt_i_wrapped_wait;

int wt_threads_wrapped(void) {
#ifdef __EMSCRIPTEN__
  /* The worker exists only after its pthread_create, which went through
   * the wrapper if the app has it. */
  if (atomic_load_explicit(&wt_rt.worker_state, memory_order_acquire) != 1) return -1;
  if (!atomic_load_explicit(&wt_i_wrapped_wait, memory_order_relaxed)) {
    /* The value differs: returns at once, through the wrapper if linked. */
    uint32_t word = 0;
    emscripten_futex_wait(&word, 1, 0);
  }
  return atomic_load_explicit(&wt_i_wrapped_create, memory_order_relaxed) &&
         atomic_load_explicit(&wt_i_wrapped_wait, memory_order_relaxed);
#else
  return -1;
#endif
}

wt_session *wt_session_get(int id) {
  if (id < 0 || id >= atomic_load_explicit(&wt_rt.session_count, memory_order_acquire))
    return NULL;
  return wt_rt.sessions[id];
}

/* Why the calling thread's last wt_api_add_session got no record (no id),
 * or "": thread-local, so that it needs no heap and no lock. */
static _Thread_local char no_record_error[WT_ERROR_MAX];

const char *wt_api_no_record_error(void) { return no_record_error; }

/* The record itself could not be had: says what the session needs (the
 * record and what it takes at start, as a started session's "needs N KiB"
 * says), without the heap. A static probe record, under the mutex, gets
 * the config's budgets from wt_session_prealloc, which here allocates
 * nothing (the heap has less room than the record it just refused). */
static void explain_no_record(const wt_session_config *config) {
  static wt_session probe;
  pthread_mutex_lock(&wt_rt.mutex);
  memset(&probe, 0, sizeof probe);
  probe.config = *config;
  size_t avail = wt_mem_available();
  wt_status rc = wt_session_prealloc(&probe);
  size_t need = sizeof(wt_session) + (probe.rec.budget_out ? wt_session_start_bytes(&probe) : 0);
  if (rc == WT_OK) { /* the heap had room after all (freed meanwhile): give it back */
    wt_session_free_buffers(&probe);
    if (atomic_load_explicit(&probe.output_ready, memory_order_relaxed)) wt_outq_free(&probe.out);
  }
  pthread_mutex_unlock(&wt_rt.mutex);
  size_t kib = (need + 1023) / 1024;
  if (avail == SIZE_MAX)
    wt_snprintf(no_record_error, sizeof no_record_error,
                "needs %zu KiB to start, and the allocator refused even its %zu-byte record", kib,
                sizeof(wt_session));
  else
    wt_session_no_room_text(no_record_error, sizeof no_record_error, kib, avail);
}

/* Why a session past the id limit does not start. */
static void limit_text(char *out, size_t cap) {
  wt_snprintf(out, cap,
              "too many sessions in this page's life: wasmtrace keeps the records of %d sessions "
              "(stopped and failed ones included) and starts no more; reload the page to record again",
              WT_MAX_SESSION_IDS - 1);
}

wt_status wt_api_add_session(const wt_session_config *config, const char *error, int *out_id) {
  no_record_error[0] = '\0';
  wt_session *s = wt_mem_calloc(1, sizeof *s);
  if (!s && atomic_load_explicit(&wt_rt.session_count, memory_order_acquire) >= WT_MAX_SESSION_IDS - 1) {
    /* Past the id limit, that is the reason, whatever the heap (the
     * records of 4,095 sessions may be what took wasmtrace's share). */
    limit_text(no_record_error, sizeof no_record_error);
    wt_session_log_failure(config->name, no_record_error);
    if (out_id && atomic_load_explicit(&wt_rt.session_count, memory_order_acquire) == WT_MAX_SESSION_IDS)
      *out_id = WT_MAX_SESSION_IDS - 1;
    return WT_ERR_LIMIT;
  }
  if (!s) {
    if (error && error[0]) /* it failed anyway: that is the reason to give */
      wt_snprintf(no_record_error, sizeof no_record_error, "%s", error);
    else
      explain_no_record(config);
    wt_session_log_failure(config->name, no_record_error);
    return WT_ERR_NO_MEMORY;
  }
  s->config = *config;
  s->host = &session_host;
  wt_recorders_prepare(s);
  s->start_us = wt_platform_now_us();
  /* Without memory for its stream the session still records (to the VFS);
   * the shim tells the tool (wt_js_session_stream returns 0). */
  if (config->stream && (!error || !error[0])) s->stream = wt_stream_new();
  pthread_mutex_lock(&wt_rt.mutex);
  int id = atomic_load_explicit(&wt_rt.session_count, memory_order_relaxed);
  if (id >= WT_MAX_SESSION_IDS - 1) {
    /* The last id is the one every start past the limit gets: a failed
     * record that says why (never "no such session"). */
    int last = WT_MAX_SESSION_IDS - 1;
    if (id == last) {
      wt_snprintf(s->config.name, sizeof s->config.name, "(session limit)");
      s->config.output[0] = '\0';
      limit_text(s->error, sizeof s->error);
      s->id = last;
      if (s->stream) wt_stream_free(s->stream);
      s->stream = NULL;
      atomic_store(&s->state, WT_SESSION_FAILED);
      wt_rt.sessions[last] = s;
      atomic_store_explicit(&wt_rt.session_count, last + 1, memory_order_release);
    } else {
      if (s->stream) wt_stream_free(s->stream);
      wt_mem_free(s);
    }
    pthread_mutex_unlock(&wt_rt.mutex);
    wt_session_log_failure(config->name, wt_rt.sessions[last]->error);
    if (out_id) *out_id = last;
    return WT_ERR_LIMIT;
  }
  s->id = id;
  int live = 0, dup = -1;
  wt_status rc = WT_OK;
  for (int i = 0; i < id; i++) {
    wt_session *o = wt_rt.sessions[i];
    int st = atomic_load_explicit(&o->state, memory_order_acquire);
    if (st == WT_SESSION_STARTING || st == WT_SESSION_RUNNING || st == WT_SESSION_STOPPING) {
      live++;
      if (strcmp(o->config.output, config->output) == 0) dup = i;
    }
  }
  if (error && error[0]) {
    wt_snprintf(s->error, sizeof s->error, "%s", error);
    atomic_store(&s->state, WT_SESSION_FAILED);
    rc = WT_ERR_CONFIG;
  } else if (!wt_session_format_linked(config->format)) {
    wt_snprintf(s->error, sizeof s->error,
                "format \"%s\" is not linked into this app (opt-in: CMake wasmtrace_formats(app); plain emcc "
                "`wasmtrace flags --ldflags --formats`; port formats=1; docs/GUIDE.md); \"chrome\" opens in the "
                "Firefox Profiler too",
                wt_format_name(config->format));
    atomic_store(&s->state, WT_SESSION_FAILED);
    rc = WT_ERR_UNSUPPORTED;
  } else if (live >= WT_MAX_SESSIONS) {
    wt_snprintf(s->error, sizeof s->error, "too many sessions at once (limit %d)", WT_MAX_SESSIONS);
    atomic_store(&s->state, WT_SESSION_FAILED);
    rc = WT_ERR_LIMIT;
  } else if (dup >= 0) {
    wt_snprintf(s->error, sizeof s->error, "output \"%s\" is in use by running session '%s'",
                config->output, wt_rt.sessions[dup]->config.name);
    atomic_store(&s->state, WT_SESSION_FAILED);
    rc = WT_ERR_STATE;
  } else if (wt_outputs_check(config->output, config->overwrite, s->error, sizeof s->error) != WT_OK) {
    atomic_store(&s->state, WT_SESSION_FAILED); /* output policy: outputs.h */
    rc = WT_ERR_STATE;
  } else if (atomic_load(&wt_rt.worker_state) != 1) {
    /* Read under the mutex: a worker that gives up (worker.c) stores 2 and
     * then takes the mutex before it fails the sessions in the table, so a
     * session is either failed here or in the table it reads. */
    wt_snprintf(s->error, sizeof s->error, "%s",
                wt_rt.worker_error[0] ? wt_rt.worker_error : wt_status_str(WT_ERR_THREAD));
    atomic_store(&s->state, WT_SESSION_FAILED);
    rc = WT_ERR_THREAD;
  } else if (wt_session_prealloc(s) != WT_OK) { /* it wrote s->error */
    atomic_store(&s->state, WT_SESSION_FAILED);
    rc = WT_ERR_NO_MEMORY;
  } else {
    atomic_store(&s->state, WT_SESSION_STARTING);
  }
  wt_rt.sessions[id] = s;
  atomic_store_explicit(&wt_rt.session_count, id + 1, memory_order_release);
  pthread_mutex_unlock(&wt_rt.mutex);
  if (atomic_load(&s->state) == WT_SESSION_FAILED) {
    wt_session_log_failure(s->config.name, s->error);
  }
  if (out_id) *out_id = id;
  /* After it is in the table (heap.h: the worker may only raise the
   * heap's interval from a value it read before its table). */
  if (rc == WT_OK) wt_recorders_created(s);
  wt_runtime_update_categories();
  wt_runtime_wake();
  return rc;
}

wt_status wt_session_start(const char *session_json, int *out_id) {
  if (!session_json) return WT_ERR_INVALID_ARG;
  wt_status st = wt_runtime_init();
  (void)st; /* a failed worker makes the session FAILED with the reason */
  wt_session_config config;
  char err[WT_ERROR_MAX], name[WT_NAME_MAX];
  wt_snprintf(name, sizeof name, "session-%d", atomic_load(&wt_rt.session_count));
  wt_config_parse_session(session_json, strlen(session_json), name, &config, err, sizeof err);
  return wt_api_add_session(&config, err, out_id);
}

wt_status wt_session_stop(int id) {
  wt_session *s = wt_session_get(id);
  if (!s) return WT_ERR_NOT_FOUND;
  atomic_store_explicit(&s->stop_requested, 1, memory_order_release);
  wt_runtime_wake();
  return WT_OK;
}

wt_session_state wt_session_state_get(int id) {
  wt_session *s = wt_session_get(id);
  if (!s) return WT_SESSION_FAILED;
  return (wt_session_state)atomic_load_explicit(&s->state, memory_order_acquire);
}

const char *wt_session_error(int id) {
  wt_session *s = wt_session_get(id);
  if (!s) return "no such session";
  if (atomic_load_explicit(&s->state, memory_order_acquire) != WT_SESSION_FAILED) return "";
  return s->error;
}

int wt_session_stopped_early(int id, char *out, size_t cap) {
  wt_session *s = wt_session_get(id);
  if (!s) {
    if (out && cap) out[0] = '\0';
    return 0;
  }
  char why[WT_APP_SHORT_TEXT_MAX];
  int stopped = wt_session_stop_reason(s, why, sizeof why);
  if (out && cap) wt_snprintf(out, cap, "%s", why);
  return stopped;
}

wt_status wt_session_stats_get(int id, wt_session_stats *out) {
  wt_session *s = wt_session_get(id);
  if (!s || !out) return s ? WT_ERR_INVALID_ARG : WT_ERR_NOT_FOUND;
  memset(out, 0, sizeof *out);
  out->samples_taken = atomic_load(&s->samples_taken);
  out->samples_written = atomic_load(&s->samples_written);
  out->samples_dropped_full = atomic_load(&s->samples_dropped_full);
  out->samples_torn = atomic_load(&s->samples_torn);
  out->samples_partial = atomic_load(&s->samples_partial);
  out->samples_waiting = atomic_load(&s->samples_waiting);
  out->samples_dropped = out->samples_dropped_full + out->samples_torn;
  out->events_written = atomic_load(&s->events_written);
  out->events_dropped = atomic_load(&s->events_dropped);
  out->ticks_missed = atomic_load(&s->ticks_missed);
  out->bytes_encoded = atomic_load(&s->bytes_encoded);
  out->bytes_written = atomic_load(&s->bytes_written);
  out->threads = atomic_load(&s->threads_seen);
  out->buffer_high_water = atomic_load(&s->high_water);
  out->threads_refused = wt_registry_threads_dropped();
  out->threads_limit = WT_MAX_THREADS;
  return WT_OK;
}

int wt_session_count(void) { return atomic_load_explicit(&wt_rt.session_count, memory_order_acquire); }
