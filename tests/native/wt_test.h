/* A tiny test harness for the native unit tests: one executable per area,
 * each a table of tests named after the behaviour they check.
 *
 *   WT_TEST(json_escape_should_escape_quotes) { CHECK_EQ_STR(...); }
 *   int main(int argc, char **argv) {
 *     static const wt_test tests[] = {WT_TEST_ENTRY(json_escape_should_escape_quotes)};
 *     return wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
 *   }
 *
 * CHECK* records a failure and goes on; REQUIRE* records it and returns from
 * the test function (use it only in the test body, not in helpers).
 * WT_TEST_HOST_ONLY lists a test that cannot run when the executable is
 * compiled to wasm (signals, mprotect, ...): there it is skipped with its
 * reason printed, never silently.
 *
 * Run one executable with a substring as its argument to run only the tests
 * whose names contain it. */
#ifndef WT_TEST_H
#define WT_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct wt_test {
  const char *name;
  void (*fn)(void);
  const char *host_only; /* NULL, or why the test cannot run in wasm */
} wt_test;

#define WT_TEST(name) static void name(void)
#define WT_TEST_ENTRY(name) {#name, name, NULL}
#define WT_TEST_HOST_ONLY(name, why) {#name, name, why}
#define WT_TEST_COUNT(tests) (sizeof(tests) / sizeof((tests)[0]))

/* Failed checks in the running test. */
static int wt_test_failed_checks;

__attribute__((format(printf, 3, 4), unused)) static void wt_test_fail(const char *file,
                                                                       int line,
                                                                       const char *fmt, ...) {
  wt_test_failed_checks++;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "    %s:%d: ", file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) wt_test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond); \
  } while (0)

#define REQUIRE(cond)                                                   \
  do {                                                                  \
    if (!(cond)) {                                                      \
      wt_test_fail(__FILE__, __LINE__, "REQUIRE(%s)", #cond);           \
      return;                                                           \
    }                                                                   \
  } while (0)

/* Integers of any signedness up to 64 bits: compared as signed if both
 * fit, printed both ways. */
#define WT_I_CHECK_EQ_INT(a, b, on_fail)                                               \
  do {                                                                                 \
    long long wt_a_ = (long long)(a), wt_b_ = (long long)(b);                          \
    if (wt_a_ != wt_b_) {                                                              \
      wt_test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, wt_a_, wt_b_); \
      on_fail;                                                                         \
    }                                                                                  \
  } while (0)
#define CHECK_EQ_INT(a, b) WT_I_CHECK_EQ_INT(a, b, (void)0)
#define REQUIRE_EQ_INT(a, b) WT_I_CHECK_EQ_INT(a, b, return)

#define CHECK_EQ_U64(a, b)                                                                  \
  do {                                                                                      \
    unsigned long long wt_a_ = (unsigned long long)(a), wt_b_ = (unsigned long long)(b);     \
    if (wt_a_ != wt_b_)                                                                     \
      wt_test_fail(__FILE__, __LINE__, "%s == %s: %llu != %llu", #a, #b, wt_a_, wt_b_);     \
  } while (0)

#define WT_I_CHECK_EQ_STR(a, b, on_fail)                                                    \
  do {                                                                                      \
    const char *wt_a_ = (a), *wt_b_ = (b);                                                  \
    if (!wt_a_ || !wt_b_ || strcmp(wt_a_, wt_b_) != 0) {                                    \
      wt_test_fail(__FILE__, __LINE__, "%s == %s:\n      got      \"%s\"\n      expected \"%s\"", \
                   #a, #b, wt_a_ ? wt_a_ : "(null)", wt_b_ ? wt_b_ : "(null)");             \
      on_fail;                                                                              \
    }                                                                                       \
  } while (0)
#define CHECK_EQ_STR(a, b) WT_I_CHECK_EQ_STR(a, b, (void)0)
#define REQUIRE_EQ_STR(a, b) WT_I_CHECK_EQ_STR(a, b, return)

/* Byte ranges; differences are reported by offset. */
#define CHECK_EQ_MEM(a, alen, b, blen)                                                        \
  do {                                                                                        \
    const unsigned char *wt_a_ = (const unsigned char *)(a), *wt_b_ = (const unsigned char *)(b); \
    size_t wt_an_ = (alen), wt_bn_ = (blen), wt_i_ = 0;                                       \
    while (wt_i_ < wt_an_ && wt_i_ < wt_bn_ && wt_a_[wt_i_] == wt_b_[wt_i_]) wt_i_++;          \
    if (wt_an_ != wt_bn_ || wt_i_ != wt_an_)                                                  \
      wt_test_fail(__FILE__, __LINE__, "%s (%zu bytes) == %s (%zu bytes): first difference at %zu", \
                   #a, wt_an_, #b, wt_bn_, wt_i_);                                            \
  } while (0)

/* Runs the tests (those whose names contain argv[1], if given). Returns the
 * process exit status. */
__attribute__((unused)) static int wt_test_main(int argc, char **argv, const wt_test *tests,
                                                size_t count) {
  const char *filter = argc > 1 ? argv[1] : NULL;
  int ran = 0, failed = 0, skipped = 0;
  for (size_t i = 0; i < count; i++) {
    const wt_test *t = &tests[i];
    if (filter && !strstr(t->name, filter)) continue;
#ifdef __EMSCRIPTEN__
    if (t->host_only) {
      skipped++;
      fprintf(stderr, "[ SKIP ] %s: host only: %s\n", t->name, t->host_only);
      continue;
    }
#endif
    wt_test_failed_checks = 0;
    fprintf(stderr, "[ RUN  ] %s\n", t->name);
    t->fn();
    ran++;
    if (wt_test_failed_checks) {
      failed++;
      fprintf(stderr, "[ FAIL ] %s (%d failed checks)\n", t->name, wt_test_failed_checks);
    } else {
      fprintf(stderr, "[  OK  ] %s\n", t->name);
    }
  }
  fprintf(stderr, "%d tests, %d failed", ran, failed);
  if (skipped) fprintf(stderr, ", %d skipped (host only)", skipped);
  fputc('\n', stderr);
  if (filter && ran + skipped == 0) {
    fprintf(stderr, "no test matches \"%s\"\n", filter);
    return 1;
  }
  return failed ? 1 : 0;
}

#endif
