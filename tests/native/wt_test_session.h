/* Helpers for native tests that run sessions: pump their output until they
 * end, and read a trace back. The includer includes wt_test_fs.h (clock)
 * and links zlib. */
#ifndef WT_TEST_SESSION_H
#define WT_TEST_SESSION_H

#include <stdlib.h>
#include <zlib.h>

#include "wasmtrace/wasmtrace.h"
#include "wt_test_fs.h"

/* Pumps output until session `id` is STOPPED or FAILED; gives up after
 * `seconds` (a hang guard only) and returns its state then. */
__attribute__((unused)) static wt_session_state wt_test_pump_until_done(int id, double seconds) {
  double give_up = wt_test_now_s() + seconds;
  for (;;) {
    wt_io_pump();
    wt_session_state st = wt_session_state_get(id);
    if (st == WT_SESSION_STOPPED || st == WT_SESSION_FAILED) return st;
    if (wt_test_now_s() > give_up) return st;
    wt_test_sleep_ms(1);
  }
}

/* Reads a whole file, gunzipping it if it is gzip (zlib's gz* functions
 * pass plain files through). Returns a NUL-terminated malloc'd buffer, or
 * NULL if it cannot be read whole. */
__attribute__((unused)) static char *wt_test_read_trace(const char *path, size_t *out_len) {
  gzFile f = gzopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap + 1);
  int n;
  while (buf && (n = gzread(f, buf + len, (unsigned)(cap - len))) > 0) {
    len += (size_t)n;
    if (len == cap) {
      char *bigger = realloc(buf, cap * 2 + 1);
      if (!bigger) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
  }
  int err = 0;
  gzerror(f, &err);
  gzclose(f);
  if (!buf || err != Z_OK) {
    free(buf);
    return NULL;
  }
  buf[len] = '\0';
  *out_len = len;
  return buf;
}

#endif
