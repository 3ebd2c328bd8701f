/* The encoder interface: what an output format sees of a session.
 *
 * An encoder never sees the session. Each step it gets a read-only view
 * (the session's settings, the call tree, this step's batch of samples and
 * events, a snapshot of the threads' names, the counters as they were when
 * the step began) and a JSON writer over the session's sink. It reports
 * what it did in a tally (events written, what it had to drop, the bytes it
 * keeps between steps); session.c alone applies the tally to the session's
 * counters, high-water mark and budgets, and flushes and closes the sink
 * after the final step. What an encoder keeps between steps it declares in
 * its wt_encoder record (its fixed state, and a share of the session's
 * buffers), so that the session's memory limit covers it. Worker only. */
#ifndef WT_ENCODER_H
#define WT_ENCODER_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "json.h"
#include "registry.h"
#include "ring.h"
#include "span.h"

/* A sampled stack as a node of the session's call tree. */
typedef struct wt_node {
  uint32_t parent; /* node id, 0 for a thread's root */
  uint32_t frame;  /* frame id (see registry.h), or a WT_NODE_* pseudo frame */
  uint16_t thread; /* registry slot */
  uint16_t pad;
} wt_node;

#define WT_NODE_ROOT 0xffffffffu      /* "(root)" */
#define WT_NODE_IDLE 0xfffffffeu      /* "(idle)": empty shadow stack */
#define WT_NODE_TRUNCATED 0xfffffffdu /* "(truncated)": stack table full */
#define WT_NODE_PARTIAL 0xfffffffcu /* "(partial stack)" */
#define WT_NODE_WAITING 0xfffffffbu /* "(waiting)" */

/* Sample flags (wt_session_record_sample). */
#define WT_SAMPLE_PARTIAL 0x1u  /* the stack moved during the copy: only a prefix is known */
#define WT_SAMPLE_WAITING 0x2u  /* the thread was blocked in a wait (futex) */

/* A sample: its tick time, its call-tree node, its thread slot, and its
 * weight: the sampling periods it stands for, counted on the session's
 * grid since the thread's previous recorded sample (1 on time; k + 1 after
 * k ticks the worker missed, e.g. while the OS did not run it, or k
 * samples of the thread dropped, e.g. by a full buffer), so that
 * readers that weigh samples stay unbiased by late ticks (chrome: the
 * timeDeltas carry the same information; firefox: the samples' weight
 * column; folded: the counts). */
typedef struct wt_sample {
  double ts_us;
  uint32_t node;
  uint16_t thread;
  uint16_t weight;
} wt_sample;

/* Kinds of event records (the high bit of `kind` marks an unfinished scope). */
enum { WT_REC_SCOPE = 1, WT_REC_INSTANT = 2, WT_REC_COUNTER = 3, WT_REC_ALLOC = 4, WT_REC_FREE = 5, WT_REC_GROW = 6 };
#define WT_GROW_EVENT_NAME "wasm memory grew" /* WT_REC_GROW's name in every format */
#define WT_REC_IS_HEAP(k) (WT_REC_KIND(k) == WT_REC_ALLOC || WT_REC_KIND(k) == WT_REC_FREE)
#define WT_REC_UNFINISHED 0x80u
#define WT_REC_KIND(k) ((k) & 0x7fu)
#define WT_PROCESS_THREAD 0xffffu /* `thread` of process-wide records */

/* One event waiting to be encoded: 24 bytes, fixed layout. Heap records
 * (firefox format only; session.c wt_session_record_heap): ALLOC has its
 * stack's call-tree node in `id`, the allocating thread in `thread` and
 * `cat`; FREE has the allocating thread in `thread` (so that it sorts with
 * its allocation) and the freeing thread in `cat`; both the block's
 * address and estimated bytes in `heap`. GROW (chrome and firefox): the
 * wasm memory's size before and after, in 64 KiB pages, in `heap.addr` and
 * `heap.bytes`, the growing thread's stack node in `id`, category in `cat`. */
typedef struct wt_event_rec {
  double ts_us;    /* begin (scope) or time (instant, counter, heap) */
  union {
    double value;  /* end time (scope) or value (counter) */
    struct {
      uint32_t addr, bytes;
    } heap;        /* WT_REC_ALLOC, WT_REC_FREE */
  };
  uint32_t id;     /* interned name (registry.h); ALLOC: node */
  uint16_t thread; /* registry slot, or WT_PROCESS_THREAD */
  uint8_t kind;    /* WT_REC_* | WT_REC_UNFINISHED */
  uint8_t cat;     /* category index (wt_registry_category_name); heap: a thread slot */
} wt_event_rec;
_Static_assert(sizeof(wt_event_rec) == 24, "wt_event_rec must stay 24 bytes");

/* What the session knows about one registered thread. */
typedef struct wt_session_thread {
  uint32_t root, idle, truncated; /* node ids, 0 until first sample */
  double first_us, last_us;       /* first and last sample of this thread */
  uint8_t seen;                   /* sampled, or has events */
  uint8_t is_main;                /* snapshot, like name */
  char name[WT_THREAD_NAME_MAX];  /* its name when the step began ("thread N" if unknown) */
} wt_session_thread;

/* The figures each recorder (recorder.h; WT_RECORDERS_MAX: config.h)
 * copies into the stats snapshot. */
#define WT_RECORDER_STATS_MAX 8

/* The session's counters as the stats record states them. */
typedef struct wt_stats_rec {
  uint64_t samples_taken, samples_written, samples_full, samples_torn;
  uint64_t samples_partial; /* kept with only a true prefix of the stack */
  uint64_t events_written, events_dropped, ticks_missed, threads_dropped;
  uint64_t threads_seen, high_water, worker_busy_us, lateness_p50, lateness_p99;
  uint64_t allocations_refused; /* this session's allocations refused (mem.h) */
  uint64_t samples_waiting;     /* samples of a thread blocked in a wait */
  int stopped_early_oom;        /* it stopped early because memory ran out */
  /* It stopped early for the app's heap (session.h): the room and the room
   * kept for the app then, KiB; 0 and 0 otherwise. */
  uint32_t app_short_room_kib, app_short_keep_kib;
  int stopped_early_app;
  int threads_wrapped; /* the app has the pthread wrappers: 1, 0, -1 not known (threads.h) */
  double encode_us, worker_created_us, worker_started_us, lateness_max_us;
  /* Each recorder's figures (recorder.h), in the registry's order. */
  uint64_t recorder[WT_RECORDERS_MAX][WT_RECORDER_STATS_MAX];
} wt_stats_rec;

/* One recorder's spans on a session's final step. */
typedef struct wt_span_set {
  const char *category; /* its events' category ("startup") */
  /* Its tracks' name ("Startup"; then "Startup 2", ...) in the chrome
   * format, its marker category on the main thread in the firefox format. */
  const char *track;
  const char *color;    /* firefox's category color */
  size_t n;             /* spans */
  int nlanes;           /* lanes used, <= WT_SPAN_LANES */
  /* Copies span k < n into *out; 0 if it is not there any more. */
  int (*get)(const struct wt_span_set *set, size_t k, wt_span *out);
} wt_span_set;

/* One encode step's input. Everything is read-only. */
typedef struct wt_encode_view {
  const wt_session_config *config;
  unsigned record_kinds;     /* what its recorders write to the events (1u << WT_REC_*) */
  double start_us, stop_us;  /* stop_us: 0 until the session stops */
  int before_main;           /* started before main(): it writes the whole startup timeline */
  int final;                 /* the last step: write the end of the file */
  /* The call tree: node id n is nodes[n - 1], 1 <= n <= node_count.
   * node_cap: the table's capacity (node_count <= node_cap); what an
   * encoder keeps per node it sizes to node_cap entries, indexed by id - 1,
   * which its declared bits_per_node covers. */
  const wt_node *nodes;
  uint32_t node_count, node_cap;
  /* Registered threads: threads[slot] for slot < nthreads. */
  const wt_session_thread *threads;
  uint32_t nthreads;
  /* This step's samples, grouped by thread, each group in time order:
   * samples[order[i]] for group[t] <= i < group[t + 1] are thread t's. */
  const wt_sample *samples;
  const uint32_t *order;
  const uint32_t *group; /* WT_MAX_THREADS + 1 entries */
  size_t nsamples;
  /* This step's events: wt_ring_at(events, i) for i < nevents, oldest first. */
  const wt_ring *events;
  size_t nevents;
  /* Bytes of the session's sample and event shares this encoder may keep
   * (its declared retain_*_pct of them). */
  size_t retain_sample_bytes, retain_event_bytes;
  /* Counters when the step began (this step's batch not included). */
  wt_stats_rec stats;
  /* On the final step, the recorders' spans (recorder.h): sets with n > 0. */
  const wt_span_set *spans;
  size_t nspans;
} wt_encode_view;

/* What one step did; session.c applies it. Starts zeroed, except
 * retained_bytes which keeps the previous step's value. */
typedef struct wt_encode_tally {
  uint64_t events_written;  /* written to the output (or counted as such) */
  uint64_t events_dropped;  /* taken but dropped (a retained buffer was full) */
  uint64_t samples_dropped; /* taken but dropped (a retained buffer was full) */
  size_t retained_bytes;    /* memory the encoder keeps between steps besides
                               its state_bytes, now */
  uint32_t alloc_failures;  /* allocations refused (it degraded: what it
                               dropped is in the counts above, or in lost) */
  const char *lost;         /* static: what the output lacks and why, or NULL */
} wt_encode_tally;

/* An output format. step() encodes the view's batch into j; with
 * v->final it also writes the end of the file (the session flushes and
 * closes the sink). Out of memory, it degrades rather than fails (drops
 * what it cannot keep, counted, and says so in the tally); it returns
 * WT_ERR_NO_MEMORY only if it wrote and kept nothing of the batch, which
 * the session may then give it again (with its reserve released). *state is the encoder's own (NULL at first; step()
 * allocates it, state_bytes of it); free() releases it (may be NULL). */
typedef struct wt_encoder {
  const char *name;
  /* Bytes of its state (*state) while it exists: fixed, whatever the
   * session records. The session takes them off its memory limit before
   * splitting the rest, and counts them in its memory while *state exists. */
  size_t state_bytes;
  /* Memory it keeps between steps besides its state, as a share of the
   * session's buffers: percent of the pending-sample and pending-event
   * shares, and bits per call-tree node of capacity (taken from the node
   * share). It reports what it holds of these in its tally's
   * retained_bytes. */
  unsigned retain_samples_pct, retain_events_pct;
  unsigned bits_per_node;
  wt_status (*step)(void **state, const wt_encode_view *v, wt_json *j, wt_encode_tally *t);
  void (*free)(void *state);
} wt_encoder;

extern const wt_encoder wt_encoder_chrome, wt_encoder_firefox, wt_encoder_folded;

/* ---- helpers shared by the encoders -------------------------------------- */

/* The display name of a frame id (function, scope or pseudo frame). */
const char *wt_encode_frame_name(uint32_t frame);

/* Longest chain wt_node_chain returns. */
#define WT_NODE_CHAIN_MAX (WT_MAX_DEPTH + 8)

/* Walks from node `id` towards its thread's root, filling buf from its end,
 * and returns where the chain starts in buf: *n nodes, outermost first. The
 * walk stops before a node for which stop(ctx, node) is true (stop may be
 * NULL), before the "(root)" node if skip_root, or at the top; at most
 * WT_NODE_CHAIN_MAX nodes. *above (may be NULL) is the node it stopped at
 * (0 at the top). */
const uint32_t *wt_node_chain(const wt_encode_view *v, uint32_t id, int skip_root,
                              int (*stop)(const void *ctx, uint32_t node), const void *ctx,
                              uint32_t buf[WT_NODE_CHAIN_MAX], int *n, uint32_t *above);

/* Writes the session's settings as JSON object members (no braces):
 * version, session, format, output, samplingEnabled, intervalUs,
 * durationMs, maxBufferKB, whenFull, categories, startTimeUs. */
void wt_encode_write_session(const wt_encode_view *v, wt_json *j);

/* Writes the stats record as JSON object members (no braces): the
 * counters of v->stats plus this step's batch and tally so far, and each
 * recorder's members (recorder.h: the heap's, the startup timeline's). */
void wt_encode_write_stats(const wt_encode_view *v, const wt_encode_tally *t, wt_json *j);

#endif
