/* Deflate throughput of wasmtrace's zlib build on chrome-format text
 * (bench/deflate.mjs). Built twice, the zlib sources at -O2 and at -Os,
 * so one Node process can alternate the two: the cost behind choosing the
 * smaller build for the library (issue 28: download size).
 *
 * The input is made once, deterministically, to look like what the chrome
 * encoder writes (native/src/encoder_chrome.c): trace events with names,
 * thread ids and microsecond times, and the samples' node ids and time
 * deltas as long comma-separated arrays. It is deflated as a session
 * does (native/src/sink_gzip.c): gzip wrapper, the configured level, 64 KiB
 * of output at a time. */
#include <emscripten/emscripten.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static unsigned char *input;
static size_t input_len;
static unsigned char out[64 * 1024];

static uint32_t rng = 0x12345678u;
static uint32_t next(void) {
  rng = rng * 1664525u + 1013904223u;
  return rng >> 8;
}

static void put(const char *s, size_t *at, size_t cap) {
  size_t n = strlen(s);
  if (*at + n > cap) return;
  memcpy(input + *at, s, n);
  *at += n;
}

/* About `bytes` bytes of chrome-format text. */
EMSCRIPTEN_KEEPALIVE int make_input(int bytes) {
  static const char *names[] = {"parse", "tokenize", "inflate", "layout", "render", "main", "load_assets"};
  char buf[256];
  size_t cap = (size_t)bytes, at = 0;
  free(input);
  input = malloc(cap);
  if (!input) return 0;
  uint64_t ts = 1232920;
  while (at + 512 < cap) {
    /* A burst of scope events, then a chunk of samples. */
    for (int i = 0, n = 4 + (int)(next() % 12); i < n; i++) {
      snprintf(buf, sizeof buf,
               "{\"ph\":\"X\",\"cat\":\"app\",\"name\":\"%s\",\"pid\":1,\"tid\":%u,\"ts\":%llu,\"dur\":%u},\n",
               names[next() % 7], 1 + next() % 6, (unsigned long long)ts, 20 + next() % 40000);
      put(buf, &at, cap);
      ts += next() % 3000;
    }
    put("{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"args\":{\"data\":{\"cpuProfile\":{\"samples\":[", &at, cap);
    /* A stack stays a while (runs of one node id), a few are common. */
    unsigned node = 2;
    for (int i = 0; i < 200 && at + 32 < cap; i++) {
      uint32_t x = next() % 100;
      if (x >= 80) node = 2 + (x >= 97 ? next() % 400 : next() % 12);
      snprintf(buf, sizeof buf, i ? ",%u" : "%u", node);
      put(buf, &at, cap);
    }
    put("]},\"timeDeltas\":[", &at, cap);
    /* 1 kHz on a 20 us clock: mostly 1000, sometimes a tick off, rarely late. */
    for (int i = 0; i < 200 && at + 32 < cap; i++) {
      uint32_t x = next() % 100;
      unsigned d = x < 70 ? 1000 : x < 95 ? (x & 1 ? 980 : 1020) : 1000 + 20 * (next() % 200);
      snprintf(buf, sizeof buf, i ? ",%u" : "%u", d);
      put(buf, &at, cap);
    }
    put("]}}},\n", &at, cap);
  }
  input_len = at;
  return (int)at;
}

static int out_bytes;

/* The last run's output size in bytes. */
EMSCRIPTEN_KEEPALIVE int last_out_bytes(void) { return out_bytes; }

/* Deflates the input `reps` times at `level`; returns the milliseconds
 * taken, or -1 on a zlib error. */
EMSCRIPTEN_KEEPALIVE double deflate_input(int level, int reps) {
  double t0 = emscripten_get_now();
  for (int r = 0; r < reps; r++) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
    z.next_in = input;
    z.avail_in = (uInt)input_len;
    size_t total = 0;
    int st;
    do {
      z.next_out = out;
      z.avail_out = sizeof out;
      st = deflate(&z, Z_FINISH);
      total += sizeof out - z.avail_out;
    } while (st == Z_OK);
    deflateEnd(&z);
    if (st != Z_STREAM_END) return -1;
    out_bytes = (int)total;
  }
  return emscripten_get_now() - t0;
}
