// Types of the wasmtrace Playwright helper (import ... from 'wasmtrace/playwright').
import type { Profile, TraceFormat } from '../lib/index.js';
import type { WasmtraceError } from './trace-assertions.js';
import type { WasmtraceConfig, WasmtraceSessionConfig, WasmtraceSessionState, WasmtraceStats } from './wasmtrace.js';

export type { Profile, TraceFormat };
export { readProfile } from '../lib/index.js';
// The assertions on a parsed trace (and WasmtraceError) live in
// trace-assertions; this module re-exports them.
export * from './trace-assertions.js';

/** The part of a Playwright Page the helper uses (any Playwright flavour). */
export interface PageLike {
  evaluate(expression: string): Promise<any>;
  evaluate<R, A>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<R>;
  addInitScript<A>(script: (arg: A) => unknown, arg?: A): Promise<void>;
  url(): string;
  /** Page events ('console', 'pageerror', 'framenavigated', 'close', 'crash'); without it, faults are not watched. */
  on?(event: string, listener: (...args: any[]) => void): unknown;
  mainFrame?(): unknown;
}

/** Options shared by the calls that reach the module. */
export interface ModuleOption {
  /** JS expression that evaluates to the Emscripten Module object. Default 'globalThis.Module'. */
  module?: string;
}

export const DEFAULT_MODULE: string;

/** Advice for a session error with a known cause (e.g. the pthread pool), or null. */
export function adviceFor(message: string): string | null;

/**
 * Makes the page start its module with `config`, set by an init script (never
 * in the URL) as Module.wasmtraceConfig (it wins over the page's own) and as
 * globalThis.wasmtraceConfig (read by -sMODULARIZE builds, whose Module is the
 * factory's argument). Call before page.goto. Also starts watchPage(page).
 */
export function configure(page: PageLike, config: WasmtraceConfig): Promise<void>;
/**
 * `url` with the config in its `wasmtrace` query parameter: the untrusted
 * source, and limited in size by the request line (prefer configure()).
 */
export function withConfig(url: string, config: WasmtraceConfig | string): string;

/** The reason inside Emscripten's "Aborted(<reason>)", or null. */
export function abortReason(text: string): string | null;

export interface PageWatch {
  /** The first fault ('aborted', 'navigated', 'closed', 'crashed'), or null. */
  fault: WasmtraceError | null;
  /** Rejects with the first fault. */
  failed: Promise<never>;
  /** Rejects when the page navigated away, closed or crashed. */
  gone: Promise<never>;
}

/**
 * Watches the page (once per page) for the faults that end a recording: the
 * wasm runtime aborting, the page closing or crashing, and, once
 * waitForWasmtrace() saw the module ready, a navigation of the main frame to
 * another document. The waits reject with the fault at once.
 */
export function watchPage(page: PageLike): PageWatch;

export interface SessionStatus {
  id: number;
  name: string;
  output: string;
  state: WasmtraceSessionState;
  error: string | null;
  stats: WasmtraceStats;
}

export interface PageStatus {
  status: 'no-module' | 'no-api' | 'not-initialized' | 'ready';
  configError: string | null;
  sessions: SessionStatus[];
  /** Module.wasmtrace.aborted: what happened once the wasm runtime aborted, else null. */
  aborted: string | null;
  /** The page's crossOriginIsolated. */
  isolated: boolean;
}

/** The state of wasmtrace in the page now. */
export function status(page: PageLike, options?: ModuleOption): Promise<PageStatus>;

/**
 * Waits until Module.wasmtrace is usable. Rejects with a WasmtraceError
 * ('not-isolated', 'no-module', 'no-api', 'not-initialized', 'busy', or a
 * fault: 'aborted', 'closed', 'crashed', 'page-error'). onProgress reports
 * the last status the page gave; 'busy' only once a probe has waited the
 * busy threshold (max(2 s, timeoutMs / 4)).
 */
export function waitForWasmtrace(page: PageLike, options?: ModuleOption & {
  timeoutMs?: number;
  onProgress?: (p: { elapsedMs: number; status: string }) => void;
}): Promise<PageStatus>;

/** Starts a session now; collectTraces collects it too. */
export function startSession(page: PageLike, config?: WasmtraceSessionConfig, options?: ModuleOption):
  Promise<{ id: number; name: string; state: WasmtraceSessionState; error: string | null }>;

/**
 * Waits until the sessions stop by themselves, `until` (a JS expression) is
 * true in the page, or durationMs pass; timeoutMs bounds it all. Rejects at
 * once with the page's fault ('aborted', 'navigated', 'closed', 'crashed').
 */
export function waitForSessions(page: PageLike, options?: ModuleOption & {
  until?: string;
  durationMs?: number;
  timeoutMs?: number;
  progressMs?: number;
  /** How long a probe waits before progress says busy (default 2000 ms). */
  busyAfterMs?: number;
  onProgress?: (p: { elapsedMs: number; busy: boolean; status: PageStatus | null }) => void;
}): Promise<{ reason: 'sessions' | 'until' | 'duration' | 'timeout'; status: PageStatus | null }>;

export interface CollectedTrace {
  id: number;
  name: string;
  /** VFS path the session wrote. */
  output: string;
  state: WasmtraceSessionState;
  /** Why the session failed, else null. */
  error: string | null;
  /** What to do about the error, when its cause is known. */
  advice: string | null;
  stats: WasmtraceStats;
  stopMs?: number;
  /** MIME type of the trace Blob. */
  type?: string;
  /** The trace file (a Node Buffer, which is a Uint8Array). */
  bytes?: Uint8Array;
  /** Absolute path of the written file, when outDir was given. */
  file?: string;
  /** The parsed trace, when parse is true (default). */
  profile?: Profile;
  parseError?: string;
  /**
   * The page main thread's JS profile (the JS Self-Profiling API, Chromium)
   * added to the trace as the thread "main (JS)": how many of its samples
   * fell in the session's window, or why there are none (e.g. the document
   * was not served with `Document-Policy: js-profiling`). Absent when the
   * session brought no trace or `jsProfile: false` was given.
   */
  jsProfile?: {
    samples: number;
    reason: string;
    /** The pthreads' workers that answered ("worker N (JS)"; Chromium with CHROMIUM_JS_PROFILING_ARGS). */
    workers: Array<{ name: string; samples: number }>;
    /** What is missing of the workers' profiles (e.g. a worker whose pthread still ran), or ''. */
    workersReason: string;
  };
}

/**
 * Stops the sessions (all, or the named ones / ids) and brings their traces
 * back. After the runtime aborted, sessions that had stopped still bring
 * their traces, the others fail with the abort's message; rejects when the
 * page navigated away, closed or crashed.
 */
export function collectTraces(page: PageLike, options?: ModuleOption & {
  sessions?: string | number | Array<string | number>;
  outDir?: string;
  parse?: boolean;
  timeoutMs?: number;
  /** Add the page's JS profile to each trace as "main (JS)" (default true). */
  jsProfile?: boolean;
  /** Stamped into each trace's stats record (tierLaunchOptions().recordedWith): diff compares one mode. */
  recordedWith?: RecordedWith | null;
}): Promise<CollectedTrace[]>;

/** How a trace was recorded (its stats record's recordedWith; record --tier writes it). */
export interface RecordedWith {
  tier: 'default' | 'optimized';
  browser: string;
  version: string;
  args: string[];
  prefs: Record<string, boolean | number | string>;
}

/**
 * The launch options of a wasm tier ('optimized': the optimizing tier from
 * the first call) for your own launch: chromium.launch({ args }),
 * firefox.launch({ firefoxUserPrefs }), and collectTraces({ recordedWith }).
 */
export function tierLaunchOptions(tier?: 'default' | 'optimized', browser?: 'chromium' | 'firefox'): {
  args: string[];
  firefoxUserPrefs: Record<string, boolean>;
  recordedWith: RecordedWith;
};

/** The Chromium features that let the pthreads' workers run the JS Self-Profiling API. */
export const CHROMIUM_JS_PROFILING_FEATURES: readonly string[];
/**
 * Chromium flags for the workers' JS profiles: chromium.launch({ args: [...CHROMIUM_JS_PROFILING_ARGS] }).
 * Chromium keeps only the last --enable-features: this one repeats playwright-core's own; merge yours into it.
 */
export const CHROMIUM_JS_PROFILING_ARGS: readonly string[];

/** One compared time of wasmtrace diff: a function's self or total time, a thread's busy time, or the window's. */
export interface DiffRow {
  kind: 'window' | 'thread' | 'self' | 'total';
  /** The function or thread ('(all threads)' for the window). */
  name: string;
  /** Mean per run, ms (or samples for traces without an interval). */
  base: number;
  new: number;
  /** new - base, with its 95 % interval. */
  diff: number;
  /** The difference's 95 % interval (null when not tested: no statistics are computed for such rows). */
  lo: number | null;
  hi: number | null;
  /** The change in % of base (null when base is 0). */
  pct: number | null;
  /** Welch's p (null when not tested); q: Benjamini-Hochberg adjusted (null when not tested). */
  p: number | null;
  q: number | null;
  /** The practical floor this row's difference must pass. */
  floor: number;
  /** False for times under minShare of the window on both sides. */
  tested: boolean;
  /** The Mann-Whitney U test's p, for comparison (null with one run a side, or when not tested). */
  pMannWhitney: number | null;
  /** untested: under minShare of the window on both sides, or below the threshold on both. */
  verdict: 'slower' | 'faster' | 'same' | 'undecided' | 'untested';
  /** For an undecided row: about how many runs a side would settle it. */
  runsNeeded?: number | null;
  baseRuns: number[];
  newRuns: number[];
}

/** What compare() returns (what `wasmtrace diff --json` writes, with text and markdown). */
export interface DiffResult {
  verdict: 'slower' | 'faster' | 'same' | 'undecided';
  unit: 'ms' | 'samples';
  runs: { base: number; new: number };
  /** One run on a side: intervals from slices of the runs (within-run noise only). */
  single: boolean;
  /** Compared pairwise (base run i against new run i, recorded in turns). */
  paired: boolean;
  files: { base: string[]; new: string[] };
  intervals: number[];
  mixedIntervals: boolean;
  threshold: { pct: number; ms: number };
  q: number;
  minShare: number;
  window: DiffRow | null;
  rows: Array<DiffRow & { key: string }>;
  /** Rows tested, and how many an uncorrected test of each alone would flag. */
  tested: number;
  uncorrected: number;
  threadsOnlyIn: { base: string[]; new: string[] };
  functions: { added: string[]; removed: string[] };
  /**
   * Exact call counts (instrumented builds; null when a run of either side
   * has none), per function summed over threads: 'changed' when each side
   * counts the same in all its runs and the sides differ, 'varies' when
   * runs of a side differ (not compared).
   */
  calls: {
    rows: Array<{ name: string; baseRuns: number[]; newRuns: number[]; verdict: 'changed' | 'same' | 'varies' }>;
    changed: number; same: number; varies: number;
  } | null;
  /** The terminal table and the Markdown summary. */
  text: string;
  markdown: string;
}

/** A side of compare(): a directory or trace files, or collected traces / profiles. */
export type DiffSide = string | string[] | Array<CollectedTrace | Profile>;

/**
 * wasmtrace diff from a test: runs of a base build against runs of a new
 * one (docs/GUIDE.md, "Did it get slower?"). Throws WasmtraceError 'diff'
 * on bad input.
 */
export function compare(base: DiffSide, next: DiffSide, options?: {
  /** '2%', '1ms' or both ('2%,1ms', the default). */
  threshold?: string;
  /** Test only times of at least this % of the window on one side (0.5). */
  minShare?: number;
  /** Keep only this session's traces (paths only). */
  session?: string;
  /** Base run i was recorded beside new run i (in turns): a paired test; as many runs a side. */
  paired?: boolean;
}): DiffResult;

/** Throws WasmtraceError 'slower' (its message: the table) when the verdict is slower. */
export function assertNotSlower(result: DiffResult): void;
