/* The wasmtrace worker: one pthread that runs the recorders (recorders.h:
 * the CPU samples at absolute deadlines, the app's events from the rings,
 * the heap's samples, ...) and encodes output in the time left between
 * deadlines. It never touches the VFS and never waits for
 * the main thread: its only blocking call is the timed sleep, besides short
 * critical sections (registry and category mutexes, malloc's lock, and on
 * its out-of-memory exit the session table's) that no holder keeps while
 * waiting. One exception, out of memory only: a session finishing on its
 * reserve may wait (up to 20 s) for the main thread to write an output
 * block and give it back (outq.c, session.c).
 *
 * One iteration, in phases:
 *   adopt          adopt new sessions (a startup batch all at once)
 *   tick           the recorders' tick: one snapshot of every stack for
 *                  the sessions due (rec_samples.c); its time T stamps stops
 *   recorders      their step: what they gathered into the running sessions
 *                  (the rings' events, the heap's queue)
 *   stop           end the sessions asked or due to stop (the recorders
 *                  flushed first, then told: open scopes end unfinished)
 *   counters       counters at each session's counter interval
 *   next deadline  the earliest recorder (sampling) or counter deadline
 *   encode         small encoder steps while time is left before it
 *   sleep          until the deadline (asked early, the rest spun: sleep_phase), or until woken
 * The recorders' step and the stop hand ring events out, so they wait (the
 * rings keep the events) while a session that should have some is in the table but not
 * adopted yet: a startup batch under way, or a session added after the
 * iteration read the table.
 *
 * The sample tick and its grid are the CPU samples recorder's (rec_samples.c:
 * "The tick grid", "Accounting"); the worker stops sessions at its tick
 * time T, after the tick, so that a due grid point is sampled, not called
 * missed (tests/native/test_grid.c). */
#include "worker.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "categories.h"
#include "mem.h"
#include "platform.h"
#include "recorders.h"
#include "registry.h"
#include "runtime.h"
#include "server.h"
#include "worker_sleep.h"

#define IDLE_SLEEP_US 20000.0     /* when no session samples */
#define ENCODE_MARGIN_US 150.0    /* stop encoding this close to a deadline */
#define ENCODE_MIN_SLICE 256      /* samples (and events) per step: at least... */
#define ENCODE_MAX_SLICE 2048     /* ...and at most; in between, what fits in time */
#define ENCODE_AFTER_US 100000.0  /* encode at least this often... */
#define ENCODE_WHEN_FULL_PCT 25   /* ...or once the buffer is this full */
#define RECLAIM_EVERY_US 10000.0  /* frees exited threads' records at most this often */
#define APP_HEAP_EVERY_US 5000.0  /* checks the app's heap headroom (mem.h) this often */

typedef struct worker_state {
  double us_per_item;               /* measured cost of encoding one sample or event */
  uint8_t bursting[WT_MAX_SESSION_IDS]; /* was due, and a slice of backlog is left */
  double next_reclaim_us;           /* reclaim_phase runs from then on */
  double next_app_heap_us;          /* app_heap_phase runs from then on */
  wt_sleeper sleeper;               /* the sleep and its spin (worker_sleep.h) */
} worker_state;

uint64_t wt_worker_busy_us(void) {
  return atomic_load_explicit(&wt_rt.worker_busy_us, memory_order_relaxed);
}

double wt_worker_created_us(void) { return wt_rt.worker_created_us; }

double wt_worker_started_us(void) {
  return atomic_load_explicit(&wt_rt.worker_started_us, memory_order_relaxed);
}

static int active(wt_session *s) {
  int st = atomic_load_explicit(&s->state, memory_order_acquire);
  return st == WT_SESSION_RUNNING || st == WT_SESSION_STOPPING;
}

/* ---- adopt and stop ---------------------------------------------------------- */

/* Adopts a STARTING session at `now`: its recorders record from now on
 * (the CPU samples' first tick: rec_samples.c). */
static void start_session(wt_session *s, double now) {
  wt_status st = wt_session_setup_sampling(s, now);
  if (st != WT_OK) {
    wt_session_fail(s, "could not set up buffers: %s", wt_status_str(st));
    return;
  }
  s->next_counter_us = now;
  wt_recorders_adopted(s, now);
  int expected = WT_SESSION_STARTING;
  atomic_compare_exchange_strong(&s->state, &expected, WT_SESSION_RUNNING);
  wt_runtime_update_categories();
}

/* Ends a running session that was asked to stop or whose duration is over,
 * at `t`, the tick time of this iteration: its tick, if it was due, is
 * taken, so no grid point at or before `t` is left to count. */
static void stop_session(wt_session *s, int nsessions, double t) {
  wt_recorders_flush(wt_rt.sessions, nsessions); /* e.g. the rings' events (rec_events.c) */
  wt_recorders_stopping(s, t);                   /* e.g. the scopes still open, unfinished */
  s->stop_us = t;
  /* CAS: the main thread may have failed the session meanwhile (output
   * error); a failed session never moves again. */
  int expected = WT_SESSION_RUNNING;
  atomic_compare_exchange_strong_explicit(&s->state, &expected, WT_SESSION_STOPPING,
                                          memory_order_acq_rel, memory_order_acquire);
  wt_runtime_update_categories();
}

/* Gives back failed sessions' memory, and adopts the STARTING sessions if
 * `whole` (the table read holds no part of a startup batch without the
 * rest). */
static void adopt_phase(int nsessions, double now, int whole) {
  wt_recorders_adopting(wt_rt.sessions, nsessions); /* e.g. the grid they join */
  for (int i = 0; i < nsessions; i++) {
    wt_session *s = wt_rt.sessions[i];
    if (!s) continue;
    int st = atomic_load_explicit(&s->state, memory_order_acquire);
    if (st == WT_SESSION_FAILED)
      wt_session_release_failed(s);
    else if (st == WT_SESSION_STARTING && whole)
      start_session(s, now);
  }
}

/* Stops the sessions asked to stop or whose duration is over at `t`. Runs
 * after the tick (rec_samples.c, "Accounting"). */
static void stop_phase(int nsessions, double t) {
  for (int i = 0; i < nsessions; i++) {
    wt_session *s = wt_rt.sessions[i];
    if (wt_session_running(s) && (atomic_load_explicit(&s->stop_requested, memory_order_acquire) ||
                       (s->config.duration_ms && t - s->start_us >= s->config.duration_ms * 1000.0)))
      stop_session(s, nsessions, t);
  }
}

/* ---- reclaim thread records ----------------------------------------------- */

/* A session still needs an exited thread's record while it may write that
 * thread into its output: it sampled the thread or got events from it
 * (seen), or the thread left a scope open that the session would close as
 * unfinished when it stops. Sessions that are done encoding need nothing. */
static int record_needed(const wt_thread *t, uint32_t slot, wt_session *const *live, int nlive) {
  double newest_open = -INFINITY; /* the latest begin of a scope left open */
  for (uint32_t d = 0; d < WT_MAX_DEPTH; d++)
    if (t->open[d].id && t->open[d].begin_us > newest_open) newest_open = t->open[d].begin_us;
  for (int i = 0; i < nlive; i++) {
    const wt_session *s = live[i];
    if (s->rec.threads && s->rec.threads[slot].seen) return 1;
    if (newest_open >= s->start_us) return 1; /* it would close that scope */
  }
  return 0;
}

/* Frees the records of threads that exited, once their ring is drained
 * and no session needs them (the worker alone reads records after their
 * thread exited, so nothing else can be reading one). Runs after the
 * rings were drained into a table that held every session, at most every
 * RECLAIM_EVERY_US: memory can wait, the sampler's deadlines cannot. */
static void reclaim_phase(int nsessions) {
  wt_session *live[WT_MAX_SESSIONS + 1];
  int nlive = 0;
  for (int i = 0; i < nsessions; i++) {
    wt_session *s = wt_rt.sessions[i];
    if (!s || !active(s) || s->enc.footer_written) continue;
    if (nlive == (int)(sizeof live / sizeof live[0])) return; /* cannot tell: keep everything */
    live[nlive++] = s;
  }
  uint32_t nthreads = wt_registry_count();
  for (uint32_t slot = 0; slot < nthreads; slot++) {
    wt_thread *t = wt_registry_get(slot);
    if (!t || !atomic_load_explicit(&t->exited, memory_order_acquire)) continue;
    if (atomic_load_explicit(&t->ring_read, memory_order_relaxed) !=
        atomic_load_explicit(&t->ring_write, memory_order_acquire))
      continue; /* events left: the next drain takes them */
    if (atomic_load_explicit(&t->ring_dropped, memory_order_relaxed) != t->dropped_seen) continue;
    if (record_needed(t, slot, live, nlive)) continue;
    wt_registry_reclaim(slot);
  }
}

/* ---- counters -------------------------------------------------------------- */

/* The counters of each session's recorders (the built-in ones first:
 * rec_counters.c), at its counter interval. */
static void sample_counters(wt_session *s, double now) {
  if (!s->config.counters || now < s->next_counter_us) return;
  wt_recorders_counters(s, now);
  double period = s->config.counter_interval_ms * 1000.0;
  s->next_counter_us += period;
  if (s->next_counter_us <= now) s->next_counter_us = now + period;
}

static void counters_phase(int nsessions, double now) {
  for (int i = 0; i < nsessions; i++) {
    wt_session *s = wt_rt.sessions[i];
    if (wt_session_running(s)) sample_counters(s, now);
  }
}

/* ---- the app's heap ------------------------------------------------------- */

/* Once the app's own allocations have taken the heap's room below the app's
 * headroom (mem.h), every running session stops early and gives its memory
 * back: a session must never be the reason the app runs short. Every
 * APP_HEAP_EVERY_US (one sbrk(0) while the room is ample). */
static void app_heap_phase(worker_state *ws, int nsessions, double now) {
  if (now < ws->next_app_heap_us) return;
  ws->next_app_heap_us = now + APP_HEAP_EVERY_US;
  int any = 0;
  for (int i = 0; i < nsessions && !any; i++) any = wt_session_running(wt_rt.sessions[i]);
  size_t room = 0, keep = 0;
  if (!any || !wt_mem_app_short(&room, &keep)) return;
  for (int i = 0; i < nsessions; i++) {
    wt_session *s = wt_rt.sessions[i];
    if (wt_session_running(s)) wt_session_note_app_short(s, room, keep);
  }
}

/* ---- next deadline --------------------------------------------------------- */

/* The earliest recorder (e.g. sampling) or counter deadline of the
 * running sessions. */
static double next_deadline(int nsessions, double now) {
  double next = now + IDLE_SLEEP_US;
  for (int i = 0; i < nsessions; i++) {
    wt_session *s = wt_rt.sessions[i];
    if (!wt_session_running(s)) continue;
    next = wt_recorders_deadline(s, next);
    if (s->config.counters && s->next_counter_us < next) next = s->next_counter_us;
  }
  return next;
}

/* A stopping session with nothing left to encode, or one blocked on the
 * main thread, is re-checked soon rather than at the next deadline. */
static double recheck_stopping(int nsessions, double next) {
  for (int i = 0; i < nsessions; i++) {
    wt_session *s = wt_rt.sessions[i];
    if (s && atomic_load_explicit(&s->state, memory_order_acquire) == WT_SESSION_STOPPING &&
        !s->enc.footer_written && next > wt_platform_now_us() + 2000.0)
      next = wt_platform_now_us() + 2000.0;
  }
  return next;
}

/* ---- encode ---------------------------------------------------------------- */

/* Encodes one step of at most `max_batch` samples (and events) of a session
 * if it is due (or `burst`: it was due earlier and still has a backlog).
 * Returns 1 if it did work. */
static int encode_session(wt_session *s, double now, int burst, size_t max_batch) {
  int st = atomic_load_explicit(&s->state, memory_order_acquire);
  if (st != WT_SESSION_RUNNING && st != WT_SESSION_STOPPING) return 0;
  if (s->enc.footer_written) return 0;
  int stopping = st == WT_SESSION_STOPPING;
  size_t quota = wt_session_encode_ready(s, max_batch);
  if (!quota) return 0;
  int has_data = s->rec.samples.count > 0 || s->rec.events.count > 0;
  int stale = has_data && now - s->enc.last_encode_us >= ENCODE_AFTER_US;
  int filling = s->rec.samples.count * 100 >= s->rec.samples.cap * ENCODE_WHEN_FULL_PCT;
  if (!burst && !stopping && !stale && !filling) return 0;
  int final = stopping && s->rec.samples.count <= quota && s->rec.events.count <= quota;
  return wt_session_encode(s, now, quota, final);
}

/* Samples (and events) the next step may take: as many as the time left
 * before the deadline, less the margin, fits at the measured cost, within
 * [ENCODE_MIN_SLICE, ENCODE_MAX_SLICE]. */
static size_t slice_for(const worker_state *ws, double left_us) {
  if (ws->us_per_item <= 0) return ENCODE_MIN_SLICE; /* not measured yet */
  double n = (left_us - ENCODE_MARGIN_US) / ws->us_per_item;
  if (n < ENCODE_MIN_SLICE) return ENCODE_MIN_SLICE;
  if (n > ENCODE_MAX_SLICE) return ENCODE_MAX_SLICE;
  return (size_t)n;
}

/* Learns the cost of one item from a step that encoded `items` in `us`. */
static void note_step(worker_state *ws, size_t items, double us) {
  if (items < ENCODE_MIN_SLICE / 2) return; /* too few to tell the cost */
  double cost = us / (double)items;
  ws->us_per_item = ws->us_per_item > 0 ? 0.75 * ws->us_per_item + 0.25 * cost : cost;
}

/* Encodes in steps sized to the time left before `next`. A session that
 * was due keeps encoding its backlog, step after step and iteration after
 * iteration, while at least a smallest step of it is left (the rest waits
 * until the session is due again: many tiny steps would cost more than
 * they encode). In an iteration, steps go on while a smallest step still
 * fits before the deadline; one step is always allowed, so that output
 * keeps moving even when the period is shorter than the margin (it then
 * costs some lateness, which the benchmarks measure). */
static void encode_phase(worker_state *ws, int nsessions, double next) {
  int steps = 0;
  for (int work = 1; work;) {
    work = 0;
    for (int i = 0; i < nsessions; i++) {
      wt_session *s = wt_rt.sessions[i];
      if (!s || !active(s)) continue;
      double t = wt_platform_now_us();
      if (steps > 0 && next - t < ENCODE_MARGIN_US + ENCODE_MIN_SLICE * ws->us_per_item) return;
      size_t pending = s->rec.samples.count + s->rec.events.count;
      if (pending < ENCODE_MIN_SLICE) ws->bursting[i] = 0; /* no tiny steps */
      if (encode_session(s, t, ws->bursting[i], slice_for(ws, next - t))) {
        work = 1;
        steps++;
        size_t left = s->rec.samples.count + s->rec.events.count;
        ws->bursting[i] = left >= ENCODE_MIN_SLICE;
        note_step(ws, pending > left ? pending - left : 0, wt_platform_now_us() - t);
      }
    }
  }
}

/* ---- sleep ----------------------------------------------------------------- */

/* The shortest recorder period (e.g. sampling) of the running sessions, 0
 * if none has one. */
static double shortest_period(int nsessions) {
  double p = 0;
  for (int i = 0; i < nsessions; i++) {
    wt_session *s = wt_rt.sessions[i];
    if (!wt_session_running(s)) continue;
    double q = wt_recorders_period(s);
    if (q > 0 && (p == 0 || q < p)) p = q;
  }
  return p;
}

static double sleep_phase(worker_state *ws, int nsessions, double next, uint32_t wake_seen) {
  return wt_sleeper_sleep(&ws->sleeper, shortest_period(nsessions), next, &wt_rt.wake, wake_seen);
}

/* ---- the thread ------------------------------------------------------------ */

/* Since the iteration read the table (`hold`: hold_seq before the count,
 * `nsessions`: the count), no session was added and no startup batch
 * began. */
static int table_unchanged(uint32_t hold, int nsessions) {
  return atomic_load_explicit(&wt_rt.hold_seq, memory_order_acquire) == hold &&
         atomic_load_explicit(&wt_rt.session_count, memory_order_acquire) == nsessions;
}

void *wt_worker_main(void *arg) {
  (void)arg;
  atomic_store_explicit(&wt_rt.worker_started_us, wt_platform_now_us(), memory_order_relaxed);
  wt_registry_exclude_self();
  /* Its state is static (there is one worker at a time), so that it starts
   * whatever the heap: nothing here can fail for lack of memory (the
   * recorders' buffers, e.g. the stack snapshot, grow on demand). */
  static worker_state ws_storage;
  worker_state *ws = &ws_storage;
  memset(ws, 0, sizeof *ws);

  while (!atomic_load_explicit(&wt_rt.shutdown, memory_order_acquire)) {
    uint32_t wake_seen = atomic_load_explicit(&wt_rt.wake, memory_order_acquire);
    wt_recorders_before_table(); /* e.g. the heap's sampling interval (heap.h) */
    double woke = wt_platform_now_us();
    double now = ceil(woke); /* whole us, like the tick time below */
    /* hold_seq, the count, hold_seq again: the table holds no part of a
     * startup batch if hold_seq was even and did not move (a batch session
     * in the count would make the second read odd or later). */
    uint32_t hold = atomic_load_explicit(&wt_rt.hold_seq, memory_order_acquire);
    int nsessions = atomic_load_explicit(&wt_rt.session_count, memory_order_acquire);
    int whole = !(hold & 1) && atomic_load_explicit(&wt_rt.hold_seq, memory_order_acquire) == hold;

    adopt_phase(nsessions, now, whole);
    wt_server_poll(nsessions); /* diagnostic server: stops asked for off the main thread */
    /* The tick time T (e.g. every stack snapshotted for the sessions due). */
    double t = wt_recorders_tick(wt_rt.sessions, nsessions, ceil(wt_platform_now_us()));
    if (whole && table_unchanged(hold, nsessions)) {
      wt_recorders_step(wt_rt.sessions, nsessions); /* e.g. the rings' events into the sessions */
      stop_phase(nsessions, t);
      /* Again: a session added since needs the records it could still see. */
      if (now >= ws->next_reclaim_us && table_unchanged(hold, nsessions)) {
        reclaim_phase(nsessions);
        ws->next_reclaim_us = now + RECLAIM_EVERY_US;
      }
    }
    counters_phase(nsessions, now);
    app_heap_phase(ws, nsessions, now);
    double next = next_deadline(nsessions, now);
    encode_phase(ws, nsessions, next);
    next = recheck_stopping(nsessions, next);

    double awake = wt_platform_now_us() - woke;
    awake += sleep_phase(ws, nsessions, next, wake_seen); /* a spin is CPU too */
    atomic_fetch_add_explicit(&wt_rt.worker_busy_us, (uint64_t)awake, memory_order_relaxed);
  }
  wt_recorders_worker_exit(); /* e.g. the stack snapshot's buffers */
  memset(ws, 0, sizeof *ws);
  atomic_store_explicit(&wt_rt.worker_exited, 1, memory_order_release);
  return NULL;
}
