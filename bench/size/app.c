/* The minimal two-thread pthread app of bench/size.mjs: main starts one
 * pthread that computes, joins it and prints. It calls nothing of
 * wasmtrace: what linking wasmtrace adds is the library's own weight. */
#include <pthread.h>
#include <stdio.h>

static volatile unsigned long long sink;

static void *work(void *arg) {
  unsigned long long x = (unsigned long long)(unsigned long)arg;
  for (int i = 0; i < 1000000; i++) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  sink += x;
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, work, (void *)1);
  pthread_join(t, NULL);
  printf("%llu\n", sink);
  return 0;
}
