/* The output policy: see outputs.h and docs/GUIDE.md ("Where traces are
 * written"). The sessions themselves decide nothing here: api.c asks
 * wt_outputs_check before a session starts, io_pump.c opens through
 * wt_outputs_open and asks wt_outputs_damaged before each write and at
 * close. */
#define _POSIX_C_SOURCE 200809L
#include "outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt.h"
#include "platform.h"

/* A file a session created in this page's life (the newest one per path). */
typedef struct wt_created_output {
  char *path;
  char session[WT_OUTPUT_SESSION_MAX];
  uint64_t dev, ino; /* of the file it created */
} wt_created_output;

static pthread_mutex_t created_lock = PTHREAD_MUTEX_INITIALIZER;
static wt_created_output *created;
static size_t created_count, created_cap;

/* Under created_lock. */
static wt_created_output *find_created(const char *path) {
  for (size_t i = 0; i < created_count; i++)
    if (strcmp(created[i].path, path) == 0) return &created[i];
  return NULL;
}

/* 1 if the file wasmtrace created at e->path is still there (main thread). */
static int still_there(const wt_created_output *e) {
  struct stat st;
  return lstat(e->path, &st) == 0 && (uint64_t)st.st_ino == e->ino && (uint64_t)st.st_dev == e->dev;
}

static void note_created(const char *path, const char *session, const struct stat *st) {
  pthread_mutex_lock(&created_lock);
  /* Forget the files that are gone (the app deleted or replaced them): the
   * table stays as small as the traces still on the VFS. */
  size_t kept = 0;
  for (size_t i = 0; i < created_count; i++) {
    if (strcmp(created[i].path, path) == 0 || still_there(&created[i])) {
      created[kept++] = created[i];
    } else {
      free(created[i].path);
    }
  }
  created_count = kept;
  wt_created_output *e = find_created(path);
  if (!e && created_count == created_cap) {
    size_t cap = created_cap ? created_cap * 2 : 16;
    wt_created_output *bigger = realloc(created, cap * sizeof *created);
    if (bigger) {
      created = bigger;
      created_cap = cap;
    }
  }
  if (!e && created_count < created_cap) {
    char *copy = strdup(path);
    if (copy) {
      e = &created[created_count++];
      e->path = copy;
    }
  }
  /* Out of memory: the file is not remembered, so a later session may
   * reuse it only after the exclusive open refuses it, with a message that
   * does not name its session. */
  if (e) {
    wt_snprintf(e->session, sizeof e->session, "%s", session);
    e->dev = (uint64_t)st->st_dev;
    e->ino = (uint64_t)st->st_ino;
  }
  pthread_mutex_unlock(&created_lock);
}

static void refuse_not_regular(const char *path, char *err, size_t cap) {
  wt_snprintf(err, cap,
              "output \"%.120s\" is not a regular file (a directory, device or link): wasmtrace "
              "writes only regular files",
              path);
}

static void refuse_not_ours(const char *path, char *err, size_t cap) {
  wt_snprintf(err, cap,
              "output \"%.120s\" already exists and wasmtrace did not create it: it never "
              "replaces a file it does not own (choose another output, or set \"overwrite\": "
              "true in the app's own config)",
              path);
}

/* What lstat says of an existing file at path; 0 if there is none (or it
 * cannot be told: then the open reports it). */
static int check_existing(const char *path, int overwrite, char *err, size_t cap) {
  struct stat st;
  if (lstat(path, &st) != 0) return 1;
  if (!S_ISREG(st.st_mode)) {
    refuse_not_regular(path, err, cap);
    return 0;
  }
  if (!overwrite) {
    refuse_not_ours(path, err, cap);
    return 0;
  }
  return 1;
}

wt_status wt_outputs_check(const char *path, int overwrite, char *err, size_t cap) {
  pthread_mutex_lock(&created_lock);
  wt_created_output *e = find_created(path);
  /* A trace the app has deleted since is no longer one to keep. */
  if (e && !overwrite && (!wt_platform_is_main_thread() || still_there(e))) {
    wt_snprintf(err, cap,
                "output \"%.120s\" is the trace of earlier session '%s' of this page: choose "
                "another output, or set \"overwrite\": true to replace it",
                path, e->session);
    pthread_mutex_unlock(&created_lock);
    return WT_ERR_STATE;
  }
  pthread_mutex_unlock(&created_lock);
  /* On another thread a file system call is proxied to the main thread and
   * may wait for it for seconds: the exclusive open decides there. */
  if (!wt_platform_is_main_thread()) return WT_OK;
  return check_existing(path, overwrite, err, cap) ? WT_OK : WT_ERR_STATE;
}

/* mkdir -p of the directory part of path. */
static void make_parent_dirs(const char *path) {
  char tmp[WT_PATH_MAX];
  wt_snprintf(tmp, sizeof tmp, "%s", path);
  for (char *p = tmp + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    mkdir(tmp, 0777);
    *p = '/';
  }
}

FILE *wt_outputs_open(const char *path, int overwrite, const char *session, char *err, size_t cap) {
  make_parent_dirs(path);
  if (!check_existing(path, overwrite, err, cap)) return NULL;
  /* O_EXCL: never replace a file that appeared since the check; O_NOFOLLOW:
   * never write through a link to a file elsewhere. */
  int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL);
  int fd = open(path, flags, 0644);
  if (fd < 0) {
    if (errno == EEXIST)
      refuse_not_ours(path, err, cap);
    else
      wt_snprintf(err, cap, "cannot open output \"%s\": %s", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    refuse_not_regular(path, err, cap);
    return NULL;
  }
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    wt_snprintf(err, cap, "cannot open output \"%s\": %s", path, strerror(errno));
    close(fd);
    return NULL;
  }
  note_created(path, session, &st);
  return f;
}

int wt_outputs_damaged(const char *path, uint64_t written, char *err, size_t cap) {
  /* By path, against what the open recorded: Emscripten's fstat (3.1.6)
   * stats the stream's path, so it cannot tell an unlinked file. */
  struct stat there;
  if (stat(path, &there) != 0) {
    wt_snprintf(err, cap, "output \"%.120s\" was deleted or moved while the session ran: the trace is lost",
                path);
    return 1;
  }
  pthread_mutex_lock(&created_lock);
  wt_created_output *e = find_created(path);
  int replaced = e && (e->ino != (uint64_t)there.st_ino || e->dev != (uint64_t)there.st_dev);
  pthread_mutex_unlock(&created_lock);
  if (replaced || !S_ISREG(there.st_mode)) {
    wt_snprintf(err, cap,
                "output \"%.120s\" was replaced by another file while the session ran: the trace is "
                "lost",
                path);
    return 1;
  }
  if ((uint64_t)there.st_size != written) {
    wt_snprintf(err, cap,
                "output \"%.120s\" was truncated or written to by someone else while the session ran "
                "(%llu bytes on the VFS, wasmtrace wrote %llu): the trace is unreadable",
                path, (unsigned long long)there.st_size, (unsigned long long)written);
    return 1;
  }
  return 0;
}

void wt_outputs_reset_for_testing(void) {
  pthread_mutex_lock(&created_lock);
  for (size_t i = 0; i < created_count; i++) free(created[i].path);
  free(created);
  created = NULL;
  created_count = created_cap = 0;
  pthread_mutex_unlock(&created_lock);
}

/* ---- output paths in a config (config.c asks while it parses) ---------- */

const char *wt_outputs_canonical_path(const char *in, char *out, size_t cap) {
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

const char *wt_outputs_reserved(const char *path, char *why, size_t cap) {
  if (strcmp(path, "/wasmtrace.json") == 0) {
    wt_snprintf(why, cap, "\"/wasmtrace.json\" is wasmtrace's own config file, never an output");
    return why;
  }
  if (strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0) {
    wt_snprintf(why, cap,
                "\"%.80s\" is a device or system file: outputs are regular files (e.g. under " WT_OUTPUT_DIR
                ")",
                path);
    return why;
  }
  return NULL;
}

int wt_outputs_untrusted_allowed(const char *path, int overwrite, int index, const char *source, char *err,
                                 size_t cap) {
  static const char dir[] = WT_OUTPUT_DIR;
  if (overwrite) {
    wt_snprintf(err, cap,
                "sessions[%d].overwrite: not allowed in a config from %s (anyone can set it): only the "
                "app's own config may overwrite files",
                index, source);
    return 0;
  }
  if (strncmp(path, dir, sizeof dir - 1) != 0) {
    wt_snprintf(err, cap,
                "sessions[%d].output: \"%.80s\" is outside " WT_OUTPUT_DIR
                ": a config from %s may write only there",
                index, path, source);
    return 0;
  }
  return 1;
}
