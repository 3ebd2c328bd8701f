/* gzip sink on top of zlib's deflate. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "mem.h"
#include "sink.h"

/* zlib's memory comes through wasmtrace's allocator like the rest. */
static voidpf gz_alloc(voidpf opaque, uInt items, uInt size) {
  (void)opaque;
  return wt_mem_calloc(items, size);
}
static void gz_free(voidpf opaque, voidpf p) {
  (void)opaque;
  wt_mem_free(p);
}

static wt_status drain(wt_gzip_sink *s, int mode) {
  z_stream *z = s->zstream;
  do {
    z->next_out = s->out;
    z->avail_out = sizeof s->out;
    int rc = deflate(z, mode);
    if (rc == Z_STREAM_ERROR) return WT_ERR_IO;
    size_t have = sizeof s->out - z->avail_out;
    if (have) {
      wt_status st = wt_sink_write(s->inner, s->out, have);
      if (st != WT_OK) return st;
    }
    if (mode == Z_FINISH && rc == Z_STREAM_END) break;
  } while (z->avail_out == 0 || (mode == Z_FINISH));
  return WT_OK;
}

static wt_status gz_write(wt_sink *sink, const void *data, size_t len) {
  wt_gzip_sink *s = (wt_gzip_sink *)sink;
  if (!s->open) return WT_ERR_STATE;
  z_stream *z = s->zstream;
  z->next_in = (Bytef *)(uintptr_t)data;
  z->avail_in = (uInt)len;
  while (z->avail_in > 0) {
    wt_status st = drain(s, Z_NO_FLUSH);
    if (st != WT_OK) return st;
  }
  return WT_OK;
}

static wt_status gz_flush(wt_sink *sink) {
  wt_gzip_sink *s = (wt_gzip_sink *)sink;
  if (!s->open) return WT_ERR_STATE;
  wt_status st = drain(s, Z_SYNC_FLUSH);
  if (st != WT_OK) return st;
  return wt_sink_flush(s->inner);
}

static wt_status gz_close(wt_sink *sink) {
  wt_gzip_sink *s = (wt_gzip_sink *)sink;
  if (!s->open) return WT_ERR_STATE;
  wt_status st = drain(s, Z_FINISH);
  wt_gzip_sink_free(s);
  if (st != WT_OK) return st;
  return wt_sink_close(s->inner);
}

wt_status wt_gzip_sink_init(wt_gzip_sink *s, wt_sink *inner, int level) {
  memset(s, 0, sizeof *s);
  z_stream *z = wt_mem_calloc(1, sizeof *z);
  if (!z) return WT_ERR_NO_MEMORY;
  z->zalloc = gz_alloc;
  z->zfree = gz_free;
  if (level < 1 || level > 9) level = Z_DEFAULT_COMPRESSION;
  /* windowBits 15 + 16 selects the gzip wrapper; memLevel 8 is zlib's
   * default (~256 KiB of state: WT_GZIP_STATE_BYTES). */
  if (deflateInit2(z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    wt_mem_free(z);
    return WT_ERR_NO_MEMORY;
  }
  s->zstream = z;
  s->inner = inner;
  s->open = 1;
  s->base.write = gz_write;
  s->base.flush = gz_flush;
  s->base.close = gz_close;
  return WT_OK;
}

void wt_gzip_sink_free(wt_gzip_sink *s) {
  if (s->zstream) {
    deflateEnd(s->zstream);
    wt_mem_free(s->zstream);
    s->zstream = NULL;
  }
  s->open = 0;
}
