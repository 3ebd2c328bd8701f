/* The clone-suffix test app's four workers (one per file). */
#ifndef CLONES_H
#define CLONES_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Written by every helper, so that none is optimized away. */
extern volatile uint32_t clones_sink;
uint32_t clones_a(uint32_t n);
uint32_t clones_b(uint32_t n);
uint32_t clones_c(uint32_t n);
uint32_t clones_d(uint32_t n);
#ifdef __cplusplus
}
#endif
#endif
