/* Recorders: each kind of data a session records (the CPU samples; the
 * app's own scopes, instants and counters; the built-in counters; the
 * heap; the startup timeline; ...) is one module behind this interface,
 * after the Perfetto SDK's data sources: it owns its per-session state, its
 * step in the worker's loop, its share of the session's memory, its
 * counters, its member of the trace's stats record and the spans it gives
 * every format. The session
 * (session.c, session_encode.c), the worker, the API and the encoders call
 * recorders through the registry (recorders.h) and name none of them; a new
 * kind of data is its own module and one line in the registry.
 *
 * Every hook may be NULL. `state` is the recorder's own per-session state:
 * WT_RECORDER_STATE_MAX bytes inside the session, zeroed when the session is
 * created, aligned for 64-bit atomics; the session's memory is its memory.
 * Hooks marked "worker" run on wasmtrace's worker only, one at a time. */
#ifndef WT_RECORDER_H
#define WT_RECORDER_H

#include <stdint.h>

#include "config.h"
#include "encoder.h"
#include "json.h"

#define WT_RECORDER_STATE_MAX 64 /* bytes of per-session state a recorder may keep */

struct wt_session;

typedef struct wt_recorder {
  const char *name;
  /* Its session keys and their readers (config.h), ended by a NULL key;
   * NULL: none. What they read it finds in wt_recorder_options. */
  const wt_config_key *keys;
  /* Record kinds it writes to the session's events (1u << WT_REC_*):
   * an encoder gives each kind its part of the format. */
  unsigned record_kinds;
  /* Once, as the runtime starts (before any session): interns the names
   * and categories it records under (registry.h). */
  void (*init)(void);
  /* Whether a session with this config records it (its config key or
   * category). A recorder a session does not record gets no other call
   * for that session (but adopting, tick, step and flush, which see every
   * session and check for themselves). */
  int (*wanted)(const wt_session_config *c);
  /* Percent of the session's memory limit it moves from the pending
   * samples' share to the pending events' (its records wait there). */
  unsigned events_share_pct;
  /* The session is in the session table (api.c): any thread, once. */
  void (*created)(struct wt_session *s, void *state);
  /* Each worker iteration, before it adopts the sessions starting (it may
   * adopt none): what the sessions running tell those it adopts (e.g. the
   * sampling grid they join). Sees every session. Worker. */
  void (*adopting)(struct wt_session *const *sessions, int n);
  /* The worker adopts the session at `now` (whole us): it records from now
   * on. Worker. */
  void (*adopted)(struct wt_session *s, void *state, double now);
  /* Each worker iteration, before it reads the session table. Worker. */
  void (*before_table)(void);
  /* Each worker iteration, after the adopt phase: the time-critical reading
   * of the sessions due at `t` (whole us), e.g. one snapshot of every
   * stack. Returns the tick time: `t` if none was due, else the time its
   * readings are stamped with (at or after `t`); none of its sessions is
   * due at the time it returns. The worker stops sessions at that time, so
   * that no due reading is left before a stop. Sees every session; one
   * recorder ticks today (the CPU samples), and a second would be handed
   * the first's time. Worker. */
  double (*tick)(struct wt_session *const *sessions, int n, double t);
  /* When the running session next needs the worker (its next tick), in
   * us of the shared clock; the worker sleeps until the earliest. Worker. */
  double (*deadline)(const struct wt_session *s, const void *state);
  /* Its steady period for the running session in us (0: none): the
   * worker's sleep spins for the shortest (worker_sleep.h). Worker. */
  double (*period)(const struct wt_session *s, const void *state);
  /* Each worker iteration whose table read is whole (no startup batch
   * half-added): moves what it gathered into the running sessions. `flush`
   * is the same before a session stops, so that it keeps what came before
   * its stop. Worker. */
  void (*step)(struct wt_session *const *sessions, int n);
  void (*flush)(struct wt_session *const *sessions, int n);
  /* The session stops at `t` (its tick time), after the flush: what it
   * left unfinished ends there. Worker. */
  void (*stopping)(struct wt_session *s, void *state, double t);
  /* At each of the session's counter times (config "counters"): records
   * its counters (wt_session_record_event), in the registry's order.
   * Worker. */
  void (*counters)(struct wt_session *s, void *state, double now);
  /* Its figures for the stats record, copied when an encode step begins
   * (any order; its write_stats reads them back). */
  void (*snapshot)(const struct wt_session *s, const void *state, uint64_t out[WT_RECORDER_STATS_MAX]);
  /* Writes its member(s) of the trace's stats record, each with its
   * leading comma, from the snapshot. Worker (an encode step). */
  void (*write_stats)(const wt_encode_view *v, const uint64_t stats[WT_RECORDER_STATS_MAX], wt_json *j);
  /* On the final step: the spans it gives the encoders (set->n 0: none).
   * Worker. */
  void (*spans)(const wt_encode_view *v, wt_span_set *set);
  /* The worker ends (the runtime shuts down): gives back what its worker
   * hooks kept across sessions. Worker. */
  void (*worker_exit)(void);
} wt_recorder;

/* Whether a span of a process-wide table (span_table.h) is the session's:
 * one started before main() takes every span that began before it stopped,
 * a later one those that began while it recorded. */
static inline int wt_recorder_span_wanted(const wt_encode_view *v, const wt_span *p) {
  double until = v->stop_us > 0 ? v->stop_us : v->start_us;
  if (p->begin_us > until) return 0;
  return v->before_main || p->begin_us >= v->start_us;
}

#endif
