/* The diagnostic server's hook in the wasmtrace worker (docs/PROTOCOL.md):
 * commands the page's server Worker leaves in a session's stream ring
 * (stream.h), carried out without the page's main thread. */
#ifndef WT_SERVER_H
#define WT_SERVER_H

/* Worker thread, once per loop iteration, before the stop phase: a
 * streamed session whose ring has WT_STREAM_STOP set is asked to stop (as
 * wt_session_stop does). Touches only rings the worker has not closed yet,
 * which the main thread cannot have freed. */
void wt_server_poll(int nsessions);

#endif
