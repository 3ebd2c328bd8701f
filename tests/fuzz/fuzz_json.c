/* libFuzzer target for the one JSON string escaper (native/src/json.c),
 * host build with clang: any bytes, escaped by wt_json_escape and by the
 * writer's wt_json_string_n, must give the same text, which cJSON parses
 * as one string equal to the input with each invalid UTF-8 byte replaced
 * by U+FFFD (up to the first NUL: cJSON's strings are C strings). Also
 * checks the documented bound (at most 6 bytes out per byte in) and that
 * a short buffer truncates without overflowing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "json.h"
#include "sink.h"

#define REQUIRE(cond) \
  do {                \
    if (!(cond)) abort(); \
  } while (0)

/* What a reader must get back: valid sequences as they are, each invalid
 * byte as U+FFFD, stopping at the first NUL. Returns its length. */
static size_t expected(const unsigned char *s, size_t n, unsigned char *out) {
  size_t o = 0;
  for (size_t i = 0; i < n && s[i];) {
    size_t len = s[i] < 0x80 ? 1 : wt_json_utf8_len(s + i, n - i);
    if (len) {
      memcpy(out + o, s + i, len);
      o += len;
      i += len;
    } else {
      memcpy(out + o, "\xef\xbf\xbd", 3);
      o += 3;
      i++;
    }
  }
  return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t cap = 6 * size + 3;
  char *esc = malloc(cap);
  unsigned char *want = malloc(3 * size + 1);
  REQUIRE(esc && want);
  size_t len = wt_json_escape((const char *)data, size, esc + 1, cap - 2);
  REQUIRE(len <= 6 * size && esc[1 + len] == '\0');
  esc[0] = '"';
  esc[1 + len] = '"';
  esc[2 + len] = '\0';

  /* The writer's path gives the same bytes. */
  wt_mem_sink mem;
  wt_mem_sink_init(&mem);
  wt_json j;
  wt_json_init(&j, &mem.base);
  wt_json_string_n(&j, (const char *)data, size);
  REQUIRE(wt_json_flush(&j) == WT_OK);
  REQUIRE(mem.len == len + 2 && memcmp(mem.data, esc, len + 2) == 0);
  wt_mem_sink_free(&mem);

  /* Only printable ASCII and valid UTF-8 come out: no raw control byte. */
  for (size_t i = 1; i <= len; i++) REQUIRE((unsigned char)esc[i] >= 0x20);

  cJSON *v = cJSON_ParseWithLength(esc, len + 2);
  REQUIRE(v && cJSON_IsString(v));
  size_t wlen = expected(data, size, want);
  REQUIRE(strlen(v->valuestring) == wlen && memcmp(v->valuestring, want, wlen) == 0);
  cJSON_Delete(v);

  /* A short buffer: truncated, NUL-terminated, never past its end. */
  if (size) {
    size_t small = 1 + data[0] % 16;
    char *tiny = malloc(small);
    REQUIRE(tiny);
    size_t tlen = wt_json_escape((const char *)data, size, tiny, small);
    REQUIRE(tlen < small && tiny[tlen] == '\0' && memcmp(tiny, esc + 1, tlen) == 0);
    free(tiny);
  }
  free(esc);
  free(want);
  return 0;
}
