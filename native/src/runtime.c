/* The runtime: the one global object, the public session API, startup
 * sessions before main(), and the main-thread file writer (wt_io_pump). */
#include "runtime.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "platform.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#define WT_I_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define WT_I_EXPORT
#endif

wt_runtime wt_rt = {.mutex = PTHREAD_MUTEX_INITIALIZER};

uint32_t wt_builtin_counter_ids[3];
uint32_t wt_builtin_counter_cat;
static pthread_mutex_t categories_mutex = PTHREAD_MUTEX_INITIALIZER;
static uint64_t categories_forced; /* tests: recorded as if a session wanted them */

void wt_runtime_force_categories_for_testing(uint64_t mask) {
  pthread_mutex_lock(&categories_mutex);
  categories_forced = mask;
  pthread_mutex_unlock(&categories_mutex);
  wt_runtime_update_categories();
}

void wt_runtime_update_categories(void) {
  pthread_mutex_lock(&categories_mutex);
  uint32_t ncat = wt_registry_category_count();
  uint64_t all = categories_forced;
  int n = atomic_load_explicit(&wt_rt.session_count, memory_order_acquire);
  for (int i = 0; i < n; i++) {
    wt_session *s = wt_rt.sessions[i];
    int st = atomic_load_explicit(&s->state, memory_order_acquire);
    uint64_t mask = 0;
    if (st == WT_SESSION_STARTING || st == WT_SESSION_RUNNING) {
      for (uint32_t c = 0; c < ncat; c++)
        if (wt_config_category_enabled(&s->config, wt_registry_category_name(c))) mask |= 1ull << c;
    }
    atomic_store_explicit(&s->cat_mask, mask, memory_order_relaxed);
    all |= mask;
  }
  atomic_store_explicit(&wt_i_category_mask, all, memory_order_relaxed);
  pthread_mutex_unlock(&categories_mutex);
}

const char *wt_status_str(wt_status status) {
  switch (status) {
    case WT_OK: return "ok";
    case WT_ERR_INVALID_ARG: return "invalid argument";
    case WT_ERR_CONFIG: return "invalid config";
    case WT_ERR_NO_MEMORY: return "out of memory";
    case WT_ERR_THREAD:
      return "the wasmtrace worker thread could not be started (is a pthread pool slot free? "
             "link with -sPTHREAD_POOL_SIZE=<app threads + 1>)";
    case WT_ERR_IO: return "output file error";
    case WT_ERR_STATE: return "not allowed in the current state";
    case WT_ERR_LIMIT: return "limit reached";
    case WT_ERR_NOT_FOUND: return "no such session";
    case WT_ERR_UNSUPPORTED: return "not supported by this build";
  }
  return "unknown status";
}

const char *wt_session_state_str(wt_session_state state) {
  switch (state) {
    case WT_SESSION_STARTING: return "starting";
    case WT_SESSION_RUNNING: return "running";
    case WT_SESSION_STOPPING: return "stopping";
    case WT_SESSION_STOPPED: return "stopped";
    case WT_SESSION_FAILED: return "failed";
  }
  return "failed";
}

void wt_runtime_wake(void) { wt_platform_wake(&wt_rt.wake); }

wt_status wt_runtime_init(void) {
  int expected = 0;
  if (!atomic_compare_exchange_strong(&wt_rt.worker_state, &expected, 1))
    return atomic_load(&wt_rt.worker_state) == 1 ? WT_OK : WT_ERR_THREAD;
  /* Register the caller (normally the main thread) so it is sampled from
   * the first tick, before it ever opens a scope. */
  wt_thread_self();
  static const char *const builtin[3] = {"wasm heap bytes", "malloc bytes in use", "live threads"};
  wt_builtin_counter_cat = wt_registry_intern_category("wasmtrace");
  for (int i = 0; i < 3; i++) wt_builtin_counter_ids[i] = wt_registry_intern(builtin[i]);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  wt_rt.worker_created_us = wt_platform_now_us();
  int rc = pthread_create(&wt_rt.worker, &attr, wt_worker_main, NULL);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    atomic_store(&wt_rt.worker_state, 2);
    char msg[300];
    snprintf(msg, sizeof msg, "%s (pthread_create: %s)", wt_status_str(WT_ERR_THREAD), strerror(rc));
    wt_platform_log_error(msg);
    return WT_ERR_THREAD;
  }
  return WT_OK;
}

wt_session *wt_session_get(int id) {
  if (id < 0 || id >= atomic_load_explicit(&wt_rt.session_count, memory_order_acquire))
    return NULL;
  return wt_rt.sessions[id];
}

/* What sessions read of the runtime (session.c does not see wt_rt). */
static void worker_times(double *created_us, double *started_us, uint64_t *busy_us) {
  *created_us = wt_rt.worker_created_us;
  *started_us = atomic_load_explicit(&wt_rt.worker_started_us, memory_order_relaxed);
  *busy_us = atomic_load_explicit(&wt_rt.worker_busy_us, memory_order_relaxed);
}
static const wt_session_host session_host = {wt_runtime_update_categories, worker_times};

/* Adds a session in state STARTING (valid config) or FAILED (error). */
static wt_status add_session(const wt_session_config *config, const char *error, int *out_id) {
  wt_session *s = calloc(1, sizeof *s);
  if (!s) return WT_ERR_NO_MEMORY;
  s->config = *config;
  s->host = &session_host;
  s->start_us = wt_platform_now_us();
  pthread_mutex_lock(&wt_rt.mutex);
  int id = atomic_load_explicit(&wt_rt.session_count, memory_order_relaxed);
  if (id >= WT_MAX_SESSION_IDS) {
    pthread_mutex_unlock(&wt_rt.mutex);
    free(s);
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
    snprintf(s->error, sizeof s->error, "%s", error);
    atomic_store(&s->state, WT_SESSION_FAILED);
    rc = WT_ERR_CONFIG;
  } else if (live >= WT_MAX_SESSIONS) {
    snprintf(s->error, sizeof s->error, "too many sessions at once (limit %d)", WT_MAX_SESSIONS);
    atomic_store(&s->state, WT_SESSION_FAILED);
    rc = WT_ERR_LIMIT;
  } else if (dup >= 0) {
    snprintf(s->error, sizeof s->error, "output \"%s\" is in use by running session '%s'",
             config->output, wt_rt.sessions[dup]->config.name);
    atomic_store(&s->state, WT_SESSION_FAILED);
    rc = WT_ERR_STATE;
  } else if (atomic_load(&wt_rt.worker_state) != 1) {
    snprintf(s->error, sizeof s->error, "%s", wt_status_str(WT_ERR_THREAD));
    atomic_store(&s->state, WT_SESSION_FAILED);
    rc = WT_ERR_THREAD;
  } else if (wt_session_prealloc(s) != WT_OK) {
    snprintf(s->error, sizeof s->error, "out of memory for the session's first buffers");
    atomic_store(&s->state, WT_SESSION_FAILED);
    rc = WT_ERR_NO_MEMORY;
  } else {
    atomic_store(&s->state, WT_SESSION_STARTING);
  }
  wt_rt.sessions[id] = s;
  atomic_store_explicit(&wt_rt.session_count, id + 1, memory_order_release);
  pthread_mutex_unlock(&wt_rt.mutex);
  if (atomic_load(&s->state) == WT_SESSION_FAILED) {
    char line[WT_ERROR_MAX + 80];
    snprintf(line, sizeof line, "session '%s' failed: %s", s->config.name, s->error);
    wt_platform_log_error(line);
  }
  if (out_id) *out_id = id;
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
  snprintf(name, sizeof name, "session-%d", atomic_load(&wt_rt.session_count));
  wt_config_parse_session(session_json, strlen(session_json), name, &config, err, sizeof err);
  return add_session(&config, err, out_id);
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

wt_status wt_session_stats_get(int id, wt_session_stats *out) {
  wt_session *s = wt_session_get(id);
  if (!s || !out) return s ? WT_ERR_INVALID_ARG : WT_ERR_NOT_FOUND;
  memset(out, 0, sizeof *out);
  out->samples_taken = atomic_load(&s->samples_taken);
  out->samples_written = atomic_load(&s->samples_written);
  out->samples_dropped_full = atomic_load(&s->samples_dropped_full);
  out->samples_torn = atomic_load(&s->samples_torn);
  out->samples_dropped = out->samples_dropped_full + out->samples_torn;
  out->events_written = atomic_load(&s->events_written);
  out->events_dropped = atomic_load(&s->events_dropped);
  out->ticks_missed = atomic_load(&s->ticks_missed);
  out->bytes_encoded = atomic_load(&s->bytes_encoded);
  out->bytes_written = atomic_load(&s->bytes_written);
  out->threads = atomic_load(&s->threads_seen);
  out->buffer_high_water = atomic_load(&s->high_water);
  return WT_OK;
}

int wt_session_count(void) { return atomic_load_explicit(&wt_rt.session_count, memory_order_acquire); }

/* mkdir -p of the directory part of path. */
static void make_parent_dirs(const char *path) {
  char tmp[WT_PATH_MAX];
  snprintf(tmp, sizeof tmp, "%s", path);
  for (char *p = tmp + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    mkdir(tmp, 0777);
    *p = '/';
  }
}

/* Main thread: a failed session closes its file and, once the worker has
 * handed the queue over, frees the blocks nobody will write. */
static void release_failed_output(wt_session *s) {
  if (s->file) {
    fclose(s->file);
    s->file = NULL;
  }
  if (s->out_freed || !atomic_load_explicit(&s->output_ready, memory_order_acquire) ||
      !atomic_load_explicit(&s->out.closed, memory_order_acquire))
    return;
  wt_block *b;
  while ((b = wt_outq_pop(&s->out)) != NULL) wt_outq_release(&s->out, b);
  wt_outq_free(&s->out);
  s->out_freed = 1;
}

size_t wt_io_pump(void) {
  size_t total = 0;
  int n = wt_session_count();
  for (int i = 0; i < n; i++) {
    wt_session *s = wt_rt.sessions[i];
    int st = atomic_load_explicit(&s->state, memory_order_acquire);
    if (st == WT_SESSION_FAILED) {
      release_failed_output(s);
      continue;
    }
    if (st != WT_SESSION_RUNNING && st != WT_SESSION_STOPPING) continue;
    /* The worker sets the output up at its first encode step. */
    if (!atomic_load_explicit(&s->output_ready, memory_order_acquire)) continue;
    wt_block *b;
    while ((b = wt_outq_pop(&s->out)) != NULL) {
      if (!s->file) {
        make_parent_dirs(s->config.output);
        s->file = fopen(s->config.output, "wb");
        if (!s->file) {
          wt_outq_release(&s->out, b);
          wt_session_fail(s, "cannot open output \"%s\": %s", s->config.output, strerror(errno));
          break;
        }
      }
      size_t len = b->len;
      size_t wrote = fwrite(b->data, 1, len, s->file);
      wt_outq_release(&s->out, b);
      if (wrote != len) {
        wt_session_fail(s, "cannot write output \"%s\": %s", s->config.output, strerror(errno));
        break;
      }
      total += len;
      atomic_fetch_add_explicit(&s->bytes_written, len, memory_order_relaxed);
    }
    if (s->file) fflush(s->file);
    st = atomic_load_explicit(&s->state, memory_order_acquire);
    if (st == WT_SESSION_FAILED) {
      release_failed_output(s);
      continue;
    }
    if (st == WT_SESSION_STOPPING && wt_outq_drained(&s->out)) {
      int ok = 1;
      if (s->file) {
        ok = fclose(s->file) == 0;
        s->file = NULL;
      }
      if (!ok) {
        wt_session_fail(s, "cannot close output \"%s\": %s", s->config.output, strerror(errno));
      } else {
        wt_outq_free(&s->out);
        s->out_freed = 1;
        atomic_store_explicit(&s->state, WT_SESSION_STOPPED, memory_order_release);
      }
    }
  }
  if (total) wt_runtime_wake(); /* room for more output */
  return total;
}

/* Starts the sessions of the startup config. Runs before main(). */
void wt_runtime_start_from_config(void) {
  const char *source = "";
  char *blob = wt_platform_read_config(&source);
  if (!blob) return;
  wt_config *config = malloc(sizeof *config);
  if (!config) {
    free(blob);
    return;
  }
  char err[WT_ERROR_MAX];
  if (wt_config_parse(blob, strlen(blob), config, err, sizeof err) != WT_OK) {
    snprintf(wt_rt.config_error, sizeof wt_rt.config_error, "%s (from %s)", err, source);
    char line[WT_ERROR_MAX * 2];
    snprintf(line, sizeof line, "config error: %s", wt_rt.config_error);
    wt_platform_log_error(line);
  } else {
    wt_runtime_init();
    for (int i = 0; i < config->count; i++) {
      int id = -1;
      const wt_config_entry *e = &config->sessions[i];
      add_session(&e->config, e->valid ? "" : e->error, &id);
      if (id >= 0) wt_rt.startup_ids[wt_rt.startup_count++] = id;
    }
  }
  free(config);
  free(blob);
}

#ifdef __EMSCRIPTEN__
/* Before main(): constructors run on the main thread once the pthread pool
 * is loaded, so the worker starts at once if a pool slot is free. */
__attribute__((constructor(200))) static void wt_startup(void) { wt_runtime_start_from_config(); }
#endif

/* ---- functions for the JS shim (js/wasmtrace_post.js) --------------------- */

WT_I_EXPORT void *wt_js_alloc(size_t n) { return malloc(n); }
WT_I_EXPORT void wt_js_free(void *p) { free(p); }

WT_I_EXPORT int wt_js_startup_count(void) { return wt_rt.startup_count; }

WT_I_EXPORT int wt_js_startup_id(int i) {
  return i >= 0 && i < wt_rt.startup_count ? wt_rt.startup_ids[i] : -1;
}

WT_I_EXPORT const char *wt_js_config_error(void) { return wt_rt.config_error; }

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

WT_I_EXPORT int wt_js_session_gzip(int id) {
  wt_session *s = wt_session_get(id);
  return s ? s->config.gzip : 0;
}

WT_I_EXPORT int wt_js_session_start(const char *json) {
  int id = -1;
  wt_session_start(json, &id);
  return id;
}

WT_I_EXPORT int wt_js_session_stop(int id) { return wt_session_stop(id); }
WT_I_EXPORT int wt_js_session_state(int id) { return wt_session_state_get(id); }
WT_I_EXPORT const char *wt_js_session_error(int id) { return wt_session_error(id); }
WT_I_EXPORT size_t wt_js_io_pump(void) { return wt_io_pump(); }

/* out[0] = wasm memory bytes, out[1] = malloc bytes in use (-1 if unknown),
 * out[2] = bytes per registered thread, out[3] = bytes of a session record. */
WT_I_EXPORT void wt_js_memory(double *out) {
  out[0] = (double)wt_platform_heap_bytes();
  out[1] = (double)wt_platform_malloc_bytes();
  out[2] = (double)sizeof(wt_thread);
  out[3] = (double)sizeof(wt_session);
}

/* Fills out[0..12) with the stats as doubles (exact below 2^53). */
WT_I_EXPORT int wt_js_session_stats(int id, double *out) {
  wt_session_stats st;
  wt_status rc = wt_session_stats_get(id, &st);
  if (rc != WT_OK) memset(&st, 0, sizeof st); /* unknown id: all zero */
  const uint64_t v[12] = {st.samples_taken,  st.samples_written, st.samples_dropped,
                          st.samples_dropped_full, st.samples_torn, st.events_written,
                          st.events_dropped, st.ticks_missed, st.bytes_encoded,
                          st.bytes_written, st.threads, st.buffer_high_water};
  for (int i = 0; i < 12; i++) out[i] = (double)v[i];
  return rc;
}

void wt_runtime_shutdown_for_testing(void) {
  if (atomic_load(&wt_rt.worker_state) == 1) {
    atomic_store(&wt_rt.shutdown, 1);
    wt_runtime_wake();
    pthread_join(wt_rt.worker, NULL);
  }
  int n = atomic_load(&wt_rt.session_count);
  for (int i = 0; i < n; i++) {
    wt_session *s = wt_rt.sessions[i];
    if (s->file) fclose(s->file);
    wt_session_free_buffers(s);
    if (atomic_load(&s->output_ready) && !s->out_freed) wt_outq_free(&s->out);
    free(s);
    wt_rt.sessions[i] = NULL;
  }
  atomic_store(&wt_rt.session_count, 0);
  atomic_store(&wt_rt.worker_state, 0);
  atomic_store(&wt_rt.shutdown, 0);
  wt_rt.startup_count = 0;
  wt_rt.config_error[0] = '\0';
}
