/* Chrome Trace Event encoder (JSON array format, so that a file cut short
 * after a flush point still opens: readers accept a missing closing ']').
 *
 * Per thread: thread_name/thread_sort_index metadata, a "Profile" event and
 * "ProfileChunk" events carrying a cpuProfile (nodes/samples/timeDeltas;
 * DevTools and speedscope read CPU samples only from these), scopes as "X"
 * events, and at the end one "X" event spanning the sampled time (DevTools
 * gives a thread a track only if it has an X/B/E/I event). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime.h"
#include "session.h"

#define PID 1

static void event_start(wt_session *s) {
  wt_json_lit(&s->json, s->header_written ? ",\n" : "[\n");
  s->header_written = 1;
}

static int64_t us_int(double us) { return (int64_t)llround(us); }

static void write_thread_name(wt_session *s, uint16_t slot, const char *name) {
  wt_json *j = &s->json;
  event_start(s);
  wt_json_lit(j, "{\"ph\":\"M\",\"cat\":\"__metadata\",\"name\":\"thread_name\",\"pid\":1,\"tid\":");
  wt_json_u64(j, slot + 1u);
  wt_json_lit(j, ",\"ts\":0,\"args\":{\"name\":");
  wt_json_string(j, name);
  wt_json_lit(j, "}}");
}

static void announce(wt_session *s, uint16_t slot) {
  wt_session_thread *st = &s->threads[slot];
  if (st->announced) return;
  st->announced = 1;
  wt_thread *t = wt_registry_get(slot);
  if (t) wt_registry_thread_name(t, st->announced_name);
  else snprintf(st->announced_name, sizeof st->announced_name, "thread %u", (unsigned)slot);
  write_thread_name(s, slot, st->announced_name);
  wt_json *j = &s->json;
  event_start(s);
  wt_json_lit(j, "{\"ph\":\"M\",\"cat\":\"__metadata\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":");
  wt_json_u64(j, slot + 1u);
  wt_json_lit(j, ",\"ts\":0,\"args\":{\"sort_index\":");
  wt_json_u64(j, slot);
  wt_json_lit(j, "}}");
}

static void write_header(wt_session *s) {
  wt_json *j = &s->json;
  const wt_session_config *c = &s->config;
  event_start(s);
  wt_json_lit(j, "{\"ph\":\"M\",\"cat\":\"__metadata\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,"
                 "\"ts\":0,\"args\":{\"name\":");
  char name[WT_NAME_MAX + 32];
  snprintf(name, sizeof name, "wasmtrace: %s", c->name);
  wt_json_string(j, name);
  wt_json_lit(j, "}}");
  event_start(s);
  wt_json_lit(j, "{\"ph\":\"M\",\"cat\":\"__metadata\",\"name\":\"wasmtrace_session\",\"pid\":1,"
                 "\"tid\":0,\"ts\":0,\"args\":{\"version\":\"" WT_VERSION_STRING "\",\"session\":");
  wt_json_string(j, c->name);
  wt_json_lit(j, ",\"format\":\"chrome\",\"output\":");
  wt_json_string(j, c->output);
  wt_json_lit(j, ",\"samplingEnabled\":");
  wt_json_lit(j, c->sampling ? "true" : "false");
  wt_json_lit(j, ",\"intervalUs\":");
  wt_json_u64(j, c->interval_us);
  wt_json_lit(j, ",\"durationMs\":");
  wt_json_u64(j, c->duration_ms);
  wt_json_lit(j, ",\"maxBufferKB\":");
  wt_json_u64(j, c->max_buffer_kb);
  wt_json_lit(j, ",\"whenFull\":");
  wt_json_lit(j, c->when_full == WT_FULL_RING ? "\"ring\"" : "\"stop\"");
  wt_json_lit(j, ",\"categories\":[");
  for (int i = 0; i < c->category_count; i++) {
    if (i) wt_json_lit(j, ",");
    wt_json_string(j, c->categories[i]);
  }
  wt_json_lit(j, "],\"startTimeUs\":");
  wt_json_double3(j, s->start_us);
  wt_json_lit(j, "}}");
}

static void write_tid(wt_session *s, uint16_t thread) {
  wt_json_u64(&s->json, thread == WT_PROCESS_THREAD ? 0u : thread + 1u);
}

/* Scopes become X events, instants I events, counters C events. */
static void write_event(wt_session *s, const wt_event_rec *r) {
  wt_json *j = &s->json;
  int kind = WT_REC_KIND(r->kind);
  if (r->thread != WT_PROCESS_THREAD) announce(s, r->thread);
  event_start(s);
  char tmp[32];
  wt_json_lit(j, kind == WT_REC_SCOPE ? "{\"ph\":\"X\",\"cat\":" : kind == WT_REC_INSTANT ? "{\"ph\":\"I\",\"s\":\"t\",\"cat\":" : "{\"ph\":\"C\",\"cat\":");
  wt_json_string(j, wt_registry_category_name(r->cat));
  wt_json_lit(j, ",\"name\":");
  wt_json_string(j, wt_session_frame_name(r->id, tmp, sizeof tmp));
  wt_json_lit(j, ",\"pid\":1,\"tid\":");
  write_tid(s, r->thread);
  wt_json_lit(j, ",\"ts\":");
  wt_json_double3(j, r->ts_us);
  if (kind == WT_REC_SCOPE) {
    wt_json_lit(j, ",\"dur\":");
    wt_json_double3(j, r->value - r->ts_us);
    if (r->kind & WT_REC_UNFINISHED) wt_json_lit(j, ",\"args\":{\"unfinished\":true}");
    wt_session_thread *st = &s->threads[r->thread];
    if (!st->has_span || r->ts_us < st->span_lo) st->span_lo = r->ts_us;
    if (!st->has_span || r->value > st->span_hi) st->span_hi = r->value;
    st->has_span = 1;
  } else if (kind == WT_REC_COUNTER) {
    wt_json_lit(j, ",\"args\":{\"value\":");
    char num[40];
    snprintf(num, sizeof num, "%.17g", isfinite(r->value) ? r->value : 0.0);
    wt_json_lit(j, num);
    wt_json_lit(j, "}");
  }
  wt_json_lit(j, "}");
  atomic_fetch_add_explicit(&s->events_written, 1, memory_order_relaxed);
}

static void write_node(wt_session *s, uint32_t id) {
  wt_json *j = &s->json;
  const wt_node *n = &s->nodes[id - 1];
  char tmp[32];
  wt_json_lit(j, "{\"id\":");
  wt_json_u64(j, id);
  if (n->parent) {
    wt_json_lit(j, ",\"parent\":");
    wt_json_u64(j, n->parent);
  }
  wt_json_lit(j, ",\"callFrame\":{\"functionName\":");
  wt_json_string(j, wt_session_frame_name(n->frame, tmp, sizeof tmp));
  wt_json_lit(j, ",\"scriptId\":0,\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1}}");
}

/* Writes the not-yet-written ancestors of `id` and `id` itself, parents
 * first. *first tracks the comma in the enclosing array. */
static void emit_node_path(wt_session *s, uint32_t id, int *first) {
  uint32_t chain[WT_MAX_DEPTH + 8];
  int n = 0;
  while (id && !s->nodes[id - 1].emitted && n < (int)(sizeof chain / sizeof chain[0])) {
    chain[n++] = id;
    id = s->nodes[id - 1].parent;
  }
  while (n--) {
    if (!*first) wt_json_lit(&s->json, ",");
    *first = 0;
    write_node(s, chain[n]);
    s->nodes[chain[n] - 1].emitted = 1;
  }
}

/* Opens a Profile or ProfileChunk event of a thread's profile (id = tid),
 * up to and including its "ts". */
static void profile_event_start(wt_session *s, const char *name, uint16_t slot, int64_t ts) {
  wt_json *j = &s->json;
  event_start(s);
  wt_json_lit(j, "{\"ph\":\"P\",\"cat\":\"disabled-by-default-v8.cpu_profiler\",\"name\":\"");
  wt_json_lit(j, name);
  wt_json_lit(j, "\",\"id\":\"0x");
  char hex[16];
  snprintf(hex, sizeof hex, "%x", slot + 1u);
  wt_json_lit(j, hex);
  wt_json_lit(j, "\",\"pid\":1,\"tid\":");
  wt_json_u64(j, slot + 1u);
  wt_json_lit(j, ",\"ts\":");
  wt_json_i64(j, ts);
}

/* One ProfileChunk for the samples of `slot` listed in idx[0..n). */
static void write_chunk(wt_session *s, uint16_t slot, const uint32_t *idx, size_t n) {
  wt_json *j = &s->json;
  wt_session_thread *st = &s->threads[slot];
  announce(s, slot);
  const wt_sample *first = &s->samples[idx[0]];
  if (!st->profile_started) {
    st->profile_started = 1;
    st->prev_sample_us = (double)us_int(first->ts_us);
    profile_event_start(s, "Profile", slot, us_int(first->ts_us));
    wt_json_lit(j, ",\"args\":{\"data\":{\"startTime\":");
    wt_json_i64(j, us_int(first->ts_us));
    wt_json_lit(j, "}}}");
  }
  profile_event_start(s, "ProfileChunk", slot, us_int(s->samples[idx[n - 1]].ts_us));
  wt_json_lit(j, ",\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[");
  int firstnode = 1;
  for (size_t i = 0; i < n; i++) emit_node_path(s, s->samples[idx[i]].node, &firstnode);
  wt_json_lit(j, "],\"samples\":[");
  for (size_t i = 0; i < n; i++) {
    if (i) wt_json_lit(j, ",");
    wt_json_u64(j, s->samples[idx[i]].node);
  }
  wt_json_lit(j, "]},\"timeDeltas\":[");
  int64_t prev = (int64_t)st->prev_sample_us;
  for (size_t i = 0; i < n; i++) {
    int64_t t = us_int(s->samples[idx[i]].ts_us);
    if (i) wt_json_lit(j, ",");
    wt_json_i64(j, t - prev);
    prev = t;
  }
  st->prev_sample_us = (double)prev;
  wt_json_lit(j, "]}}}");
}

static void write_footer(wt_session *s) {
  wt_json *j = &s->json;
  uint32_t nthreads = wt_registry_count();
  for (uint32_t slot = 0; slot < nthreads && slot < WT_MAX_THREADS; slot++) {
    wt_session_thread *st = &s->threads[slot];
    if (!st->seen) continue;
    announce(s, (uint16_t)slot);
    char name[WT_THREAD_NAME_MAX];
    wt_thread *t = wt_registry_get(slot);
    if (t) {
      wt_registry_thread_name(t, name);
      if (strcmp(name, st->announced_name) != 0) write_thread_name(s, (uint16_t)slot, name);
    }
    if (st->root) {
      event_start(s);
      wt_json_lit(j, "{\"ph\":\"X\",\"cat\":\"wasmtrace\",\"name\":\"wasmtrace: sampled\",\"pid\":1,\"tid\":");
      wt_json_u64(j, slot + 1u);
      /* Enclose every other X of the thread: DevTools (treify) drops an
       * event that starts inside another and ends after it. */
      double lo = us_int(st->first_us), hi = us_int(st->last_us);
      if (st->has_span && st->span_lo < lo) lo = st->span_lo;
      if (st->has_span && st->span_hi > hi) hi = st->span_hi;
      wt_json_lit(j, ",\"ts\":");
      wt_json_double3(j, lo);
      wt_json_lit(j, ",\"dur\":");
      wt_json_double3(j, hi - lo);
      wt_json_lit(j, "}");
    }
  }
  event_start(s);
  wt_json_lit(j, "{\"ph\":\"M\",\"cat\":\"__metadata\",\"name\":\"wasmtrace_stats\",\"pid\":1,\"tid\":0,"
                 "\"ts\":0,\"args\":{");
  wt_session_write_stats(s, j);
  wt_json_lit(j, "}}\n]\n");
}

static wt_status chrome_step(wt_session *s, size_t max_samples, int final) {
  if (!s->header_written) write_header(s);

  /* Events first: each is complete, order does not matter to readers. */
  const wt_event_rec *r;
  for (size_t n = 0; n < max_samples && (r = wt_session_next_event(s)) != NULL; n++) write_event(s, r);
  wt_session_take_samples(s, max_samples, write_chunk);

  if (final) {
    write_footer(s);
    s->footer_written = 1;
  }
  /* Sync-flush points are the worker's business (wt_session_flush_point). */
  wt_status st = wt_json_flush(&s->json);
  if (st != WT_OK) return st;
  return final ? wt_sink_close(s->encoder_sink) : WT_OK;
}

const wt_encoder wt_encoder_chrome = {"chrome", chrome_step, NULL};
