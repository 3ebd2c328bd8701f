/* The app's events recorder (recorder.h): the scopes, instants and
 * counters the app records (scope.c, the hooks' wt_scope_*, the public
 * API), which wait in each thread's ring (registry.h) until the worker
 * moves them into the running sessions that record their category and
 * began before them. A scope becomes one record when its END arrives; one
 * still open when a session stops is written unfinished, ending at the
 * stop. Events a full ring dropped are added to every running session's
 * "eventsDropped". Every session has it (its categories choose what it
 * gets). The ring's layout and the open scopes are the registry's: the
 * worker's reclaim reads them too, to know a thread's record is done. */
#include <stdatomic.h>

#include "recorder.h"
#include "registry.h"
#include "session.h"

/* Gives a record to every running session that records its category and
 * started before it began. */
static void dispatch(wt_session *const *sessions, int n, const wt_event_rec *rec) {
  for (int i = 0; i < n; i++) {
    wt_session *s = sessions[i];
    if (!wt_session_running(s) || rec->ts_us < s->start_us) continue;
    if (!((atomic_load_explicit(&s->cat_mask, memory_order_relaxed) >> rec->cat) & 1)) continue;
    wt_session_record_event(s, rec);
  }
}

/* Moves events from every thread's ring into the running sessions: scopes
 * complete when their END arrives; instants and counters at once. */
static void drain(wt_session *const *sessions, int n) {
  uint32_t nthreads = wt_registry_count();
  for (uint32_t slot = 0; slot < nthreads; slot++) {
    wt_thread *t = wt_registry_get(slot);
    if (!t) continue;
    uint64_t dropped = atomic_load_explicit(&t->ring_dropped, memory_order_relaxed);
    if (dropped != t->dropped_seen) {
      for (int i = 0; i < n; i++) {
        if (wt_session_running(sessions[i]))
          atomic_fetch_add_explicit(&sessions[i]->events_dropped, dropped - t->dropped_seen, memory_order_relaxed);
      }
      t->dropped_seen = dropped;
    }
    uint32_t r = atomic_load_explicit(&t->ring_read, memory_order_relaxed);
    uint32_t w = atomic_load_explicit(&t->ring_write, memory_order_acquire);
    for (; r != w; r++) {
      const wt_event *e = &t->ring[r & (WT_RING_CAPACITY - 1)];
      uint32_t info = e->info, depth = WT_EVENT_DEPTH(info);
      wt_event_rec rec = {.ts_us = e->ts_us, .value = e->value, .id = e->id,
                          .thread = (uint16_t)slot, .cat = (uint8_t)WT_EVENT_CAT(info)};
      if (info & WT_EVENT_GAP) {
        /* Events were lost before this one: pairs that straddle the gap
         * cannot be trusted. */
        for (uint32_t d = 0; d < WT_MAX_DEPTH; d++) t->open[d].id = 0;
      }
      switch (WT_EVENT_KIND(info)) {
        case WT_EVENT_BEGIN:
          if (depth < WT_MAX_DEPTH)
            t->open[depth] = (wt_open_scope){.begin_us = e->ts_us, .id = e->id, .cat = rec.cat};
          break;
        case WT_EVENT_END:
          if (depth < WT_MAX_DEPTH && t->open[depth].id) {
            rec.ts_us = t->open[depth].begin_us;
            rec.value = e->ts_us;
            rec.id = t->open[depth].id;
            rec.cat = (uint8_t)t->open[depth].cat;
            rec.kind = WT_REC_SCOPE;
            t->open[depth].id = 0;
            dispatch(sessions, n, &rec);
          }
          break;
        case WT_EVENT_INSTANT:
          rec.kind = WT_REC_INSTANT;
          dispatch(sessions, n, &rec);
          break;
        case WT_EVENT_COUNTER:
          rec.kind = WT_REC_COUNTER;
          dispatch(sessions, n, &rec);
          break;
        default:
          break;
      }
    }
    atomic_store_explicit(&t->ring_read, r, memory_order_release);
  }
}

/* The scopes still open on every thread when the session stops at `t`
 * (after the flush): written as unfinished, ending at `t`. */
static void stopping(wt_session *s, void *state, double t) {
  (void)state;
  uint64_t mask = atomic_load_explicit(&s->cat_mask, memory_order_relaxed);
  uint32_t nthreads = wt_registry_count();
  for (uint32_t slot = 0; slot < nthreads; slot++) {
    wt_thread *th = wt_registry_get(slot);
    if (!th) continue;
    for (uint32_t d = 0; d < WT_MAX_DEPTH; d++) {
      const wt_open_scope *o = &th->open[d];
      if (!o->id || o->begin_us < s->start_us || !((mask >> o->cat) & 1)) continue;
      wt_event_rec rec = {.ts_us = o->begin_us, .value = t, .id = o->id, .thread = (uint16_t)slot,
                          .kind = WT_REC_SCOPE | WT_REC_UNFINISHED, .cat = (uint8_t)o->cat};
      wt_session_record_event(s, &rec);
    }
  }
}

const wt_recorder wt_recorder_events = {
    .name = "events",
    .record_kinds = 1u << WT_REC_SCOPE | 1u << WT_REC_INSTANT | 1u << WT_REC_COUNTER,
    .step = drain,
    .flush = drain,
    .stopping = stopping,
};
