/* A deliberate data race, built only in the thread-sanitizer tree
 * (build/tsan): expect_tsan_report.sh checks that TSan reports it and that
 * the run fails, so a clean TSan run of the real tests means something. */
#include <pthread.h>
#include <stdio.h>

static int shared_counter; /* written by two threads, no lock: the race */

static void *bump(void *arg) {
  (void)arg;
  shared_counter++;
  return NULL;
}

int main(void) {
  pthread_t t;
  if (pthread_create(&t, NULL, bump, NULL) != 0) return 2;
  shared_counter++; /* unordered with the other thread's write until the join */
  pthread_join(t, NULL);
  printf("counter %d\n", shared_counter);
  return 0;
}
