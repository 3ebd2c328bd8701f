/* The config blob's sessions: defaults, each session object, and the whole
 * blob (config_text.c reads the text and its values; outputs.c holds the
 * rules for output paths). The "server" object is checked in one place,
 * wasmtraceCheckServer of js/wasmtrace_pre.js: the page must know the
 * URL, and whether to suspend, before the module runs (suspend holds the
 * constructors that run this parser); here it is only noted. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_read.h"
#include "fmt.h"
#include "outputs.h"

/* The output policy keeps each created file's session name (outputs.h). */
_Static_assert(WT_NAME_MAX <= WT_OUTPUT_SESSION_MAX, "a session's name fits the output table");

void wt_config_defaults(wt_session_config *c, const char *name) {
  memset(c, 0, sizeof *c);
  wt_snprintf(c->name, sizeof c->name, "%s", name);
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
  wt_snprintf(c->categories[0], WT_CATEGORY_MAX, "*");
}

/* The config's names of the formats, in wt_format's order. */
static const char *const format_names[] = {"chrome", "firefox", "folded"};

const char *wt_format_name(wt_format format) {
  return (unsigned)format < sizeof format_names / sizeof *format_names ? format_names[format] : "?";
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

int wt_config_read_switch(const cJSON *v, const char *path, const char *key, const char *interval_key,
                          uint32_t lo, uint32_t hi, int *enabled, uint32_t *interval, const wt_cfg_ctx *ctx,
                          char *err, size_t cap) {
  const char *const keys[] = {"enabled", interval_key, NULL};
  char sub[160];
  wt_snprintf(sub, sizeof sub, "%s.%s", path, key);
  if (!cJSON_IsObject(v)) {
    wt_cfg_fail(err, cap, sub, "expected an object, got %s", wt_cfg_type_name(v));
    return 0;
  }
  if (!wt_cfg_check_keys(v, sub, keys, ctx, err, cap)) return 0;
  const cJSON *w;
  if ((w = cJSON_GetObjectItemCaseSensitive(v, "enabled"))) {
    wt_snprintf(sub, sizeof sub, "%s.%s.enabled", path, key);
    if (!cJSON_IsBool(w)) {
      wt_cfg_fail(err, cap, sub, "expected true or false, got %s", wt_cfg_type_name(w));
      return 0;
    }
    *enabled = cJSON_IsTrue(w);
  }
  if ((w = cJSON_GetObjectItemCaseSensitive(v, interval_key))) {
    wt_snprintf(sub, sizeof sub, "%s.%s.%s", path, key, interval_key);
    if (!wt_cfg_get_uint(w, sub, lo, hi, interval, err, cap)) return 0;
  }
  return 1;
}

/* "path.key" in buf. */
static const char *path_of(char *buf, size_t cap, const char *path, const char *key) {
  wt_snprintf(buf, cap, "%s.%s", path, key);
  return buf;
}

static int parse_session_obj(const cJSON *obj, const char *path, wt_session_config *c,
                             const wt_cfg_ctx *ctx, char *err, size_t cap) {
  static const char *const core_keys[] = {"name",        "output",   "format",     "compression",
                                          "compressionLevel", "sampling", "categories", "durationMs",
                                          "maxBufferKB", "whenFull", "counters",   "overwrite",
                                          "stream"};
  enum { CORE = sizeof core_keys / sizeof *core_keys, RECORDER_KEYS_MAX = 8 };
  const char *keys[CORE + RECORDER_KEYS_MAX + 1];
  int nkeys = 0;
  for (int i = 0; i < CORE; i++) keys[nkeys++] = core_keys[i];
  int owner;
  for (int i = 0; wt_config_recorder_key(i, &owner) && i < RECORDER_KEYS_MAX; i++)
    keys[nkeys++] = wt_config_recorder_key(i, &owner)->key;
  keys[nkeys] = NULL;
  char sub[160];
  if (!cJSON_IsObject(obj)) {
    wt_cfg_fail(err, cap, path, "expected an object, got %s", wt_cfg_type_name(obj));
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
    wt_snprintf(sub, sizeof sub, "%s.name", path);
    if (!wt_cfg_get_string(v, sub, name, sizeof name, WT_NAME_MAX - 1, ctx, name_err, sizeof name_err)) {
      /* name_err says why */
    } else if (!valid_name(name)) {
      wt_cfg_fail(name_err, sizeof name_err, sub,
                  "may contain only letters, digits, '-', '_' and '.', got \"%.80s\"", name);
    } else if (given == 1) {
      wt_snprintf(c->name, sizeof c->name, "%s", name);
    }
  }
  if (!wt_cfg_check_keys(obj, path, keys, ctx, err, cap)) return 0;
  if (name_err[0]) {
    wt_snprintf(err, cap, "%s", name_err);
    return 0;
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "format"))) {
    wt_snprintf(sub, sizeof sub, "%s.format", path);
    if (!cJSON_IsString(v)) {
      wt_cfg_fail(err, cap, sub, "expected a string, got %s", wt_cfg_type_name(v));
      return 0;
    }
    if (!wt_cfg_refuse_nul(ctx, v, sub, err, cap)) return 0;
    int found = -1;
    for (int i = 0; i < (int)(sizeof format_names / sizeof *format_names); i++)
      if (strcmp(v->valuestring, format_names[i]) == 0) found = i;
    if (found < 0) {
      wt_cfg_fail(err, cap, sub,
                  "unsupported format \"%.40s\" (supported: \"chrome\", \"firefox\", \"folded\")",
                  v->valuestring);
      return 0;
    }
    c->format = (wt_format)found;
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "compression"))) {
    wt_snprintf(sub, sizeof sub, "%s.compression", path);
    if (!wt_cfg_refuse_nul(ctx, v, sub, err, cap)) return 0;
    if (cJSON_IsString(v) && strcmp(v->valuestring, "gzip") == 0) {
      c->gzip = 1;
    } else if (cJSON_IsString(v) && strcmp(v->valuestring, "none") == 0) {
      c->gzip = 0;
    } else {
      wt_cfg_fail(err, cap, sub, "expected \"gzip\" or \"none\", got %s%s%.40s%s", wt_cfg_type_name(v),
                  cJSON_IsString(v) ? " \"" : "", cJSON_IsString(v) ? v->valuestring : "",
                  cJSON_IsString(v) ? "\"" : "");
      return 0;
    }
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "compressionLevel"))) {
    uint32_t level;
    wt_snprintf(sub, sizeof sub, "%s.compressionLevel", path);
    if (!wt_cfg_get_uint(v, sub, 1, 9, &level, err, cap)) return 0;
    c->gzip_level = (int)level;
  }
  /* The default output path depends on the final name and compression. */
  wt_snprintf(c->output, sizeof c->output, WT_OUTPUT_DIR "%s.%s%s", c->name,
              c->format == WT_FORMAT_FOLDED ? "folded" : "json", c->gzip ? ".gz" : "");
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "output"))) {
    wt_snprintf(sub, sizeof sub, "%s.output", path);
    char given[WT_PATH_MAX];
    if (!wt_cfg_get_string(v, sub, given, sizeof given, WT_PATH_CHARS, ctx, err, cap)) return 0;
    const char *why = wt_outputs_canonical_path(given, c->output, sizeof c->output);
    if (why) {
      wt_cfg_fail(err, cap, sub, "%s, got \"%.120s\"", why, given);
      return 0;
    }
  }
  char refused[WT_ERROR_MAX];
  if (wt_outputs_reserved(c->output, refused, sizeof refused)) {
    wt_cfg_fail(err, cap, path_of(sub, sizeof sub, path, "output"), "%s", refused);
    return 0;
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "overwrite"))) {
    wt_snprintf(sub, sizeof sub, "%s.overwrite", path);
    if (!cJSON_IsBool(v)) {
      wt_cfg_fail(err, cap, sub, "expected true or false, got %s", wt_cfg_type_name(v));
      return 0;
    }
    c->overwrite = cJSON_IsTrue(v);
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "stream"))) {
    wt_snprintf(sub, sizeof sub, "%s.stream", path);
    if (!cJSON_IsBool(v)) {
      wt_cfg_fail(err, cap, sub, "expected true or false, got %s", wt_cfg_type_name(v));
      return 0;
    }
    c->stream = cJSON_IsTrue(v);
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "sampling")) &&
      !wt_config_read_switch(v, path, "sampling", "intervalUs", 50, 1000000, &c->sampling, &c->interval_us,
                    ctx, err, cap))
    return 0;
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "counters")) &&
      !wt_config_read_switch(v, path, "counters", "intervalMs", 1, 60000, &c->counters,
                    &c->counter_interval_ms, ctx, err, cap))
    return 0;
  /* The recorders' own keys (their modules read them), here in the
   * order of checks the messages have always had. */
  const wt_config_key *key;
  for (int i = 0; (key = wt_config_recorder_key(i, &owner)) != NULL && i < RECORDER_KEYS_MAX; i++)
    if ((v = cJSON_GetObjectItemCaseSensitive(obj, key->key)) &&
        !key->read(v, path, c->recorder_options[owner], ctx, err, cap))
      return 0;
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "categories"))) {
    wt_snprintf(sub, sizeof sub, "%s.categories", path);
    if (!cJSON_IsArray(v)) {
      wt_cfg_fail(err, cap, sub, "expected an array of strings, got %s", wt_cfg_type_name(v));
      return 0;
    }
    int n = cJSON_GetArraySize(v);
    if (n > WT_MAX_CATEGORIES) {
      wt_cfg_fail(err, cap, sub, "at most %d categories, got %d", WT_MAX_CATEGORIES, n);
      return 0;
    }
    c->category_count = 0;
    int i = 0;
    for (const cJSON *w = v->child; w; w = w->next, i++) {
      wt_snprintf(sub, sizeof sub, "%s.categories[%d]", path, i);
      if (!wt_cfg_get_string(w, sub, c->categories[i], WT_CATEGORY_MAX, WT_CATEGORY_CHARS, ctx, err, cap))
        return 0;
      c->category_count++;
    }
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "durationMs"))) {
    wt_snprintf(sub, sizeof sub, "%s.durationMs", path);
    if (!wt_cfg_get_uint(v, sub, 0, 3600000, &c->duration_ms, err, cap)) return 0;
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "maxBufferKB"))) {
    wt_snprintf(sub, sizeof sub, "%s.maxBufferKB", path);
    if (!wt_cfg_get_uint(v, sub, 64, 1048576, &c->max_buffer_kb, err, cap)) return 0;
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "whenFull"))) {
    wt_snprintf(sub, sizeof sub, "%s.whenFull", path);
    if (!wt_cfg_refuse_nul(ctx, v, sub, err, cap)) return 0;
    if (cJSON_IsString(v) && strcmp(v->valuestring, "stop") == 0) {
      c->when_full = WT_FULL_STOP;
    } else if (cJSON_IsString(v) && strcmp(v->valuestring, "ring") == 0) {
      c->when_full = WT_FULL_RING;
    } else {
      wt_cfg_fail(err, cap, sub, "expected \"stop\" or \"ring\", got %s%s%.40s%s", wt_cfg_type_name(v),
                  cJSON_IsString(v) ? " \"" : "", cJSON_IsString(v) ? v->valuestring : "",
                  cJSON_IsString(v) ? "\"" : "");
      return 0;
    }
  }
  return 1;
}

wt_status wt_config_parse(const char *json, size_t len, wt_config *out, char *err,
                          size_t errcap) {
  memset(out, 0, sizeof *out);
  err[0] = '\0';
  wt_cfg_ctx ctx;
  cJSON *root = wt_cfg_parse_text(json, len, &ctx, err, errcap);
  if (!root) return WT_ERR_CONFIG;
  wt_status status = WT_ERR_CONFIG;
  static const char *const keys[] = {"$schema", "version", "sessions", "server", NULL};
  cJSON no_sessions = {.type = cJSON_Array};
  const cJSON *v;
  if (!cJSON_IsObject(root)) {
    wt_cfg_fail(err, errcap, "config", "expected an object, got %s", wt_cfg_type_name(root));
    goto done;
  }
  if (!wt_cfg_check_keys(root, "config", keys, &ctx, err, errcap)) goto done;
  if ((v = cJSON_GetObjectItemCaseSensitive(root, "$schema")) && !cJSON_IsString(v)) {
    wt_cfg_fail(err, errcap, "config.$schema", "expected a string (the schema's URL), got %s",
                wt_cfg_type_name(v));
    goto done;
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(root, "version"))) {
    uint32_t version;
    if (!wt_cfg_get_uint(v, "config.version", 1, 1, &version, err, errcap)) goto done;
  }
  v = cJSON_GetObjectItemCaseSensitive(root, "sessions");
  /* A page that only wants the diagnostic server needs no sessions. */
  if (!v && cJSON_GetObjectItemCaseSensitive(root, "server")) v = &no_sessions;
  if (!v) {
    wt_cfg_fail(err, errcap, "config.sessions", "missing (expected an array of session objects)");
    goto done;
  }
  if (!cJSON_IsArray(v)) {
    wt_cfg_fail(err, errcap, "config.sessions", "expected an array, got %s", wt_cfg_type_name(v));
    goto done;
  }
  if (cJSON_GetArraySize(v) > WT_MAX_SESSIONS) {
    wt_cfg_fail(err, errcap, "config.sessions", "at most %d sessions, got %d", WT_MAX_SESSIONS,
                cJSON_GetArraySize(v));
    goto done;
  }
  int i = 0;
  for (const cJSON *s = v->child; s; s = s->next, i++) {
    wt_config_entry *e = &out->sessions[i];
    char path[32], name[WT_NAME_MAX];
    wt_snprintf(path, sizeof path, "sessions[%d]", i);
    if (i == 0)
      wt_snprintf(name, sizeof name, "startup");
    else
      wt_snprintf(name, sizeof name, "startup-%d", i);
    wt_config_defaults(&e->config, name);
    e->valid = parse_session_obj(s, path, &e->config, &ctx, e->error, sizeof e->error);
  }
  out->count = i;
  if (cJSON_GetObjectItemCaseSensitive(root, "server")) out->server.present = 1;
  /* Two sessions writing one file would corrupt both. */
  for (int a = 0; a < out->count; a++) {
    for (int b = 0; b < a; b++) {
      if (out->sessions[a].valid && out->sessions[b].valid &&
          strcmp(out->sessions[a].config.output, out->sessions[b].config.output) == 0) {
        char path[48];
        wt_snprintf(path, sizeof path, "sessions[%d].output", a);
        wt_cfg_fail(out->sessions[a].error, sizeof out->sessions[a].error, path,
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
  wt_cfg_ctx ctx;
  cJSON *root = wt_cfg_parse_text(json, len, &ctx, err, errcap);
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

void wt_config_restrict_untrusted(wt_config *c, const char *source) {
  for (int i = 0; i < c->count; i++) {
    wt_config_entry *e = &c->sessions[i];
    if (e->valid && !wt_outputs_untrusted_allowed(e->config.output, e->config.overwrite, i, source, e->error, sizeof e->error))
      e->valid = 0;
  }
  /* A server named by such a config is refused by the shim, which owns
   * the connection (wasmtraceServerConfig, js/wasmtrace_pre.js). */
}
