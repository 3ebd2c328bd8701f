/* Host implementation of the platform layer (native unit tests). */
#define _GNU_SOURCE
#include "fmt.h"
#include "platform.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <time.h>

static pthread_mutex_t sleep_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sleep_cond = PTHREAD_COND_INITIALIZER;
static pthread_t main_thread;
static int main_thread_known;

__attribute__((constructor(101))) static void remember_main_thread(void) {
  main_thread = pthread_self();
  main_thread_known = 1;
}

double wt_platform_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

void wt_platform_sleep_until(double deadline_us, _Atomic uint32_t *wake,
                             uint32_t expected) {
  /* The condition variable uses CLOCK_REALTIME by default; convert the
   * monotonic deadline into a relative wait on the realtime clock. */
  pthread_mutex_lock(&sleep_mutex);
  while (atomic_load_explicit(wake, memory_order_acquire) == expected) {
    double remaining = deadline_us - wt_platform_now_us();
    if (remaining <= 0) break;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long ns = (long long)ts.tv_nsec + (long long)(remaining * 1000.0);
    ts.tv_sec += (time_t)(ns / 1000000000LL);
    ts.tv_nsec = (long)(ns % 1000000000LL);
    if (pthread_cond_timedwait(&sleep_cond, &sleep_mutex, &ts) == ETIMEDOUT) break;
  }
  pthread_mutex_unlock(&sleep_mutex);
}

void wt_platform_wake(_Atomic uint32_t *wake) {
  pthread_mutex_lock(&sleep_mutex);
  atomic_fetch_add_explicit(wake, 1, memory_order_release);
  pthread_cond_broadcast(&sleep_cond);
  pthread_mutex_unlock(&sleep_mutex);
}

int wt_platform_is_main_thread(void) {
  return main_thread_known && pthread_equal(pthread_self(), main_thread);
}

void wt_platform_log_error(const char *message) {
  fprintf(stderr, "wasmtrace: %s\n", message);
}

char *wt_platform_read_config(wt_config_source *src) {
  const char *env = getenv("WASMTRACE_CONFIG");
  src->name = "the WASMTRACE_CONFIG environment variable";
  src->untrusted = 0;
  src->error[0] = '\0';
  return env ? strdup(env) : NULL;
}

int wt_platform_function_name(uint32_t table_index, char *buf, size_t cap) {
  /* The host build has no wasm table: frames are shown by number. */
  wt_snprintf(buf, cap, "function[%u]", (unsigned)table_index);
  return 1;
}

int64_t wt_platform_heap_bytes(void) { return -1; }

int64_t wt_platform_malloc_bytes(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  struct mallinfo2 mi = mallinfo2();
  return (int64_t)mi.uordblks;
#else
  return -1;
#endif
}

size_t wt_platform_heap_room(int precise) {
  (void)precise;
  return SIZE_MAX; /* the host's malloc returns NULL; tests use mem.c's seam */
}

size_t wt_platform_heap_max(void) { return SIZE_MAX; }

size_t wt_platform_malloc_free_bytes(void) { return SIZE_MAX; }
