/* The app of tests/browser/shapes.test.mjs, built in the shapes real apps
 * take (tests/shapes/CMakeLists.txt): main() starts two named pthreads that
 * do a fixed amount of work, joins them, runs a C++ part (which throws and
 * catches where exceptions are compiled in), and prints lines whose text is
 * the same in every shape, with or without a session. */
#include <emscripten.h>
#include <pthread.h>
#include <stdio.h>

#include "wasmtrace/wasmtrace.h"

int shapes_cxx(int rounds);

/* Work the sampler sees: a loop the compiler cannot fold. */
static unsigned shapes_mix(unsigned seed, int n) {
  for (int i = 0; i < n; i++) seed = seed * 1664525u + 1013904223u + (seed >> 13);
  return seed;
}

static unsigned results[2];

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

int main(void) {
  pthread_t threads[2];
  for (long i = 0; i < 2; i++) {
    if (pthread_create(&threads[i], NULL, shapes_crunch, (void *)i) != 0) {
      printf("shapes: pthread_create failed\n");
      return 1;
    }
  }
  for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
  printf("shapes: a=%u b=%u\n", results[0], results[1]);
  printf("shapes: cxx %d\n", shapes_cxx(7));
  printf("shapes: done\n");
  /* On the page's main thread whatever thread main() runs on
   * (-sPROXY_TO_PTHREAD runs it on a pthread). */
  MAIN_THREAD_EM_ASM({ globalThis.shapesDone = true; });
  return 0;
}
