/* Stream rings: a copy of a session's output bytes for the diagnostic
 * server (docs/PROTOCOL.md). The wasmtrace worker (producer) copies every
 * block it queues for the VFS into the ring as well; a plain JS Worker
 * (js/wasmtrace_server_worker.js) reads the ring straight from shared linear memory
 * and sends it over the WebSocket, so streaming never waits for the page's
 * main thread. The ring never blocks the producer: when it is full or its
 * reader is gone, the bytes are not copied (counted in `lost`) and the
 * stream is marked broken; the VFS copy is not affected.
 *
 * Layout: the WT_STREAM_AT_* byte offsets below (all 32-bit, little
 * endian), pinned by _Static_assert in stream.c. This header is their one
 * source: the Worker's RING and RING_FLAGS constants are checked against
 * these #defines by tests/node/server-files.test.mjs.
 *   write    bytes published by the producer (free-running, release)
 *   read     bytes consumed by the JS reader (free-running, release)
 *   capacity a power of two
 *   data     the buffer's address in linear memory
 *   flags    WT_STREAM_* below
 *   lost     bytes not copied (saturating) */
#ifndef WT_STREAM_H
#define WT_STREAM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define WT_STREAM_AT_WRITE 0
#define WT_STREAM_AT_READ 4
#define WT_STREAM_AT_CAPACITY 8
#define WT_STREAM_AT_DATA 12
#define WT_STREAM_AT_FLAGS 16
#define WT_STREAM_AT_LOST 20

#define WT_STREAM_BYTES (2u * 1024 * 1024) /* ring capacity per streamed session */
#define WT_STREAM_CLOSED 1u   /* producer: no more bytes (the output is complete) */
#define WT_STREAM_BROKEN 2u   /* producer: bytes were lost; the stream ends here */
#define WT_STREAM_DETACHED 4u /* reader: gone (socket closed); copy no more */
#define WT_STREAM_DONE 8u     /* reader: finished with the ring; it may be freed */
#define WT_STREAM_STOP 16u    /* reader: a tool asked to stop the session (server.c) */

typedef struct wt_stream {
  _Atomic uint32_t write;
  _Atomic uint32_t read;
  uint32_t capacity;
  uint32_t data;
  _Atomic uint32_t flags;
  _Atomic uint32_t lost;
  unsigned char *buf; /* host builds: `data` cannot hold a 64-bit pointer */
} wt_stream;

/* A ring of WT_STREAM_BYTES in one allocation, or NULL (no memory). Any
 * thread. */
wt_stream *wt_stream_new(void);
/* Producer: appends len bytes whole, or none (then the stream is broken
 * and the bytes counted as lost). Never blocks. */
void wt_stream_put(wt_stream *s, const void *data, size_t len);
/* Producer: its last act on the ring. */
void wt_stream_close(wt_stream *s);
/* 1 when both sides are done with the ring (it may be freed). */
int wt_stream_finished(wt_stream *s);
/* Reader side, for tests (JS does the same through the layout above):
 * copies up to cap published bytes, returns how many. */
size_t wt_stream_take(wt_stream *s, void *out, size_t cap);
void wt_stream_free(wt_stream *s);

#endif
