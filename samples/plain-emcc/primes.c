/* wasmtrace second sample: a small app built with plain emcc (no CMake),
 * linked against an installed wasmtrace with only the flags the guide
 * documents. See build.sh.
 *
 *   main thread:  make_table -> (start the sieve thread) -> checksum_table
 *   1 pthread:    sieve_worker -> count_primes -> mark_multiples
 *
 * No WT_SCOPE in the hot functions: the names come from
 * -finstrument-functions-after-inlining and the wasm name section
 * (--profiling-funcs); the small static helpers are inlined into their one
 * caller and show as it (build.sh with WT_INSTRUMENT=-finstrument-functions
 * shows every function, at a higher cost). One explicit scope ("warm_up")
 * shows that both kinds mix. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wasmtrace/wasmtrace.h>

static volatile uint64_t g_sink;

static uint64_t scramble(uint64_t x) {
  x ^= x >> 31;
  x *= 0x9e3779b97f4a7c15ULL;
  x ^= x >> 29;
  return x;
}

static void mark_multiples(uint8_t *composite, uint32_t n, uint32_t p) {
  for (uint64_t m = (uint64_t)p * p; m < n; m += p) composite[m] = 1;
}

static uint32_t count_primes(uint32_t n) {
  uint8_t *composite = calloc(n, 1);
  uint32_t count = 0;
  for (uint32_t i = 2; i < n; i++) {
    if (composite[i]) continue;
    count++;
    if ((uint64_t)i * i < n) mark_multiples(composite, n, i);
  }
  free(composite);
  return count;
}

static void *sieve_worker(void *arg) {
  (void)arg;
  WT_THREAD_NAME("sieve");
  uint64_t total = 0;
  for (int round = 0; round < 12; round++) total += count_primes(4000000);
  g_sink += total;
  return NULL;
}

static uint64_t *make_table(size_t n) {
  uint64_t *t = malloc(n * sizeof *t);
  for (size_t i = 0; i < n; i++) t[i] = scramble(i);
  return t;
}

static uint64_t checksum_table(const uint64_t *t, size_t n) {
  uint64_t acc = 0;
  for (int pass = 0; pass < 40; pass++)
    for (size_t i = 0; i < n; i++) acc = acc * 31 + scramble(t[i] + (uint64_t)pass);
  return acc;
}

static void warm_up(void) {
  WT_SCOPE("warm_up");
  uint64_t *t = make_table(1 << 20);
  g_sink += checksum_table(t, 1 << 20);
  free(t);
}

int main(void) {
  pthread_t sieve;
  if (pthread_create(&sieve, NULL, sieve_worker, NULL) != 0) {
    fprintf(stderr, "primes: could not start the sieve thread (pthread pool too small?)\n");
    return 1;
  }
  warm_up();
  pthread_join(sieve, NULL);
  printf("primes: done (checksum %llx)\n", (unsigned long long)g_sink);
  return 0;
}
