/* JS API test app: main() says that it ran (the page checks that a hostile
 * config never stops it), and page JS can make the runtime abort or trap. */
#include <emscripten.h>
#include <stdio.h>
#include <stdlib.h>

#include <wasmtrace/wasmtrace.h>

/* abort(): Emscripten marks the runtime dead (ABORT) and calls onAbort. */
EMSCRIPTEN_KEEPALIVE void shim_abort(void) { abort(); }

/* A wasm trap ("unreachable"): the exception reaches the caller; Emscripten
 * keeps the runtime alive. */
EMSCRIPTEN_KEEPALIVE void shim_trap(void) { __builtin_trap(); }

int main(void) {
  WT_SCOPE("shim_main");
  printf("shim main ran\n");
  EM_ASM({ self.shimMainRan = true; });
  return 0;
}
