/* Exact call counts (calls.h, hooks.c): every instrumented call counted
 * once on its thread, tables that grow without losing a count, calls past
 * the largest table counted as not counted, and a reader on another
 * thread that never sees a count go down (TSan checks the publication). */
#include <pthread.h>
#include <stdint.h>

#include "calls.h"
#include "registry.h"
#include "runtime_start.h"
#include "wt_test.h"

/* The -finstrument-functions hooks (hooks.c); no header declares them. */
void __cyg_profile_func_enter(void *fn, void *call_site);
void __cyg_profile_func_exit(void *fn, void *call_site);

static void call(uint32_t id, int times) {
  for (int i = 0; i < times; i++) {
    __cyg_profile_func_enter((void *)(uintptr_t)id, NULL);
    __cyg_profile_func_exit((void *)(uintptr_t)id, NULL);
  }
}

static uint32_t count_of(const wt_calls *c, uint32_t id) {
  return c && id < c->cap ? atomic_load(&((wt_calls *)c)->counts[id]) : 0;
}

WT_TEST(calls_should_count_each_function_exactly_on_its_thread) {
  wt_runtime_reset_for_testing(~0ull);
  call(3, 5);
  call(7, 2);
  /* Nested calls count too, once each. */
  __cyg_profile_func_enter((void *)(uintptr_t)9, NULL);
  call(3, 1);
  __cyg_profile_func_exit((void *)(uintptr_t)9, NULL);
  wt_thread *t = wt_thread_self();
  REQUIRE(t != NULL);
  const wt_calls *c = wt_calls_of(t);
  REQUIRE(c != NULL);
  CHECK_EQ_INT(c->cap, WT_CALLS_MIN);
  CHECK_EQ_INT(count_of(c, 3), 6);
  CHECK_EQ_INT(count_of(c, 7), 2);
  CHECK_EQ_INT(count_of(c, 9), 1);
  uint64_t sum = 0;
  for (uint32_t id = 0; id < c->cap; id++) sum += count_of(c, id);
  CHECK_EQ_U64(sum, 9);
  CHECK_EQ_INT(wt_calls_not_counted(t), 0);
}

WT_TEST(calls_should_keep_every_count_when_the_table_grows) {
  wt_runtime_reset_for_testing(~0ull);
  call(3, 2);
  call(WT_CALLS_MIN - 1, 1);
  wt_thread *t = wt_thread_self();
  const wt_calls *first = wt_calls_of(t);
  REQUIRE(first != NULL);
  call(5000, 4); /* past the first table: the next power of two above it */
  const wt_calls *c = wt_calls_of(t);
  REQUIRE(c != NULL && c != first);
  CHECK_EQ_INT(c->cap, 8192);
  CHECK(c->older == first); /* kept for a reader still on it: freed with the thread */
  CHECK_EQ_INT(count_of(c, 3), 2);
  CHECK_EQ_INT(count_of(c, WT_CALLS_MIN - 1), 1);
  CHECK_EQ_INT(count_of(c, 5000), 4);
  call(3, 1);
  CHECK_EQ_INT(count_of(c, 3), 3);
  CHECK_EQ_INT(count_of(first, 3), 2); /* the old table no longer moves */
}

WT_TEST(calls_should_count_calls_past_the_largest_table_as_not_counted) {
  wt_runtime_reset_for_testing(~0ull);
  call(WT_CALLS_MAX - 1, 1);
  call(WT_CALLS_MAX, 3);
  call(UINT32_MAX, 2);
  wt_thread *t = wt_thread_self();
  const wt_calls *c = wt_calls_of(t);
  REQUIRE(c != NULL);
  CHECK_EQ_INT(c->cap, WT_CALLS_MAX);
  CHECK_EQ_INT(count_of(c, WT_CALLS_MAX - 1), 1);
  CHECK_EQ_INT(wt_calls_not_counted(t), 5);
}

/* A thread counts while the main thread reads its tables, as the worker
 * does: every read sees counts that only go up, and the last read after
 * the join sees them all. */
enum { ROUNDS = 20000 };
static wt_thread *_Atomic counter_thread;

static void *count_many(void *arg) {
  (void)arg;
  call(1, 1);
  atomic_store(&counter_thread, wt_thread_self());
  for (int i = 0; i < ROUNDS; i++) {
    call(1, 1);
    call(2 + (uint32_t)(i * 37) % 20000u, 1); /* grows the table while the reader reads */
  }
  return NULL;
}

WT_TEST(calls_should_be_readable_while_the_thread_counts) {
  wt_runtime_reset_for_testing(~0ull);
  atomic_store(&counter_thread, NULL);
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, count_many, NULL) == 0);
  wt_thread *t;
  while ((t = atomic_load(&counter_thread)) == NULL) sched_yield();
  uint32_t last = 0, reads = 0;
  int went_down = 0;
  for (int k = 0; k < 2000; k++) {
    const wt_calls *c = wt_calls_of(t);
    uint32_t n = count_of(c, 1);
    went_down |= n < last;
    last = n;
    reads++;
  }
  pthread_join(th, NULL);
  CHECK(!went_down);
  CHECK_EQ_INT(count_of(wt_calls_of(t), 1), ROUNDS + 1);
  CHECK(reads == 2000);
}

int main(int argc, char **argv) {
  static const wt_test tests[] = {
      WT_TEST_ENTRY(calls_should_count_each_function_exactly_on_its_thread),
      WT_TEST_ENTRY(calls_should_keep_every_count_when_the_table_grows),
      WT_TEST_ENTRY(calls_should_count_calls_past_the_largest_table_as_not_counted),
      WT_TEST_ENTRY(calls_should_be_readable_while_the_thread_counts),
  };
  return wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
}
