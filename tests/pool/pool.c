/* Test app for the pthread pool (tests/browser/limits.test.mjs): linked
 * with a pool of exactly one worker and -sPTHREAD_POOL_SIZE_STRICT=2, it
 * creates its one thread in main() and joins it. The page reads the result
 * of pthread_create from self.poolResult (0 = the app's thread ran). */
#include <emscripten.h>
#include <pthread.h>

#include <wasmtrace/wasmtrace.h>

static void *app_thread(void *arg) {
  WT_SCOPE("app_thread_work");
  volatile unsigned x = 0;
  double end = emscripten_get_now() + 50;
  while (emscripten_get_now() < end) x++;
  return arg;
}

/* Starts a session at runtime (no startup config): the page calls it. */
EMSCRIPTEN_KEEPALIVE int pool_start_session(void) {
  int id = -1;
  wt_session_start("{\"name\":\"runtime\",\"output\":\"/traces/runtime.json\",\"compression\":\"none\"}", &id);
  return id;
}

int main(void) {
  WT_SCOPE("pool_main");
  pthread_t t;
  int rc = pthread_create(&t, NULL, app_thread, NULL);
  if (rc == 0) pthread_join(t, NULL);
  EM_ASM({ self.poolResult = $0; }, rc);
  return 0;
}
