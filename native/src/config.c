/* Config blob parsing with cJSON (thread-safe entry point, no global error
 * state: cJSON_ParseWithLengthOpts reports where parsing stopped). */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cJSON.h"

static void fail(char *err, size_t cap, const char *path, const char *fmt, ...) {
  char msg[WT_ERROR_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(err, cap, "%s: %s", path, msg);
}

void wt_config_defaults(wt_session_config *c, const char *name) {
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "%s", name);
  c->format = WT_FORMAT_CHROME;
  c->gzip = 1;
  c->gzip_level = 1;
  c->sampling = 1;
  c->interval_us = 1000;
  c->duration_ms = 0;
  c->max_buffer_kb = 16384;
  c->when_full = WT_FULL_STOP;
  c->counters = 1;
  c->counter_interval_ms = 10;
  c->category_count = 1;
  snprintf(c->categories[0], WT_CATEGORY_MAX, "*");
}

static const char *type_name(const cJSON *v) {
  if (cJSON_IsObject(v)) return "an object";
  if (cJSON_IsArray(v)) return "an array";
  if (cJSON_IsString(v)) return "a string";
  if (cJSON_IsNumber(v)) return "a number";
  if (cJSON_IsBool(v)) return "a boolean";
  if (cJSON_IsNull(v)) return "null";
  return "an invalid value";
}

/* Reads an integer in [lo, hi]; returns 0 and sets err otherwise. */
static int get_uint(const cJSON *v, const char *path, uint32_t lo, uint32_t hi, uint32_t *out,
                    char *err, size_t cap) {
  if (!cJSON_IsNumber(v)) {
    fail(err, cap, path, "expected an integer from %u to %u, got %s", lo, hi, type_name(v));
    return 0;
  }
  double d = v->valuedouble;
  if (d != floor(d) || d < lo || d > hi) {
    fail(err, cap, path, "expected an integer from %u to %u, got %.15g", lo, hi, d);
    return 0;
  }
  *out = (uint32_t)d;
  return 1;
}

/* What parsing one text needs beyond the tree: the code point that stands
 * for an escaped NUL (scan_escapes), as UTF-8, or "" if the text has none. */
typedef struct parse_ctx {
  char nul[4];
} parse_ctx;

/* 1 if s holds an escaped NUL of the original text. */
static int has_nul(const parse_ctx *ctx, const char *s) {
  return ctx->nul[0] && strstr(s, ctx->nul) != NULL;
}

/* Fails if the string v holds an escaped NUL: cJSON would cut the value
 * short there, so that "/traces/a\u0000b" became "/traces/a". */
static int refuse_nul(const parse_ctx *ctx, const cJSON *v, const char *path, char *err,
                      size_t cap) {
  if (!cJSON_IsString(v) || !has_nul(ctx, v->valuestring)) return 1;
  fail(err, cap, path, "contains \\u0000 (NUL), which no value may contain");
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
static int get_string(const cJSON *v, const char *path, char *out, size_t outcap,
                      unsigned max_chars, const parse_ctx *ctx, char *err, size_t cap) {
  if (!cJSON_IsString(v)) {
    fail(err, cap, path, "expected a string, got %s", type_name(v));
    return 0;
  }
  if (!refuse_nul(ctx, v, path, err, cap)) return 0;
  long n = utf8_chars(v->valuestring);
  if (n < 0) {
    fail(err, cap, path, "is not valid UTF-8 text");
    return 0;
  }
  size_t bytes = strlen(v->valuestring);
  if (n == 0 || n > (long)max_chars) {
    fail(err, cap, path, "expected 1 to %u characters, got %ld", max_chars, n);
    return 0;
  }
  if (bytes >= outcap) {
    fail(err, cap, path, "expected at most %u bytes in UTF-8, got %zu (%ld characters)",
         (unsigned)(outcap - 1), bytes, n);
    return 0;
  }
  memcpy(out, v->valuestring, bytes + 1);
  return 1;
}

/* Accepts only the keys in `allowed` (NULL-terminated), each at most once:
 * JSON leaves duplicate keys undefined (cJSON would keep the first,
 * JSON.parse keeps the last), so a config that has one means two things. */
static int check_keys(const cJSON *obj, const char *path, const char *const *allowed,
                      const parse_ctx *ctx, char *err, size_t cap) {
  for (const cJSON *item = obj->child; item; item = item->next) {
    int ok = 0;
    char sub[160];
    if (has_nul(ctx, item->string)) {
      fail(err, cap, path, "a key contains \\u0000 (NUL), which no key may contain");
      return 0;
    }
    for (const char *const *k = allowed; *k; k++)
      if (strcmp(item->string, *k) == 0) ok = 1;
    snprintf(sub, sizeof sub, "%s.%s", path, item->string);
    if (!ok) {
      fail(err, cap, sub, "unknown key (allowed: see config/wasmtrace.schema.json)");
      return 0;
    }
    for (const cJSON *prev = obj->child; prev != item; prev = prev->next) {
      if (strcmp(prev->string, item->string) == 0) {
        fail(err, cap, sub, "duplicate key (each key may appear once per object)");
        return 0;
      }
    }
  }
  return 1;
}

static int valid_name(const char *s) {
  for (; *s; s++) {
    char c = *s;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '-' || c == '_' || c == '.'))
      return 0;
  }
  return 1;
}

/* An object {"enabled": bool, "<interval_key>": integer in [lo, hi]} at
 * path.key (sampling, counters). */
static int parse_switch(const cJSON *v, const char *path, const char *key, const char *interval_key,
                        uint32_t lo, uint32_t hi, int *enabled, uint32_t *interval,
                        const parse_ctx *ctx, char *err, size_t cap) {
  const char *const keys[] = {"enabled", interval_key, NULL};
  char sub[160];
  snprintf(sub, sizeof sub, "%s.%s", path, key);
  if (!cJSON_IsObject(v)) {
    fail(err, cap, sub, "expected an object, got %s", type_name(v));
    return 0;
  }
  if (!check_keys(v, sub, keys, ctx, err, cap)) return 0;
  const cJSON *w;
  if ((w = cJSON_GetObjectItemCaseSensitive(v, "enabled"))) {
    snprintf(sub, sizeof sub, "%s.%s.enabled", path, key);
    if (!cJSON_IsBool(w)) {
      fail(err, cap, sub, "expected true or false, got %s", type_name(w));
      return 0;
    }
    *enabled = cJSON_IsTrue(w);
  }
  if ((w = cJSON_GetObjectItemCaseSensitive(v, interval_key))) {
    snprintf(sub, sizeof sub, "%s.%s.%s", path, key, interval_key);
    if (!get_uint(w, sub, lo, hi, interval, err, cap)) return 0;
  }
  return 1;
}

/* "path.key" in buf. */
static const char *path_of(char *buf, size_t cap, const char *path, const char *key) {
  snprintf(buf, cap, "%s.%s", path, key);
  return buf;
}

/* Refuses outputs no config may name, whatever its source. */
static int check_output(const char *out, const char *path, char *err, size_t cap) {
  if (strcmp(out, "/wasmtrace.json") == 0) {
    fail(err, cap, path, "\"/wasmtrace.json\" is wasmtrace's own config file, never an output");
    return 0;
  }
  if (strncmp(out, "/dev/", 5) == 0 || strncmp(out, "/proc/", 6) == 0) {
    fail(err, cap, path,
         "\"%.80s\" is a device or system file: outputs are regular files (e.g. under " WT_OUTPUT_DIR
         ")",
         out);
    return 0;
  }
  return 1;
}

static int parse_session_obj(const cJSON *obj, const char *path, wt_session_config *c,
                             const parse_ctx *ctx, char *err, size_t cap) {
  static const char *const keys[] = {"name",        "output",     "format",     "compression",
                                     "compressionLevel", "sampling", "categories", "durationMs",
                                     "maxBufferKB", "whenFull",   "counters",   "overwrite",
                                     "stream",      NULL};
  char sub[160];
  if (!cJSON_IsObject(obj)) {
    fail(err, cap, path, "expected an object, got %s", type_name(obj));
    return 0;
  }
  /* The name first, so that a session failing on another key keeps the
   * name it was given (a name given twice is not readable: the duplicate
   * key is the error). Its own error comes after the keys' check, as the
   * keys are checked first. */
  char name_err[WT_ERROR_MAX] = "";
  const cJSON *v;
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "name"))) {
    /* Read with room for 4-byte characters, so that a non-ASCII name gets
     * the message about its characters, not about its length. */
    char name[WT_NAME_MAX * 4];
    int given = 0;
    for (const cJSON *item = obj->child; item; item = item->next)
      given += item->string && strcmp(item->string, "name") == 0;
    snprintf(sub, sizeof sub, "%s.name", path);
    if (!get_string(v, sub, name, sizeof name, WT_NAME_MAX - 1, ctx, name_err, sizeof name_err)) {
      /* name_err says why */
    } else if (!valid_name(name)) {
      fail(name_err, sizeof name_err, sub,
           "may contain only letters, digits, '-', '_' and '.', got \"%.80s\"", name);
    } else if (given == 1) {
      snprintf(c->name, sizeof c->name, "%s", name);
    }
  }
  if (!check_keys(obj, path, keys, ctx, err, cap)) return 0;
  if (name_err[0]) {
    snprintf(err, cap, "%s", name_err);
    return 0;
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "format"))) {
    static const char *const formats[] = {"chrome", "firefox", "folded"};
    snprintf(sub, sizeof sub, "%s.format", path);
    if (!cJSON_IsString(v)) {
      fail(err, cap, sub, "expected a string, got %s", type_name(v));
      return 0;
    }
    if (!refuse_nul(ctx, v, sub, err, cap)) return 0;
    int found = -1;
    for (int i = 0; i < 3; i++)
      if (strcmp(v->valuestring, formats[i]) == 0) found = i;
    if (found < 0) {
      fail(err, cap, sub,
           "unsupported format \"%.40s\" (supported: \"chrome\", \"firefox\", \"folded\")",
           v->valuestring);
      return 0;
    }
    c->format = (wt_format)found;
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "compression"))) {
    snprintf(sub, sizeof sub, "%s.compression", path);
    if (!refuse_nul(ctx, v, sub, err, cap)) return 0;
    if (cJSON_IsString(v) && strcmp(v->valuestring, "gzip") == 0) {
      c->gzip = 1;
    } else if (cJSON_IsString(v) && strcmp(v->valuestring, "none") == 0) {
      c->gzip = 0;
    } else {
      fail(err, cap, sub, "expected \"gzip\" or \"none\", got %s%s%.40s%s", type_name(v),
           cJSON_IsString(v) ? " \"" : "", cJSON_IsString(v) ? v->valuestring : "",
           cJSON_IsString(v) ? "\"" : "");
      return 0;
    }
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "compressionLevel"))) {
    uint32_t level;
    snprintf(sub, sizeof sub, "%s.compressionLevel", path);
    if (!get_uint(v, sub, 1, 9, &level, err, cap)) return 0;
    c->gzip_level = (int)level;
  }
  /* The default output path depends on the final name and compression. */
  snprintf(c->output, sizeof c->output, WT_OUTPUT_DIR "%s.%s%s", c->name,
           c->format == WT_FORMAT_FOLDED ? "folded" : "json", c->gzip ? ".gz" : "");
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "output"))) {
    snprintf(sub, sizeof sub, "%s.output", path);
    char given[WT_PATH_MAX];
    if (!get_string(v, sub, given, sizeof given, WT_PATH_CHARS, ctx, err, cap)) return 0;
    const char *why = wt_config_canonical_path(given, c->output, sizeof c->output);
    if (why) {
      fail(err, cap, sub, "%s, got \"%.120s\"", why, given);
      return 0;
    }
  }
  if (!check_output(c->output, path_of(sub, sizeof sub, path, "output"), err, cap)) return 0;
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "overwrite"))) {
    snprintf(sub, sizeof sub, "%s.overwrite", path);
    if (!cJSON_IsBool(v)) {
      fail(err, cap, sub, "expected true or false, got %s", type_name(v));
      return 0;
    }
    c->overwrite = cJSON_IsTrue(v);
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "stream"))) {
    snprintf(sub, sizeof sub, "%s.stream", path);
    if (!cJSON_IsBool(v)) {
      fail(err, cap, sub, "expected true or false, got %s", type_name(v));
      return 0;
    }
    c->stream = cJSON_IsTrue(v);
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "sampling")) &&
      !parse_switch(v, path, "sampling", "intervalUs", 50, 1000000, &c->sampling, &c->interval_us,
                    ctx, err, cap))
    return 0;
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "counters")) &&
      !parse_switch(v, path, "counters", "intervalMs", 1, 60000, &c->counters,
                    &c->counter_interval_ms, ctx, err, cap))
    return 0;
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "categories"))) {
    snprintf(sub, sizeof sub, "%s.categories", path);
    if (!cJSON_IsArray(v)) {
      fail(err, cap, sub, "expected an array of strings, got %s", type_name(v));
      return 0;
    }
    int n = cJSON_GetArraySize(v);
    if (n > WT_MAX_CATEGORIES) {
      fail(err, cap, sub, "at most %d categories, got %d", WT_MAX_CATEGORIES, n);
      return 0;
    }
    c->category_count = 0;
    int i = 0;
    for (const cJSON *w = v->child; w; w = w->next, i++) {
      snprintf(sub, sizeof sub, "%s.categories[%d]", path, i);
      if (!get_string(w, sub, c->categories[i], WT_CATEGORY_MAX, WT_CATEGORY_CHARS, ctx, err, cap))
        return 0;
      c->category_count++;
    }
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "durationMs"))) {
    snprintf(sub, sizeof sub, "%s.durationMs", path);
    if (!get_uint(v, sub, 0, 3600000, &c->duration_ms, err, cap)) return 0;
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "maxBufferKB"))) {
    snprintf(sub, sizeof sub, "%s.maxBufferKB", path);
    if (!get_uint(v, sub, 64, 1048576, &c->max_buffer_kb, err, cap)) return 0;
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "whenFull"))) {
    snprintf(sub, sizeof sub, "%s.whenFull", path);
    if (!refuse_nul(ctx, v, sub, err, cap)) return 0;
    if (cJSON_IsString(v) && strcmp(v->valuestring, "stop") == 0) {
      c->when_full = WT_FULL_STOP;
    } else if (cJSON_IsString(v) && strcmp(v->valuestring, "ring") == 0) {
      c->when_full = WT_FULL_RING;
    } else {
      fail(err, cap, sub, "expected \"stop\" or \"ring\", got %s%s%.40s%s", type_name(v),
           cJSON_IsString(v) ? " \"" : "", cJSON_IsString(v) ? v->valuestring : "",
           cJSON_IsString(v) ? "\"" : "");
      return 0;
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
  snprintf(err, cap, "config: malformed JSON at line %u, column %u (byte %u)%s", line, col,
           (unsigned)offset, what);
}

/* Parses text into a cJSON tree (from a copy that scan_escapes rewrote) or
 * describes where it is malformed. Sets ctx->nul. */
static cJSON *parse_text(const char *json, size_t len, parse_ctx *ctx, char *err, size_t cap) {
  memset(ctx, 0, sizeof *ctx);
  if (len == 0) {
    snprintf(err, cap, "config: empty text (expected a JSON object)");
    return NULL;
  }
  char *text = malloc(len);
  if (!text) {
    snprintf(err, cap, "config: out of memory for a copy of the text (%zu bytes)", len);
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
      snprintf(err, cap, "config: contains \\u0000 (NUL), which no value may contain");
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

/* The "server" object: the same rules as js/wasmtrace_post.js's
 * serverConfig (the shim acts on it before this parser runs). */
static int parse_server(const cJSON *obj, wt_server_config *c, const parse_ctx *ctx, char *err,
                        size_t cap) {
  static const char *const keys[] = {"url", "suspend", "suspendTimeoutMs", "token", "reconnectMs",
                                     NULL};
  const cJSON *v;
  c->suspend_timeout_ms = 10000;
  c->reconnect_ms = 2000;
  if (!cJSON_IsObject(obj)) {
    fail(err, cap, "server", "expected an object, got %s", type_name(obj));
    return 0;
  }
  if (!check_keys(obj, "server", keys, ctx, err, cap)) return 0;
  v = cJSON_GetObjectItemCaseSensitive(obj, "url");
  if (!v) {
    fail(err, cap, "server.url", "missing (expected the router's ws:// or wss:// URL)");
    return 0;
  }
  if (!get_string(v, "server.url", c->url, sizeof c->url, WT_SERVER_URL_CHARS, ctx, err, cap))
    return 0;
  if (strncmp(c->url, "ws://", 5) != 0 && strncmp(c->url, "wss://", 6) != 0) {
    fail(err, cap, "server.url", "expected a ws:// or wss:// URL, got \"%.80s\"", c->url);
    return 0;
  }
  for (const unsigned char *p = (const unsigned char *)c->url; *p; p++) {
    if (*p <= ' ' || *p == 0x7f) {
      fail(err, cap, "server.url", "contains a space or control character");
      return 0;
    }
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "suspend"))) {
    if (!cJSON_IsBool(v)) {
      fail(err, cap, "server.suspend", "expected true or false, got %s", type_name(v));
      return 0;
    }
    c->suspend = cJSON_IsTrue(v);
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "suspendTimeoutMs")) &&
      !get_uint(v, "server.suspendTimeoutMs", 0, 600000, &c->suspend_timeout_ms, err, cap))
    return 0;
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "reconnectMs")) &&
      !get_uint(v, "server.reconnectMs", 0, 600000, &c->reconnect_ms, err, cap))
    return 0;
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "token"))) {
    if (!get_string(v, "server.token", c->token, sizeof c->token, WT_SERVER_TOKEN_CHARS, ctx, err,
                    cap))
      return 0;
    for (const char *p = c->token; *p; p++) {
      if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '_' || *p == '.' || *p == '~')) {
        fail(err, cap, "server.token", "may contain only letters, digits, '-', '_', '.' and '~'");
        return 0;
      }
    }
  }
  return 1;
}

wt_status wt_config_parse(const char *json, size_t len, wt_config *out, char *err,
                          size_t errcap) {
  memset(out, 0, sizeof *out);
  err[0] = '\0';
  parse_ctx ctx;
  cJSON *root = parse_text(json, len, &ctx, err, errcap);
  if (!root) return WT_ERR_CONFIG;
  wt_status status = WT_ERR_CONFIG;
  static const char *const keys[] = {"$schema", "version", "sessions", "server", NULL};
  cJSON no_sessions = {.type = cJSON_Array};
  const cJSON *v;
  if (!cJSON_IsObject(root)) {
    fail(err, errcap, "config", "expected an object, got %s", type_name(root));
    goto done;
  }
  if (!check_keys(root, "config", keys, &ctx, err, errcap)) goto done;
  if ((v = cJSON_GetObjectItemCaseSensitive(root, "$schema")) && !cJSON_IsString(v)) {
    fail(err, errcap, "config.$schema", "expected a string (the schema's URL), got %s",
         type_name(v));
    goto done;
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(root, "version"))) {
    uint32_t version;
    if (!get_uint(v, "config.version", 1, 1, &version, err, errcap)) goto done;
  }
  v = cJSON_GetObjectItemCaseSensitive(root, "sessions");
  /* A page that only wants the diagnostic server needs no sessions. */
  if (!v && cJSON_GetObjectItemCaseSensitive(root, "server")) v = &no_sessions;
  if (!v) {
    fail(err, errcap, "config.sessions", "missing (expected an array of session objects)");
    goto done;
  }
  if (!cJSON_IsArray(v)) {
    fail(err, errcap, "config.sessions", "expected an array, got %s", type_name(v));
    goto done;
  }
  if (cJSON_GetArraySize(v) > WT_MAX_SESSIONS) {
    fail(err, errcap, "config.sessions", "at most %d sessions, got %d", WT_MAX_SESSIONS,
         cJSON_GetArraySize(v));
    goto done;
  }
  int i = 0;
  for (const cJSON *s = v->child; s; s = s->next, i++) {
    wt_config_entry *e = &out->sessions[i];
    char path[32], name[WT_NAME_MAX];
    snprintf(path, sizeof path, "sessions[%d]", i);
    if (i == 0)
      snprintf(name, sizeof name, "startup");
    else
      snprintf(name, sizeof name, "startup-%d", i);
    wt_config_defaults(&e->config, name);
    e->valid = parse_session_obj(s, path, &e->config, &ctx, e->error, sizeof e->error);
  }
  out->count = i;
  if ((v = cJSON_GetObjectItemCaseSensitive(root, "server"))) {
    out->server.present = 1;
    out->server.valid = parse_server(v, &out->server, &ctx, out->server.error,
                                     sizeof out->server.error);
  }
  /* Two sessions writing one file would corrupt both. */
  for (int a = 0; a < out->count; a++) {
    for (int b = 0; b < a; b++) {
      if (out->sessions[a].valid && out->sessions[b].valid &&
          strcmp(out->sessions[a].config.output, out->sessions[b].config.output) == 0) {
        char path[48];
        snprintf(path, sizeof path, "sessions[%d].output", a);
        fail(out->sessions[a].error, sizeof out->sessions[a].error, path,
             "\"%s\" is already the output of sessions[%d]", out->sessions[a].config.output, b);
        out->sessions[a].valid = 0;
      }
    }
  }
  status = WT_OK;
done:
  cJSON_Delete(root);
  return status;
}

wt_status wt_config_parse_session(const char *json, size_t len, const char *default_name,
                                  wt_session_config *out, char *err, size_t errcap) {
  err[0] = '\0';
  wt_config_defaults(out, default_name);
  parse_ctx ctx;
  cJSON *root = parse_text(json, len, &ctx, err, errcap);
  if (!root) return WT_ERR_CONFIG;
  int ok = parse_session_obj(root, "session", out, &ctx, err, errcap);
  cJSON_Delete(root);
  return ok ? WT_OK : WT_ERR_CONFIG;
}

int wt_config_category_enabled(const wt_session_config *c, const char *category) {
  for (int i = 0; i < c->category_count; i++) {
    const char *p = c->categories[i];
    size_t n = strlen(p);
    if (n && p[n - 1] == '*') {
      if (strncmp(p, category, n - 1) == 0) return 1;
    } else if (strcmp(p, category) == 0) {
      return 1;
    }
  }
  return 0;
}

const char *wt_config_canonical_path(const char *in, char *out, size_t cap) {
  size_t n = strlen(in);
  if (in[0] != '/') return "expected an absolute path on the VFS (starting with '/')";
  if (in[n - 1] == '/') return "expected the path of a file, not of a directory (ending in '/')";
  if (cap < n + 1) return "the path is too long";
  /* Components are copied one by one; "." is skipped and ".." removes the
   * last one copied. out always starts with '/' and never ends with one
   * (but for the root). */
  size_t o = 0;
  const char *p = in, *last = in;
  out[o++] = '/';
  while (*p) {
    while (*p == '/') p++;
    if (!*p) break;
    const char *q = p;
    while (*q && *q != '/') q++;
    size_t k = (size_t)(q - p);
    last = p;
    if (k == 1 && p[0] == '.') {
      /* nothing */
    } else if (k == 2 && p[0] == '.' && p[1] == '.') {
      while (o > 1 && out[o - 1] != '/') o--;
      if (o > 1) o--; /* the '/' before the removed component */
    } else {
      if (o > 1) out[o++] = '/';
      memcpy(out + o, p, k);
      o += k;
    }
    p = q;
  }
  out[o] = '\0';
  if ((last[0] == '.' && (last[1] == '\0' || (last[1] == '.' && last[2] == '\0'))) || o == 1)
    return "expected the path of a file, not of a directory (ending in \".\" or \"..\")";
  return NULL;
}

void wt_config_restrict_untrusted(wt_config *c, const char *source) {
  static const char dir[] = WT_OUTPUT_DIR;
  for (int i = 0; i < c->count; i++) {
    wt_config_entry *e = &c->sessions[i];
    char path[48];
    if (!e->valid) continue;
    if (e->config.overwrite) {
      snprintf(path, sizeof path, "sessions[%d].overwrite", i);
      fail(e->error, sizeof e->error, path,
           "not allowed in a config from %s (anyone can set it): only the app's own config may "
           "overwrite files",
           source);
      e->valid = 0;
    } else if (strncmp(e->config.output, dir, sizeof dir - 1) != 0) {
      snprintf(path, sizeof path, "sessions[%d].output", i);
      fail(e->error, sizeof e->error, path,
           "\"%.80s\" is outside " WT_OUTPUT_DIR ": a config from %s may write only there", 
           e->config.output, source);
      e->valid = 0;
    }
  }
  /* A link must not send the page's traces to a server of its choosing
   * (the shim refuses it too). */
  if (c->server.present && c->server.valid) {
    c->server.valid = 0;
    fail(c->server.error, sizeof c->server.error, "server",
         "not allowed in a config from %s (anyone can set it): only the app's own config "
         "may name a server",
         source);
  }
}
