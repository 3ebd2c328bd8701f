/* In-memory sink. */
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "sink.h"

static wt_status mem_write(wt_sink *sink, const void *data, size_t len) {
  wt_mem_sink *s = (wt_mem_sink *)sink;
  if (s->closed) return WT_ERR_STATE;
  if (s->len + len > s->cap) {
    size_t cap = s->cap ? s->cap : 4096;
    while (cap < s->len + len) cap *= 2;
    unsigned char *bigger = wt_mem_realloc(s->data, cap);
    if (!bigger) return WT_ERR_NO_MEMORY;
    s->data = bigger;
    s->cap = cap;
  }
  memcpy(s->data + s->len, data, len);
  s->len += len;
  return WT_OK;
}

static wt_status mem_flush(wt_sink *sink) {
  (void)sink;
  return WT_OK;
}

static wt_status mem_close(wt_sink *sink) {
  ((wt_mem_sink *)sink)->closed = 1;
  return WT_OK;
}

void wt_mem_sink_init(wt_mem_sink *s) {
  memset(s, 0, sizeof *s);
  s->base.write = mem_write;
  s->base.flush = mem_flush;
  s->base.close = mem_close;
}

void wt_mem_sink_free(wt_mem_sink *s) {
  wt_mem_free(s->data);
  s->data = NULL;
  s->len = s->cap = 0;
}
