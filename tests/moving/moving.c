/* Moving-stack test app (issue 16), driven by tests/browser/moving.test.mjs:
 * a pthread named "mover" calls tiny functions in a tight loop, 7 deep, with
 * a known call structure, until the page calls moving_stop(). Built with
 * -finstrument-functions and --profiling-funcs: every frame is a real
 * function with its name. The structure (every stack is a prefix of one):
 *   mover_main > main_loop > work > sort_pass > cmp > less > leaf
 *   mover_main > main_loop > work > format_pass > leaf */
#include <emscripten.h>
#include <pthread.h>
#include <stdatomic.h>

#include <wasmtrace/wasmtrace.h>

static _Atomic int g_stop, g_done;
static volatile int g_sink;

__attribute__((noinline)) int leaf(int x) {
  __asm__ volatile("" ::: "memory"); /* keep the call */
  return x * 3 + 1;
}
__attribute__((noinline)) int less(int a, int b) { return leaf(a) < leaf(b); }
__attribute__((noinline)) int cmp(int a, int b) { return less(a, b) ? -1 : 1; }
__attribute__((noinline)) int sort_pass(int n) {
  int acc = 0;
  for (int k = 0; k < 64; k++) acc += cmp(k, n - k);
  return acc;
}
__attribute__((noinline)) int format_pass(int n) {
  int acc = 0;
  for (int k = 0; k < 8; k++) acc += leaf(n + k);
  return acc;
}
__attribute__((noinline)) void work(void) {
  for (int n = 0; !atomic_load_explicit(&g_stop, memory_order_relaxed); n++) g_sink += sort_pass(n) + format_pass(n);
}
__attribute__((noinline)) void main_loop(void) { work(); }

void *mover_main(void *arg) {
  (void)arg;
  wt_thread_set_name("mover");
  main_loop();
  atomic_store(&g_done, 1);
  return NULL;
}

/* The page stops the mover (once the session has enough samples). */
EMSCRIPTEN_KEEPALIVE void moving_stop(void) { atomic_store(&g_stop, 1); }
/* 1 once the mover has returned. */
EMSCRIPTEN_KEEPALIVE int moving_done(void) { return atomic_load(&g_done); }

int main(void) {
  static pthread_t t;
  pthread_create(&t, NULL, mover_main, NULL);
  pthread_detach(t);
  return 0;
}
