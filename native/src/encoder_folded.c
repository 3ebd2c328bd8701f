/* Folded (collapsed) stacks encoder, for flamegraph.pl, inferno and
 * speedscope:
 *
 *   main;parse_config;tokenize 42
 *
 * One line per distinct stack per thread: the thread's name, then the
 * frames from outermost to innermost (the "(root)" pseudo frame left out),
 * then a space and the number of samples. An idle sample is
 * "<thread>;(idle)". Lines are grouped by thread (registration order) and,
 * within a thread, in the order each stack was first sampled.
 *
 * Names: the format has no quoting, so each thread and frame name is
 * rewritten: ';' (the separator) becomes ':', every control character
 * (U+0000..U+001F and U+007F: newlines, tabs, ...) becomes a space, bytes
 * that are not valid UTF-8 become U+FFFD, and an empty name becomes
 * "(unnamed)". Spaces are kept: readers take the count after the last one.
 *
 * The last line is a comment with the session's stats (drops and why),
 * "# wasmtrace ...". It ends with ')' rather than a number, so readers that
 * skip lines without a trailing count (speedscope, flamegraph.pl, inferno)
 * ignore it. Scopes appear as frames of the stacks; instants and counters
 * have no place in this format and are counted in that comment only.
 *
 * Memory: one sample count per call-tree node (4 bytes a node), kept until
 * the end. The first step gives a fifth of the session's node share to these
 * counts (the node table keeps four fifths), so nodes and counts together
 * stay inside it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

typedef struct fd_state {
  uint32_t *counts; /* node id -> samples */
  uint32_t cap;     /* entries of counts */
  uint64_t events_skipped;
  int oom;
} fd_state;

static fd_state *state_get(wt_session *s) {
  if (s->encoder_state) return s->encoder_state;
  fd_state *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  /* Nodes cost sizeof(wt_node) plus two hash slots; a count adds 4 bytes. */
  size_t node_bytes = sizeof(wt_node) + 2 * sizeof(uint32_t);
  s->budget_nodes = s->budget_nodes * node_bytes / (node_bytes + sizeof(uint32_t));
  s->encoder_state = f;
  return f;
}

static void fd_free(wt_session *s) {
  fd_state *f = s->encoder_state;
  if (!f) return;
  free(f->counts);
  free(f);
  s->encoder_state = NULL;
}

static void note_memory(wt_session *s, const fd_state *f) {
  size_t m = wt_session_memory(s) + (size_t)f->cap * sizeof(uint32_t);
  if (m > atomic_load_explicit(&s->high_water, memory_order_relaxed))
    atomic_store_explicit(&s->high_water, (uint32_t)m, memory_order_relaxed);
}

static void count_samples(wt_session *s, uint16_t slot, const uint32_t *idx, size_t n) {
  (void)slot;
  fd_state *f = s->encoder_state;
  if (f->cap <= s->node_count) {
    uint32_t cap = f->cap ? f->cap : 1024;
    while (cap <= s->node_count) cap *= 2;
    uint32_t *counts = realloc(f->counts, (size_t)cap * sizeof *counts);
    if (!counts) {
      f->oom = 1;
      return;
    }
    memset(counts + f->cap, 0, (size_t)(cap - f->cap) * sizeof *counts);
    f->counts = counts;
    f->cap = cap;
  }
  for (size_t i = 0; i < n; i++) f->counts[s->samples[idx[i]].node]++;
}

/* Appends a name with the rewriting rules of the header comment. */
static void write_name(wt_json *out, const char *name) {
  const unsigned char *p = (const unsigned char *)name;
  size_t n = strlen(name);
  if (!n) {
    wt_json_raw(out, "(unnamed)", 9);
    return;
  }
  size_t i = 0, run = 0;
  while (i < n) {
    unsigned c = p[i];
    const char *rep = NULL;
    size_t len = 1;
    if (c == ';') rep = ":";
    else if (c < 0x20 || c == 0x7f) rep = " ";
    else if (c >= 0x80 && (len = wt_json_utf8_len(p + i, n - i)) == 0) {
      rep = "\xef\xbf\xbd"; /* U+FFFD */
      len = 1;
    }
    if (rep) {
      if (run) wt_json_raw(out, (const char *)p + i - run, run);
      run = 0;
      wt_json_raw(out, rep, strlen(rep));
    } else {
      run += len;
    }
    i += len;
  }
  if (run) wt_json_raw(out, (const char *)p + n - run, run);
}

/* Writes the line of node `id` (a stack of thread `thread_name`). */
static void write_line(wt_session *s, const char *thread_name, uint32_t id, uint32_t count) {
  wt_json *j = &s->json;
  uint32_t chain[WT_MAX_DEPTH + 8];
  int n = 0;
  for (uint32_t at = id; at && n < (int)(sizeof chain / sizeof chain[0]); at = s->nodes[at - 1].parent)
    if (s->nodes[at - 1].frame != WT_NODE_ROOT) chain[n++] = at;
  write_name(j, thread_name);
  while (n--) {
    char tmp[64];
    wt_json_raw(j, ";", 1);
    write_name(j, wt_session_frame_name(s->nodes[chain[n] - 1].frame, tmp, sizeof tmp));
  }
  char num[16];
  int len = snprintf(num, sizeof num, " %u\n", (unsigned)count);
  wt_json_raw(j, num, (size_t)len);
}

static void write_all(wt_session *s, fd_state *f) {
  wt_json *j = &s->json;
  uint32_t nthreads = wt_registry_count();
  uint64_t lines = 0;
  for (uint32_t slot = 0; slot < nthreads && slot < WT_MAX_THREADS; slot++) {
    if (!s->threads[slot].root) continue; /* never sampled */
    char name[WT_THREAD_NAME_MAX];
    wt_thread *t = wt_registry_get(slot);
    if (t) wt_registry_thread_name(t, name);
    else snprintf(name, sizeof name, "thread %u", (unsigned)slot);
    for (uint32_t id = 1; id <= s->node_count && id < f->cap; id++) {
      if (!f->counts[id] || s->nodes[id - 1].thread != slot) continue;
      if (s->nodes[id - 1].frame == WT_NODE_ROOT) {
        /* Samples of a thread whose call tree was full before it had a
         * node: they show as the thread alone. */
        write_name(j, name);
        char num[16];
        int len = snprintf(num, sizeof num, " %u\n", (unsigned)f->counts[id]);
        wt_json_raw(j, num, (size_t)len);
      } else {
        write_line(s, name, id, f->counts[id]);
      }
      lines++;
    }
  }
  uint64_t torn = atomic_load(&s->samples_torn), full = atomic_load(&s->samples_dropped_full);
  char stats[512];
  snprintf(stats, sizeof stats,
           "# wasmtrace " WT_VERSION_STRING " folded: %llu stacks; samples taken %llu, written %llu, "
           "dropped %llu (buffer full %llu, stack changed during every copy %llu); sampler ticks "
           "missed %llu; threads not registered %llu; events not representable here %llu, "
           "dropped %llu; interval %u us (session ",
           (unsigned long long)lines, (unsigned long long)atomic_load(&s->samples_taken),
           (unsigned long long)atomic_load(&s->samples_written),
           (unsigned long long)(torn + full), (unsigned long long)full, (unsigned long long)torn,
           (unsigned long long)atomic_load(&s->ticks_missed),
           (unsigned long long)wt_registry_threads_dropped(),
           (unsigned long long)f->events_skipped,
           (unsigned long long)atomic_load(&s->events_dropped), (unsigned)s->config.interval_us);
  wt_json_lit(j, stats);
  write_name(j, s->config.name);
  wt_json_lit(j, ")\n");
}

static wt_status fd_step(wt_session *s, size_t max_samples, int final) {
  fd_state *f = state_get(s);
  if (!f) return WT_ERR_NO_MEMORY;
  for (size_t n = 0; (final || n < max_samples) && wt_session_next_event(s); n++) f->events_skipped++;
  wt_session_take_samples(s, final ? s->sample_count : max_samples, count_samples);
  if (f->oom) return WT_ERR_NO_MEMORY;
  note_memory(s, f);
  if (!final) return WT_OK;

  write_all(s, f);
  s->header_written = 1;
  s->footer_written = 1;
  wt_status st = wt_json_flush(&s->json);
  atomic_store_explicit(&s->bytes_encoded, s->encoder_sink->bytes_in, memory_order_relaxed);
  if (st != WT_OK) return st;
  return wt_sink_close(s->encoder_sink);
}

const wt_encoder wt_encoder_folded = {"folded", fd_step, fd_free};
