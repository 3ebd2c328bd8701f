/* The session table behind the public session API (api.c). */
#ifndef WT_API_H
#define WT_API_H

#include "session.h"

/* Adds a session to the table: in state STARTING if `error` is empty and
 * the session can run, else FAILED with `error` (or the reason it cannot
 * run: too many live sessions, output in use, no worker, no memory), which
 * is printed once. Sets *out_id (may be NULL) to its id whenever the table
 * had room, then wakes the worker. Any thread. */
wt_status wt_api_add_session(const wt_session_config *config, const char *error, int *out_id);

/* Why the calling thread's last wt_api_add_session returned no id (no
 * memory even for the session's record), or "": the failure the shim
 * reports for a session with id -1. */
const char *wt_api_no_record_error(void);

#endif
