/* The worker's sleep between deadlines, and the spin that makes up for the
 * timer's oversleep (worker.c's sleep phase). Worker only. */
#ifndef WT_WORKER_SLEEP_H
#define WT_WORKER_SLEEP_H

#include <stdatomic.h>
#include <stdint.h>

/* What the sleep learns: zeroed at the worker's start. */
typedef struct wt_sleeper {
  double oversleep_p90_us;     /* running estimate of the timed sleep's oversleep */
  double spin_window_start_us; /* the current second of the spin budget... */
  double spin_window_us;       /* ...and the time spun in it */
} wt_sleeper;

/* Sleeps until `next`, or until *wake moves from wake_seen; returns the
 * time it spun, in us. `period`: the shortest sampling period of the
 * running sessions (0: none samples).
 *
 * A timed sleep ends late: in Chromium, Atomics.wait's timeout comes some
 * 50-120 us after the time asked (Linux's default timer slack is 50 us,
 * then the wake-up), which at 10 kHz is most of a period and missed ~5 %
 * of the ticks with one busy thread on a quiet 2-core machine. So the
 * sleep is asked to end early by the 90th percentile of the oversleeps
 * seen so far (learned step by step: up 9 us when an oversleep is above
 * the estimate, down 1 us when below), and the rest of the way to the
 * deadline is spun, reading the clock. The spin is bounded: at most the
 * early margin, which is at most WAKE_EARLY_MAX_US and half the shortest
 * sampling period, so the worker's CPU stays a small fraction of a core
 * (docs/BENCHMARKS.md measures it); the wake counter ends it at once.
 * And it is used only where it saves ticks: for periods of 500 us or less
 * (2 kHz and faster) where the oversleep is a quarter of the period or
 * more (5 kHz and faster in Chromium). At 1 kHz an oversleep of ~100 us
 * makes a tick late, never missed (a missed tick needs a whole period),
 * and the app's cores are worth more than that lateness. Whatever the
 * rate, the spin takes at most SPIN_BUDGET_PCT of a core over each second:
 * past that it sleeps to the deadline like at 1 kHz. Only the timer's oversleeps are learned: on a machine without a free
 * core the thread also waits milliseconds for the scheduler, which no
 * early wake can make up for, and learning those would only make the
 * worker spin more on the cores the app needs. Without a sampling session
 * (idle, counters only) it just sleeps. */
double wt_sleeper_sleep(wt_sleeper *ws, double period, double next, _Atomic uint32_t *wake, uint32_t wake_seen);

#endif
