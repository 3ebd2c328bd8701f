/* Startup sessions from the config blob, before main(). */
#include "startup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "config.h"
#include "fmt.h"
#include "platform.h"
#include "runtime.h"
#include "session.h"

/* The config blob's top-level error (Module.wasmtrace.configError), printed
 * once. */
static void set_config_error(const char *error, const char *source) {
  wt_snprintf(wt_rt.config_error, sizeof wt_rt.config_error, "%s (from %s)", error, source);
  char line[WT_ERROR_MAX * 2];
  wt_snprintf(line, sizeof line, "config error: %s", wt_rt.config_error);
  wt_platform_log_error(line);
}

/* The sessions a tool asked for through the diagnostic server before the
 * runtime was up (js/wasmtrace_server.js queues them; docs/PROTOCOL.md):
 * started here, with the config's own, and each answered with its real id.
 * The host build has no such queue. */
#ifdef __EMSCRIPTEN__
extern int wt_js_queued_count(void);
extern char *wt_js_queued_config(int index);
extern void wt_js_queued_started(int index, int id);
extern void wt_js_startup_attach(double constructors_us);
#else
static int wt_js_queued_count(void) { return 0; }
static char *wt_js_queued_config(int index) { (void)index; return NULL; }
static void wt_js_queued_started(int index, int id) { (void)index; (void)id; }
static void wt_js_startup_attach(double constructors_us) { (void)constructors_us; }
#endif

/* Sessions started here write the whole startup timeline (phases.h). The
 * worker adopts none of them before the batch is published (hold_seq). */
static void mark_before_main(int id) {
  wt_session *s = id >= 0 ? wt_session_get(id) : NULL;
  if (s) s->before_main = 1;
}

static void start_queued(int n) {
  for (int i = 0; i < n; i++) {
    char *text = wt_js_queued_config(i);
    int id = -1;
    if (text) {
      wt_session_start(text, &id);
    } else {
      /* No memory for its text: a failed record still answers the tool. */
      wt_session_config config;
      wt_config_defaults(&config, "remote");
      wt_api_add_session(&config, "out of memory for the config text of a tool's session", &id);
    }
    free(text);
    mark_before_main(id);
    wt_js_queued_started(i, id);
  }
}

void wt_runtime_start_from_config(void) {
  double constructors_us = wt_platform_now_us(); /* the timeline's "constructors" begin */
  wt_config_source source = {"", 0, ""};
  char *blob = wt_platform_read_config(&source);
  wt_config *config = NULL;
  if (!blob) {
    if (source.error[0]) set_config_error(source.error, source.name);
  } else if (!(config = malloc(sizeof *config))) {
    free(blob);
    blob = NULL;
  } else {
    char err[WT_ERROR_MAX];
    if (wt_config_parse(blob, strlen(blob), config, err, sizeof err) != WT_OK) {
      set_config_error(err, source.name);
      free(config);
      config = NULL;
    }
  }
  /* Read once, before anything starts: the shim starts later requests itself. */
  int queued = wt_js_queued_count();
  if (config) {
    /* Anyone can send a link: such a config writes only under
     * WT_OUTPUT_DIR and never overwrites (docs/GUIDE.md). */
    if (source.untrusted) wt_config_restrict_untrusted(config, source.name);
    /* A bad "server" object is the shim's to report (it checks it). */
  }
  if (config || queued > 0) {
    /* The worker adopts none of them until all are in the table, so that
     * they start in one iteration and share their first tick (rec_samples.c).
     * hold_seq is odd from before the first session is published (the
     * session count's release store follows it) until after the last one
     * is (this release store follows them). */
    atomic_fetch_add_explicit(&wt_rt.hold_seq, 1, memory_order_release);
    wt_runtime_init();
    for (int i = 0; config && i < config->count; i++) {
      int id = -1;
      const wt_config_entry *e = &config->sessions[i];
      wt_api_add_session(&e->config, e->valid ? "" : e->error, &id);
      mark_before_main(id);
      if (id >= 0) wt_rt.startup_ids[wt_rt.startup_count++] = id;
    }
    start_queued(queued);
    atomic_fetch_add_explicit(&wt_rt.hold_seq, 1, memory_order_release);
    wt_runtime_wake();
  }
  free(config);
  free(blob);
  /* The page's startup timeline (phases.h) from now on goes straight to
   * the table; what the shim kept until now, too. */
  wt_js_startup_attach(constructors_us);
}

int wt_startup_count(void) { return wt_rt.startup_count; }

int wt_startup_id(int i) { return i >= 0 && i < wt_rt.startup_count ? wt_rt.startup_ids[i] : -1; }

const char *wt_startup_config_error(void) { return wt_rt.config_error; }

#ifdef __EMSCRIPTEN__
/* Before main(): constructors run on the main thread once the pthread pool
 * is loaded, so the worker starts at once if a pool slot is free. The
 * linker keeps this file because js_exports.c (kept by
 * -Wl,--undefined=wt_js_startup_count) calls wt_startup_count. */
__attribute__((constructor(200))) static void wt_startup(void) { wt_runtime_start_from_config(); }
#endif
