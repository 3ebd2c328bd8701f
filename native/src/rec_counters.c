/* The built-in counters' recorder (recorder.h): process-wide, at each of a
 * session's counter times (config "counters"): the wasm heap's bytes, the
 * bytes malloc has in use and the live threads, as counter events of
 * category "wasmtrace". First in the registry, so that its counters come
 * before the other recorders' in each batch (the heap's estimates). */
#include <stdatomic.h>

#include "platform.h"
#include "recorder.h"
#include "registry.h"
#include "session.h"

#define MALLINFO_EVERY_US 250000.0 /* mallinfo() walks the whole heap under malloc's lock */

typedef struct counters_state {
  double next_malloc_us; /* when malloc's bytes in use are read next (worker) */
} counters_state;
_Static_assert(sizeof(counters_state) <= WT_RECORDER_STATE_MAX, "counters_state must fit the recorder's state");

static uint32_t cat;    /* "wasmtrace" */
static uint32_t ids[3]; /* the counters' names */

static void init(void) {
  static const char *const names[3] = {"wasm heap bytes", "malloc bytes in use", "live threads"};
  cat = wt_registry_intern_category("wasmtrace");
  for (int i = 0; i < 3; i++) ids[i] = wt_registry_intern(names[i]);
}

static int wanted(const wt_session_config *c) { return c->counters != 0; }

static void counters(wt_session *s, void *state, double now) {
  counters_state *cs = state;
  uint32_t nthreads = wt_registry_count(), live = 0;
  for (uint32_t slot = 0; slot < nthreads; slot++) {
    wt_thread *t = wt_registry_get(slot);
    if (t && !atomic_load_explicit(&t->exited, memory_order_acquire)) live++;
  }
  /* At most 4 times a second, whatever the counter interval. */
  double malloc_bytes = -1;
  if (now >= cs->next_malloc_us) {
    malloc_bytes = (double)wt_platform_malloc_bytes();
    cs->next_malloc_us = now + MALLINFO_EVERY_US;
  }
  const double values[3] = {(double)wt_platform_heap_bytes(), malloc_bytes, (double)live};
  for (int i = 0; i < 3; i++) {
    if (values[i] < 0) continue; /* not measurable here */
    wt_event_rec rec = {.ts_us = now, .value = values[i], .id = ids[i], .thread = WT_PROCESS_THREAD,
                        .kind = WT_REC_COUNTER, .cat = (uint8_t)cat};
    wt_session_record_event(s, &rec);
  }
}

const wt_recorder wt_recorder_counters = {
    .name = "counters",
    .init = init,
    .wanted = wanted,
    .counters = counters,
};
