/* A session's encoding (the record's `enc`): one step of its encoder over
 * the pending samples and events, the flush points that make a file cut
 * short readable, the stats record every format writes, and the end of
 * the output. The worker decides when (worker.c, encode_phase) and calls
 * wt_session_encode_ready, then wt_session_encode; nothing else drives an
 * encoder. */
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "json.h"
#include "mem.h"
#include "platform.h"
#include "recorders.h"
#include "session.h"
#include "symbols.h"

size_t wt_session_encode_quota(wt_session *s, size_t max_batch) {
  /* Keep half of the output budget free for what one step produces: at
   * most ~64 bytes of output per sample (JSON of the sample, its share of
   * new stack nodes, gzip's worst case), measured upper bound. */
  uint64_t in_flight = wt_outq_in_flight(&s->out);
  if (in_flight * 2 > s->rec.budget_out) return 0;
  size_t quota = (s->rec.budget_out / 2 - (size_t)in_flight) / 64;
  if (quota < 16) quota = 16;
  return quota < max_batch ? quota : max_batch;
}

/* Sorts the k oldest pending samples by thread (counting sort, keeping
 * time order): order[] gets ring positions, group[t] where thread t starts. */
static size_t sort_batch(wt_session *s, size_t k, uint32_t group[WT_MAX_THREADS + 1]) {
  if (k > s->rec.samples.count) k = s->rec.samples.count;
  if (k > s->rec.sort_cap) k = s->rec.sort_cap; /* scratch could not grow */
  memset(group, 0, (WT_MAX_THREADS + 1) * sizeof *group);
  const wt_sample *base = (const wt_sample *)s->rec.samples.data;
  size_t head = s->rec.samples.head, cap = s->rec.samples.cap;
  for (size_t i = 0; i < k; i++) group[base[(head + i) % cap].thread + 1]++;
  for (int t = 0; t < WT_MAX_THREADS; t++) group[t + 1] += group[t];
  uint32_t pos[WT_MAX_THREADS];
  memcpy(pos, group, sizeof pos);
  for (size_t i = 0; i < k; i++) {
    uint32_t at = (uint32_t)((head + i) % cap);
    s->rec.sort_tmp[pos[base[at].thread]++] = at;
  }
  return k;
}

/* The threads' names as they are now, for the encoder's view. */
static uint32_t snapshot_threads(wt_session *s) {
  uint32_t n = wt_registry_count();
  if (n > WT_MAX_THREADS) n = WT_MAX_THREADS;
  for (uint32_t slot = 0; slot < n; slot++) {
    wt_session_thread *st = &s->rec.threads[slot];
    if (!st->seen) continue;
    wt_thread *t = wt_registry_get(slot);
    if (t) {
      wt_registry_thread_name(t, st->name);
      /* A thread registered as it started, still unnamed by the app, is
       * named after its start routine too: "pthread 3 (decoder_main)". */
      uint32_t start = wt_registry_thread_start(t);
      size_t len = strlen(st->name);
      if (start && len + 4 < sizeof st->name) {
        /* " (routine)", cut whole characters first and ")" kept. */
        char routine[WT_THREAD_NAME_MAX];
        wt_json_utf8_copy(routine, sizeof st->name - len - 3, wt_symbols_function_name(start - 1));
        wt_snprintf(st->name + len, sizeof st->name - len, " (%s)", routine);
      }
    } else {
      wt_snprintf(st->name, sizeof st->name, "thread %u", (unsigned)slot);
    }
    st->is_main = t && t->is_main;
  }
  return n;
}

wt_status wt_session_encode_step(wt_session *s, size_t max_batch, int final) {
  if (s->enc.footer_written) return WT_OK;
  if (!s->enc.encoder || !s->enc.encoder_sink || !s->rec.threads) return WT_ERR_INVALID_ARG;
  uint32_t group[WT_MAX_THREADS + 1];
  wt_encode_view v = {
      .config = &s->config,
      .record_kinds = wt_recorders_record_kinds(&s->config),
      .start_us = s->start_us,
      .stop_us = s->stop_us,
      .before_main = s->before_main,
      .final = final,
      .nodes = s->rec.nodes,
      .node_count = s->rec.node_count,
      .node_cap = s->rec.node_cap,
      .threads = s->rec.threads,
      .nthreads = snapshot_threads(s),
      .samples = (const wt_sample *)s->rec.samples.data,
      .order = s->rec.sort_tmp,
      .group = group,
      .events = &s->rec.events,
      .retain_sample_bytes = s->rec.retain_sample_bytes,
      .retain_event_bytes = s->rec.retain_event_bytes,
  };
  /* The final step finishes on the reserve taken at start, whatever the
   * heap can still give. */
  if (final) wt_session_release_reserve(s);
  v.nsamples = sort_batch(s, final ? s->rec.samples.count : max_batch, group);
  v.nevents = final || s->rec.events.count < max_batch ? s->rec.events.count : max_batch;
  wt_session_stats_snapshot(s, &v.stats);
  static wt_span_set spans[WT_RECORDERS_MAX]; /* worker only, one step at a time */
  if (final) {
    v.nspans = wt_recorders_spans(&v, spans);
    v.spans = spans;
  }

  wt_encode_tally t = {.retained_bytes = s->enc.encoder_retained};
  wt_status st = s->enc.encoder->step(&s->enc.encoder_state, &v, &s->enc.json, &t);
  if (t.alloc_failures) wt_session_note_no_memory(s, t.alloc_failures);
  /* Nothing of the batch was taken: it waits for the final step, which
   * has the reserve. */
  if (st == WT_ERR_NO_MEMORY && !final) return WT_OK;

  /* The batch is consumed whatever happened: this session alone counts it. */
  wt_ring_drop(&s->rec.samples, v.nsamples);
  wt_ring_drop(&s->rec.events, v.nevents);
  uint64_t dropped = t.samples_dropped < v.nsamples ? t.samples_dropped : v.nsamples;
  atomic_fetch_add_explicit(&s->samples_written, v.nsamples - dropped, memory_order_relaxed);
  atomic_fetch_add_explicit(&s->samples_dropped_full, dropped, memory_order_relaxed);
  atomic_fetch_add_explicit(&s->events_written, t.events_written, memory_order_relaxed);
  atomic_fetch_add_explicit(&s->events_dropped, t.events_dropped, memory_order_relaxed);
  s->enc.encoder_retained = t.retained_bytes;
  if (st == WT_OK) st = wt_json_flush(&s->enc.json);
  wt_session_note_memory(s);
  if (st != WT_OK || !final) return st;
  atomic_store_explicit(&s->bytes_encoded, s->enc.encoder_sink->bytes_in, memory_order_relaxed);
  s->enc.footer_written = 1;
  return wt_sink_close(s->enc.encoder_sink);
}

const char *wt_encode_frame_name(uint32_t frame) {
  switch (frame) {
    case WT_NODE_ROOT: return "(root)";
    case WT_NODE_IDLE: return "(idle)";
    case WT_NODE_TRUNCATED: return "(truncated)";
    case WT_NODE_PARTIAL: return "(partial stack)";
    case WT_NODE_WAITING: return "(waiting)";
    default: break;
  }
  if (frame & WT_FRAME_SCOPE_BIT) {
    const char *name = wt_registry_scope_name(frame);
    return name ? name : "(unknown scope)";
  }
  return wt_symbols_function_name(frame);
}

const uint32_t *wt_node_chain(const wt_encode_view *v, uint32_t id, int skip_root,
                              int (*stop)(const void *ctx, uint32_t node), const void *ctx,
                              uint32_t buf[WT_NODE_CHAIN_MAX], int *n, uint32_t *above) {
  uint32_t *at = buf + WT_NODE_CHAIN_MAX;
  while (id && at > buf && !(stop && stop(ctx, id)) &&
         !(skip_root && v->nodes[id - 1].frame == WT_NODE_ROOT)) {
    *--at = id;
    id = v->nodes[id - 1].parent;
  }
  *n = (int)(buf + WT_NODE_CHAIN_MAX - at);
  if (above) *above = id;
  return at;
}

uint64_t wt_session_lateness_percentile(const wt_session *s, unsigned pct) {
  return wt_grid_lateness_percentile(&s->grid, pct);
}

#define FLUSH_EVERY_BYTES (64 * 1024)
#define FLUSH_EVERY_US 1000000.0
/* A streamed session flushes ten times as often: a tool sees its bytes
 * within ~100 ms (a Z_SYNC_FLUSH costs a few bytes). */
#define FLUSH_EVERY_US_STREAMED 100000.0

wt_status wt_session_flush_point(wt_session *s, double now_us) {
  uint64_t encoded = s->enc.encoder_sink->bytes_in;
  atomic_store_explicit(&s->bytes_encoded, encoded, memory_order_relaxed);
  if (encoded == s->enc.last_flush_bytes) return WT_OK;
  double every = s->stream ? FLUSH_EVERY_US_STREAMED : FLUSH_EVERY_US;
  if (encoded - s->enc.last_flush_bytes < FLUSH_EVERY_BYTES && now_us - s->enc.last_flush_us < every)
    return WT_OK;
  s->enc.last_flush_bytes = encoded;
  s->enc.last_flush_us = now_us;
  return wt_sink_flush(s->enc.encoder_sink);
}

void wt_session_stats_snapshot(const wt_session *s, wt_stats_rec *o) {
  *o = (wt_stats_rec){
      .samples_taken = atomic_load(&s->samples_taken),
      .samples_written = atomic_load(&s->samples_written),
      .samples_full = atomic_load(&s->samples_dropped_full),
      .samples_torn = atomic_load(&s->samples_torn),
      .samples_partial = atomic_load(&s->samples_partial),
      .samples_waiting = atomic_load(&s->samples_waiting),
      .events_written = atomic_load(&s->events_written),
      .events_dropped = atomic_load(&s->events_dropped),
      .ticks_missed = atomic_load(&s->ticks_missed),
      .threads_dropped = wt_registry_threads_dropped(),
      .threads_seen = atomic_load(&s->threads_seen),
      .high_water = atomic_load(&s->high_water),
      .lateness_p50 = wt_session_lateness_percentile(s, 50),
      .lateness_p99 = wt_session_lateness_percentile(s, 99),
      .lateness_max_us = s->grid.lateness_max_us,
      .encode_us = s->enc.encode_us,
      .allocations_refused = atomic_load(&s->alloc_refused),
      .stopped_early_oom = atomic_load(&s->oom_stop),
      .stopped_early_app = atomic_load(&s->app_short_stop),
      .app_short_room_kib = atomic_load(&s->app_short_room_kib),
      .app_short_keep_kib = atomic_load(&s->app_short_keep_kib),
  };
  wt_recorders_snapshot(s, o);
  uint64_t busy = 0;
  if (s->host && s->host->worker_times)
    s->host->worker_times(&o->worker_created_us, &o->worker_started_us, &busy);
  o->worker_busy_us = busy - s->rec.worker_busy_at_start;
  o->threads_wrapped = s->host && s->host->threads_wrapped ? s->host->threads_wrapped() : -1;
}

void wt_encode_write_session(const wt_encode_view *v, wt_json *j) {
  const wt_session_config *c = v->config;
  static const char *const formats[] = {"chrome", "firefox", "folded"};
  wt_json_lit(j, "\"version\":\"" WT_VERSION_STRING "\",\"session\":");
  wt_json_string(j, c->name);
  wt_json_lit(j, ",\"format\":");
  wt_json_string(j, (unsigned)c->format < 3 ? formats[c->format] : "unknown");
  wt_json_lit(j, ",\"output\":");
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
  wt_json_double3(j, v->start_us);
  /* Linked without the pthread wrappers: threads register on first use,
   * and no sample is marked waiting (threads.h). Left out when unknown. */
  int wrapped = v->stats.threads_wrapped;
  if (wrapped >= 0) wt_json_lit(j, wrapped ? ",\"pthreadsWrapped\":true" : ",\"pthreadsWrapped\":false");
}

/* Its members are the trace paths of stats_list.h (tests/node/counters.test.mjs
 * checks the golden traces against the list). */
void wt_encode_write_stats(const wt_encode_view *v, const wt_encode_tally *t, wt_json *j) {
  const wt_stats_rec *r = &v->stats;
  uint64_t lost = t->samples_dropped < v->nsamples ? t->samples_dropped : v->nsamples;
  uint64_t torn = r->samples_torn, full = r->samples_full + lost;
  wt_json_lit(j, "\"samplesTaken\":");
  wt_json_u64(j, r->samples_taken);
  wt_json_lit(j, ",\"samplesWritten\":");
  wt_json_u64(j, r->samples_written + v->nsamples - lost);
  wt_json_lit(j, ",\"samplesDropped\":");
  wt_json_u64(j, torn + full);
  wt_json_lit(j, ",\"dropped\":{\"bufferFull\":");
  wt_json_u64(j, full);
  wt_json_lit(j, ",\"tornStack\":");
  wt_json_u64(j, torn);
  wt_json_lit(j, ",\"events\":");
  wt_json_u64(j, r->events_dropped + t->events_dropped);
  wt_json_lit(j, ",\"threadsNotRegistered\":");
  wt_json_u64(j, r->threads_dropped);
  /* Kept samples, not drops: only a true prefix of their stack is known. */
  wt_json_lit(j, "},\"partialStack\":");
  wt_json_u64(j, r->samples_partial);
  /* Samples whose thread was blocked in a wait (they keep their stack,
   * with a "(waiting)" leaf). */
  wt_json_lit(j, ",\"waiting\":");
  wt_json_u64(j, r->samples_waiting);
  wt_json_lit(j, ",\"eventsWritten\":");
  wt_json_u64(j, r->events_written + t->events_written);
  wt_json_lit(j, ",\"ticksMissed\":");
  wt_json_u64(j, r->ticks_missed);
  wt_json_lit(j, ",\"encodeUs\":");
  wt_json_double3(j, r->encode_us);
  wt_json_lit(j, ",\"workerCreatedUs\":");
  wt_json_double3(j, r->worker_created_us);
  wt_json_lit(j, ",\"workerStartedUs\":");
  wt_json_double3(j, r->worker_started_us);
  wt_json_lit(j, ",\"workerBusyUs\":");
  wt_json_u64(j, r->worker_busy_us);
  wt_json_lit(j, ",\"samplerLatenessUs\":{\"p50Below\":");
  wt_json_u64(j, r->lateness_p50);
  wt_json_lit(j, ",\"p99Below\":");
  wt_json_u64(j, r->lateness_p99);
  wt_json_lit(j, ",\"max\":");
  wt_json_double3(j, r->lateness_max_us);
  wt_json_lit(j, "},\"threads\":");
  wt_json_u64(j, r->threads_seen);
  wt_json_lit(j, ",\"startTimeUs\":");
  wt_json_double3(j, v->start_us);
  wt_json_lit(j, ",\"stopTimeUs\":");
  wt_json_double3(j, v->stop_us);
  wt_json_lit(j, ",\"bufferHighWaterBytes\":");
  wt_json_u64(j, r->high_water);
  /* Only when memory ran out (outputs without it stay as they were). */
  if (r->allocations_refused || r->stopped_early_oom || t->alloc_failures) {
    wt_json_lit(j, ",\"allocationsRefused\":");
    wt_json_u64(j, r->allocations_refused + t->alloc_failures);
  }
  if (r->stopped_early_oom) {
    wt_json_lit(j, ",\"stoppedEarly\":\"out of memory\"");
  } else if (r->stopped_early_app) {
    char why[WT_APP_SHORT_TEXT_MAX];
    wt_app_short_text(why, sizeof why, r->app_short_room_kib, r->app_short_keep_kib);
    wt_json_lit(j, ",\"stoppedEarly\":");
    wt_json_string(j, why);
  }
  wt_recorders_write_stats(v, j); /* the heap's, the startup timeline's */
  if (t->lost) {
    wt_json_lit(j, ",\"lost\":");
    wt_json_string(j, t->lost);
  }
}

size_t wt_session_encode_ready(wt_session *s, size_t max_batch) {
  wt_status setup = wt_session_setup_output(s);
  if (setup != WT_OK) {
    wt_session_fail(s, "could not set up output: %s", wt_status_str(setup));
    return 0;
  }
  /* Bounded output: wait for the main thread to write what is queued. */
  return wt_session_encode_quota(s, max_batch);
}

int wt_session_encode(wt_session *s, double now, size_t quota, int final) {
  /* The step applies its tally and closes the sink after the final one.
   * Released reserves are spent here alone (mem.h). */
  wt_mem_credit_open(1);
  wt_status rc = wt_session_encode_step(s, quota, final);
  s->enc.last_encode_us = now;
  s->enc.encode_us += wt_platform_now_us() - now;
  if (rc == WT_OK && !final) rc = wt_session_flush_point(s, now);
  wt_mem_credit_open(0);
  if (rc != WT_OK) {
    wt_session_fail(s, "encoding failed: %s", wt_status_str(rc));
    return 0;
  }
  if (final) {
    wt_session_free_buffers(s);
    s->out_finished = 1;
    wt_outq_finish(&s->out); /* the main thread may free the queue from now on */
  }
  return 1;
}

void wt_session_release_failed(wt_session *s) {
  if (s->rec.released) return;
  s->rec.released = 1;
  wt_session_free_buffers(s);
  if (atomic_load_explicit(&s->output_ready, memory_order_acquire) && !s->out_finished) {
    s->out_finished = 1;
    wt_outq_finish(&s->out);
  }
}
