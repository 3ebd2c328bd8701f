/* Folded (collapsed) stacks encoder, for flamegraph.pl, inferno and
 * speedscope:
 *
 *   main;parse_config;tokenize 42
 *
 * One line per distinct stack per thread: the thread's name, then the
 * frames from outermost to innermost (the "(root)" pseudo frame left out),
 * then a space and the number of samples. An idle sample is
 * "<thread>;(idle)"; a sample of a thread blocked in a wait keeps its stack
 * and ends in a "(waiting)" marker frame. Lines are grouped by thread (registration order) and,
 * within a thread, in the order each stack was first sampled.
 *
 * Names: the format has no quoting, so each thread and frame name is
 * rewritten: ';' (the separator) becomes ':', every control character
 * (U+0000..U+001F and U+007F: newlines, tabs, ...) and the Unicode line
 * and paragraph separators U+2028 and U+2029 (speedscope ends a line at
 * them) become a space, bytes
 * that are not valid UTF-8 become U+FFFD, and an empty name becomes
 * "(unnamed)". Spaces are kept: readers take the count after the last one.
 *
 * The last line is a comment holding one JSON object, the machine-readable
 * record the other formats carry too:
 *
 *   # wasmtrace {"version":...,"format":"folded",...,"stats":{...}}
 *
 * with the members of chrome's "wasmtrace_session" metadata, and "stats"
 * with those of its "wasmtrace_stats" plus "eventsNotRepresentable" (the
 * instants and counters, which have no place in this format). It ends with
 * '}' rather than a number, so readers that skip lines without a trailing
 * count (speedscope, flamegraph.pl, inferno) ignore it. Scopes appear as
 * frames of the stacks.
 *
 * Memory: one sample count per call-tree node of capacity (4 bytes a
 * node), kept until the end, declared to the session as bits per node: the
 * session's node share covers nodes and counts together. Its state besides
 * is a few bytes (state_bytes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encoder.h"
#include "fmt.h"
#include "mem.h"

typedef struct fd_state {
  uint32_t *counts; /* samples of node id n at counts[n - 1] */
  uint32_t cap;     /* entries of counts */
  uint64_t events_skipped;
} fd_state;

static void fd_free(void *state) {
  fd_state *f = state;
  if (f) wt_mem_free(f->counts);
  wt_mem_free(f);
}

/* Sizes counts to the call tree's capacity: one per node, what
 * bits_per_node declares. */
static int cover_nodes(fd_state *f, const wt_encode_view *v, wt_encode_tally *t) {
  if (v->node_cap <= f->cap) return 1;
  uint32_t cap = v->node_cap;
  uint32_t *counts = wt_mem_realloc(f->counts, (size_t)cap * sizeof *counts);
  if (!counts) return 0;
  memset(counts + f->cap, 0, (size_t)(cap - f->cap) * sizeof *counts);
  f->counts = counts;
  f->cap = cap;
  t->retained_bytes = (size_t)cap * sizeof *counts;
  return 1;
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
    } else if (len == 3 && c == 0xe2 && p[i + 1] == 0x80 && (p[i + 2] == 0xa8 || p[i + 2] == 0xa9)) {
      rep = " "; /* U+2028, U+2029 */
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

static void write_count(wt_json *j, uint32_t count) {
  char num[16];
  int len = wt_snprintf(num, sizeof num, " %u\n", (unsigned)count);
  wt_json_raw(j, num, (size_t)len);
}

/* Writes the line of node `id`: its thread's name, then its frames. A
 * thread's root node (samples of a thread whose call tree was full before
 * it had a node) shows as the thread alone. */
static void write_line(const wt_encode_view *v, wt_json *j, uint32_t id, uint32_t count) {
  uint32_t buf[WT_NODE_CHAIN_MAX];
  int n;
  const uint32_t *chain = wt_node_chain(v, id, 1, NULL, NULL, buf, &n, NULL);
  write_name(j, v->threads[v->nodes[id - 1].thread].name);
  for (int i = 0; i < n; i++) {
    wt_json_raw(j, ";", 1);
    write_name(j, wt_encode_frame_name(v->nodes[chain[i] - 1].frame));
  }
  write_count(j, count);
}

static void write_all(const wt_encode_view *v, fd_state *f, wt_json *j, wt_encode_tally *t) {
  for (uint32_t slot = 0; slot < v->nthreads; slot++) {
    if (!v->threads[slot].root) continue; /* never sampled */
    for (uint32_t id = 1; id <= v->node_count && id <= f->cap; id++) {
      if (!f->counts[id - 1] || v->nodes[id - 1].thread != slot) continue;
      write_line(v, j, id, f->counts[id - 1]);
    }
  }
  wt_json_lit(j, "# wasmtrace {");
  wt_encode_write_session(v, j);
  wt_json_lit(j, ",\"stats\":{");
  wt_encode_write_stats(v, t, j);
  wt_json_lit(j, ",\"eventsNotRepresentable\":");
  wt_json_u64(j, f->events_skipped);
  wt_json_lit(j, "}}\n");
}

static wt_status fd_step(void **state, const wt_encode_view *v, wt_json *j, wt_encode_tally *t) {
  if (!*state) *state = wt_mem_calloc(1, sizeof(fd_state));
  fd_state *f = *state;
  if (!f) {
    t->alloc_failures++;
    return WT_ERR_NO_MEMORY;
  }
  f->events_skipped += v->nevents;
  if (cover_nodes(f, v, t)) {
    for (size_t i = 0; i < v->nsamples; i++) f->counts[v->samples[v->order[i]].node - 1] += v->samples[v->order[i]].weight;
  } else { /* no count for the batch's new nodes: its samples are dropped */
    t->alloc_failures++;
    t->samples_dropped = v->nsamples;
  }
  if (v->final) write_all(v, f, j, t);
  return WT_OK;
}

const wt_encoder wt_encoder_folded = {.name = "folded", .state_bytes = sizeof(fd_state),
                                      .bits_per_node = 8 * sizeof(uint32_t), .step = fd_step, .free = fd_free};
