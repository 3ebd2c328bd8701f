/* The main-thread file writer (wt_io_pump): moves each session's encoded
 * output from its queue to its file on the VFS, closes the file when the
 * session has stopped, and frees what a failed session left. The worker
 * never touches the VFS (file writes from a pthread are proxied to the main
 * thread and may wait for it for seconds). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "outputs.h"
#include "runtime.h"
#include "session.h"

/* Main thread: a failed session closes its file and, once the worker has
 * handed the queue over, frees the blocks nobody will write. */
static void release_failed_output(wt_session *s) {
  if (s->file) {
    fclose(s->file);
    s->file = NULL;
  }
  if (s->out_freed || !atomic_load_explicit(&s->output_ready, memory_order_acquire) ||
      !atomic_load_explicit(&s->out.closed, memory_order_acquire))
    return;
  wt_block *b;
  while ((b = wt_outq_pop(&s->out)) != NULL) wt_outq_release(&s->out, b);
  wt_outq_free(&s->out);
  s->out_freed = 1;
}

/* The session's file was deleted, replaced or changed under it (the
 * stream is flushed: every byte written so far is in the file). */
static int output_damaged(wt_session *s, char *why, size_t cap) {
  return wt_outputs_damaged(s->config.output,
                            atomic_load_explicit(&s->bytes_written, memory_order_relaxed), why,
                            cap);
}

/* Main thread: frees a session's stream ring once the worker closed it
 * and the JS reader is done with it (stream.h). */
static void release_stream(wt_session *s) {
  if (s->stream && wt_stream_finished(s->stream)) {
    wt_stream_free(s->stream);
    s->stream = NULL;
  }
}

size_t wt_io_pump(void) {
  size_t total = 0;
  int n = wt_session_count();
  for (int i = 0; i < n; i++) {
    wt_session *s = wt_rt.sessions[i];
    release_stream(s);
    int st = atomic_load_explicit(&s->state, memory_order_acquire);
    if (st == WT_SESSION_FAILED) {
      release_failed_output(s);
      continue;
    }
    if (st != WT_SESSION_RUNNING && st != WT_SESSION_STOPPING) continue;
    /* The worker sets the output up at its first encode step. */
    if (!atomic_load_explicit(&s->output_ready, memory_order_acquire)) continue;
    wt_block *b;
    int checked = 0;
    while ((b = wt_outq_pop(&s->out)) != NULL) {
      char why[WT_ERROR_MAX];
      if (!s->file) {
        s->file = wt_outputs_open(s->config.output, s->config.overwrite, s->config.name, why, sizeof why);
        if (!s->file) {
          wt_outq_release(&s->out, b);
          wt_session_fail(s, "%s", why);
          break;
        }
      } else if (!checked && output_damaged(s, why, sizeof why)) {
        /* Before writing on: a write after a truncation would fill the
         * gap with zeros and hide it. */
        wt_outq_release(&s->out, b);
        wt_session_fail(s, "%s", why);
        break;
      }
      checked = 1;
      size_t len = b->len;
      size_t wrote = fwrite(b->data, 1, len, s->file);
      wt_outq_release(&s->out, b);
      if (wrote != len) {
        wt_session_fail(s, "cannot write output \"%s\": %s", s->config.output, strerror(errno));
        break;
      }
      total += len;
      atomic_fetch_add_explicit(&s->bytes_written, len, memory_order_relaxed);
    }
    /* A flush that fails is a write error, not damage by someone else. */
    if (s->file && fflush(s->file) != 0 &&
        atomic_load_explicit(&s->state, memory_order_acquire) != WT_SESSION_FAILED)
      wt_session_fail(s, "cannot write output \"%s\": %s", s->config.output, strerror(errno));
    st = atomic_load_explicit(&s->state, memory_order_acquire);
    if (st == WT_SESSION_FAILED) {
      release_failed_output(s);
      continue;
    }
    if (st == WT_SESSION_STOPPING && wt_outq_drained(&s->out)) {
      int ok = 1;
      char why[WT_ERROR_MAX];
      if (s->file && output_damaged(s, why, sizeof why)) {
        wt_session_fail(s, "%s", why);
        release_failed_output(s);
        continue;
      }
      if (s->file) {
        ok = fclose(s->file) == 0;
        s->file = NULL;
      }
      if (!ok) {
        wt_session_fail(s, "cannot close output \"%s\": %s", s->config.output, strerror(errno));
      } else {
        wt_outq_free(&s->out);
        s->out_freed = 1;
        atomic_store_explicit(&s->state, WT_SESSION_STOPPED, memory_order_release);
        wt_session_log_end(s);
      }
    }
  }
  if (total) wt_runtime_wake(); /* room for more output */
  return total;
}
