/* The one escaping routine and the buffered JSON writer (json.c) over an
 * in-memory sink (sink_mem.c). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cJSON.h"
#include "fmt.h"
#include "json.h"
#include "sink.h"
#include "wt_test.h"

/* ---- helpers ------------------------------------------------------------ */

/* Escapes n bytes of s and compares with the expected escaped text. */
static int check_escape(const char *s, size_t n, const char *expected, int line) {
  char out[512];
  size_t len = wt_json_escape(s, n, out, sizeof out);
  if (len != strlen(out) || strcmp(out, expected) != 0) {
    wt_test_fail(__FILE__, line, "escape: got \"%s\" (%zu), expected \"%s\"", out, len, expected);
    return 0;
  }
  return 1;
}
#define CHECK_ESCAPE(s, expected) check_escape((s), sizeof(s) - 1, (expected), __LINE__)

/* A writer over a mem sink; the text written so far, NUL-terminated. */
typedef struct writer {
  wt_mem_sink sink;
  wt_json json;
  char *text;
} writer;

static void writer_init(writer *w) {
  wt_mem_sink_init(&w->sink);
  wt_json_init(&w->json, &w->sink.base);
  w->text = NULL;
}

static const char *writer_text(writer *w) {
  wt_json_flush(&w->json);
  free(w->text);
  w->text = malloc(w->sink.len + 1);
  if (!w->text) return "";
  memcpy(w->text, w->sink.data, w->sink.len);
  w->text[w->sink.len] = '\0';
  return w->text;
}

static void writer_free(writer *w) {
  free(w->text);
  wt_mem_sink_free(&w->sink);
}

static const char *double3(double v) {
  static writer w;
  static char out[64];
  writer_init(&w);
  wt_json_double3(&w.json, v);
  snprintf(out, sizeof out, "%s", writer_text(&w));
  writer_free(&w);
  return out;
}

/* Decodes a JSON string literal with cJSON; the caller frees the tree. */
static cJSON *decode(const char *quoted) { return cJSON_Parse(quoted); }

/* ---- escaping ----------------------------------------------------------- */

WT_TEST(json_escape_should_escape_quotes_and_backslashes) {
  CHECK_ESCAPE("say \"hi\"", "say \\\"hi\\\"");
  CHECK_ESCAPE("C:\\path\\", "C:\\\\path\\\\");
  CHECK_ESCAPE("\"", "\\\"");
  CHECK_ESCAPE("", "");
  CHECK_ESCAPE("plain / text", "plain / text");
}

WT_TEST(json_escape_should_escape_control_characters) {
  CHECK_ESCAPE("a\nb", "a\\nb");
  CHECK_ESCAPE("\t\r\b\f", "\\t\\r\\b\\f");
  CHECK_ESCAPE("\x01", "\\u0001");
  CHECK_ESCAPE("\x1f", "\\u001f");
  CHECK_ESCAPE("x\x0by", "x\\u000by");
  CHECK_ESCAPE("a\0b", "a\\u0000b");
}

WT_TEST(json_escape_should_keep_del_as_is) {
  /* U+007F needs no escaping in JSON. */
  CHECK_ESCAPE("a\x7f" "b", "a\x7f" "b");
}

WT_TEST(json_escape_should_keep_valid_non_ascii_utf8) {
  CHECK_ESCAPE("caf\xc3\xa9", "caf\xc3\xa9");                 /* é, 2 bytes */
  CHECK_ESCAPE("\xe2\x82\xac" "5", "\xe2\x82\xac" "5");       /* €, 3 bytes */
  CHECK_ESCAPE("\xf0\x9f\x98\x80!", "\xf0\x9f\x98\x80!");     /* 😀, 4 bytes */
  CHECK_ESCAPE("\xef\xbf\xbf", "\xef\xbf\xbf");               /* U+FFFF */
  CHECK_ESCAPE("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf");       /* U+10FFFF */
  CHECK_ESCAPE("\xed\x9f\xbf", "\xed\x9f\xbf");               /* U+D7FF */
  CHECK_ESCAPE("\xee\x80\x80", "\xee\x80\x80");               /* U+E000 */
}

WT_TEST(json_escape_should_replace_a_lone_continuation_byte) {
  CHECK_ESCAPE("a\x80" "b", "a\\ufffdb");
  CHECK_ESCAPE("\xbf", "\\ufffd");
}

WT_TEST(json_escape_should_replace_a_truncated_sequence) {
  CHECK_ESCAPE("caf\xc3", "caf\\ufffd");       /* cut at the end of the text */
  CHECK_ESCAPE("\xc3" "A", "\\ufffdA");         /* followed by ASCII */
  CHECK_ESCAPE("\xf0\x9f\x98", "\\ufffd\\ufffd\\ufffd");
  /* The length given wins over the bytes that follow it. */
  CHECK(check_escape("\xc3\xa9", 1, "\\ufffd", __LINE__));
}

WT_TEST(json_escape_should_replace_overlong_encodings) {
  CHECK_ESCAPE("\xc0\xaf", "\\ufffd\\ufffd");                 /* '/' in 2 bytes */
  CHECK_ESCAPE("\xc1\xbf", "\\ufffd\\ufffd");
  CHECK_ESCAPE("\xe0\x80\xaf", "\\ufffd\\ufffd\\ufffd");      /* '/' in 3 bytes */
  CHECK_ESCAPE("\xf0\x80\x80\xaf", "\\ufffd\\ufffd\\ufffd\\ufffd");
}

WT_TEST(json_escape_should_replace_surrogates_encoded_in_utf8) {
  CHECK_ESCAPE("\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd");      /* U+D800 */
  CHECK_ESCAPE("\xed\xbf\xbf", "\\ufffd\\ufffd\\ufffd");      /* U+DFFF */
}

WT_TEST(json_escape_should_replace_bytes_that_never_occur_in_utf8) {
  CHECK_ESCAPE("\xff", "\\ufffd");
  CHECK_ESCAPE("\xfe\xf8", "\\ufffd\\ufffd");
  CHECK_ESCAPE("\xf5\x80\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd");
  CHECK_ESCAPE("\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd"); /* above U+10FFFF */
}

WT_TEST(json_escape_output_should_parse_back_to_the_valid_input) {
  /* Every byte value once, then the decoded string is the input with each
   * invalid byte replaced by U+FFFD. */
  char in[256], out[2048], quoted[2100];
  for (int i = 0; i < 256; i++) in[i] = (char)(i ? i : 'z');
  size_t n = wt_json_escape(in, sizeof in, out, sizeof out);
  REQUIRE(n < sizeof out - 1);
  snprintf(quoted, sizeof quoted, "\"%s\"", out);
  cJSON *v = decode(quoted);
  REQUIRE(v != NULL);
  REQUIRE(cJSON_IsString(v));
  const unsigned char *d = (const unsigned char *)v->valuestring;
  CHECK(memcmp(d, in, 128) == 0);
  for (int i = 128; i < 256; i++) CHECK(memcmp(d + 128 + 3 * (i - 128), "\xef\xbf\xbd", 3) == 0);
  CHECK_EQ_INT(strlen(v->valuestring), 128 + 3 * 128);
  cJSON_Delete(v);
}

WT_TEST(json_escape_should_truncate_to_the_buffer_and_terminate_it) {
  char *out = malloc(4); /* exact size: ASan catches a write past it */
  REQUIRE(out != NULL);
  CHECK_EQ_INT(wt_json_escape("abcdef", 6, out, 4), 3);
  CHECK_EQ_STR(out, "abc");
  CHECK_EQ_INT(wt_json_escape("\"\"\"", 3, out, 4), 3);
  CHECK_EQ_INT(strlen(out), 3);
  CHECK_EQ_INT(wt_json_escape("abc", 3, out, 0), 0);
  CHECK_EQ_INT(wt_json_escape("abc", 3, out, 1), 0);
  CHECK_EQ_STR(out, "");
  free(out);
}

/* ---- the writer --------------------------------------------------------- */

WT_TEST(json_writer_should_quote_and_escape_strings) {
  writer w;
  writer_init(&w);
  wt_json_string(&w.json, "a\"b\\c\n\xc3\xa9\x80");
  wt_json_lit(&w.json, ",");
  wt_json_string(&w.json, NULL);
  wt_json_lit(&w.json, ",");
  wt_json_string_n(&w.json, "x\0y", 3);
  CHECK_EQ_STR(writer_text(&w), "\"a\\\"b\\\\c\\n\xc3\xa9\\ufffd\",\"\",\"x\\u0000y\"");
  writer_free(&w);
}

WT_TEST(json_writer_should_write_u64_and_i64_extremes) {
  writer w;
  writer_init(&w);
  wt_json_u64(&w.json, 0);
  wt_json_lit(&w.json, " ");
  wt_json_u64(&w.json, UINT64_MAX);
  wt_json_lit(&w.json, " ");
  wt_json_u64(&w.json, 10);
  wt_json_lit(&w.json, " ");
  wt_json_i64(&w.json, INT64_MIN);
  wt_json_lit(&w.json, " ");
  wt_json_i64(&w.json, INT64_MAX);
  wt_json_lit(&w.json, " ");
  wt_json_i64(&w.json, -1);
  wt_json_lit(&w.json, " ");
  wt_json_i64(&w.json, 0);
  CHECK_EQ_STR(writer_text(&w),
               "0 18446744073709551615 10 -9223372036854775808 9223372036854775807 -1 0");
  writer_free(&w);
}

WT_TEST(json_double3_should_write_up_to_three_decimals_without_trailing_zeros) {
  CHECK_EQ_STR(double3(0), "0");
  CHECK_EQ_STR(double3(17), "17");
  CHECK_EQ_STR(double3(1234.5), "1234.5");
  CHECK_EQ_STR(double3(0.125), "0.125");
  CHECK_EQ_STR(double3(0.25), "0.25");
  CHECK_EQ_STR(double3(-2.5), "-2.5");
  CHECK_EQ_STR(double3(-17), "-17");
  CHECK_EQ_STR(double3(-0.125), "-0.125");
  CHECK_EQ_STR(double3(0.001), "0.001");
  CHECK_EQ_STR(double3(0.01), "0.01");
  CHECK_EQ_STR(double3(1e9 + 0.5), "1000000000.5");
  /* A typical timestamp in microseconds: ~3 days of uptime. */
  CHECK_EQ_STR(double3(259200123456.789), "259200123456.789");
}

WT_TEST(json_double3_should_round_to_the_nearest_thousandth) {
  CHECK_EQ_STR(double3(2.0006), "2.001");
  CHECK_EQ_STR(double3(0.9996), "1");
  CHECK_EQ_STR(double3(123456.78949), "123456.789");
  CHECK_EQ_STR(double3(0.0004), "0");
  CHECK_EQ_STR(double3(-0.0004), "0"); /* no "-0" */
  CHECK_EQ_STR(double3(-0.0), "0");
  CHECK_EQ_STR(double3(-1.9996), "-2");
}

WT_TEST(json_double3_should_write_zero_for_values_that_are_not_finite) {
  CHECK_EQ_STR(double3(NAN), "0");
  CHECK_EQ_STR(double3(INFINITY), "0");
  CHECK_EQ_STR(double3(-INFINITY), "0");
}

WT_TEST(json_writer_should_pass_output_larger_than_its_buffer_to_the_sink) {
  writer w;
  writer_init(&w);
  /* ~100 KiB of small pieces, then one piece larger than the buffer. */
  size_t expected_cap = 200000, expected_len = 0;
  char *expected = malloc(expected_cap);
  REQUIRE(expected != NULL);
  wt_json_lit(&w.json, "[");
  expected[expected_len++] = '[';
  for (int i = 0; i < 10000; i++) {
    char piece[32];
    int n = snprintf(piece, sizeof piece, "%s%d", i ? "," : "", i);
    wt_json_lit(&w.json, i ? "," : "");
    wt_json_u64(&w.json, (uint64_t)i);
    memcpy(expected + expected_len, piece, (size_t)n);
    expected_len += (size_t)n;
  }
  char big[20000];
  memset(big, 'q', sizeof big);
  wt_json_lit(&w.json, ",\"");
  wt_json_raw(&w.json, big, sizeof big);
  wt_json_lit(&w.json, "\"]");
  memcpy(expected + expected_len, ",\"", 2);
  expected_len += 2;
  memcpy(expected + expected_len, big, sizeof big);
  expected_len += sizeof big;
  memcpy(expected + expected_len, "\"]", 2);
  expected_len += 2;
  /* Before the flush, the sink holds whole buffers only; nothing is lost. */
  CHECK(w.sink.len > 0);
  CHECK(w.sink.len % sizeof w.json.buf == 0);
  CHECK_EQ_U64(w.sink.len + w.json.len, expected_len);
  CHECK_EQ_INT(wt_json_flush(&w.json), WT_OK);
  CHECK_EQ_MEM(w.sink.data, w.sink.len, expected, expected_len);
  CHECK_EQ_U64(w.sink.base.bytes_in, expected_len);
  /* The whole thing is one valid JSON document. */
  cJSON *v = cJSON_ParseWithLength((const char *)w.sink.data, w.sink.len);
  CHECK(v != NULL && cJSON_GetArraySize(v) == 10001);
  cJSON_Delete(v);
  free(expected);
  writer_free(&w);
}

WT_TEST(json_writer_should_escape_strings_that_straddle_its_buffer) {
  writer w;
  writer_init(&w);
  /* 3000 copies of a string that escapes to 2 bytes per quote. */
  char s[9000];
  for (int i = 0; i < 9000; i += 3) memcpy(s + i, "\"\xc3\xa9", 3);
  wt_json_string_n(&w.json, s, sizeof s);
  const char *text = writer_text(&w);
  CHECK_EQ_INT(strlen(text), 2 + 3000 * 4);
  cJSON *v = cJSON_Parse(text);
  REQUIRE(v != NULL);
  CHECK(cJSON_IsString(v) && strlen(v->valuestring) == sizeof s &&
        memcmp(v->valuestring, s, sizeof s) == 0);
  cJSON_Delete(v);
  writer_free(&w);
}

WT_TEST(json_writer_should_keep_the_first_sink_error) {
  writer w;
  writer_init(&w);
  wt_sink_close(&w.sink.base); /* a closed mem sink refuses writes */
  wt_json_lit(&w.json, "[1]");
  CHECK_EQ_INT(wt_json_flush(&w.json), WT_ERR_STATE);
  CHECK_EQ_INT(w.json.status, WT_ERR_STATE);
  /* Later writes, even past the buffer size, are no-ops. */
  char big[3 * sizeof w.json.buf];
  memset(big, 'x', sizeof big);
  wt_json_raw(&w.json, big, sizeof big);
  CHECK_EQ_INT(wt_json_flush(&w.json), WT_ERR_STATE);
  CHECK_EQ_U64(w.sink.len, 0);
  writer_free(&w);
}

WT_TEST(mem_sink_should_grow_and_refuse_writes_after_close) {
  wt_mem_sink s;
  wt_mem_sink_init(&s);
  unsigned char chunk[1000];
  for (size_t i = 0; i < sizeof chunk; i++) chunk[i] = (unsigned char)i;
  for (int i = 0; i < 100; i++) CHECK_EQ_INT(wt_sink_write(&s.base, chunk, sizeof chunk), WT_OK);
  CHECK_EQ_U64(s.len, 100000);
  CHECK(s.cap >= s.len);
  CHECK(memcmp(s.data + 99000, chunk, sizeof chunk) == 0);
  CHECK_EQ_INT(wt_sink_flush(&s.base), WT_OK);
  CHECK_EQ_INT(wt_sink_close(&s.base), WT_OK);
  CHECK_EQ_INT(wt_sink_write(&s.base, chunk, 1), WT_ERR_STATE);
  CHECK_EQ_U64(s.len, 100000);
  wt_mem_sink_free(&s);
  CHECK(s.data == NULL);
}

/* ---- wt_json_utf8_copy: names cut to fixed buffers -------------------------- */

WT_TEST(utf8_copy_should_keep_a_name_that_fits_whole) {
  char out[8];
  CHECK_EQ_INT((int)wt_json_utf8_copy(out, sizeof out, "abc"), 3);
  CHECK(strcmp(out, "abc") == 0);
  CHECK_EQ_INT((int)wt_json_utf8_copy(out, sizeof out, "1234567"), 7); /* exactly cap - 1 */
  CHECK(strcmp(out, "1234567") == 0);
}

WT_TEST(utf8_copy_should_never_split_a_character_at_the_cut) {
  char out[6]; /* 5 bytes of text */
  /* "ab" then U+20AC (3 bytes) fits whole: 5 bytes. */
  CHECK_EQ_INT((int)wt_json_utf8_copy(out, sizeof out, "ab\xe2\x82\xac" "cd"), 5);
  CHECK(strcmp(out, "ab\xe2\x82\xac") == 0);
  /* "abc" then U+20AC: the cut falls after its second byte; both go. */
  CHECK_EQ_INT((int)wt_json_utf8_copy(out, sizeof out, "abc\xe2\x82\xac"), 3);
  CHECK(strcmp(out, "abc") == 0);
  /* "abcd" then U+20AC: the cut falls after its lead byte. */
  CHECK_EQ_INT((int)wt_json_utf8_copy(out, sizeof out, "abcd\xe2\x82\xac"), 4);
  CHECK(strcmp(out, "abcd") == 0);
  /* "a" then U+1F600 (4 bytes) cut after 3 of them. */
  char out4[5];
  CHECK_EQ_INT((int)wt_json_utf8_copy(out4, sizeof out4, "a\xf0\x9f\x98\x80"), 1);
  CHECK(strcmp(out4, "a") == 0);
  /* Two-byte characters: "\xc3\xa9" (U+00E9) twice then one more cut. */
  CHECK_EQ_INT((int)wt_json_utf8_copy(out, sizeof out, "\xc3\xa9\xc3\xa9\xc3\xa9"), 4);
  CHECK(strcmp(out, "\xc3\xa9\xc3\xa9") == 0);
  /* Every cut of a name of 3-byte characters leaves valid UTF-8. */
  const char *euros = "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac";
  for (size_t cap = 1; cap <= 13; cap++) {
    char buf[16];
    size_t n = wt_json_utf8_copy(buf, cap, euros);
    CHECK(n % 3 == 0 && n <= cap - 1 && buf[n] == '\0');
  }
}

/* ---- wt_snprintf and wt_fmt_double (fmt.c) --------------------------------- */

/* Formats with wt_snprintf and libc's snprintf at every buffer size from 0
 * to the whole length + 2: the same return value, the same bytes, and no
 * byte past the cut touched. */
#define CHECK_LIKE_LIBC(fmt, ...)                                                       \
  do {                                                                                  \
    char want[256], got[256];                                                           \
    int n = snprintf(want, sizeof want, fmt, __VA_ARGS__);                              \
    REQUIRE(n >= 0 && n < (int)sizeof want - 2);                                        \
    for (int cap = 0; cap <= n + 2; cap++) {                                            \
      char lib[256];                                                                    \
      memset(got, 'Z', sizeof got);                                                     \
      memset(lib, 'Z', sizeof lib);                                                     \
      int m = wt_snprintf(got, (size_t)cap, fmt, __VA_ARGS__);                          \
      snprintf(lib, (size_t)cap, fmt, __VA_ARGS__);                                     \
      CHECK_EQ_INT(m, n);                                                               \
      if (memcmp(got, lib, sizeof got) != 0) {                                          \
        wt_test_fail(__FILE__, __LINE__, "%s at cap %d: got \"%.*s\", libc \"%.*s\"", fmt, \
                     cap, cap, got, cap, lib);                                          \
        break;                                                                          \
      }                                                                                 \
    }                                                                                   \
  } while (0)

WT_TEST(wt_snprintf_should_match_libc_for_integers_and_strings_at_every_cut) {
  CHECK_LIKE_LIBC("plain text, no conversion%s", "");
  CHECK_LIKE_LIBC("%d|%d|%d|%d", 0, -1, INT32_MAX, INT32_MIN);
  CHECK_LIKE_LIBC("%i and %u and %x", -42, 4294967295u, 0xdeadbeefu);
  CHECK_LIKE_LIBC("%ld %lu %lld %llu", (long)-123456789, (unsigned long)987654321u, (long long)INT64_MIN,
                  (unsigned long long)UINT64_MAX);
  CHECK_LIKE_LIBC("%zu bytes (%zu)", (size_t)0, SIZE_MAX);
  CHECK_LIKE_LIBC("session '%s' failed: %s", "startup", "needs 587 KiB to start");
  CHECK_LIKE_LIBC("%.5s|%.0s|%.40s|%.*s", "truncated here", "none", "short", 3, "abcdef");
  CHECK_LIKE_LIBC("100%% of %c%c", 'o', 'k');
  CHECK_LIKE_LIBC("%s", "caf\xc3\xa9 \xe2\x9c\x93"); /* bytes, not characters */
  /* Pseudo-random values of every size. */
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 200; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    CHECK_LIKE_LIBC("[%d %u %x %lld %llu %zu]", (int)x, (unsigned)(x >> 7), (unsigned)(x >> 3),
                    (long long)x, (unsigned long long)(x * 31), (size_t)(x >> 11));
  }
}

WT_TEST(wt_snprintf_should_write_an_unsupported_conversion_as_a_marker_and_stop) {
  char buf[64];
  /* -Wformat would reject a literal: the format goes through a variable. */
  const char *fmt = "a %d b %5d c";
  CHECK_EQ_INT(wt_snprintf(buf, sizeof buf, fmt, 1, 2), 8);
  CHECK_EQ_STR(buf, "a 1 b %?");
}

WT_TEST(wt_fmt_double_should_write_json_numbers_that_read_back) {
  char buf[64];
  /* Integers up to 2^53: exactly, as integers. */
  static const double ints[] = {0, -0.0, 1, -1, 5, 1e15, 9007199254740992.0, -9007199254740992.0};
  static const char *const ints_text[] = {"0", "0", "1", "-1", "5", "1000000000000000", "9007199254740992",
                                          "-9007199254740992"};
  for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
    wt_fmt_double(buf, sizeof buf, ints[i], 17);
    CHECK_EQ_STR(buf, ints_text[i]);
  }
  /* 17 digits: the value itself reads back. */
  static const double vals[] = {0.1, -2.5, 1.0 / 3.0, 0.1 + 0.2, 1e-300, 123456.789, 1e300, DBL_MAX, -DBL_MIN,
                                9007199254740993.0 * 4, 5e-324};
  for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
    int n = wt_fmt_double(buf, sizeof buf, vals[i], 17);
    CHECK_EQ_INT(n, (int)strlen(buf));
    cJSON *num = cJSON_Parse(buf);
    CHECK(cJSON_IsNumber(num));
    if (num && num->valuedouble != vals[i])
      wt_test_fail(__FILE__, __LINE__, "%s read back as %.17g, not %.17g", buf, num->valuedouble, vals[i]);
    cJSON_Delete(num);
  }
  /* 15 digits: the rounding a config error shows (0.30000000000000004). */
  wt_fmt_double(buf, sizeof buf, 0.1 + 0.2, 15);
  CHECK_EQ_STR(buf, "0.3");
  wt_fmt_double(buf, sizeof buf, 100.5, 15);
  CHECK_EQ_STR(buf, "100.5");
  /* JSON has no NaN or Infinity. */
  wt_fmt_double(buf, sizeof buf, NAN, 17);
  CHECK_EQ_STR(buf, "0");
  wt_fmt_double(buf, sizeof buf, -INFINITY, 17);
  CHECK_EQ_STR(buf, "0");
  /* Cut like snprintf: NUL-terminated, the whole length returned. */
  memset(buf, 'Z', sizeof buf);
  CHECK_EQ_INT(wt_fmt_double(buf, 4, 0.125, 17), 5);
  CHECK_EQ_STR(buf, "0.1");
  CHECK_EQ_INT(buf[4], 'Z');
}

int main(int argc, char **argv) {
  static const wt_test tests[] = {
      WT_TEST_ENTRY(json_escape_should_escape_quotes_and_backslashes),
      WT_TEST_ENTRY(json_escape_should_escape_control_characters),
      WT_TEST_ENTRY(json_escape_should_keep_del_as_is),
      WT_TEST_ENTRY(json_escape_should_keep_valid_non_ascii_utf8),
      WT_TEST_ENTRY(json_escape_should_replace_a_lone_continuation_byte),
      WT_TEST_ENTRY(json_escape_should_replace_a_truncated_sequence),
      WT_TEST_ENTRY(json_escape_should_replace_overlong_encodings),
      WT_TEST_ENTRY(json_escape_should_replace_surrogates_encoded_in_utf8),
      WT_TEST_ENTRY(json_escape_should_replace_bytes_that_never_occur_in_utf8),
      WT_TEST_ENTRY(json_escape_output_should_parse_back_to_the_valid_input),
      WT_TEST_ENTRY(json_escape_should_truncate_to_the_buffer_and_terminate_it),
      WT_TEST_ENTRY(json_writer_should_quote_and_escape_strings),
      WT_TEST_ENTRY(json_writer_should_write_u64_and_i64_extremes),
      WT_TEST_ENTRY(json_double3_should_write_up_to_three_decimals_without_trailing_zeros),
      WT_TEST_ENTRY(json_double3_should_round_to_the_nearest_thousandth),
      WT_TEST_ENTRY(json_double3_should_write_zero_for_values_that_are_not_finite),
      WT_TEST_ENTRY(json_writer_should_pass_output_larger_than_its_buffer_to_the_sink),
      WT_TEST_ENTRY(json_writer_should_escape_strings_that_straddle_its_buffer),
      WT_TEST_ENTRY(json_writer_should_keep_the_first_sink_error),
      WT_TEST_ENTRY(mem_sink_should_grow_and_refuse_writes_after_close),
      WT_TEST_ENTRY(utf8_copy_should_keep_a_name_that_fits_whole),
      WT_TEST_ENTRY(utf8_copy_should_never_split_a_character_at_the_cut),
      WT_TEST_ENTRY(wt_snprintf_should_match_libc_for_integers_and_strings_at_every_cut),
      WT_TEST_ENTRY(wt_snprintf_should_write_an_unsupported_conversion_as_a_marker_and_stop),
      WT_TEST_ENTRY(wt_fmt_double_should_write_json_numbers_that_read_back),
  };
  return wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
}

