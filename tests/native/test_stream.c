/* Stream rings (stream.c) and the output queue's tee (outq.c): the bytes a
 * JS reader takes are the bytes queued for the VFS, in order; a full ring
 * or a gone reader loses bytes and says so, never blocks the producer. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "outq.h"
#include "stream.h"
#include "wt_test.h"

static unsigned char big[WT_STREAM_BYTES + 4096];

WT_TEST(stream_should_hand_the_reader_every_byte_in_order_across_the_wrap) {
  wt_stream *s = wt_stream_new();
  REQUIRE(s != NULL);
  static unsigned char in[300000], out[300000];
  unsigned seed = 7;
  size_t total = 0;
  /* 40 rounds of 300 KB through a 2 MiB ring: it wraps several times. */
  for (int round = 0; round < 40; round++) {
    for (size_t i = 0; i < sizeof in; i++) in[i] = (unsigned char)((seed = seed * 1103515245u + 12345u) >> 16);
    wt_stream_put(s, in, sizeof in);
    size_t n = wt_stream_take(s, out, sizeof out);
    REQUIRE_EQ_INT((int)n, (int)sizeof in);
    REQUIRE(memcmp(in, out, n) == 0);
    total += n;
  }
  CHECK_EQ_INT((int)atomic_load(&s->flags), 0);
  CHECK_EQ_INT((int)atomic_load(&s->lost), 0);
  CHECK_EQ_INT((int)atomic_load(&s->write), (int)(uint32_t)total);
  wt_stream_free(s);
}

WT_TEST(stream_should_break_instead_of_blocking_when_the_reader_lags) {
  wt_stream *s = wt_stream_new();
  REQUIRE(s != NULL);
  wt_stream_put(s, big, WT_STREAM_BYTES - 10);
  wt_stream_put(s, big, 11); /* one byte too many: refused whole */
  CHECK(atomic_load(&s->flags) & WT_STREAM_BROKEN);
  CHECK_EQ_INT((int)atomic_load(&s->lost), 11);
  wt_stream_put(s, big, 1); /* after a break, nothing more (no gap inside) */
  CHECK_EQ_INT((int)atomic_load(&s->lost), 12);
  CHECK_EQ_INT((int)atomic_load(&s->write), (int)(WT_STREAM_BYTES - 10));
  wt_stream_free(s);
}

WT_TEST(stream_should_copy_nothing_once_its_reader_detached) {
  wt_stream *s = wt_stream_new();
  REQUIRE(s != NULL);
  atomic_fetch_or(&s->flags, WT_STREAM_DETACHED | WT_STREAM_DONE);
  wt_stream_put(s, "abc", 3);
  CHECK_EQ_INT((int)atomic_load(&s->write), 0);
  CHECK_EQ_INT((int)atomic_load(&s->lost), 3);
  CHECK_EQ_INT(wt_stream_finished(s), 0); /* the producer has not closed it */
  wt_stream_close(s);
  CHECK_EQ_INT(wt_stream_finished(s), 1);
  wt_stream_free(s);
}

WT_TEST(outq_tee_should_receive_exactly_the_bytes_the_consumer_pops) {
  wt_outq q;
  REQUIRE_EQ_INT(wt_outq_init(&q, 4096), WT_OK);
  wt_stream *s = wt_stream_new();
  REQUIRE(s != NULL);
  q.tee = s;
  static unsigned char in[50000], popped[60000], teed[60000];
  for (size_t i = 0; i < sizeof in; i++) in[i] = (unsigned char)(i * 31 + 7);
  size_t np = 0;
  for (size_t off = 0; off < sizeof in; off += 777) {
    size_t n = sizeof in - off < 777 ? sizeof in - off : 777;
    REQUIRE_EQ_INT(q.base.write(&q.base, in + off, n), WT_OK);
    if (off % 7 == 0) q.base.flush(&q.base); /* partial blocks too */
    wt_block *b;
    while ((b = wt_outq_pop(&q)) != NULL) {
      memcpy(popped + np, b->data, b->len);
      np += b->len;
      wt_outq_release(&q, b);
    }
  }
  CHECK_EQ_INT(atomic_load(&s->flags) & WT_STREAM_CLOSED, 0);
  wt_outq_finish(&q);
  CHECK(atomic_load(&s->flags) & WT_STREAM_CLOSED);
  wt_block *b;
  while ((b = wt_outq_pop(&q)) != NULL) {
    memcpy(popped + np, b->data, b->len);
    np += b->len;
    wt_outq_release(&q, b);
  }
  size_t nt = wt_stream_take(s, teed, sizeof teed);
  CHECK_EQ_INT((int)np, (int)sizeof in);
  CHECK_EQ_INT((int)nt, (int)np);
  CHECK(memcmp(popped, in, np) == 0);
  CHECK(memcmp(teed, popped, nt) == 0);
  wt_outq_free(&q);
  wt_stream_free(s);
}

/* A producer thread and a consumer thread, as the wasmtrace worker and the
 * page's JS Worker: every byte arrives, in order, or the stream says it
 * broke (and then what arrived is still a prefix). Under TSan this checks
 * the ring's memory orders. */
typedef struct pc_state {
  wt_stream *s;
  size_t produced;
} pc_state;

#define PC_TOTAL (24u * 1024 * 1024)

static unsigned char pc_byte(size_t i) { return (unsigned char)(i * 2654435761u >> 13); }

static void *pc_producer(void *arg) {
  pc_state *st = arg;
  static unsigned char chunk[70000];
  size_t i = 0, n = 1;
  while (i < PC_TOTAL) {
    n = (n * 7919 + 13) % sizeof chunk + 1;
    if (n > PC_TOTAL - i) n = PC_TOTAL - i;
    for (size_t k = 0; k < n; k++) chunk[k] = pc_byte(i + k);
    uint32_t before = atomic_load_explicit(&st->s->write, memory_order_relaxed);
    wt_stream_put(st->s, chunk, n);
    if (atomic_load_explicit(&st->s->write, memory_order_relaxed) == before) {
      /* Full: a real producer moves on (the bytes are lost); here it
       * waits for room once, then stops, so that both outcomes occur. */
      break;
    }
    i += n;
  }
  st->produced = i;
  wt_stream_close(st->s);
  return NULL;
}

WT_TEST(stream_should_deliver_a_prefix_in_order_between_two_threads) {
  pc_state st = {wt_stream_new(), 0};
  REQUIRE(st.s != NULL);
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, pc_producer, &st) == 0);
  static unsigned char buf[100000];
  size_t got = 0;
  int bad = 0;
  for (;;) {
    uint32_t flags = atomic_load_explicit(&st.s->flags, memory_order_acquire);
    size_t n = wt_stream_take(st.s, buf, sizeof buf);
    for (size_t k = 0; k < n && !bad; k++) bad = buf[k] != pc_byte(got + k);
    got += n;
    if (n == 0 && (flags & WT_STREAM_CLOSED)) break;
  }
  pthread_join(t, NULL);
  CHECK(!bad);
  CHECK_EQ_INT((int)got, (int)st.produced);
  if (!(atomic_load(&st.s->flags) & WT_STREAM_BROKEN)) CHECK_EQ_INT((int)got, (int)PC_TOTAL);
  wt_stream_free(st.s);
}

int main(int argc, char **argv) {
  static const wt_test tests[] = {
      WT_TEST_ENTRY(stream_should_hand_the_reader_every_byte_in_order_across_the_wrap),
      WT_TEST_ENTRY(stream_should_break_instead_of_blocking_when_the_reader_lags),
      WT_TEST_ENTRY(stream_should_copy_nothing_once_its_reader_detached),
      WT_TEST_ENTRY(outq_tee_should_receive_exactly_the_bytes_the_consumer_pops),
      WT_TEST_ENTRY(stream_should_deliver_a_prefix_in_order_between_two_threads),
  };
  return wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
}
