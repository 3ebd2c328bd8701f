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
#include "encoder.h"
#include "json.h"
#include "outq.h"
#include "registry.h"
#include "ring.h"
#include "sink.h"
#include "u32map.h"

#define WT_MAX_SESSION_IDS 4096

typedef struct wt_session wt_session;

/* What a session needs from the runtime that owns it, given at creation
 * (session.c never reads the runtime's globals). Any member may be NULL. */
typedef struct wt_session_host {
  /* A session failed: its categories no longer need recording. */
  void (*categories_changed)(void);
  /* The worker's clock for the stats record: when it was created and
   * started (us, session clock), and how long it has been awake in all. */
  void (*worker_times)(double *created_us, double *started_us, uint64_t *busy_us);
} wt_session_host;

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
  _Atomic uint64_t samples_partial; /* kept, marked "(partial stack)" (registry.h) */
  _Atomic uint64_t samples_waiting; /* taken while the thread waited (WT_SAMPLE_WAITING) */
  _Atomic uint64_t events_written, events_dropped, ticks_missed;
  _Atomic uint64_t bytes_encoded, bytes_written;
  _Atomic uint32_t threads_seen, high_water;
  _Atomic uint64_t alloc_refused; /* its allocations refused (mem.h) */
  _Atomic int oom_stop;           /* it stops (or stopped) early: out of memory */

  /* --- worker-private --------------------------------------------------- */
  const wt_session_host *host; /* set at creation */
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
  uint64_t worker_busy_at_start; /* the host's worker busy time when it started */
  /* Budgets (entries; bytes for out): the memory limit split by set_budgets. */
  size_t budget_samples, budget_events, budget_nodes, budget_out;
  size_t retain_sample_bytes, retain_event_bytes; /* the encoder's declared shares */
  wt_ring samples; /* pending wt_sample */
  wt_ring events;  /* pending wt_event_rec */
  wt_node *nodes; /* node id n lives at nodes[n - 1] */
  uint32_t node_count, node_cap;
  wt_u32map node_index; /* node ids by (thread, parent, frame); 2 * node_cap slots */
  uint32_t *sort_tmp;  /* batch index scratch, sort_cap entries */
  size_t sort_cap;
  wt_session_thread *threads; /* WT_MAX_THREADS entries, allocated at setup */
  int footer_written;         /* the final step ran and the sink is closed */
  /* What it needs to finish, taken at start (wt_session_prealloc) and
   * released to the worker's credit (mem.h) for the final step, or at the
   * first allocation refused while recording. */
  void *reserve;
  size_t reserve_bytes;
  int reserve_released, reserve_settled;
  uint64_t last_flush_bytes;
  double last_flush_us;
  const wt_encoder *encoder;
  void *encoder_state;      /* owned by the encoder (free callback) */
  size_t encoder_retained;  /* bytes it keeps (its last tally) */
  wt_json json;
  wt_gzip_sink *gzip;    /* allocated while the session records */
  wt_sink *encoder_sink; /* &gzip->base or &out.base */

  /* --- worker -> main thread --------------------------------------------- */
  _Atomic int output_ready; /* `out` is set up (release); the pump may use it */
  wt_outq out;

  /* The diagnostic server's copy of the output (config.stream), or NULL: set
   * at creation, fed by the worker through out.tee, read by JS, freed by
   * the main thread (wt_io_pump) once both sides are done with it. */
  wt_stream *stream;

  /* --- main-thread-private ------------------------------------------------ */
  FILE *file;
  int out_freed;            /* the output queue was freed */
};

/* Session table (api.c). */
wt_session *wt_session_get(int id);

/* Worker side (session.c). */
/* Sets a session up in two parts: wt_session_setup_sampling (cheap: what
 * the first sample needs) when the worker adopts it, then
 * wt_session_setup_output (zlib state, output queue), which the worker
 * defers to the first encode step so that sampling starts at once.
 * setup_sampling fails the session itself (with the reason) if its
 * maxBufferKB is too small for its format's fixed state; the first
 * sampling deadline is the worker's to choose (now_us is not used). */
wt_status wt_session_setup_sampling(wt_session *s, double now_us);
/* Takes what the session needs before it starts, on the thread that
 * creates it: the sampling buffers' first capacity (so that the worker's
 * first tick allocates nothing: malloc's lock may be held by a busy main
 * thread growing the heap), its thread table, its output (zlib's state and
 * the output queue's blocks) and the reserve it finishes with
 * (wt_session_start_bytes in all). If the heap cannot give it, frees what
 * it took, writes "needs N KiB to start, the wasm heap has M KiB free" to
 * s->error and returns WT_ERR_NO_MEMORY: the session must fail before it
 * starts. Buffers grow on demand after it, up to maxBufferKB; an
 * allocation refused then stops the session early (state STOPPED, the
 * trace says "stoppedEarly"). */
wt_status wt_session_prealloc(wt_session *s);
/* Bytes wt_session_prealloc takes (after set_budgets; an upper bound). */
size_t wt_session_start_bytes(const wt_session *s);
/* On failure it frees what it set up (output_ready stays 0). */
wt_status wt_session_setup_output(wt_session *s);
/* Records one sample of thread `slot`: the node chain of frames[0..n), then
 * with WT_SAMPLE_PARTIAL a "(partial stack)" child (the stack above is
 * unknown), then with WT_SAMPLE_WAITING a "(waiting)" leaf. An empty stack
 * with no flags is "(idle)". Worker only. */
void wt_session_record_sample(wt_session *s, uint16_t slot, const uint32_t *frames, int n,
                              double ts_us, uint32_t flags);
/* Counts a sample whose stack could not be read at all (stats "tornStack").
 * The moving-stack protocol never gives up on a stack (registry.h), so the
 * worker no longer calls it; kept for the stats record's compatibility. */
void wt_session_record_torn(wt_session *s);
void wt_session_record_event(wt_session *s, const wt_event_rec *rec);
void wt_session_free_buffers(wt_session *s);
/* Bytes the session's buffers hold now, the encoder's state and retained
 * buffers included (not its fixed overhead: see session.c). */
size_t wt_session_memory(wt_session *s);
/* Updates the high-water mark from wt_session_memory. Worker only. */
void wt_session_note_memory(wt_session *s);
/* Samples one encode step may take so that its output fits the room the
 * output budget has left; 0 if the output queue is too full to encode. */
size_t wt_session_encode_quota(wt_session *s, size_t max_batch);
void wt_session_fail(wt_session *s, const char *fmt, ...);
/* Main thread, when the session has become STOPPED: one console line if it
 * stopped early for lack of memory. */
void wt_session_log_end(const wt_session *s);

/* Console lines of failed sessions in a page's life: the first ones are
 * printed, then one line saying that further ones are not (a page that
 * starts thousands of bad sessions must not flood its console, and in Node
 * a flood of lines into a slow pipe can outlive the process). */
#define WT_FAILURE_LINES_MAX 16

/* Prints "session 'name' failed: error" once, within the cap above. Any
 * thread. */
void wt_session_log_failure(const char *name, const char *error);

/* One encoder step over at most max_batch pending samples and events (all
 * of them if final): builds the encoder's view, applies its tally to the
 * counters and the high-water mark, and after the final step flushes and
 * closes the sink (footer_written). Worker only. */
wt_status wt_session_encode_step(wt_session *s, size_t max_batch, int final);

/* After an encode step: publishes the encoded byte count and, every 64 KiB
 * of encoded output or every second, makes a sync-flush point so that a
 * file cut short (tab closed, crash) reads up to it. Worker only. */
wt_status wt_session_flush_point(wt_session *s, double now_us);

/* Upper bound (a power of two, in us) of the pct-th percentile of the
 * sampler's lateness against its deadlines. */
uint64_t wt_session_lateness_percentile(const wt_session *s, unsigned pct);

/* The session's counters now, as the stats record states them. */
void wt_session_stats_snapshot(const wt_session *s, wt_stats_rec *out);

#endif
