/* Names of wasm functions for the -finstrument-functions frames (table
 * indices). Resolved once per unique function, on the worker, off the
 * sampling path; the cache is worker-private. */
#ifndef WT_SYMBOLS_H
#define WT_SYMBOLS_H

#include <stdint.h>

/* The name of the function at wasm table index `table_index`, as
 * wt_platform_function_name gives it: from the wasm name section when the
 * build kept it (--profiling-funcs or -g), else
 * "wasm-function[<function index>]" when the engine tells the function
 * index; else (or if the slot holds no function) "wasm-table[<table
 * index>]", which names the slot and not a function index, so that a
 * symbolicator mapping function indices to names leaves it alone. The
 * host build says "function[<table index>]". Never NULL; the string lives
 * until wt_symbols_reset. Worker only. */
const char *wt_symbols_function_name(uint32_t table_index);

/* Frees the cache: wt_runtime_reset_for_testing only. */
void wt_symbols_reset(void);

#endif
