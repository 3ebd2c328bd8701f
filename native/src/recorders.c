/* The registry of recorders (recorders.h). To add a kind of data: its
 * module (recorder.h) and one line in `all` below. */
#include "recorders.h"

extern const wt_recorder wt_recorder_samples, wt_recorder_counters, wt_recorder_heap, wt_recorder_timeline,
    wt_recorder_longtask, wt_recorder_calls, wt_recorder_events;

static const wt_recorder *const all[] = {
    &wt_recorder_samples,  /* the worker's clock: its tick time stamps every stop */
    &wt_recorder_counters, /* first with counters: they come first in each batch */
    &wt_recorder_heap,
    &wt_recorder_timeline,
    &wt_recorder_longtask,
    &wt_recorder_calls,
    &wt_recorder_events, /* last: a stop's flush drains the rings after the others' */
};
#define COUNT ((int)(sizeof all / sizeof all[0]))
_Static_assert(sizeof all / sizeof all[0] <= WT_RECORDERS_MAX, "raise WT_RECORDERS_MAX");
_Static_assert(WT_RECORDERS_MAX <= 8, "wt_session.recorders is a byte of bits");

static int has(const wt_session *s, int i) { return (s->recorders >> i) & 1; }

void wt_recorders_init(void) {
  for (int i = 0; i < COUNT; i++)
    if (all[i]->init) all[i]->init();
}

void wt_recorders_prepare(wt_session *s) {
  s->recorders = 0;
  unsigned share = 0;
  for (int i = 0; i < COUNT; i++) {
    if (all[i]->wanted && !all[i]->wanted(&s->config)) continue;
    s->recorders |= (uint8_t)(1u << i);
    share += all[i]->events_share_pct;
  }
  s->events_share_pct = share;
}

const wt_config_key *wt_config_recorder_key(int i, int *owner) {
  for (int r = 0; r < COUNT; r++) {
    for (const wt_config_key *k = all[r]->keys; k && k->key; k++) {
      if (i-- > 0) continue;
      *owner = r;
      return k;
    }
  }
  return NULL;
}

const uint32_t *wt_recorder_options(const wt_session_config *c, const wt_recorder *r) {
  static const uint32_t none[WT_RECORDER_OPTIONS];
  for (int i = 0; i < COUNT; i++)
    if (all[i] == r) return c->recorder_options[i];
  return none;
}

unsigned wt_recorders_record_kinds(const wt_session_config *c) {
  unsigned kinds = 0;
  for (int i = 0; i < COUNT; i++)
    if (!all[i]->wanted || all[i]->wanted(c)) kinds |= all[i]->record_kinds;
  return kinds;
}

void *wt_recorder_state(wt_session *s, const wt_recorder *r) {
  for (int i = 0; i < COUNT; i++)
    if (all[i] == r) return has(s, i) ? s->recorder_state[i] : NULL;
  return NULL;
}

void wt_recorders_created(wt_session *s) {
  for (int i = 0; i < COUNT; i++)
    if (has(s, i) && all[i]->created) all[i]->created(s, s->recorder_state[i]);
}

void wt_recorders_adopting(wt_session *const *sessions, int n) {
  for (int i = 0; i < COUNT; i++)
    if (all[i]->adopting) all[i]->adopting(sessions, n);
}

void wt_recorders_adopted(wt_session *s, double now) {
  for (int i = 0; i < COUNT; i++)
    if (has(s, i) && all[i]->adopted) all[i]->adopted(s, s->recorder_state[i], now);
}

double wt_recorders_tick(wt_session *const *sessions, int n, double t) {
  for (int i = 0; i < COUNT; i++)
    if (all[i]->tick) t = all[i]->tick(sessions, n, t);
  return t;
}

double wt_recorders_deadline(const wt_session *s, double next) {
  for (int i = 0; i < COUNT; i++) {
    if (!has(s, i) || !all[i]->deadline) continue;
    double d = all[i]->deadline(s, s->recorder_state[i]);
    if (d < next) next = d;
  }
  return next;
}

double wt_recorders_period(const wt_session *s) {
  double p = 0;
  for (int i = 0; i < COUNT; i++) {
    if (!has(s, i) || !all[i]->period) continue;
    double q = all[i]->period(s, s->recorder_state[i]);
    if (q > 0 && (p == 0 || q < p)) p = q;
  }
  return p;
}

void wt_recorders_worker_exit(void) {
  for (int i = 0; i < COUNT; i++)
    if (all[i]->worker_exit) all[i]->worker_exit();
}

void wt_recorders_before_table(void) {
  for (int i = 0; i < COUNT; i++)
    if (all[i]->before_table) all[i]->before_table();
}

void wt_recorders_step(wt_session *const *sessions, int n) {
  for (int i = 0; i < COUNT; i++)
    if (all[i]->step) all[i]->step(sessions, n);
}

void wt_recorders_flush(wt_session *const *sessions, int n) {
  for (int i = 0; i < COUNT; i++)
    if (all[i]->flush) all[i]->flush(sessions, n);
}

void wt_recorders_stopping(wt_session *s, double t) {
  for (int i = 0; i < COUNT; i++)
    if (has(s, i) && all[i]->stopping) all[i]->stopping(s, s->recorder_state[i], t);
}

void wt_recorders_counters(wt_session *s, double now) {
  for (int i = 0; i < COUNT; i++)
    if (has(s, i) && all[i]->counters) all[i]->counters(s, s->recorder_state[i], now);
}

void wt_recorders_snapshot(const wt_session *s, wt_stats_rec *out) {
  for (int i = 0; i < COUNT; i++)
    if (has(s, i) && all[i]->snapshot) all[i]->snapshot(s, s->recorder_state[i], out->recorder[i]);
}

void wt_recorders_write_stats(const wt_encode_view *v, wt_json *j) {
  for (int i = 0; i < COUNT; i++)
    if (all[i]->write_stats && (!all[i]->wanted || all[i]->wanted(v->config)))
      all[i]->write_stats(v, v->stats.recorder[i], j);
}

size_t wt_recorders_spans(const wt_encode_view *v, wt_span_set sets[WT_RECORDERS_MAX]) {
  size_t n = 0;
  for (int i = 0; i < COUNT; i++) {
    if (!all[i]->spans || (all[i]->wanted && !all[i]->wanted(v->config))) continue;
    sets[n] = (wt_span_set){0};
    all[i]->spans(v, &sets[n]);
    if (sets[n].n) n++;
  }
  return n;
}
