/* The thread registry, shadow stacks and per-thread event rings
 * (registry.c, scope.c, stack_ops.h, hooks.c), including copies of a stack
 * that another thread is changing as fast as it can. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mem.h"
#include "registry.h"
#include "runtime.h"
#include "runtime_start.h"
#include "stack_ops.h"
#include "wt_test.h"

/* The -finstrument-functions hooks (hooks.c); no header declares them. */
void __cyg_profile_func_enter(void *fn, void *call_site);
void __cyg_profile_func_exit(void *fn, void *call_site);

/* ---- helpers ------------------------------------------------------------ */

/* Forgets every thread and name; the calling (main) thread registers again
 * on its next use. Sites must be fresh (id 0) after this. */
/* A fresh registry in which every category is recorded, as if a session
 * with categories ["*"] were running (the hot path writes events only
 * for categories some running session records). */
static void fresh_registry(void) {
  wt_runtime_reset_for_testing(~0ull);
}

static uint32_t depth_of(wt_thread *t) {
  return WT_TOP_DEPTH(atomic_load_explicit(&t->top, memory_order_relaxed));
}

static uint64_t pushes_of(wt_thread *t) {
  return WT_TOP_PUSHES(atomic_load_explicit(&t->top, memory_order_relaxed));
}

/* wt_stack_copy of a stack that nobody changes meanwhile: the copy must
 * be complete (checked here). */
static int copy_whole(wt_thread *t, uint32_t *out, uint32_t *depth) {
  int partial = -1;
  int n = wt_stack_copy(t, out, depth, &partial);
  CHECK_EQ_INT(partial, 0);
  return n;
}

static uint32_t ring_written(wt_thread *t) {
  return atomic_load_explicit(&t->ring_write, memory_order_relaxed);
}

static const wt_event *ring_at(wt_thread *t, uint32_t i) {
  return &t->ring[i & (WT_RING_CAPACITY - 1)];
}

/* Runs fn on a new thread and waits for it. */
static void run_on_thread(void *(*fn)(void *), void *arg) {
  pthread_t th;
  if (pthread_create(&th, NULL, fn, arg) != 0) {
    wt_test_fail(__FILE__, __LINE__, "pthread_create failed");
    return;
  }
  pthread_join(th, NULL);
}

/* ---- registration and names --------------------------------------------- */

WT_TEST(thread_self_should_register_a_thread_once) {
  fresh_registry();
  CHECK_EQ_INT(wt_registry_count(), 0);
  wt_thread *a = wt_thread_self();
  REQUIRE(a != NULL);
  wt_thread *b = wt_thread_self();
  CHECK(a == b);
  CHECK_EQ_INT(wt_registry_count(), 1);
  CHECK(wt_registry_get(0) == a);
  CHECK(wt_registry_get(1) == NULL);
  CHECK(wt_registry_get(WT_MAX_THREADS) == NULL);
  CHECK(wt_registry_get(UINT32_MAX) == NULL);
  CHECK_EQ_INT(a->slot, 0);
  CHECK_EQ_INT(depth_of(a), 0);
  CHECK_EQ_U64(wt_registry_threads_dropped(), 0);
}

WT_TEST(thread_self_should_name_the_main_thread_main) {
  fresh_registry();
  wt_thread *t = wt_thread_self();
  REQUIRE(t != NULL);
  CHECK(t->is_main);
  char name[WT_THREAD_NAME_MAX];
  wt_registry_thread_name(t, name);
  CHECK_EQ_STR(name, "main");
}

typedef struct seen_thread {
  wt_thread *t;
  wt_thread *again;
  char name[WT_THREAD_NAME_MAX];
} seen_thread;

static void *register_and_report(void *arg) {
  seen_thread *seen = arg;
  seen->t = wt_thread_self();
  seen->again = wt_thread_self();
  if (seen->t) wt_registry_thread_name(seen->t, seen->name);
  return NULL;
}

WT_TEST(thread_self_should_name_other_threads_pthread_and_their_slot) {
  fresh_registry();
  wt_thread *main_t = wt_thread_self();
  seen_thread a = {0}, b = {0};
  run_on_thread(register_and_report, &a);
  run_on_thread(register_and_report, &b);
  REQUIRE(a.t != NULL && b.t != NULL);
  CHECK(a.t == a.again);
  CHECK(a.t != b.t && a.t != main_t && b.t != main_t);
  CHECK_EQ_INT(a.t->slot, 1);
  CHECK_EQ_INT(b.t->slot, 2);
  CHECK(!a.t->is_main && !b.t->is_main);
  CHECK_EQ_STR(a.name, "pthread 1");
  CHECK_EQ_STR(b.name, "pthread 2");
  CHECK_EQ_INT(wt_registry_count(), 3);
  CHECK(wt_registry_get(2) == b.t);
}

WT_TEST(registry_should_mark_a_thread_that_exited_and_keep_it) {
  fresh_registry();
  wt_thread *main_t = wt_thread_self();
  seen_thread a = {0};
  run_on_thread(register_and_report, &a);
  REQUIRE(a.t != NULL);
  /* The sampler may still read it: it stays registered, marked exited. */
  CHECK(wt_registry_get(1) == a.t);
  CHECK_EQ_INT(atomic_load(&a.t->exited), 1);
  CHECK_EQ_INT(atomic_load(&main_t->exited), 0);
}

static void *exclude_then_register(void *arg) {
  wt_thread **out = arg;
  wt_registry_exclude_self();
  *out = wt_thread_self();
  return NULL;
}

WT_TEST(registry_should_never_register_an_excluded_thread) {
  fresh_registry();
  wt_thread *t = (wt_thread *)1;
  run_on_thread(exclude_then_register, &t);
  CHECK(t == NULL);
  CHECK_EQ_INT(wt_registry_count(), 0);
  CHECK_EQ_U64(wt_registry_threads_dropped(), 0);
}

static void *rename_before_first_use(void *arg) {
  seen_thread *seen = arg;
  wt_thread_set_name("decoder");
  return register_and_report(seen);
}

WT_TEST(thread_set_name_should_rename_the_calling_thread) {
  fresh_registry();
  wt_thread *t = wt_thread_self();
  char name[WT_THREAD_NAME_MAX];
  wt_thread_set_name("renderer");
  wt_registry_thread_name(t, name);
  CHECK_EQ_STR(name, "renderer");
  wt_thread_set_name(NULL); /* ignored */
  wt_registry_thread_name(t, name);
  CHECK_EQ_STR(name, "renderer");
  char long_name[100];
  memset(long_name, 'L', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  wt_thread_set_name(long_name);
  wt_registry_thread_name(t, name);
  CHECK_EQ_INT(strlen(name), WT_THREAD_NAME_MAX - 1);
  CHECK(strncmp(name, long_name, WT_THREAD_NAME_MAX - 1) == 0);
  /* A thread that names itself before anything else registers then. */
  seen_thread other = {0};
  run_on_thread(rename_before_first_use, &other);
  CHECK_EQ_STR(other.name, "decoder");
  CHECK_EQ_INT(wt_registry_count(), 2);
}

/* ---- scopes and the shadow stack ---------------------------------------- */

WT_TEST(scope_begin_should_intern_the_site_name_once) {
  fresh_registry();
  wt_site a = {"alpha", "app", 0, 0}, a_again = {"alpha", "app", 0, 0}, b = {"beta", "app", 0, 0};
  wt_scope_begin(&a);
  uint32_t id = a.id;
  CHECK(id & WT_FRAME_SCOPE_BIT);
  CHECK(wt_registry_scope_name(id) == a.name);
  wt_scope_end();
  wt_scope_begin(&a);
  wt_scope_end();
  CHECK_EQ_U64(a.id, id);
  /* Interning is by pointer: another site with the same literal shares it. */
  wt_scope_begin(&a_again);
  wt_scope_end();
  CHECK_EQ_U64(a_again.id, id);
  wt_scope_begin(&b);
  wt_scope_end();
  CHECK(b.id != id && (b.id & WT_FRAME_SCOPE_BIT));
  CHECK_EQ_STR(wt_registry_scope_name(b.id), "beta");
  CHECK_EQ_U64(wt_registry_intern(a.name), id);
}

WT_TEST(registry_intern_should_give_equal_text_at_another_address_its_own_id) {
  fresh_registry();
  static const char one[] = "same", two[] = "same";
  uint32_t a = wt_registry_intern(one), b = wt_registry_intern(two);
  CHECK(a != 0 && b != 0 && a != b);
  CHECK(wt_registry_scope_name(a) == one);
  CHECK(wt_registry_scope_name(b) == two);
  CHECK_EQ_U64(wt_registry_intern(one), a);
  CHECK_EQ_U64(wt_registry_intern(NULL), 0);
}

WT_TEST(registry_scope_name_should_reject_ids_that_were_never_interned) {
  fresh_registry();
  uint32_t id = wt_registry_intern("only");
  CHECK(wt_registry_scope_name(id) != NULL);
  CHECK(wt_registry_scope_name(id + 1) == NULL);
  CHECK(wt_registry_scope_name(id & ~WT_FRAME_SCOPE_BIT) == NULL); /* a table index */
  CHECK(wt_registry_scope_name(WT_FRAME_SCOPE_BIT | 65535u) == NULL);
  CHECK(wt_registry_scope_name(0) == NULL);
}

/* The name tables grow with the names (never their full size up front):
 * every id keeps its name across each growth, up to the limit, past which
 * every new name shares the overflow sentinel. */
static char many_names[WT_MAX_NAMES + 8][8];
WT_TEST(registry_intern_should_keep_every_name_while_its_tables_grow) {
  fresh_registry();
  static uint32_t ids[WT_MAX_NAMES + 8];
  size_t before = wt_mem_own_bytes();
  ids[0] = wt_registry_intern(many_names[0]);
  /* The first name takes a small table, not the whole limit's. */
  CHECK(wt_mem_own_bytes() - before < 16 * 1024);
  for (uint32_t i = 1; i < WT_MAX_NAMES + 8; i++) ids[i] = wt_registry_intern(many_names[i]);
  for (uint32_t i = 0; i < WT_MAX_NAMES - 1; i++) {
    CHECK_EQ_U64(ids[i], WT_FRAME_SCOPE_BIT | i);
    CHECK(wt_registry_scope_name(ids[i]) == many_names[i]);
    if (i % 4099 == 0) CHECK_EQ_U64(wt_registry_intern(many_names[i]), ids[i]); /* found again */
  }
  for (uint32_t i = WT_MAX_NAMES - 1; i < WT_MAX_NAMES + 8; i++) {
    CHECK_EQ_U64(ids[i], WT_FRAME_SCOPE_BIT | (WT_MAX_NAMES - 1));
    CHECK_EQ_STR(wt_registry_scope_name(ids[i]), "(too many scope names)");
  }
  fresh_registry();
}

/* A heap that refuses the tables' growth gives 0 (no name) for the new
 * name and keeps the names it has. */
WT_TEST(registry_intern_should_give_no_id_when_the_heap_refuses_and_keep_the_others) {
  fresh_registry();
  uint32_t first = wt_registry_intern(many_names[0]);
  uint32_t i = 1;
  for (; i < WT_NAME_MAP_FIRST / 2; i++) wt_registry_intern(many_names[i]); /* the map is now half full */
  wt_mem_fail_after_for_testing(0);
  uint32_t refused = wt_registry_intern(many_names[i]);
  wt_mem_fail_after_for_testing(-1);
  CHECK_EQ_U64(refused, 0);
  CHECK(wt_registry_scope_name(first) == many_names[0]);
  CHECK_EQ_U64(wt_registry_intern(many_names[0]), first);
  CHECK_EQ_U64(wt_registry_intern(many_names[i]), WT_FRAME_SCOPE_BIT | i); /* the heap gives again */
  fresh_registry();
}

WT_TEST(scope_begin_and_end_should_push_and_pop_frames) {
  fresh_registry();
  wt_site a = {"A", "app", 0, 0}, b = {"B", "app", 0, 0}, c = {"C", "app", 0, 0};
  wt_thread *t = wt_thread_self();
  REQUIRE(t != NULL);
  uint64_t pushes = pushes_of(t);
  wt_scope_begin(&a);
  CHECK_EQ_INT(depth_of(t), 1);
  wt_scope_begin(&b);
  wt_scope_begin(&c);
  CHECK_EQ_INT(depth_of(t), 3);
  CHECK_EQ_U64(pushes_of(t), pushes + 3);
  CHECK_EQ_U64(WT_SLOT_ID(atomic_load(&t->frames[0]), 0), a.id);
  CHECK_EQ_U64(WT_SLOT_ID(atomic_load(&t->frames[1]), 1), b.id);
  CHECK_EQ_U64(WT_SLOT_ID(atomic_load(&t->frames[2]), 2), c.id);
  wt_scope_end();
  CHECK_EQ_INT(depth_of(t), 2);
  wt_scope_begin(&a); /* overwrites frames[2] */
  CHECK_EQ_U64(WT_SLOT_ID(atomic_load(&t->frames[2]), 2), a.id);
  CHECK_EQ_U64(pushes_of(t), pushes + 4);
  wt_scope_end();
  wt_scope_end();
  wt_scope_end();
  CHECK_EQ_INT(depth_of(t), 0);
  CHECK_EQ_U64(pushes_of(t), pushes + 4); /* pops do not count */
}

WT_TEST(scope_macro_should_close_at_the_end_of_its_block) {
  fresh_registry();
  wt_thread *t = wt_thread_self();
  REQUIRE(t != NULL);
  {
    WT_SCOPE("block");
    CHECK_EQ_INT(depth_of(t), 1);
    CHECK_EQ_STR(wt_registry_scope_name(WT_SLOT_ID(atomic_load(&t->frames[0]), 0)), "block");
    WT_BEGIN("inner");
    CHECK_EQ_INT(depth_of(t), 2);
    WT_END();
    CHECK_EQ_INT(depth_of(t), 1);
  }
  CHECK_EQ_INT(depth_of(t), 0);
}

WT_TEST(scope_end_on_an_empty_stack_should_be_ignored) {
  fresh_registry();
  wt_site a = {"A", "app", 0, 0};
  wt_thread *t = wt_thread_self();
  REQUIRE(t != NULL);
  uint64_t top = atomic_load(&t->top);
  uint32_t written = ring_written(t);
  wt_scope_end();
  wt_scope_end();
  CHECK_EQ_U64(atomic_load(&t->top), top);
  CHECK_EQ_U64(ring_written(t), written); /* no END event either */
  wt_scope_begin(&a);
  wt_scope_end();
  wt_scope_end();
  CHECK_EQ_INT(depth_of(t), 0);
  CHECK_EQ_U64(ring_written(t), written + 2);
}

WT_TEST(stack_copy_should_return_the_current_stack) {
  fresh_registry();
  wt_site a = {"A", "app", 0, 0}, b = {"B", "app", 0, 0};
  wt_thread *t = wt_thread_self();
  REQUIRE(t != NULL);
  uint32_t out[WT_MAX_DEPTH], depth = 99;
  CHECK_EQ_INT(copy_whole(t, out, &depth), 0);
  CHECK_EQ_INT(depth, 0);
  wt_scope_begin(&a);
  wt_scope_begin(&b);
  CHECK_EQ_INT(copy_whole(t, out, &depth), 2);
  CHECK_EQ_INT(depth, 2);
  CHECK_EQ_U64(out[0], a.id);
  CHECK_EQ_U64(out[1], b.id);
  wt_scope_end();
  CHECK_EQ_INT(copy_whole(t, out, &depth), 1);
  CHECK_EQ_U64(out[0], a.id);
  wt_scope_end();
}

WT_TEST(stack_copy_should_report_the_true_depth_beyond_the_frame_limit) {
  fresh_registry();
  wt_site even = {"even", "app", 0, 0}, odd = {"odd", "app", 0, 0};
  wt_thread *t = wt_thread_self();
  REQUIRE(t != NULL);
  const uint32_t n = WT_MAX_DEPTH + 44;
  for (uint32_t i = 0; i < n; i++) wt_scope_begin(i % 2 ? &odd : &even);
  uint32_t out[WT_MAX_DEPTH], depth = 0;
  CHECK_EQ_INT(copy_whole(t, out, &depth), WT_MAX_DEPTH);
  CHECK_EQ_INT(depth, n);
  int mismatches = 0;
  for (uint32_t i = 0; i < WT_MAX_DEPTH; i++) mismatches += out[i] != (i % 2 ? odd.id : even.id);
  CHECK_EQ_INT(mismatches, 0);
  /* Popping back below the limit shows the frames kept underneath. */
  for (uint32_t i = 0; i < n - 3; i++) wt_scope_end();
  CHECK_EQ_INT(copy_whole(t, out, &depth), 3);
  CHECK(out[0] == even.id && out[1] == odd.id && out[2] == even.id);
  for (int i = 0; i < 3; i++) wt_scope_end();
  CHECK_EQ_INT(depth_of(t), 0);
}

WT_TEST(stack_should_survive_more_nesting_than_a_16_bit_counter_holds) {
  fresh_registry();
  wt_site a = {"deep", "app", 0, 0};
  wt_thread *t = wt_thread_self();
  REQUIRE(t != NULL);
  const uint32_t max = 0xffff, extra = 5;
  for (uint32_t i = 0; i < max + extra; i++) wt_scope_begin(&a);
  CHECK_EQ_INT(depth_of(t), max + extra);
  for (uint32_t i = 0; i < extra; i++) wt_scope_end();
  CHECK_EQ_INT(depth_of(t), max);
  wt_scope_end();
  CHECK_EQ_INT(depth_of(t), max - 1);
  for (uint32_t i = 0; i < max - 1; i++) wt_scope_end();
  CHECK_EQ_INT(depth_of(t), 0);
  uint32_t out[WT_MAX_DEPTH], depth = 1;
  CHECK_EQ_INT(copy_whole(t, out, &depth), 0);
  CHECK_EQ_INT(depth, 0);
}

WT_TEST(instrument_hooks_should_push_and_pop_table_indices) {
  fresh_registry();
  wt_thread *t = wt_thread_self();
  REQUIRE(t != NULL);
  uint32_t written = ring_written(t);
  __cyg_profile_func_enter((void *)(uintptr_t)42, NULL);
  __cyg_profile_func_enter((void *)(uintptr_t)7, NULL);
  uint32_t out[WT_MAX_DEPTH], depth = 0;
  CHECK_EQ_INT(copy_whole(t, out, &depth), 2);
  CHECK(out[0] == 42 && out[1] == 7);
  CHECK(wt_registry_scope_name(out[0]) == NULL); /* not a scope frame */
  __cyg_profile_func_exit((void *)(uintptr_t)7, NULL);
  __cyg_profile_func_exit((void *)(uintptr_t)42, NULL);
  __cyg_profile_func_exit((void *)(uintptr_t)42, NULL); /* unbalanced: ignored */
  CHECK_EQ_INT(depth_of(t), 0);
  CHECK_EQ_U64(ring_written(t), written); /* function frames make no events */
}

/* ---- ring events -------------------------------------------------------- */

WT_TEST(scopes_should_record_begin_and_end_events_with_their_depths) {
  fresh_registry();
  wt_site a = {"A", "app", 0, 0}, b = {"B", "app", 0, 0};
  wt_thread *t = wt_thread_self();
  REQUIRE(t != NULL);
  uint32_t w0 = ring_written(t);
  wt_scope_begin(&a);
  wt_scope_begin(&b);
  wt_scope_end();
  wt_scope_end();
  REQUIRE_EQ_INT(ring_written(t) - w0, 4);
  static const struct {
    uint32_t kind, depth;
  } expected[] = {{WT_EVENT_BEGIN, 0}, {WT_EVENT_BEGIN, 1}, {WT_EVENT_END, 1}, {WT_EVENT_END, 0}};
  double prev_ts = 0;
  for (uint32_t i = 0; i < 4; i++) {
    const wt_event *e = ring_at(t, w0 + i);
    CHECK_EQ_INT(WT_EVENT_KIND(e->info), expected[i].kind);
    CHECK_EQ_INT(WT_EVENT_DEPTH(e->info), expected[i].depth);
    CHECK(!(e->info & WT_EVENT_GAP));
    CHECK(e->ts_us > 0 && e->ts_us >= prev_ts);
    prev_ts = e->ts_us;
  }
  CHECK_EQ_U64(ring_at(t, w0)->id, a.id);
  CHECK_EQ_U64(ring_at(t, w0 + 1)->id, b.id);
}

WT_TEST(ring_should_count_dropped_events_when_full_and_flag_the_next_one) {
  fresh_registry();
  wt_site a = {"A", "app", 0, 0};
  wt_thread *t = wt_thread_self();
  REQUIRE(t != NULL);
  /* Nobody drains this ring: it holds WT_RING_CAPACITY events. */
  const uint32_t pairs = WT_RING_CAPACITY / 2 + 5;
  for (uint32_t i = 0; i < pairs; i++) {
    wt_scope_begin(&a);
    wt_scope_end();
  }
  CHECK_EQ_INT(ring_written(t), WT_RING_CAPACITY);
  CHECK_EQ_U64(atomic_load(&t->ring_dropped), 2 * pairs - WT_RING_CAPACITY);
  CHECK_EQ_INT(depth_of(t), 0); /* the stack itself is never dropped */
  /* The reader catches up (what the worker does), then the next event
   * says that some were lost before it, and the one after does not. */
  atomic_store(&t->ring_read, ring_written(t));
  wt_scope_begin(&a);
  wt_scope_end();
  REQUIRE_EQ_INT(ring_written(t), WT_RING_CAPACITY + 2);
  const wt_event *first = ring_at(t, WT_RING_CAPACITY), *second = ring_at(t, WT_RING_CAPACITY + 1);
  CHECK(first->info & WT_EVENT_GAP);
  CHECK_EQ_INT(WT_EVENT_KIND(first->info), WT_EVENT_BEGIN);
  CHECK(!(second->info & WT_EVENT_GAP));
  CHECK_EQ_INT(WT_EVENT_KIND(second->info), WT_EVENT_END);
}

/* ---- a concurrent reader ------------------------------------------------- */

/* A writer thread pushes and pops stacks that are always a prefix of one
 * "family" [F0, F1, F2, F3], and changes family only at depth 0. So every
 * stack that ever exists is homogeneous: frame i is frames[f][i] of one
 * family f. The test thread copies the stack meanwhile (as the sampler
 * does). A copy with a frame at the wrong depth, or with frames of two
 * families, is a stack that never existed: a torn copy that
 * wt_stack_copy() did not detect. */
#define FAMILIES 3
#define FAMILY_DEPTH 4

typedef struct race {
  int use_hooks;                            /* push with the hooks, not scopes */
  int fixed_depth;                          /* 0: depths 1..FAMILY_DEPTH in turn */
  wt_site sites[FAMILIES][FAMILY_DEPTH];    /* scope writer */
  uint32_t frames[FAMILIES][FAMILY_DEPTH];  /* the frame ids either way */
  _Atomic(wt_thread *) thread;              /* set once the writer is ready */
  _Atomic int stop;
  _Atomic uint64_t rounds;
  _Atomic uint64_t batches; /* batches of copies the reader finished */
} race;

typedef struct race_result {
  uint64_t copies, partial, misplaced, mixed, nonempty, deepest, rounds;
} race_result;

static const char *const site_names[FAMILIES][FAMILY_DEPTH] = {
    {"f0d0", "f0d1", "f0d2", "f0d3"},
    {"f1d0", "f1d1", "f1d2", "f1d3"},
    {"f2d0", "f2d1", "f2d2", "f2d3"},
};

static void race_push(race *r, int f, int d) {
  if (r->use_hooks)
    __cyg_profile_func_enter((void *)(uintptr_t)r->frames[f][d], NULL);
  else
    wt_scope_begin(&r->sites[f][d]);
}

static void race_pop(race *r) {
  if (r->use_hooks)
    __cyg_profile_func_exit(NULL, NULL);
  else
    wt_scope_end();
}

static double now_s(void);

/* Holds the stack still until the reader has finished two more batches of
 * copies (or 2 ms passed), so that copies also see the full and the empty
 * stack, whatever the load of the machine, not only in the rare gaps of a
 * full-speed writer. */
static void hold_still(race *r) {
  uint64_t until = atomic_load(&r->batches) + 2;
  double give_up = now_s() + 2e-3;
  while (atomic_load(&r->batches) < until && now_s() < give_up && !atomic_load(&r->stop)) {
  }
}

static void *race_writer(void *arg) {
  race *r = arg;
  /* One round of everything interns the scope names before the reader
   * starts and learns their ids. */
  for (int f = 0; f < FAMILIES; f++)
    for (int d = 0; d < FAMILY_DEPTH; d++) {
      race_push(r, f, d);
      race_pop(r);
      if (!r->use_hooks) r->frames[f][d] = r->sites[f][d].id;
    }
  atomic_store(&r->thread, wt_thread_self());
  for (uint64_t g = 0; !atomic_load_explicit(&r->stop, memory_order_relaxed); g++) {
    int f = (int)(g % FAMILIES);
    int depth = r->fixed_depth ? r->fixed_depth : 1 + (int)((g / FAMILIES) % FAMILY_DEPTH);
    for (int d = 0; d < depth; d++) race_push(r, f, d);
    /* Every 4th cycle of all depths, hold the full and the empty stack. */
    int hold = depth == FAMILY_DEPTH && (g / (FAMILIES * FAMILY_DEPTH)) % 4 == 0;
    if (hold) hold_still(r);
    /* Down and up again inside the family: frames are also overwritten
     * with the same value at depth > 0. */
    if (depth > 1) {
      race_pop(r);
      race_push(r, f, depth - 1);
    }
    for (int d = 0; d < depth; d++) race_pop(r);
    if (hold) hold_still(r);
    atomic_store_explicit(&r->rounds, g + 1, memory_order_relaxed);
  }
  return NULL;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs a writer and copies its stack at least min_copies times, and until
 * the writer made min_rounds rounds meanwhile (whatever the machine's
 * speed; max_seconds is only a safety net). With stop_when_mixed, stops at
 * the first mixed copy. */
/* Judges one copy (n frames of a stack `depth` deep; partial: only a
 * prefix of it) into res. Returns 1 if it mixes families. */
static int judge_copy(const race *r, const uint32_t *out, int n, uint32_t depth, int partial,
                      race_result *res) {
  /* placed: the copy has the length it claims, and frame i is the i-th
   * frame of some family; mixed: of another family than frame 0. A
   * partial copy is a prefix (every prefix of a stack here is itself
   * homogeneous, so it is judged the same way). */
  if (partial) res->partial++;
  int placed = depth <= FAMILY_DEPTH && n >= 0 && (partial ? (uint32_t)n < depth : (uint32_t)n == depth);
  int mixed = 0, family0 = -1;
  for (int i = 0; placed && i < n; i++) {
    int found = -1;
    for (int f = 0; f < FAMILIES; f++)
      if (out[i] == r->frames[f][i]) found = f;
    if (i == 0) family0 = found;
    placed = found >= 0;
    if (placed && found != family0) mixed = 1;
  }
  if (!placed || mixed) {
    if (res->misplaced + res->mixed < 3) {
      fprintf(stderr, "    %s copy (depth %u):", placed ? "mixed" : "misplaced", depth);
      for (int i = 0; i < n && i < FAMILY_DEPTH; i++) {
        int f = -1, d = -1;
        for (int ff = 0; ff < FAMILIES; ff++)
          for (int dd = 0; dd < FAMILY_DEPTH; dd++)
            if (out[i] == r->frames[ff][dd]) f = ff, d = dd;
        fprintf(stderr, " f%dd%d", f, d);
      }
      fputc('\n', stderr);
    }
    if (placed) res->mixed++;
    else res->misplaced++;
  }
  if (n > 0) res->nonempty++;
  if ((uint64_t)n > res->deepest) res->deepest = (uint64_t)n;
  return mixed;
}

/* Runs a writer and copies its stack at least min_copies times, and until
 * the writer made min_rounds rounds meanwhile (whatever the machine's
 * speed; max_seconds is only a safety net). Copies are taken in batches
 * and judged after each batch, so that the reader spends most of its time
 * copying. With stop_when_mixed, stops after the batch with a mixed copy. */
#define RACE_BATCH 1024
static int run_race(race *r, uint64_t min_copies, uint64_t min_rounds, double max_seconds,
                    int stop_when_mixed, race_result *res) {
  memset(res, 0, sizeof *res);
  const char *env = getenv("WT_STACK_RACE_COPIES"); /* a longer race by hand */
  if (env && strtoull(env, NULL, 10) > 0) {
    min_copies = strtoull(env, NULL, 10);
    max_seconds = 3600;
  }
  static struct {
    int n, partial;
    uint32_t depth;
    uint32_t frames[FAMILY_DEPTH];
  } batch[RACE_BATCH];
  pthread_t writer;
  if (pthread_create(&writer, NULL, race_writer, r) != 0) return 0;
  double give_up = now_s() + max_seconds;
  while (!atomic_load(&r->thread) && now_s() < give_up) sched_yield();
  wt_thread *t = atomic_load(&r->thread);
  uint64_t rounds_at_start = atomic_load(&r->rounds);
  uint32_t out[WT_MAX_DEPTH];
  int stop = 0;
  while (t && !stop &&
         (res->copies < min_copies || atomic_load(&r->rounds) - rounds_at_start < min_rounds)) {
    if (now_s() > give_up) break;
    for (int i = 0; i < RACE_BATCH; i++) {
      batch[i].n = wt_stack_copy(t, out, &batch[i].depth, &batch[i].partial);
      memcpy(batch[i].frames, out, sizeof batch[i].frames);
    }
    for (int i = 0; i < RACE_BATCH; i++) {
      int n = batch[i].n > FAMILY_DEPTH ? FAMILY_DEPTH + 1 : batch[i].n; /* > 4: misplaced */
      if (judge_copy(r, batch[i].frames, n, batch[i].depth, batch[i].partial, res) && stop_when_mixed)
        stop = 1;
    }
    res->copies += RACE_BATCH;
    atomic_fetch_add(&r->batches, 1);
    /* Enough copies, too few rounds: the writer is starved (a loaded
     * machine, sanitizers). Give it the core between batches instead of
     * racing it for the safety net's whole time. */
    if (res->copies >= min_copies) {
      struct timespec pause = {0, 200000};
      nanosleep(&pause, NULL);
    }
  }
  atomic_store(&r->stop, 1);
  pthread_join(writer, NULL);
  res->rounds = atomic_load(&r->rounds) - rounds_at_start;
  fprintf(stderr,
          "    %llu copies: %llu partial, %llu misplaced, %llu mixed; %llu writer rounds\n",
          (unsigned long long)res->copies, (unsigned long long)res->partial,
          (unsigned long long)res->misplaced, (unsigned long long)res->mixed,
          (unsigned long long)res->rounds);
  return t != NULL;
}

static race *new_race(int use_hooks) {
  race *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->use_hooks = use_hooks;
  for (int f = 0; f < FAMILIES; f++)
    for (int d = 0; d < FAMILY_DEPTH; d++) {
      r->sites[f][d] = (wt_site){site_names[f][d], "app", 0, 0};
      r->frames[f][d] = (uint32_t)(1 + 16 * f + d); /* hook frames: table indices */
    }
  return r;
}

WT_TEST(stack_copy_should_keep_up_with_a_thread_that_changes_its_stack) {
  fresh_registry();
  race *r = new_race(0);
  REQUIRE(r != NULL);
  race_result res;
  int ran = run_race(r, 200000, 20000, 200, 0, &res); /* 200 s: a safety net under heavy load only (ctest: 300 s) */
  free(r);
  REQUIRE(ran);
  CHECK(res.copies >= 200000);
  CHECK(res.rounds >= 20000);
  /* Every copy has each frame at its own depth. (Frames of two families in
   * one copy are the known bug of the next test, counted there.) */
  CHECK_EQ_U64(res.misplaced, 0);
  /* Partial copies stay the exception (measured: none in 36 M host and
   * 85 M wasm copies); a protocol that cut every copy short fails here. */
  CHECK(res.partial * 10 <= res.copies);
  /* The copies saw the stack move: empty, non-empty and full stacks. */
  CHECK(res.nonempty > 0 && res.nonempty < res.copies);
  CHECK_EQ_U64(res.deepest, FAMILY_DEPTH);
}

/* Regression (fixed; registry.h protocol, wt_stack_copy): a push stores its frame
 * before it publishes the new push count, so a reader can see the new frame
 * with the old count. Stack [A0,A1] -> pop, pop -> store frames[0] = B0
 * (not yet published): a copy that loaded top before the pops reads
 * [B0, A1], then loads top again, sees the same push count and accepts a
 * stack that never existed. The hooks push faster than scopes, which makes
 * the window easier to hit; how often a run hits it depends on the machine
 * and its load (under ASan here: from a few thousand copies to not at all
 * in 2 million), so this test only reports the bug when it sees it.
 * stack_copy_should_not_accept_a_frame_of_a_push_that_is_not_published
 * below shows the same interleaving deterministically. */
WT_TEST(stack_copy_should_never_mix_frames_of_two_stacks) {
  fresh_registry();
  race *r = new_race(1);
  REQUIRE(r != NULL);
  r->fixed_depth = 2; /* [A0,A1] -> [] -> [B0,B1] -> ...: the most windows */
  race_result res;
  int ran = run_race(r, 2000000, 20000, 10, 1, &res);
  free(r);
  REQUIRE(ran);
  CHECK_EQ_U64(res.misplaced, 0);
  CHECK_EQ_U64(res.mixed, 0);
  CHECK(res.partial * 10 <= res.copies);
}

/* Regression (fixed), shown deterministically: the reader is stopped in the middle
 * of its copy (a page fault on the frames it has not read yet: the copy
 * reads the deepest frame first, on the second page), the owner pops two
 * frames and starts a push at depth 14 (stores the frame, has not
 * published the new top yet), then the copy goes on. The copy must be a
 * stack that existed, or a true prefix of one marked partial: a reader
 * that trusted the push count would return [A0..A13, B14, A15]. */
#define GUARDED_DEPTH 16
#define GUARD_INDEX 15 /* the first frame on the second page */

static wt_thread *guarded_thread;
static char *guard_page;
static volatile sig_atomic_t guard_faults;

static void on_guard_fault(int sig, siginfo_t *info, void *context) {
  (void)context;
  char *addr = info->si_addr;
  if (guard_faults || addr < guard_page || addr >= guard_page + 4096) {
    signal(sig, SIG_DFL); /* not ours: crash as usual on return */
    return;
  }
  guard_faults++;
  mprotect(guard_page, 4096, PROT_READ | PROT_WRITE);
  /* What the owner does meanwhile: pop, pop, and the first half of a push
   * of another frame at the same depth. */
  uint32_t depth;
  wt_stack_pop(guarded_thread, &depth);
  wt_stack_pop(guarded_thread, &depth);
  uint64_t tag = WT_TOP_PUSHES(atomic_load(&guarded_thread->top)) + 1;
  /* The slot format of wt_stack_push: the `top` before the push xor the id. */
  uint64_t top_before = ((tag - 1) << 32) | (GUARD_INDEX - 1);
  WT_I_STORE_FRAME(&guarded_thread->frames[GUARD_INDEX - 1], top_before ^ (0xb0u + GUARD_INDEX - 1));
}

WT_TEST(stack_copy_should_not_accept_a_frame_of_a_push_that_is_not_published) {
  long page = sysconf(_SC_PAGESIZE);
  REQUIRE(page == 4096);
  size_t size = (sizeof(wt_thread) / 4096 + 3) * 4096;
  char *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mem != MAP_FAILED);
  /* The thread record starts 128 bytes before a page boundary: top and
   * frames[0..14] on one page, frames[15..] on the next. */
  guarded_thread = (wt_thread *)(mem + 4096 - 128);
  guard_page = mem + 4096;
  REQUIRE((char *)&guarded_thread->frames[GUARD_INDEX] == guard_page);
  guard_faults = 0;
  for (uint32_t i = 0; i < GUARDED_DEPTH; i++) wt_stack_push(guarded_thread, 0xa0u + i);

  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_guard_fault;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  REQUIRE(sigaction(SIGSEGV, &sa, &old) == 0);
  REQUIRE(mprotect(guard_page, 4096, PROT_NONE) == 0);
  uint32_t out[WT_MAX_DEPTH], depth = 0;
  int partial = -1;
  int n = wt_stack_copy(guarded_thread, out, &depth, &partial);
  sigaction(SIGSEGV, &old, NULL);
  mprotect(guard_page, 4096, PROT_READ | PROT_WRITE);

  CHECK_EQ_INT(guard_faults, 1); /* the interleaving did happen */
  /* Any stack that existed ([A0..A15], [A0..A14] or [A0..A13]), or a
   * marked prefix of one that keeps everything below the frames that
   * moved (at least [A0..A13]). */
  CHECK(n >= GUARD_INDEX - 1 && (uint32_t)n <= depth && depth <= GUARDED_DEPTH);
  CHECK_EQ_INT(partial, (uint32_t)n < depth);
  int wrong = 0;
  for (int i = 0; i < n; i++) wrong += out[i] != 0xa0u + (uint32_t)i;
  if (wrong) {
    fprintf(stderr, "    copied %d frames:", n);
    for (int i = GUARD_INDEX - 2; i < n; i++) fprintf(stderr, " [%d]=0x%x", i, out[i]);
    fputc('\n', stderr);
  }
  CHECK_EQ_INT(wrong, 0);
  munmap(mem, size);
}

int main(int argc, char **argv) {
  static const wt_test tests[] = {
      WT_TEST_ENTRY(thread_self_should_register_a_thread_once),
      WT_TEST_ENTRY(thread_self_should_name_the_main_thread_main),
      WT_TEST_ENTRY(thread_self_should_name_other_threads_pthread_and_their_slot),
      WT_TEST_ENTRY(registry_should_mark_a_thread_that_exited_and_keep_it),
      WT_TEST_ENTRY(registry_should_never_register_an_excluded_thread),
      WT_TEST_ENTRY(thread_set_name_should_rename_the_calling_thread),
      WT_TEST_ENTRY(scope_begin_should_intern_the_site_name_once),
      WT_TEST_ENTRY(registry_intern_should_give_equal_text_at_another_address_its_own_id),
      WT_TEST_ENTRY(registry_scope_name_should_reject_ids_that_were_never_interned),
      WT_TEST_ENTRY(registry_intern_should_keep_every_name_while_its_tables_grow),
      WT_TEST_ENTRY(registry_intern_should_give_no_id_when_the_heap_refuses_and_keep_the_others),
      WT_TEST_ENTRY(scope_begin_and_end_should_push_and_pop_frames),
      WT_TEST_ENTRY(scope_macro_should_close_at_the_end_of_its_block),
      WT_TEST_ENTRY(scope_end_on_an_empty_stack_should_be_ignored),
      WT_TEST_ENTRY(stack_copy_should_return_the_current_stack),
      WT_TEST_ENTRY(stack_copy_should_report_the_true_depth_beyond_the_frame_limit),
      WT_TEST_ENTRY(stack_should_survive_more_nesting_than_a_16_bit_counter_holds),
      WT_TEST_ENTRY(instrument_hooks_should_push_and_pop_table_indices),
      WT_TEST_ENTRY(scopes_should_record_begin_and_end_events_with_their_depths),
      WT_TEST_ENTRY(ring_should_count_dropped_events_when_full_and_flag_the_next_one),
      WT_TEST_ENTRY(stack_copy_should_keep_up_with_a_thread_that_changes_its_stack),
      WT_TEST_HOST_ONLY(stack_copy_should_not_accept_a_frame_of_a_push_that_is_not_published,
                        "stops the copy with mprotect and a SIGSEGV handler"),
      WT_TEST_ENTRY(stack_copy_should_never_mix_frames_of_two_stacks),
  };
  int rc = wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
  wt_runtime_reset_for_testing(0);
  return rc;
}
