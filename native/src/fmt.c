/* wasmtrace's own snprintf (fmt.h). */
#include "fmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct out {
  char *buf;
  size_t cap;
  size_t len; /* what the whole output would take */
} out;

static void put(out *o, const char *s, size_t n) {
  if (o->len + 1 < o->cap) {
    size_t room = o->cap - 1 - o->len;
    memcpy(o->buf + o->len, s, n < room ? n : room);
  }
  o->len += n;
}

static void put_u64(out *o, uint64_t v, unsigned base, int negative) {
  char tmp[24];
  int i = (int)sizeof tmp;
  do {
    tmp[--i] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v);
  if (negative) tmp[--i] = '-';
  put(o, tmp + i, sizeof tmp - (size_t)i);
}

int wt_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap) {
  out o = {buf, cap, 0};
  const char *p = fmt;
  while (*p) {
    const char *lit = p;
    while (*p && *p != '%') p++;
    put(&o, lit, (size_t)(p - lit));
    if (!*p) break;
    p++; /* the '%' */
    int prec = -1;
    if (*p == '.') {
      p++;
      if (*p == '*') {
        prec = va_arg(ap, int);
        p++;
      } else {
        for (prec = 0; *p >= '0' && *p <= '9'; p++) prec = prec * 10 + (*p - '0');
      }
    }
    int size = 0; /* 0 int, 1 long, 2 long long, 3 size_t */
    if (*p == 'l') size = *++p == 'l' ? (p++, 2) : 1;
    else if (*p == 'z') size = 3, p++;
    char conv = *p ? *p++ : '\0';
    if (conv == 'd' || conv == 'i') {
      int64_t v = size == 0 ? va_arg(ap, int)
                  : size == 1 ? va_arg(ap, long)
                  : size == 2 ? va_arg(ap, long long)
                              : (int64_t)va_arg(ap, size_t);
      put_u64(&o, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, 10, v < 0);
    } else if (conv == 'u' || conv == 'x') {
      uint64_t v = size == 0 ? va_arg(ap, unsigned)
                   : size == 1 ? va_arg(ap, unsigned long)
                   : size == 2 ? va_arg(ap, unsigned long long)
                               : va_arg(ap, size_t);
      put_u64(&o, v, conv == 'x' ? 16 : 10, 0);
    } else if (conv == 's') {
      const char *s = va_arg(ap, const char *);
      if (!s) s = "(null)";
      put(&o, s, prec < 0 ? strlen(s) : strnlen(s, (size_t)prec));
    } else if (conv == 'c') {
      char c = (char)va_arg(ap, int);
      put(&o, &c, 1);
    } else if (conv == '%') {
      put(&o, "%", 1);
    } else {
      put(&o, "%?", 2); /* not supported (fmt.h): the arguments cannot be read on */
      break;
    }
  }
  if (cap) buf[o.len < cap ? o.len : cap - 1] = '\0';
  return o.len > INT32_MAX ? INT32_MAX : (int)o.len;
}

int wt_snprintf(char *buf, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = wt_vsnprintf(buf, cap, fmt, ap);
  va_end(ap);
  return n;
}

#ifdef __EMSCRIPTEN__
/* js/wasmtrace_library.js: String(Number(v.toPrecision(digits))) into buf;
 * returns its length. */
extern int wt_js_format_number(double v, int digits, char *buf, int cap);
#endif

int wt_fmt_double(char *buf, size_t cap, double v, int digits) {
  if (!isfinite(v)) v = 0;
  if (digits < 1 || digits > 17) digits = 17;
  if (fabs(v) <= 9007199254740992.0 && v == trunc(v)) return wt_snprintf(buf, cap, "%lld", (long long)v);
#ifdef __EMSCRIPTEN__
  return wt_js_format_number(v, digits, buf, cap > INT32_MAX ? INT32_MAX : (int)cap);
#else
  return snprintf(buf, cap, "%.*g", digits, v);
#endif
}
