/* The config text and its values: the pre-scan that makes any text safe
 * for cJSON (lone surrogates, escaped NULs) and says where a malformed one
 * breaks, and the readers of typed values that every part of the parser
 * uses (config_read.h). Thread-safe: cJSON_ParseWithLengthOpts reports
 * where parsing stopped, with no global error state. */
#include "config_read.h"

#include "config.h"
#include "fmt.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wt_cfg_fail(char *err, size_t cap, const char *path, const char *fmt, ...) {
  char msg[WT_ERROR_MAX];
  va_list ap;
  va_start(ap, fmt);
  wt_vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  wt_snprintf(err, cap, "%s: %s", path, msg);
}

const char *wt_cfg_type_name(const cJSON *v) {
  if (cJSON_IsObject(v)) return "an object";
  if (cJSON_IsArray(v)) return "an array";
  if (cJSON_IsString(v)) return "a string";
  if (cJSON_IsNumber(v)) return "a number";
  if (cJSON_IsBool(v)) return "a boolean";
  if (cJSON_IsNull(v)) return "null";
  return "an invalid value";
}

/* Reads an integer in [lo, hi]; returns 0 and sets err otherwise. */
int wt_cfg_get_uint(const cJSON *v, const char *path, uint32_t lo, uint32_t hi, uint32_t *out,
                    char *err, size_t cap) {
  if (!cJSON_IsNumber(v)) {
    wt_cfg_fail(err, cap, path, "expected an integer from %u to %u, got %s", lo, hi, wt_cfg_type_name(v));
    return 0;
  }
  double d = v->valuedouble;
  if (d != floor(d) || d < lo || d > hi) {
    char got[32];
    wt_fmt_double(got, sizeof got, d, 15);
    wt_cfg_fail(err, cap, path, "expected an integer from %u to %u, got %s", lo, hi, got);
    return 0;
  }
  *out = (uint32_t)d;
  return 1;
}

/* 1 if s holds an escaped NUL of the original text. */
int wt_cfg_has_nul(const wt_cfg_ctx *ctx, const char *s) {
  return ctx->nul[0] && strstr(s, ctx->nul) != NULL;
}

/* Fails if the string v holds an escaped NUL: cJSON would cut the value
 * short there, so that "/traces/a\u0000b" became "/traces/a". */
int wt_cfg_refuse_nul(const wt_cfg_ctx *ctx, const cJSON *v, const char *path, char *err,
                      size_t cap) {
  if (!cJSON_IsString(v) || !wt_cfg_has_nul(ctx, v->valuestring)) return 1;
  wt_cfg_fail(err, cap, path, "contains \\u0000 (NUL), which no value may contain");
  return 0;
}

/* Characters (code points) of UTF-8 text, or -1 if it is not UTF-8. */
static long utf8_chars(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  long n = 0;
  while (*p) {
    unsigned c = *p, extra;
    if (c < 0x80) extra = 0;
    else if (c >= 0xC2 && c <= 0xDF) extra = 1;
    else if (c >= 0xE0 && c <= 0xEF) extra = 2;
    else if (c >= 0xF0 && c <= 0xF4) extra = 3;
    else return -1;
    p++;
    for (unsigned i = 0; i < extra; i++, p++)
      if ((*p & 0xC0) != 0x80) return -1;
    n++;
  }
  return n;
}

/* A string of 1 to max_chars characters and less than outcap bytes into
 * out (outcap bytes). */
int wt_cfg_get_string(const cJSON *v, const char *path, char *out, size_t outcap,
                      unsigned max_chars, const wt_cfg_ctx *ctx, char *err, size_t cap) {
  if (!cJSON_IsString(v)) {
    wt_cfg_fail(err, cap, path, "expected a string, got %s", wt_cfg_type_name(v));
    return 0;
  }
  if (!wt_cfg_refuse_nul(ctx, v, path, err, cap)) return 0;
  long n = utf8_chars(v->valuestring);
  if (n < 0) {
    wt_cfg_fail(err, cap, path, "is not valid UTF-8 text");
    return 0;
  }
  size_t bytes = strlen(v->valuestring);
  if (n == 0 || n > (long)max_chars) {
    wt_cfg_fail(err, cap, path, "expected 1 to %u characters, got %ld", max_chars, n);
    return 0;
  }
  if (bytes >= outcap) {
    wt_cfg_fail(err, cap, path, "expected at most %u bytes in UTF-8, got %zu (%ld characters)",
                (unsigned)(outcap - 1), bytes, n);
    return 0;
  }
  memcpy(out, v->valuestring, bytes + 1);
  return 1;
}

/* Accepts only the keys in `allowed` (NULL-terminated), each at most once:
 * JSON leaves duplicate keys undefined (cJSON would keep the first,
 * JSON.parse keeps the last), so a config that has one means two things. */
int wt_cfg_check_keys(const cJSON *obj, const char *path, const char *const *allowed,
                      const wt_cfg_ctx *ctx, char *err, size_t cap) {
  for (const cJSON *item = obj->child; item; item = item->next) {
    int ok = 0;
    char sub[160];
    if (wt_cfg_has_nul(ctx, item->string)) {
      wt_cfg_fail(err, cap, path, "a key contains \\u0000 (NUL), which no key may contain");
      return 0;
    }
    for (const char *const *k = allowed; *k; k++)
      if (strcmp(item->string, *k) == 0) ok = 1;
    wt_snprintf(sub, sizeof sub, "%s.%s", path, item->string);
    if (!ok) {
      wt_cfg_fail(err, cap, sub, "unknown key (allowed: see config/wasmtrace.schema.json)");
      return 0;
    }
    for (const cJSON *prev = obj->child; prev != item; prev = prev->next) {
      if (strcmp(prev->string, item->string) == 0) {
        wt_cfg_fail(err, cap, sub, "duplicate key (each key may appear once per object)");
        return 0;
      }
    }
  }
  return 1;
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* The code unit of the 4 hex digits at p (before end), or -1. */
static long hex4(const char *p, const char *end) {
  if (end - p < 4) return -1;
  long u = 0;
  for (int i = 0; i < 4; i++) {
    int d = hex_digit(p[i]);
    if (d < 0) return -1;
    u = u * 16 + d;
  }
  return u;
}

static void put_escape(char *p, unsigned u) {
  static const char digits[] = "0123456789abcdef";
  p[0] = '\\';
  p[1] = 'u';
  for (int i = 0; i < 4; i++) p[2 + i] = digits[(u >> (12 - 4 * i)) & 15];
}

/* Walks the \u escapes inside the strings of t. Lone surrogates (a high one
 * not followed by a low one, or a low one alone: JSON.stringify writes them
 * for JS strings that hold them) become \ufffd, U+FFFD, instead of making
 * cJSON refuse the whole text; \u0000 becomes \u<nul> if nul is nonzero.
 * Every rewrite has the escape's length, so offsets in error messages stay
 * those of the original text. Returns the count of \u0000 escapes, or -1
 * with *raw_nul set to the offset of a NUL byte (JSON has none). */
static long scan_escapes(char *t, size_t len, unsigned nul, size_t *raw_nul) {
  long nuls = 0;
  int in_string = 0;
  for (size_t i = 0; i < len; i++) {
    char c = t[i];
    if (c == '\0') {
      *raw_nul = i;
      return -1;
    }
    if (!in_string) {
      in_string = c == '"';
      continue;
    }
    if (c == '"') {
      in_string = 0;
      continue;
    }
    if (c != '\\' || i + 1 >= len) continue;
    if (t[i + 1] != 'u') {
      i++; /* an escaped quote or backslash is not an end or an escape */
      continue;
    }
    long u = hex4(t + i + 2, t + len);
    if (u < 0) continue; /* malformed: cJSON says where */
    if (u >= 0xD800 && u <= 0xDBFF) {
      long low = i + 12 <= len && t[i + 6] == '\\' && t[i + 7] == 'u' ? hex4(t + i + 8, t + len) : -1;
      if (low >= 0xDC00 && low <= 0xDFFF) {
        i += 11;
        continue;
      }
      put_escape(t + i, 0xFFFD);
    } else if (u >= 0xDC00 && u <= 0xDFFF) {
      put_escape(t + i, 0xFFFD);
    } else if (u == 0) {
      nuls++;
      if (nul) put_escape(t + i, nul);
    }
    i += 5;
  }
  return nuls;
}

/* A code point for escaped NULs that the text does not contain otherwise:
 * one of the 32 noncharacters U+FDD0..U+FDEF, or 0 if it has them all. */
static unsigned pick_nul_stand_in(const char *t, size_t len) {
  uint32_t used = 0;
  for (size_t i = 0; i + 2 < len; i++) {
    const unsigned char *p = (const unsigned char *)t + i;
    if (p[0] == 0xEF && p[1] == 0xB7 && p[2] >= 0x90 && p[2] <= 0xAF) used |= 1u << (p[2] - 0x90);
    if (t[i] == '\\' && (t[i + 1] == 'u' || t[i + 1] == 'U')) {
      long u = hex4(t + i + 2, t + len);
      if (u >= 0xFDD0 && u <= 0xFDEF) used |= 1u << (u - 0xFDD0);
    }
  }
  for (unsigned k = 0; k < 32; k++)
    if (!(used & (1u << k))) return 0xFDD0 + k;
  return 0;
}

static void report_malformed(const char *json, size_t len, size_t offset, const char *what,
                             char *err, size_t cap) {
  if (offset > len) offset = len;
  unsigned line = 1, col = 1;
  for (size_t i = 0; i < offset; i++) {
    if (json[i] == '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
  }
  wt_snprintf(err, cap, "config: malformed JSON at line %u, column %u (byte %u)%s", line, col,
              (unsigned)offset, what);
}

/* Parses text into a cJSON tree (from a copy that scan_escapes rewrote) or
 * describes where it is malformed. Sets ctx->nul. */
cJSON *wt_cfg_parse_text(const char *json, size_t len, wt_cfg_ctx *ctx, char *err, size_t cap) {
  memset(ctx, 0, sizeof *ctx);
  if (len == 0) {
    wt_snprintf(err, cap, "config: empty text (expected a JSON object)");
    return NULL;
  }
  char *text = malloc(len);
  if (!text) {
    wt_snprintf(err, cap, "config: out of memory for a copy of the text (%zu bytes)", len);
    return NULL;
  }
  memcpy(text, json, len);
  size_t raw_nul = 0;
  long nuls = scan_escapes(text, len, 0, &raw_nul);
  if (nuls < 0) {
    report_malformed(text, len, raw_nul, ": a NUL byte", err, cap);
    free(text);
    return NULL;
  }
  if (nuls > 0) {
    unsigned nul = pick_nul_stand_in(text, len);
    if (!nul) {
      wt_snprintf(err, cap, "config: contains \\u0000 (NUL), which no value may contain");
      free(text);
      return NULL;
    }
    scan_escapes(text, len, nul, &raw_nul);
    ctx->nul[0] = (char)0xEF;
    ctx->nul[1] = (char)0xB7;
    ctx->nul[2] = (char)(0x90 + (nul - 0xFDD0));
  }
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
  if (root) {
    /* cJSON stops after the first value: anything but whitespace after it
     * is an error too. */
    size_t rest = (size_t)(end - text);
    while (rest < len && strchr(" \t\r\n", text[rest]) && text[rest]) rest++;
    if (rest == len) {
      free(text);
      return root;
    }
    cJSON_Delete(root);
    end = text + rest;
  }
  report_malformed(text, len, end && end >= text ? (size_t)(end - text) : 0, "", err, cap);
  free(text);
  return NULL;
}
