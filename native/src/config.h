/* The config blob (v1): parsing and validation. Keys are documented in
 * config/wasmtrace.schema.json. Errors name the key path and the problem.
 * config.c parses the blob and its sessions, config_text.c the text and
 * its values; outputs.c has the rules for output paths. The "server"
 * object belongs to the JS shim (js/wasmtrace_library.js). */
#ifndef WT_CONFIG_H
#define WT_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "outputs.h" /* WT_PATH_MAX, WT_OUTPUT_DIR: the output policy's */
#include "wasmtrace/wasmtrace.h"

#define WT_MAX_SESSIONS 16         /* sessions alive at once */
#define WT_MAX_CATEGORIES 16
/* Length limits count characters (Unicode code points), as JSON Schema's
 * maxLength does; the buffers (bytes, NUL included) also bound the UTF-8
 * size of a value to the same number of bytes, a limit the schema states in
 * words (it cannot check it). ASCII text meets both or neither. Names are
 * ASCII only. (Buffers for 4-byte characters would add ~2.3 KiB to every
 * session record, which a stopped session keeps.) */
#define WT_CATEGORY_CHARS 31
#define WT_CATEGORY_MAX 32
#define WT_NAME_MAX 64
#define WT_ERROR_MAX 256
/* Recorders (recorder.h) a session may have, and the words of settings
 * each one keeps in a session's config (its own keys, read by its own
 * reader: wt_config_key). */
#define WT_RECORDERS_MAX 7
#define WT_RECORDER_OPTIONS 2

typedef enum wt_format { WT_FORMAT_CHROME = 0, WT_FORMAT_FIREFOX = 1, WT_FORMAT_FOLDED = 2 } wt_format;
/* "chrome", "firefox" or "folded": the config's name of a format. */
const char *wt_format_name(wt_format format);
typedef enum wt_when_full { WT_FULL_STOP = 0, WT_FULL_RING = 1 } wt_when_full;

typedef struct wt_session_config {
  char name[WT_NAME_MAX];
  char output[WT_PATH_MAX]; /* canonical (wt_outputs_canonical_path) */
  int overwrite;            /* 1: may replace an existing regular file */
  wt_format format;
  int gzip;             /* 1: gzip (default), 0: plain */
  int gzip_level;       /* 1..9 */
  int sampling;         /* 1: sample stacks (default) */
  uint32_t interval_us; /* sampling period */
  uint32_t duration_ms; /* 0: until stopped */
  uint32_t max_buffer_kb;
  int counters;         /* 1: built-in counters (default) */
  uint32_t counter_interval_ms;
  wt_when_full when_full;
  /* Each recorder's own settings, in the registry's order, zero unless its
   * keys are given: what they mean is the recorder's (wt_config_key). */
  uint32_t recorder_options[WT_RECORDERS_MAX][WT_RECORDER_OPTIONS];
  int stream;           /* 1: a copy of the output goes to the diagnostic server (stream.h) */
  int category_count;
  char categories[WT_MAX_CATEGORIES][WT_CATEGORY_MAX];
} wt_session_config;

/* One session entry of a parsed blob: valid, or an error message. */
typedef struct wt_config_entry {
  wt_session_config config;
  int valid;
  char error[WT_ERROR_MAX];
} wt_config_entry;

/* The top-level "server" object (docs/PROTOCOL.md) belongs to the JS shim,
 * which checks it and owns the connection (wasmtraceCheckServer in
 * js/wasmtrace_pre.js); the parser only notes that it is there. */
typedef struct wt_server_config {
  int present; /* the blob has a "server" key */
} wt_server_config;

typedef struct wt_config {
  int count;
  wt_config_entry sessions[WT_MAX_SESSIONS];
  wt_server_config server;
} wt_config;

/* A session key a recorder owns (recorder.h): its name, and its reader,
 * which checks the value at "path.key" and writes the recorder's settings
 * (zero before) or says what is wrong ("path.key...: problem" in err). */
struct cJSON;      /* the value (config_read.h reads it) */
struct wt_cfg_ctx; /* config_read.h */
typedef struct wt_config_key {
  const char *key;
  int (*read)(const struct cJSON *v, const char *path, uint32_t options[WT_RECORDER_OPTIONS],
              const struct wt_cfg_ctx *ctx, char *err, size_t cap);
} wt_config_key;

/* The recorders' keys, from their registry (recorders.c, which defines
 * it: the config names no recorder): the i-th key, its owner's index in
 * *owner, or NULL after the last. */
const wt_config_key *wt_config_recorder_key(int i, int *owner);

/* An object {"enabled": bool, "<interval_key>": integer in [lo, hi]} at
 * path.key ("sampling", "counters", and recorders' keys of that shape). */
int wt_config_read_switch(const struct cJSON *v, const char *path, const char *key, const char *interval_key,
                          uint32_t lo, uint32_t hi, int *enabled, uint32_t *interval,
                          const struct wt_cfg_ctx *ctx, char *err, size_t cap);

/* Fills *c with defaults for a session called `name`. */
void wt_config_defaults(wt_session_config *c, const char *name);

/* Parses a whole blob ({"sessions":[...]}). Returns WT_OK if the blob was
 * readable at the top level (individual sessions may still be invalid: see
 * entry.valid), or WT_ERR_CONFIG with a message in err (e.g. malformed JSON
 * with its line and column) and no sessions. */
wt_status wt_config_parse(const char *json, size_t len, wt_config *out, char *err,
                          size_t errcap);

/* Parses one session object given on its own (runtime sessions). The key
 * paths in messages start with "session". default_name names it if the
 * object has no "name". */
wt_status wt_config_parse_session(const char *json, size_t len, const char *default_name,
                                  wt_session_config *out, char *err, size_t errcap);

/* Applies the rules of a config from a source anyone can set (the URL
 * parameter): outputs only under WT_OUTPUT_DIR, no "overwrite". Sessions
 * that break one become invalid, with a message naming the key, the path
 * and `source` (outputs.h has the rules). */
void wt_config_restrict_untrusted(wt_config *c, const char *source);

/* 1 if a scope category matches one of the session's category patterns
 * ("*", an exact name, or a prefix ending in '*'). */
int wt_config_category_enabled(const wt_session_config *c, const char *category);

#endif
