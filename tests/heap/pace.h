/* Pacing for the heap test apps at one sample per allocation, where the
 * tests want nothing dropped. A sampled allocation waits in the shim's
 * bounded queue until wasmtrace's worker drains it (native/src/heap.h);
 * the shim never waits, so on a loaded machine a loop of small blocks can
 * fill the queue (or the address set, which grows on the worker's drain)
 * faster than the worker runs. The app waits instead: while a quarter of
 * the queue is undrained, it sleeps a millisecond at a time (the shim
 * wakes the worker at each quarter). A worker that never drains (the
 * session failed) stops the waiting after 5 s in all, and the drops are
 * then counted as usual. Not product code: wt_heap_backlog is internal. */
#ifndef WT_TEST_HEAP_PACE_H
#define WT_TEST_HEAP_PACE_H

#include <unistd.h>

#include "heap.h"

static int pace_waited_ms;

static void pace_wait_for_worker(void) {
  while (pace_waited_ms < 5000 && wt_heap_backlog() >= WT_HEAP_QUEUE / 4) {
    usleep(1000);
    pace_waited_ms++;
  }
}

#endif
