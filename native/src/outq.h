/* Output queue: compressed bytes travel from the worker to the main thread,
 * which writes them to the VFS (wt_io_pump). Single producer (worker), single
 * consumer (main thread), lock-free linked list of blocks. */
#ifndef WT_OUTQ_H
#define WT_OUTQ_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "sink.h"
#include "stream.h"

#define WT_BLOCK_SIZE_MAX (64 * 1024)
#define WT_BLOCK_SIZE_MIN 1024

typedef struct wt_block {
  _Atomic(struct wt_block *) next; /* the queue's link, or the spare stack's */
  size_t len;
  unsigned char *data; /* block_size bytes, in the block's own allocation */
} wt_block;

typedef struct wt_outq {
  wt_sink base;              /* producer side, used as the innermost sink */
  wt_block *tail;            /* producer-private */
  wt_block *current;         /* producer-private: block being filled */
  wt_block *head;            /* consumer-private: last consumed (dummy) */
  size_t block_size;
  _Atomic uint64_t blocks_queued;   /* producer adds when a block is queued */
  _Atomic uint64_t blocks_consumed; /* consumer adds when a block is written */
  _Atomic int closed;        /* producer is done with the queue (wt_outq_finish) */
  /* Consumed blocks given back for reuse: pushed by the consumer, popped by
   * the producer (a stack with a single popper). */
  _Atomic(wt_block *) spare;
  _Atomic int spare_count;
  /* Producer side, optional: called when a block cannot be had; `waited`
   * is 0 the first time, then the number of 1 ms waits for a block given
   * back so far. Returns 1 to keep waiting. Set by the owner after init. */
  int (*on_no_memory)(void *owner, int waited);
  void *owner;
  /* Producer side, optional: every queued block is copied here too (the
   * diagnostic server's stream, stream.h), and closed with the queue. */
  wt_stream *tee;
} wt_outq;

/* block_size is clamped to [WT_BLOCK_SIZE_MIN, WT_BLOCK_SIZE_MAX]. Takes
 * two blocks at once (output moves with them alone, see outq.c). */
wt_status wt_outq_init(wt_outq *q, size_t block_size);
/* Memory held by blocks queued and not yet consumed, plus the block being
 * filled. Producer only (it reads the producer-private current block). */
uint64_t wt_outq_in_flight(wt_outq *q);
/* Producer: its last act on the queue; after it the consumer may free it. */
void wt_outq_finish(wt_outq *q);
/* Consumer: takes the next block, or NULL. The caller calls
 * wt_outq_release after writing it (the block is reused after the next
 * pop). */
wt_block *wt_outq_pop(wt_outq *q);
void wt_outq_release(wt_outq *q, wt_block *b);
/* 1 once the producer closed and every block was popped. */
int wt_outq_drained(wt_outq *q);
/* Frees everything; neither side may use the queue any more. */
void wt_outq_free(wt_outq *q);

#endif
