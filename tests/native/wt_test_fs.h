/* POSIX helpers for native tests that write files or wait: temporary
 * directories and a monotonic clock. The includer defines _XOPEN_SOURCE 700
 * (mkdtemp, nftw, clock_gettime) before any system header. */
#ifndef WT_TEST_FS_H
#define WT_TEST_FS_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

/* A fresh directory of the test's own under /tmp (path in buf, e.g.
 * "/tmp/wasmtrace-grid-XXXXXX"), and its removal with everything in it. */
__attribute__((unused)) static int wt_test_make_tmpdir(char *buf, size_t cap, const char *tag) {
  snprintf(buf, cap, "/tmp/wasmtrace-%s-XXXXXX", tag);
  if (mkdtemp(buf)) return 1;
  perror("mkdtemp");
  return 0;
}
static int wt_i_remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}
__attribute__((unused)) static void wt_test_remove_tree(const char *dir) {
  nftw(dir, wt_i_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Monotonic seconds, and a sleep of ms milliseconds. */
__attribute__((unused)) static double wt_test_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
__attribute__((unused)) static void wt_test_sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

#endif
