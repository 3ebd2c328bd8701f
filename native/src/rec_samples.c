/* The CPU samples recorder (recorder.h): at each grid point of a session's
 * sampling interval, one snapshot of every registered thread's shadow
 * stack, given to every session due as one sample per thread (session.c,
 * wt_session_record_sample). It is the worker's clock as well as a kind
 * of data: its tick time stamps every stop (worker.c), and its deadlines
 * and its shortest period set the worker's sleep. A session has it when
 * its config samples ("sampling", the default).
 *
 * What stays the session's: its sampling settings (config "sampling",
 * "intervalUs": the encoders and the weights read them), its pending
 * samples and their counters (session.c), and its grid (`s->grid`, grid.h:
 * the stats record's lateness figures); this module alone walks the grid.
 *
 * The tick grid. Times on the grid are whole microseconds (the clock rounded
 * up), and a sampling deadline is a multiple of its session's interval P in
 * the shared clock (integers in double precision, so exact). Sessions with
 * the same interval are due in the same iterations and share one snapshot,
 * hence the very same sample timestamp: the iteration's tick time T, taken
 * just after the snapshot (a sample is stamped after its copy, never before
 * it). A session adopted while no other samples is due at once; one adopted
 * while others sample is due at the first grid point after its adoption, so
 * that its ticks are the others' ticks.
 *
 * Accounting. A tick's grid point is the last one at or before its
 * timestamp, floor(T / P) * P; after a tick its session is next due at the
 * grid point after that one, and the grid points a late worker skipped
 * before the next tick's are added to ticks_missed. The worker handles a
 * stop after the tick of its iteration, with stop_us = T, so that a due
 * grid point is sampled, not called missed, and none after the last tick's
 * is left over. Hence, exactly, for a session that ticked
 * (tests/native/test_grid.c):
 *   ticks + ticks_missed == floor(stop_us / P) - floor(first tick's T / P) + 1
 *   floor(stop_us / P) == floor(last tick's T / P)
 * Grid points before the first tick (a worker late to adopt a session, or
 * late for the deadline a joining session got) are not counted: a session's
 * grid starts at its first tick. The figures are grid.h's. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "mem.h"
#include "platform.h"
#include "recorder.h"
#include "registry.h"
#include "session.h"

/* The snapshot, worker-only (one worker at a time; a host test calls the
 * hooks before any worker runs): static, so that the
 * worker starts whatever the heap; the buffers grow with the registry on
 * demand (a refusal samples fewer threads), so its first tick allocates
 * little. */
static struct {
  uint32_t (*stacks)[WT_MAX_DEPTH]; /* snapshot per thread slot, `cap` slots */
  int *depths;                      /* frames copied, -2 if not sampled */
  uint8_t *flags;                   /* WT_SAMPLE_* of each slot's copy */
  uint32_t cap;
  int join; /* sessions adopted in this iteration join a running grid */
} snap;

static int wanted(const wt_session_config *c) { return c->sampling; }

/* Sessions adopted in this iteration join the grid of those that sample
 * already; with none, their first tick is taken at once. */
static void adopting(wt_session *const *sessions, int n) {
  snap.join = 0;
  for (int i = 0; i < n && !snap.join; i++)
    snap.join = wt_session_running(sessions[i]) && sessions[i]->config.sampling;
}

/* Due at once (its first tick in this iteration) when it joins no grid,
 * else at the first grid point after `now` (the next tick that the
 * sessions already sampling take). */
static void adopted(wt_session *s, void *state, double now) {
  (void)state;
  wt_grid_start(&s->grid, now, s->config.interval_us, snap.join);
}

/* Copies every live thread's stack once. Returns the number of slots
 * snapshotted (fewer than nthreads only if memory ran out). */
static uint32_t snapshot(uint32_t nthreads) {
  if (nthreads > snap.cap) {
    uint32_t cap = snap.cap ? snap.cap : 8;
    while (cap < nthreads) cap *= 2;
    uint32_t(*stacks)[WT_MAX_DEPTH] = wt_mem_realloc(snap.stacks, cap * sizeof *stacks);
    if (stacks) snap.stacks = stacks;
    int *depths = wt_mem_realloc(snap.depths, cap * sizeof *depths);
    if (depths) snap.depths = depths;
    uint8_t *flags = wt_mem_realloc(snap.flags, cap * sizeof *flags);
    if (flags) snap.flags = flags;
    if (stacks && depths && flags) snap.cap = cap;
    if (nthreads > snap.cap) nthreads = snap.cap;
  }
  for (uint32_t slot = 0; slot < nthreads; slot++) {
    wt_thread *t = wt_registry_get(slot);
    if (!t || atomic_load_explicit(&t->exited, memory_order_acquire)) {
      snap.depths[slot] = -2; /* not sampled */
      continue;
    }
    uint32_t depth;
    int partial;
    int n = wt_stack_copy(t, snap.stacks[slot], &depth, &partial);
    /* Read after the copy: a thread that waits does not move its stack. */
    snap.flags[slot] = (partial ? WT_SAMPLE_PARTIAL : 0) |
                       (atomic_load_explicit(&t->waiting, memory_order_relaxed) ? WT_SAMPLE_WAITING : 0);
    /* The start routine pushed as a base frame (threads.c) and pushed
     * again by its own hook when it is instrumented: shown once. */
    if (n >= 2 && snap.stacks[slot][0] == snap.stacks[slot][1] &&
        atomic_load_explicit(&t->base_frame, memory_order_relaxed)) {
      memmove(snap.stacks[slot], snap.stacks[slot] + 1, (size_t)(n - 1) * sizeof snap.stacks[slot][0]);
      n--;
    }
    snap.depths[slot] = n;
  }
  return nthreads;
}

static int due(const wt_session *s, double t) {
  return wt_session_running(s) && s->config.sampling && s->grid.next_us <= t;
}

/* If a session is due at `t`, takes one snapshot of every live thread's
 * stack; every session due by the time the copies are done gets one sample
 * per thread from it, all stamped with that time. Returns the tick time T
 * (see "The tick grid"): that time, or `t` if none was due. After it, no
 * sampling session is due at T. */
static double tick(wt_session *const *sessions, int n, double t) {
  int any_due = 0;
  for (int i = 0; i < n && !any_due; i++) any_due = due(sessions[i], t);
  if (!any_due) return t;
  uint32_t nthreads = snapshot(wt_registry_count());
  t = ceil(wt_platform_now_us());
  for (int i = 0; i < n; i++) {
    wt_session *s = sessions[i];
    if (!due(s, t)) continue;
    for (uint32_t slot = 0; slot < nthreads; slot++) {
      if (snap.depths[slot] == -2) continue;
      wt_session_record_sample(s, (uint16_t)slot, snap.stacks[slot], snap.depths[slot], t, snap.flags[slot]);
    }
    /* Its next deadline is the next grid point (a metronome); the points a
     * late worker skipped are missed. */
    uint64_t missed = wt_grid_tick(&s->grid, t, s->config.interval_us);
    if (missed) atomic_fetch_add_explicit(&s->ticks_missed, missed, memory_order_relaxed);
  }
  return t;
}

static double deadline(const wt_session *s, const void *state) {
  (void)state;
  return s->grid.next_us;
}

static double period(const wt_session *s, const void *state) {
  (void)state;
  return s->config.interval_us;
}

static void worker_exit(void) {
  wt_mem_free(snap.stacks);
  wt_mem_free(snap.depths);
  wt_mem_free(snap.flags);
  memset(&snap, 0, sizeof snap);
}

const wt_recorder wt_recorder_samples = {
    .name = "samples",
    .wanted = wanted,
    .adopting = adopting,
    .adopted = adopted,
    .tick = tick,
    .deadline = deadline,
    .period = period,
    .worker_exit = worker_exit,
};
