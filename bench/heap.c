/* What the heap profiler's allocator shim costs (issue 25): one program,
 * built twice — bench_heap_shim, linked with the shim (wasmtrace_heap(),
 * which defines malloc & co. on top of the allocator's
 * emscripten_builtin_*), and bench_heap_plain, linked with wasmtrace only —
 * both -sMODULARIZE, so that one page (bench/heap/index.html) loads both
 * and bench/heap.mjs alternates them round by round, each round under a
 * session with "heap": {} (the default 512 KiB interval) started at
 * runtime in the build it runs (in the plain build that key does nothing:
 * no shim). The difference between the builds is the shim and what its
 * samples cost the app's threads.
 *
 *   hb_fastpath(pairs)  ns per malloc(64) + free pair on the calling thread
 *                       (the page's main thread). Nearly every pair takes
 *                       the shim's non-sampled paths: the countdown's
 *                       subtraction and branch in malloc, and in free the
 *                       address lookup, which runs whenever sampled blocks
 *                       are live (hb_keep makes sure some are). One pair in
 *                       ~8,000 (64 B of a 512 KiB mean interval) is
 *                       sampled: its cost, amortized, is in the figure too
 *                       (~1,200 samples per 10 M pairs).
 *   hb_keep()           allocates and keeps 16 x 1 MiB (each sampled with
 *                       probability 1 - e^-2 = 0.86 while a session samples
 *                       the heap; more, up to 64, until one is), so that
 *                       frees take their lookup path; returns how many
 *                       sampled blocks are live.
 *   hb_threads_setup()  starts HB_THREADS workers, each with a working set
 *                       of HB_SLOTS live blocks, and a coordinator thread.
 *   hb_threads_start(ops) / hb_threads_result()
 *                       each worker replaces `ops` blocks of its working
 *                       set at random (free, then malloc of a size drawn
 *                       log-uniform over 16 B..64 KiB, first and last bytes
 *                       written); the coordinator times the run from its
 *                       go to the last worker's done, on its own clock.
 *                       The page's main thread only starts the run and
 *                       polls for the result (ms; -1 while running): it
 *                       does not spin in a wait (the browser's main thread
 *                       cannot block, so Emscripten's waits spin there).
 *   hb_count(k)         the shim's process-wide counts (native/src/heap.h):
 *                       0 linked, 1 interval, 2 sampled, 3 frees, 4 queue
 *                       full, 5 set full, 6 frees lost, 7 tracked (live
 *                       sampled blocks); the plain build has the library's
 *                       side only, so `linked` stays 0 there.
 * Results stay observable (a volatile pointer store per allocation, sums
 * kept), so that the compiler cannot drop a malloc/free pair. */
#include <emscripten.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h" /* native/src: wt_heap_counts_get */
#include "wasmtrace/wasmtrace.h"

#define HB_THREADS 4
#define HB_SLOTS 1024 /* live blocks per worker: ~8 MiB at the sizes drawn (mean ~8 KiB) */

static void *volatile g_last;
static volatile uint32_t g_sink;

/* ---- the fast path ------------------------------------------------------------ */

EMSCRIPTEN_KEEPALIVE double hb_fastpath(int pairs) {
  uint32_t acc = 0;
  double t0 = emscripten_get_now();
  for (int i = 0; i < pairs; i++) {
    char *p = malloc(64);
    g_last = p; /* escapes: the pair cannot be elided */
    acc += (uint32_t)(uintptr_t)p;
    free(p);
  }
  double t = emscripten_get_now() - t0;
  g_sink = acc;
  return t * 1e6 / pairs;
}

static void *kept_blocks[64];
static int n_kept;

EMSCRIPTEN_KEEPALIVE double hb_count(int k) {
  wt_heap_counts c;
  wt_heap_counts_get(&c);
  switch (k) {
    case 0: return c.linked;
    case 1: return c.interval;
    case 2: return (double)c.sampled;
    case 3: return (double)c.frees;
    case 4: return (double)c.queue_full;
    case 5: return (double)c.set_full;
    case 6: return (double)c.frees_lost;
    case 7: return (double)c.tracked;
    default: return -1;
  }
}

EMSCRIPTEN_KEEPALIVE int hb_keep(void) {
  WT_SCOPE("hb_keep");
  while (n_kept < 64) {
    char *p = malloc(1 << 20);
    if (!p) break;
    p[0] = 1;
    kept_blocks[n_kept++] = p;
    if (n_kept >= 16 && (hb_count(0) == 0 || hb_count(7) > 0)) break;
  }
  return (int)hb_count(7);
}

/* ---- the threads ------------------------------------------------------------- */

static void *slots[HB_THREADS][HB_SLOTS];
static uint64_t rngs[HB_THREADS];

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER; /* workers wait for a generation */
static pthread_cond_t done = PTHREAD_COND_INITIALIZER; /* the coordinator waits for them */
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;   /* the coordinator waits for a start */
static unsigned generation, requested;
static int pending, ops_now;
static _Atomic int started;
static _Atomic double result_ms = -1;

static uint32_t next32(uint64_t *s) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return (uint32_t)((x * UINT64_C(2685821657736338717)) >> 32);
}

/* 16 B..64 KiB, log-uniform by power of two, uniform within it. */
static size_t draw_size(uint64_t *s) {
  uint32_t r = next32(s);
  unsigned e = 4 + r % 12; /* 2^4..2^15 */
  size_t n = ((size_t)1 << e) + (next32(s) & (((size_t)1 << e) - 1));
  return n; /* < 2^16 */
}

static void *new_block(uint64_t *s) {
  size_t n = draw_size(s);
  unsigned char *p = malloc(n);
  if (p) {
    p[0] = (unsigned char)n;
    p[n - 1] = (unsigned char)(n >> 8);
  }
  return p;
}

static uint32_t churn(int id, int ops) {
  void **w = slots[id];
  uint64_t *s = &rngs[id];
  uint32_t acc = 0;
  for (int i = 0; i < ops; i++) {
    uint32_t k = next32(s) & (HB_SLOTS - 1);
    free(w[k]);
    w[k] = new_block(s);
    acc += (uint32_t)(uintptr_t)w[k];
  }
  return acc;
}

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  WT_THREAD_NAME("hb_worker");
  rngs[id] = UINT64_C(0x9e3779b97f4a7c15) * (uint64_t)(id + 1);
  {
    WT_SCOPE("hb_fill");
    for (int k = 0; k < HB_SLOTS; k++) slots[id][k] = new_block(&rngs[id]);
  }
  unsigned seen = 0;
  started++;
  pthread_mutex_lock(&lock);
  for (;;) {
    while (generation == seen) pthread_cond_wait(&work, &lock);
    seen = generation;
    int ops = ops_now;
    pthread_mutex_unlock(&lock);
    uint32_t acc;
    {
      WT_SCOPE("hb_churn");
      acc = churn(id, ops);
    }
    g_sink += acc;
    pthread_mutex_lock(&lock);
    if (--pending == 0) pthread_cond_signal(&done);
  }
  return NULL;
}

static void *coordinator(void *arg) {
  (void)arg;
  WT_THREAD_NAME("hb_coordinator");
  unsigned seen = 0;
  started++;
  pthread_mutex_lock(&lock);
  for (;;) {
    while (requested == seen) pthread_cond_wait(&go, &lock);
    seen = requested;
    double t0 = emscripten_get_now();
    pending = HB_THREADS;
    generation++;
    pthread_cond_broadcast(&work);
    while (pending > 0) pthread_cond_wait(&done, &lock);
    result_ms = emscripten_get_now() - t0;
  }
  return NULL;
}

/* Starts the threads one at a time while the caller spins (a new thread
 * allocates its TLS with malloc: nothing contends while it does). 0 on
 * success. */
EMSCRIPTEN_KEEPALIVE int hb_threads_setup(void) {
  for (int i = 0; i <= HB_THREADS; i++) {
    pthread_t t;
    if (pthread_create(&t, NULL, i < HB_THREADS ? worker : coordinator, (void *)(intptr_t)i) != 0) return -1;
    pthread_detach(t);
    while (started <= i) {
    }
  }
  return 0;
}

EMSCRIPTEN_KEEPALIVE void hb_threads_start(int ops) {
  pthread_mutex_lock(&lock);
  result_ms = -1;
  ops_now = ops;
  requested++;
  pthread_cond_signal(&go);
  pthread_mutex_unlock(&lock);
}

EMSCRIPTEN_KEEPALIVE double hb_threads_result(void) { return result_ms; }

int main(void) { return 0; }
