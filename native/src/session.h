/* Sessions: one recording with its own settings, buffers and output.
 *
 * The record is split by owner:
 *   - control: any thread creates a session (api.c: wt_session_start) and
 *     requests its stop; its config is immutable from then on;
 *   - counters: atomics the worker (and the pump) add to, anyone reads;
 *   - worker-owned: its sampling grid (grid.h, walked by rec_samples.c), what it
 *     records into (`rec`, session.c: samples, ring events as scopes) and
 *     its encoding (`enc`, session_encode.c: encodes into `out`); worker.c
 *     decides when each happens;
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
#include "grid.h"
#include "json.h"
#include "outq.h"
#include "recorder.h"
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
  /* Whether the app was linked with the pthread wrappers: 1, 0, or -1 if
   * not known (threads.h). NULL: not known. */
  int (*threads_wrapped)(void);
} wt_session_host;

/* What the worker keeps to record a session (session.c): its budgets, the
 * pending samples and events, the call tree, the threads it saw, and the
 * reserve it finishes with. Worker-owned once the worker adopts the
 * session; before that, only the thread that creates it touches it
 * (wt_session_prealloc). */
typedef struct wt_session_rec {
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
  /* What it needs to finish, taken at start (wt_session_prealloc) and
   * released to the worker's credit (mem.h) for the final step, or at the
   * first allocation refused while recording. */
  void *reserve;
  size_t reserve_bytes;
  int reserve_released, reserve_settled;
  int released;              /* a failed session's buffers were freed */
  uint64_t worker_busy_at_start; /* the host's worker busy time when it started */
} wt_session_rec;

/* The encoding of a session's output (session_encode.c, on the worker):
 * the encoder and its state, the JSON writer and the sinks under it. */
typedef struct wt_session_enc {
  const wt_encoder *encoder;
  void *encoder_state;      /* owned by the encoder (free callback) */
  size_t encoder_retained;  /* bytes it keeps (its last tally) */
  wt_json json;
  wt_gzip_sink *gzip;    /* allocated while the session records */
  wt_sink *encoder_sink; /* &gzip->base or &out.base */
  int footer_written;    /* the final step ran and the sink is closed */
  uint64_t last_flush_bytes;
  double last_flush_us;
  double encode_us;          /* time spent in encoder steps */
  double last_encode_us;     /* when the last encoder step ran */
} wt_session_enc;

struct wt_session {
  /* --- control: set at creation (api.c), then read by anyone ------------- */
  int id;
  wt_session_config config;    /* immutable once the session is in the table */
  const wt_session_host *host; /* set at creation */
  double start_us;  /* set at creation, before the worker sees the session */
  _Atomic int state;             /* wt_session_state */
  _Atomic int stop_requested;    /* any thread asks (api.c, server.c, out of memory) */
  _Atomic int failing;           /* set by the one thread that fails it */
  _Atomic uint64_t cat_mask;     /* categories it records (wt_runtime_update_categories) */
  char error[WT_ERROR_MAX];
  _Atomic int oom_stop;          /* it stops (or stopped) early: out of memory */
  /* It stops (or stopped) early: the app's own allocations took the heap's
   * room below the app's headroom (mem.h); with the room and the headroom
   * (KiB) seen then, for the trace and the console line. */
  _Atomic int app_short_stop;
  _Atomic uint32_t app_short_room_kib, app_short_keep_kib;

  /* The recorders it has (recorders.h: bit i is the registry's i-th), the
   * percent of its memory they move to pending events, and their state
   * (recorder.h), zeroed at creation: set before it enters the table. */
  uint8_t recorders;
  unsigned events_share_pct;
  _Alignas(8) unsigned char recorder_state[WT_RECORDERS_MAX][WT_RECORDER_STATE_MAX];

  /* --- counters: written by the worker (or the pump: bytes_written), read
   * by anyone (stats_list.h lists what they become) ------------------------ */
  _Atomic uint64_t samples_taken, samples_written, samples_dropped_full, samples_torn;
  _Atomic uint64_t samples_partial; /* kept, marked "(partial stack)" (registry.h) */
  _Atomic uint64_t samples_waiting; /* taken while the thread waited (WT_SAMPLE_WAITING) */
  _Atomic uint64_t events_written, events_dropped, ticks_missed;
  _Atomic uint64_t bytes_encoded, bytes_written;
  _Atomic uint32_t threads_seen, high_water;
  _Atomic uint64_t alloc_refused; /* its allocations refused (mem.h) */

  /* --- worker-owned -------------------------------------------------------- */
  wt_grid grid;     /* its sampling schedule (grid.h; rec_samples.c walks it) */
  double stop_us, next_counter_us;
  wt_session_rec rec; /* what it records into (session.c) */
  wt_session_enc enc; /* how it is encoded (session_encode.c) */

  /* --- worker -> main thread --------------------------------------------- */
  _Atomic int output_ready; /* `out` is set up (release); the pump may use it */
  wt_outq out;
  int out_finished;         /* wt_outq_finish was called (worker) */

  /* The diagnostic server's copy of the output (config.stream), or NULL: set
   * at creation, fed by the worker through out.tee, read by JS, freed by
   * the main thread (wt_io_pump) once both sides are done with it. */
  wt_stream *stream;

  /* Started before main() (startup.c): it writes the whole startup
   * timeline (phases.h). Set before the worker may adopt it. */
  int before_main;

  /* --- main-thread-private ------------------------------------------------ */
  FILE *file;
  int out_freed;            /* the output queue was freed */
};

/* Session table (api.c). */
wt_session *wt_session_get(int id);

/* Whether s is a session that records now (RUNNING); NULL is not. */
static inline int wt_session_running(const wt_session *s) {
  return s && atomic_load_explicit(&s->state, memory_order_acquire) == WT_SESSION_RUNNING;
}

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
 * it took, writes wt_session_no_room_text's message to
 * s->error and returns WT_ERR_NO_MEMORY: the session must fail before it
 * starts. Buffers grow on demand after it, up to maxBufferKB; an
 * allocation refused then stops the session early (state STOPPED, the
 * trace says "stoppedEarly"). */
wt_status wt_session_prealloc(wt_session *s);
/* "needs N KiB to start, and may take A KiB of the wasm heap's F KiB free
 * (at most half, leaving the app K KiB): ..." (mem.h's rule), for a
 * session that needs `need_kib` where the rule allows `avail` bytes. */
void wt_session_no_room_text(char *out, size_t cap, size_t need_kib, size_t avail);
/* 1 when the app links the encoder of `format` (the firefox and folded ones
 * are an opt-in archive in wasm builds: session.c), else 0. */
int wt_session_format_linked(wt_format format);
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
/* Records an event that carries a stack (a recorder's: heap.h's sampled
 * allocations and the wasm memory's growth): rec with its `id` set to the
 * call-tree node of frames[0..n) on thread `slot` (outermost first; then a
 * "(truncated)" child if `truncated`), 0 if the table was full before the
 * thread's root existed. Worker only. */
void wt_session_record_stack_event(wt_session *s, wt_event_rec rec, uint16_t slot, const uint32_t *frames, int n,
                                   int truncated);
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

/* Why the session stopped early, into out (WT_APP_SHORT_TEXT_MAX is
 * enough): 1 if it did (the app's heap ran low, or out of memory), else 0
 * with out "". The text of the console line, stats() and wt_session_stopped_early. */
int wt_session_stop_reason(const wt_session *s, char *out, size_t cap);

/* Console lines of failed sessions in a page's life: the first ones are
 * printed, then one line saying that further ones are not (a page that
 * starts thousands of bad sessions must not flood its console, and in Node
 * a flood of lines into a slow pipe can outlive the process). */
#define WT_FAILURE_LINES_MAX 16

/* Prints "session 'name' failed: error" once, within the cap above. Any
 * thread. */
void wt_session_log_failure(const char *name, const char *error);

/* An allocation of the session was refused (`n` of them): counted; the
 * first one while it records stops it early, and its reserve is released
 * so that it can finish. Worker only. */
void wt_session_note_no_memory(wt_session *s, uint64_t n);
/* The app's allocations took the heap's room (`room` bytes) below the app's
 * headroom (`keep` bytes, mem.h): the first call while it records stops it
 * early, so that it gives its memory back to the app. Worker only. */
void wt_session_note_app_short(wt_session *s, size_t room, size_t keep);
/* Writes the trace's "stoppedEarly" text for such a stop, from the room
 * and the room kept for the app (KiB). */
#define WT_APP_SHORT_TEXT_MAX 200
void wt_app_short_text(char *out, size_t cap, uint32_t room_kib, uint32_t keep_kib);
/* Gives the session's reserve back to the heap and as credit to the
 * calling thread (the worker), for its final step. */
void wt_session_release_reserve(wt_session *s);

/* ---- encoding (session_encode.c): the worker decides when --------------- */

/* Whether the session can take an encode step now: its output set up (a
 * failure fails the session) and room in its output queue. Returns the
 * samples (and events) a step may take, at most max_batch; 0: not now.
 * Worker only. */
size_t wt_session_encode_ready(wt_session *s, size_t max_batch);
/* One encode step of at most `quota` (from wt_session_encode_ready) begun
 * at `now`: the step, its time, a flush point, and after the final step the
 * end of the output (buffers freed, the queue handed to the main thread).
 * An error fails the session. Returns 1 if it did work. Worker only. */
int wt_session_encode(wt_session *s, double now, size_t quota, int final);
/* A failed session gives back its memory: its buffers are freed and the
 * output queue handed over; the main thread frees what is left of it.
 * Once. Worker only. */
void wt_session_release_failed(wt_session *s);

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
