/* The startup benchmark's app (bench/startup.mjs): what a small pthread app
 * is at startup. main() records when it starts (performance.now(): ms since
 * navigation), starts two pthreads that do a little work, joins them and
 * says it is done. Built plain (not linked with wasmtrace) and linked the
 * guide's way, with the same pool (bench/CMakeLists.txt). */
#include <emscripten.h>
#include <pthread.h>
#include <stdio.h>

static unsigned work(unsigned seed, int n) {
  for (int i = 0; i < n; i++) seed = seed * 1664525u + 1013904223u + (seed >> 13);
  return seed;
}

static void *thread_main(void *arg) {
  unsigned *out = arg;
  *out = work(*out, 2000000);
  return NULL;
}

int main(void) {
  EM_ASM({ self.mainAtMs = performance.now(); });
  pthread_t t[2];
  unsigned r[2] = {1, 2};
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, thread_main, &r[i]);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  EM_ASM({ self.appDone = $0; }, (double)(r[0] ^ r[1]));
  return 0;
}
