/* Sinks: where encoders write bytes. A sink is three callbacks (write,
 * flush, close) over caller-owned state; the gzip sink wraps another sink. */
#ifndef WT_SINK_H
#define WT_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "wasmtrace/wasmtrace.h"

typedef struct wt_sink wt_sink;
struct wt_sink {
  /* Appends len bytes. */
  wt_status (*write)(wt_sink *sink, const void *data, size_t len);
  /* Makes everything written so far readable by whoever reads the output
   * (for gzip: a Z_SYNC_FLUSH point). */
  wt_status (*flush)(wt_sink *sink);
  /* Finishes the stream; frees nothing the caller owns. */
  wt_status (*close)(wt_sink *sink);
  uint64_t bytes_in;  /* bytes given to write() */
};

static inline wt_status wt_sink_write(wt_sink *s, const void *d, size_t n) {
  s->bytes_in += n;
  return s->write(s, d, n);
}
static inline wt_status wt_sink_flush(wt_sink *s) { return s->flush(s); }
static inline wt_status wt_sink_close(wt_sink *s) { return s->close(s); }

/* A growable in-memory sink (tests, and small outputs). */
typedef struct wt_mem_sink {
  wt_sink base;
  unsigned char *data;
  size_t len, cap;
  int closed;
} wt_mem_sink;
void wt_mem_sink_init(wt_mem_sink *s);
void wt_mem_sink_free(wt_mem_sink *s);

/* A gzip sink: compresses into `inner` with zlib (gzip wrapper). level is
 * 1..9. Every flush is a Z_SYNC_FLUSH, so a stream cut after it decompresses
 * up to that point. */
typedef struct wt_gzip_sink {
  wt_sink base;
  wt_sink *inner;
  void *zstream; /* z_stream, kept opaque so zlib.h stays out of headers */
  unsigned char out[16384];
  int open;
} wt_gzip_sink;
wt_status wt_gzip_sink_init(wt_gzip_sink *s, wt_sink *inner, int level);
/* Upper bound of what wt_gzip_sink_init allocates (zlib's deflate state with
 * windowBits 15 and memLevel 8: 64 KiB window x2, 64 KiB each for prev,
 * head and the pending buffer, ~6 KiB of state; tests/native/test_memory.c
 * checks it). */
#define WT_GZIP_STATE_BYTES ((size_t)280 * 1024)
/* Frees zlib state if close() was not reached (error paths). */
void wt_gzip_sink_free(wt_gzip_sink *s);

#endif
