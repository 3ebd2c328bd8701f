/* The startup timeline's table (see phases.h). */
#include "phases.h"

#include <math.h>
#include <string.h>

#include "json.h"
#include "platform.h"
#include "wasmtrace/wasmtrace.h"

typedef struct slot {
  wt_phase phase;
  _Atomic uint32_t ready;
} slot;

static slot table[WT_PHASES_MAX];
static _Atomic uint32_t reserved;
static _Atomic uint64_t dropped;

int wt_phase_add(int kind, const char *name, double begin_us, double end_us, double bytes) {
  if ((kind != WT_PHASE_SPAN && kind != WT_PHASE_INSTANT && kind != WT_PHASE_NOTE) || !name ||
      !isfinite(begin_us) || !isfinite(end_us) || end_us < begin_us || begin_us < 0) {
    atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
    return -1;
  }
  uint32_t i = atomic_load_explicit(&reserved, memory_order_relaxed);
  do {
    if (i >= WT_PHASES_MAX) {
      atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
      return -1;
    }
  } while (!atomic_compare_exchange_weak_explicit(&reserved, &i, i + 1, memory_order_relaxed,
                                                  memory_order_relaxed));
  wt_phase *p = &table[i].phase;
  p->kind = (uint8_t)kind;
  p->begin_us = begin_us;
  p->end_us = kind == WT_PHASE_SPAN ? end_us : begin_us;
  p->bytes = isfinite(bytes) && bytes >= 0 ? bytes : -1;
  wt_json_utf8_copy(p->name, sizeof p->name, name);
  atomic_store_explicit(&table[i].ready, 1, memory_order_release);
  return 0;
}

uint32_t wt_phases_count(void) {
  uint32_t n = atomic_load_explicit(&reserved, memory_order_acquire);
  return n < WT_PHASES_MAX ? n : WT_PHASES_MAX;
}

int wt_phase_get(uint32_t i, wt_phase *out) {
  if (i >= WT_PHASES_MAX || !atomic_load_explicit(&table[i].ready, memory_order_acquire)) return 0;
  *out = table[i].phase;
  return 1;
}

uint64_t wt_phases_dropped(void) { return atomic_load_explicit(&dropped, memory_order_relaxed); }

void wt_phases_reset_for_testing(void) {
  for (uint32_t i = 0; i < WT_PHASES_MAX; i++) atomic_store_explicit(&table[i].ready, 0, memory_order_relaxed);
  atomic_store_explicit(&reserved, 0, memory_order_relaxed);
  atomic_store_explicit(&dropped, 0, memory_order_relaxed);
}

/* The public mark (wasmtrace.h): an instant of the timeline, now. */
wt_status wt_mark(const char *name) {
  if (!name || !*name) return WT_ERR_INVALID_ARG;
  double now = wt_platform_now_us();
  return wt_phase_add(WT_PHASE_INSTANT, name, now, now, -1) == 0 ? WT_OK : WT_ERR_LIMIT;
}
