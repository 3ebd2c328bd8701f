/* Messages for status codes and session states (public header). */
#include "wasmtrace/wasmtrace.h"

const char *wt_status_str(wt_status status) {
  switch (status) {
    case WT_OK: return "ok";
    case WT_ERR_INVALID_ARG: return "invalid argument";
    case WT_ERR_CONFIG: return "invalid config";
    case WT_ERR_NO_MEMORY: return "out of memory";
    case WT_ERR_THREAD:
      return "the wasmtrace worker thread could not be started (is a pthread pool slot free? "
             "link with -sPTHREAD_POOL_SIZE=<app threads + 1>)";
    case WT_ERR_IO: return "output file error";
    case WT_ERR_STATE: return "not allowed in the current state";
    case WT_ERR_LIMIT: return "limit reached";
    case WT_ERR_NOT_FOUND: return "no such session";
    case WT_ERR_UNSUPPORTED: return "not supported by this build";
  }
  return "unknown status";
}

const char *wt_session_state_str(wt_session_state state) {
  switch (state) {
    case WT_SESSION_STARTING: return "starting";
    case WT_SESSION_RUNNING: return "running";
    case WT_SESSION_STOPPING: return "stopping";
    case WT_SESSION_STOPPED: return "stopped";
    case WT_SESSION_FAILED: return "failed";
  }
  return "failed";
}
