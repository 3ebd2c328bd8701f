/* The startup timeline's table (see phases.h). */
#include "phases.h"

#include "platform.h"
#include "span_table.h"
#include "wasmtrace/wasmtrace.h"

WT_SPAN_TABLE(table, WT_PHASES_MAX);

int wt_phase_add(int kind, const char *name, double begin_us, double end_us, double bytes) {
  return wt_span_table_add(&table, kind, name, begin_us, end_us, bytes);
}

uint32_t wt_phases_count(void) { return wt_span_table_count(&table); }

int wt_phase_get(uint32_t i, wt_phase *out) { return wt_span_table_get(&table, i, out); }

uint64_t wt_phases_dropped(void) { return wt_span_table_dropped(&table); }

void wt_phases_reset_for_testing(void) { wt_span_table_reset(&table); }

/* The public mark (wasmtrace.h): an instant of the timeline, now. */
wt_status wt_mark(const char *name) {
  if (!name || !*name) return WT_ERR_INVALID_ARG;
  double now = wt_platform_now_us();
  return wt_phase_add(WT_PHASE_INSTANT, name, now, now, -1) == 0 ? WT_OK : WT_ERR_LIMIT;
}
