/* The gzip sink (sink_gzip.c) over an in-memory sink, read back with zlib's
 * own inflate. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "sink.h"
#include "wt_test.h"

/* ---- helpers ------------------------------------------------------------ */

/* Trace-like text: compressible but not trivially (numbers vary). */
static unsigned char *make_input(size_t n) {
  unsigned char *p = malloc(n);
  if (!p) return NULL;
  uint32_t x = 12345;
  size_t i = 0;
  while (i < n) {
    char line[96];
    x = x * 1664525u + 1013904223u;
    int len = snprintf(line, sizeof line, "{\"ph\":\"X\",\"name\":\"fn%u\",\"ts\":%u,\"dur\":%u},\n",
                       (x >> 8) % 97, (unsigned)i, (x >> 20) % 1000);
    for (int k = 0; k < len && i < n; k++) p[i++] = (unsigned char)line[k];
  }
  return p;
}

/* Inflates a gzip stream (possibly cut short after a sync point) into a new
 * buffer. Returns zlib's last code; *out_len is what came out. With
 * `partial`, a stream without its end is fine (Z_SYNC_FLUSH reading). */
static int gunzip(const unsigned char *in, size_t in_len, unsigned char **out, size_t *out_len,
                  int partial) {
  z_stream z;
  memset(&z, 0, sizeof z);
  *out = NULL;
  *out_len = 0;
  if (inflateInit2(&z, 15 + 32) != Z_OK) return Z_STREAM_ERROR;
  size_t cap = in_len * 4 + 1024, len = 0;
  unsigned char *buf = malloc(cap);
  z.next_in = (Bytef *)(uintptr_t)in;
  z.avail_in = (uInt)in_len;
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (len == cap) {
      cap *= 2;
      unsigned char *bigger = realloc(buf, cap);
      if (!bigger) break;
      buf = bigger;
    }
    z.next_out = buf + len;
    z.avail_out = (uInt)(cap - len);
    rc = inflate(&z, partial ? Z_SYNC_FLUSH : Z_NO_FLUSH);
    len = cap - z.avail_out;
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break; /* input exhausted */
    if (rc == Z_BUF_ERROR) rc = Z_OK;                 /* needs more output room */
  }
  inflateEnd(&z);
  *out = buf;
  *out_len = len;
  return rc;
}

/* Writes p[0..n) to a sink in chunks of varying size. */
static wt_status write_chunked(wt_sink *s, const unsigned char *p, size_t n) {
  static const size_t sizes[] = {1, 7, 4096, 100000, 65536, 3, 16384, 250000};
  size_t i = 0, k = 0;
  while (i < n) {
    size_t take = sizes[k++ % (sizeof sizes / sizeof sizes[0])];
    if (take > n - i) take = n - i;
    wt_status st = wt_sink_write(s, p + i, take);
    if (st != WT_OK) return st;
    i += take;
  }
  return WT_OK;
}

/* ---- tests -------------------------------------------------------------- */

WT_TEST(gzip_sink_should_round_trip_megabytes_through_inflate) {
  const size_t n = 3 * 1024 * 1024 + 123;
  unsigned char *input = make_input(n);
  REQUIRE(input != NULL);
  wt_mem_sink mem;
  wt_mem_sink_init(&mem);
  wt_gzip_sink gz;
  REQUIRE_EQ_INT(wt_gzip_sink_init(&gz, &mem.base, 1), WT_OK);
  CHECK_EQ_INT(write_chunked(&gz.base, input, n), WT_OK);
  CHECK_EQ_INT(wt_sink_close(&gz.base), WT_OK);
  CHECK(mem.closed);
  CHECK_EQ_U64(gz.base.bytes_in, n);
  CHECK_EQ_U64(mem.base.bytes_in, mem.len);
  REQUIRE(mem.len > 18);
  CHECK(mem.data[0] == 0x1f && mem.data[1] == 0x8b); /* gzip magic */
  CHECK(mem.len < n / 3);                            /* it did compress */
  unsigned char *out;
  size_t out_len;
  CHECK_EQ_INT(gunzip(mem.data, mem.len, &out, &out_len, 0), Z_STREAM_END);
  CHECK_EQ_MEM(out, out_len, input, n);
  free(out);
  free(input);
  wt_mem_sink_free(&mem);
}

WT_TEST(gzip_sink_should_round_trip_at_every_level) {
  const size_t n = 200000;
  unsigned char *input = make_input(n);
  REQUIRE(input != NULL);
  /* 0 and 10 are out of range: the sink falls back to zlib's default. */
  static const int levels[] = {1, 5, 9, 0, 10};
  for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
    wt_mem_sink mem;
    wt_mem_sink_init(&mem);
    wt_gzip_sink gz;
    REQUIRE_EQ_INT(wt_gzip_sink_init(&gz, &mem.base, levels[i]), WT_OK);
    CHECK_EQ_INT(write_chunked(&gz.base, input, n), WT_OK);
    CHECK_EQ_INT(wt_sink_close(&gz.base), WT_OK);
    unsigned char *out;
    size_t out_len;
    CHECK_EQ_INT(gunzip(mem.data, mem.len, &out, &out_len, 0), Z_STREAM_END);
    CHECK_EQ_MEM(out, out_len, input, n);
    free(out);
    wt_mem_sink_free(&mem);
  }
  free(input);
}

WT_TEST(gzip_sink_should_write_a_valid_empty_stream) {
  wt_mem_sink mem;
  wt_mem_sink_init(&mem);
  wt_gzip_sink gz;
  REQUIRE_EQ_INT(wt_gzip_sink_init(&gz, &mem.base, 1), WT_OK);
  CHECK_EQ_INT(wt_sink_write(&gz.base, "", 0), WT_OK);
  CHECK_EQ_INT(wt_sink_close(&gz.base), WT_OK);
  unsigned char *out;
  size_t out_len;
  CHECK_EQ_INT(gunzip(mem.data, mem.len, &out, &out_len, 0), Z_STREAM_END);
  CHECK_EQ_U64(out_len, 0);
  free(out);
  wt_mem_sink_free(&mem);
}

WT_TEST(gzip_sink_output_cut_after_a_flush_should_decompress_up_to_the_flush) {
  const size_t n = 1024 * 1024;
  unsigned char *input = make_input(n);
  REQUIRE(input != NULL);
  wt_mem_sink mem;
  wt_mem_sink_init(&mem);
  wt_gzip_sink gz;
  REQUIRE_EQ_INT(wt_gzip_sink_init(&gz, &mem.base, 6), WT_OK);
  /* Three flush points, then more data that is never flushed or closed. */
  const size_t points[] = {1000, 300000, 700001};
  size_t flushed_len[3], done = 0;
  for (int i = 0; i < 3; i++) {
    CHECK_EQ_INT(write_chunked(&gz.base, input + done, points[i] - done), WT_OK);
    done = points[i];
    CHECK_EQ_INT(wt_sink_flush(&gz.base), WT_OK);
    flushed_len[i] = mem.len;
    /* A flush ends with the empty stored block of a sync point. */
    CHECK(mem.len >= 4 && memcmp(mem.data + mem.len - 4, "\x00\x00\xff\xff", 4) == 0);
  }
  CHECK_EQ_INT(write_chunked(&gz.base, input + done, 50000), WT_OK);
  for (int i = 0; i < 3; i++) {
    unsigned char *out;
    size_t out_len;
    gunzip(mem.data, flushed_len[i], &out, &out_len, 1);
    CHECK_EQ_MEM(out, out_len, input, points[i]);
    free(out);
  }
  /* Closing afterwards still gives the whole stream. */
  CHECK_EQ_INT(write_chunked(&gz.base, input + done + 50000, n - done - 50000), WT_OK);
  CHECK_EQ_INT(wt_sink_close(&gz.base), WT_OK);
  unsigned char *out;
  size_t out_len;
  CHECK_EQ_INT(gunzip(mem.data, mem.len, &out, &out_len, 0), Z_STREAM_END);
  CHECK_EQ_MEM(out, out_len, input, n);
  free(out);
  free(input);
  wt_mem_sink_free(&mem);
}

/* An inner sink that counts flushes and closes. */
typedef struct counting_sink {
  wt_sink base;
  wt_mem_sink mem;
  int flushes, closes;
} counting_sink;

static wt_status counting_write(wt_sink *s, const void *data, size_t len) {
  return wt_sink_write(&((counting_sink *)s)->mem.base, data, len);
}
static wt_status counting_flush(wt_sink *s) {
  ((counting_sink *)s)->flushes++;
  return WT_OK;
}
static wt_status counting_close(wt_sink *s) {
  ((counting_sink *)s)->closes++;
  return wt_sink_close(&((counting_sink *)s)->mem.base);
}

WT_TEST(gzip_sink_should_flush_and_close_its_inner_sink) {
  /* The output queue under the gzip sink hands its partial block to the
   * main thread only when it is flushed itself. */
  counting_sink cs = {.base = {.write = counting_write, .flush = counting_flush,
                               .close = counting_close}};
  wt_mem_sink_init(&cs.mem);
  wt_gzip_sink gz;
  REQUIRE_EQ_INT(wt_gzip_sink_init(&gz, &cs.base, 1), WT_OK);
  CHECK_EQ_INT(wt_sink_write(&gz.base, "abc", 3), WT_OK);
  CHECK_EQ_INT(cs.flushes, 0);
  CHECK_EQ_INT(wt_sink_flush(&gz.base), WT_OK);
  CHECK_EQ_INT(cs.flushes, 1);
  CHECK(cs.mem.len >= 4 && memcmp(cs.mem.data + cs.mem.len - 4, "\x00\x00\xff\xff", 4) == 0);
  CHECK_EQ_INT(cs.closes, 0);
  CHECK_EQ_INT(wt_sink_close(&gz.base), WT_OK);
  CHECK_EQ_INT(cs.closes, 1);
  CHECK_EQ_U64(cs.base.bytes_in, cs.mem.len);
  wt_mem_sink_free(&cs.mem);
}

WT_TEST(gzip_sink_should_refuse_writes_after_close) {
  wt_mem_sink mem;
  wt_mem_sink_init(&mem);
  wt_gzip_sink gz;
  REQUIRE_EQ_INT(wt_gzip_sink_init(&gz, &mem.base, 1), WT_OK);
  CHECK_EQ_INT(wt_sink_write(&gz.base, "abc", 3), WT_OK);
  CHECK_EQ_INT(wt_sink_close(&gz.base), WT_OK);
  size_t len = mem.len;
  CHECK_EQ_INT(wt_sink_write(&gz.base, "def", 3), WT_ERR_STATE);
  CHECK_EQ_INT(wt_sink_flush(&gz.base), WT_ERR_STATE);
  CHECK_EQ_INT(wt_sink_close(&gz.base), WT_ERR_STATE);
  CHECK_EQ_U64(mem.len, len);
  wt_mem_sink_free(&mem);
}

WT_TEST(gzip_sink_should_report_an_error_of_its_inner_sink) {
  wt_mem_sink mem;
  wt_mem_sink_init(&mem);
  wt_gzip_sink gz;
  REQUIRE_EQ_INT(wt_gzip_sink_init(&gz, &mem.base, 1), WT_OK);
  wt_sink_close(&mem.base); /* the inner sink now refuses writes */
  /* The write may fail already (zlib emits the gzip header at once); the
   * flush must. */
  wt_status st = wt_sink_write(&gz.base, "abc", 3);
  CHECK(st == WT_OK || st == WT_ERR_STATE);
  CHECK_EQ_INT(wt_sink_flush(&gz.base), WT_ERR_STATE);
  CHECK_EQ_INT(wt_sink_close(&gz.base), WT_ERR_STATE);
  wt_gzip_sink_free(&gz); /* no leak whether or not close freed it */
  wt_mem_sink_free(&mem);
}

WT_TEST(gzip_sink_free_should_release_an_unclosed_stream) {
  wt_mem_sink mem;
  wt_mem_sink_init(&mem);
  wt_gzip_sink gz;
  REQUIRE_EQ_INT(wt_gzip_sink_init(&gz, &mem.base, 9), WT_OK);
  CHECK_EQ_INT(wt_sink_write(&gz.base, "abc", 3), WT_OK);
  wt_gzip_sink_free(&gz); /* LeakSanitizer checks that zlib's state is gone */
  CHECK(gz.zstream == NULL);
  CHECK_EQ_INT(wt_sink_write(&gz.base, "abc", 3), WT_ERR_STATE);
  wt_gzip_sink_free(&gz); /* twice is harmless */
  wt_mem_sink_free(&mem);
}

int main(int argc, char **argv) {
  static const wt_test tests[] = {
      WT_TEST_ENTRY(gzip_sink_should_round_trip_megabytes_through_inflate),
      WT_TEST_ENTRY(gzip_sink_should_round_trip_at_every_level),
      WT_TEST_ENTRY(gzip_sink_should_write_a_valid_empty_stream),
      WT_TEST_ENTRY(gzip_sink_output_cut_after_a_flush_should_decompress_up_to_the_flush),
      WT_TEST_ENTRY(gzip_sink_should_flush_and_close_its_inner_sink),
      WT_TEST_ENTRY(gzip_sink_should_refuse_writes_after_close),
      WT_TEST_ENTRY(gzip_sink_should_report_an_error_of_its_inner_sink),
      WT_TEST_ENTRY(gzip_sink_free_should_release_an_unclosed_stream),
  };
  return wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
}
