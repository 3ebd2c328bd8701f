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

typedef struct wt_scope_rec {
  double begin_us;
  double end_us;
  uint32_t id;
  uint16_t thread;
  uint16_t unfinished; /* still open when the session stopped */
} wt_scope_rec;

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

typedef struct wt_session {
  int id;
  wt_session_config config;
  _Atomic int state;             /* wt_session_state */
  _Atomic int stop_requested;
  _Atomic int failing;           /* set by the one thread that fails it */
  char error[WT_ERROR_MAX];

  /* Counters (written by the worker or the pump, read by anyone). */
  _Atomic uint64_t samples_taken, samples_written, samples_dropped_full, samples_torn;
  _Atomic uint64_t events_written, events_dropped, ticks_missed;
  _Atomic uint64_t bytes_encoded, bytes_written;
  _Atomic uint32_t threads_seen, high_water;

  /* --- worker-private --------------------------------------------------- */
  double start_us, stop_us, next_sample_us;
  size_t budget_samples, budget_scopes, budget_nodes, budget_out; /* caps */
  wt_sample *samples; /* ring: head, count, cap */
  size_t sample_head, sample_count, sample_cap;
  wt_scope_rec *scopes;
  size_t scope_head, scope_count, scope_cap;
  wt_node *nodes; /* node id n lives at nodes[n - 1] */
  uint32_t node_count, node_cap;
  uint32_t *node_hash; /* open addressing over node ids; size 2 * node_cap */
  uint32_t *sort_tmp;  /* batch index scratch, sample_cap entries */
  size_t last_sort_cap;
  wt_session_thread threads[WT_MAX_THREADS];
  int header_written, footer_written;
  uint64_t last_flush_bytes;
  wt_json json;
  wt_gzip_sink gzip;
  wt_sink *encoder_sink; /* &gzip.base or &out.base */

  /* --- worker -> main thread --------------------------------------------- */
  wt_outq out;

  /* --- main-thread-private ------------------------------------------------ */
  FILE *file;
} wt_session;

/* Session table (runtime.c). */
wt_session *wt_session_get(int id);

/* Worker side (session.c). */
wt_status wt_session_setup(wt_session *s, double now_us);
void wt_session_record_sample(wt_session *s, uint16_t slot, const uint32_t *frames, int n,
                              double ts_us);
void wt_session_record_torn(wt_session *s);
void wt_session_record_scope(wt_session *s, const wt_scope_rec *rec);
void wt_session_free_buffers(wt_session *s);
size_t wt_session_memory(const wt_session *s);
void wt_session_fail(wt_session *s, const char *fmt, ...);

/* Chrome encoder (encoder_chrome.c). Encodes at most max_samples pending
 * samples and the pending scopes; with `final`, also the footer, and closes
 * the output. Returns WT_OK or the sink's error. Worker only. */
wt_status wt_chrome_encode_step(wt_session *s, size_t max_samples, int final);

/* Node helpers shared by the encoders. */
const char *wt_session_frame_name(uint32_t frame, char *tmp, size_t tmpcap);

#endif
