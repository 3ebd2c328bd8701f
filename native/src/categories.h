/* Which event categories are recorded: per session, and the process-wide
 * mask the hot path reads (wt_i_category_mask, registry.h). */
#ifndef WT_CATEGORIES_H
#define WT_CATEGORIES_H

#include <stdint.h>

/* Recomputes which categories each live session records, and the global
 * mask the hot path reads. Call it when a session starts or ends, or when a
 * new category is interned. Any thread; takes a mutex of its own, never
 * held while waiting. */
void wt_runtime_update_categories(void);

/* Sets the categories recorded as if a running session wanted them (tests:
 * wt_runtime_reset_for_testing), and updates the masks. */
void wt_categories_force(uint64_t mask);

#endif
