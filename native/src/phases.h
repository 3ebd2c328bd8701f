/* The startup timeline: the phases of the page's startup from navigation
 * to the app's "ready" (the document, the app's resources, wasm compile and
 * instantiate, each pthread pool worker, run dependencies, preRun, the
 * constructors, main()), on the samples' clock (microseconds since the
 * page's navigation start). The page-side shim observes them
 * (js/wasmtrace_startup.js) and hands each one here once the module is up;
 * every session that started before main() writes all of them, a session
 * started later those that begin while it records (rec_timeline.c).
 *
 * One process-wide span table (span_table.h) of at most WT_PHASES_MAX
 * entries; the startup timeline's recorder (rec_timeline.c) reads it. Any
 * thread may add; nothing here allocates or locks. */
#ifndef WT_PHASES_H
#define WT_PHASES_H

#include <stdint.h>

#include "span.h"

#define WT_PHASES_MAX 256
#define WT_PHASE_NAME_MAX WT_SPAN_NAME_MAX

/* Kinds of phases: those of spans (span.h). */
enum { WT_PHASE_SPAN = WT_SPAN_SPAN, WT_PHASE_INSTANT = WT_SPAN_INSTANT, WT_PHASE_NOTE = WT_SPAN_NOTE };

typedef wt_span wt_phase;

/* Adds a phase. Returns 0, or -1 if the table is full or the phase is
 * malformed (unknown kind, end before begin, a time that is not finite):
 * counted in wt_phases_dropped. */
int wt_phase_add(int kind, const char *name, double begin_us, double end_us, double bytes);

/* Slots reserved so far (published or about to be), at most WT_PHASES_MAX. */
uint32_t wt_phases_count(void);

/* Copies slot i into *out if it is published; returns 1 if so, else 0. */
int wt_phase_get(uint32_t i, wt_phase *out);

/* Phases refused since the start (full table, malformed). */
uint64_t wt_phases_dropped(void);

/* Tests only: empties the table (no writer may run). */
void wt_phases_reset_for_testing(void);

#endif
