/* Output queue (see outq.h). */
#include "outq.h"

#include <string.h>

#include "mem.h"
#include "platform.h"

#define SPARE_MAX 8          /* consumed blocks kept for reuse */
#define WAIT_STEP_US 1000.0  /* polling step while waiting for a spare block */

/* A block and its data in one allocation, so that a consumed block can be
 * reused whole. */
static wt_block *new_block(size_t size) {
  wt_block *b = wt_mem_alloc(sizeof *b + size);
  if (!b) return NULL;
  atomic_init(&b->next, NULL);
  b->len = 0;
  b->data = (unsigned char *)(b + 1);
  return b;
}

/* Producer: a spare block if the consumer gave one back. The producer is
 * the only one that pops the spare stack, so a top it read cannot be
 * popped and pushed again before its CAS (no ABA); pushes only make the
 * CAS fail and retry. */
static wt_block *pop_spare(wt_outq *q) {
  wt_block *top = atomic_load_explicit(&q->spare, memory_order_acquire);
  while (top && !atomic_compare_exchange_weak_explicit(
                    &q->spare, &top, atomic_load_explicit(&top->next, memory_order_relaxed),
                    memory_order_acquire, memory_order_acquire)) {
  }
  if (!top) return NULL;
  atomic_fetch_sub_explicit(&q->spare_count, 1, memory_order_relaxed);
  atomic_store_explicit(&top->next, NULL, memory_order_relaxed);
  top->len = 0;
  return top;
}

/* Consumer: gives a consumed block back for reuse, or frees it. */
static void push_spare(wt_outq *q, wt_block *b) {
  if (atomic_load_explicit(&q->spare_count, memory_order_relaxed) >= SPARE_MAX) {
    wt_mem_free(b);
    return;
  }
  wt_block *top = atomic_load_explicit(&q->spare, memory_order_relaxed);
  do {
    atomic_store_explicit(&b->next, top, memory_order_relaxed);
  } while (!atomic_compare_exchange_weak_explicit(&q->spare, &top, b, memory_order_release,
                                                  memory_order_relaxed));
  atomic_fetch_add_explicit(&q->spare_count, 1, memory_order_relaxed);
}

/* Producer: a block to fill. A spare one first, else a new one; when memory
 * is refused, the owner's hook runs once (the session stops early and
 * releases its reserve), then it waits for the consumer to give a block
 * back for as long as the hook says so. */
static wt_block *take_block(wt_outq *q) {
  wt_block *b = pop_spare(q);
  if (b || (b = new_block(q->block_size)) != NULL) return b;
  if (q->on_no_memory) q->on_no_memory(q->owner, 0);
  if ((b = pop_spare(q)) != NULL || (b = new_block(q->block_size)) != NULL) return b;
  _Atomic uint32_t never = 0;
  for (int waited = 1; q->on_no_memory && q->on_no_memory(q->owner, waited); waited++) {
    wt_platform_sleep_until(wt_platform_now_us() + WAIT_STEP_US, &never, 0);
    if ((b = pop_spare(q)) != NULL) return b;
  }
  return NULL;
}

static void enqueue_current(wt_outq *q) {
  wt_block *b = q->current;
  if (!b || b->len == 0) return;
  q->current = NULL;
  /* Before the block is published: once the consumer has it, it may come
   * back as a spare and be refilled. */
  if (q->tee) wt_stream_put(q->tee, b->data, b->len);
  atomic_fetch_add_explicit(&q->blocks_queued, 1, memory_order_relaxed);
  atomic_store_explicit(&q->tail->next, b, memory_order_release);
  q->tail = b;
}

static wt_status q_write(wt_sink *sink, const void *data, size_t len) {
  wt_outq *q = (wt_outq *)sink;
  const unsigned char *p = data;
  while (len) {
    if (!q->current) {
      q->current = take_block(q);
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
  if (q->tee) wt_stream_close(q->tee);
  atomic_store_explicit(&q->closed, 1, memory_order_release);
}

wt_status wt_outq_init(wt_outq *q, size_t block_size) {
  memset(q, 0, sizeof *q);
  if (block_size < WT_BLOCK_SIZE_MIN) block_size = WT_BLOCK_SIZE_MIN;
  if (block_size > WT_BLOCK_SIZE_MAX) block_size = WT_BLOCK_SIZE_MAX;
  q->block_size = block_size;
  /* Two blocks from the start, a full-size dummy head and a spare: once
   * the consumer pops, blocks go round between the two sides, so output
   * keeps moving without allocating. */
  wt_block *dummy = new_block(block_size), *spare = new_block(block_size);
  if (!dummy || !spare) {
    wt_mem_free(dummy);
    wt_mem_free(spare);
    return WT_ERR_NO_MEMORY;
  }
  q->tail = q->head = dummy;
  atomic_init(&q->spare, spare);
  atomic_init(&q->spare_count, 1);
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
  push_spare(q, q->head);
  q->head = next;
  return next;
}

void wt_outq_release(wt_outq *q, wt_block *b) {
  (void)b; /* it stays as the dummy head until the next pop gives it back */
  atomic_fetch_add_explicit(&q->blocks_consumed, 1, memory_order_relaxed);
}

int wt_outq_drained(wt_outq *q) {
  if (!atomic_load_explicit(&q->closed, memory_order_acquire)) return 0;
  return atomic_load_explicit(&q->head->next, memory_order_acquire) == NULL;
}

void wt_outq_free(wt_outq *q) {
  wt_block *b = q->head;
  while (b) {
    wt_block *next = atomic_load_explicit(&b->next, memory_order_relaxed);
    wt_mem_free(b);
    b = next;
  }
  wt_mem_free(q->current);
  b = atomic_load_explicit(&q->spare, memory_order_relaxed);
  while (b) {
    wt_block *next = atomic_load_explicit(&b->next, memory_order_relaxed);
    wt_mem_free(b);
    b = next;
  }
  memset(q, 0, sizeof *q);
}
