/* Output queue (see outq.h). */
#include "outq.h"

#include <stdlib.h>
#include <string.h>

static wt_block *new_block(size_t size) {
  wt_block *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->data = malloc(size);
  if (!b->data) {
    free(b);
    return NULL;
  }
  return b;
}

static void enqueue_current(wt_outq *q) {
  wt_block *b = q->current;
  if (!b || b->len == 0) return;
  q->current = NULL;
  atomic_fetch_add_explicit(&q->blocks_queued, 1, memory_order_relaxed);
  atomic_store_explicit(&q->tail->next, b, memory_order_release);
  q->tail = b;
}

static wt_status q_write(wt_sink *sink, const void *data, size_t len) {
  wt_outq *q = (wt_outq *)sink;
  const unsigned char *p = data;
  while (len) {
    if (!q->current) {
      q->current = new_block(q->block_size);
      if (!q->current) return WT_ERR_NO_MEMORY;
    }
    wt_block *b = q->current;
    size_t room = q->block_size - b->len;
    size_t take = len < room ? len : room;
    memcpy(b->data + b->len, p, take);
    b->len += take;
    p += take;
    len -= take;
    if (b->len == q->block_size) enqueue_current(q);
  }
  return WT_OK;
}

/* A flush hands the partial block to the main thread, so that what was
 * flushed reaches the file even if nothing more is ever written. */
static wt_status q_flush(wt_sink *sink) {
  enqueue_current((wt_outq *)sink);
  return WT_OK;
}

/* Closing the sink queues the last block; the producer calls
 * wt_outq_finish once it no longer touches the queue at all. */
static wt_status q_close(wt_sink *sink) {
  enqueue_current((wt_outq *)sink);
  return WT_OK;
}

void wt_outq_finish(wt_outq *q) {
  enqueue_current(q);
  atomic_store_explicit(&q->closed, 1, memory_order_release);
}

wt_status wt_outq_init(wt_outq *q, size_t block_size) {
  memset(q, 0, sizeof *q);
  if (block_size < WT_BLOCK_SIZE_MIN) block_size = WT_BLOCK_SIZE_MIN;
  if (block_size > WT_BLOCK_SIZE_MAX) block_size = WT_BLOCK_SIZE_MAX;
  q->block_size = block_size;
  wt_block *dummy = calloc(1, sizeof *dummy);
  if (!dummy) return WT_ERR_NO_MEMORY;
  q->tail = q->head = dummy;
  q->base.write = q_write;
  q->base.flush = q_flush;
  q->base.close = q_close;
  return WT_OK;
}

uint64_t wt_outq_in_flight(wt_outq *q) {
  uint64_t consumed = atomic_load_explicit(&q->blocks_consumed, memory_order_relaxed);
  uint64_t queued = atomic_load_explicit(&q->blocks_queued, memory_order_relaxed);
  return (queued - consumed + (q->current ? 1 : 0)) * q->block_size;
}

wt_block *wt_outq_pop(wt_outq *q) {
  wt_block *next = atomic_load_explicit(&q->head->next, memory_order_acquire);
  if (!next) return NULL;
  free(q->head->data);
  free(q->head);
  q->head = next;
  return next;
}

void wt_outq_release(wt_outq *q, wt_block *b) {
  atomic_fetch_add_explicit(&q->blocks_consumed, 1, memory_order_relaxed);
  free(b->data); /* the node itself stays as the dummy head */
  b->data = NULL;
}

int wt_outq_drained(wt_outq *q) {
  if (!atomic_load_explicit(&q->closed, memory_order_acquire)) return 0;
  return atomic_load_explicit(&q->head->next, memory_order_acquire) == NULL;
}

void wt_outq_free(wt_outq *q) {
  wt_block *b = q->head;
  while (b) {
    wt_block *next = atomic_load_explicit(&b->next, memory_order_relaxed);
    free(b->data);
    free(b);
    b = next;
  }
  if (q->current) {
    free(q->current->data);
    free(q->current);
  }
  memset(q, 0, sizeof *q);
}
