/* libFuzzer target for the config parser (host build, clang):
 * any bytes given as a config blob or a runtime session object must parse
 * or fail with a message, never crash, leak, or break an invariant. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_read.h"

/* The recorders' keys come from their registry (recorders.c), which this
 * target does not link (it would bring the whole runtime): it stands in
 * with a key of the heap recorder's shape, so that the parser's hand-off to
 * a recorder's reader and the switch reader are fuzzed too. */
static int read_switch_key(const cJSON *v, const char *path, uint32_t options[WT_RECORDER_OPTIONS],
                           const wt_cfg_ctx *ctx, char *err, size_t cap) {
  int on = 1;
  uint32_t bytes = 524288;
  if (!wt_config_read_switch(v, path, "heap", "sampleBytes", 1, 1u << 30, &on, &bytes, ctx, err, cap)) return 0;
  options[0] = on ? bytes : 0;
  return 1;
}

const wt_config_key *wt_config_recorder_key(int i, int *owner) {
  static const wt_config_key heap = {"heap", read_switch_key};
  if (i != 0) return NULL;
  *owner = 1; /* any index: this stub reads its own options back */
  return &heap;
}

#define REQUIRE(cond) \
  do {                \
    if (!(cond)) abort(); \
  } while (0)

static void check_session(const wt_session_config *c) {
  REQUIRE(c->name[0] != '\0' && memchr(c->name, '\0', sizeof c->name));
  REQUIRE(c->output[0] == '/' && memchr(c->output, '\0', sizeof c->output));
  REQUIRE(c->interval_us >= 50 && c->interval_us <= 1000000);
  REQUIRE(c->max_buffer_kb >= 64 && c->max_buffer_kb <= 1048576);
  REQUIRE(c->gzip_level >= 1 && c->gzip_level <= 9);
  REQUIRE(c->category_count >= 0 && c->category_count <= WT_MAX_CATEGORIES);
  REQUIRE(c->counter_interval_ms >= 1 && c->counter_interval_ms <= 60000);
  REQUIRE(c->recorder_options[1][0] <= (1u << 30));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';

  static wt_config config;
  char err[WT_ERROR_MAX];
  wt_status st = wt_config_parse(text, size, &config, err, sizeof err);
  if (st == WT_OK) {
    REQUIRE(config.count >= 0 && config.count <= WT_MAX_SESSIONS);
    for (int i = 0; i < config.count; i++) {
      const wt_config_entry *e = &config.sessions[i];
      if (e->valid) check_session(&e->config);
      else REQUIRE(e->error[0] != '\0' && memchr(e->error, '\0', sizeof e->error));
    }
  } else {
    REQUIRE(st == WT_ERR_CONFIG && err[0] != '\0');
  }

  wt_session_config one;
  st = wt_config_parse_session(text, size, "fuzz", &one, err, sizeof err);
  if (st == WT_OK) check_session(&one);
  else REQUIRE(err[0] != '\0');
  free(text);
  return 0;
}
