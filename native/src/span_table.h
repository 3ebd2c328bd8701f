/* A process-wide, append-only table of spans (span.h) that any thread adds
 * to and the worker reads at a session's final step: the startup
 * timeline's phases (phases.h), the main thread's long tasks
 * (rec_longtask.c). A writer reserves a slot with one atomic CAS and
 * publishes it with a release store of its `ready` flag; entries past the
 * table, and malformed ones, are counted, not kept. Nothing here allocates
 * or locks. */
#ifndef WT_SPAN_TABLE_H
#define WT_SPAN_TABLE_H

#include <stdatomic.h>
#include <stdint.h>

#include "span.h"

typedef struct wt_span_slot {
  wt_span span;
  _Atomic uint32_t ready;
} wt_span_slot;

typedef struct wt_span_table {
  wt_span_slot *slots;
  uint32_t cap;
  _Atomic uint32_t reserved;
  _Atomic uint64_t dropped;
} wt_span_table;

/* A static table of n slots named `name`. */
#define WT_SPAN_TABLE(name, n)              \
  static wt_span_slot name##_slots[n];      \
  static wt_span_table name = {name##_slots, (n), 0, 0}

/* Adds a span. Returns 0, or -1 if the table is full or the span is
 * malformed (unknown kind, end before begin, a negative or non-finite
 * time): counted in wt_span_table_dropped. Any thread. */
int wt_span_table_add(wt_span_table *t, int kind, const char *name, double begin_us, double end_us, double bytes);
/* Slots reserved so far (published or about to be), at most the table's. */
uint32_t wt_span_table_count(wt_span_table *t);
/* Copies slot i into *out if it is published; returns 1 if so, else 0. */
int wt_span_table_get(wt_span_table *t, uint32_t i, wt_span *out);
/* Spans refused since the start (full table, malformed). */
uint64_t wt_span_table_dropped(wt_span_table *t);
/* Counts n spans refused before they reached the table (the page's own
 * buffer was full). Any thread. */
void wt_span_table_note_dropped(wt_span_table *t, uint64_t n);
/* Tests only: empties the table (no writer may run). */
void wt_span_table_reset(wt_span_table *t);

#endif
