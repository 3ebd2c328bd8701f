/* The worker's sleep (see worker_sleep.h). */
#include "worker_sleep.h"

#include "platform.h"

/* Waking early (see wt_sleeper_sleep): the timed sleep is asked to end this much
 * before the deadline, at most WAKE_EARLY_MAX_US and half the shortest
 * sampling period; an oversleep longer than TIMER_OVERSLEEP_MAX_US is the
 * OS (the thread waited for a core), not the timer, and teaches nothing. */
#define WAKE_EARLY_MAX_US 200.0
#define TIMER_OVERSLEEP_MAX_US 300.0
#define SPIN_MAX_PERIOD_US 500.0  /* spin only for periods this short (2 kHz and faster)... */
#define SPIN_WHEN_OVERSLEEP_PER_PERIOD 4.0 /* ...and if oversleep >= period / this */
#define SPIN_BUDGET_PCT 10.0      /* at most this share of a core spun, per second */
#define SPIN_WINDOW_US 1000000.0

double wt_sleeper_sleep(wt_sleeper *ws, double period, double next, _Atomic uint32_t *wake, uint32_t wake_seen) {
  double early = 0;
  double now = wt_platform_now_us();
  if (now - ws->spin_window_start_us >= SPIN_WINDOW_US) {
    ws->spin_window_start_us = now;
    ws->spin_window_us = 0;
  }
  int budget_left = ws->spin_window_us < SPIN_WINDOW_US * SPIN_BUDGET_PCT / 100.0;
  if (period > 0 && period <= SPIN_MAX_PERIOD_US && budget_left &&
      ws->oversleep_p90_us * SPIN_WHEN_OVERSLEEP_PER_PERIOD >= period) {
    early = ws->oversleep_p90_us;
    if (early > WAKE_EARLY_MAX_US) early = WAKE_EARLY_MAX_US;
    if (early > period / 2) early = period / 2;
  }
  double target = next - early;
  if (target > wt_platform_now_us()) {
    wt_platform_sleep_until(target, wake, wake_seen);
    double over = wt_platform_now_us() - target;
    if (atomic_load_explicit(wake, memory_order_acquire) != wake_seen) return 0;
    if (over < 0) return 0; /* a spurious wake-up: the loop sleeps again */
    if (over <= TIMER_OVERSLEEP_MAX_US) {
      ws->oversleep_p90_us += over > ws->oversleep_p90_us ? 9.0 : -1.0;
      if (ws->oversleep_p90_us < 0) ws->oversleep_p90_us = 0;
    }
  }
  if (early <= 0) return 0;
  double spun_from = wt_platform_now_us(), t = spun_from;
  while (t < next && atomic_load_explicit(wake, memory_order_acquire) == wake_seen)
    t = wt_platform_now_us();
  ws->spin_window_us += t - spun_from;
  return t - spun_from;
}
