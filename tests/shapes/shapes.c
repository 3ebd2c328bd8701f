/* The app of tests/browser/shapes.test.mjs, built in the shapes real apps
 * take (tests/shapes/CMakeLists.txt): main() starts two named pthreads that
 * do a fixed amount of work, joins them, runs a C++ part (which throws and
 * catches where exceptions are compiled in), and prints lines whose text is
 * the same in every shape, with or without a session. */
#include <emscripten.h>
#include <emscripten/heap.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wasmtrace/wasmtrace.h"

int shapes_cxx(int rounds);

/* Work the sampler sees: a loop the compiler cannot fold. */
static unsigned shapes_mix(unsigned seed, int n) {
  for (int i = 0; i < n; i++) seed = seed * 1664525u + 1013904223u + (seed >> 13);
  return seed;
}

static unsigned results[2];

#ifdef SHAPES_HEAPFILL
/* shapes_heapfill: an app tuned to its heap. While its threads run it fills
 * the heap, in pieces a few ms apart (an app loading its assets), without
 * checking: it knows its heap. Run without a session, it fills all but
 * FILL_SPARE of what malloc can take and says how much
 * (globalThis.shapesFillBytes); the test then runs it again with a session
 * and that same amount as its argument. A session that kept its memory
 * would make it abort ("Aborted(OOM)"): the session must stop and give
 * its memory back first. */
#define FILL_SPARE ((size_t)1536 * 1024)
#define FILL_PIECE ((size_t)256 * 1024)
static size_t heap_left(void) {
  uintptr_t brk = (uintptr_t)sbrk(0);
  size_t max = emscripten_get_heap_max();
  return (max > brk ? max - brk : 0) + (size_t)mallinfo().keepcost;
}
static void *pieces[256];
static int fill(size_t want) {
  if (!want) {
    size_t left = heap_left();
    want = left > FILL_SPARE ? left - FILL_SPARE : 0;
  }
  MAIN_THREAD_EM_ASM({ globalThis.shapesFillBytes = $0; }, (double)want);
  int n = 0;
  for (size_t got = 0; got + FILL_PIECE <= want && n < 256; got += FILL_PIECE) {
    pieces[n] = malloc(FILL_PIECE); /* aborts the app if the heap is short */
    memset(pieces[n], 1, FILL_PIECE);
    n++;
    usleep(20000);
  }
  return n;
}
#endif

static void *shapes_crunch(void *arg) {
  int which = (int)(long)arg;
  WT_THREAD_NAME(which ? "crunch-b" : "crunch-a");
  unsigned seed = 17u + (unsigned)which;
  for (int round = 0; round < 60; round++) {
    WT_SCOPE("crunch round");
    seed = shapes_mix(seed, 400000);
  }
  results[which] = seed;
  return NULL;
}

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  /* The toolchain's default pthread stack (3.1.x: 2 MiB; later 64 KiB), for
   * the test's expectations at the default heap. */
  pthread_attr_t defaults;
  size_t default_stack = 0;
  pthread_attr_init(&defaults);
  pthread_attr_getstacksize(&defaults, &default_stack);
  MAIN_THREAD_EM_ASM({ globalThis.shapesStackBytes = $0; }, (double)default_stack);
  pthread_t threads[2];
  pthread_attr_t *attr = NULL;
#ifdef SHAPES_HEAPFILL
  /* Small stacks, so that the heap it fills is the heap (3.1.x gives a
   * pthread 2 MiB of the default 16 MiB by default). */
  pthread_attr_t small;
  pthread_attr_init(&small);
  pthread_attr_setstacksize(&small, 64 * 1024);
  attr = &small;
#endif
  for (long i = 0; i < 2; i++) {
    if (pthread_create(&threads[i], attr, shapes_crunch, (void *)i) != 0) {
      printf("shapes: pthread_create failed\n");
      return 1;
    }
  }
#ifdef SHAPES_HEAPFILL
  int held = fill(argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 0);
#endif
  for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
#ifdef SHAPES_HEAPFILL
  printf("shapes: filled the heap\n");
  for (int i = 0; i < held; i++) free(pieces[i]);
#endif
  printf("shapes: a=%u b=%u\n", results[0], results[1]);
  printf("shapes: cxx %d\n", shapes_cxx(7));
  printf("shapes: done\n");
  /* On the page's main thread whatever thread main() runs on
   * (-sPROXY_TO_PTHREAD runs it on a pthread). */
  MAIN_THREAD_EM_ASM({ globalThis.shapesDone = true; });
  return 0;
}
