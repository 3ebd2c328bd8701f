// Types of wasmtrace's Node API (import ... from 'wasmtrace'), and the
// browser-side types of Module.wasmtrace (js/wasmtrace.d.ts), re-exported so
// `import type { WasmtraceModule } from 'wasmtrace'` works.
export type {
  WasmtraceApi,
  WasmtraceConfig,
  WasmtraceModule,
  WasmtraceSession,
  WasmtraceSessionConfig,
  WasmtraceSessionState,
  WasmtraceStats,
} from '../js/wasmtrace.js';

/** Trace formats wasmtrace writes. */
export type TraceFormat = 'chrome' | 'firefox' | 'folded';

/** One sample: the call stack, root first ([] when the thread was idle). */
export interface ProfileSample {
  /** Microseconds on the page's clock (chrome) or since the profile start (firefox); null in folded files. */
  ts: number | null;
  stack: string[];
  /** Number of samples this entry stands for (folded lines carry counts). */
  weight: number;
}

/** A scope (WT_SCOPE, wt_begin/wt_end) or interval marker, in microseconds. */
export interface ProfileScope {
  name: string;
  ts: number;
  dur: number;
  cat: string;
}

export interface ProfileThread {
  tid: number | string;
  name: string;
  samples: ProfileSample[];
  scopes: ProfileScope[];
}

/** A trace read into one model, whatever its format. */
export interface Profile {
  format: TraceFormat;
  /**
   * The session metadata the trace carries (chrome: the wasmtrace_session
   * record; firefox: meta.wasmtrace; folded: the '# wasmtrace {...}' record
   * without its stats), or null.
   */
  session: Record<string, unknown> | null;
  /** Sampling period in microseconds, or null when the trace does not say. */
  intervalUs: number | null;
  /** Drop counts and totals the trace states (chrome: wasmtrace_stats; folded: the record's "stats"), or null. */
  stats: Record<string, any> | null;
  threads: ProfileThread[];
  /** The startup timeline the trace carries (sessions started before main()), or null. */
  startup: StartupTimeline | null;
  /** The page main thread's long tasks the trace carries (recorded in Chromium), or null. */
  longTasks: LongTasks | null;
  /** Exact call counts of an instrumented build (lib/calls.mjs), or null. */
  calls: Calls | null;
}

/**
 * What an instrumented build counted: every call of every instrumented
 * function, per thread, since the thread's first instrumented call (`since`
 * "threadStart"), read as the trace was finished.
 */
export interface Calls {
  since: string;
  threads: { name: string; functions: Map<string, number>; notCounted: number }[];
  /** Entries of the trace that were not a name and a count (left out). */
  malformed: number;
}

/** The call counts of a stats record, or null. */
export function callsOf(stats: Record<string, any> | null | undefined): Calls | null;
/** Calls per function, summed over the threads. */
export function callsByFunction(calls: Calls | null): Map<string, number>;
/** One line: "1,204 in 12 functions on 3 threads"; null without counts. */
export function callSummary(calls: Calls | null): string | null;

/**
 * The page main thread's long tasks (tasks of 50 ms or more: the browser's
 * `longtask` entries) while the session recorded. observed false: the
 * browser gives none (Firefox), with the reason.
 */
export interface LongTasks {
  observed: boolean;
  count: number;
  /** Microseconds in all, and the longest task's. */
  totalUs: number;
  longestUs: number;
  /** Tasks not kept (the page's table was full). */
  dropped: number;
  reason: string | null;
}

/** The long tasks of a stats record, or null (lib/profile.mjs). */
export function longTasksOf(stats: Record<string, any> | null | undefined): LongTasks | null;
/** One line: "3, 412 ms in all, longest 250 ms"; null without them. */
export function longTaskSummary(longTasks: LongTasks | null): string | null;

/** One phase of the startup timeline, in microseconds since the page's navigation start. */
export interface StartupPhase {
  /** What it is: "fetch app.wasm", "compile + instantiate (streaming)", "worker 1 load", "main()", a mark's name... */
  name: string;
  /** A span, an instant (begin === end), or a note saying what could not be recorded (name is the sentence). */
  kind: 'span' | 'instant' | 'note';
  begin: number;
  end: number;
  /** Bytes transferred (resources), or null. */
  bytes: number | null;
}

/** The startup timeline: phases in begin order, and how many were refused or left out. */
export interface StartupTimeline {
  phases: StartupPhase[];
  dropped: number;
}

/** The startup timeline of a stats record, or null (lib/profile.mjs). */
export function startupOf(stats: Record<string, any> | null | undefined): StartupTimeline | null;

/** The moments a reader asks for first, in microseconds since navigation start (null when the timeline lacks one). */
export interface StartupMomentsResult {
  main: number | null;
  ready: number | null;
  /** Pool workers ready before main(), and when the last of them was. */
  workers: number;
  workersReadyAt: number | null;
  /** The wasm fetch and its compile, with their durations (microseconds). */
  wasmFetch: { name: string; dur: number } | null;
  compile: { name: string; dur: number } | null;
}
export function startupMoments(timeline: StartupTimeline | null): StartupMomentsResult;
/** The share of [0, until] (microseconds; default main() entry) the timeline's spans cover, 0..1. */
export function startupCoverage(timeline: StartupTimeline | null, until?: number | null): number;
/** One line: "fetch app.wasm 152 ms, compile + instantiate (streaming) 11.5 ms, ..., main() at 688 ms"; null without a timeline. */
export function startupSummary(timeline: StartupTimeline | null): string | null;
/** The startup waterfall as text lines (a bar per phase on one scale). */
export function startupWaterfall(timeline: StartupTimeline | null, options?: { width?: number; printable?: (s: string) => string }): string[];

/**
 * Why a trace file cannot be read: one line naming the problem (the field,
 * the index, the limit) and what to do. Every refusal of readProfile is one.
 */
export class TraceError extends Error {
  name: 'TraceError';
  code: 'WASMTRACE_BAD_TRACE';
}

/**
 * Reads a trace file's bytes (any format wasmtrace writes, gzip or not).
 * Trace files are untrusted input: returns a valid Profile or throws a
 * TraceError, within maxBytes of (inflated) text (default: the
 * WASMTRACE_MAX_TRACE_MB environment variable, else 256 MiB) and the JS
 * heap the process has free.
 */
export function readProfile(input: Uint8Array | ArrayBuffer | string, options?: { format?: TraceFormat; maxBytes?: number }): Profile;
/** Tells the format of a trace's (uncompressed) text; 'json' when only parsing can tell. */
export function detectFormat(text: string): TraceFormat | 'json';

export interface FunctionRow {
  name: string;
  /** Samples in which the function was the leaf. */
  self: number;
  /** Of `self`: samples marked "(waiting)", in which its thread was blocked
   * in a wait there. */
  waiting: number;
  /** Samples in which it was anywhere on the stack (once per sample). */
  total: number;
}
/** Functions of a thread by self samples, descending (idle samples and
 * markers left out: a sample ending in "(partial stack)" or "(waiting)"
 * gives its self sample to the last real frame before the marker). */
export function functionTable(thread: ProfileThread): FunctionRow[];

export interface CallTreeNode {
  name: string;
  value: number;
  self: number;
  children: CallTreeNode[];
}
/** The merged call tree of a thread's busy samples; the root is '(root)'. */
export function callTree(thread: ProfileThread): CallTreeNode;
/** Sample totals of a thread: partial counts samples marked "(partial
 * stack)" (only the callers above the marker are known), waiting those
 * marked "(waiting)"; both are busy samples. */
export function threadTotals(thread: ProfileThread): { total: number; idle: number; busy: number; partial: number; waiting: number };
/** The pseudo frames wasmtrace puts at the leaf end of a sample's stack. */
export const MARKERS: { readonly partial: '(partial stack)'; readonly waiting: '(waiting)' };
/** Frames of a stack that are real functions (markers at its end are not). */
export function realDepth(stack: string[]): number;
/** Samples with `name` on the stack (self: as the leaf, the last real frame). */
export function weightOf(thread: ProfileThread, name: string, options?: { self?: boolean }): number;
/** Samples to milliseconds with the profile's interval; null when it is unknown. */
export function weightToMs(profile: Profile, weight: number): number | null;

/** The terminal report: top functions by self and total time, per thread. */
export function textReport(profile: Profile, options?: { top?: number; thread?: string; title?: string }): string;
/** A self-contained HTML page with an interactive flame graph per thread. */
export function htmlReport(profile: Profile, options?: { title?: string; file?: string; top?: number }): string;
/** The data the HTML page renders. */
export function reportData(profile: Profile, options?: { title?: string; file?: string; top?: number }): object;

/**
 * Serves a directory on 127.0.0.1 with the cross-origin isolation headers
 * (COOP/COEP) that pages using pthreads need. port 0 picks a free one.
 * Only files whose real path is under `dir` (or under one of linksInto) are
 * served, and only to requests for the server's own host (DNS rebinding).
 */
export function serve(dir: string, options?: { port?: number; host?: string; quiet?: boolean; linksInto?: string[];
  /** Send `Document-Policy: js-profiling` (the page's JS profile, Chromium). Default false. */
  jsProfiling?: boolean }):
  Promise<{ url: string; port: number; close(): Promise<void> }>;

/** The name of the thread addJsProfile adds. */
export const JS_THREAD_NAME: 'main (JS)';
/**
 * Adds the page's JS profiles (Module.wasmtrace.jsProfile(): the shim's
 * plain data of the browser's JS Self-Profiling API, not a raw
 * ProfilerTrace) to a wasmtrace trace of any format, gzip or not, as the
 * threads "main (JS)" and "worker N (JS)": the samples in the session's
 * window, weighted in the session's sampling periods. The wasm modules name
 * the functions of a stripped build ("wasm-function[N]"). Throws for a trace
 * or profile it cannot read (a TraceError, or the JSON/zlib error of a
 * broken file).
 */
export function addJsProfile(trace: Uint8Array, profile: unknown, options?: {
  /** One module for every wasm URL. */
  wasmBytes?: Uint8Array | null;
  /** Each module by its URL (as the profile's resources name it). */
  wasmModules?: Map<string, Uint8Array> | null;
}): {
  bytes: Uint8Array;
  /** Samples of "main (JS)" added. */
  added: number;
  /** The workers' threads added ("worker N (JS)"), with their samples. */
  workers: Array<{ name: string; samples: number }>;
  /** '' or why the main thread has none. */
  reason: string;
  /** '' or what is missing of the workers. */
  workersReason: string;
};
/** True for a thread addJsProfile added ("main (JS)", "worker N (JS)"). */
export function isJsProfileThread(name: unknown): boolean;
/**
 * Reads a JS profile (the shim's plain data: Module.wasmtrace.jsProfile(), not a raw ProfilerTrace) into frames
 * (name, url, line, column, kind) and samples (ts in us on the page's clock, stack of frame indexes, root first).
 * offsetMs: added to every time (a worker's clock to the page's).
 */
export function readJsProfile(profile: unknown, options?: {
  wasmFunctionAt?: ((offset: number, url: string) => number | null) | null;
  offsetMs?: number;
}): {
  intervalMs: number; full: boolean;
  frames: Array<{ name: string; url: string; line: number; column: number; kind: 'wasm' | 'js' | 'native' }>;
  samples: Array<{ ts: number; stack: number[] }>;
};
/** offset -> wasm function index of the module's code (null when out of range), or null for bytes it cannot read. */
export function wasmFunctionLocator(bytes: Uint8Array): ((offset: number) => number | null) | null;

/**
 * The profile as a gzip-compressed pprof file (profile.proto: go tool pprof,
 * Pyroscope, Parca, speedscope). kind 'cpu' (default): every thread's CPU
 * samples, values [samples, cpu nanoseconds], labels "thread" and
 * "thread_id" ("state": waiting or partial stack). kind 'heap' (a firefox
 * trace of a session with "heap"): alloc_space, inuse_space and peak_space
 * in bytes. thread keeps one thread. Throws a TraceError when there is
 * nothing to convert.
 */
export function toPprof(profile: Profile, options?: { kind?: 'cpu' | 'heap'; thread?: string | number }): Uint8Array;
