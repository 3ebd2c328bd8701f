/* Reading the config text and its values (config_text.c), for the
 * sessions' parser (config.c). A reader
 * that finds a value it does not expect writes "path: problem" to err and
 * returns 0. */
#ifndef WT_CONFIG_READ_H
#define WT_CONFIG_READ_H

#include <stddef.h>
#include <stdint.h>

#include "cJSON.h"

/* What parsing one text needs beyond the tree: the code point that stands
 * for an escaped NUL (scan_escapes), as UTF-8, or "" if the text has none. */
typedef struct wt_cfg_ctx {
  char nul[4];
} wt_cfg_ctx;

/* "path: message" into err (cap bytes). */
void wt_cfg_fail(char *err, size_t cap, const char *path, const char *fmt, ...);

/* "an object", "a string", ... for messages. */
const char *wt_cfg_type_name(const cJSON *v);

/* Reads an integer in [lo, hi]; returns 0 and sets err otherwise. */
int wt_cfg_get_uint(const cJSON *v, const char *path, uint32_t lo, uint32_t hi, uint32_t *out,
                    char *err, size_t cap);

/* 1 if s holds an escaped NUL of the original text. */
int wt_cfg_has_nul(const wt_cfg_ctx *ctx, const char *s);

/* Fails if the string v holds an escaped NUL (cJSON would cut it there). */
int wt_cfg_refuse_nul(const wt_cfg_ctx *ctx, const cJSON *v, const char *path, char *err,
                      size_t cap);

/* A string of 1 to max_chars characters and less than outcap bytes into
 * out (outcap bytes). */
int wt_cfg_get_string(const cJSON *v, const char *path, char *out, size_t outcap,
                      unsigned max_chars, const wt_cfg_ctx *ctx, char *err, size_t cap);

/* Accepts only the keys in `allowed` (NULL-terminated), each at most once. */
int wt_cfg_check_keys(const cJSON *obj, const char *path, const char *const *allowed,
                      const wt_cfg_ctx *ctx, char *err, size_t cap);

/* Parses text into a cJSON tree (the caller deletes it) or describes where
 * it is malformed (NULL). Sets *ctx. */
cJSON *wt_cfg_parse_text(const char *json, size_t len, wt_cfg_ctx *ctx, char *err, size_t cap);

#endif
