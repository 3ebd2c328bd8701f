/* The diagnostic server's hook in the wasmtrace worker (see server.h). */
#include "server.h"

#include "runtime.h"
#include "session.h"
#include "stream.h"

void wt_server_poll(int nsessions) {
  for (int i = 0; i < nsessions; i++) {
    wt_session *s = wt_rt.sessions[i];
    /* out_finished is worker-private: until the worker closes the ring
     * (wt_outq_finish) the main thread neither frees it nor clears
     * s->stream. A session without output set up has no tee yet; its
     * stream pointer was set at creation, before the worker saw it. */
    if (!s->stream || s->out_finished) continue;
    if (atomic_load_explicit(&s->stream->flags, memory_order_acquire) & WT_STREAM_STOP)
      atomic_store_explicit(&s->stop_requested, 1, memory_order_release);
  }
}
