/* The heap workload (wasm build, linked with the allocator shim): sites
 * whose live and allocated bytes the program knows exactly, so that a
 * session sampling every allocation ("heap": {"sampleBytes": 1}) can be
 * checked against them, and one at the default rate against estimates.
 *   keep_small      main: 2,000 x 1,000 B kept              (2,000,000 live)
 *   keep_on_thread  a pthread that then exits: 8 x 256 KiB kept
 *   transient       main: 4,000 x 4 KiB allocated and freed (0 live)
 *   handed_over     a pthread allocates 1,000 x 2 KiB, main frees them
 *   grow_shrink     realloc 1 KiB -> 1 MiB doubling, then down to 100 B, kept
 *   aligned         posix_memalign, aligned_alloc, memalign: 100 x 4 KiB each, kept
 *   zeroed          calloc(100, 100) x 100, kept
 *   peak_burst      main: 8,000 x 1 KiB allocated, then all freed: a burst that
 *                   is not the peak
 *   grow_memory     main, last: 64 x 1 MiB kept, past the 64 MiB initial memory
 *                   whatever else the runtime holds (3.1.69's pthread stacks are small):
 *                   the wasm memory grows there (events with this stack), and
 *                   the heap's peak is there
 * Each site is a WT_SCOPE, so its name is on the allocations' stacks
 * whatever the compiler inlines. The page reads self.heapExpect and waits
 * for self.heapDone. */
#include <emscripten.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pace.h"
#include "wasmtrace/wasmtrace.h"

/* At one sample per allocation, the loops wait for wasmtrace's worker
 * whenever it falls behind (pace.h: drops are counted, and the test wants
 * none), and pause now and then as before. */
static void pace(int i) {
  pace_wait_for_worker();
  if ((i & 63) == 63) usleep(5000);
}

static void *kept[20000];
static int nkept;
static void keep(void *p) {
  if (p && nkept < 20000) kept[nkept++] = p;
}

static void keep_small(void) {
  WT_SCOPE("keep_small");
  for (int i = 0; i < 2000; i++) {
    char *p = malloc(1000);
    memset(p, 1, 1000);
    keep(p);
    pace(i);
  }
}

static void *keep_on_thread(void *arg) {
  (void)arg;
  WT_SCOPE("keep_on_thread");
  void **out = malloc(8 * sizeof(void *)); /* handed back to main, kept */
  for (int i = 0; i < 8; i++) {
    out[i] = malloc(256 * 1024);
    memset(out[i], 2, 256 * 1024);
  }
  return out;
}

static void transient(void) {
  WT_SCOPE("transient");
  for (int i = 0; i < 4000; i++) {
    char *volatile p = malloc(4096);
    p[0] = 1;
    free(p);
    pace(i);
  }
}

static void *handed_over(void *arg) {
  WT_SCOPE("handed_over");
  void **blocks = arg;
  for (int i = 0; i < 1000; i++) {
    blocks[i] = malloc(2048);
    pace(i);
  }
  return NULL;
}

static void grow_shrink(void) {
  WT_SCOPE("grow_shrink");
  char *p = malloc(1024);
  for (size_t n = 2048; n <= 1024 * 1024; n *= 2) p = realloc(p, n);
  p = realloc(p, 100);
  keep(p);
}

static void aligned(void) {
  WT_SCOPE("aligned");
  for (int i = 0; i < 100; i++) {
    void *p = NULL;
    if (posix_memalign(&p, 64, 4096) == 0 && ((uintptr_t)p & 63) == 0) keep(p);
    void *q = aligned_alloc(256, 4096);
    if (((uintptr_t)q & 255) == 0) keep(q);
    void *r = memalign(128, 4096);
    if (((uintptr_t)r & 127) == 0) keep(r);
    pace(i * 3);
  }
}

static void zeroed(void) {
  WT_SCOPE("zeroed");
  for (int i = 0; i < 100; i++) {
    unsigned char *p = calloc(100, 100);
    if (p[0] == 0 && p[9999] == 0) keep(p);
  }
}

static void peak_burst(void) {
  WT_SCOPE("peak_burst");
  static void *burst[8000];
  for (int i = 0; i < 8000; i++) {
    burst[i] = malloc(1024);
    pace(i);
  }
  for (int i = 0; i < 8000; i++) {
    free(burst[i]);
    pace(i);
  }
}

static void grow_memory(void) {
  WT_SCOPE("grow_memory");
  for (int i = 0; i < 64; i++) {
    char *p = malloc(1 << 20);
    if (p) p[0] = 1;
    keep(p);
    pace(i * 64 + 63); /* a pause after each: few entries, large blocks */
  }
}

int main(void) {
  keep_small();
  pthread_t t;
  void *ret = NULL;
  pthread_create(&t, NULL, keep_on_thread, NULL);
  pthread_join(t, &ret);
  void **big = ret;
  for (int i = 0; i < 8; i++) keep(big[i]);
  keep(big);
  transient();
  static void *blocks[1000];
  pthread_create(&t, NULL, handed_over, blocks);
  pthread_join(t, NULL);
  {
    WT_SCOPE("main_frees");
    for (int i = 0; i < 1000; i++) {
      free(blocks[i]);
      pace(i);
    }
  }
  grow_shrink();
  aligned();
  zeroed();
  peak_burst();
  grow_memory();
  /* What each site keeps (bytes asked for) and allocated in all. */
  static const char expect[] =
      "{\"live\":{\"keep_small\":2000000,\"keep_on_thread\":2097184,\"grow_shrink\":100,"
      "\"aligned\":1228800,\"zeroed\":1000000,\"grow_memory\":67108864},"
      "\"allocated\":{\"keep_small\":2000000,\"transient\":16384000,\"handed_over\":2048000,"
      "\"peak_burst\":8192000},\"peakSite\":\"grow_memory\"}";
  EM_ASM({
    self.heapExpect = JSON.parse(UTF8ToString($0));
    self.heapDone = true;
  }, expect);
  return 0;
}
