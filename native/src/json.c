/* JSON writer and the one string-escaping routine. */
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void wt_json_init(wt_json *j, wt_sink *sink) {
  j->sink = sink;
  j->status = WT_OK;
  j->len = 0;
}

wt_status wt_json_flush(wt_json *j) {
  if (j->status == WT_OK && j->len) j->status = wt_sink_write(j->sink, j->buf, j->len);
  j->len = 0;
  return j->status;
}

void wt_json_raw(wt_json *j, const char *s, size_t n) {
  while (n) {
    if (j->len == sizeof j->buf && wt_json_flush(j) != WT_OK) return;
    size_t room = sizeof j->buf - j->len;
    size_t take = n < room ? n : room;
    memcpy(j->buf + j->len, s, take);
    j->len += take;
    s += take;
    n -= take;
  }
}

void wt_json_lit(wt_json *j, const char *s) { wt_json_raw(j, s, strlen(s)); }

size_t wt_json_utf8_copy(char *dst, size_t cap, const char *src) {
  size_t n = strlen(src);
  if (n >= cap) {
    n = cap - 1;
    /* Back up over the continuation bytes at the cut, then drop their lead
     * byte too if the sequence it starts does not fit whole. */
    size_t i = n, cont = 0;
    while (i > 0 && cont < 3 && ((unsigned char)src[i - 1] & 0xc0) == 0x80) i--, cont++;
    if (i > 0) {
      unsigned lead = (unsigned char)src[i - 1];
      size_t need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
      if (need > 1 && cont + 1 < need) n = i - 1;
    }
  }
  memcpy(dst, src, n);
  dst[n] = '\0';
  return n;
}

size_t wt_json_utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t len;
  unsigned min;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) { len = 2; min = 0x80; }
  else if (c >= 0xe0 && c <= 0xef) { len = 3; min = 0x800; }
  else if (c >= 0xf0 && c <= 0xf4) { len = 4; min = 0x10000; }
  else return 0;
  if (n < len) return 0;
  unsigned cp = c & (0x3f >> (len - 1));
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

/* Calls emit(ctx, bytes, n) for each piece of the escaped form of s. */
static void escape(const char *str, size_t n, void (*emit)(void *, const char *, size_t),
                   void *ctx) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *s = (const unsigned char *)str;
  size_t run = 0; /* bytes copied verbatim, pending */
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i];
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      run++;
      i++;
      continue;
    }
    size_t ulen = c >= 0x80 ? wt_json_utf8_len(s + i, n - i) : 0;
    if (ulen) {
      run += ulen;
      i += ulen;
      continue;
    }
    if (run) emit(ctx, (const char *)s + i - run, run);
    run = 0;
    char esc[8];
    size_t elen = 2;
    esc[0] = '\\';
    switch (c) {
      case '"': esc[1] = '"'; break;
      case '\\': esc[1] = '\\'; break;
      case '\n': esc[1] = 'n'; break;
      case '\r': esc[1] = 'r'; break;
      case '\t': esc[1] = 't'; break;
      case '\b': esc[1] = 'b'; break;
      case '\f': esc[1] = 'f'; break;
      default:
        if (c < 0x20) {
          memcpy(esc, "\\u00", 4);
          esc[4] = hex[c >> 4];
          esc[5] = hex[c & 15];
          elen = 6;
        } else {
          memcpy(esc, "\\ufffd", 6); /* invalid UTF-8 byte */
          elen = 6;
        }
    }
    emit(ctx, esc, elen);
    i++;
  }
  if (run) emit(ctx, (const char *)s + n - run, run);
}

static void emit_json(void *ctx, const char *s, size_t n) { wt_json_raw(ctx, s, n); }

void wt_json_string_n(wt_json *j, const char *s, size_t n) {
  wt_json_raw(j, "\"", 1);
  escape(s, n, emit_json, j);
  wt_json_raw(j, "\"", 1);
}

void wt_json_string(wt_json *j, const char *s) { wt_json_string_n(j, s ? s : "", s ? strlen(s) : 0); }

struct buf_ctx {
  char *out;
  size_t cap, len;
};

static void emit_buf(void *ctx, const char *s, size_t n) {
  struct buf_ctx *b = ctx;
  if (b->len + 1 >= b->cap) return;
  size_t room = b->cap - 1 - b->len;
  if (n > room) n = room;
  memcpy(b->out + b->len, s, n);
  b->len += n;
}

size_t wt_json_escape(const char *s, size_t n, char *out, size_t cap) {
  struct buf_ctx b = {out, cap, 0};
  if (!cap) return 0;
  escape(s, n, emit_buf, &b);
  out[b.len] = '\0';
  return b.len;
}

void wt_json_u64(wt_json *j, uint64_t v) {
  char tmp[24];
  int i = (int)sizeof tmp;
  do {
    tmp[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  wt_json_raw(j, tmp + i, sizeof tmp - (size_t)i);
}

void wt_json_i64(wt_json *j, int64_t v) {
  if (v < 0) {
    wt_json_raw(j, "-", 1);
    wt_json_u64(j, (uint64_t)0 - (uint64_t)v);
  } else {
    wt_json_u64(j, (uint64_t)v);
  }
}

void wt_json_double3(wt_json *j, double v) {
  if (!isfinite(v)) {
    wt_json_raw(j, "0", 1);
    return;
  }
  /* Fixed point with 3 decimals, trailing zeros trimmed: 1234.5, 17, 0.125 */
  int neg = v < 0;
  if (neg) v = -v;
  uint64_t milli = (uint64_t)llround(v * 1000.0);
  if (neg && milli) wt_json_raw(j, "-", 1);
  wt_json_u64(j, milli / 1000);
  unsigned frac = (unsigned)(milli % 1000);
  if (frac) {
    char tmp[5] = {'.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10),
                   (char)('0' + frac % 10), 0};
    size_t n = 4;
    while (tmp[n - 1] == '0') n--;
    wt_json_raw(j, tmp, n);
  }
}
