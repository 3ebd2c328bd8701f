// Types of the wasmtrace Playwright helper (import ... from 'wasmtrace/playwright').
import type { Profile, TraceFormat } from '../lib/index.js';
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
 * Makes the page start its module with `config` as Module.wasmtraceConfig
 * (it wins over the page's own). Call before page.goto.
 */
export function configure(page: PageLike, config: WasmtraceConfig): Promise<void>;
/** `url` with the config in its `wasmtrace` query parameter (for -sMODULARIZE builds). */
export function withConfig(url: string, config: WasmtraceConfig | string): string;

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
}

/** The state of wasmtrace in the page now. */
export function status(page: PageLike, options?: ModuleOption): Promise<PageStatus>;

/**
 * Waits until Module.wasmtrace is usable. Rejects with a WasmtraceError
 * ('not-isolated', 'no-module', 'no-api', 'not-initialized', 'busy').
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
 * true in the page, or durationMs pass; timeoutMs bounds it all.
 */
export function waitForSessions(page: PageLike, options?: ModuleOption & {
  until?: string;
  durationMs?: number;
  timeoutMs?: number;
  progressMs?: number;
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
  bytes?: Buffer;
  /** Absolute path of the written file, when outDir was given. */
  file?: string;
  /** The parsed trace, when parse is true (default). */
  profile?: Profile;
  parseError?: string;
}

/** Stops the sessions (all, or the named ones / ids) and brings their traces back. */
export function collectTraces(page: PageLike, options?: ModuleOption & {
  sessions?: string | number | Array<string | number>;
  outDir?: string;
  parse?: boolean;
  timeoutMs?: number;
}): Promise<CollectedTrace[]>;
