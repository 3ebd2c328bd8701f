/* End-to-end benchmark workload (bench/e2e.mjs): real third-party code —
 * zlib (deflate + inflate of a text corpus) and cJSON (parse + print of a
 * JSON document) — built plain, with -finstrument-functions and with
 * -finstrument-functions-after-inlining, each linked with wasmtrace while a
 * session samples at 1 kHz. The JS side calls e2e_setup once, then e2e_run
 * many times and times each call; the ratio between builds is what the
 * instrumentation costs on this code.
 *
 * zlib is compiled with Z_PREFIX (its own symbol-prefix switch), so that it
 * does not take the place of the zlib wasmtrace links for its gzip output;
 * the app's cJSON does take the place of wasmtrace's (wasmtrace then parses
 * its config with the app's instrumented copy, as it would in a real app). */
#define Z_PREFIX
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cJSON.h"
#include "zlib.h"

#include <emscripten.h>

#define TEXT_BYTES (256 * 1024)
#define JSON_ITEMS 1600

static unsigned char *text;       /* the corpus zlib compresses */
static unsigned char *packed;     /* its deflate output */
static unsigned char *unpacked;   /* inflated back */
static uLong packed_cap;
static char *json_doc;            /* the document cJSON parses */

/* xorshift32: the corpus is the same on every run and every build. */
static uint32_t rng = 2463534242u;
static uint32_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}

static const char *const words[] = {
  "the", "profile", "thread", "sample", "worker", "startup", "frame", "stack", "buffer", "session",
  "compress", "inflate", "parse", "print", "module", "memory", "timer", "event", "counter", "scope",
  "of", "and", "to", "in", "is", "for", "on", "with", "as", "at"};

/* Text with the statistics of prose: a skewed choice among 30 words,
 * numbers now and then, punctuation and line breaks. */
static void make_text(void) {
  size_t n = 0;
  while (n < TEXT_BYTES - 32) {
    uint32_t r = next_rand();
    const char *w = words[(r % 30) * (r % 30) / 30];
    size_t len = strlen(w);
    memcpy(text + n, w, len);
    n += len;
    if ((r >> 8) % 11 == 0) n += (size_t)snprintf((char *)text + n, 16, " %u", (r >> 12) % 10000);
    text[n++] = (r >> 20) % 13 == 0 ? '\n' : (r >> 20) % 7 == 0 ? ',' : ' ';
  }
  while (n < TEXT_BYTES) text[n++] = '.';
}

/* A JSON array of objects with strings, numbers, booleans and a nested
 * array: what an app loads at startup. */
static void make_json(void) {
  size_t cap = JSON_ITEMS * 256 + 16, n = 0;
  json_doc = malloc(cap);
  json_doc[n++] = '[';
  for (int i = 0; i < JSON_ITEMS; i++) {
    uint32_t r = next_rand();
    n += (size_t)snprintf(json_doc + n, cap - n,
                          "%s{\"id\":%d,\"name\":\"%s %s\",\"score\":%u.%02u,\"active\":%s,"
                          "\"tags\":[\"%s\",\"%s\",%u],\"pos\":{\"x\":%d,\"y\":%d}}",
                          i ? "," : "", i, words[r % 30], words[(r >> 5) % 30], (r >> 10) % 1000, (r >> 3) % 100,
                          (r & 1) ? "true" : "false", words[(r >> 7) % 30], words[(r >> 11) % 30], r % 77,
                          (int)(r % 2000) - 1000, (int)((r >> 16) % 2000) - 1000);
  }
  json_doc[n++] = ']';
  json_doc[n] = '\0';
}

/* Builds the inputs once; returns 0 on success. */
EMSCRIPTEN_KEEPALIVE int e2e_setup(void) {
  text = malloc(TEXT_BYTES);
  unpacked = malloc(TEXT_BYTES);
  packed_cap = compressBound(TEXT_BYTES);
  packed = malloc(packed_cap);
  if (!text || !unpacked || !packed) return -1;
  make_text();
  make_json();
  return json_doc ? 0 : -1;
}

/* zlib: deflate the corpus (level 6), inflate it back and check it. */
static uint32_t run_zlib(void) {
  z_stream d = {0};
  if (deflateInit(&d, 6) != Z_OK) return 0;
  d.next_in = text;
  d.avail_in = TEXT_BYTES;
  d.next_out = packed;
  d.avail_out = (uInt)packed_cap;
  int rc = deflate(&d, Z_FINISH);
  uLong packed_len = d.total_out;
  deflateEnd(&d);
  if (rc != Z_STREAM_END) return 0;
  z_stream f = {0};
  if (inflateInit(&f) != Z_OK) return 0;
  f.next_in = packed;
  f.avail_in = (uInt)packed_len;
  f.next_out = unpacked;
  f.avail_out = TEXT_BYTES;
  rc = inflate(&f, Z_FINISH);
  uLong out_len = f.total_out;
  inflateEnd(&f);
  if (rc != Z_STREAM_END || out_len != TEXT_BYTES || memcmp(text, unpacked, TEXT_BYTES) != 0) return 0;
  return (uint32_t)packed_len;
}

/* cJSON: parse the document, walk it, print it back. */
static uint32_t run_cjson(void) {
  cJSON *doc = cJSON_Parse(json_doc);
  if (!doc) return 0;
  uint32_t sum = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, doc) {
    const cJSON *score = cJSON_GetObjectItemCaseSensitive(item, "score");
    if (cJSON_IsNumber(score)) sum += (uint32_t)score->valuedouble;
  }
  char *printed = cJSON_PrintUnformatted(doc);
  if (printed) sum += (uint32_t)strlen(printed);
  free(printed);
  cJSON_Delete(doc);
  return sum;
}

/* One run of workload `kind` (0 zlib, 1 cJSON); a checksum, 0 on failure. */
EMSCRIPTEN_KEEPALIVE uint32_t e2e_run(int kind) {
  return kind == 0 ? run_zlib() : run_cjson();
}

/* The two workloads at once, each on its own pthread (zlib and cJSON share
 * no data: zlib's buffers are its own, cJSON only reads json_doc). Two
 * threads started once (e2e_threads_setup) wait for work under a mutex;
 * e2e_run_threads hands each its workload and waits until both are done,
 * as an app's worker pool would. Threads are not started per run: a new
 * thread allocates its TLS with malloc, and a wait on malloc's lock then
 * enters wasmtrace's futex-wait wrapper before the thread's TLS exists
 * (a crash, reported against native/src/threads.c); the setup starts one
 * thread at a time while the caller spins, so nothing contends. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t pool_done = PTHREAD_COND_INITIALIZER;
static unsigned pool_generation; /* bumped once per e2e_run_threads */
static int pool_pending;         /* workloads of this generation not done */
static uint32_t pool_sums[2];
static _Atomic int pool_started;

static void *pool_thread(void *arg) {
  int kind = (int)(intptr_t)arg;
  unsigned seen = 0;
  pool_started++;
  pthread_mutex_lock(&pool_lock);
  for (;;) {
    while (pool_generation == seen) pthread_cond_wait(&pool_work, &pool_lock);
    seen = pool_generation;
    pthread_mutex_unlock(&pool_lock);
    uint32_t sum = kind == 0 ? run_zlib() : run_cjson();
    pthread_mutex_lock(&pool_lock);
    pool_sums[kind] = sum;
    if (--pool_pending == 0) pthread_cond_signal(&pool_done);
  }
  return NULL;
}

/* Starts the two pool threads; 0 on success. */
EMSCRIPTEN_KEEPALIVE int e2e_threads_setup(void) {
  for (int kind = 0; kind < 2; kind++) {
    pthread_t t;
    if (pthread_create(&t, NULL, pool_thread, (void *)(intptr_t)kind) != 0) return -1;
    pthread_detach(t);
    while (pool_started <= kind) {
    }
  }
  return 0;
}

/* One zlib and one cJSON run at once on the pool threads; the sum of both
 * checksums, 0 on failure. */
EMSCRIPTEN_KEEPALIVE uint32_t e2e_run_threads(void) {
  pthread_mutex_lock(&pool_lock);
  pool_pending = 2;
  pool_sums[0] = pool_sums[1] = 0;
  pool_generation++;
  pthread_cond_broadcast(&pool_work);
  while (pool_pending > 0) pthread_cond_wait(&pool_done, &pool_lock);
  uint32_t z = pool_sums[0], c = pool_sums[1];
  pthread_mutex_unlock(&pool_lock);
  return z && c ? z + c : 0;
}

int main(void) { return 0; }
