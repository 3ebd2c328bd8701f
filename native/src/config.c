/* Config blob parsing with cJSON (thread-safe entry point, no global error
 * state: cJSON_ParseWithLengthOpts reports where parsing stopped). */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
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

static int get_string(const cJSON *v, const char *path, char *out, size_t outcap, char *err,
                      size_t cap) {
  if (!cJSON_IsString(v)) {
    fail(err, cap, path, "expected a string, got %s", type_name(v));
    return 0;
  }
  size_t n = strlen(v->valuestring);
  if (n == 0 || n >= outcap) {
    fail(err, cap, path, "expected 1 to %u characters, got %u", (unsigned)(outcap - 1),
         (unsigned)n);
    return 0;
  }
  memcpy(out, v->valuestring, n + 1);
  return 1;
}

/* Accepts only the keys in `allowed` (NULL-terminated). */
static int check_keys(const cJSON *obj, const char *path, const char *const *allowed, char *err,
                      size_t cap) {
  for (const cJSON *item = obj->child; item; item = item->next) {
    int ok = 0;
    for (const char *const *k = allowed; *k; k++)
      if (strcmp(item->string, *k) == 0) ok = 1;
    if (!ok) {
      char sub[160];
      snprintf(sub, sizeof sub, "%s.%s", path, item->string);
      fail(err, cap, sub, "unknown key (allowed: see config/wasmtrace.schema.json)");
      return 0;
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
                        uint32_t lo, uint32_t hi, int *enabled, uint32_t *interval, char *err,
                        size_t cap) {
  const char *const keys[] = {"enabled", interval_key, NULL};
  char sub[160];
  snprintf(sub, sizeof sub, "%s.%s", path, key);
  if (!cJSON_IsObject(v)) {
    fail(err, cap, sub, "expected an object, got %s", type_name(v));
    return 0;
  }
  if (!check_keys(v, sub, keys, err, cap)) return 0;
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

static int parse_session_obj(const cJSON *obj, const char *path, wt_session_config *c,
                             char *err, size_t cap) {
  static const char *const keys[] = {"name",        "output",     "format",     "compression",
                                     "compressionLevel", "sampling", "categories", "durationMs",
                                     "maxBufferKB", "whenFull",   "counters",   NULL};
  char sub[160];
  if (!cJSON_IsObject(obj)) {
    fail(err, cap, path, "expected an object, got %s", type_name(obj));
    return 0;
  }
  if (!check_keys(obj, path, keys, err, cap)) return 0;
  const cJSON *v;
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "name"))) {
    snprintf(sub, sizeof sub, "%s.name", path);
    if (!get_string(v, sub, c->name, sizeof c->name, err, cap)) return 0;
    if (!valid_name(c->name)) {
      fail(err, cap, sub, "may contain only letters, digits, '-', '_' and '.', got \"%s\"",
           c->name);
      return 0;
    }
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "format"))) {
    static const char *const formats[] = {"chrome", "firefox", "folded"};
    snprintf(sub, sizeof sub, "%s.format", path);
    if (!cJSON_IsString(v)) {
      fail(err, cap, sub, "expected a string, got %s", type_name(v));
      return 0;
    }
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
  snprintf(c->output, sizeof c->output, "/traces/%s.%s%s", c->name,
           c->format == WT_FORMAT_FOLDED ? "folded" : "json", c->gzip ? ".gz" : "");
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "output"))) {
    snprintf(sub, sizeof sub, "%s.output", path);
    if (!get_string(v, sub, c->output, sizeof c->output, err, cap)) return 0;
    if (c->output[0] != '/') {
      fail(err, cap, sub, "expected an absolute path on the VFS (starting with '/'), got \"%s\"",
           c->output);
      return 0;
    }
    if (c->output[strlen(c->output) - 1] == '/') {
      fail(err, cap, sub, "expected the path of a file, got the directory \"%s\"", c->output);
      return 0;
    }
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "sampling")) &&
      !parse_switch(v, path, "sampling", "intervalUs", 50, 1000000, &c->sampling, &c->interval_us,
                    err, cap))
    return 0;
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "counters")) &&
      !parse_switch(v, path, "counters", "intervalMs", 1, 60000, &c->counters,
                    &c->counter_interval_ms, err, cap))
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
      if (!get_string(w, sub, c->categories[i], WT_CATEGORY_MAX, err, cap)) return 0;
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

/* Parses text into a cJSON tree or describes where it is malformed. */
static cJSON *parse_text(const char *json, size_t len, char *err, size_t cap) {
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
  if (root) {
    /* cJSON stops after the first value: anything but whitespace after it
     * is an error too. */
    size_t rest = (size_t)(end - json);
    while (rest < len && strchr(" \t\r\n", json[rest]) && json[rest]) rest++;
    if (rest == len) return root;
    cJSON_Delete(root);
    end = json + rest;
  }
  size_t offset = end && end >= json ? (size_t)(end - json) : 0;
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
  if (len == 0)
    snprintf(err, cap, "config: empty text (expected a JSON object)");
  else
    snprintf(err, cap, "config: malformed JSON at line %u, column %u (byte %u)", line, col,
             (unsigned)offset);
  return NULL;
}

wt_status wt_config_parse(const char *json, size_t len, wt_config *out, char *err,
                          size_t errcap) {
  memset(out, 0, sizeof *out);
  err[0] = '\0';
  cJSON *root = parse_text(json, len, err, errcap);
  if (!root) return WT_ERR_CONFIG;
  wt_status status = WT_ERR_CONFIG;
  static const char *const keys[] = {"$schema", "version", "sessions", NULL};
  const cJSON *v;
  if (!cJSON_IsObject(root)) {
    fail(err, errcap, "config", "expected an object, got %s", type_name(root));
    goto done;
  }
  if (!check_keys(root, "config", keys, err, errcap)) goto done;
  if ((v = cJSON_GetObjectItemCaseSensitive(root, "version"))) {
    uint32_t version;
    if (!get_uint(v, "config.version", 1, 1, &version, err, errcap)) goto done;
  }
  v = cJSON_GetObjectItemCaseSensitive(root, "sessions");
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
    e->valid = parse_session_obj(s, path, &e->config, e->error, sizeof e->error);
  }
  out->count = i;
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
  cJSON *root = parse_text(json, len, err, errcap);
  if (!root) return WT_ERR_CONFIG;
  int ok = parse_session_obj(root, "session", out, err, errcap);
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
