/* wasmtrace's own snprintf: integers and strings only.
 *
 * Every message, name and path wasmtrace formats goes through here rather
 * than libc's snprintf, which links musl's whole printf core with its
 * floating-point conversion (~1.7 kB gzip'd of every app's download; LLVM
 * rewrites printf/sprintf without a float to their integer-only forms, but
 * not snprintf). Emscripten 3.1.6's integer-only vsniprintf cannot stand
 * in: on a truncated output it calls a write function that dereferences a
 * NULL cookie, and wasmtrace truncates on purpose (bounded errors).
 *
 * Conversions: %d %i %u %x %c %s %%, with the length modifiers l, ll and z,
 * and a precision for %s only (%.40s, %.*s). No flags, no width, no floats
 * (wt_fmt_double formats a double). Semantics are snprintf's: the output
 * always ends with a NUL when cap > 0, and the return value is the length
 * the whole output would have had. An unsupported conversion is written as
 * "%?" and ends the formatting (tests/node/fmt.test.mjs checks that no
 * format string of native/src has one). */
#ifndef WT_FMT_H
#define WT_FMT_H

#include <stdarg.h>
#include <stddef.h>

int wt_snprintf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int wt_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

/* A double as a JSON number with up to `digits` significant digits (1 to
 * 17; 17 round-trips): integers up to 2^53 exactly as integers; others the
 * shortest text that reads back as the value rounded to `digits` digits
 * (in wasm builds through the page's number-to-string; on the host %.*g).
 * Not finite: "0" (JSON has no NaN or Infinity). Returns what snprintf
 * would. */
int wt_fmt_double(char *buf, size_t cap, double v, int digits);

#endif
