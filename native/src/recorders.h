/* The registry of recorders (recorder.h): the one place that names them,
 * and what the session, the worker and the API call instead of naming them.
 * Recorders run in the registry's order. */
#ifndef WT_RECORDERS_H
#define WT_RECORDERS_H

#include "recorder.h"
#include "session.h"

/* Once, as the runtime starts. */
void wt_recorders_init(void);
/* Before the session enters the table, on the thread that creates it:
 * which recorders it has (s->recorders), and the share of its memory they
 * move to its pending events (s->events_share_pct). */
void wt_recorders_prepare(wt_session *s);
/* The session is in the table and starting (api.c). Any thread. */
void wt_recorders_created(wt_session *s);
/* Worker. */
void wt_recorders_before_table(void);
void wt_recorders_adopting(wt_session *const *sessions, int n);
void wt_recorders_adopted(wt_session *s, double now);
/* The tick time (recorder.h, tick), from the time `t` it checks at. */
double wt_recorders_tick(wt_session *const *sessions, int n, double t);
/* The earlier of `next` and the running session's recorders' deadlines. */
double wt_recorders_deadline(const wt_session *s, double next);
/* The shortest period of the running session's recorders, 0 if none. */
double wt_recorders_period(const wt_session *s);
void wt_recorders_worker_exit(void);
void wt_recorders_step(wt_session *const *sessions, int n);
void wt_recorders_flush(wt_session *const *sessions, int n);
void wt_recorders_stopping(wt_session *s, double t);
void wt_recorders_counters(wt_session *s, double now);
/* Any thread (the encode step's snapshot). */
void wt_recorders_snapshot(const wt_session *s, wt_stats_rec *out);
/* Worker (an encode step). */
void wt_recorders_write_stats(const wt_encode_view *v, wt_json *j);
/* The final step's spans: the sets with any, into sets; returns how many. */
size_t wt_recorders_spans(const wt_encode_view *v, wt_span_set sets[WT_RECORDERS_MAX]);

/* The record kinds (1u << WT_REC_*) the recorders of a session with
 * config c write, for the encoders' view. */
unsigned wt_recorders_record_kinds(const wt_session_config *c);

/* Recorder r's settings in config c (config.h: its keys wrote them). */
const uint32_t *wt_recorder_options(const wt_session_config *c, const wt_recorder *r);

/* Recorder r's state in session s, or NULL if s does not record it: for
 * its step and flush, which walk the sessions themselves. */
void *wt_recorder_state(wt_session *s, const wt_recorder *r);

#endif
