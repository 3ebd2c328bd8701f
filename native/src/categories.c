/* The category masks: which categories each session records, and their
 * union, which the hot path reads with one relaxed load. */
#include "categories.h"

#include <pthread.h>
#include <stdatomic.h>

#include "registry.h"
#include "runtime.h"

/* Not in wt_rt on purpose: see runtime.h. */
_Atomic uint64_t wt_i_category_mask;

void wt_categories_force(uint64_t mask) {
  pthread_mutex_lock(&wt_rt.categories_mutex);
  wt_rt.categories_forced = mask;
  pthread_mutex_unlock(&wt_rt.categories_mutex);
  wt_runtime_update_categories();
}

void wt_runtime_update_categories(void) {
  pthread_mutex_lock(&wt_rt.categories_mutex);
  uint32_t ncat = wt_registry_category_count();
  uint64_t all = wt_rt.categories_forced;
  int n = atomic_load_explicit(&wt_rt.session_count, memory_order_acquire);
  for (int i = 0; i < n; i++) {
    wt_session *s = wt_rt.sessions[i];
    int st = atomic_load_explicit(&s->state, memory_order_acquire);
    uint64_t mask = 0;
    if (st == WT_SESSION_STARTING || st == WT_SESSION_RUNNING) {
      for (uint32_t c = 0; c < ncat; c++)
        if (wt_config_category_enabled(&s->config, wt_registry_category_name(c))) mask |= 1ull << c;
    }
    atomic_store_explicit(&s->cat_mask, mask, memory_order_relaxed);
    all |= mask;
  }
  atomic_store_explicit(&wt_i_category_mask, all, memory_order_relaxed);
  pthread_mutex_unlock(&wt_rt.categories_mutex);
}
