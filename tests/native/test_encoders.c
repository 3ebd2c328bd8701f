/* Encoders against golden files: one small, fixed session (two threads,
 * samples, scopes, an instant, counters, a torn sample, names with
 * characters every format must escape or replace) is encoded in each
 * format on the host, without the worker, and compared byte for byte with
 * tests/golden/<format>.<ext>. The input calls the worker-side session
 * functions directly with fixed timestamps, so the output is byte-stable.
 *
 * Regenerate the golden files after an intended change of an encoder (or of
 * the session's buffers, whose high-water mark the stats show):
 *   WT_UPDATE_GOLDEN=1 build/host/tests/native/test_encoders
 * then review the diff of tests/golden/ like code. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <zlib.h>

#include "cJSON.h"
#include "phases.h"
#include "registry.h"
#include "runtime.h"
#include "runtime_start.h"
#include "session.h"
#include "symbols.h"
#include "wt_test.h"

#define T0 5000000.0 /* session start on the session clock, us */

/* meta.startTime of the firefox format (the wall clock) is pinned here. */
extern double wt_encoder_firefox_epoch_ms_for_testing;

/* ---- the fixed input ------------------------------------------------------ */

/* Hostile names: JSON must escape them, folded must replace ';', newlines
 * and control characters; invalid UTF-8 becomes U+FFFD everywhere. U+2028
 * and U+2029 stay as they are (valid in JSON and in a folded line): a JS
 * reader must not take them for line ends (tests/node/profile.test.mjs). */
static const char NAME_PARSE[] = "parse";
static const char NAME_SEMI[] = "semi;colon";
static const char NAME_NEWLINE[] = "new\nline";
static const char NAME_QUOTE[] = "quote\"back\\slash";
static const char NAME_CTRL[] = "tab\there ctrl\x01 del\x7f";
static const char NAME_UTF8[] = "utf8 \xc3\xa9 \xe2\x9c\x93 \xe2\x80\xa8 \xe2\x80\xa9"; /* é ✓ U+2028 U+2029 (JS line terminators) */
static const char NAME_BAD[] = "bad \xff\xfe utf8";
static const char THREAD1_NAME[] = "decoder;1\n\"x\"";
static const char COUNTER_HEAP[] = "wasm heap bytes";
static const char COUNTER_LIVE[] = "live threads";

static uint32_t id_parse, id_semi, id_newline, id_quote, id_ctrl, id_utf8, id_bad, id_heap, id_live;
static uint32_t cat_app, cat_wasmtrace;

static void *thread1_main(void *arg) {
  (void)arg;
  wt_thread_set_name(THREAD1_NAME); /* registers this thread in slot 1 */
  return NULL;
}

/* The registry state every run starts from: slot 0 "main" (this thread),
 * slot 1 a hostile name, interned names and categories in a fixed order. */
static int setup_registry(void) {
  wt_runtime_reset_for_testing(0);
  wt_thread_set_name("main");
  wt_thread *self = wt_thread_self();
  if (!self || self->slot != 0) return 0;
  pthread_t t;
  if (pthread_create(&t, NULL, thread1_main, NULL) != 0) return 0;
  pthread_join(t, NULL);
  if (wt_registry_count() != 2) return 0;
  cat_app = wt_registry_intern_category("app");
  cat_wasmtrace = wt_registry_intern_category("wasmtrace");
  id_parse = wt_registry_intern(NAME_PARSE);
  id_semi = wt_registry_intern(NAME_SEMI);
  id_newline = wt_registry_intern(NAME_NEWLINE);
  id_quote = wt_registry_intern(NAME_QUOTE);
  id_ctrl = wt_registry_intern(NAME_CTRL);
  id_utf8 = wt_registry_intern(NAME_UTF8);
  id_bad = wt_registry_intern(NAME_BAD);
  id_heap = wt_registry_intern(COUNTER_HEAP);
  id_live = wt_registry_intern(COUNTER_LIVE);
  return id_bad != 0 && id_live != 0;
}

typedef struct out_bytes {
  unsigned char *data;
  size_t len;
} out_bytes;

static void record_fixed_input(wt_session *s) {
  /* Stacks, outermost first: function frames are table indices (the host
   * names them "function[N]"), scope frames interned names. */
  const uint32_t main_a[] = {id_parse, 7};
  const uint32_t main_b[] = {id_parse, id_semi};
  const uint32_t t1_a[] = {9, id_newline};
  const uint32_t t1_b[] = {9, id_quote};
  const uint32_t t1_c[] = {id_ctrl, id_utf8, id_bad};
  /* Four ticks, one sample per thread each, as the sampler records them. */
  wt_session_record_sample(s, 0, main_a, 2, T0 + 0, 0);
  wt_session_record_sample(s, 1, t1_a, 2, T0 + 0, 0);
  /* The stack moved during every copy: only [parse, 7] is known (not the
   * thread's last sample: time-weighting readers give that one no time). */
  wt_session_record_sample(s, 0, main_a, 2, T0 + 1000, WT_SAMPLE_PARTIAL);
  wt_session_record_sample(s, 1, t1_b, 2, T0 + 1000, 0);
  wt_session_record_sample(s, 0, main_b, 2, T0 + 2000, 0);
  wt_session_record_sample(s, 1, t1_c, 3, T0 + 2000, 0);
  wt_session_record_sample(s, 0, NULL, 0, T0 + 3000, 0); /* idle */
  wt_session_record_sample(s, 1, t1_a, 2, T0 + 3000, WT_SAMPLE_WAITING); /* blocked in a wait */
  wt_session_record_torn(s);                          /* thread 1's stack was unreadable */
  wt_session_record_sample(s, 0, main_a, 2, T0 + 4000, 0);
  wt_session_record_sample(s, 1, t1_a, 2, T0 + 4000, 0);

  const wt_event_rec events[] = {
      {.ts_us = T0 + 0, .value = 1048576, .id = id_heap, .thread = WT_PROCESS_THREAD,
       .kind = WT_REC_COUNTER, .cat = (uint8_t)cat_wasmtrace},
      {.ts_us = T0 + 0, .value = 2, .id = id_live, .thread = WT_PROCESS_THREAD,
       .kind = WT_REC_COUNTER, .cat = (uint8_t)cat_wasmtrace},
      {.ts_us = T0 + 100, .value = T0 + 600.5, .id = id_newline, .thread = 1,
       .kind = WT_REC_SCOPE, .cat = (uint8_t)cat_app},
      {.ts_us = T0 + 1500.25, .value = 0, .id = id_semi, .thread = 0, .kind = WT_REC_INSTANT,
       .cat = (uint8_t)cat_app},
      {.ts_us = T0 + 10, .value = T0 + 2500, .id = id_parse, .thread = 0,
       .kind = WT_REC_SCOPE, .cat = (uint8_t)cat_app},
      {.ts_us = T0 + 2000, .value = 2097152, .id = id_heap, .thread = WT_PROCESS_THREAD,
       .kind = WT_REC_COUNTER, .cat = (uint8_t)cat_wasmtrace},
      {.ts_us = T0 + 2000, .value = 2, .id = id_live, .thread = WT_PROCESS_THREAD,
       .kind = WT_REC_COUNTER, .cat = (uint8_t)cat_wasmtrace},
      /* Still open when the session stopped: closed by the worker then. */
      {.ts_us = T0 + 2500, .value = T0 + 4500, .id = id_utf8, .thread = 1,
       .kind = WT_REC_SCOPE | WT_REC_UNFINISHED, .cat = (uint8_t)cat_app},
  };
  for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) wt_session_record_event(s, &events[i]);
}

/* A session set up on the host (no worker) for `format`, with the fixed
 * input recorded and its stop time set; NULL on failure. */
static wt_session *fixed_session(wt_format format, int gzip) {
  if (!setup_registry()) return NULL;
  wt_encoder_firefox_epoch_ms_for_testing = 1767225600000.0; /* 2026-01-01T00:00:00Z */
  wt_session *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  static const char *const names[] = {"golden-chrome", "golden-firefox", "golden-folded"};
  wt_config_defaults(&s->config, names[format]);
  s->config.format = format;
  s->config.gzip = gzip;
  s->config.max_buffer_kb = 1024;
  snprintf(s->config.output, sizeof s->config.output, "/traces/%s", names[format]);
  s->start_us = T0;
  wt_status st = wt_session_setup_sampling(s, T0);
  if (st == WT_OK) st = wt_session_setup_output(s);
  if (st != WT_OK) {
    wt_session_free_buffers(s);
    wt_outq_free(&s->out);
    free(s);
    return NULL;
  }
  record_fixed_input(s);
  s->stop_us = T0 + 4500;
  return s;
}

/* Encodes the fixed input in `format` in two steps (a partial one, then
 * the final one) and returns the bytes the session's output queue got. */
static int encode_fixed_plus(wt_format format, int gzip, out_bytes *out, void (*extra)(wt_session *s)) {
  memset(out, 0, sizeof *out);
  wt_session *s = fixed_session(format, gzip);
  if (!s) return 0;
  if (extra) extra(s);
  int ok = wt_session_encode_step(s, 3, 0) == WT_OK && wt_session_encode_step(s, 1 << 20, 1) == WT_OK &&
           s->enc.footer_written;
  /* Everything was queued and the queue closed: collect it. */
  wt_block *b;
  while (ok && (b = wt_outq_pop(&s->out)) != NULL) {
    unsigned char *grown = realloc(out->data, out->len + b->len + 1);
    if (!grown) {
      ok = 0;
      break;
    }
    out->data = grown;
    memcpy(out->data + out->len, b->data, b->len);
    out->len += b->len;
    wt_outq_release(&s->out, b);
  }
  if (ok && !out->data) ok = 0;
  if (ok) out->data[out->len] = '\0';
  wt_session_free_buffers(s);
  wt_outq_free(&s->out);
  free(s);
  wt_encoder_firefox_epoch_ms_for_testing = -1;
  return ok;
}

static int encode_fixed(wt_format format, int gzip, out_bytes *out) {
  return encode_fixed_plus(format, gzip, out, NULL);
}

static int inflate_gzip(const out_bytes *in, out_bytes *out) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return 0;
  size_t cap = 1 << 16;
  out->data = malloc(cap + 1);
  out->len = 0;
  z.next_in = in->data;
  z.avail_in = (uInt)in->len;
  int rc = Z_OK;
  while (out->data && rc == Z_OK) {
    if (out->len == cap) {
      unsigned char *grown = realloc(out->data, cap * 2 + 1);
      if (!grown) break;
      out->data = grown;
      cap *= 2;
    }
    z.next_out = out->data + out->len;
    z.avail_out = (uInt)(cap - out->len);
    rc = inflate(&z, Z_NO_FLUSH);
    out->len = cap - z.avail_out;
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END || !out->data) return 0;
  out->data[out->len] = '\0';
  return 1;
}

/* ---- golden files ------------------------------------------------------- */

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (!buf) return NULL;
  buf[n] = '\0';
  *len = (size_t)n;
  return buf;
}

/* Compares out with the golden file (or rewrites it with WT_UPDATE_GOLDEN=1).
 * On a difference, prints where it starts and writes the actual output to
 * $TMPDIR (or /tmp) for a diff. */
static int matches_golden(const out_bytes *out, const char *file) {
  char path[512];
  snprintf(path, sizeof path, "%s/tests/golden/%s", WT_SOURCE_DIR, file);
  const char *update = getenv("WT_UPDATE_GOLDEN");
  if (update && *update && strcmp(update, "0") != 0) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(out->data, 1, out->len, f) != out->len) {
      if (f) fclose(f);
      fprintf(stderr, "    cannot write %s\n", path);
      return 0;
    }
    fclose(f);
    fprintf(stderr, "    updated %s (%zu bytes)\n", path, out->len);
    return 1;
  }
  size_t len = 0;
  char *golden = read_file(path, &len);
  if (!golden) {
    fprintf(stderr, "    missing %s (WT_UPDATE_GOLDEN=1 creates it)\n", path);
    return 0;
  }
  int same = len == out->len && memcmp(golden, out->data, len) == 0;
  if (!same) {
    size_t at = 0;
    while (at < len && at < out->len && golden[at] == (char)out->data[at]) at++;
    char actual[600];
    const char *tmp = getenv("TMPDIR");
    snprintf(actual, sizeof actual, "%s/wasmtrace-golden-%s", tmp && *tmp ? tmp : "/tmp", file);
    FILE *f = fopen(actual, "wb");
    if (f) {
      fwrite(out->data, 1, out->len, f);
      fclose(f);
    }
    fprintf(stderr, "    %s differs from the output at byte %zu (golden %zu bytes, output %zu); output "
            "written to %s\n", path, at, len, out->len, actual);
  }
  free(golden);
  return same;
}

/* ---- helpers on parsed JSON ----------------------------------------------- */

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

/* 1 if the string array holds s exactly. */
static int array_has_string(const cJSON *arr, const char *s) {
  const cJSON *e;
  cJSON_ArrayForEach(e, arr) if (cJSON_IsString(e) && strcmp(e->valuestring, s) == 0) return 1;
  return 0;
}

static int array_sum(const cJSON *arr) {
  int n = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, arr) n += (int)e->valuedouble;
  return n;
}

/* ---- tests ------------------------------------------------------------------ */

WT_TEST(chrome_encoder_should_match_its_golden_file) {
  out_bytes out;
  REQUIRE(encode_fixed(WT_FORMAT_CHROME, 0, &out));
  CHECK(matches_golden(&out, "chrome.json"));
  cJSON *events = cJSON_Parse((const char *)out.data);
  CHECK(cJSON_IsArray(events));
  /* The hostile thread name survives JSON escaping exactly. */
  int named = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, events) {
    const cJSON *args = get(e, "args");
    if (cJSON_IsString(get(args, "name")) && strcmp(get(args, "name")->valuestring, THREAD1_NAME) == 0)
      named = 1;
  }
  CHECK(named);
  cJSON_Delete(events);
  free(out.data);
}

WT_TEST(firefox_encoder_should_match_its_golden_file) {
  out_bytes out;
  REQUIRE(encode_fixed(WT_FORMAT_FIREFOX, 0, &out));
  CHECK(matches_golden(&out, "firefox.json"));
  free(out.data);
}

WT_TEST(firefox_profile_should_hold_threads_samples_markers_and_counters) {
  out_bytes out;
  REQUIRE(encode_fixed(WT_FORMAT_FIREFOX, 0, &out));
  cJSON *p = cJSON_Parse((const char *)out.data);
  free(out.data);
  REQUIRE(p != NULL);
  const cJSON *meta = get(p, "meta");
  CHECK_EQ_INT(get(meta, "preprocessedProfileVersion")->valuedouble, 57);
  CHECK_EQ_INT(get(meta, "interval")->valuedouble, 1);
  const cJSON *strings = get(get(p, "shared"), "stringArray");
  REQUIRE(cJSON_IsArray(strings));
  /* Names arrive as they were given; invalid UTF-8 as U+FFFD. */
  const char *expected[] = {NAME_PARSE, NAME_SEMI, NAME_NEWLINE, NAME_QUOTE, NAME_CTRL, NAME_UTF8,
                            "bad \xef\xbf\xbd\xef\xbf\xbd utf8", "function[7]", "function[9]", "(idle)", "(waiting)"};
  for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
    if (!array_has_string(strings, expected[i])) fprintf(stderr, "    missing string %zu\n", i);
    CHECK(array_has_string(strings, expected[i]));
  }
  const cJSON *threads = get(p, "threads");
  REQUIRE_EQ_INT(cJSON_GetArraySize(threads), 2);
  const cJSON *t0 = cJSON_GetArrayItem(threads, 0), *t1 = cJSON_GetArrayItem(threads, 1);
  CHECK_EQ_STR(get(t0, "name")->valuestring, "main");
  CHECK_EQ_STR(get(t1, "name")->valuestring, THREAD1_NAME);
  CHECK_EQ_INT(get(get(t0, "samples"), "length")->valuedouble, 5);
  CHECK_EQ_INT(get(get(t1, "samples"), "length")->valuedouble, 5);
  /* Every table's columns have its length. */
  const char *tables[] = {"samples", "stackTable", "frameTable", "funcTable", "markers"};
  for (int t = 0; t < 2; t++) {
    const cJSON *th = cJSON_GetArrayItem(threads, t);
    for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++) {
      const cJSON *table = get(th, tables[k]), *col;
      int len = (int)get(table, "length")->valuedouble;
      cJSON_ArrayForEach(col, table) {
        if (cJSON_IsArray(col) && cJSON_GetArraySize(col) != len) {
          fprintf(stderr, "    thread %d %s.%s: %d entries, length %d\n", t, tables[k], col->string,
                  cJSON_GetArraySize(col), len);
          CHECK(0);
        }
      }
    }
  }
  /* main: "parse" scope and the instant; thread 1: a scope and an unfinished one. */
  CHECK_EQ_INT(get(get(t0, "markers"), "length")->valuedouble, 2);
  CHECK_EQ_INT(get(get(t1, "markers"), "length")->valuedouble, 2);
  const cJSON *phases = get(get(t1, "markers"), "phase");
  CHECK_EQ_INT(cJSON_GetArrayItem(phases, 0)->valuedouble, 1);
  CHECK_EQ_INT(cJSON_GetArrayItem(phases, 1)->valuedouble, 2); /* IntervalStart: unfinished */
  /* Counters: deltas that add up to the last value. */
  const cJSON *counters = get(p, "counters");
  REQUIRE_EQ_INT(cJSON_GetArraySize(counters), 2);
  const cJSON *heap = cJSON_GetArrayItem(counters, 0);
  CHECK_EQ_STR(get(heap, "name")->valuestring, COUNTER_HEAP);
  CHECK_EQ_STR(get(heap, "category")->valuestring, "Memory");
  CHECK_EQ_INT(array_sum(get(get(heap, "samples"), "count")), 2097152);
  /* Stats: one torn sample of eleven. */
  const cJSON *wt = get(meta, "wasmtrace");
  CHECK_EQ_INT(get(wt, "samplesTaken")->valuedouble, 11);
  CHECK_EQ_INT(get(wt, "samplesWritten")->valuedouble, 10);
  CHECK_EQ_INT(get(get(wt, "dropped"), "tornStack")->valuedouble, 1);
  cJSON_Delete(p);
}

WT_TEST(folded_encoder_should_match_its_golden_file) {
  out_bytes out;
  REQUIRE(encode_fixed(WT_FORMAT_FOLDED, 0, &out));
  CHECK(matches_golden(&out, "folded.txt"));
  free(out.data);
}

WT_TEST(folded_lines_should_have_one_stack_and_a_count_and_no_control_characters) {
  out_bytes out;
  REQUIRE(encode_fixed(WT_FORMAT_FOLDED, 0, &out));
  int stacks = 0, samples = 0, comments = 0, bad = 0;
  char *save = NULL;
  for (char *line = strtok_r((char *)out.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    for (const unsigned char *c = (const unsigned char *)line; *c; c++)
      if (*c < 0x20 || *c == 0x7f) bad++;
    if (line[0] == '#') {
      comments++;
      size_t n = strlen(line);
      CHECK(n > 0 && line[n - 1] == '}'); /* not taken for a count */
      continue;
    }
    char *sp = strrchr(line, ' ');
    REQUIRE(sp != NULL);
    samples += atoi(sp + 1);
    stacks++;
    *sp = '\0';
    /* The first frame is a thread: "main" or the sanitized hostile name. */
    CHECK(strncmp(line, "main;", 5) == 0 || strncmp(line, "decoder:1 \"x\";", 14) == 0);
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(comments, 1);
  CHECK_EQ_INT(samples, 10);
  CHECK_EQ_INT(stacks, 8); /* the partial and the waiting sample are stacks of their own */
  free(out.data);
}

/* Samples with flags beyond the fixed input: a thread waiting with an
 * empty stack, and one whose copy was partial while it waited. */
static void record_flagged(wt_session *s) {
  const uint32_t t1_a[] = {9, id_newline};
  wt_session_record_sample(s, 0, NULL, 0, T0 + 4100, WT_SAMPLE_WAITING);
  wt_session_record_sample(s, 1, t1_a, 1, T0 + 4100, WT_SAMPLE_PARTIAL | WT_SAMPLE_WAITING);
}

WT_TEST(sample_flags_should_append_partial_then_waiting_as_the_leaf) {
  out_bytes out;
  REQUIRE(encode_fixed_plus(WT_FORMAT_FOLDED, 0, &out, record_flagged));
  const char *text = (const char *)out.data;
  /* An empty stack that waits is root -> "(waiting)", not "(idle)". */
  CHECK(strstr(text, "\nmain;(waiting) 1\n") != NULL);
  /* The markers after the known prefix, "(waiting)" last. */
  CHECK(strstr(text, "\ndecoder:1 \"x\";") != NULL);
  CHECK(strstr(text, ";(partial stack);(waiting) 1\n") != NULL);
  CHECK(strstr(text, "\"waiting\":3") != NULL);
  free(out.data);
}

/* Samples after gaps on the 1 ms grid: main's next sample 3 periods after
 * its last one in the fixed input (T0 + 4000), then one 70,000 periods
 * later (the weight's 16 bits hold 65,535); the decoder's next one on time. */
static uint32_t id_weighted;
static void record_gapped(wt_session *s) {
  id_weighted = wt_registry_intern("weighted");
  const uint32_t w[] = {id_weighted};
  const uint32_t t1_a[] = {9, id_newline};
  wt_session_record_sample(s, 0, w, 1, T0 + 7000, 0);
  wt_session_record_sample(s, 1, t1_a, 2, T0 + 5000, 0);
  wt_session_record_sample(s, 0, w, 1, T0 + 7000 + 70000.0 * 1000, 0);
}

WT_TEST(sample_weights_should_count_the_grid_periods_since_the_threads_previous_sample) {
  out_bytes out;
  /* Folded: a line's count is its samples' summed weights, 3 + 65,535. */
  REQUIRE(encode_fixed_plus(WT_FORMAT_FOLDED, 0, &out, record_gapped));
  CHECK(strstr((const char *)out.data, "\nmain;weighted 65538\n") != NULL);
  free(out.data);
  /* Firefox: main's samples carry a weight column (one weight is not 1):
   * 1 for each of the fixed input's five, then 3 and 65,535; the decoder's
   * samples, all on time, have none. */
  REQUIRE(encode_fixed_plus(WT_FORMAT_FIREFOX, 0, &out, record_gapped));
  cJSON *p = cJSON_Parse((const char *)out.data);
  REQUIRE(p != NULL);
  int seen_main = 0, seen_decoder = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, get(p, "threads")) {
    const cJSON *samples = get(t, "samples"), *weight = get(samples, "weight");
    if (strcmp(get(t, "name")->valuestring, "main") == 0) {
      seen_main = 1;
      REQUIRE(cJSON_IsArray(weight));
      CHECK_EQ_INT(cJSON_GetArraySize(weight), cJSON_GetArraySize(get(samples, "stack")));
      CHECK_EQ_INT(cJSON_GetArraySize(weight), 7);
      for (int i = 0; i < 5; i++) CHECK_EQ_INT((int)cJSON_GetArrayItem(weight, i)->valuedouble, 1);
      CHECK_EQ_INT((int)cJSON_GetArrayItem(weight, 5)->valuedouble, 3);
      CHECK_EQ_INT((int)cJSON_GetArrayItem(weight, 6)->valuedouble, 65535);
    } else {
      seen_decoder = 1;
      CHECK(cJSON_IsNull(weight));
    }
  }
  CHECK(seen_main && seen_decoder);
  cJSON_Delete(p);
  free(out.data);
}

WT_TEST(folded_stats_line_should_be_the_session_and_stats_records_as_json) {
  out_bytes out;
  REQUIRE(encode_fixed(WT_FORMAT_FOLDED, 0, &out));
  const char *line = strstr((const char *)out.data, "\n# wasmtrace {");
  REQUIRE(line != NULL);
  line += strlen("\n# wasmtrace ");
  CHECK(strchr(line, '\n') == line + strlen(line) - 1); /* one line, the last */
  cJSON *rec = cJSON_Parse(line);
  REQUIRE(rec != NULL);
  CHECK_EQ_STR(get(rec, "format")->valuestring, "folded");
  CHECK_EQ_STR(get(rec, "session")->valuestring, "golden-folded");
  CHECK_EQ_STR(get(rec, "whenFull")->valuestring, "stop");
  CHECK_EQ_INT(get(rec, "intervalUs")->valuedouble, 1000);
  CHECK_EQ_INT(get(rec, "startTimeUs")->valuedouble, T0);
  const cJSON *stats = get(rec, "stats");
  CHECK_EQ_INT(get(stats, "samplesTaken")->valuedouble, 11);
  CHECK_EQ_INT(get(stats, "samplesWritten")->valuedouble, 10);
  CHECK_EQ_INT(get(get(stats, "dropped"), "tornStack")->valuedouble, 1);
  /* A partial sample is kept and counted apart from the drops. */
  CHECK_EQ_INT(get(stats, "partialStack")->valuedouble, 1);
  CHECK_EQ_INT(get(stats, "eventsNotRepresentable")->valuedouble, 8);
  CHECK(cJSON_IsNumber(get(stats, "bufferHighWaterBytes")));
  cJSON_Delete(rec);
  free(out.data);
}

/* ---- the main thread's long tasks (rec_longtask.c) ------------------------- */

/* rec_longtask.c's entry points for the page (exported to JS) and tests. */
int wt_js_longtask(double begin_us, double end_us);
void wt_js_longtasks_observed(int yes, int lost);
void wt_longtasks_reset_for_testing(void);

/* Long tasks as the page hands them over: two it could not keep before the
 * module was up, one before the session's start (T0), one while it
 * recorded, one after its stop (T0 + 4500), one malformed (refused). */
static void add_long_tasks(wt_session *s) {
  (void)s;
  wt_longtasks_reset_for_testing();
  wt_js_longtasks_observed(1, 2);
  CHECK_EQ_INT(wt_js_longtask(T0 - 100000, T0 - 40000), 0);
  CHECK_EQ_INT(wt_js_longtask(T0 + 500, T0 + 3000), 0);
  CHECK_EQ_INT(wt_js_longtask(T0 + 5000, T0 + 6000), 0);
  CHECK_EQ_INT(wt_js_longtask(T0 + 10, T0 + 5), -1);
}
static void add_long_tasks_before_main(wt_session *s) {
  add_long_tasks(s);
  s->before_main = 1;
}

static void check_long_task_stats(const cJSON *lt, int count, double total_us) {
  REQUIRE(lt != NULL);
  CHECK(cJSON_IsTrue(get(lt, "observed")));
  CHECK_EQ_INT(get(lt, "count")->valuedouble, count);
  CHECK(get(lt, "totalUs")->valuedouble == total_us);
  CHECK(get(lt, "longestUs")->valuedouble == (count == 2 ? 60000 : 2500));
  CHECK_EQ_INT(get(lt, "dropped")->valuedouble, 3);
}

WT_TEST(chrome_long_tasks_should_be_x_events_on_a_track_of_their_own) {
  for (int before_main = 0; before_main < 2; before_main++) {
    out_bytes out;
    REQUIRE(encode_fixed_plus(WT_FORMAT_CHROME, 0, &out, before_main ? add_long_tasks_before_main : add_long_tasks));
    cJSON *doc = cJSON_Parse((const char *)out.data);
    REQUIRE(doc != NULL);
    int tasks = 0, track = -1;
    double lo = 1e18, hi = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, doc) {
      const char *ph = get(e, "ph")->valuestring, *name = get(e, "name")->valuestring;
      if (strcmp(ph, "M") == 0 && strcmp(name, "wasmtrace_stats") == 0)
        check_long_task_stats(get(get(e, "args"), "longTasks"), before_main ? 2 : 1, before_main ? 62500 : 2500);
      if (strcmp(ph, "M") == 0 && strcmp(name, "thread_name") == 0 &&
          strcmp(get(get(e, "args"), "name")->valuestring, "Long tasks (main thread)") == 0)
        track = (int)get(e, "tid")->valuedouble;
      if (strcmp(ph, "X") != 0 || strcmp(get(e, "cat")->valuestring, "longtask") != 0) continue;
      CHECK_EQ_STR(name, "long task");
      /* Not on an app thread's track (DevTools would drop a partial overlap). */
      CHECK(get(e, "tid")->valuedouble >= 100000);
      tasks++;
      double ts = get(e, "ts")->valuedouble, end = ts + get(e, "dur")->valuedouble;
      if (ts < lo) lo = ts;
      if (end > hi) hi = end;
    }
    REQUIRE(track >= 100000);
    CHECK_EQ_INT(tasks, before_main ? 2 : 1);
    CHECK(lo == (before_main ? T0 - 100000 : T0 + 500) && hi == T0 + 3000);
    cJSON_Delete(doc);
    free(out.data);
  }
  wt_longtasks_reset_for_testing();
}

WT_TEST(firefox_long_tasks_should_be_markers_on_the_main_thread) {
  out_bytes out;
  REQUIRE(encode_fixed_plus(WT_FORMAT_FIREFOX, 0, &out, add_long_tasks));
  cJSON *doc = cJSON_Parse((const char *)out.data);
  REQUIRE(doc != NULL);
  check_long_task_stats(get(get(get(doc, "meta"), "wasmtrace"), "longTasks"), 1, 2500);
  const cJSON *cats = get(get(doc, "meta"), "categories");
  int lt_cat = -1;
  for (int i = 0; i < cJSON_GetArraySize(cats); i++)
    if (strcmp(get(cJSON_GetArrayItem(cats, i), "name")->valuestring, "Long tasks (main thread)") == 0) lt_cat = i;
  REQUIRE(lt_cat >= 0);
  int found = 0;
  const cJSON *th;
  cJSON_ArrayForEach(th, get(doc, "threads")) {
    const cJSON *m = get(th, "markers");
    for (int i = 0; i < get(m, "length")->valueint; i++) {
      if ((int)cJSON_GetArrayItem(get(m, "category"), i)->valuedouble != lt_cat) continue;
      CHECK(cJSON_IsTrue(get(th, "isMainThread")));
      CHECK_EQ_STR(get(cJSON_GetArrayItem(get(m, "data"), i), "category")->valuestring, "longtask");
      /* Milliseconds since the session's start. */
      CHECK(cJSON_GetArrayItem(get(m, "startTime"), i)->valuedouble == 0.5);
      CHECK(cJSON_GetArrayItem(get(m, "endTime"), i)->valuedouble == 3.0);
      found++;
    }
  }
  CHECK_EQ_INT(found, 1);
  cJSON_Delete(doc);
  free(out.data);
  wt_longtasks_reset_for_testing();
}

/* A page that said nothing (Node, an app without the pre-js): no member. */
WT_TEST(long_tasks_should_be_left_out_when_the_page_said_nothing) {
  wt_longtasks_reset_for_testing();
  out_bytes out;
  REQUIRE(encode_fixed(WT_FORMAT_CHROME, 0, &out));
  CHECK(strstr((const char *)out.data, "longTasks") == NULL);
  CHECK(strstr((const char *)out.data, "longtask") == NULL);
  free(out.data);
}

/* ---- the startup timeline (phases.h) --------------------------------------- */

/* A startup timeline as the page-side shim hands it over: out of order,
 * overlapping, before the session's start (T0), one span after its stop
 * (T0 + 4500: left out) and one malformed (refused, counted). */
static void add_fixed_phases(void) {
  wt_phases_reset_for_testing();
  CHECK_EQ_INT(wt_phase_add(WT_PHASE_SPAN, "compile + instantiate (streaming)", 250000, 300000, -1), 0);
  CHECK_EQ_INT(wt_phase_add(WT_PHASE_SPAN, "fetch app.wasm", 180000, 290000, 234693), 0);
  CHECK_EQ_INT(wt_phase_add(WT_PHASE_SPAN, "request document", 0, 90000, 2427), 0);
  CHECK_EQ_INT(wt_phase_add(WT_PHASE_SPAN, "worker 1 load", 170000, 400000, -1), 0);
  CHECK_EQ_INT(wt_phase_add(WT_PHASE_INSTANT, "worker 1 ready", 400000, 400000, -1), 0);
  CHECK_EQ_INT(wt_phase_add(WT_PHASE_NOTE, "no Resource Timing for \"x.data\"", 100000, 100000, -1), 0);
  CHECK_EQ_INT(wt_phase_add(WT_PHASE_SPAN, "main()", T0 + 5000, T0 + 6000, -1), 0);
  CHECK_EQ_INT(wt_phase_add(WT_PHASE_SPAN, "backwards", 10, 5, -1), -1);
  CHECK_EQ_INT(wt_phase_add(99, "unknown kind", 10, 20, -1), -1);
}
static void before_main_session(wt_session *s) {
  add_fixed_phases();
  s->before_main = 1;
}
static void later_session(wt_session *s) {
  (void)s;
  add_fixed_phases();
  CHECK_EQ_INT(wt_phase_add(WT_PHASE_SPAN, "inside", T0 + 100, T0 + 200, -1), 0);
}

static const cJSON *phases_of(const cJSON *stats_holder) {
  return get(get(stats_holder, "startup"), "phases");
}

/* The stats record's "startup" list, the same in every format: what the
 * session may write, in begin order, with the refusals counted. */
static void check_fixed_phase_list(const cJSON *startup) {
  static const char *const names[] = {"request document", "no Resource Timing for \"x.data\"", "worker 1 load",
                                      "fetch app.wasm", "compile + instantiate (streaming)", "worker 1 ready"};
  const cJSON *list = get(startup, "phases");
  REQUIRE(cJSON_GetArraySize(list) == 6);
  for (int i = 0; i < 6; i++) CHECK_EQ_STR(get(cJSON_GetArrayItem(list, i), "name")->valuestring, names[i]);
  CHECK_EQ_STR(get(cJSON_GetArrayItem(list, 1), "kind")->valuestring, "note");
  CHECK_EQ_STR(get(cJSON_GetArrayItem(list, 5), "kind")->valuestring, "instant");
  CHECK_EQ_INT(get(cJSON_GetArrayItem(list, 3), "bytes")->valuedouble, 234693);
  CHECK(get(cJSON_GetArrayItem(list, 2), "bytes") == NULL); /* unknown: left out */
  CHECK_EQ_INT(get(cJSON_GetArrayItem(list, 3), "beginUs")->valuedouble, 180000);
  CHECK_EQ_INT(get(cJSON_GetArrayItem(list, 3), "endUs")->valuedouble, 290000);
  CHECK_EQ_INT(get(startup, "dropped")->valuedouble, 2);
}

WT_TEST(chrome_startup_phases_should_be_x_events_on_startup_tracks_that_do_not_overlap) {
  out_bytes out;
  REQUIRE(encode_fixed_plus(WT_FORMAT_CHROME, 0, &out, before_main_session));
  cJSON *doc = cJSON_Parse((const char *)out.data);
  REQUIRE(doc != NULL);
  int spans = 0, instants = 0, notes = 0, named_lanes = 0;
  double lane_end[8] = {0};
  const cJSON *e;
  cJSON_ArrayForEach(e, doc) {
    const cJSON *tid = get(e, "tid"), *ph = get(e, "ph"), *cat = get(e, "cat"), *name = get(e, "name");
    if (strcmp(ph->valuestring, "M") == 0 && strcmp(name->valuestring, "wasmtrace_stats") == 0)
      check_fixed_phase_list(get(get(e, "args"), "startup"));
    if (tid->valuedouble < 100000) continue;
    int lane = (int)tid->valuedouble - 100000;
    REQUIRE(lane >= 0 && lane < 8);
    if (strcmp(ph->valuestring, "M") == 0) {
      if (strcmp(name->valuestring, "thread_name") == 0) {
        CHECK(strncmp(get(get(e, "args"), "name")->valuestring, "Startup", 7) == 0);
        named_lanes++;
      }
      continue;
    }
    CHECK_EQ_STR(cat->valuestring, "startup");
    if (strcmp(ph->valuestring, "X") == 0) {
      /* Written in begin order: a lane's spans never overlap. */
      double ts = get(e, "ts")->valuedouble, dur = get(e, "dur")->valuedouble;
      CHECK(ts >= lane_end[lane]);
      lane_end[lane] = ts + dur;
      spans++;
      if (strcmp(name->valuestring, "fetch app.wasm") == 0)
        CHECK_EQ_INT(get(get(e, "args"), "bytes")->valuedouble, 234693);
    } else if (strcmp(name->valuestring, "note") == 0) {
      CHECK_EQ_STR(get(get(e, "args"), "text")->valuestring, "no Resource Timing for \"x.data\"");
      notes++;
    } else {
      instants++;
    }
  }
  CHECK_EQ_INT(spans, 4); /* "main()" began after the stop */
  CHECK_EQ_INT(instants, 1);
  CHECK_EQ_INT(notes, 1);
  CHECK_EQ_INT(named_lanes, 3); /* worker 1 load overlaps the fetch, which overlaps the compile */
  cJSON_Delete(doc);
  free(out.data);
  wt_phases_reset_for_testing();
}

WT_TEST(firefox_startup_phases_should_be_markers_of_the_startup_category) {
  out_bytes out;
  REQUIRE(encode_fixed_plus(WT_FORMAT_FIREFOX, 0, &out, before_main_session));
  cJSON *doc = cJSON_Parse((const char *)out.data);
  REQUIRE(doc != NULL);
  check_fixed_phase_list(get(get(get(doc, "meta"), "wasmtrace"), "startup"));
  const cJSON *cats = get(get(doc, "meta"), "categories"), *strings = get(get(doc, "shared"), "stringArray");
  int startup_cat = -1;
  for (int i = 0; i < cJSON_GetArraySize(cats); i++)
    if (strcmp(get(cJSON_GetArrayItem(cats, i), "name")->valuestring, "Startup") == 0) startup_cat = i;
  REQUIRE(startup_cat >= 0);
  int found = 0, threads_with = 0;
  const cJSON *th;
  cJSON_ArrayForEach(th, get(doc, "threads")) {
    const cJSON *m = get(th, "markers");
    int here = 0;
    for (int i = 0; i < get(m, "length")->valueint; i++) {
      if ((int)cJSON_GetArrayItem(get(m, "category"), i)->valuedouble != startup_cat) continue;
      here = 1;
      const char *name = cJSON_GetArrayItem(strings, cJSON_GetArrayItem(get(m, "name"), i)->valueint)->valuestring;
      if (strcmp(name, "fetch app.wasm") != 0) continue;
      found = 1;
      /* Milliseconds from the session's start: before it, negative. */
      CHECK_EQ_INT(cJSON_GetArrayItem(get(m, "startTime"), i)->valuedouble * 1000, 180000 - T0);
      CHECK_EQ_INT(cJSON_GetArrayItem(get(m, "endTime"), i)->valuedouble * 1000, 290000 - T0);
      CHECK_EQ_INT(get(cJSON_GetArrayItem(get(m, "data"), i), "bytes")->valuedouble, 234693);
    }
    threads_with += here;
  }
  CHECK(found);
  CHECK_EQ_INT(threads_with, 1);
  cJSON_Delete(doc);
  free(out.data);
  wt_phases_reset_for_testing();
}

/* The folded output's '# wasmtrace {...}' record of the fixed input with
 * `extra`, parsed; NULL if it is missing or not JSON. */
static cJSON *folded_record(void (*extra)(wt_session *s)) {
  out_bytes out;
  if (!encode_fixed_plus(WT_FORMAT_FOLDED, 0, &out, extra)) return NULL;
  const char *line = strstr((const char *)out.data, "\n# wasmtrace {");
  cJSON *rec = line ? cJSON_Parse(line + strlen("\n# wasmtrace ")) : NULL;
  free(out.data);
  return rec;
}

WT_TEST(folded_stats_line_should_carry_the_startup_phases) {
  cJSON *rec = folded_record(before_main_session);
  REQUIRE(rec != NULL);
  check_fixed_phase_list(get(get(rec, "stats"), "startup"));
  cJSON_Delete(rec);
  wt_phases_reset_for_testing();
}

/* A session started after main() writes only what began while it recorded,
 * and nothing of a startup when none did. */
static void later_session_nothing_inside(wt_session *s) {
  (void)s;
  add_fixed_phases();
}
WT_TEST(sessions_started_later_should_write_no_startup_when_no_phase_began_while_they_recorded) {
  out_bytes out;
  REQUIRE(encode_fixed_plus(WT_FORMAT_FOLDED, 0, &out, later_session_nothing_inside));
  CHECK(strstr((const char *)out.data, "\"startup\"") == NULL);
  free(out.data);
  wt_phases_reset_for_testing();
}

WT_TEST(sessions_started_later_should_write_only_the_phases_that_began_while_they_recorded) {
  cJSON *rec = folded_record(later_session);
  REQUIRE(rec != NULL);
  const cJSON *list = phases_of(get(rec, "stats"));
  REQUIRE(cJSON_GetArraySize(list) == 1);
  CHECK_EQ_STR(get(cJSON_GetArrayItem(list, 0), "name")->valuestring, "inside");
  cJSON_Delete(rec);
  wt_phases_reset_for_testing();
}

/* The timeline is the category "startup": a session that records only
 * other categories writes none of it. */
static void io_only_session(wt_session *s) {
  add_fixed_phases();
  s->before_main = 1;
  s->config.category_count = 1;
  snprintf(s->config.categories[0], sizeof s->config.categories[0], "io");
}
WT_TEST(sessions_without_the_startup_category_should_write_no_timeline) {
  out_bytes out;
  REQUIRE(encode_fixed_plus(WT_FORMAT_CHROME, 0, &out, io_only_session));
  CHECK(strstr((const char *)out.data, "\"startup\"") == NULL);
  CHECK(strstr((const char *)out.data, "request document") == NULL);
  free(out.data);
  wt_phases_reset_for_testing();
}

/* The table keeps WT_PHASES_MAX phases and counts the rest. */
WT_TEST(phase_table_should_keep_its_capacity_and_count_the_rest) {
  wt_phases_reset_for_testing();
  for (int i = 0; i < WT_PHASES_MAX + 5; i++) wt_phase_add(WT_PHASE_INSTANT, "x", i, i, -1);
  CHECK_EQ_INT(wt_phases_count(), WT_PHASES_MAX);
  CHECK_EQ_U64(wt_phases_dropped(), 5);
  wt_phase p;
  CHECK(wt_phase_get(WT_PHASES_MAX - 1, &p) && p.begin_us == WT_PHASES_MAX - 1);
  CHECK(!wt_phase_get(WT_PHASES_MAX, &p));
  /* A name longer than the slot is cut at a character boundary. */
  wt_phases_reset_for_testing();
  char longname[200];
  memset(longname, 'a', sizeof longname);
  memcpy(longname + WT_PHASE_NAME_MAX - 2, "\xc3\xa9", 2); /* straddles the last byte */
  longname[sizeof longname - 1] = '\0';
  CHECK_EQ_INT(wt_phase_add(WT_PHASE_SPAN, longname, 1, 2, -1), 0);
  CHECK(wt_phase_get(0, &p));
  CHECK_EQ_INT(strlen(p.name), WT_PHASE_NAME_MAX - 2);
  wt_phases_reset_for_testing();
}

/* Samples taken = written + dropped (full, torn) + pending, at any time. */
static int samples_add_up(wt_session *s) {
  return atomic_load(&s->samples_taken) == atomic_load(&s->samples_written) +
                                               atomic_load(&s->samples_dropped_full) +
                                               atomic_load(&s->samples_torn) + s->rec.samples.count;
}

WT_TEST(encoder_steps_should_leave_budgets_alone_and_keep_the_accounting_exact) {
  for (int format = WT_FORMAT_CHROME; format <= WT_FORMAT_FOLDED; format++) {
    wt_session *s = fixed_session((wt_format)format, 0);
    REQUIRE(s != NULL);
    size_t budgets[] = {s->rec.budget_samples, s->rec.budget_events, s->rec.budget_nodes, s->rec.budget_out};
    CHECK(samples_add_up(s));
    for (int step = 0; step < 4 && !s->enc.footer_written; step++) {
      uint64_t events_before = atomic_load(&s->events_written) + atomic_load(&s->events_dropped);
      size_t pending_events = s->rec.events.count;
      CHECK_EQ_INT(wt_session_encode_step(s, 2, step == 3), WT_OK);
      CHECK(samples_add_up(s));
      /* Folded counts events only in its stats line; the others write them. */
      uint64_t events_after = atomic_load(&s->events_written) + atomic_load(&s->events_dropped);
      if (format == WT_FORMAT_CHROME) CHECK_EQ_U64(events_after - events_before, pending_events - s->rec.events.count);
      CHECK(atomic_load(&s->high_water) >= wt_session_memory(s));
      size_t now[] = {s->rec.budget_samples, s->rec.budget_events, s->rec.budget_nodes, s->rec.budget_out};
      CHECK(memcmp(budgets, now, sizeof now) == 0);
    }
    CHECK(s->enc.footer_written);
    CHECK_EQ_INT(s->rec.samples.count, 0);
    CHECK_EQ_INT(s->rec.events.count, 0);
    if (format != WT_FORMAT_FOLDED) CHECK_EQ_U64(atomic_load(&s->events_written), 8);
    wt_block *b;
    while ((b = wt_outq_pop(&s->out)) != NULL) wt_outq_release(&s->out, b);
    wt_session_free_buffers(s);
    wt_outq_free(&s->out);
    free(s);
    wt_encoder_firefox_epoch_ms_for_testing = -1;
  }
}

WT_TEST(gzip_output_should_inflate_to_the_plain_output) {
  /* Folded writes nothing before its final step, whose stats (taken when
   * the step begins) see no compressed bytes in flight: both runs must
   * agree exactly. The JSON formats state a high-water mark that counts
   * the compressed bytes in flight: they must parse. */
  for (int format = WT_FORMAT_CHROME; format <= WT_FORMAT_FOLDED; format++) {
    out_bytes plain, gz, inflated = {0};
    REQUIRE(encode_fixed((wt_format)format, 0, &plain));
    REQUIRE(encode_fixed((wt_format)format, 1, &gz));
    CHECK(gz.len > 2 && gz.data[0] == 0x1f && gz.data[1] == 0x8b);
    CHECK(inflate_gzip(&gz, &inflated));
    if (format == WT_FORMAT_FOLDED) {
      CHECK_EQ_INT(inflated.len, plain.len);
      CHECK(inflated.data && memcmp(inflated.data, plain.data, plain.len) == 0);
    } else {
      cJSON *doc = inflated.data ? cJSON_Parse((const char *)inflated.data) : NULL;
      CHECK(doc != NULL);
      cJSON_Delete(doc);
    }
    free(plain.data);
    free(gz.data);
    free(inflated.data);
  }
}

/* ---- memory at the limit ----------------------------------------------- */

/* Sets a session up the way the worker does (sampling first, then the
 * output); frees it and returns NULL if either fails, with the failure's
 * message (if the session failed) in err. */
static wt_session *limit_session(wt_format format, uint32_t max_buffer_kb, int gzip, char *err, size_t cap) {
  if (err) err[0] = '\0';
  if (!setup_registry()) return NULL;
  wt_session *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  wt_config_defaults(&s->config, "at-the-limit");
  s->config.format = format;
  s->config.gzip = gzip;
  s->config.max_buffer_kb = max_buffer_kb;
  s->start_us = T0;
  wt_status st = wt_session_setup_sampling(s, T0);
  if (st == WT_OK) st = wt_session_setup_output(s);
  if (st != WT_OK) {
    if (err) snprintf(err, cap, "%s", s->error);
    wt_session_free_buffers(s);
    wt_outq_free(&s->out);
    free(s);
    return NULL;
  }
  return s;
}

/* What the main thread does with the output: writes it (here: to
 * `written`, outside the session's memory). */
static out_bytes written;
static void drain_output(wt_session *s) {
  wt_block *b;
  while ((b = wt_outq_pop(&s->out)) != NULL) {
    unsigned char *grown = realloc(written.data, written.len + b->len + 1);
    if (grown) {
      written.data = grown;
      memcpy(written.data + written.len, b->data, b->len);
      written.len += b->len;
      written.data[written.len] = '\0';
    }
    wt_outq_release(&s->out, b);
  }
}

/* Records `ticks` sampler ticks on two threads, every sample a stack never
 * seen before (so that the call tree fills up and stays full), a scope per
 * tick and a counter every tenth; encodes every 20 ticks as the worker
 * does (quota first) and drains the output after each step like the pump.
 * Returns the highest wt_session_memory seen after a step, or 0 if a step
 * failed. */
static size_t record_at_limit(wt_session *s, int ticks) {
  size_t peak = 0;
  for (int tick = 0; tick < ticks; tick++) {
    double ts = T0 + 1000.0 * tick;
    for (uint16_t slot = 0; slot < 2; slot++) {
      const uint32_t stack[] = {id_parse, 100u + (uint32_t)(tick % 13), 1000u + (uint32_t)tick, slot};
      wt_session_record_sample(s, slot, stack, 4, ts, 0);
    }
    wt_event_rec scope = {.ts_us = ts, .value = ts + 500, .id = id_semi, .thread = (uint16_t)(tick & 1),
                          .kind = WT_REC_SCOPE, .cat = (uint8_t)cat_app};
    wt_session_record_event(s, &scope);
    if (tick % 10 == 0) {
      wt_event_rec counter = {.ts_us = ts, .value = tick, .id = id_heap, .thread = WT_PROCESS_THREAD,
                              .kind = WT_REC_COUNTER, .cat = (uint8_t)cat_wasmtrace};
      wt_session_record_event(s, &counter);
    }
    if (tick % 20 == 19) {
      size_t quota = wt_session_encode_quota(s, 2048);
      if (quota && wt_session_encode_step(s, quota, 0) != WT_OK) return 0;
      size_t m = wt_session_memory(s);
      if (m > peak) peak = m;
      drain_output(s);
    }
  }
  return peak;
}

/* Stops the session as the worker does: steps until the final one. */
static int finish_at_limit(wt_session *s, double stop_us) {
  s->stop_us = stop_us;
  for (int step = 0; step < 10000 && !s->enc.footer_written; step++) {
    int final = s->rec.samples.count <= 2048 && s->rec.events.count <= 2048;
    if (wt_session_encode_step(s, 2048, final) != WT_OK) return 0;
    if (!s->enc.footer_written) drain_output(s);
  }
  return s->enc.footer_written;
}

/* The stats record's bufferHighWaterBytes in everything the session wrote
 * (inflated if compressed); -1 if not found. */
static double written_high_water(wt_session *s) {
  drain_output(s);
  out_bytes out = written;
  written = (out_bytes){0};
  if (out.data && s->config.gzip) {
    out_bytes plain = {0};
    if (!inflate_gzip(&out, &plain)) {
      free(plain.data);
      plain.data = NULL;
    }
    free(out.data);
    out = plain;
  }
  double hw = -1;
  if (out.data) {
    const char *key = "\"bufferHighWaterBytes\":";
    const char *at = strstr((const char *)out.data, key);
    if (at) hw = strtod(at + strlen(key), NULL);
  }
  free(out.data);
  return hw;
}

static void free_session(wt_session *s) {
  drain_output(s);
  free(written.data);
  written = (out_bytes){0};
  wt_session_free_buffers(s);
  wt_outq_free(&s->out);
  free(s);
}

/* What wt_session_memory must say: every buffer, the encoder's state and
 * what it retains, and the output in flight. */
static size_t memory_parts(wt_session *s) {
  return s->rec.samples.cap * (sizeof(wt_sample) + sizeof(uint32_t)) + wt_ring_bytes(&s->rec.events) +
         s->rec.node_cap * (sizeof(wt_node) + 2 * sizeof(uint32_t)) + s->enc.encoder->state_bytes +
         s->enc.encoder_retained + (size_t)wt_outq_in_flight(&s->out);
}

#define MIN_BUFFER_KB 64 /* the least maxBufferKB the config accepts (config.c) */

/* Default compression (gzip), for which the output budget's per-sample
 * estimate was measured (session.c, wt_session_encode_quota). */
WT_TEST(sessions_at_the_smallest_limit_should_stay_within_it_counting_the_encoder_state) {
  static const char *const names[] = {"chrome", "firefox", "folded"};
  const size_t limit = MIN_BUFFER_KB * 1024;
  for (int format = WT_FORMAT_CHROME; format <= WT_FORMAT_FOLDED; format++) {
    char err[WT_ERROR_MAX];
    wt_session *s = limit_session((wt_format)format, MIN_BUFFER_KB, 1, err, sizeof err);
    REQUIRE(s != NULL);
    const wt_encoder *e = s->enc.encoder;
    size_t peak = record_at_limit(s, 3000);
    REQUIRE(peak > 0);
    /* The call tree is full: what the encoder keeps per node stays within
     * what it declared per node of capacity. */
    CHECK_EQ_INT(s->rec.node_count, s->rec.node_cap);
    if (e->bits_per_node)
      CHECK(s->enc.encoder_retained <= ((size_t)s->rec.node_cap * e->bits_per_node + 7) / 8);
    else
      CHECK(s->enc.encoder_retained <= s->rec.retain_sample_bytes + s->rec.retain_event_bytes);
    /* The state is counted, and the limit holds with it. */
    REQUIRE(s->enc.encoder_state != NULL);
    CHECK_EQ_U64(wt_session_memory(s), memory_parts(s));
    CHECK(atomic_load(&s->high_water) >= e->state_bytes + s->rec.node_cap * sizeof(wt_node));
    if (peak > limit) fprintf(stderr, "    %s: %zu bytes after a step, limit %zu\n", names[format], peak, limit);
    CHECK(peak <= limit);
    REQUIRE(finish_at_limit(s, T0 + 3000000.0));
    size_t hw = atomic_load(&s->high_water);
    if (hw > limit) fprintf(stderr, "    %s: high water %zu, limit %zu\n", names[format], hw, limit);
    CHECK(hw <= limit);
    /* The file states a high-water mark within the limit that counts the state. */
    double stated = written_high_water(s);
    CHECK(stated >= (double)e->state_bytes && stated <= (double)limit);
    free_session(s);
  }
}

WT_TEST(session_setup_should_fail_naming_maxBufferKB_when_the_format_state_does_not_fit) {
  for (int format = WT_FORMAT_CHROME; format <= WT_FORMAT_FOLDED; format++) {
    char err[WT_ERROR_MAX];
    CHECK(limit_session((wt_format)format, 0, 1, err, sizeof err) == NULL);
    CHECK(strstr(err, "maxBufferKB is 0, below the ") == err);
  }
  /* Chrome keeps a record per possible thread: 8 KiB do not leave room for
   * it and the buffers; the smallest limit the config accepts does. */
  char err[WT_ERROR_MAX];
  CHECK(limit_session(WT_FORMAT_CHROME, 8, 1, err, sizeof err) == NULL);
  CHECK(strstr(err, "maxBufferKB is 8, below the ") == err && strstr(err, "chrome format") != NULL);
  wt_session *s = limit_session(WT_FORMAT_CHROME, MIN_BUFFER_KB, 1, err, sizeof err);
  CHECK(s != NULL);
  if (s) free_session(s);
}

/* The fixed input's function frames are made-up table indices that the
 * host names "function[N]"; in wasm they are real slots of the test
 * binary's table, which the JS shim names after their functions. */
#define HOST_NAMES "expects the host's names for made-up table indices"

int main(int argc, char **argv) {
  static const wt_test tests[] = {
      WT_TEST_HOST_ONLY(chrome_encoder_should_match_its_golden_file, HOST_NAMES),
      WT_TEST_HOST_ONLY(firefox_encoder_should_match_its_golden_file, HOST_NAMES),
      WT_TEST_HOST_ONLY(firefox_profile_should_hold_threads_samples_markers_and_counters, HOST_NAMES),
      WT_TEST_HOST_ONLY(folded_encoder_should_match_its_golden_file, HOST_NAMES),
      WT_TEST_ENTRY(folded_lines_should_have_one_stack_and_a_count_and_no_control_characters),
      WT_TEST_ENTRY(sample_flags_should_append_partial_then_waiting_as_the_leaf),
      WT_TEST_ENTRY(sample_weights_should_count_the_grid_periods_since_the_threads_previous_sample),
      WT_TEST_ENTRY(folded_stats_line_should_be_the_session_and_stats_records_as_json),
      WT_TEST_ENTRY(chrome_long_tasks_should_be_x_events_on_a_track_of_their_own),
      WT_TEST_ENTRY(firefox_long_tasks_should_be_markers_on_the_main_thread),
      WT_TEST_ENTRY(long_tasks_should_be_left_out_when_the_page_said_nothing),
      WT_TEST_ENTRY(chrome_startup_phases_should_be_x_events_on_startup_tracks_that_do_not_overlap),
      WT_TEST_ENTRY(firefox_startup_phases_should_be_markers_of_the_startup_category),
      WT_TEST_ENTRY(folded_stats_line_should_carry_the_startup_phases),
      WT_TEST_ENTRY(sessions_started_later_should_write_only_the_phases_that_began_while_they_recorded),
      WT_TEST_ENTRY(sessions_started_later_should_write_no_startup_when_no_phase_began_while_they_recorded),
      WT_TEST_ENTRY(sessions_without_the_startup_category_should_write_no_timeline),
      WT_TEST_ENTRY(phase_table_should_keep_its_capacity_and_count_the_rest),
      WT_TEST_ENTRY(encoder_steps_should_leave_budgets_alone_and_keep_the_accounting_exact),
      WT_TEST_ENTRY(gzip_output_should_inflate_to_the_plain_output),
      WT_TEST_ENTRY(sessions_at_the_smallest_limit_should_stay_within_it_counting_the_encoder_state),
      WT_TEST_ENTRY(session_setup_should_fail_naming_maxBufferKB_when_the_format_state_does_not_fit),
  };
  int rc = wt_test_main(argc, argv, tests, WT_TEST_COUNT(tests));
  wt_runtime_reset_for_testing(0);
  return rc;
}
