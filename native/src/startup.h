/* Startup sessions: the ones the config blob describes, started before
 * main() in the wasm build. */
#ifndef WT_STARTUP_H
#define WT_STARTUP_H

/* Reads the startup config blob (wt_platform_read_config) and starts its
 * sessions, all adopted by the worker in the same iteration, so that they
 * share every sampling tick, the first included. A config error is kept
 * (wt_startup_config_error) and printed once. Main thread. */
void wt_runtime_start_from_config(void);

/* Number of sessions the startup config started. */
int wt_startup_count(void);

/* The session id of startup session i, or -1. */
int wt_startup_id(int i);

/* The startup config's error, "" if none. */
const char *wt_startup_config_error(void);

#endif
