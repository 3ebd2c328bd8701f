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

#endif
