/* The clone-suffix test app: main calls the four workers in turn for about
 * `ms` milliseconds (argv[1], default 400) while a startup session samples,
 * then tells the page (self.clonesDone). */
#include <emscripten.h>
#include <stdlib.h>

#include "clones.h"

volatile uint32_t clones_sink;

int main(int argc, char **argv) {
  double ms = argc > 1 ? atof(argv[1]) : 400;
  double end = emscripten_get_now() + ms;
  uint32_t s = 0;
  while (emscripten_get_now() < end) s += clones_a(2000) + clones_b(2000) + clones_c(2000) + clones_d(2000);
  clones_sink = s;
  EM_ASM(self.clonesDone = true);
  return 0;
}
