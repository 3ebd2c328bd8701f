/* Pacing for the heap test apps at one sample per allocation, where the
 * tests want nothing dropped. A sampled allocation waits in the shim's
 * bounded queue until wasmtrace's worker drains it (native/src/heap.h);
 * the shim never waits, so on a loaded machine a loop of small blocks can
 * fill the queue (or the address set, which grows on the worker's drain)
 * faster than the worker runs. The app waits instead: while a quarter of
 * the queue is undrained, it sleeps a millisecond at a time (the shim
 * wakes the worker at each quarter). A worker that does not drain for 5 s
 * (the session failed) ends the waiting for good, and the drops are then
 * counted as usual. Not product code: wt_heap_backlog is internal. */
#ifndef WT_TEST_HEAP_PACE_H
#define WT_TEST_HEAP_PACE_H

#include <unistd.h>

#include "heap.h"

static volatile int pace_gave_up;

static void pace_wait_for_worker(void) {
  for (int ms = 0; !pace_gave_up && wt_heap_backlog() >= WT_HEAP_QUEUE / 4; ms++) {
    if (ms == 5000) pace_gave_up = 1;
    else usleep(1000);
  }
}

#endif
