/* Test app for the session engine (tests/browser/engine.test.mjs).
 *
 * With the arguments "busy <ms> [workers]", main() keeps the main thread
 * busy for <ms> without yielding while [workers] (default 2) pthreads spin
 * too; all three open scopes
 * ("app" and "io" categories), emit instants and a counter. Without
 * arguments main() returns at once and the page drives engine_* functions. */
#include <emscripten.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wasmtrace/wasmtrace.h>

static void spin_until(double t) {
  volatile unsigned x = 0;
  while (emscripten_get_now() < t) x++;
}

/* Busy for `ms`: 10 ms slices alternating "compute" (app) and "io_read"
 * (io) scopes, an instant every slice and a counter of slices. */
static void busy_slices(double ms) {
  double end = emscripten_get_now() + ms;
  int slice = 0;
  while (emscripten_get_now() < end) {
    double t = emscripten_get_now() + 10;
    if (slice % 2 == 0) {
      WT_SCOPE("compute");
      spin_until(t);
    } else {
      WT_SCOPE_CAT("io", "io_read");
      spin_until(t);
    }
    WT_INSTANT("slice_done");
    WT_COUNTER("slices", ++slice);
  }
}

static void busy(int on_main, double ms) {
  if (on_main) {
    WT_SCOPE("main_busy");
    busy_slices(ms);
  } else {
    WT_SCOPE("worker_spin");
    busy_slices(ms);
  }
}

static void *spinner(void *arg) {
  double ms = *(double *)arg;
  free(arg);
  busy(0, ms);
  return NULL;
}

/* Starts two detached threads that stay busy for `ms`. */
EMSCRIPTEN_KEEPALIVE void engine_start_workers(double ms) {
  for (int i = 0; i < 2; i++) {
    double *arg = malloc(sizeof *arg);
    *arg = ms;
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, spinner, arg) != 0) free(arg);
    pthread_attr_destroy(&attr);
  }
}

static _Atomic int blips_done;

static void *blip(void *arg) {
  (void)arg;
  {
    WT_SCOPE("blip");
    spin_until(emscripten_get_now() + 1);
  }
  atomic_fetch_add(&blips_done, 1);
  return NULL;
}

/* How many blip threads have finished their work. */
EMSCRIPTEN_KEEPALIVE int engine_blips_done(void) { return atomic_load(&blips_done); }

/* Starts one detached thread that is busy for ~1 ms in a "blip" scope and
 * exits. Returns pthread_create's result. */
EMSCRIPTEN_KEEPALIVE int engine_start_blip(void) {
  pthread_t t;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&t, &attr, blip, NULL);
  pthread_attr_destroy(&attr);
  return rc;
}

/* Keeps the calling (main) thread busy for `ms` without yielding. */
EMSCRIPTEN_KEEPALIVE void engine_busy_main(double ms) { busy(1, ms); }

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "busy") == 0) {
    double ms = atof(argv[2]);
    int workers = argc >= 4 ? atoi(argv[3]) : 2;
    if (workers < 0 || workers > 2) workers = 2;
    pthread_t threads[2];
    for (int i = 0; i < workers; i++) {
      double *arg = malloc(sizeof *arg);
      *arg = ms;
      pthread_create(&threads[i], NULL, spinner, arg);
    }
    busy(1, ms);
    for (int i = 0; i < workers; i++) pthread_join(threads[i], NULL);
  }
  EM_ASM({ self.engineReady = true; });
  return 0;
}
