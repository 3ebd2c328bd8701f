/* Sampled heap profiling: what the allocator shim and the worker share.
 *
 * The shim (heap_shim.c, the static library wasmtrace_heap that apps opt
 * into at link time with --wrap) sees every malloc, free, calloc, realloc,
 * memalign, posix_memalign and aligned_alloc of the app. It samples
 * allocations by bytes, as a Poisson process per thread (jemalloc's
 * prof_sample, Chromium's PoissonAllocationSampler): each thread counts
 * down a random number of bytes, exponentially distributed with mean
 * `interval`; the allocation that takes the countdown below zero is
 * sampled, so an allocation of n bytes is sampled with probability
 * 1 - e^(-n/interval) whatever the others, and stands for
 * n / (1 - e^(-n/interval)) bytes: an unbiased estimate (heapprofd: "the
 * whole allocation is accounted as often as the number of sampled bytes it
 * contains"). The non-sampled path is a thread-local subtraction and a
 * branch.
 *
 * A sampled allocation copies its own thread's shadow stack (no unwinding:
 * the owner reads its own frames) into a bounded multi-producer queue that
 * the worker alone drains (wt_heap_drain), and puts its address into a
 * lock-free address set, so that a free on any thread finds it (behind a
 * counting filter: a free of a block that was not sampled costs one load).
 * The set is a list of tables, each twice the size of the one before: an
 * insert takes the newest table with room, a free looks in each; the
 * worker adds the next table (within the heap rule, mem.h) once the blocks
 * followed fill half of those there are (wt_heap_grow), so that
 * "sampleBytes": 1, which samples every allocation at its own size, stays
 * exact past the first table's 65,536 blocks. Tables are never taken back:
 * a free on another thread may be reading one (they hold nothing once
 * their blocks are freed, and are counted in wasmtrace's bytes).
 * Nothing here waits or takes a lock: a full queue or set drops the sample
 * and counts it. Order: an allocation takes its queue position before its
 * address enters the set, and a free leaves the set before it takes its
 * position, so the queue holds every free after the allocation it frees.
 *
 * What is not seen: allocations made through emscripten_builtin_* (the
 * runtime's thread stacks and TLS blocks), JS-side _malloc, and wasmtrace's
 * own allocations (mem.c marks them: wt_i_heap_own). Allocations of a
 * thread before its record exists are counted without a stack. */
#ifndef WT_HEAP_H
#define WT_HEAP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "mem.h"
#include "wasmtrace/wasmtrace.h"

#define WT_HEAP_DEPTH 64           /* frames kept per sampled allocation (the outermost) */
#define WT_HEAP_QUEUE 2048         /* entries between the app threads and the worker (power of two) */
#define WT_HEAP_SET (1u << 16)     /* the address set's first table: slots (power of two) */
#define WT_HEAP_SET_TABLES 8       /* its tables at most, each twice the one before (64 Ki .. 8 Mi slots) */
#define WT_HEAP_PROBES 32          /* slots an insert or a lookup looks at */
#define WT_HEAP_IDLE_REARM 65536   /* bytes between checks while no session samples the heap */
#define WT_HEAP_FILTER (1u << 16)  /* counters of the free path's filter (power of two) */

enum { WT_HEAP_ALLOC = 1, WT_HEAP_FREE = 2, WT_HEAP_SKIP = 3, WT_HEAP_GROW = 4 };

/* One queue entry. The shim fills it between taking its position and
 * publishing `seq` (release); the worker reads it after `seq` (acquire). */
typedef struct wt_heap_entry {
  _Atomic uint32_t seq;  /* the cell's sequence (a bounded MPMC queue's cells) */
  uint8_t kind;          /* WT_HEAP_* */
  uint8_t truncated;     /* the stack was deeper than WT_HEAP_DEPTH */
  uint16_t slot;         /* registry slot of the allocating thread */
  uint16_t free_slot;    /* FREE: registry slot of the freeing thread (0xffff: unknown) */
  uint16_t depth;        /* frames in `frames` */
  uint32_t addr;         /* the block's address; GROW: the memory's size before, in 64 KiB pages */
  uint32_t bytes;        /* estimated bytes it stands for (its weight) */
  uint32_t size;         /* bytes asked for; GROW: the memory's size after, in pages */
  uint32_t interval;     /* the mean sampling interval it was sampled at */
  double ts_us;          /* when (wt_platform_now_us) */
  double alloc_ts_us;    /* FREE: when the block was allocated */
  uint32_t alloc_pos;    /* the queue position of the allocation (FREE: of the one it frees) */
  uint32_t frames[WT_HEAP_DEPTH]; /* ALLOC, GROW: frame ids, outermost first */
} wt_heap_entry;

/* Process-wide counts, for every session's stats. */
typedef struct wt_heap_counts {
  int linked;               /* the shim is linked (it ran once) */
  int unavailable;          /* the queue and the set could not be allocated */
  uint32_t interval;        /* bytes; 0: no session samples the heap */
  uint64_t sampled, frees;  /* allocations sampled, their frees seen */
  uint64_t queue_full;      /* samples dropped: the queue was full */
  uint64_t set_full;        /* samples dropped: the address set was full */
  uint64_t dropped_bytes;   /* the estimated bytes of those dropped samples */
  uint32_t set_tables;      /* the address set's tables now */
  uint64_t set_slots;       /* and their slots */
  uint64_t frees_lost;      /* frees of sampled blocks not queued: they stay live in traces */
  uint64_t no_thread, no_thread_bytes; /* sampled before the thread's record existed */
  uint64_t tracked;         /* sampled blocks live now */
} wt_heap_counts;

/* ---- the shim's side (heap_shim.c) ---------------------------------------- */

/* Bytes the calling thread still allocates before its next sample. */
extern _Thread_local int64_t wt_i_heap_countdown;
/* wt_i_heap_own (mem.h): nonzero while wasmtrace allocates its own memory
 * on this thread; such allocations are never sampled. */
/* Sampled blocks live now. */
extern _Atomic uint32_t wt_i_heap_tracked;

/* The free path's filter (a counting Bloom filter of one hash): the number
 * of live sampled blocks whose address hashes to each counter. A free looks
 * its address up in the set only when its counter is nonzero: one load for
 * the blocks that were not sampled, whatever the set's history (its removed
 * keys stay as markers that a lookup must walk past). NULL until a session
 * first samples the heap. */
extern _Atomic uint16_t *_Atomic wt_i_heap_filter;
#define WT_I_HEAP_FILTER_INDEX(addr) ((((uint32_t)(addr) >> 3) * 2654435761u) >> 16)

/* The slow path of an allocation that took the countdown below zero: re-arms
 * it, and samples `p` (size n; may be NULL: a failed allocation) if a
 * session samples the heap. Never fails, never waits. */
void wt_heap_on_alloc(void *p, size_t n) WT_I_NOINSTR;

/* `p` is about to be freed (or moved by realloc) while sampled blocks are
 * live: if it is one of them, it leaves the set and its free is queued.
 * Before the real free, so that the address cannot be reused while it is
 * still in the set. */
int wt_heap_on_free(void *p) WT_I_NOINSTR; /* 1 if p was sampled */

/* The allocator grew the wasm memory from `from_pages` to `to_pages` (64
 * KiB pages) on the calling thread (heap_shim.c wraps sbrk): queued with
 * the thread's stack while a session samples the heap. */
void wt_heap_on_grow(uint32_t from_pages, uint32_t to_pages) WT_I_NOINSTR;

/* A realloc failed after its sampled block left the set (wt_heap_on_free):
 * the block is no longer followed; counted with the frees lost. */
void wt_heap_note_realloc_failed(void) WT_I_NOINSTR;

/* ---- the worker's side ------------------------------------------------------ */

/* What wakes the worker when a quarter of the queue has filled (the
 * runtime's wake, registered as it starts the worker; NULL: none, the
 * worker drains at its next tick). Any thread. */
void wt_heap_set_waker(void (*wake)(void));

/* 1 once the shim has run (heap_shim.c calls wt_heap_on_alloc on a
 * thread's first allocation), 0 in an app not linked with it: no session
 * samples anything there, and no buffer is allocated for it. Any thread. */
int wt_heap_linked(void);

/* 1 if the app was linked with -Wl,--wrap=emscripten_resize_heap (which
 * pulls in heap_grow.c: growth marked for every allocator); 0 if it has the
 * shim's flags of before, where only sbrk's wrapper marks growth. */
int wt_heap_grow_wrapped(void);

/* The mean sampling interval now (bytes; 0: off). Any thread. */
uint32_t wt_heap_interval(void);

/* Sets the interval to what the worker's table of sessions asks for (0:
 * off) if it is still `expected` (what wt_heap_interval said before the
 * worker read its table: a session added since lowered it, and the worker
 * sees that session on its next pass). Allocates the queue and the set the
 * first time. Returns 0 if they could not be allocated, or the interval
 * moved. Worker only. */
int wt_heap_set_interval(uint32_t interval, uint32_t expected);

/* A session that samples the heap was added to the table: lowers the
 * interval to its own if it is smaller (or sampling is off), at once, and
 * makes the calling thread's next allocation draw at the new rate (so that
 * a session started before main() sees main()'s first allocations). 0 if
 * the queue and the set could not be allocated. Any thread. */
int wt_heap_request(uint32_t interval);

/* Calls fn for every entry queued and published so far, oldest first, and
 * gives the cells back. Returns how many. Worker only. */
size_t wt_heap_drain(void (*fn)(const wt_heap_entry *e, void *ctx), void *ctx);

/* The queue position the next drain starts at. A session adopted now
 * takes exactly the allocations at or after it (and their frees): those
 * before were drained while it was not running. Worker only. */
uint32_t wt_heap_drain_position(void);

/* Entries taken from the queue and not yet given back by a drain: a
 * moment's count, any thread. A test app that must lose nothing at one
 * sample per allocation waits on it (tests/heap/pace.h); the shim never
 * does (a full queue drops and counts). */
uint32_t wt_heap_backlog(void);

void wt_heap_counts_get(wt_heap_counts *out);

/* The worker's check after a drain: adds the address set's next table when
 * the blocks followed fill half of its slots (and the heap rule grants
 * it). Returns 1 if it added one. Worker only. */
int wt_heap_grow(void);

/* The unbiased weight of a sampled allocation of n bytes at `interval`
 * (interval 1: every allocation is sampled, and weighs n). */
uint32_t wt_heap_weight(uint64_t n, uint32_t interval);

/* Frees the queue and the set and forgets every count: tests only, with no
 * other thread allocating. */
void wt_heap_reset_for_testing(void);

#endif
