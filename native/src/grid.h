/* The sampling grid: every figure that turns times into grid points, in one
 * place. A session with interval P samples at the grid points k * P of the
 * shared clock (whole microseconds, integers in double precision: exact).
 * rec_samples.c's header ("The tick grid", "Accounting") says how the
 * worker walks the grid; tests/native/test_grid.c checks the accounting it gives.
 *
 * One wt_grid per session, worker-owned: when its next tick is due, how
 * many ticks it took, and how late they were. Weights (how many periods a
 * sample stands for) are the grid's too: session.c asks wt_grid_weight,
 * and lib/profile.mjs (gridWeights) computes the same from a trace. */
#ifndef WT_GRID_H
#define WT_GRID_H

#include <math.h>
#include <stdint.h>

#define WT_LATENESS_BUCKETS 24 /* bucket b: lateness below 2^b us */

typedef struct wt_grid {
  double next_us;   /* the next deadline: a grid point (or "now" for a first tick at once) */
  uint64_t ticks;   /* ticks taken */
  uint32_t lateness_hist[WT_LATENESS_BUCKETS];
  double lateness_max_us;
} wt_grid;

/* The grid point at or before t. */
static inline double wt_grid_point(double t, double period) { return floor(t / period) * period; }

/* The first deadline of a session adopted at `now`: at once, or when it
 * joins sessions that sample already, the first grid point after now (so
 * that its ticks are theirs). */
static inline void wt_grid_start(wt_grid *g, double now, double period, int join) {
  g->next_us = join ? (floor(now / period) + 1) * period : now;
}

/* A tick at time t (period P): returns the grid points missed since the
 * last tick (0 for the first), notes the tick's lateness against its
 * deadline (not for the first tick, which has no deadline on the grid when
 * taken at once), and makes the next grid point the deadline (a metronome:
 * never "t + P", so lateness does not accumulate). */
static inline uint64_t wt_grid_tick(wt_grid *g, double t, double period) {
  double point = wt_grid_point(t, period); /* this tick's grid point */
  uint64_t missed = 0;
  if (g->ticks++ > 0) {
    /* The deadline was the grid point after the last tick's: the ones from
     * there to this tick's were missed. */
    if (point > g->next_us) missed = (uint64_t)llround((point - g->next_us) / period);
    /* Lateness, log2 buckets of us. */
    double late = t - g->next_us;
    uint32_t bucket = 0;
    while (bucket < WT_LATENESS_BUCKETS - 1 && late >= (double)(1u << bucket)) bucket++;
    g->lateness_hist[bucket]++;
    if (late > g->lateness_max_us) g->lateness_max_us = late;
  }
  g->next_us = point + period;
  return missed;
}

/* The grid periods a sample at ts stands for, the previous recorded sample
 * of its thread being at last_us: 1 when none was skipped, more after
 * missed ticks (at most UINT16_MAX; encoder.h, wt_sample.weight). */
static inline uint32_t wt_grid_weight(double ts_us, double last_us, double period) {
  double periods = floor(ts_us / period) - floor(last_us / period);
  return periods < 1 ? 1 : periods > UINT16_MAX ? UINT16_MAX : (uint32_t)periods;
}

/* Upper bound (a power of two, in us) of the pct-th percentile of the
 * ticks' lateness; 0 before any. */
static inline uint64_t wt_grid_lateness_percentile(const wt_grid *g, unsigned pct) {
  uint64_t total = 0, seen = 0;
  for (int b = 0; b < WT_LATENESS_BUCKETS; b++) total += g->lateness_hist[b];
  if (!total) return 0;
  for (int b = 0; b < WT_LATENESS_BUCKETS; b++) {
    seen += g->lateness_hist[b];
    if (seen * 100 >= total * pct) return 1ull << b;
  }
  return 1ull << (WT_LATENESS_BUCKETS - 1);
}

#endif
