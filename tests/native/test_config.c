/* Config blob parsing: defaults, every key, and the exact error message of
 * each kind of bad input (config.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cJSON.h"
#include "config.h"
#include "outputs.h"
#include "wt_test.h"

/* ---- helpers ------------------------------------------------------------ */

static wt_config cfg; /* large: keep it off the stack */

static wt_status parse(const char *json, char *err, size_t cap) {
  return wt_config_parse(json, strlen(json), &cfg, err, cap);
}

/* A string of n copies of c (static buffer, one live at a time per slot). */
static const char *repeat(int slot, char c, size_t n) {
  static char bufs[2][512];
  memset(bufs[slot], c, n);
  bufs[slot][n] = '\0';
  return bufs[slot];
}

static void check_defaults(const wt_session_config *c, const char *name, const char *output) {
  CHECK_EQ_STR(c->name, name);
  CHECK_EQ_STR(c->output, output);
  CHECK_EQ_INT(c->format, WT_FORMAT_CHROME);
  CHECK_EQ_INT(c->gzip, 1);
  CHECK_EQ_INT(c->gzip_level, 1);
  CHECK_EQ_INT(c->sampling, 1);
  CHECK_EQ_INT(c->interval_us, 1000);
  CHECK_EQ_INT(c->duration_ms, 0);
  CHECK_EQ_INT(c->max_buffer_kb, 16384);
  CHECK_EQ_INT(c->when_full, WT_FULL_STOP);
  CHECK_EQ_INT(c->category_count, 1);
  CHECK_EQ_STR(c->categories[0], "*");
}

/* ---- good blobs --------------------------------------------------------- */

WT_TEST(config_should_fill_defaults_for_an_empty_session_object) {
  char err[WT_ERROR_MAX];
  REQUIRE_EQ_INT(parse("{\"sessions\":[{}]}", err, sizeof err), WT_OK);
  CHECK_EQ_STR(err, "");
  REQUIRE_EQ_INT(cfg.count, 1);
  CHECK(cfg.sessions[0].valid);
  CHECK_EQ_STR(cfg.sessions[0].error, "");
  check_defaults(&cfg.sessions[0].config, "startup", "/traces/startup.json.gz");
}

WT_TEST(config_should_name_later_sessions_startup_dash_index) {
  char err[WT_ERROR_MAX];
  REQUIRE_EQ_INT(parse("{\"sessions\":[{},{},{}]}", err, sizeof err), WT_OK);
  REQUIRE_EQ_INT(cfg.count, 3);
  for (int i = 0; i < 3; i++) CHECK(cfg.sessions[i].valid);
  check_defaults(&cfg.sessions[0].config, "startup", "/traces/startup.json.gz");
  check_defaults(&cfg.sessions[1].config, "startup-1", "/traces/startup-1.json.gz");
  check_defaults(&cfg.sessions[2].config, "startup-2", "/traces/startup-2.json.gz");
}

WT_TEST(config_should_accept_an_empty_sessions_array) {
  char err[WT_ERROR_MAX];
  CHECK_EQ_INT(parse("{\"sessions\":[]}", err, sizeof err), WT_OK);
  CHECK_EQ_INT(cfg.count, 0);
  CHECK_EQ_STR(err, "");
}

WT_TEST(config_should_accept_schema_and_version_keys) {
  char err[WT_ERROR_MAX];
  CHECK_EQ_INT(parse("{\"$schema\":\"./wasmtrace.schema.json\",\"version\":1,\"sessions\":[{}]}",
                     err, sizeof err),
               WT_OK);
  CHECK_EQ_STR(err, "");
  CHECK_EQ_INT(cfg.count, 1);
  CHECK(cfg.sessions[0].valid);
}

WT_TEST(config_should_read_every_key_of_a_full_session) {
  char err[WT_ERROR_MAX];
  const char *json =
      "{\"sessions\":[{\"name\":\"boot.v2_x-1\",\"output\":\"/out/boot.json.gz\","
      "\"format\":\"chrome\",\"compression\":\"gzip\",\"compressionLevel\":9,"
      "\"sampling\":{\"enabled\":false,\"intervalUs\":250},\"categories\":[\"app\",\"gfx*\"],"
      "\"durationMs\":5000,\"maxBufferKB\":2048,\"whenFull\":\"ring\"}]}";
  REQUIRE_EQ_INT(parse(json, err, sizeof err), WT_OK);
  REQUIRE_EQ_INT(cfg.count, 1);
  REQUIRE(cfg.sessions[0].valid);
  const wt_session_config *c = &cfg.sessions[0].config;
  CHECK_EQ_STR(c->name, "boot.v2_x-1");
  CHECK_EQ_STR(c->output, "/out/boot.json.gz");
  CHECK_EQ_INT(c->format, WT_FORMAT_CHROME);
  CHECK_EQ_INT(c->gzip, 1);
  CHECK_EQ_INT(c->gzip_level, 9);
  CHECK_EQ_INT(c->sampling, 0);
  CHECK_EQ_INT(c->interval_us, 250);
  CHECK_EQ_INT(c->duration_ms, 5000);
  CHECK_EQ_INT(c->max_buffer_kb, 2048);
  CHECK_EQ_INT(c->when_full, WT_FULL_RING);
  CHECK_EQ_INT(c->category_count, 2);
  CHECK_EQ_STR(c->categories[0], "app");
  CHECK_EQ_STR(c->categories[1], "gfx*");
}

WT_TEST(config_should_derive_the_default_output_from_name_and_compression) {
  char err[WT_ERROR_MAX];
  REQUIRE_EQ_INT(parse("{\"sessions\":[{\"name\":\"boot\",\"compression\":\"none\"},"
                       "{\"name\":\"late\",\"compression\":\"gzip\"}]}",
                       err, sizeof err),
                 WT_OK);
  REQUIRE_EQ_INT(cfg.count, 2);
  CHECK(cfg.sessions[0].valid);
  CHECK_EQ_INT(cfg.sessions[0].config.gzip, 0);
  CHECK_EQ_STR(cfg.sessions[0].config.output, "/traces/boot.json");
  CHECK(cfg.sessions[1].valid);
  CHECK_EQ_INT(cfg.sessions[1].config.gzip, 1);
  CHECK_EQ_STR(cfg.sessions[1].config.output, "/traces/late.json.gz");
}

WT_TEST(config_should_accept_every_limit_inclusive) {
  char err[WT_ERROR_MAX];
  char json[4096];
  snprintf(json, sizeof json,
           "{\"sessions\":["
           "{\"name\":\"%s\",\"output\":\"/%s\",\"sampling\":{\"intervalUs\":50},"
           "\"durationMs\":0,\"maxBufferKB\":64,\"compressionLevel\":1,"
           "\"categories\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\",\"k\","
           "\"l\",\"m\",\"n\",\"o\",\"%s\"]},"
           "{\"name\":\"b\",\"sampling\":{\"intervalUs\":1000000},\"durationMs\":3600000,"
           "\"maxBufferKB\":1048576,\"compressionLevel\":9,\"categories\":[]}]}",
           repeat(0, 'n', WT_NAME_MAX - 1), repeat(1, 'o', WT_PATH_CHARS - 1),
           "0123456789012345678901234567890");
  REQUIRE_EQ_INT(parse(json, err, sizeof err), WT_OK);
  REQUIRE_EQ_INT(cfg.count, 2);
  CHECK_EQ_STR(cfg.sessions[0].error, "");
  CHECK_EQ_STR(cfg.sessions[1].error, "");
  const wt_session_config *a = &cfg.sessions[0].config, *b = &cfg.sessions[1].config;
  CHECK_EQ_INT(strlen(a->name), WT_NAME_MAX - 1);
  CHECK_EQ_INT(strlen(a->output), WT_PATH_CHARS);
  CHECK_EQ_INT(a->interval_us, 50);
  CHECK_EQ_INT(a->max_buffer_kb, 64);
  CHECK_EQ_INT(a->gzip_level, 1);
  CHECK_EQ_INT(a->category_count, 16);
  CHECK_EQ_STR(a->categories[15], "0123456789012345678901234567890");
  CHECK_EQ_INT(b->interval_us, 1000000);
  CHECK_EQ_INT(b->duration_ms, 3600000);
  CHECK_EQ_INT(b->max_buffer_kb, 1048576);
  CHECK_EQ_INT(b->gzip_level, 9);
  CHECK_EQ_INT(b->category_count, 0);
}

WT_TEST(config_should_accept_sixteen_sessions) {
  char err[WT_ERROR_MAX];
  char json[512] = "{\"sessions\":[";
  for (int i = 0; i < WT_MAX_SESSIONS; i++) strcat(json, i ? ",{}" : "{}");
  strcat(json, "]}");
  REQUIRE_EQ_INT(parse(json, err, sizeof err), WT_OK);
  REQUIRE_EQ_INT(cfg.count, WT_MAX_SESSIONS);
  for (int i = 0; i < WT_MAX_SESSIONS; i++) CHECK(cfg.sessions[i].valid);
  CHECK_EQ_STR(cfg.sessions[15].config.name, "startup-15");
}

WT_TEST(config_should_accept_integers_written_as_exponent_or_with_zero_fraction) {
  char err[WT_ERROR_MAX];
  REQUIRE_EQ_INT(parse("{\"sessions\":[{\"sampling\":{\"intervalUs\":2e3},\"durationMs\":10.0}]}",
                       err, sizeof err),
                 WT_OK);
  REQUIRE(cfg.sessions[0].valid);
  CHECK_EQ_INT(cfg.sessions[0].config.interval_us, 2000);
  CHECK_EQ_INT(cfg.sessions[0].config.duration_ms, 10);
}

WT_TEST(config_should_accept_the_example_config_shipped_in_config_dir) {
  FILE *f = fopen(WT_SOURCE_DIR "/config/example.json", "rb");
  REQUIRE(f != NULL);
  char text[8192];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  char err[WT_ERROR_MAX];
  REQUIRE_EQ_INT(wt_config_parse(text, n, &cfg, err, sizeof err), WT_OK);
  REQUIRE(cfg.count >= 1);
  for (int i = 0; i < cfg.count; i++) CHECK_EQ_STR(cfg.sessions[i].error, "");
}

static char *read_source_file(const char *rel) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", WT_SOURCE_DIR, rel);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static char text[65536];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  return text;
}

/* Every key the schema documents (session level and one level down) is a
 * key the parser knows, and the example config uses every one of them. */
WT_TEST(config_parser_schema_and_example_should_agree_on_every_key) {
  char *schema_text = read_source_file("config/wasmtrace.schema.json");
  REQUIRE(schema_text != NULL);
  cJSON *schema = cJSON_Parse(schema_text);
  REQUIRE(schema != NULL);
  const cJSON *props = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(schema, "$defs"), "session"),
      "properties");
  REQUIRE(props != NULL);
  char *example_text = read_source_file("config/example.json");
  REQUIRE(example_text != NULL);
  cJSON *example = cJSON_Parse(example_text);
  REQUIRE(example != NULL);
  const cJSON *ex = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(example, "sessions"), 0);
  REQUIRE(ex != NULL);
  int keys = 0;
  for (const cJSON *p = props->child; p; p = p->next) {
    const cJSON *sub = cJSON_GetObjectItemCaseSensitive(p, "properties");
    for (const cJSON *q = sub ? sub->child : p; q; q = sub ? q->next : NULL) {
      char json[256], err[WT_ERROR_MAX], path[128];
      /* A value of the wrong type: the parser must name the key's type
       * problem, not call the key unknown. */
      if (sub) {
        snprintf(json, sizeof json, "{\"sessions\":[{\"%s\":{\"%s\":[[]]}}]}", p->string, q->string);
        snprintf(path, sizeof path, "sessions[0].%s.%s", p->string, q->string);
      } else {
        snprintf(json, sizeof json, "{\"sessions\":[{\"%s\":[[]]}]}", p->string);
        snprintf(path, sizeof path, "sessions[0].%s", p->string);
      }
      CHECK_EQ_INT(parse(json, err, sizeof err), WT_OK);
      const char *msg = cfg.sessions[0].error;
      CHECK(strncmp(msg, path, strlen(path)) == 0);
      CHECK(strstr(msg, "unknown key") == NULL);
      /* ... and the example sets it. */
      const cJSON *in_example = cJSON_GetObjectItemCaseSensitive(ex, p->string);
      if (sub && in_example) in_example = cJSON_GetObjectItemCaseSensitive(in_example, q->string);
      if (!in_example) fprintf(stderr, "    config/example.json lacks %s%s%s\n", p->string, sub ? "." : "", sub ? q->string : "");
      CHECK(in_example != NULL);
      keys++;
    }
  }
  CHECK(keys >= 13);
  cJSON_Delete(schema);
  cJSON_Delete(example);
}

WT_TEST(config_should_read_only_len_bytes_of_unterminated_text) {
  /* Exactly len bytes on the heap and no NUL: ASan catches any over-read. */
  const char *json = "{\"sessions\":[{\"name\":\"edge\",\"durationMs\":12}]}";
  size_t len = strlen(json);
  char *copy = malloc(len);
  REQUIRE(copy != NULL);
  memcpy(copy, json, len);
  char err[WT_ERROR_MAX];
  CHECK_EQ_INT(wt_config_parse(copy, len, &cfg, err, sizeof err), WT_OK);
  CHECK_EQ_INT(cfg.count, 1);
  CHECK_EQ_STR(cfg.sessions[0].config.name, "edge");
  CHECK_EQ_INT(cfg.sessions[0].config.duration_ms, 12);
  /* ... and a prefix that is malformed on its own. */
  CHECK_EQ_INT(wt_config_parse(copy, len - 1, &cfg, err, sizeof err), WT_ERR_CONFIG);
  free(copy);
}

WT_TEST(config_should_keep_valid_sessions_next_to_invalid_ones) {
  char err[WT_ERROR_MAX];
  REQUIRE_EQ_INT(parse("{\"sessions\":[{\"name\":\"good\"},{\"name\":\"bad\",\"sampling\":"
                       "{\"intervalUs\":1}},{\"name\":\"also-good\",\"durationMs\":100},42]}",
                       err, sizeof err),
                 WT_OK);
  CHECK_EQ_STR(err, "");
  REQUIRE_EQ_INT(cfg.count, 4);
  CHECK(cfg.sessions[0].valid);
  CHECK_EQ_STR(cfg.sessions[0].config.name, "good");
  CHECK_EQ_STR(cfg.sessions[0].config.output, "/traces/good.json.gz");
  CHECK(!cfg.sessions[1].valid);
  CHECK_EQ_STR(cfg.sessions[1].error,
               "sessions[1].sampling.intervalUs: expected an integer from 50 to 1000000, got 1");
  CHECK(cfg.sessions[2].valid);
  CHECK_EQ_STR(cfg.sessions[2].error, "");
  CHECK_EQ_STR(cfg.sessions[2].config.name, "also-good");
  CHECK_EQ_INT(cfg.sessions[2].config.duration_ms, 100);
  CHECK(!cfg.sessions[3].valid);
  CHECK_EQ_STR(cfg.sessions[3].error, "sessions[3]: expected an object, got a number");
}

WT_TEST(config_should_not_compare_outputs_with_invalid_sessions) {
  /* Session 0 is invalid, so session 1 may take the same output. */
  char err[WT_ERROR_MAX];
  REQUIRE_EQ_INT(parse("{\"sessions\":[{\"output\":\"/t/a.json\",\"whenFull\":1},"
                       "{\"output\":\"/t/a.json\"}]}",
                       err, sizeof err),
                 WT_OK);
  REQUIRE_EQ_INT(cfg.count, 2);
  CHECK(!cfg.sessions[0].valid);
  CHECK(cfg.sessions[1].valid);
  CHECK_EQ_STR(cfg.sessions[1].error, "");
}

WT_TEST(config_should_clear_a_stale_error_buffer_on_success) {
  char err[WT_ERROR_MAX];
  strcpy(err, "left over from before");
  CHECK_EQ_INT(parse("{\"sessions\":[]}", err, sizeof err), WT_OK);
  CHECK_EQ_STR(err, "");
  wt_session_config c;
  strcpy(err, "left over from before");
  CHECK_EQ_INT(wt_config_parse_session("{}", 2, "x", &c, err, sizeof err), WT_OK);
  CHECK_EQ_STR(err, "");
}

WT_TEST(config_should_truncate_messages_to_the_error_buffer) {
  /* An exact-size heap buffer: ASan catches a write past it. */
  char *err = malloc(16);
  REQUIRE(err != NULL);
  CHECK_EQ_INT(parse("{\"sessions\":{}}", err, 16), WT_ERR_CONFIG);
  CHECK_EQ_STR(err, "config.sessions");
  CHECK_EQ_INT(wt_config_parse("{", 1, &cfg, err, 16), WT_ERR_CONFIG);
  CHECK_EQ_STR(err, "config: malform");
  free(err);
}

WT_TEST(config_parse_session_should_use_the_default_name) {
  wt_session_config c;
  char err[WT_ERROR_MAX];
  REQUIRE_EQ_INT(wt_config_parse_session("{}", 2, "session-3", &c, err, sizeof err), WT_OK);
  check_defaults(&c, "session-3", "/traces/session-3.json.gz");
  const char *json = "{\"name\":\"later\",\"sampling\":{\"intervalUs\":500},\"compression\":\"none\"}";
  REQUIRE_EQ_INT(wt_config_parse_session(json, strlen(json), "session-4", &c, err, sizeof err),
                 WT_OK);
  CHECK_EQ_STR(c.name, "later");
  CHECK_EQ_STR(c.output, "/traces/later.json");
  CHECK_EQ_INT(c.interval_us, 500);
}

WT_TEST(config_category_enabled_should_match_star_exact_and_prefix_patterns) {
  wt_session_config c;
  wt_config_defaults(&c, "x");
  CHECK(wt_config_category_enabled(&c, "app"));
  CHECK(wt_config_category_enabled(&c, ""));
  c.category_count = 2;
  strcpy(c.categories[0], "app");
  strcpy(c.categories[1], "gfx*");
  CHECK(wt_config_category_enabled(&c, "app"));
  CHECK(!wt_config_category_enabled(&c, "application"));
  CHECK(!wt_config_category_enabled(&c, "ap"));
  CHECK(wt_config_category_enabled(&c, "gfx"));
  CHECK(wt_config_category_enabled(&c, "gfx.upload"));
  CHECK(!wt_config_category_enabled(&c, "gf"));
  CHECK(!wt_config_category_enabled(&c, "net"));
  c.category_count = 0;
  CHECK(!wt_config_category_enabled(&c, "app"));
}

/* ---- bad blobs: the exact message of each ------------------------------- */

/* index < 0: the whole blob is rejected (wt_config_parse fails, no
 * sessions); otherwise the blob is readable and sessions[index] is invalid. */
typedef struct bad_config {
  const char *json;
  int index;
  const char *message;
} bad_config;

#define UNKNOWN " unknown key (allowed: see config/wasmtrace.schema.json)"

static const bad_config bad_configs[] = {
    /* Text that is not a config object. */
    {"", -1, "config: empty text (expected a JSON object)"},
    {"{\"sessions\": [}", -1, "config: malformed JSON at line 1, column 15 (byte 14)"},
    {"{\"sessions\":[],}", -1, "config: malformed JSON at line 1, column 16 (byte 15)"},
    /* cJSON reports a bad or missing string opening one byte after it. */
    {"{'sessions':[]}", -1, "config: malformed JSON at line 1, column 3 (byte 2)"},
    {"{\n  \"sessions\": [\n    {\"name\": \"a\",}\n  ]\n}", -1,
     "config: malformed JSON at line 3, column 19 (byte 36)"},
    {"{\"sessions\":[{\"durationMs\":1O}]}", -1,
     "config: malformed JSON at line 1, column 29 (byte 28)"},
    {"[]", -1, "config: expected an object, got an array"},
    {"42", -1, "config: expected an object, got a number"},
    {"null", -1, "config: expected an object, got null"},
    {"\"sessions\"", -1, "config: expected an object, got a string"},
    /* The top level. */
    {"{}", -1, "config.sessions: missing (expected an array of session objects)"},
    {"{\"sessions\":{}}", -1, "config.sessions: expected an array, got an object"},
    {"{\"sessions\":\"startup\"}", -1, "config.sessions: expected an array, got a string"},
    {"{\"sessions\":null}", -1, "config.sessions: expected an array, got null"},
    {"{\"sessions\":[],\"extra\":true}", -1, "config.extra:" UNKNOWN},
    {"{\"Sessions\":[]}", -1, "config.Sessions:" UNKNOWN},
    {"{\"version\":2,\"sessions\":[]}", -1, "config.version: expected an integer from 1 to 1, got 2"},
    {"{\"version\":\"1\",\"sessions\":[]}", -1,
     "config.version: expected an integer from 1 to 1, got a string"},
    {"{\"sessions\":[{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}]}", -1,
     "config.sessions: at most 16 sessions, got 17"},
    /* A session. */
    {"{\"sessions\":[5]}", 0, "sessions[0]: expected an object, got a number"},
    {"{\"sessions\":[[]]}", 0, "sessions[0]: expected an object, got an array"},
    {"{\"sessions\":[{\"colour\":\"red\"}]}", 0, "sessions[0].colour:" UNKNOWN},
    {"{\"sessions\":[{},{\"interval\":5}]}", 1, "sessions[1].interval:" UNKNOWN},
    {"{\"sessions\":[{\"sampling\":{\"rate\":5}}]}", 0, "sessions[0].sampling.rate:" UNKNOWN},
    {"{\"sessions\":[{\"sampling\":5}]}", 0, "sessions[0].sampling: expected an object, got a number"},
    {"{\"sessions\":[{\"sampling\":{\"enabled\":\"yes\"}}]}", 0,
     "sessions[0].sampling.enabled: expected true or false, got a string"},
    {"{\"sessions\":[{\"sampling\":{\"enabled\":1}}]}", 0,
     "sessions[0].sampling.enabled: expected true or false, got a number"},
    /* Numbers: type, fraction and range. */
    {"{\"sessions\":[{\"sampling\":{\"intervalUs\":49}}]}", 0,
     "sessions[0].sampling.intervalUs: expected an integer from 50 to 1000000, got 49"},
    {"{\"sessions\":[{\"sampling\":{\"intervalUs\":100.5}}]}", 0,
     "sessions[0].sampling.intervalUs: expected an integer from 50 to 1000000, got 100.5"},
    {"{\"sessions\":[{\"sampling\":{\"intervalUs\":\"1000\"}}]}", 0,
     "sessions[0].sampling.intervalUs: expected an integer from 50 to 1000000, got a string"},
    {"{\"sessions\":[{\"sampling\":{\"intervalUs\":null}}]}", 0,
     "sessions[0].sampling.intervalUs: expected an integer from 50 to 1000000, got null"},
    {"{\"sessions\":[{},{},{\"sampling\":{\"intervalUs\":0}}]}", 2,
     "sessions[2].sampling.intervalUs: expected an integer from 50 to 1000000, got 0"},
    {"{\"sessions\":[{\"maxBufferKB\":63}]}", 0,
     "sessions[0].maxBufferKB: expected an integer from 64 to 1048576, got 63"},
    {"{\"sessions\":[{\"maxBufferKB\":true}]}", 0,
     "sessions[0].maxBufferKB: expected an integer from 64 to 1048576, got a boolean"},
    {"{\"sessions\":[{\"durationMs\":-1}]}", 0,
     "sessions[0].durationMs: expected an integer from 0 to 3600000, got -1"},
    {"{\"sessions\":[{\"durationMs\":{}}]}", 0,
     "sessions[0].durationMs: expected an integer from 0 to 3600000, got an object"},
    {"{\"sessions\":[{\"compressionLevel\":0}]}", 0,
     "sessions[0].compressionLevel: expected an integer from 1 to 9, got 0"},
    {"{\"sessions\":[{\"compressionLevel\":10}]}", 0,
     "sessions[0].compressionLevel: expected an integer from 1 to 9, got 10"},
    /* Names and paths. */
    {"{\"sessions\":[{\"name\":\"a b\"}]}", 0,
     "sessions[0].name: may contain only letters, digits, '-', '_' and '.', got \"a b\""},
    {"{\"sessions\":[{\"name\":\"../etc\"}]}", 0,
     "sessions[0].name: may contain only letters, digits, '-', '_' and '.', got \"../etc\""},
    {"{\"sessions\":[{\"name\":\"\"}]}", 0, "sessions[0].name: expected 1 to 63 characters, got 0"},
    {"{\"sessions\":[{\"name\":7}]}", 0, "sessions[0].name: expected a string, got a number"},
    {"{\"sessions\":[{\"output\":\"traces/x.json\"}]}", 0,
     "sessions[0].output: expected an absolute path on the VFS (starting with '/'), got "
     "\"traces/x.json\""},
    {"{\"sessions\":[{\"output\":\"\"}]}", 0, "sessions[0].output: expected 1 to 255 characters, got 0"},
    {"{\"sessions\":[{\"output\":[\"/a\"]}]}", 0, "sessions[0].output: expected a string, got an array"},
    {"{\"sessions\":[{\"name\":\"a\",\"output\":\"/t/x.json\"},{\"name\":\"b\",\"output\":\"/t/x.json\"}]}",
     1, "sessions[1].output: \"/t/x.json\" is already the output of sessions[0]"},
    {"{\"sessions\":[{\"name\":\"x\"},{\"name\":\"y\"},{\"name\":\"x\"}]}", 2,
     "sessions[2].output: \"/traces/x.json.gz\" is already the output of sessions[0]"},
    {"{\"sessions\":[{\"output\":\"/traces/startup-1.json.gz\"},{}]}", 1,
     "sessions[1].output: \"/traces/startup-1.json.gz\" is already the output of sessions[0]"},
    /* Enumerations. */
    {"{\"sessions\":[{\"format\":\"pprof\"}]}", 0,
     "sessions[0].format: unsupported format \"pprof\" (supported: \"chrome\", \"firefox\", \"folded\")"},
    {"{\"sessions\":[{\"counters\":{\"intervalMs\":0}}]}", 0,
     "sessions[0].counters.intervalMs: expected an integer from 1 to 60000, got 0"},
    {"{\"sessions\":[{\"counters\":{\"rate\":1}}]}", 0,
     "sessions[0].counters.rate: unknown key (allowed: see config/wasmtrace.schema.json)"},
    {"{\"sessions\":[{\"counters\":[]}]}", 0,
     "sessions[0].counters: expected an object, got an array"},
    {"{\"sessions\":[{\"format\":\"0123456789012345678901234567890123456789abcdef\"}]}", 0,
     "sessions[0].format: unsupported format \"0123456789012345678901234567890123456789\" "
     "(supported: \"chrome\", \"firefox\", \"folded\")"},
    {"{\"sessions\":[{\"format\":1}]}", 0, "sessions[0].format: expected a string, got a number"},
    {"{\"sessions\":[{\"compression\":\"zstd\"}]}", 0,
     "sessions[0].compression: expected \"gzip\" or \"none\", got a string \"zstd\""},
    {"{\"sessions\":[{\"compression\":false}]}", 0,
     "sessions[0].compression: expected \"gzip\" or \"none\", got a boolean"},
    {"{\"sessions\":[{\"whenFull\":\"drop\"}]}", 0,
     "sessions[0].whenFull: expected \"stop\" or \"ring\", got a string \"drop\""},
    {"{\"sessions\":[{\"whenFull\":null}]}", 0,
     "sessions[0].whenFull: expected \"stop\" or \"ring\", got null"},
    /* Categories. */
    {"{\"sessions\":[{\"categories\":\"app\"}]}", 0,
     "sessions[0].categories: expected an array of strings, got a string"},
    {"{\"sessions\":[{\"categories\":[\"app\",3]}]}", 0,
     "sessions[0].categories[1]: expected a string, got a number"},
    {"{\"sessions\":[{\"categories\":[\"\"]}]}", 0,
     "sessions[0].categories[0]: expected 1 to 31 characters, got 0"},
    {"{\"sessions\":[{\"categories\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\","
     "\"k\",\"l\",\"m\",\"n\",\"o\",\"p\",\"q\"]}]}",
     0, "sessions[0].categories: at most 16 categories, got 17"},
    /* Duplicate keys (issue 12): cJSON keeps the first, JSON.parse the last. */
    {"{\"sessions\":[],\"sessions\":[{}]}", -1,
     "config.sessions: duplicate key (each key may appear once per object)"},
    {"{\"sessions\":[{\"name\":\"a\",\"durationMs\":5,\"name\":\"b\"}]}", 0,
     "sessions[0].name: duplicate key (each key may appear once per object)"},
    {"{\"sessions\":[{\"sampling\":{\"enabled\":true,\"enabled\":false}}]}", 0,
     "sessions[0].sampling.enabled: duplicate key (each key may appear once per object)"},
    /* $schema is a string, as the schema says. */
    {"{\"$schema\":5,\"sessions\":[]}", -1,
     "config.$schema: expected a string (the schema's URL), got a number"},
    {"{\"$schema\":{},\"sessions\":[]}", -1,
     "config.$schema: expected a string (the schema's URL), got an object"},
    /* An escaped NUL would cut a value short. */
    {"{\"sessions\":[{\"name\":\"a\\u0000b\"}]}", 0,
     "sessions[0].name: contains \\u0000 (NUL), which no value may contain"},
    {"{\"sessions\":[{\"output\":\"/traces/a.json\\u0000.gz\"}]}", 0,
     "sessions[0].output: contains \\u0000 (NUL), which no value may contain"},
    {"{\"sessions\":[{\"categories\":[\"app\",\"\\u0000\"]}]}", 0,
     "sessions[0].categories[1]: contains \\u0000 (NUL), which no value may contain"},
    {"{\"sessions\":[{\"format\":\"chrome\\u0000x\"}]}", 0,
     "sessions[0].format: contains \\u0000 (NUL), which no value may contain"},
    {"{\"sessions\":[{\"whenFull\":\"ring\\u0000\"}]}", 0,
     "sessions[0].whenFull: contains \\u0000 (NUL), which no value may contain"},
    {"{\"sessions\":[{\"compression\":\"\\u0000none\"}]}", 0,
     "sessions[0].compression: contains \\u0000 (NUL), which no value may contain"},
    {"{\"sessions\":[{\"name\\u0000x\":\"a\"}]}", 0,
     "sessions[0]: a key contains \\u0000 (NUL), which no key may contain"},
    {"{\"sessions\\u0000\":[]}", -1, "config: a key contains \\u0000 (NUL), which no key may contain"},
    /* Outputs: canonical, never wasmtrace's config, a device or a directory. */
    {"{\"sessions\":[{\"output\":\"/traces/a/\"}]}", 0,
     "sessions[0].output: expected the path of a file, not of a directory (ending in '/'), got "
     "\"/traces/a/\""},
    {"{\"sessions\":[{\"output\":\"/traces/a/..\"}]}", 0,
     "sessions[0].output: expected the path of a file, not of a directory (ending in \".\" or "
     "\"..\"), got \"/traces/a/..\""},
    {"{\"sessions\":[{\"output\":\"/\"}]}", 0,
     "sessions[0].output: expected the path of a file, not of a directory (ending in '/'), got \"/\""},
    {"{\"sessions\":[{\"output\":\"//.\"}]}", 0,
     "sessions[0].output: expected the path of a file, not of a directory (ending in \".\" or "
     "\"..\"), got \"//.\""},
    {"{\"sessions\":[{\"output\":\"/wasmtrace.json\"}]}", 0,
     "sessions[0].output: \"/wasmtrace.json\" is wasmtrace's own config file, never an output"},
    {"{\"sessions\":[{\"output\":\"/traces/../x/./../wasmtrace.json\"}]}", 0,
     "sessions[0].output: \"/wasmtrace.json\" is wasmtrace's own config file, never an output"},
    {"{\"sessions\":[{\"output\":\"/dev/null\"}]}", 0,
     "sessions[0].output: \"/dev/null\" is a device or system file: outputs are regular files "
     "(e.g. under /traces/)"},
    {"{\"sessions\":[{\"output\":\"//dev//stdout\"}]}", 0,
     "sessions[0].output: \"/dev/stdout\" is a device or system file: outputs are regular files "
     "(e.g. under /traces/)"},
    {"{\"sessions\":[{\"output\":\"/proc/self/fd/1\"}]}", 0,
     "sessions[0].output: \"/proc/self/fd/1\" is a device or system file: outputs are regular "
     "files (e.g. under /traces/)"},
    {"{\"sessions\":[{\"output\":\"/traces/a.json.gz\"},{\"output\":\"/traces/./a.json.gz\"}]}", 1,
     "sessions[1].output: \"/traces/a.json.gz\" is already the output of sessions[0]"},
    {"{\"sessions\":[{\"output\":\"/traces/a.json.gz\"},{\"output\":\"/traces//a.json.gz\"}]}", 1,
     "sessions[1].output: \"/traces/a.json.gz\" is already the output of sessions[0]"},
    {"{\"sessions\":[{\"overwrite\":1}]}", 0,
     "sessions[0].overwrite: expected true or false, got a number"},
    /* Not UTF-8. */
    {"{\"sessions\":[{\"categories\":[\"\xff\"]}]}", 0,
     "sessions[0].categories[0]: is not valid UTF-8 text"},
};

static int check_bad_config(const bad_config *b) {
  char err[WT_ERROR_MAX];
  memset(&cfg, 0x5a, sizeof cfg);
  wt_status st = wt_config_parse(b->json, strlen(b->json), &cfg, err, sizeof err);
  const char *got = NULL;
  int ok;
  if (b->index < 0) {
    got = err;
    ok = st == WT_ERR_CONFIG && cfg.count == 0 && strcmp(err, b->message) == 0;
  } else {
    ok = st == WT_OK && err[0] == '\0' && cfg.count > b->index;
    if (ok) {
      got = cfg.sessions[b->index].error;
      ok = !cfg.sessions[b->index].valid && strcmp(got, b->message) == 0;
    }
  }
  if (!ok)
    wt_test_fail(__FILE__, __LINE__,
                 "config %s\n      status %d, count %d\n      got      \"%s\"\n      expected \"%s\"",
                 b->json, (int)st, st == WT_OK ? cfg.count : -1, got ? got : "(none)",
                 b->message);
  return ok;
}

WT_TEST(config_should_reject_each_bad_config_with_its_exact_message) {
  CHECK(WT_TEST_COUNT(bad_configs) >= 25);
  for (size_t i = 0; i < WT_TEST_COUNT(bad_configs); i++) check_bad_config(&bad_configs[i]);
}

WT_TEST(config_should_reject_names_and_paths_over_their_length_limit) {
  char json[2048];
  snprintf(json, sizeof json, "{\"sessions\":[{\"name\":\"%s\"}]}", repeat(0, 'n', WT_NAME_MAX));
  check_bad_config(&(bad_config){json, 0, "sessions[0].name: expected 1 to 63 characters, got 64"});
  snprintf(json, sizeof json, "{\"sessions\":[{\"output\":\"/%s\"}]}",
           repeat(0, 'o', WT_PATH_CHARS));
  check_bad_config(
      &(bad_config){json, 0, "sessions[0].output: expected 1 to 255 characters, got 256"});
  snprintf(json, sizeof json, "{\"sessions\":[{\"categories\":[\"%s\"]}]}",
           repeat(0, 'c', WT_CATEGORY_CHARS + 1));
  check_bad_config(
      &(bad_config){json, 0, "sessions[0].categories[0]: expected 1 to 31 characters, got 32"});
}

WT_TEST(config_should_fail_a_bad_session_alone_between_two_good_ones) {
  /* Every bad session of the corpus, put between two valid ones, fails
   * alone with its message re-indexed to sessions[1]. */
  for (size_t i = 0; i < WT_TEST_COUNT(bad_configs); i++) {
    const bad_config *b = &bad_configs[i];
    if (b->index != 0 || strncmp(b->json, "{\"sessions\":[", 13) != 0) continue;
    const char *body = b->json + 13;
    size_t body_len = strlen(body) - 2; /* without "]}" */
    if (strncmp(b->message, "sessions[0]", 11) != 0) continue;
    char json[1024], message[WT_ERROR_MAX];
    snprintf(json, sizeof json, "{\"sessions\":[{\"name\":\"first\"},%.*s,{\"name\":\"last\"}]}",
             (int)body_len, body);
    snprintf(message, sizeof message, "sessions[1]%s", b->message + 11);
    if (!check_bad_config(&(bad_config){json, 1, message})) continue;
    CHECK(cfg.sessions[0].valid);
    CHECK_EQ_STR(cfg.sessions[0].config.name, "first");
    int last = cfg.count - 1;
    CHECK(cfg.sessions[last].valid);
    CHECK_EQ_STR(cfg.sessions[last].config.name, "last");
  }
}

/* Issue 23: {"name":"mine","bogus":1} failed as "startup", the page's
 * default name, because the keys were checked before the name was read. */
WT_TEST(config_should_keep_the_given_name_of_a_session_that_fails_on_another_key) {
  static const struct {
    const char *session; /* one session object */
    const char *name;    /* the name it keeps */
    const char *message;
  } cases[] = {
      {"{\"name\":\"mine\",\"durationMs\":2000,\"bogus\":1}", "mine", "sessions[0].bogus:" UNKNOWN},
      {"{\"bogus\":1,\"name\":\"mine\"}", "mine", "sessions[0].bogus:" UNKNOWN},
      {"{\"name\":\"mine\",\"format\":\"pprof\"}", "mine",
       "sessions[0].format: unsupported format \"pprof\" (supported: \"chrome\", \"firefox\", \"folded\")"},
      {"{\"name\":\"mine\",\"sampling\":{\"intervalUs\":5}}", "mine",
       "sessions[0].sampling.intervalUs: expected an integer from 50 to 1000000, got 5"},
      /* Not readable: a bad name, or two of them, keep the default. */
      {"{\"name\":\"a b\",\"bogus\":1}", "startup", "sessions[0].bogus:" UNKNOWN},
      {"{\"name\":7}", "startup", "sessions[0].name: expected a string, got a number"},
      {"{\"name\":\"x\",\"name\":\"y\"}", "startup",
       "sessions[0].name: duplicate key (each key may appear once per object)"},
  };
  for (size_t i = 0; i < WT_TEST_COUNT(cases); i++) {
    char json[256], err[WT_ERROR_MAX];
    snprintf(json, sizeof json, "{\"sessions\":[%s,{\"name\":\"other\"}]}", cases[i].session);
    REQUIRE_EQ_INT(parse(json, err, sizeof err), WT_OK);
    REQUIRE_EQ_INT(cfg.count, 2);
    CHECK(!cfg.sessions[0].valid);
    CHECK_EQ_STR(cfg.sessions[0].config.name, cases[i].name);
    CHECK_EQ_STR(cfg.sessions[0].error, cases[i].message);
    CHECK(cfg.sessions[1].valid);
    CHECK_EQ_STR(cfg.sessions[1].config.name, "other");
  }
  /* A runtime session too (its default name is session-N). */
  wt_session_config c;
  char err[WT_ERROR_MAX];
  const char *one = "{\"name\":\"mine\",\"bogus\":1}";
  CHECK_EQ_INT(wt_config_parse_session(one, strlen(one), "session-0", &c, err, sizeof err),
               WT_ERR_CONFIG);
  CHECK_EQ_STR(c.name, "mine");
  CHECK_EQ_STR(err, "session.bogus:" UNKNOWN);
}

WT_TEST(config_parse_session_should_prefix_key_paths_with_session) {
  static const struct {
    const char *json;
    const char *message;
  } cases[] = {
      {"{\"colour\":1}", "session.colour:" UNKNOWN},
      {"{\"sampling\":{\"intervalUs\":20}}",
       "session.sampling.intervalUs: expected an integer from 50 to 1000000, got 20"},
      {"{\"sampling\":{\"every\":20}}", "session.sampling.every:" UNKNOWN},
      {"{\"name\":\"a/b\"}",
       "session.name: may contain only letters, digits, '-', '_' and '.', got \"a/b\""},
      {"[]", "session: expected an object, got an array"},
      {"{\"sessions\":[]}", "session.sessions:" UNKNOWN},
      {"", "config: empty text (expected a JSON object)"},
      {"{\"name\":}", "config: malformed JSON at line 1, column 9 (byte 8)"},
  };
  for (size_t i = 0; i < WT_TEST_COUNT(cases); i++) {
    wt_session_config c;
    char err[WT_ERROR_MAX];
    wt_status st = wt_config_parse_session(cases[i].json, strlen(cases[i].json), "session-0", &c,
                                           err, sizeof err);
    if (st != WT_ERR_CONFIG || strcmp(err, cases[i].message) != 0)
      wt_test_fail(__FILE__, __LINE__,
                   "session %s\n      status %d\n      got      \"%s\"\n      expected \"%s\"",
                   cases[i].json, (int)st, err, cases[i].message);
  }
}

/* ---- regressions: bugs these tests found in config.c, now fixed ---------- */

/* config.c formats the rejected number with "%g", which keeps 6 significant
 * digits: 1000001 is reported as "1e+06", a value that is in range. */
WT_TEST(config_should_print_a_rejected_number_exactly) {
  check_bad_config(&(bad_config){
      "{\"sessions\":[{\"sampling\":{\"intervalUs\":1000001}}]}", 0,
      "sessions[0].sampling.intervalUs: expected an integer from 50 to 1000000, got 1000001"});
  check_bad_config(&(bad_config){
      "{\"sessions\":[{\"maxBufferKB\":1048577}]}", 0,
      "sessions[0].maxBufferKB: expected an integer from 64 to 1048576, got 1048577"});
  check_bad_config(&(bad_config){
      "{\"sessions\":[{\"durationMs\":3600001}]}", 0,
      "sessions[0].durationMs: expected an integer from 0 to 3600000, got 3600001"});
}

/* cJSON_ParseWithLengthOpts(..., require_null_terminated = 0) stops after
 * the first value, and config.c never looks at what follows it. */
WT_TEST(config_should_reject_text_after_the_root_object) {
  char err[WT_ERROR_MAX];
  const char *json = "{\"sessions\":[]} x";
  CHECK_EQ_INT(parse(json, err, sizeof err), WT_ERR_CONFIG);
  CHECK(strstr(err, "line 1, column 17 (byte 16)") != NULL);
  json = "{\"sessions\":[]}}";
  CHECK_EQ_INT(parse(json, err, sizeof err), WT_ERR_CONFIG);
  wt_session_config c;
  json = "{\"name\":\"a\"}{\"name\":\"b\"}";
  CHECK_EQ_INT(wt_config_parse_session(json, strlen(json), "s", &c, err, sizeof err),
               WT_ERR_CONFIG);
}

/* The schema says output has minLength 2 (a file under "/"); config.c
 * accepts "/", which can only fail later as "cannot open output". */
WT_TEST(config_should_reject_the_root_directory_as_output) {
  char err[WT_ERROR_MAX];
  REQUIRE_EQ_INT(parse("{\"sessions\":[{\"output\":\"/\"}]}", err, sizeof err), WT_OK);
  CHECK(!cfg.sessions[0].valid);
  CHECK(strncmp(cfg.sessions[0].error, "sessions[0].output: ", 20) == 0);
}

/* ---- issue 12: outputs, escapes, duplicate keys, limits ------------------ */

WT_TEST(config_canonical_path_should_resolve_dots_and_repeated_slashes) {
  static const struct {
    const char *in, *out;
  } cases[] = {
      {"/traces/a.json.gz", "/traces/a.json.gz"},
      {"/traces/./a.json.gz", "/traces/a.json.gz"},
      {"/traces//a.json.gz", "/traces/a.json.gz"},
      {"//traces///./a.json.gz", "/traces/a.json.gz"},
      {"/traces/x/../a.json.gz", "/traces/a.json.gz"},
      {"/../../a", "/a"},
      {"/a/b/c/../../d", "/a/d"},
      {"/a/.../b", "/a/.../b"},
      {"/a/..b", "/a/..b"},
      {"/.a", "/.a"},
  };
  for (size_t i = 0; i < WT_TEST_COUNT(cases); i++) {
    char out[WT_PATH_MAX];
    const char *why = wt_outputs_canonical_path(cases[i].in, out, sizeof out);
    CHECK(why == NULL);
    if (!why) CHECK_EQ_STR(out, cases[i].out);
  }
  static const char *const refused[] = {"a", "", "/", "//", "/.", "/..", "/a/", "/a/.", "/a/b/..",
                                        "./a"};
  for (size_t i = 0; i < WT_TEST_COUNT(refused); i++) {
    char out[WT_PATH_MAX];
    if (!refused[i][0]) continue; /* get_string refuses "" first */
    CHECK(wt_outputs_canonical_path(refused[i], out, sizeof out) != NULL);
  }
}

WT_TEST(config_should_store_outputs_in_canonical_form) {
  char err[WT_ERROR_MAX];
  REQUIRE_EQ_INT(parse("{\"sessions\":[{\"output\":\"/traces/./b//c/../a.json\"}]}", err, sizeof err),
                 WT_OK);
  REQUIRE(cfg.sessions[0].valid);
  CHECK_EQ_STR(cfg.sessions[0].config.output, "/traces/b/a.json");
  CHECK_EQ_INT(cfg.sessions[0].config.overwrite, 0);
  REQUIRE_EQ_INT(parse("{\"sessions\":[{\"output\":\"/data/x.json\",\"overwrite\":true}]}", err,
                       sizeof err),
                 WT_OK);
  REQUIRE(cfg.sessions[0].valid);
  CHECK_EQ_INT(cfg.sessions[0].config.overwrite, 1);
}

WT_TEST(config_from_an_untrusted_source_should_write_only_under_traces) {
  char err[WT_ERROR_MAX];
  REQUIRE_EQ_INT(
      parse("{\"sessions\":[{\"name\":\"ok\"},{\"output\":\"/data/app.bin\"},"
            "{\"output\":\"/traces/../app.json\"},{\"output\":\"/traces/sub/ok.json\"},"
            "{\"output\":\"/traces/o.json\",\"overwrite\":true},{\"output\":\"/tracesx/a\"},"
            "{\"output\":\"/traces/x.json\",\"overwrite\":false}]}",
            err, sizeof err),
      WT_OK);
  REQUIRE_EQ_INT(cfg.count, 7);
  for (int i = 0; i < cfg.count; i++) CHECK(cfg.sessions[i].valid);
  wt_config_restrict_untrusted(&cfg, "the 'wasmtrace' URL parameter");
  CHECK(cfg.sessions[0].valid);
  CHECK(!cfg.sessions[1].valid);
  CHECK_EQ_STR(cfg.sessions[1].error,
               "sessions[1].output: \"/data/app.bin\" is outside /traces/: a config from the "
               "'wasmtrace' URL parameter may write only there");
  CHECK(!cfg.sessions[2].valid);
  CHECK_EQ_STR(cfg.sessions[2].error,
               "sessions[2].output: \"/app.json\" is outside /traces/: a config from the "
               "'wasmtrace' URL parameter may write only there");
  CHECK(cfg.sessions[3].valid);
  CHECK(!cfg.sessions[4].valid);
  CHECK_EQ_STR(cfg.sessions[4].error,
               "sessions[4].overwrite: not allowed in a config from the 'wasmtrace' URL parameter "
               "(anyone can set it): only the app's own config may overwrite files");
  CHECK(!cfg.sessions[5].valid);
  CHECK(cfg.sessions[6].valid);
}

WT_TEST(config_should_read_lone_surrogate_escapes_as_replacement_characters) {
  /* JSON.stringify("a\ud800b") is "a\ud800b": one bad category must not
   * make the whole config malformed. */
  char err[WT_ERROR_MAX];
  const char *json =
      "{\"sessions\":[{\"name\":\"s\",\"categories\":[\"a\\ud800b\",\"\\udc00\",\"\\ud83d\\ude00\","
      "\"\\\\ud800\",\"x\\uDBFF\",\"\\ud800\\ud800\\udc00\",\"\\ud800\\u0041\"],"
      "\"output\":\"/traces/\\udfff.json\"},{\"name\":\"t\"}]}";
  REQUIRE_EQ_INT(parse(json, err, sizeof err), WT_OK);
  REQUIRE_EQ_INT(cfg.count, 2);
  REQUIRE(cfg.sessions[0].valid);
  CHECK(cfg.sessions[1].valid);
  const wt_session_config *c = &cfg.sessions[0].config;
  REQUIRE_EQ_INT(c->category_count, 7);
  CHECK_EQ_STR(c->categories[0], "a\xEF\xBF\xBD" "b");
  CHECK_EQ_STR(c->categories[1], "\xEF\xBF\xBD");
  CHECK_EQ_STR(c->categories[2], "\xF0\x9F\x98\x80");
  CHECK_EQ_STR(c->categories[3], "\\ud800");
  CHECK_EQ_STR(c->categories[4], "x\xEF\xBF\xBD");
  CHECK_EQ_STR(c->categories[5], "\xEF\xBF\xBD\xF0\x90\x80\x80");
  CHECK_EQ_STR(c->categories[6], "\xEF\xBF\xBD" "A");
  CHECK_EQ_STR(c->output, "/traces/\xEF\xBF\xBD.json");
  /* Offsets of later errors stay those of the text as given. */
  CHECK_EQ_INT(parse("{\"sessions\":[{\"name\":\"\\ud800\"}],}", err, sizeof err), WT_ERR_CONFIG);
  CHECK_EQ_STR(err, "config: malformed JSON at line 1, column 33 (byte 32)");
}

WT_TEST(config_should_refuse_escaped_nul_even_when_the_text_holds_every_stand_in) {
  /* The parser stands a noncharacter (U+FDD0..U+FDEF) the text does not
   * use in for \u0000; with all 32 present it refuses the text. */
  char json[2048] = "{\"sessions\":[{\"categories\":[\"";
  for (int k = 0; k < 31; k++) {
    char esc[8];
    snprintf(esc, sizeof esc, "\\u%04x", 0xFDD0 + k);
    strcat(json, esc);
  }
  strcat(json, "\"],\"name\":\"a\\u0000b\"}]}");
  char err[WT_ERROR_MAX];
  REQUIRE_EQ_INT(parse(json, err, sizeof err), WT_OK);
  CHECK_EQ_STR(cfg.sessions[0].error, "sessions[0].name: contains \\u0000 (NUL), which no value may contain");
  /* The 32nd, as raw UTF-8: U+FDEF is EF B7 AF. */
  char *end = strstr(json, "\"],");
  REQUIRE(end != NULL);
  memmove(end + 3, end, strlen(end) + 1);
  memcpy(end, "\xEF\xB7\xAF", 3);
  CHECK_EQ_INT(parse(json, err, sizeof err), WT_ERR_CONFIG);
  CHECK_EQ_STR(err, "config: contains \\u0000 (NUL), which no value may contain");
  /* A stand-in the text uses is never mistaken for a NUL. */
  REQUIRE_EQ_INT(parse("{\"sessions\":[{\"categories\":[\"\\ufdd0\"]}]}", err, sizeof err), WT_OK);
  CHECK(cfg.sessions[0].valid);
  /* A NUL byte (with an explicit length) is malformed JSON. */
  static const char raw[] = "{\"sessions\":[{\"name\":\"a\0b\"}]}";
  CHECK_EQ_INT(wt_config_parse(raw, sizeof raw - 1, &cfg, err, sizeof err), WT_ERR_CONFIG);
  CHECK_EQ_STR(err, "config: malformed JSON at line 1, column 24 (byte 23): a NUL byte");
}

WT_TEST(config_should_count_length_limits_in_characters_like_the_schema) {
  char json[8192], s[2048];
  char err[WT_ERROR_MAX];
  /* 127 two-byte characters after the '/': 128 characters, 255 bytes. */
  strcpy(s, "/");
  for (int i = 0; i < 127; i++) strcat(s, "\xC3\xA9");
  snprintf(json, sizeof json, "{\"sessions\":[{\"output\":\"%s\",\"categories\":[\"", s);
  for (int i = 0; i < 7; i++) strcat(json, "\xF0\x9F\x98\x80");
  strcat(json, "abc\"]}]}");
  REQUIRE_EQ_INT(parse(json, err, sizeof err), WT_OK);
  CHECK_EQ_STR(cfg.sessions[0].error, "");
  CHECK_EQ_STR(cfg.sessions[0].config.output, s);
  CHECK_EQ_INT(strlen(cfg.sessions[0].config.categories[0]), WT_CATEGORY_MAX - 1);
  /* Over in characters: counted in characters, as maxLength counts. */
  snprintf(json, sizeof json, "{\"sessions\":[{\"output\":\"/%s\"}]}", repeat(0, 'o', WT_PATH_CHARS));
  check_bad_config(&(bad_config){json, 0, "sessions[0].output: expected 1 to 255 characters, got 256"});
  strcpy(json, "{\"sessions\":[{\"categories\":[\"");
  for (int i = 0; i <= WT_CATEGORY_CHARS; i++) strcat(json, "\\u00e9");
  strcat(json, "\"]}]}");
  check_bad_config(
      &(bad_config){json, 0, "sessions[0].categories[0]: expected 1 to 31 characters, got 32"});
  /* Within the characters but over the bytes the schema states: said so. */
  snprintf(json, sizeof json, "{\"sessions\":[{\"output\":\"%s\xC3\xA9\"}]}", s);
  check_bad_config(&(bad_config){
      json, 0, "sessions[0].output: expected at most 255 bytes in UTF-8, got 257 (129 characters)"});
  strcpy(json, "{\"sessions\":[{\"categories\":[\"");
  for (int i = 0; i < 8; i++) strcat(json, "\\ud83d\\ude00");
  strcat(json, "\"]}]}");
  check_bad_config(&(bad_config){
      json, 0, "sessions[0].categories[0]: expected at most 31 bytes in UTF-8, got 32 (8 characters)"});
  /* A non-ASCII name gets the message about its characters. */
  check_bad_config(&(bad_config){
      "{\"sessions\":[{\"name\":\"d\\u00e9marrage\"}]}", 0,
      "sessions[0].name: may contain only letters, digits, '-', '_' and '.', got \"d\xC3\xA9marrage\""});
}

/* The schema's maxLength of a string key (session level, or the items of an
 * array key), or -1. */
static int schema_max_length(const cJSON *props, const char *key) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(props, key);
  const cJSON *items = cJSON_GetObjectItemCaseSensitive(p, "items");
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(items ? items : p, "maxLength");
  return cJSON_IsNumber(m) ? (int)m->valuedouble : -1;
}

WT_TEST(config_parser_and_schema_should_agree_on_length_limits_and_schema_type) {
  char *schema_text = read_source_file("config/wasmtrace.schema.json");
  REQUIRE(schema_text != NULL);
  cJSON *schema = cJSON_Parse(schema_text);
  REQUIRE(schema != NULL);
  const cJSON *props = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(schema, "$defs"), "session"),
      "properties");
  CHECK_EQ_INT(schema_max_length(props, "name"), WT_NAME_MAX - 1);
  CHECK_EQ_INT(schema_max_length(props, "output"), WT_PATH_CHARS);
  CHECK_EQ_INT(schema_max_length(props, "categories"), WT_CATEGORY_CHARS);
  const cJSON *top = cJSON_GetObjectItemCaseSensitive(schema, "properties");
  const cJSON *type =
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(top, "$schema"), "type");
  REQUIRE(cJSON_IsString(type));
  CHECK_EQ_STR(type->valuestring, "string");
  cJSON_Delete(schema);
}

/* ---- the diagnostic server's "server" object ----------------------------- */

/* The shim checks the server object (wasmtraceCheckServer in
 * js/wasmtrace_pre.js; its cases are in tests/node/server-files.test.mjs):
 * whatever it holds, the parser notes it and the sessions start. */
WT_TEST(config_should_leave_the_server_object_to_the_shim) {
  static const char *const servers[] = {"{\"url\":\"ws://127.0.0.1:9777\"}", "5", "[]", "{}",
                                        "{\"url\":\"http://x\",\"port\":1}"};
  for (size_t i = 0; i < WT_TEST_COUNT(servers); i++) {
    char json[512], err[WT_ERROR_MAX];
    snprintf(json, sizeof json, "{\"sessions\":[{\"name\":\"kept\"}],\"server\":%s}", servers[i]);
    REQUIRE_EQ_INT(parse(json, err, sizeof err), WT_OK);
    CHECK(cfg.server.present);
    CHECK_EQ_INT(cfg.count, 1);
    CHECK(cfg.sessions[0].valid);
  }
}

WT_TEST(config_with_only_a_server_should_have_no_sessions) {
  char err[WT_ERROR_MAX];
  REQUIRE_EQ_INT(parse("{\"server\":{\"url\":\"ws://127.0.0.1:1\"}}", err, sizeof err), WT_OK);
  CHECK_EQ_INT(cfg.count, 0);
  CHECK(cfg.server.present);
}

WT_TEST(config_should_read_the_stream_key_of_a_session) {
  char err[WT_ERROR_MAX];
  REQUIRE_EQ_INT(parse("{\"sessions\":[{\"stream\":true},{\"name\":\"b\",\"stream\":1}]}", err, sizeof err), WT_OK);
  CHECK(cfg.sessions[0].valid);
  CHECK_EQ_INT(cfg.sessions[0].config.stream, 1);
  CHECK_EQ_INT(cfg.sessions[1].valid, 0);
  CHECK_EQ_STR(cfg.sessions[1].error, "sessions[1].stream: expected true or false, got a number");
}

/* A recorder's key (recorder.h): listed by the registry, read by its owner's
 * reader into that recorder's settings, and nowhere else in the config. */
WT_TEST(config_should_hand_a_recorders_key_to_its_owner) {
  char err[WT_ERROR_MAX];
  int owner = -1, heap_owner = -1, n = 0;
  for (const wt_config_key *k; (k = wt_config_recorder_key(n, &owner)) != NULL; n++) {
    CHECK(k->read != NULL);
    if (strcmp(k->key, "heap") == 0) heap_owner = owner;
  }
  REQUIRE(heap_owner >= 0);
  CHECK(heap_owner < WT_RECORDERS_MAX);
  REQUIRE_EQ_INT(parse("{\"sessions\":[{\"name\":\"a\"},{\"name\":\"b\",\"heap\":{}},"
                       "{\"name\":\"c\",\"heap\":{\"sampleBytes\":4096}},"
                       "{\"name\":\"d\",\"heap\":{\"enabled\":false,\"sampleBytes\":4096}},"
                       "{\"name\":\"e\",\"heap\":{\"sampleBytes\":0}},"
                       "{\"name\":\"f\",\"heap\":{\"sampleBytes\":8,\"every\":1}}]}",
                       err, sizeof err),
                 WT_OK);
  REQUIRE_EQ_INT(cfg.count, 6);
  static const uint32_t want[] = {0, 524288, 4096, 0};
  for (int i = 0; i < 4; i++) {
    CHECK(cfg.sessions[i].valid);
    CHECK_EQ_INT(cfg.sessions[i].config.recorder_options[heap_owner][0], want[i]);
    /* No other recorder's settings move. */
    for (int r = 0; r < WT_RECORDERS_MAX; r++)
      for (int w = 0; w < WT_RECORDER_OPTIONS; w++)
        if (r != heap_owner || w != 0) CHECK_EQ_INT(cfg.sessions[i].config.recorder_options[r][w], 0);
  }
  CHECK_EQ_INT(cfg.sessions[4].valid, 0);
  CHECK_EQ_STR(cfg.sessions[4].error, "sessions[4].heap.sampleBytes: expected an integer from 1 to 1073741824, got 0");
  CHECK_EQ_INT(cfg.sessions[5].valid, 0);
  CHECK_EQ_STR(cfg.sessions[5].error, "sessions[5].heap.every: unknown key (allowed: see config/wasmtrace.schema.json)");
}

int main(int argc, char **argv) {
  static const wt_test tests[] = {
      WT_TEST_ENTRY(config_should_fill_defaults_for_an_empty_session_object),
      WT_TEST_ENTRY(config_should_leave_the_server_object_to_the_shim),
      WT_TEST_ENTRY(config_with_only_a_server_should_have_no_sessions),
      WT_TEST_ENTRY(config_should_read_the_stream_key_of_a_session),
      WT_TEST_ENTRY(config_should_hand_a_recorders_key_to_its_owner),
      WT_TEST_ENTRY(config_should_name_later_sessions_startup_dash_index),
      WT_TEST_ENTRY(config_should_accept_an_empty_sessions_array),
      WT_TEST_ENTRY(config_should_accept_schema_and_version_keys),
      WT_TEST_ENTRY(config_should_read_every_key_of_a_full_session),
      WT_TEST_ENTRY(config_should_derive_the_default_output_from_name_and_compression),
      WT_TEST_ENTRY(config_should_accept_every_limit_inclusive),
      WT_TEST_ENTRY(config_should_accept_sixteen_sessions),
      WT_TEST_ENTRY(config_should_accept_integers_written_as_exponent_or_with_zero_fraction),
      WT_TEST_ENTRY(config_should_accept_the_example_config_shipped_in_config_dir),
      WT_TEST_ENTRY(config_parser_schema_and_example_should_agree_on_every_key),
      WT_TEST_ENTRY(config_should_read_only_len_bytes_of_unterminated_text),
      WT_TEST_ENTRY(config_should_keep_valid_sessions_next_to_invalid_ones),
      WT_TEST_ENTRY(config_should_not_compare_outputs_with_invalid_sessions),
      WT_TEST_ENTRY(config_should_clear_a_stale_error_buffer_on_success),
      WT_TEST_ENTRY(config_should_truncate_messages_to_the_error_buffer),
      WT_TEST_ENTRY(config_parse_session_should_use_the_default_name),
      WT_TEST_ENTRY(config_category_enabled_should_match_star_exact_and_prefix_patterns),
      WT_TEST_ENTRY(config_should_reject_each_bad_config_with_its_exact_message),
      WT_TEST_ENTRY(config_should_reject_names_and_paths_over_their_length_limit),
      WT_TEST_ENTRY(config_should_fail_a_bad_session_alone_between_two_good_ones),
      WT_TEST_ENTRY(config_should_keep_the_given_name_of_a_session_that_fails_on_another_key),
      WT_TEST_ENTRY(config_parse_session_should_prefix_key_paths_with_session),
      WT_TEST_ENTRY(config_should_print_a_rejected_number_exactly),
      WT_TEST_ENTRY(config_should_reject_text_after_the_root_object),
      WT_TEST_ENTRY(config_should_reject_the_root_directory_as_output),
      WT_TEST_ENTRY(config_canonical_path_should_resolve_dots_and_repeated_slashes),
      WT_TEST_ENTRY(config_should_store_outputs_in_canonical_form),
      WT_TEST_ENTRY(config_from_an_untrusted_source_should_write_only_under_traces),
      WT_TEST_ENTRY(config_should_read_lone_surrogate_escapes_as_replacement_characters),
      WT_TEST_ENTRY(config_should_refuse_escaped_nul_even_when_the_text_holds_every_stand_in),
      WT_TEST_ENTRY(config_should_count_length_limits_in_characters_like_the_schema),
      WT_TEST_ENTRY(config_parser_and_schema_should_agree_on_length_limits_and_schema_type),
  };
  return wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
}
