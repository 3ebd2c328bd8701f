/* The config's top-level "server" object (docs/PROTOCOL.md): read by the JS
 * shim, which owns the connection; parsed here too so that a bad one gets
 * the same key-path message as a bad session, printed once. */
#include <string.h>

#include "config_read.h"

/* The "server" object: the same rules as js/wasmtrace_post.js's
 * serverConfig (the shim acts on it before this parser runs). */
int wt_config_parse_server(const cJSON *obj, wt_server_config *c, const wt_cfg_ctx *ctx, char *err,
                           size_t cap) {
  static const char *const keys[] = {"url", "suspend", "suspendTimeoutMs", "token", "reconnectMs",
                                     NULL};
  const cJSON *v;
  c->suspend_timeout_ms = 10000;
  c->reconnect_ms = 2000;
  if (!cJSON_IsObject(obj)) {
    wt_cfg_fail(err, cap, "server", "expected an object, got %s", wt_cfg_type_name(obj));
    return 0;
  }
  if (!wt_cfg_check_keys(obj, "server", keys, ctx, err, cap)) return 0;
  v = cJSON_GetObjectItemCaseSensitive(obj, "url");
  if (!v) {
    wt_cfg_fail(err, cap, "server.url", "missing (expected the router's ws:// or wss:// URL)");
    return 0;
  }
  if (!wt_cfg_get_string(v, "server.url", c->url, sizeof c->url, WT_SERVER_URL_CHARS, ctx, err, cap))
    return 0;
  if (strncmp(c->url, "ws://", 5) != 0 && strncmp(c->url, "wss://", 6) != 0) {
    wt_cfg_fail(err, cap, "server.url", "expected a ws:// or wss:// URL, got \"%.80s\"", c->url);
    return 0;
  }
  for (const unsigned char *p = (const unsigned char *)c->url; *p; p++) {
    if (*p <= ' ' || *p == 0x7f) {
      wt_cfg_fail(err, cap, "server.url", "contains a space or control character");
      return 0;
    }
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "suspend"))) {
    if (!cJSON_IsBool(v)) {
      wt_cfg_fail(err, cap, "server.suspend", "expected true or false, got %s", wt_cfg_type_name(v));
      return 0;
    }
    c->suspend = cJSON_IsTrue(v);
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "suspendTimeoutMs")) &&
      !wt_cfg_get_uint(v, "server.suspendTimeoutMs", 0, 600000, &c->suspend_timeout_ms, err, cap))
    return 0;
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "reconnectMs")) &&
      !wt_cfg_get_uint(v, "server.reconnectMs", 0, 600000, &c->reconnect_ms, err, cap))
    return 0;
  if ((v = cJSON_GetObjectItemCaseSensitive(obj, "token"))) {
    if (!wt_cfg_get_string(v, "server.token", c->token, sizeof c->token, WT_SERVER_TOKEN_CHARS, ctx, err,
                           cap))
      return 0;
    for (const char *p = c->token; *p; p++) {
      if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '_' || *p == '.' || *p == '~')) {
        wt_cfg_fail(err, cap, "server.token", "may contain only letters, digits, '-', '_', '.' and '~'");
        return 0;
      }
    }
  }
  return 1;
}
