/* The startup timeline's test app: main() reads a preloaded file, then six
 * pthreads (the whole pool) each sum a part of it; it marks "ready" once
 * they are joined, and tells the page. */
#include <emscripten.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "wasmtrace/wasmtrace.h"

#define WORKERS 6

static unsigned char *data;
static long size;
static uint64_t sums[WORKERS];

static void *sum_part(void *arg) {
  int i = (int)(intptr_t)arg;
  WT_SCOPE("sum_part");
  uint64_t s = 0;
  for (int round = 0; round < 200; round++)
    for (long k = i * size / WORKERS; k < (i + 1) * size / WORKERS; k++) s += data[k] * (uint64_t)(round + 1);
  sums[i] = s;
  return NULL;
}

int main(void) {
  FILE *f = fopen("/assets/table.txt", "rb");
  if (!f) {
    fprintf(stderr, "preload: /assets/table.txt is missing\n");
    return 1;
  }
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fseek(f, 0, SEEK_SET);
  data = malloc((size_t)size);
  if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) return 1;
  fclose(f);
  pthread_t threads[WORKERS];
  for (int i = 0; i < WORKERS; i++) pthread_create(&threads[i], NULL, sum_part, (void *)(intptr_t)i);
  uint64_t total = 0;
  for (int i = 0; i < WORKERS; i++) {
    pthread_join(threads[i], NULL);
    total += sums[i];
  }
  printf("preload: %ld bytes, sum %llu\n", size, (unsigned long long)total);
  WT_MARK("ready");
  EM_ASM({ window.preloadDone = true; });
  return 0;
}
