/* The one allocator of wasmtrace's own memory (see mem.h). */
#include "mem.h"

#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

_Thread_local volatile int wt_i_heap_own;

/* wasmtrace's own blocks are never sampled by the heap shim (heap.h). */
#define OWN(call) (wt_i_heap_own++, own_result = (call), wt_i_heap_own--, own_result)
static _Thread_local void *own_result;

/* The heap rule (mem.h; docs/GUIDE.md, "Memory"): after a request the
 * heap's room still covers the app's headroom, KEEP_SHARE of the heap's
 * maximum and at least KEEP_MIN (malloc grows its top chunk in 64 KiB
 * granules and adds headers, and app threads may allocate between the
 * check and the malloc: the headroom also covers that race), plus every
 * byte wasmtrace then holds (what a stop gives back); and wasmtrace's own
 * bytes stay at most 1/OWN_SHARE of the memory the app is not using (its
 * own plus the room). */
#define KEEP_MIN ((size_t)1 << 20)
#define KEEP_SHARE 8 /* 1/8 of the maximum: 2 MiB of Emscripten's default 16 MiB heap */
#define OWN_SHARE 2
#define CHUNK_OVERHEAD 16 /* malloc's header per chunk, counted against the credit */

/* Bytes wasmtrace's blocks hold now (malloc_usable_size), for the share. */
static _Atomic int64_t own_bytes;

static void own_add(void *p) {
  if (p) atomic_fetch_add_explicit(&own_bytes, (int64_t)malloc_usable_size(p), memory_order_relaxed);
}
static void own_sub(void *p) {
  if (p) atomic_fetch_sub_explicit(&own_bytes, (int64_t)malloc_usable_size(p), memory_order_relaxed);
}

size_t wt_mem_own_bytes(void) {
  int64_t n = atomic_load_explicit(&own_bytes, memory_order_relaxed);
  return n > 0 ? (size_t)n : 0;
}

size_t wt_mem_app_keep(void) {
  size_t max = wt_platform_heap_max();
  if (max == SIZE_MAX) return 0;
  return max / KEEP_SHARE > KEEP_MIN ? max / KEEP_SHARE : KEEP_MIN;
}

/* What the rule lets wasmtrace take of `room` now: n with
 * room - n >= keep + own + n, and own + n <= (own + room) / OWN_SHARE. */
static size_t allowed(size_t room) {
  size_t keep = wt_mem_app_keep(), own = wt_mem_own_bytes();
  size_t by_keep = room > keep + own ? (room - keep - own) / 2 : 0;
  size_t share = (own + room) / OWN_SHARE;
  size_t by_share = share > own ? share - own : 0;
  return by_keep < by_share ? by_keep : by_share;
}

static _Atomic uint64_t refusals;
static _Atomic long fail_after = -1; /* successes left before the seam refuses; -1: off */
static _Thread_local size_t credit, credit_max;
static _Thread_local int credit_is_open;

static int seam_allows(void) {
  long n = atomic_load_explicit(&fail_after, memory_order_relaxed);
  while (n >= 0) {
    if (n == 0) return 0;
    if (atomic_compare_exchange_weak_explicit(&fail_after, &n, n - 1, memory_order_relaxed,
                                              memory_order_relaxed))
      return 1;
  }
  return 1;
}

static int heap_allows(size_t n) {
  size_t room = wt_platform_heap_room(0);
  if (room == SIZE_MAX) return 1;
  if (n <= allowed(room)) return 1;
  /* The slow check (walks malloc's heap): only when the break is near the
   * heap's maximum. */
  room = wt_platform_heap_room(1);
  return n <= allowed(room);
}

/* 1 if a request of n bytes may go to malloc; 2 if it does on the credit. */
static int grant(size_t n) {
  if (seam_allows() && heap_allows(n)) return 1;
  /* The credit stands for memory this thread freed inside the heap; if
   * app threads have taken it since, malloc's free bytes say so. */
  if (credit_is_open && n <= SIZE_MAX - CHUNK_OVERHEAD && credit >= n + CHUNK_OVERHEAD &&
      wt_platform_malloc_free_bytes() >= n + CHUNK_OVERHEAD) {
    credit -= n + CHUNK_OVERHEAD;
    return 2;
  }
  atomic_fetch_add_explicit(&refusals, 1, memory_order_relaxed);
  return 0;
}

static void *granted(int how, size_t n, void *p) {
  if (!p) {
    if (how == 2) credit += n + CHUNK_OVERHEAD;
    atomic_fetch_add_explicit(&refusals, 1, memory_order_relaxed);
  }
  return p;
}

void *wt_mem_alloc(size_t n) {
  int how = grant(n);
  void *p = how ? granted(how, n, OWN(malloc(n ? n : 1))) : NULL;
  own_add(p);
  return p;
}

void *wt_mem_calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) {
    atomic_fetch_add_explicit(&refusals, 1, memory_order_relaxed);
    return NULL;
  }
  size_t n = count * size;
  int how = grant(n);
  void *p = how ? granted(how, n, OWN(calloc(n ? n : 1, 1))) : NULL;
  own_add(p);
  return p;
}

void *wt_mem_realloc(void *p, size_t n) {
  if (!p) return wt_mem_alloc(n);
  int how = grant(n);
  if (!how) return NULL;
  size_t before = malloc_usable_size(p);
  void *q = granted(how, n, OWN(realloc(p, n ? n : 1)));
  if (q) {
    atomic_fetch_sub_explicit(&own_bytes, (int64_t)before, memory_order_relaxed);
    own_add(q);
  }
  return q;
}

void *wt_mem_aligned_alloc(size_t align, size_t n) {
  if (n > SIZE_MAX - align) {
    atomic_fetch_add_explicit(&refusals, 1, memory_order_relaxed);
    return NULL;
  }
  int how = grant(n + align); /* the worst case of the alignment's padding */
  void *p = how ? granted(how, n + align, OWN(aligned_alloc(align, n))) : NULL;
  own_add(p);
  return p;
}

void wt_mem_free(void *p) {
  if (!p) return;
  if (credit_max) {
    /* Memory this thread gives back while finishing is credit again. */
    size_t back = malloc_usable_size(p) + CHUNK_OVERHEAD;
    credit = credit_max - credit > back ? credit + back : credit_max;
  }
  own_sub(p);
  free(p);
}

char *wt_mem_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *copy = wt_mem_alloc(n);
  if (copy) memcpy(copy, s, n);
  return copy;
}

uint64_t wt_mem_refusals(void) { return atomic_load_explicit(&refusals, memory_order_relaxed); }

size_t wt_mem_available(void) {
  size_t room = wt_platform_heap_room(1);
  if (room == SIZE_MAX) return SIZE_MAX;
  return allowed(room);
}

size_t wt_mem_heap_free(void) { return wt_platform_heap_room(1); }

int wt_mem_app_short(size_t *room_out, size_t *keep_out) {
  size_t keep = wt_mem_app_keep() + wt_mem_own_bytes();
  size_t room = wt_platform_heap_room(0);
  if (room == SIZE_MAX || room >= keep) return 0;
  room = wt_platform_heap_room(1); /* the top chunk counts too */
  if (room >= keep) return 0;
  if (room_out) *room_out = room;
  if (keep_out) *keep_out = keep;
  return 1;
}

void wt_mem_credit_add(size_t bytes) {
  credit += bytes;
  credit_max += bytes;
}

void wt_mem_credit_clear(void) { credit = credit_max = 0; }

size_t wt_mem_credit(void) { return credit; }

void wt_mem_credit_open(int open) { credit_is_open = open; }

void wt_mem_fail_after_for_testing(long n) {
  atomic_store_explicit(&refusals, 0, memory_order_relaxed);
  atomic_store_explicit(&fail_after, n < 0 ? -1 : n, memory_order_relaxed);
}
