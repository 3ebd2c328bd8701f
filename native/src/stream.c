/* Stream rings (see stream.h). */
#include "stream.h"

#include <string.h>

#include "mem.h"

_Static_assert(offsetof(wt_stream, write) == WT_STREAM_AT_WRITE &&
                   offsetof(wt_stream, read) == WT_STREAM_AT_READ &&
                   offsetof(wt_stream, capacity) == WT_STREAM_AT_CAPACITY &&
                   offsetof(wt_stream, data) == WT_STREAM_AT_DATA &&
                   offsetof(wt_stream, flags) == WT_STREAM_AT_FLAGS &&
                   offsetof(wt_stream, lost) == WT_STREAM_AT_LOST,
               "the JS reader (js/wasmtrace_server_worker.js) reads these offsets");

wt_stream *wt_stream_new(void) {
  wt_stream *s = wt_mem_alloc(sizeof *s + WT_STREAM_BYTES);
  if (!s) return NULL;
  atomic_init(&s->write, 0);
  atomic_init(&s->read, 0);
  atomic_init(&s->flags, 0);
  atomic_init(&s->lost, 0);
  s->capacity = WT_STREAM_BYTES;
  s->buf = (unsigned char *)(s + 1);
  s->data = (uint32_t)(uintptr_t)s->buf;
  return s;
}

static void lose(wt_stream *s, size_t len) {
  uint32_t lost = atomic_load_explicit(&s->lost, memory_order_relaxed);
  uint64_t sum = (uint64_t)lost + len;
  atomic_store_explicit(&s->lost, sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum,
                        memory_order_relaxed);
}

void wt_stream_put(wt_stream *s, const void *data, size_t len) {
  uint32_t flags = atomic_load_explicit(&s->flags, memory_order_acquire);
  if (flags & (WT_STREAM_BROKEN | WT_STREAM_DETACHED | WT_STREAM_CLOSED)) {
    lose(s, len);
    return;
  }
  uint32_t w = atomic_load_explicit(&s->write, memory_order_relaxed);
  uint32_t r = atomic_load_explicit(&s->read, memory_order_acquire);
  if (len > s->capacity - (uint32_t)(w - r)) {
    /* A gap in the middle would make the rest unreadable: the stream ends
     * at its last whole block. */
    atomic_fetch_or_explicit(&s->flags, WT_STREAM_BROKEN, memory_order_release);
    lose(s, len);
    return;
  }
  const unsigned char *p = data;
  uint32_t at = w & (s->capacity - 1);
  size_t first = s->capacity - at < len ? s->capacity - at : len;
  memcpy(s->buf + at, p, first);
  memcpy(s->buf, p + first, len - first);
  atomic_store_explicit(&s->write, w + (uint32_t)len, memory_order_release);
}

void wt_stream_close(wt_stream *s) {
  atomic_fetch_or_explicit(&s->flags, WT_STREAM_CLOSED, memory_order_release);
}

int wt_stream_finished(wt_stream *s) {
  uint32_t f = atomic_load_explicit(&s->flags, memory_order_acquire);
  return (f & WT_STREAM_CLOSED) && (f & WT_STREAM_DONE);
}

size_t wt_stream_take(wt_stream *s, void *out, size_t cap) {
  uint32_t r = atomic_load_explicit(&s->read, memory_order_relaxed);
  uint32_t w = atomic_load_explicit(&s->write, memory_order_acquire);
  size_t n = (uint32_t)(w - r);
  if (n > cap) n = cap;
  uint32_t at = r & (s->capacity - 1);
  size_t first = s->capacity - at < n ? s->capacity - at : n;
  memcpy(out, s->buf + at, first);
  memcpy((unsigned char *)out + first, s->buf, n - first);
  atomic_store_explicit(&s->read, r + (uint32_t)n, memory_order_release);
  return n;
}

void wt_stream_free(wt_stream *s) { wt_mem_free(s); }
