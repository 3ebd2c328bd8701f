/* The bounded ring (ring.h) and the u32 hash table (u32map.h): growth,
 * wrap-around, and the full policies the session's memory limit relies on. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"
#include "u32map.h"
#include "wt_test.h"

static uint32_t at_u32(const wt_ring *r, size_t i) { return *(const uint32_t *)wt_ring_at(r, i); }

/* Appends v if there is room; returns what make_room said. */
static wt_ring_room push(wt_ring *r, uint32_t v, size_t budget, size_t initial, int keep_newest) {
  wt_ring_room room = wt_ring_make_room(r, budget, initial, keep_newest);
  if (room != WT_RING_REFUSED) *(uint32_t *)wt_ring_push(r) = v;
  return room;
}

WT_TEST(ring_should_grow_by_doubling_up_to_its_budget) {
  wt_ring r;
  wt_ring_init(&r, sizeof(uint32_t));
  CHECK_EQ_INT(r.cap, 0);
  CHECK_EQ_INT(push(&r, 0, 10, 4, 0), WT_RING_GREW);
  CHECK_EQ_INT(r.cap, 4);
  for (uint32_t v = 1; v < 4; v++) CHECK_EQ_INT(push(&r, v, 10, 4, 0), WT_RING_FREE);
  CHECK_EQ_INT(push(&r, 4, 10, 4, 0), WT_RING_GREW);
  CHECK_EQ_INT(r.cap, 8);
  for (uint32_t v = 5; v < 8; v++) push(&r, v, 10, 4, 0);
  CHECK_EQ_INT(push(&r, 8, 10, 4, 0), WT_RING_GREW);
  CHECK_EQ_INT(r.cap, 10); /* the last step stops at the budget */
  CHECK_EQ_INT(wt_ring_bytes(&r), 10 * sizeof(uint32_t));
  for (uint32_t i = 0; i < r.count; i++) CHECK_EQ_INT(at_u32(&r, i), i);
  wt_ring_free(&r);
  CHECK(r.data == NULL && r.cap == 0 && r.count == 0);
}

WT_TEST(ring_should_keep_order_when_it_grows_while_wrapped) {
  wt_ring r;
  wt_ring_init(&r, sizeof(uint32_t));
  for (uint32_t v = 0; v < 4; v++) push(&r, v, 100, 4, 0);
  wt_ring_drop(&r, 3); /* head now at 3: the next pushes wrap */
  for (uint32_t v = 4; v < 7; v++) CHECK_EQ_INT(push(&r, v, 100, 4, 0), WT_RING_FREE);
  CHECK_EQ_INT(r.head, 3);
  CHECK_EQ_INT(push(&r, 7, 100, 4, 0), WT_RING_GREW);
  CHECK_EQ_INT(r.head, 0);
  REQUIRE_EQ_INT(r.count, 5);
  for (uint32_t i = 0; i < 5; i++) CHECK_EQ_INT(at_u32(&r, i), 3 + i);
  wt_ring_free(&r);
}

WT_TEST(ring_mode_should_drop_the_oldest_when_full) {
  wt_ring r;
  wt_ring_init(&r, sizeof(uint32_t));
  for (uint32_t v = 0; v < 4; v++) push(&r, v, 4, 4, 1);
  CHECK_EQ_INT(push(&r, 4, 4, 4, 1), WT_RING_EVICTED);
  CHECK_EQ_INT(push(&r, 5, 4, 4, 1), WT_RING_EVICTED);
  REQUIRE_EQ_INT(r.count, 4);
  CHECK_EQ_INT(r.cap, 4); /* never past the budget */
  for (uint32_t i = 0; i < 4; i++) CHECK_EQ_INT(at_u32(&r, i), 2 + i);
  wt_ring_free(&r);
}

WT_TEST(stop_mode_should_refuse_the_newest_when_full) {
  wt_ring r;
  wt_ring_init(&r, sizeof(uint32_t));
  for (uint32_t v = 0; v < 4; v++) push(&r, v, 4, 4, 0);
  CHECK_EQ_INT(push(&r, 4, 4, 4, 0), WT_RING_REFUSED);
  REQUIRE_EQ_INT(r.count, 4);
  for (uint32_t i = 0; i < 4; i++) CHECK_EQ_INT(at_u32(&r, i), i);
  wt_ring_free(&r);
}

WT_TEST(ring_with_a_zero_budget_should_take_nothing_in_either_mode) {
  wt_ring r;
  wt_ring_init(&r, sizeof(uint32_t));
  CHECK_EQ_INT(push(&r, 1, 0, 4, 1), WT_RING_REFUSED);
  CHECK_EQ_INT(push(&r, 1, 0, 4, 0), WT_RING_REFUSED);
  CHECK_EQ_INT(r.count, 0);
  wt_ring_free(&r);
}

WT_TEST(ring_should_hold_entries_of_any_size) {
  wt_ring r;
  wt_ring_init(&r, 12); /* e.g. an unaligned (double, u32) record */
  for (uint32_t v = 0; v < 40; v++) {
    REQUIRE(wt_ring_make_room(&r, 32, 8, 1) != WT_RING_REFUSED);
    unsigned char *at = wt_ring_push(&r);
    double d = v * 0.5;
    memcpy(at, &d, sizeof d);
    memcpy(at + 8, &v, sizeof v);
  }
  REQUIRE_EQ_INT(r.count, 32);
  for (uint32_t i = 0; i < 32; i++) {
    double d;
    uint32_t v;
    memcpy(&d, wt_ring_at(&r, i), sizeof d);
    memcpy(&v, (unsigned char *)wt_ring_at(&r, i) + 8, sizeof v);
    CHECK_EQ_INT(v, 8 + i);
    CHECK(d == (8 + i) * 0.5);
  }
  wt_ring_free(&r);
}

/* ---- u32map ---------------------------------------------------------------- */

/* A key -> index table: values are index + 1 into keys[]. */
typedef struct table {
  wt_u32map m;
  uint32_t keys[4096];
  uint32_t n;
} table;

static uint32_t find_or_add(table *t, uint32_t key, int add) {
  uint32_t i = wt_u32map_first(&t->m, wt_u32map_hash(key)), v;
  while ((v = wt_u32map_get(&t->m, i)) != 0 && t->keys[v - 1] != key) i = wt_u32map_next(&t->m, i);
  if (v || !add) return v;
  t->keys[t->n++] = key;
  wt_u32map_set(&t->m, i, t->n);
  return t->n;
}

WT_TEST(u32map_should_find_what_was_set_and_nothing_else) {
  static table t;
  memset(&t, 0, sizeof t);
  REQUIRE(wt_u32map_init(&t.m, 2 * 1000, 0));
  CHECK_EQ_INT(t.m.cap, 2048);
  for (uint32_t k = 0; k < 1000; k++) CHECK_EQ_INT(find_or_add(&t, k * 7919u, 1), k + 1);
  for (uint32_t k = 0; k < 1000; k++) CHECK_EQ_INT(find_or_add(&t, k * 7919u, 0), k + 1);
  CHECK_EQ_INT(find_or_add(&t, 1, 0), 0);
  CHECK_EQ_U64(wt_u32map_bytes(&t.m), 2048 * 4);
  wt_u32map_free(&t.m);
}

WT_TEST(u32map_should_keep_colliding_keys_apart) {
  static table t;
  memset(&t, 0, sizeof t);
  REQUIRE(wt_u32map_init(&t.m, 16, 0));
  /* Same hash for every key: one probe chain. */
  for (uint32_t k = 0; k < 8; k++) {
    uint32_t i = wt_u32map_first(&t.m, 5), v;
    while ((v = wt_u32map_get(&t.m, i)) != 0 && t.keys[v - 1] != k) i = wt_u32map_next(&t.m, i);
    CHECK_EQ_INT(v, 0);
    t.keys[t.n++] = k;
    wt_u32map_set(&t.m, i, t.n);
  }
  for (uint32_t k = 0; k < 8; k++) {
    uint32_t i = wt_u32map_first(&t.m, 5), v;
    while ((v = wt_u32map_get(&t.m, i)) != 0 && t.keys[v - 1] != k) i = wt_u32map_next(&t.m, i);
    CHECK_EQ_INT(v, k + 1);
  }
  wt_u32map_free(&t.m);
}

WT_TEST(u32map_reset_should_empty_it_with_or_without_generations) {
  for (int resettable = 0; resettable <= 1; resettable++) {
    static table t;
    memset(&t, 0, sizeof t);
    REQUIRE(wt_u32map_init(&t.m, 64, resettable));
    for (uint32_t k = 0; k < 20; k++) find_or_add(&t, k, 1);
    wt_u32map_reset(&t.m);
    t.n = 0;
    for (uint32_t k = 0; k < 20; k++) CHECK_EQ_INT(find_or_add(&t, k, 0), 0);
    /* Refilled after the reset: new values, found again. */
    for (uint32_t k = 0; k < 20; k++) CHECK_EQ_INT(find_or_add(&t, 100 + k, 1), k + 1);
    for (uint32_t k = 0; k < 20; k++) CHECK_EQ_INT(find_or_add(&t, 100 + k, 0), k + 1);
    CHECK_EQ_U64(wt_u32map_bytes(&t.m), (uint64_t)64 * 4 * (resettable ? 2 : 1));
    wt_u32map_free(&t.m);
  }
}

int main(int argc, char **argv) {
  static const wt_test tests[] = {
      WT_TEST_ENTRY(ring_should_grow_by_doubling_up_to_its_budget),
      WT_TEST_ENTRY(ring_should_keep_order_when_it_grows_while_wrapped),
      WT_TEST_ENTRY(ring_mode_should_drop_the_oldest_when_full),
      WT_TEST_ENTRY(stop_mode_should_refuse_the_newest_when_full),
      WT_TEST_ENTRY(ring_with_a_zero_budget_should_take_nothing_in_either_mode),
      WT_TEST_ENTRY(ring_should_hold_entries_of_any_size),
      WT_TEST_ENTRY(u32map_should_find_what_was_set_and_nothing_else),
      WT_TEST_ENTRY(u32map_should_keep_colliding_keys_apart),
      WT_TEST_ENTRY(u32map_reset_should_empty_it_with_or_without_generations),
  };
  return wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
}
