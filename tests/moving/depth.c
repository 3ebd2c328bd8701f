/* How deep an instrumented recursion goes on the page's main thread before
 * the browser's stack overflows (issue 23): the hooks, inlined into every
 * instrumented function (-flto), add their values to its frame. Built three
 * ways (tests/moving/CMakeLists.txt): with wasmtrace's hooks, with empty
 * hooks of the app's own (depth_empty_hooks.c), and not instrumented.
 * tests/node/hook-frame.test.mjs compares the wasm locals of recurse() in
 * the first two; bench/depth.mjs measures the depths in Chromium. */
#include <emscripten.h>

static volatile int sink;

/* Not a tail call (the result is used after the call), not inlined. */
__attribute__((noinline)) int recurse(int n) {
  if (n <= 0) return 0;
  int r = recurse(n - 1);
  sink = r;
  return r * 3 + n;
}

EMSCRIPTEN_KEEPALIVE int depth_run(int n) { return recurse(n); }

int main(void) { return 0; }
