/* Sessions: one recording with its own settings, buffers and output.
 *
 * Ownership by thread:
 *   - any thread creates a session (wt_session_start) and requests its stop;
 *   - the worker owns everything under "worker-private": it samples into the
 *     buffers, turns ring events into scopes, and encodes into `out`;
 *   - the main thread consumes `out` and owns `file` (wt_io_pump).
 * State moves forward only; the error text is written before the state
 * becomes FAILED (release) and read after it (acquire). */
#ifndef WT_SESSION_H
#define WT_SESSION_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "json.h"
#include "outq.h"
#include "registry.h"
#include "sink.h"

#define WT_MAX_SESSION_IDS 4096

/* A sampled stack as a node of the session's call tree. */
typedef struct wt_node {
  uint32_t parent; /* node id, 0 for a thread's root */
  uint32_t frame;  /* frame id (see registry.h), or a WT_NODE_* pseudo frame */
  uint16_t thread; /* registry slot */
  uint8_t emitted; /* already written to the trace */
  uint8_t pad;
} wt_node;

#define WT_NODE_ROOT 0xffffffffu      /* "(root)" */
#define WT_NODE_IDLE 0xfffffffeu      /* "(idle)": empty shadow stack */
#define WT_NODE_TRUNCATED 0xfffffffdu /* "(truncated)": stack table full */

typedef struct wt_sample {
  double ts_us;
  uint32_t node;
  uint16_t thread;
  uint16_t pad;
} wt_sample;

/* Kinds of event records (the high bit of `kind` marks an unfinished scope). */
enum { WT_REC_SCOPE = 1, WT_REC_INSTANT = 2, WT_REC_COUNTER = 3 };
#define WT_REC_UNFINISHED 0x80u
#define WT_REC_KIND(k) ((k) & 0x7fu)
#define WT_PROCESS_THREAD 0xffffu /* `thread` of process-wide records */

/* One event waiting to be encoded: 24 bytes, fixed layout. */
typedef struct wt_event_rec {
  double ts_us;    /* begin (scope) or time (instant, counter) */
  double value;    /* end time (scope) or value (counter) */
  uint32_t id;     /* interned name (registry.h) */
  uint16_t thread; /* registry slot, or WT_PROCESS_THREAD */
  uint8_t kind;    /* WT_REC_* | WT_REC_UNFINISHED */
  uint8_t cat;     /* category index (wt_registry_category_name) */
} wt_event_rec;
_Static_assert(sizeof(wt_event_rec) == 24, "wt_event_rec must stay 24 bytes");

typedef struct wt_session wt_session;

/* An output format. step() encodes at most max_samples pending samples and
 * at most max_samples pending events; with `final` it also writes the end of the file and
 * closes the session's sink. free() releases encoder state (may be NULL).
 * Worker only. */
typedef struct wt_encoder {
  const char *name;
  wt_status (*step)(wt_session *s, size_t max_samples, int final);
  void (*free)(wt_session *s);
} wt_encoder;

extern const wt_encoder wt_encoder_chrome, wt_encoder_firefox, wt_encoder_folded;

/* What the session knows about one registered thread. */
typedef struct wt_session_thread {
  uint32_t root, idle, truncated; /* node ids, 0 until first sample */
  double first_us, last_us;       /* first and last sample of this thread */
  double span_lo, span_hi;        /* earliest begin / latest end of its X events (valid if has_span) */
  uint8_t has_span;
  double prev_sample_us;          /* for timeDeltas */
  uint8_t seen, announced, profile_started, pad;
  char announced_name[WT_THREAD_NAME_MAX];
} wt_session_thread;

struct wt_session {
  int id;
  wt_session_config config;
  _Atomic int state;             /* wt_session_state */
  _Atomic int stop_requested;
  _Atomic int failing;           /* set by the one thread that fails it */
  _Atomic uint64_t cat_mask;     /* categories it records (wt_runtime_update_categories) */
  char error[WT_ERROR_MAX];

  /* Counters (written by the worker or the pump, read by anyone). */
  _Atomic uint64_t samples_taken, samples_written, samples_dropped_full, samples_torn;
  _Atomic uint64_t events_written, events_dropped, ticks_missed;
  _Atomic uint64_t bytes_encoded, bytes_written;
  _Atomic uint32_t threads_seen, high_water;

  /* --- worker-private --------------------------------------------------- */
  double start_us;  /* set at creation, before the worker sees the session */
  double stop_us, next_sample_us, next_counter_us, next_malloc_us;
#define WT_LATENESS_BUCKETS 24 /* bucket b: lateness below 2^b us */
  uint32_t lateness_hist[WT_LATENESS_BUCKETS];
  double lateness_max_us;
  uint64_t ticks;            /* sampling ticks taken */
  int released;              /* a failed session's buffers were freed */
  int out_finished;          /* wt_outq_finish was called */
  double encode_us;          /* time spent in encoder steps */
  double last_encode_us;     /* when the last encoder step ran */
  uint64_t worker_busy_at_start; /* wt_rt.worker_busy_us when it started */
  size_t budget_samples, budget_events, budget_nodes, budget_out; /* caps */
  wt_sample *samples; /* ring: head, count, cap */
  size_t sample_head, sample_count, sample_cap;
  wt_event_rec *events; /* ring: head, count, cap */
  size_t event_head, event_count, event_cap;
  wt_node *nodes; /* node id n lives at nodes[n - 1] */
  uint32_t node_count, node_cap;
  uint32_t *node_hash; /* open addressing over node ids; size 2 * node_cap */
  uint32_t *sort_tmp;  /* batch index scratch, sample_cap entries */
  size_t last_sort_cap;
  wt_session_thread *threads; /* WT_MAX_THREADS entries, allocated at setup */
  int header_written, footer_written;
  uint64_t last_flush_bytes;
  double last_flush_us;
  const wt_encoder *encoder;
  void *encoder_state; /* owned by the encoder (free callback) */
  wt_json json;
  wt_gzip_sink *gzip;    /* allocated while the session records */
  wt_sink *encoder_sink; /* &gzip->base or &out.base */

  /* --- worker -> main thread --------------------------------------------- */
  _Atomic int output_ready; /* `out` is set up (release); the pump may use it */
  wt_outq out;

  /* --- main-thread-private ------------------------------------------------ */
  FILE *file;
  int out_freed;            /* the output queue was freed */
};

/* Session table (runtime.c). */
wt_session *wt_session_get(int id);

/* Worker side (session.c). */
/* Sets a session up: wt_session_setup_sampling (cheap: what the first
 * sample needs), then wt_session_setup_output (zlib state, output queue),
 * which the worker defers to the first encode step so that sampling starts
 * at once. */
wt_status wt_session_setup(wt_session *s, double now_us);
wt_status wt_session_setup_sampling(wt_session *s, double now_us);
/* Allocates the sampling buffers' first capacity, on the thread that
 * creates the session, so that the worker's first tick allocates nothing
 * (malloc's lock may be held by a busy main thread growing the heap).
 * Optional: buffers grow on demand anyway. */
wt_status wt_session_prealloc(wt_session *s);
wt_status wt_session_setup_output(wt_session *s);
void wt_session_record_sample(wt_session *s, uint16_t slot, const uint32_t *frames, int n,
                              double ts_us);
void wt_session_record_torn(wt_session *s);
void wt_session_record_event(wt_session *s, const wt_event_rec *rec);
void wt_session_free_buffers(wt_session *s);
size_t wt_session_memory(wt_session *s);
/* Updates the high-water mark from wt_session_memory. Worker only. */
void wt_session_note_memory(wt_session *s);
/* Samples one encode step may take so that its output fits the room the
 * output budget has left; 0 if the output queue is too full to encode. */
size_t wt_session_encode_quota(wt_session *s, size_t max_batch);
void wt_session_fail(wt_session *s, const char *fmt, ...);

/* After an encode step: publishes the encoded byte count and, every 64 KiB
 * of encoded output or every second, makes a sync-flush point so that a
 * file cut short (tab closed, crash) reads up to it. Worker only. */
wt_status wt_session_flush_point(wt_session *s, double now_us);

/* Time the worker spent awake since the session started (all sessions'
 * work; an upper bound of its CPU time). */
uint64_t wt_session_worker_busy_us(const wt_session *s);

/* Upper bound (a power of two, in us) of the pct-th percentile of the
 * sampler's lateness against its deadlines. */
uint64_t wt_session_lateness_percentile(const wt_session *s, unsigned pct);

/* Writes the session's counters as JSON object members (no braces): the
 * "wasmtrace_stats" record every format carries. Worker only. */
void wt_session_write_stats(wt_session *s, wt_json *j);

/* Takes the oldest pending event (NULL if none). Encoders only. */
const wt_event_rec *wt_session_next_event(wt_session *s);
/* Takes the oldest k pending samples, calling fn for each group of one
 * thread's samples in time order (idx: positions in s->samples). */
void wt_session_take_samples(wt_session *s, size_t k,
                             void (*fn)(wt_session *s, uint16_t slot, const uint32_t *idx, size_t n));

/* Node helpers shared by the encoders. */
const char *wt_session_frame_name(uint32_t frame, char *tmp, size_t tmpcap);

#endif
