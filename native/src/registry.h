/* Thread registry, shadow stacks and the per-thread event ring.
 *
 * Every app thread that touches wasmtrace registers itself on first use and
 * gets a wt_thread in a slot. When the thread exits (a pthread key
 * destructor) it marks the record exited and never touches it again; the
 * worker, which alone reads records after that, frees it on its own loop
 * once no session needs it (wt_registry_reclaim), and the slot goes to the
 * next thread that registers. So the sampler never reads a freed record,
 * and at most WT_MAX_THREADS records exist at once. The owning thread is
 * the only writer of `top`, `frames` and the ring's write index; the worker
 * is the only reader of them and the only writer of the ring's read index,
 * which lives on its own cache line so the owner's hot line is never
 * written by the worker.
 *
 * Shadow stack publication (one writer, one concurrent reader that never
 * stops it; see "No sample lost to a moving stack" below):
 *   top = (pushes << 32) | depth
 *   push: frames[depth] = top ^ id (the `top` before this push: the high
 *         half is the push count before it, so the push's own count is
 *         that + 1; the low half is depth xor the id);
 *         publish top + (1 << 32) + 1
 *   pop:  publish top - 1
 * Every frame slot carries the number of the push that wrote it, so the
 * reader can tell which slots the owner rewrote while it copied them and
 * keep the rest (wt_stack_copy).
 */
#ifndef WT_REGISTRY_H
#define WT_REGISTRY_H

#include <stdatomic.h>
#include <stdint.h>

#include "wasmtrace/wasmtrace.h"

#define WT_MAX_THREADS 256      /* thread records at once (live, or exited and still needed) */
#define WT_MAX_DEPTH 256        /* frames kept per shadow stack */
#define WT_RING_CAPACITY 4096   /* events per thread ring (power of two) */
#define WT_MAX_NAMES 65536      /* distinct scope names */
#define WT_NAME_SEGMENT 1024    /* names per segment of the id -> name table (divides WT_MAX_NAMES) */
#define WT_NAME_MAP_FIRST 256   /* first slots of the name map (a power of two) */
#define WT_THREAD_NAME_MAX 64

/* Frame ids: values below WT_FRAME_SCOPE_BIT are wasm table indices from the
 * -finstrument-functions hooks; scope frames have the bit set and carry the
 * index of their interned name. */
#define WT_FRAME_SCOPE_BIT 0x80000000u

#define WT_TOP_DEPTH(top) ((uint32_t)(top))
#define WT_TOP_PUSHES(top) ((top) >> 32)
#define WT_TOP_PUSH_STEP ((UINT64_C(1) << 32) + 1)
/* A frame slot at index i: the `top` its push found, xor the frame id.
 * The high half plus one is the tag (the number of the push that wrote
 * it, mod 2^32); the low half is i xor the id. The push stores the `top`
 * it already loaded with one xor, where a separate tag cost an add, an
 * and and an or (the hooks are the hottest code wasmtrace has:
 * bench/interp.mjs). */
#define WT_SLOT_ID(slot, i) ((uint32_t)(slot) ^ (uint32_t)(i))
#define WT_SLOT_TAG(slot) ((uint32_t)((slot) >> 32) + 1u)

/* No sample lost to a moving stack (issue 16): the copy protocol.
 *
 * The sampler cannot stop the owner, and in call-dense code the owner
 * pushes and pops every few nanoseconds, so "copy until `top` did not
 * change" failed most tries. Instead, wt_stack_copy keeps what it can
 * prove. It loads top0 = (P0, D0) (acquire), copies the slots deepest
 * first (the slots most likely to change are read closest to top0), then
 * an acquire fence, then loads top1 = (P1, D1). Tags are push counts mod
 * 2^32.
 *  - A slot i < D0 whose tag is not in the window (P0, P1 + 1] holds the
 *    entry that was at depth i when top0 was published. A slot changes
 *    only by a push; all pushes before top0's store are older than P0 + 1,
 *    and the last of them at depth i wrote exactly that entry; coherence
 *    and the acquire of top0 rule out any older value. A value from a
 *    push k after top0 has tag k > P0; its frame store follows push k-1's
 *    `top` store in program order, so after the fence top1 shows at least
 *    k-1: k <= P1 + 1 (the +1 is a push whose frame is visible and whose
 *    `top` is not yet, the unpublished-push bug test_stack.c recalls).
 *  - So the longest prefix [0, m) of slots outside the window is a true
 *    prefix of the stack the thread had at top0. m == D0 (or the frame
 *    limit) is a complete, exact sample even if `top` moved meanwhile; a
 *    shorter m is kept as a partial sample, marked "(partial stack)" under
 *    its deepest known frame: total time stays right, self time goes to
 *    the caller of the frames that moved. An old entry whose tag aliases
 *    into the window only cuts conservatively. The one thing it cannot
 *    see is 2^32 pushes during one copy (seconds of a thread that runs
 *    while the sampler is descheduled inside a copy of a few hundred
 *    loads), which the old whole-word check could not see either.
 *  - Nothing is dropped: D0 == 0 is a complete, empty copy; D0 > 0 with
 *    m == 0 still says "busy, not idle" (root -> "(partial stack)").
 *
 * Publishing stores of the shadow stack: the ARM question, settled.
 *
 * The argument above needs two orders: the frame store of a push becomes
 * visible after every earlier store of `top` (so that k <= P1 + 1), and
 * the stores before top0's store are visible to a reader that saw top0.
 * It also needs a slot's 64-bit store to be seen whole (tag and id of one
 * push), as `top`'s always did: the reader's loads are atomic, and an
 * aligned i64.store is one instruction on 64-bit CPUs.
 * The host build says so with release stores of the frame and of `top`
 * (a plain move on x86) and the reader's acquire load and fence.
 * ThreadSanitizer runs the host tests and shows there is no data race,
 * but it does not model the reader's fence, so the ordering itself is
 * checked by test_stack.c's race tests and the moving-stack test (host
 * and wasm). The wasm build uses plain stores behind a compiler barrier:
 * the compiler keeps their order, and x86 makes stores visible in program
 * order, but the wasm memory model does not promise it, and a weakly
 * ordered CPU (ARM: Apple Silicon, Android) may let the sampler see a
 * `top` before the frame it covers, or a new frame before the `top` that
 * preceded it.
 *
 * Cost of a correct publication, measured (bench/publish.mjs: same run,
 * 15 interleaved rounds, medians, x86, Node 20 and Chromium): a
 * plain-store push+pop adds ~3.6-3.8 ns to an instrumented call; release
 * stores of the frame and of `top` add ~24-25 ns, 6-7x that, because every
 * wasm atomic store is sequentially consistent (an xchg on x86). Even one
 * atomic store per push and pop (only `top`, WT_PUBLISH_RELEASE_TOP; not
 * enough, since a later frame store may still pass the pop's store) adds
 * ~21-22 ns. The tagged frame is one 64-bit store in place of a 32-bit one
 * and its tag comes from the `top` already loaded: no extra memory access
 * (docs/BENCHMARKS.md, "Moving-stack protocol").
 *
 * Choice: plain stores stay. What a reorder can do is bounded: the sampler
 * never reads out of bounds (the depth is clamped), and only a copy made
 * inside the CPU's store-reorder window after a push or pop (nanoseconds)
 * can be wrong: a frame store seen early carries a tag the window cuts;
 * a frame store seen late shows at that depth the frame that was there
 * before, a plausible stack wrong in its leaf. We expect that in a tiny
 * fraction of samples (of the order of the window over the sampling
 * period, 100 us or more), unmeasured on ARM. The app itself is never
 * affected. Validation: test_stack.c's race and moving-stack tests (host
 * with release stores, and wasm with these plain stores, in V8 on x86)
 * never accept a copy that is not a true stack or prefix; the browser
 * fidelity test checks self-time shares end to end. ARM is not tested
 * here. A build that needs exact stacks on ARM configures wasmtrace with
 * -DWASMTRACE_ATOMIC_STACKS=ON (defines WT_PUBLISH_ATOMIC: the host
 * build's stores) and pays the cost above. The event rings' write index
 * is published the same way (WT_I_PUBLISH_RING, scope.c): its release
 * store was a third of a recorded scope's own cost (bench/calls.c
 * scope:clock2 in-page pairs, builds before and after compared by hand:
 * Chromium ~34-60 -> 25-32 ns, Firefox ~77-95 -> 49-55 ns, Node 23-28 ->
 * 17-19 ns; today's figure: WT_BROWSERS_SCOPE_ONLY=1 node
 * bench/browsers.mjs). On a weakly ordered CPU the
 * worker may then read a slot before the event's stores land: it sees the
 * event that was there a lap before (every field of some event the thread
 * did record: the ids and categories stay valid, a time or a pairing may
 * be wrong), never out of bounds; the same switch restores release
 * stores. */
#if defined(__EMSCRIPTEN__) && !defined(WT_PUBLISH_ATOMIC)
#define WT_I_PUBLISH_U64(ptr, value)                    \
  do {                                                  \
    atomic_signal_fence(memory_order_seq_cst);          \
    *(volatile uint64_t *)(void *)(ptr) = (value);      \
  } while (0)
#define WT_I_STORE_FRAME(ptr, value) (*(volatile uint64_t *)(void *)(ptr) = (value))
#define WT_I_LOAD_OWN_U64(ptr) (*(volatile uint64_t *)(void *)(ptr))
#define WT_I_LOAD_OWN_U32(ptr) (*(volatile uint32_t *)(void *)(ptr))
#define WT_I_STORE_OWN_U32(ptr, value) (*(volatile uint32_t *)(void *)(ptr) = (value))
#define WT_I_STORE_WAITING(ptr, value)                  \
  do {                                                  \
    atomic_signal_fence(memory_order_seq_cst);          \
    *(volatile uint32_t *)(void *)(ptr) = (value);      \
  } while (0)
/* An owner-written counter the worker only reads (the ring's drops): a
 * plain store. A late value is counted at the next drain; the count stays
 * far below 2^32, so even a torn read gives the old or the new value. */
#define WT_I_STORE_OWN_U64(ptr, value) (*(volatile uint64_t *)(void *)(ptr) = (value))
/* The event ring's write index (scope.c), published the same way: the
 * event's stores before it in program order, which x86 keeps. */
#define WT_I_PUBLISH_RING(ptr, value)                   \
  do {                                                  \
    atomic_signal_fence(memory_order_seq_cst);          \
    *(volatile uint32_t *)(void *)(ptr) = (value);      \
  } while (0)
#if defined(WT_PUBLISH_RELEASE_TOP)
/* Benchmark only (not enough, see above): `top` is an atomic store. */
#undef WT_I_PUBLISH_U64
#define WT_I_PUBLISH_U64(ptr, value) atomic_store_explicit((ptr), (value), memory_order_release)
#endif
#else
#define WT_I_PUBLISH_U64(ptr, value) atomic_store_explicit((ptr), (value), memory_order_release)
#define WT_I_STORE_FRAME(ptr, value) atomic_store_explicit((ptr), (value), memory_order_release)
#define WT_I_LOAD_OWN_U64(ptr) atomic_load_explicit((ptr), memory_order_relaxed)
#define WT_I_LOAD_OWN_U32(ptr) atomic_load_explicit((ptr), memory_order_relaxed)
#define WT_I_STORE_OWN_U32(ptr, value) atomic_store_explicit((ptr), (value), memory_order_relaxed)
#define WT_I_STORE_WAITING(ptr, value) atomic_store_explicit((ptr), (value), memory_order_relaxed)
#define WT_I_PUBLISH_RING(ptr, value) atomic_store_explicit((ptr), (value), memory_order_release)
#define WT_I_STORE_OWN_U64(ptr, value) atomic_store_explicit((ptr), (value), memory_order_relaxed)
#endif

#define WT_MAX_CATEGORY_NAMES 64 /* distinct event categories (bits of a mask) */

enum { WT_EVENT_BEGIN = 1, WT_EVENT_END = 2, WT_EVENT_INSTANT = 3, WT_EVENT_COUNTER = 4 };
#define WT_EVENT_GAP 0x80u /* events were dropped just before this one */
#define WT_EVENT_KIND(info) ((info) & 0x7fu)
#define WT_EVENT_DEPTH(info) (((info) >> 8) & 0xffffu)
#define WT_EVENT_CAT(info) ((info) >> 24)
#define WT_EVENT_INFO(kind, depth, cat) ((kind) | ((uint32_t)(depth) << 8) | ((uint32_t)(cat) << 24))

/* One event in a thread's ring: 24 bytes, fixed layout. `depth` is the
 * shadow-stack depth below a scope (before its push, after its pop), so the
 * worker can pair BEGIN and END even when the ring dropped some. */
typedef struct wt_event {
  double ts_us;
  double value;   /* counter value */
  uint32_t id;    /* interned name; unused for END */
  uint32_t info;  /* kind | WT_EVENT_GAP | depth << 8 | category << 24 */
} wt_event;
_Static_assert(sizeof(wt_event) == 24, "wt_event must stay 24 bytes");

/* Bit i set: some running session records category i. Read with one
 * relaxed load on the hot path; written by wt_runtime_update_categories
 * (categories.c). */
extern _Atomic uint64_t wt_i_category_mask;

/* A thread's call counts (calls.h), indexed by table index; freed with
 * the thread's record, with the tables it replaced. */
typedef struct wt_calls {
  struct wt_calls *older; /* the table it replaced */
  uint32_t cap;           /* entries */
  _Atomic uint32_t counts[];
} wt_calls;

/* Worker-private bookkeeping of open scopes per thread (rec_events.c; the
 * worker's reclaim reads it too). */
typedef struct wt_open_scope {
  double begin_us;
  uint32_t id;  /* 0: no open scope recorded at this depth */
  uint32_t cat;
} wt_open_scope;

typedef struct wt_thread {
  /* --- owner-written hot line(s) ---------------------------------------- */
  _Alignas(64) _Atomic uint64_t top;
  _Atomic uint64_t frames[WT_MAX_DEPTH]; /* tag << 32 | frame id (see above) */
  /* Calls per function (calls.h): calls[id] for a table index id below
   * calls_cap, owner-written, grown by the owner. */
  _Atomic uint32_t *calls;
  uint32_t calls_cap;
  _Atomic uint32_t ring_write;    /* free-running; owner writes */
  uint32_t ring_read_cache;       /* owner's last view of ring_read */
  uint32_t ring_gap;              /* owner-only: an event was dropped */
  uint64_t recorded[WT_MAX_DEPTH / 64]; /* owner-only: scope at depth d wrote BEGIN */
  _Atomic uint64_t ring_dropped;  /* events dropped because the ring was full */
  /* Blocking waits the thread is in (emscripten_futex_wait, wrapped at link
   * time: threads.c): nested waits count up. Owner-written with plain
   * stores; the sampler reads it beside the stack (WT_SAMPLE_WAITING). */
  _Atomic uint32_t waiting;
  wt_event ring[WT_RING_CAPACITY];

  /* --- worker-written line ---------------------------------------------- */
  _Alignas(64) _Atomic uint32_t ring_read;  /* free-running; worker writes */
  uint64_t dropped_seen;                    /* worker-private from here on */
  wt_open_scope open[WT_MAX_DEPTH];

  /* --- control-path fields (registry mutex) -------------------------------- */
  _Alignas(64) uint32_t slot;
  uint32_t number;     /* registration order over the process life (names) */
  int is_main;
  _Atomic int exited;  /* 1 once the thread has exited */
  char name[WT_THREAD_NAME_MAX];
  int named;           /* the app named it (wt_thread_set_name) */
  /* Registered when it started (threads.c): the table index + 1 of its
   * start routine (0 if unknown), which the trace names it by, and
   * whether that routine sits at the bottom of its stack as a base frame
   * (set before the first push, never changed: the sampler reads it). */
  uint32_t start_fn;
  _Atomic int base_frame;
  /* The call counts as the worker reads them (calls.h): the newest table,
   * published by the owner after it copied the last one's counts; calls it
   * could not count; whether the heap refused a table (owner). */
  struct wt_calls *_Atomic calls_table;
  _Atomic uint32_t calls_not_counted;
  int calls_refused;
} wt_thread;

/* The calling thread's wt_thread once registered (hot-path fast check). */
extern _Thread_local wt_thread *wt_i_tls_self;

/* The calling thread's wt_thread, registering it on first use; NULL if the
 * registry is full or the thread is the wasmtrace worker. Hot path. */
wt_thread *wt_thread_self(void) WT_I_NOINSTR;

/* Registers the calling thread as it starts (threads.c), with the table
 * index of its start routine (named after it until the app names it);
 * with `base_frame` the routine is pushed as the stack's first frame.
 * Returns the record, or NULL (registry full, or the thread already
 * registered or excluded). */
wt_thread *wt_registry_register_started(uint32_t start_fn, int base_frame) WT_I_NOINSTR;

/* The table index + 1 of the thread's start routine if the thread still
 * has its default name (the trace then says "pthread N (routine)"), else
 * 0. Any thread. */
uint32_t wt_registry_thread_start(const wt_thread *t);

/* The calling thread's wt_thread if it registered, else NULL, without
 * reading thread-local storage: for code that may run before the thread's
 * TLS exists. On Emscripten a new pthread waits (malloc's lock) while its
 * TLS block is being allocated, and a reused pool worker then still holds
 * the previous thread's stale TLS base (threads.c's wait wrapper). Reads
 * the thread-specific data registration sets (pthread_getspecific), or the
 * main thread's static TLS. Any thread. */
wt_thread *wt_registry_self_without_tls(void) WT_I_NOINSTR;

/* Marks the calling thread as never to be registered (the worker). */
void wt_registry_exclude_self(void);

/* Number of registered threads (slots 0 .. n-1 are valid). Any thread. */
uint32_t wt_registry_count(void) WT_I_NOINSTR;

/* The thread in `slot`, or NULL. Any thread. */
wt_thread *wt_registry_get(uint32_t slot) WT_I_NOINSTR;

/* Copies the thread's name into out (size WT_THREAD_NAME_MAX). */
void wt_registry_thread_name(const wt_thread *t, char *out);

/* Interns a scope name: the same pointer always gets the same id (with
 * WT_FRAME_SCOPE_BIT set). When the table is full, further names all get
 * the id of "(too many scope names)"; 0 only if it cannot be allocated. Takes the
 * registry mutex: call once per site, not per event. */
uint32_t wt_registry_intern(const char *name);

/* Interns a category name by its text; returns its index (below
 * WT_MAX_CATEGORY_NAMES; the last index is shared by all names past the
 * limit). Takes the registry mutex. */
uint32_t wt_registry_intern_category(const char *name);

/* The text of category `index`, or "" if unknown. Any thread. */
const char *wt_registry_category_name(uint32_t index);

/* Number of interned categories. Any thread. */
uint32_t wt_registry_category_count(void);

/* The name of an interned scope id, or NULL. Any thread. */
const char *wt_registry_scope_name(uint32_t id);

/* Threads the registry could not take (WT_MAX_THREADS records in use). */
uint64_t wt_registry_threads_dropped(void);

/* Records freed by wt_registry_reclaim so far. */
uint64_t wt_registry_threads_reclaimed(void);

/* Frees the record in `slot` if its thread has exited, and gives the slot
 * to the next thread that registers. Worker only, and only once nothing
 * reads the record any more: its ring drained, and no session that
 * sampled it or holds its open scopes still encoding (worker.c's reclaim;
 * rec_events.c drains the rings). */
void wt_registry_reclaim(uint32_t slot);

/* Copies a thread's shadow stack while it may move (protocol above).
 * Returns the number of frames copied into out (capacity WT_MAX_DEPTH), a
 * true prefix of a stack the thread had during the call, and stores that
 * stack's depth in *depth (which may be larger than WT_MAX_DEPTH). Sets
 * *partial to 1 if the copy is shorter than min(*depth, WT_MAX_DEPTH)
 * because frames moved during every try (the caller marks the sample),
 * else 0. Never fails. Worker only. */
int wt_stack_copy(wt_thread *t, uint32_t *out, uint32_t *depth, int *partial);

/* Frees everything and forgets all threads: wt_runtime_reset_for_testing
 * only (no other thread may be using wasmtrace). */
void wt_registry_reset(void);

#endif
