/* Heap sampling (heap.h): the weights are unbiased, allocations are sampled
 * with probability 1 - e^(-n/I), a free on another thread always follows
 * its allocation in the queue, and what cannot be kept is dropped and
 * counted. The shim's countdown is driven here exactly as heap_shim.c
 * drives it, with made-up addresses (nothing is allocated). */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "mem.h"
#include "registry.h"
#include "runtime.h"
#include "runtime_start.h"
#include "wt_test.h"

/* What heap_shim.c does around a successful allocation and a free. */
static void shim_alloc(uintptr_t addr, size_t n) {
  if ((wt_i_heap_countdown -= (int64_t)n) < 0) wt_heap_on_alloc((void *)addr, n);
}
static void shim_free(uintptr_t addr) {
  _Atomic uint16_t *f = atomic_load_explicit(&wt_i_heap_filter, memory_order_relaxed);
  if (f && atomic_load_explicit(&f[WT_I_HEAP_FILTER_INDEX(addr)], memory_order_relaxed)) wt_heap_on_free((void *)addr);
}

typedef struct tally {
  uint64_t allocs, frees, alloc_bytes;
  uint32_t last_kind[1 << 16]; /* by address / 16, for the order check */
  uint64_t out_of_order;
} tally;

static void count(const wt_heap_entry *e, void *ctx) {
  tally *t = ctx;
  uint32_t k = (e->addr / 16) & 0xffff;
  if (e->kind == WT_HEAP_ALLOC) {
    t->allocs++;
    t->alloc_bytes += e->bytes;
    if (t->last_kind[k] == WT_HEAP_ALLOC) t->out_of_order++;
  } else {
    t->frees++;
    if (t->last_kind[k] != WT_HEAP_ALLOC) t->out_of_order++;
  }
  t->last_kind[k] = e->kind;
}

static void setup(void) {
  wt_runtime_reset_for_testing(~0ull);
  wt_thread_self(); /* this thread has a record: its samples have stacks */
  wt_heap_on_alloc(NULL, 0); /* what the shim's first call says: it is linked */
}

WT_TEST(weights_should_make_each_allocation_count_for_its_size_on_average) {
  const uint32_t intervals[] = {4096, 524288};
  const uint64_t sizes[] = {1, 16, 1000, 4096, 65536, 524288, 10u << 20};
  for (size_t i = 0; i < 2; i++) {
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
      double n = (double)sizes[k], I = intervals[i];
      double p = -expm1(-n / I);
      double w = wt_heap_weight(sizes[k], intervals[i]);
      CHECK(w >= n);
      /* E[weight if sampled] = p * w = n, up to the rounding to whole bytes */
      CHECK(fabs(p * w - n) <= p * 0.5 + 1e-9 * n);
    }
  }
  /* Interval 1 samples every allocation: each weighs its own size. */
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) CHECK_EQ_U64(wt_heap_weight(sizes[k], 1), sizes[k]);
}

WT_TEST(interval_one_should_sample_every_allocation_of_a_byte_or_more) {
  setup();
  REQUIRE(wt_heap_request(1));
  static tally t;
  memset(&t, 0, sizeof t);
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < 1000; i++) {
    size_t n = 1 + i % 7; /* sizes a Poisson draw at 1 byte would skip now and then */
    shim_alloc(0x20000000 + (uintptr_t)i * 16, n);
    bytes += n;
  }
  shim_alloc(0x20100000, 0); /* malloc(0): no bytes, no sample */
  wt_heap_drain(count, &t);
  CHECK_EQ_U64(t.allocs, 1000);
  CHECK_EQ_U64(t.alloc_bytes, bytes);
}

WT_TEST(the_backlog_should_count_entries_queued_and_not_yet_drained) {
  setup();
  CHECK_EQ_U64(wt_heap_backlog(), 0);
  REQUIRE(wt_heap_request(1));
  static tally t;
  memset(&t, 0, sizeof t);
  for (uint32_t i = 0; i < 300; i++) shim_alloc(0x21000000 + (uintptr_t)i * 16, 32);
  CHECK_EQ_U64(wt_heap_backlog(), 300);
  shim_free(0x21000000);
  CHECK_EQ_U64(wt_heap_backlog(), 301); /* a sampled block's free is an entry too */
  wt_heap_drain(count, &t);
  CHECK_EQ_U64(wt_heap_backlog(), 0);
  CHECK_EQ_U64(t.allocs, 300);
  /* A full queue: the backlog stays at its size, the drops are counted. */
  for (uint32_t i = 0; i < WT_HEAP_QUEUE + 10; i++) shim_alloc(0x22000000 + (uintptr_t)i * 16, 32);
  CHECK_EQ_U64(wt_heap_backlog(), WT_HEAP_QUEUE);
  wt_heap_counts c;
  wt_heap_counts_get(&c);
  CHECK_EQ_U64(c.queue_full, 10);
  wt_heap_drain(count, &t);
  CHECK_EQ_U64(wt_heap_backlog(), 0);
}

WT_TEST(an_app_without_the_shim_should_get_no_buffers_until_the_shim_runs) {
  wt_runtime_reset_for_testing(~0ull);
  CHECK_EQ_INT(wt_heap_linked(), 0);
  CHECK_EQ_INT(wt_heap_request(4096), 0);
  CHECK_EQ_INT(wt_heap_set_interval(4096, 0), 0);
  CHECK_EQ_INT(wt_heap_interval(), 0);
  wt_heap_counts c;
  wt_heap_counts_get(&c);
  CHECK_EQ_INT(c.linked, 0);
  CHECK_EQ_INT(c.unavailable, 0); /* not a failure: there is nothing to sample */
  wt_heap_on_alloc(NULL, 0);
  CHECK_EQ_INT(wt_heap_linked(), 1);
  CHECK_EQ_INT(wt_heap_request(4096), 1);
  CHECK_EQ_INT(wt_heap_interval(), 4096);
  wt_heap_reset_for_testing();
}

WT_TEST(allocations_should_be_sampled_with_probability_one_minus_exp_of_size_over_interval) {
  setup();
  REQUIRE(wt_heap_request(4096));
  static tally t;
  memset(&t, 0, sizeof t);
  const int N = 100000;
  const size_t n = 2048;
  for (int i = 0; i < N; i++) {
    uintptr_t a = 0x100000 + (uintptr_t)i * 16;
    shim_alloc(a, n);
    shim_free(a);
    if ((i & 255) == 255) wt_heap_drain(count, &t);
  }
  wt_heap_drain(count, &t);
  double p = -expm1(-(double)n / 4096.0), got = (double)t.allocs / N;
  double sd = sqrt(p * (1 - p) / N);
  CHECK(fabs(got - p) < 6 * sd);
  /* The sum of weights estimates the bytes allocated. */
  double est = (double)t.alloc_bytes, truth = (double)N * (double)n;
  CHECK(fabs(est - truth) / truth < 6 * sqrt((1 - p) / (p * N)));
  CHECK_EQ_U64(t.frees, t.allocs);
  CHECK_EQ_U64(t.out_of_order, 0);
  wt_heap_counts c;
  wt_heap_counts_get(&c);
  CHECK_EQ_U64(c.tracked, 0);
  CHECK_EQ_U64(c.queue_full + c.set_full + c.frees_lost, 0);
}

WT_TEST(wasmtrace_own_allocations_should_never_be_sampled) {
  setup();
  REQUIRE(wt_heap_request(1));
  static tally t;
  memset(&t, 0, sizeof t);
  wt_i_heap_own++;
  for (int i = 0; i < 100; i++) shim_alloc(0x200000 + (uintptr_t)i * 16, 64);
  wt_i_heap_own--;
  wt_heap_drain(count, &t);
  CHECK_EQ_U64(t.allocs, 0);
  shim_alloc(0x300000, 64);
  wt_heap_drain(count, &t);
  CHECK_EQ_U64(t.allocs, 1);
}

/* ---- frees on another thread ---------------------------------------------- */

#define HANDED 20000
static _Atomic uintptr_t handed[HANDED];
static _Atomic int producer_done;

static void *producer(void *arg) {
  (void)arg;
  wt_thread_self();
  wt_heap_request(1);
  for (int i = 0; i < HANDED; i++) {
    uintptr_t a = 0x1000000 + (uintptr_t)(i % 4096) * 16; /* addresses come back (reuse) */
    while (atomic_load_explicit(&handed[(i + HANDED - 4096) % HANDED], memory_order_acquire) && i >= 4096) {
    } /* the consumer freed the block that had this address */
    shim_alloc(a, 48);
    atomic_store_explicit(&handed[i], a, memory_order_release);
  }
  atomic_store_explicit(&producer_done, 1, memory_order_release);
  return NULL;
}

static void *consumer(void *arg) {
  (void)arg;
  wt_thread_self();
  for (int i = 0; i < HANDED; i++) {
    uintptr_t a;
    while (!(a = atomic_load_explicit(&handed[i], memory_order_acquire))) {
    }
    shim_free(a);
    atomic_store_explicit(&handed[i], 0, memory_order_release);
  }
  return NULL;
}

WT_TEST(a_free_on_another_thread_should_follow_its_allocation_in_the_queue) {
  setup();
  REQUIRE(wt_heap_request(1));
  static tally t;
  memset(&t, 0, sizeof t);
  for (int i = 0; i < HANDED; i++) atomic_store(&handed[i], 0);
  atomic_store(&producer_done, 0);
  pthread_t p, c;
  REQUIRE(pthread_create(&p, NULL, producer, NULL) == 0);
  REQUIRE(pthread_create(&c, NULL, consumer, NULL) == 0);
  /* This thread is the worker: it drains while they run. */
  while (!atomic_load_explicit(&producer_done, memory_order_acquire)) wt_heap_drain(count, &t);
  pthread_join(p, NULL);
  pthread_join(c, NULL);
  wt_heap_drain(count, &t);
  wt_heap_counts c2;
  wt_heap_counts_get(&c2);
  /* Every sample is either in the queue's output or counted as dropped. */
  CHECK_EQ_U64(t.allocs + c2.queue_full, HANDED);
  CHECK_EQ_U64(t.frees + c2.frees_lost, c2.frees);
  /* A free never comes before its allocation (only a lost free can leave
   * an allocation followed by the next one at its address). */
  CHECK(t.out_of_order <= c2.frees_lost);
  CHECK_EQ_U64(c2.tracked, 0);
}

static void *unregistered(void *arg) {
  (void)arg;
  wt_heap_request(1); /* never wt_thread_self(): no record */
  shim_alloc(0x4000000, 100);
  return NULL;
}

WT_TEST(an_allocation_on_a_thread_without_a_record_should_be_counted_without_a_stack) {
  setup();
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, unregistered, NULL) == 0);
  pthread_join(th, NULL);
  wt_heap_counts c;
  wt_heap_counts_get(&c);
  CHECK_EQ_U64(c.no_thread, 1);
  CHECK_EQ_U64(c.no_thread_bytes, 100);
  CHECK_EQ_U64(c.sampled, 0);
}

/* What the worker does after each drain (worker.c heap_phase). */
static void drain_and_grow(tally *t) {
  wt_heap_drain(count, t);
  wt_heap_grow();
}

static void free_all_and_check_filter(uint32_t n, uintptr_t base, tally *t) {
  for (uint32_t i = 0; i < n; i++) {
    shim_free(base + (uintptr_t)i * 16);
    if ((i & 511) == 511) wt_heap_drain(count, t);
  }
  wt_heap_drain(count, t);
  wt_heap_counts c;
  wt_heap_counts_get(&c);
  CHECK_EQ_U64(c.tracked, 0);
  CHECK_EQ_U64(t->frees, t->allocs);
  /* Every counter of the free path's filter is back to zero. */
  uint64_t left = 0;
  for (uint32_t i = 0; i < WT_HEAP_FILTER; i++) left += atomic_load(&wt_i_heap_filter[i]);
  CHECK_EQ_U64(left, 0);
}

WT_TEST(the_address_set_should_grow_so_that_every_allocation_stays_followed) {
  setup();
  REQUIRE(wt_heap_request(1));
  static tally t;
  memset(&t, 0, sizeof t);
  /* Three first tables' worth of live blocks (Lua's heap holds ~200k). */
  const uint32_t N = 3 * WT_HEAP_SET;
  for (uint32_t i = 0; i < N; i++) {
    shim_alloc(0x10000000 + (uintptr_t)i * 16, 32);
    if ((i & 511) == 511) drain_and_grow(&t);
  }
  drain_and_grow(&t);
  wt_heap_counts c;
  wt_heap_counts_get(&c);
  CHECK_EQ_U64(c.set_full, 0);
  CHECK_EQ_U64(c.dropped_bytes, 0);
  CHECK_EQ_U64(t.allocs, N);
  CHECK_EQ_U64(t.alloc_bytes, (uint64_t)N * 32);
  CHECK_EQ_U64(c.tracked, N);
  CHECK(c.set_tables >= 3);
  CHECK(c.tracked * 2 <= c.set_slots + 1024); /* grown as it filled */
  free_all_and_check_filter(N, 0x10000000, &t);
}

WT_TEST(a_set_the_heap_rule_keeps_from_growing_should_drop_samples_and_count_their_bytes) {
  setup();
  REQUIRE(wt_heap_request(1));
  static tally t;
  memset(&t, 0, sizeof t);
  wt_mem_fail_after_for_testing(0); /* every request of wasmtrace's refused from here */
  const uint32_t N = WT_HEAP_SET + 5000;
  for (uint32_t i = 0; i < N; i++) {
    shim_alloc(0x10000000 + (uintptr_t)i * 16, 32);
    if ((i & 511) == 511) drain_and_grow(&t);
  }
  drain_and_grow(&t);
  wt_mem_fail_after_for_testing(-1);
  wt_heap_counts c;
  wt_heap_counts_get(&c);
  CHECK_EQ_U64(c.set_tables, 1);
  CHECK(c.set_full > 0);
  CHECK_EQ_U64(t.allocs + c.set_full, N);
  CHECK_EQ_U64(c.dropped_bytes, c.set_full * 32);
  CHECK_EQ_U64(c.tracked, t.allocs);
  free_all_and_check_filter(N, 0x10000000, &t);
}

int main(int argc, char **argv) {
  static const wt_test tests[] = {
      WT_TEST_ENTRY(weights_should_make_each_allocation_count_for_its_size_on_average),
      WT_TEST_ENTRY(the_backlog_should_count_entries_queued_and_not_yet_drained),
      WT_TEST_ENTRY(an_app_without_the_shim_should_get_no_buffers_until_the_shim_runs),
      WT_TEST_ENTRY(allocations_should_be_sampled_with_probability_one_minus_exp_of_size_over_interval),
      WT_TEST_ENTRY(wasmtrace_own_allocations_should_never_be_sampled),
      WT_TEST_ENTRY(a_free_on_another_thread_should_follow_its_allocation_in_the_queue),
      WT_TEST_ENTRY(an_allocation_on_a_thread_without_a_record_should_be_counted_without_a_stack),
      WT_TEST_ENTRY(interval_one_should_sample_every_allocation_of_a_byte_or_more),
      WT_TEST_ENTRY(the_address_set_should_grow_so_that_every_allocation_stays_followed),
      WT_TEST_ENTRY(a_set_the_heap_rule_keeps_from_growing_should_drop_samples_and_count_their_bytes),
  };
  return wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
}
