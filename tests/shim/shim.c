/* JS API test app: main() says that it ran (the page checks that a hostile
 * config never stops it), and page JS can make the runtime abort or trap. */
#include <emscripten.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <wasmtrace/wasmtrace.h>

/* abort(): Emscripten marks the runtime dead (ABORT) and calls onAbort. */
EMSCRIPTEN_KEEPALIVE void shim_abort(void) { abort(); }

static void *abort_thread(void *arg) {
  (void)arg;
  abort();
  return NULL;
}

/* abort() on a pthread: Emscripten passes it to the main thread's onAbort. */
EMSCRIPTEN_KEEPALIVE int shim_abort_in_thread(void) {
  pthread_t t;
  int rc = pthread_create(&t, NULL, abort_thread, NULL);
  if (rc == 0) pthread_detach(t);
  return rc;
}

/* A wasm trap ("unreachable"): the exception reaches the caller; Emscripten
 * keeps the runtime alive. */
EMSCRIPTEN_KEEPALIVE void shim_trap(void) { __builtin_trap(); }

/* Ends the runtime for real (shim_exit is linked with -sEXIT_RUNTIME=1):
 * atexit, every pthread terminated, onExit. */
EMSCRIPTEN_KEEPALIVE void shim_force_exit(int status) { emscripten_force_exit(status); }

int main(void) {
  WT_SCOPE("shim_main");
  printf("shim main ran\n");
  EM_ASM({ self.shimMainRan = true; });
#ifdef SHIM_LIVE_RUNTIME
  /* With -sEXIT_RUNTIME=1 returning would end the runtime now. */
  emscripten_exit_with_live_runtime();
#endif
  return 0;
}
