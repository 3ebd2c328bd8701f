/* Sampler benchmark: N threads busy for T ms, each 8 scopes deep, while a
 * session samples them (its interval comes from the page's config). The
 * page reads the trace's stats: achieved rate, lateness, worker time.
 *
 *   sampler.js THREADS MS */
#include <emscripten.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <wasmtrace/wasmtrace.h>

static double g_end;
static pthread_barrier_t g_ready;

static void nest(int depth) {
  WT_SCOPE("nest");
  if (depth > 1) {
    nest(depth - 1);
    return;
  }
  volatile unsigned x = 0;
  while (emscripten_get_now() < g_end) x++;
}

static void *busy(void *arg) {
  (void)arg;
  WT_THREAD_NAME("busy");
  { WT_SCOPE("register"); } /* registers this thread before the barrier */
  pthread_barrier_wait(&g_ready);
  nest(8);
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4;
  double ms = argc > 2 ? atof(argv[2]) : 2000;
  if (n < 1 || n > 8) n = 4;
  pthread_t t[8];
  EM_ASM({ self.memBeforeThreads = Module.wasmtrace.memory(); });
  pthread_barrier_init(&g_ready, NULL, (unsigned)n + 1);
  g_end = emscripten_get_now() + ms + 100;
  for (int i = 0; i < n; i++) pthread_create(&t[i], NULL, busy, NULL);
  pthread_barrier_wait(&g_ready);
  EM_ASM({ self.memAfterThreads = Module.wasmtrace.memory(); self.busyStartMs = performance.now(); });
  for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
  EM_ASM({ self.busyEndMs = performance.now(); self.benchDone = true; });
  return 0;
}
