/* The output policy on the host (outputs.c, docs/GUIDE.md "Where traces
 * are written"): files wasmtrace did not create are never replaced without
 * "overwrite", only regular files are written, one file is one session's,
 * and a file damaged under a running session fails it with the reason. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime.h"
#include "runtime_start.h"
#include "wasmtrace/wasmtrace.h"
#include "wt_test.h"
#include "wt_test_fs.h"
#include "wt_test_session.h"

static char tmpdir[64];


/* Pumps until the session's file exists (the first output block). */
static int pump_until_file(int id, const char *path) {
  double give_up = wt_test_now_s() + 20;
  struct stat st;
  while (stat(path, &st) != 0) {
    if (wt_test_now_s() > give_up || wt_session_state_get(id) == WT_SESSION_FAILED) return 0;
    wt_io_pump();
    wt_test_sleep_ms(2);
  }
  return 1;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

static int file_is(const char *path, const char *text) {
  char buf[256] = "";
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return strcmp(buf, text) == 0;
}

static int start(const char *name, const char *file, const char *extra, wt_status *rc) {
  char json[512];
  snprintf(json, sizeof json,
           "{\"name\":\"%s\",\"output\":\"%s/%s\",\"compression\":\"none\"%s}", name, tmpdir,
           file, extra ? extra : "");
  int id = -1;
  *rc = wt_session_start(json, &id);
  return id;
}

WT_TEST(outputs_should_never_replace_a_file_wasmtrace_did_not_create) {
  char path[128], expected[512];
  snprintf(path, sizeof path, "%s/app-data.bin", tmpdir);
  write_file(path, "precious");
  wt_status rc;
  int id = start("intruder", "app-data.bin", NULL, &rc);
  CHECK_EQ_INT(rc, WT_ERR_STATE);
  CHECK_EQ_INT(wt_session_state_get(id), WT_SESSION_FAILED);
  snprintf(expected, sizeof expected,
           "output \"%s\" already exists and wasmtrace did not create it: it never replaces a "
           "file it does not own (choose another output, or set \"overwrite\": true in the app's "
           "own config)",
           path);
  CHECK_EQ_STR(wt_session_error(id), expected);
  for (int i = 0; i < 20; i++) wt_io_pump();
  CHECK(file_is(path, "precious"));
  /* The app's own config may allow it. */
  id = start("allowed", "app-data.bin", ",\"overwrite\":true,\"durationMs\":20", &rc);
  CHECK_EQ_INT(rc, WT_OK);
  CHECK_EQ_INT(wt_test_pump_until_done(id, 20), WT_SESSION_STOPPED);
  CHECK(!file_is(path, "precious"));
}

WT_TEST(outputs_should_not_replace_a_file_that_appeared_after_the_session_started) {
  char path[256];
  snprintf(path, sizeof path, "%s/late.json", tmpdir);
  wt_status rc;
  int id = start("late", "late.json", NULL, &rc);
  REQUIRE_EQ_INT(rc, WT_OK);
  write_file(path, "the app's");
  wt_session_stop(id);
  CHECK_EQ_INT(wt_test_pump_until_done(id, 20), WT_SESSION_FAILED);
  CHECK(strstr(wt_session_error(id), "already exists and wasmtrace did not create it") != NULL);
  CHECK(file_is(path, "the app's"));
}

WT_TEST(outputs_should_refuse_directories_and_links) {
  char path[256], target[256];
  snprintf(path, sizeof path, "%s/a-dir", tmpdir);
  REQUIRE(mkdir(path, 0777) == 0);
  wt_status rc;
  int id = start("dir", "a-dir", ",\"overwrite\":true", &rc);
  CHECK_EQ_INT(rc, WT_ERR_STATE);
  CHECK(strstr(wt_session_error(id), "is not a regular file (a directory, device or link)") != NULL);
  snprintf(target, sizeof target, "%s/elsewhere.txt", tmpdir);
  snprintf(path, sizeof path, "%s/a-link", tmpdir);
  REQUIRE(symlink(target, path) == 0);
  id = start("link", "a-link", ",\"overwrite\":true", &rc);
  CHECK_EQ_INT(rc, WT_ERR_STATE);
  CHECK(strstr(wt_session_error(id), "is not a regular file") != NULL);
  struct stat st;
  CHECK(stat(target, &st) != 0); /* nothing was written through the link */
}

WT_TEST(outputs_should_treat_spellings_of_one_path_as_one_output) {
  wt_status rc;
  int a = start("one", "same.json", NULL, &rc);
  REQUIRE_EQ_INT(rc, WT_OK);
  int b = start("two", "./same.json", NULL, &rc);
  CHECK_EQ_INT(rc, WT_ERR_STATE);
  int c = start("three", "/same.json", NULL, &rc);
  CHECK_EQ_INT(rc, WT_ERR_STATE);
  char expected[WT_ERROR_MAX];
  snprintf(expected, sizeof expected, "output \"%s/same.json\" is in use by running session 'one'",
           tmpdir);
  CHECK_EQ_STR(wt_session_error(b), expected);
  CHECK_EQ_STR(wt_session_error(c), expected);
  wt_session_stop(a);
  CHECK_EQ_INT(wt_test_pump_until_done(a, 20), WT_SESSION_STOPPED);
  /* Its trace stays its own. */
  int d = start("four", "x/../same.json", NULL, &rc);
  CHECK_EQ_INT(rc, WT_ERR_STATE);
  CHECK(strstr(wt_session_error(d), "is the trace of earlier session 'one' of this page") != NULL);
  /* Once the app has deleted that trace, the path is free again. */
  char path[128];
  snprintf(path, sizeof path, "%s/same.json", tmpdir);
  CHECK(unlink(path) == 0);
  int e = start("five", "same.json", ",\"durationMs\":20", &rc);
  CHECK_EQ_INT(rc, WT_OK);
  CHECK_EQ_INT(wt_test_pump_until_done(e, 20), WT_SESSION_STOPPED);
}

typedef enum damage { DELETE, TRUNCATE, REPLACE } damage;

static void check_damage(const char *name, damage how, const char *message) {
  char path[256], moved[300];
  snprintf(path, sizeof path, "%s/%s.json", tmpdir, name);
  char file[64];
  snprintf(file, sizeof file, "%s.json", name);
  wt_status rc;
  int id = start(name, file, NULL, &rc);
  REQUIRE_EQ_INT(rc, WT_OK);
  REQUIRE(pump_until_file(id, path));
  if (how == DELETE) {
    CHECK(unlink(path) == 0);
  } else if (how == TRUNCATE) {
    CHECK(truncate(path, 0) == 0);
  } else {
    snprintf(moved, sizeof moved, "%s.moved", path);
    CHECK(rename(path, moved) == 0);
    write_file(path, "another file");
  }
  wt_session_stop(id);
  CHECK_EQ_INT(wt_test_pump_until_done(id, 20), WT_SESSION_FAILED);
  if (!strstr(wt_session_error(id), message))
    wt_test_fail(__FILE__, __LINE__, "%s: got \"%s\", expected \"%s\"", name,
                 wt_session_error(id), message);
}

WT_TEST(outputs_should_fail_a_session_whose_file_was_deleted_truncated_or_replaced) {
  check_damage("deleted", DELETE, "was deleted or moved while the session ran");
  check_damage("truncated", TRUNCATE, "was truncated or written to by someone else");
  check_damage("replaced", REPLACE, "was replaced by another file while the session ran");
}

int main(int argc, char **argv) {
  if (!wt_test_make_tmpdir(tmpdir, sizeof tmpdir, "outputs")) return 1;
  static const wt_test tests[] = {
      WT_TEST_ENTRY(outputs_should_never_replace_a_file_wasmtrace_did_not_create),
      WT_TEST_ENTRY(outputs_should_not_replace_a_file_that_appeared_after_the_session_started),
      WT_TEST_ENTRY(outputs_should_refuse_directories_and_links),
      WT_TEST_ENTRY(outputs_should_treat_spellings_of_one_path_as_one_output),
      WT_TEST_ENTRY(outputs_should_fail_a_session_whose_file_was_deleted_truncated_or_replaced),
  };
  int rc = wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
  wt_runtime_reset_for_testing(0);
  wt_test_remove_tree(tmpdir);
  return rc;
}
