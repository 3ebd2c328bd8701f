/* Every counter of a session, listed once.
 *
 * A counter has a C name (its wt_session_stats member, wasmtrace.h), a JS
 * name (its key in session.stats(): STAT_KEYS in js/wasmtrace_post.js and
 * WasmtraceStats in js/wasmtrace.d.ts), a path in the trace's stats record
 * (wt_encode_write_stats, session.c: what every encoder writes) and the
 * places the CLI prints it. What C can derive it derives from this list
 * (wt_js_session_stats fills its array in this order); JS cannot include a
 * header, so tests/node/counters.test.mjs reads this file and fails when a
 * counter is missing from, or out of order in, the struct, the shim, the
 * .d.ts, the golden traces or the CLI's summary and report. To add a
 * counter: a line here, then what that test names.
 *
 *   WT_STAT(field, type, js, trace, shown, doc)
 *     a counter of session.stats() (and of wt_session_stats), in their order;
 *     trace: "" when the trace does not state it.
 *   WT_TRACE_STAT(trace, shown, doc)
 *     a figure only the trace's stats record states.
 *   shown: WT_SHOWN_RECORD (`wasmtrace record`'s summary, lib/cli.mjs),
 *     WT_SHOWN_REPORT (`wasmtrace report`, lib/report.mjs and the limit
 *     notes), WT_SHOWN_SOMETIMES (a trace field written only in some traces:
 *     when memory ran out, or by one format), or 0.
 * Names in traces and in JS are what users and readers depend on: never
 * rename one. */
#ifndef WT_STATS_LIST_H
#define WT_STATS_LIST_H

#include <stdint.h>

#include "wasmtrace/wasmtrace.h"

#define WT_SHOWN_RECORD 1
#define WT_SHOWN_REPORT 2
#define WT_SHOWN_SOMETIMES 4

#define WT_STATS(WT_STAT, WT_TRACE_STAT)                                                            \
  WT_STAT(samples_taken, uint64_t, "samplesTaken", "samplesTaken",                                  \
          WT_SHOWN_RECORD | WT_SHOWN_REPORT, "per-thread samples the sampler recorded")             \
  WT_STAT(samples_written, uint64_t, "samplesWritten", "samplesWritten", WT_SHOWN_RECORD,           \
          "samples encoded into the output")                                                        \
  WT_STAT(samples_dropped, uint64_t, "samplesDropped", "samplesDropped",                            \
          WT_SHOWN_RECORD | WT_SHOWN_REPORT, "samples lost: buffer full or stack unreadable")        \
  WT_STAT(samples_dropped_full, uint64_t, "samplesDroppedBufferFull", "dropped.bufferFull",          \
          WT_SHOWN_RECORD | WT_SHOWN_REPORT, "samples lost because the session's buffer was full")  \
  WT_STAT(samples_torn, uint64_t, "samplesDroppedTornStack", "dropped.tornStack",                   \
          WT_SHOWN_RECORD | WT_SHOWN_REPORT,                                                         \
          "samples lost because the stack was unreadable (0 since the moving-stack protocol)")      \
  WT_STAT(events_written, uint64_t, "eventsWritten", "eventsWritten", WT_SHOWN_RECORD,              \
          "scope begin/end, instant and counter events encoded")                                    \
  WT_STAT(events_dropped, uint64_t, "eventsDropped", "dropped.events",                              \
          WT_SHOWN_RECORD | WT_SHOWN_REPORT, "events lost: a per-thread ring or a buffer was full") \
  WT_STAT(ticks_missed, uint64_t, "ticksMissed", "ticksMissed", WT_SHOWN_RECORD | WT_SHOWN_REPORT,  \
          "sampler deadlines skipped because it ran late")                                          \
  WT_STAT(bytes_encoded, uint64_t, "bytesEncoded", "", WT_SHOWN_RECORD,                             \
          "uncompressed trace bytes produced")                                                      \
  WT_STAT(bytes_written, uint64_t, "bytesWritten", "", 0,                                           \
          "compressed bytes written to the output file")                                            \
  WT_STAT(threads, uint32_t, "threads", "threads", WT_SHOWN_RECORD,                                 \
          "threads that appear in the session")                                                     \
  WT_STAT(buffer_high_water, uint32_t, "bufferHighWaterBytes", "bufferHighWaterBytes", 0,           \
          "peak bytes held by the session's buffers")                                               \
  WT_STAT(threads_refused, uint64_t, "threadsRefused", "dropped.threadsNotRegistered",              \
          WT_SHOWN_RECORD | WT_SHOWN_REPORT,                                                         \
          "threads the registry refused in the page's life (never sampled)")                        \
  WT_STAT(threads_limit, uint32_t, "threadsLimit", "", 0, "thread records at once")                 \
  WT_STAT(samples_partial, uint64_t, "samplesPartial", "partialStack",                              \
          WT_SHOWN_RECORD | WT_SHOWN_REPORT,                                                         \
          "samples kept with only a true prefix of their stack (\"(partial stack)\" leaf)")         \
  WT_STAT(samples_waiting, uint64_t, "samplesWaiting", "waiting", 0,                                \
          "samples of a thread blocked in a wait (\"(waiting)\" leaf)")                             \
  WT_TRACE_STAT("encodeUs", 0, "worker time spent in this session's encoder steps")                 \
  WT_TRACE_STAT("workerCreatedUs", 0, "when the worker thread was created (session clock)")         \
  WT_TRACE_STAT("workerStartedUs", 0, "when the worker thread started running")                     \
  WT_TRACE_STAT("workerBusyUs", 0, "worker time awake while this session ran")                      \
  WT_TRACE_STAT("samplerLatenessUs.p50Below", 0, "sampler lateness, 50th percentile bound")         \
  WT_TRACE_STAT("samplerLatenessUs.p99Below", 0, "sampler lateness, 99th percentile bound")         \
  WT_TRACE_STAT("samplerLatenessUs.max", 0, "sampler lateness, largest")                            \
  WT_TRACE_STAT("startTimeUs", 0, "when the session started (session clock)")                       \
  WT_TRACE_STAT("stopTimeUs", 0, "when it stopped")                                                 \
  WT_TRACE_STAT("allocationsRefused", WT_SHOWN_SOMETIMES,                                           \
                "its allocations the heap refused (only when memory ran out)")                      \
  WT_TRACE_STAT("stoppedEarly", WT_SHOWN_SOMETIMES, "\"out of memory\" when it stopped early")      \
  WT_TRACE_STAT("lost", WT_SHOWN_SOMETIMES, "what the output lacks and why")                        \
  WT_TRACE_STAT("eventsNotRepresentable", WT_SHOWN_SOMETIMES,                                       \
                "events a folded output cannot hold (folded only)")                                 \
  /* The recorders' members (recorder.h), in traces of sessions that have them. */                 \
  WT_TRACE_STAT("heap.sampleBytes", WT_SHOWN_SOMETIMES,                                              \
                "heap sessions (rec_heap.c): the mean bytes between samples")                        \
  WT_TRACE_STAT("heap.linked", WT_SHOWN_SOMETIMES, "whether the app links the allocator shim")       \
  WT_TRACE_STAT("heap.unavailable", WT_SHOWN_SOMETIMES,                                              \
                "why the shim has no queue (out of memory), when so")                                \
  WT_TRACE_STAT("heap.allocations", WT_SHOWN_SOMETIMES, "sampled allocations the session took")      \
  WT_TRACE_STAT("heap.frees", WT_SHOWN_SOMETIMES, "their frees")                                     \
  WT_TRACE_STAT("heap.liveBytes", WT_SHOWN_SOMETIMES, "estimated bytes live at the end")             \
  WT_TRACE_STAT("heap.peakBytes", WT_SHOWN_SOMETIMES, "estimated bytes live at the peak")            \
  WT_TRACE_STAT("heap.allocatedBytes", WT_SHOWN_SOMETIMES, "estimated bytes allocated in all")       \
  WT_TRACE_STAT("heap.dropped.queueFull", WT_SHOWN_SOMETIMES,                                        \
                "samples dropped, the shim's queue full (page-wide)")                                \
  WT_TRACE_STAT("heap.dropped.setFull", WT_SHOWN_SOMETIMES,                                          \
                "samples dropped, the address set full (page-wide)")                                 \
  WT_TRACE_STAT("heap.dropped.freesLost", WT_SHOWN_SOMETIMES,                                        \
                "frees of sampled blocks not queued (page-wide)")                                    \
  WT_TRACE_STAT("heap.dropped.bytes", WT_SHOWN_SOMETIMES,                                            \
                "the estimated bytes the dropped samples stood for")                                 \
  WT_TRACE_STAT("heap.addressSet.tables", WT_SHOWN_SOMETIMES, "the address set's tables")            \
  WT_TRACE_STAT("heap.addressSet.slots", WT_SHOWN_SOMETIMES, "and their slots")                      \
  WT_TRACE_STAT("heap.withoutThread.allocations", WT_SHOWN_SOMETIMES,                                \
                "sampled before their thread's record existed")                                      \
  WT_TRACE_STAT("heap.withoutThread.bytes", WT_SHOWN_SOMETIMES, "and their estimated bytes")         \
  WT_TRACE_STAT("startup.phases", WT_SHOWN_SOMETIMES,                                                \
                "the startup timeline (rec_timeline.c): its phases")                                 \
  WT_TRACE_STAT("startup.dropped", WT_SHOWN_SOMETIMES, "phases refused (table full, malformed)")     \
  WT_TRACE_STAT("longTasks.observed", WT_SHOWN_SOMETIMES,                                            \
                "long tasks (rec_longtask.c): whether the page observes them")                       \
  WT_TRACE_STAT("longTasks.reason", WT_SHOWN_SOMETIMES, "why not, when not")                         \
  WT_TRACE_STAT("longTasks.count", WT_SHOWN_SOMETIMES,                                               \
                "the main thread's long tasks while it recorded")                                    \
  WT_TRACE_STAT("longTasks.totalUs", WT_SHOWN_SOMETIMES, "their time in all")                        \
  WT_TRACE_STAT("longTasks.longestUs", WT_SHOWN_SOMETIMES, "the longest one's")                      \
  WT_TRACE_STAT("longTasks.dropped", WT_SHOWN_SOMETIMES, "long tasks not kept (a table full)")       \
  WT_TRACE_STAT("calls.since", WT_SHOWN_SOMETIMES,                                                   \
                "instrumented builds (rec_calls.c): counts since each thread's first call")          \
  WT_TRACE_STAT("calls.threads", WT_SHOWN_SOMETIMES,                                                 \
                "per thread: name, functions ([name, calls] in table order), notCounted")           \
  /* Stamped by `wasmtrace record` (lib/tier.mjs), not by the library. */                        \
  WT_TRACE_STAT("recordedWith.tier", WT_SHOWN_SOMETIMES, "the wasm tier it was recorded in")        \
  WT_TRACE_STAT("recordedWith.browser", WT_SHOWN_SOMETIMES, "the browser that recorded it")          \
  WT_TRACE_STAT("recordedWith.version", WT_SHOWN_SOMETIMES, "its version")                           \
  WT_TRACE_STAT("recordedWith.args", WT_SHOWN_SOMETIMES, "the browser's command-line flags")         \
  WT_TRACE_STAT("recordedWith.prefs", WT_SHOWN_SOMETIMES, "its preferences set for the recording")

/* Each counter's member has the type listed (wasmtrace.h). */
#define WT_I_STAT_TYPE(field, type, js, trace, shown, doc)                                        \
  _Static_assert(_Generic(((wt_session_stats *)0)->field, type: 1, default: 0),                   \
                 "stats_list.h: wt_session_stats." #field " is not " #type);
#define WT_I_STAT_NONE(trace, shown, doc)
WT_STATS(WT_I_STAT_TYPE, WT_I_STAT_NONE)

/* How many counters session.stats() has. */
#define WT_I_STAT_ONE(field, type, js, trace, shown, doc) +1
enum { WT_STATS_COUNT = 0 WT_STATS(WT_I_STAT_ONE, WT_I_STAT_NONE) };

#endif
