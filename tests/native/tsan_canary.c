/* A deliberate data race, built only in the thread-sanitizer tree
 * (build/tsan): expect_tsan_report.sh checks that TSan reports it and that
 * the run fails, so a clean TSan run of the real tests means something.
 * Each side writes many times: one write a side went unreported once, in a
 * run of the whole suite beside two CPU hogs. */
#include <pthread.h>
#include <stdio.h>

static volatile int shared_counter; /* written by two threads, no lock: the race */

#define WRITES 100000

static void *bump(void *arg) {
  (void)arg;
  for (int i = 0; i < WRITES; i++) shared_counter++;
  return NULL;
}

int main(void) {
  pthread_t t;
  if (pthread_create(&t, NULL, bump, NULL) != 0) return 2;
  for (int i = 0; i < WRITES; i++) shared_counter++; /* unordered with the other thread's until the join */
  pthread_join(t, NULL);
  printf("counter %d\n", shared_counter > 0);
  return 0;
}
