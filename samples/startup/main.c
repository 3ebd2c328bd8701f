/* wasmtrace sample: an app with a realistic startup on three threads.
 *
 *   main thread:  parse_config -> (start decoders) -> build_index -> wait
 *   2 pthreads:   decode_assets -> per asset: inflate_block, convert_pixels
 *
 * Every phase is a WT_SCOPE, so the trace shows the phases as zones and the
 * sampled stacks name them. The work is real computation (tokenizing,
 * hashing, sorting), sized to take about a second on a laptop-class core. */
#include <emscripten.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wasmtrace/wasmtrace.h>

#define DECODERS 2
#define ASSETS_PER_DECODER 12

static volatile uint64_t g_sink; /* keeps results alive */

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

/* ---- main thread: configuration --------------------------------------- */

static size_t make_config_text(char *buf, size_t cap) {
  WT_SCOPE("make_config_text");
  size_t n = 0;
  for (int i = 0; n + 64 < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "{\"key%d\": [%d, \"value-%x\", true]},\n", i, i * 7,
                          (unsigned)mix((uint64_t)i));
  return n;
}

/* The instrumented builds keep tokenize a function of its own, so that
 * they count its calls, one per pass (their tok110 variant changes that
 * count: wasmtrace diff's exact counts), and inflate_round, one per round
 * (their inf110 variant changes that one, on the decoder pthreads). The
 * other builds leave inlining to the compilers: one long call of
 * parse_config in all of them, so that base and variants run in the same
 * wasm tier (a noinline tokenize in the base but inlined by wasm-opt in
 * tok110 ran 3.4x faster there: tiered up between its 24 short calls). */
#ifdef SAMPLE_NOINLINE
__attribute__((noinline))
#endif
static uint64_t tokenize(const char *text, size_t n) {
  WT_SCOPE("tokenize");
  uint64_t tokens = 0, h = 0;
  for (size_t i = 0; i < n; i++) {
    char ch = text[i];
    if (ch == '{' || ch == '}' || ch == '[' || ch == ']' || ch == ',' || ch == ':') tokens++;
    h = h * 31 + (unsigned char)ch;
  }
  return tokens ^ h;
}

/* Passes of tokenize over the text, in tenths (24 passes). Variant builds
 * do more (samples/CMakeLists.txt: startup_heavier, startup_tok110,
 * startup_tok120, for wasmtrace diff's tests and benchmark: one function's
 * work larger, the rest the same). */
#ifndef SAMPLE_TOKENIZE_TENTHS
#define SAMPLE_TOKENIZE_TENTHS 240
#endif

static void parse_config(void) {
  WT_SCOPE("parse_config");
  size_t cap = 4 << 20;
  char *text = malloc(cap);
  size_t n = make_config_text(text, cap);
  uint64_t acc = 0;
  for (int pass = 0; pass * 10 < SAMPLE_TOKENIZE_TENTHS; pass++) {
    int tenths = SAMPLE_TOKENIZE_TENTHS - pass * 10;
    acc += tokenize(text, tenths >= 10 ? n : n / 10 * (size_t)tenths);
  }
  g_sink += acc;
  free(text);
}

/* ---- worker threads: asset decoding -------------------------------------- */

/* Tenths of a round over the block: 240 by default; bench/diff.mjs's
 * startup_inf110 does 264 (+10 % on the decoder pthreads). */
#ifndef SAMPLE_INFLATE_TENTHS
#define SAMPLE_INFLATE_TENTHS 240
#endif

#ifdef SAMPLE_NOINLINE
__attribute__((noinline))
#endif
static uint64_t inflate_round(uint8_t *out, size_t n, uint64_t s) {
  for (size_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    out[i] ^= (uint8_t)(s >> 56);
  }
  return s;
}

static void inflate_block(uint8_t *out, size_t n, uint64_t seed) {
  WT_SCOPE("inflate_block");
  uint64_t s = seed;
  for (int round = 0; round * 10 < SAMPLE_INFLATE_TENTHS; round++) {
    int tenths = SAMPLE_INFLATE_TENTHS - round * 10;
    s = inflate_round(out, tenths >= 10 ? n : n / 10 * (size_t)tenths, s);
  }
}

uint64_t sample_convert_pixels(uint8_t *bytes, size_t n); /* pixels.cpp */

static void convert_pixels(uint8_t *px, size_t n) {
  WT_SCOPE("convert_pixels");
  uint64_t acc = 0;
  for (int round = 0; round < 16; round++) acc += sample_convert_pixels(px, n);
  g_sink += acc;
}

static void *decode_assets(void *arg) {
  int index = (int)(intptr_t)arg;
  char name[32];
  snprintf(name, sizeof name, "asset-decoder-%d", index);
  WT_THREAD_NAME(name);
  WT_SCOPE("decode_assets");
  size_t n = 256 * 1024;
  uint8_t *buf = calloc(1, n);
  for (int a = 0; a < ASSETS_PER_DECODER; a++) {
    WT_SCOPE("decode_asset");
    inflate_block(buf, n, (uint64_t)(index * 1000 + a));
    convert_pixels(buf, n);
  }
  free(buf);
  return NULL;
}

/* ---- main thread: index ------------------------------------------------ */

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void build_index(void) {
  WT_SCOPE("build_index");
  size_t n = 600000;
  uint64_t *keys = malloc(n * sizeof *keys);
  {
    WT_SCOPE("hash_keys");
    for (int pass = 0; pass < 8; pass++)
      for (size_t i = 0; i < n; i++) keys[i] = mix(i * 2654435761u + (uint64_t)pass);
  }
  {
    WT_SCOPE("sort_keys");
    qsort(keys, n, sizeof *keys, cmp_u64);
  }
  g_sink += keys[n / 2];
  free(keys);
}

int main(void) {
  double t0 = emscripten_get_now();
  EM_ASM({ Module['mainStartMs'] = $0; }, t0);
  WT_SCOPE("startup");
  parse_config();
  pthread_t decoders[DECODERS];
  for (int i = 0; i < DECODERS; i++)
    if (pthread_create(&decoders[i], NULL, decode_assets, (void *)(intptr_t)i) != 0) {
      fprintf(stderr, "sample: could not start decoder %d\n", i);
      return 1;
    }
  build_index();
  {
    WT_SCOPE("wait_for_assets");
    for (int i = 0; i < DECODERS; i++) pthread_join(decoders[i], NULL);
  }
  printf("sample: startup complete (checksum %llx)\n", (unsigned long long)g_sink);
  /* The app's own "ready" in the startup timeline (report: "ready at"). */
  WT_MARK("ready");
  /* Tell the page (and the tests) that startup is over. */
  EM_ASM({
    Module['startupMs'] = $0;
    if (Module['onStartupComplete']) Module['onStartupComplete']();
  }, emscripten_get_now() - t0);
  return 0;
}
