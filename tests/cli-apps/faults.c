/* A small app for the faults `wasmtrace record` must survive: main() works a
 * little (so there is something to sample), and aborts when its first
 * argument is "abort", or works `ms` more without yielding when its
 * arguments are "busy <ms>" (a long startup: main() keeps the page's main
 * thread busy); faults_abort() aborts on demand (the page calls it). */
#include <emscripten.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned sink;

static void work(double ms) {
  double t0 = emscripten_get_now();
  while (emscripten_get_now() - t0 < ms) sink += 1;
}

EMSCRIPTEN_KEEPALIVE void faults_abort(void) { abort(); }

int main(int argc, char **argv) {
  work(50);
  if (argc > 1 && strcmp(argv[1], "abort") == 0) abort();
  if (argc > 2 && strcmp(argv[1], "busy") == 0) work(atof(argv[2]));
  return 0;
}
