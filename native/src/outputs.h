/* The output policy (docs/GUIDE.md, "Where traces are written"): which
 * files a session may write, how it creates them, and how it notices that
 * its file was damaged under it. Paths are canonical
 * (wt_outputs_canonical_path). The table of files wasmtrace created in this
 * page's life is shared by all threads (its own lock). */
#ifndef WT_OUTPUTS_H
#define WT_OUTPUTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wasmtrace/wasmtrace.h"

/* An output path: up to WT_PATH_CHARS characters (config.h's "output"). */
#define WT_PATH_CHARS 255
#define WT_PATH_MAX 256
/* The directory of default outputs, and the only one a config from an
 * untrusted source may write to (wt_config_restrict_untrusted). */
#define WT_OUTPUT_DIR "/traces/"
/* The session name kept with each created file (config.h's WT_NAME_MAX
 * fits: config.c checks). */
#define WT_OUTPUT_SESSION_MAX 64

/* Whether a new session may write `path` (its config's "output"), as far as
 * can be told before it starts: not the trace of an earlier session of this
 * page, and (on the main thread only, where the VFS is not a proxied call
 * away) not an existing file that is not a regular file or that wasmtrace
 * did not create, unless `overwrite` (its config's "overwrite"). Returns
 * WT_OK, or WT_ERR_STATE with one line in err. Any thread. The policy
 * takes plain values: it knows files, not the config (config.c calls it). */
wt_status wt_outputs_check(const char *path, int overwrite, char *err, size_t cap);

/* Creates (or, with `overwrite`, replaces) the output file `path` and
 * records it as created by `session`. Refuses, with the reason in err, what
 * wt_outputs_check refuses: the open itself is exclusive, so a file that
 * appeared since the check is never overwritten. Main thread. */
FILE *wt_outputs_open(const char *path, int overwrite, const char *session, char *err, size_t cap);

/* 0 if `path` still names the file wasmtrace created there and holds
 * exactly the `written` bytes it wrote (call it with the stream flushed);
 * else 1 with what happened in err (deleted or moved, replaced, truncated
 * or written to by someone else). Main thread. */
int wt_outputs_damaged(const char *path, uint64_t written, char *err, size_t cap);

/* ---- output paths in a config ------------------------------------------ */

/* Writes the canonical form of the absolute path `in` to out (cap bytes):
 * empty and "." components dropped, ".." removes the one before it (at
 * the root it stays there, as POSIX resolves "/.."). The result is never
 * longer than `in`. Returns NULL, or why the path is not the path of a
 * file (not absolute, a trailing '/', ending in "." or "..", the root). */
const char *wt_outputs_canonical_path(const char *in, char *out, size_t cap);

/* NULL, or `why` (cap bytes) holding the reason no config, whatever its
 * source, may name the canonical `path` as an output: wasmtrace's own
 * config file, a device or system file. */
const char *wt_outputs_reserved(const char *path, char *why, size_t cap);

/* The rules for a config from a source anyone can set (the URL parameter):
 * outputs only under WT_OUTPUT_DIR, no "overwrite". 1 if
 * sessions[index] (its output `path`, its `overwrite`) keeps them, else 0
 * with the key path, the problem and `source` in err. */
int wt_outputs_untrusted_allowed(const char *path, int overwrite, int index, const char *source, char *err,
                                 size_t cap);

/* Forgets every created file (tests). */
void wt_outputs_reset_for_testing(void);

#endif
