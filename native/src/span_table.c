/* Process-wide span tables (see span_table.h). */
#include "span_table.h"

#include <math.h>

#include "json.h"

int wt_span_table_add(wt_span_table *t, int kind, const char *name, double begin_us, double end_us, double bytes) {
  if ((kind != WT_SPAN_SPAN && kind != WT_SPAN_INSTANT && kind != WT_SPAN_NOTE) || !name || !isfinite(begin_us) ||
      !isfinite(end_us) || end_us < begin_us || begin_us < 0) {
    atomic_fetch_add_explicit(&t->dropped, 1, memory_order_relaxed);
    return -1;
  }
  uint32_t i = atomic_load_explicit(&t->reserved, memory_order_relaxed);
  do {
    if (i >= t->cap) {
      atomic_fetch_add_explicit(&t->dropped, 1, memory_order_relaxed);
      return -1;
    }
  } while (!atomic_compare_exchange_weak_explicit(&t->reserved, &i, i + 1, memory_order_relaxed,
                                                  memory_order_relaxed));
  wt_span *p = &t->slots[i].span;
  p->kind = (uint8_t)kind;
  p->lane = 0;
  p->begin_us = begin_us;
  p->end_us = kind == WT_SPAN_SPAN ? end_us : begin_us;
  p->bytes = isfinite(bytes) && bytes >= 0 ? bytes : -1;
  wt_json_utf8_copy(p->name, sizeof p->name, name);
  atomic_store_explicit(&t->slots[i].ready, 1, memory_order_release);
  return 0;
}

uint32_t wt_span_table_count(wt_span_table *t) {
  uint32_t n = atomic_load_explicit(&t->reserved, memory_order_acquire);
  return n < t->cap ? n : t->cap;
}

int wt_span_table_get(wt_span_table *t, uint32_t i, wt_span *out) {
  if (i >= t->cap || !atomic_load_explicit(&t->slots[i].ready, memory_order_acquire)) return 0;
  *out = t->slots[i].span;
  return 1;
}

uint64_t wt_span_table_dropped(wt_span_table *t) { return atomic_load_explicit(&t->dropped, memory_order_relaxed); }

void wt_span_table_note_dropped(wt_span_table *t, uint64_t n) {
  atomic_fetch_add_explicit(&t->dropped, n, memory_order_relaxed);
}

void wt_span_table_reset(wt_span_table *t) {
  for (uint32_t i = 0; i < t->cap; i++) atomic_store_explicit(&t->slots[i].ready, 0, memory_order_relaxed);
  atomic_store_explicit(&t->reserved, 0, memory_order_relaxed);
  atomic_store_explicit(&t->dropped, 0, memory_order_relaxed);
}
