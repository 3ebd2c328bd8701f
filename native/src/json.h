/* A buffered JSON writer over a sink. Every string that reaches JSON output
 * goes through wt_json_string (one escaping path). */
#ifndef WT_JSON_H
#define WT_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "sink.h"

typedef struct wt_json {
  wt_sink *sink;
  wt_status status; /* first error; later writes are no-ops */
  size_t len;
  char buf[2048]; /* small: every session record keeps one */
} wt_json;

void wt_json_init(wt_json *j, wt_sink *sink);
/* Appends raw bytes (already valid JSON). */
void wt_json_raw(wt_json *j, const char *s, size_t n);
/* Appends a NUL-terminated literal (already valid JSON). */
void wt_json_lit(wt_json *j, const char *s);
/* Appends s (n bytes) as a quoted JSON string: quotes, backslashes and
 * control characters are escaped, invalid UTF-8 becomes U+FFFD. */
void wt_json_string_n(wt_json *j, const char *s, size_t n);
void wt_json_string(wt_json *j, const char *s);
void wt_json_u64(wt_json *j, uint64_t v);
void wt_json_i64(wt_json *j, int64_t v);
/* Appends a number with up to 3 decimals (microsecond timestamps). */
void wt_json_double3(wt_json *j, double v);
/* Passes buffered bytes to the sink. */
wt_status wt_json_flush(wt_json *j);

/* Length of the valid UTF-8 sequence at s (1..4; n bytes available), or 0
 * if it is invalid (overlong, surrogate, past U+10FFFF, truncated). */
size_t wt_json_utf8_len(const unsigned char *s, size_t n);

/* Copies `src` into `dst` (capacity `cap` > 0, always NUL-terminated) like
 * snprintf "%s", but a cut never splits a UTF-8 character: bytes of a
 * sequence the capacity cuts short are left out. Returns the bytes
 * copied. (Names the app gives are cut to fixed buffers; a split
 * character would reach the trace as U+FFFD.) */
size_t wt_json_utf8_copy(char *dst, size_t cap, const char *src);

/* Escapes s into out (NUL-terminated, truncated to cap) with the same rules
 * as wt_json_string but without quotes; for tests and small uses. Returns
 * the length written. */
size_t wt_json_escape(const char *s, size_t n, char *out, size_t cap);

#endif
