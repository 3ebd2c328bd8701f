// Types of the assertions on a parsed trace (re-exported by 'wasmtrace/playwright').
import type { Profile } from '../lib/index.js';

export type WasmtraceErrorCode =
  | 'bad-config' | 'not-isolated' | 'no-module' | 'no-api' | 'not-initialized' | 'busy'
  /** The page's faults (watchPage): the wasm runtime aborted, the page left, closed or crashed. */
  | 'aborted' | 'navigated' | 'closed' | 'crashed'
  /** An evaluation in the page failed (e.g. a module expression that throws). */
  | 'page-error'
  | 'no-thread' | 'no-interval' | 'assert-ran' | 'assert-time'
  /** The startup timeline: none in the trace, or no such phase; a phase too late. */
  | 'no-startup' | 'assert-startup'
  /** compare(): bad input (no traces, not a trace, different sessions or apps); assertNotSlower: slower. */
  | 'diff' | 'slower';

/** An error with a code to check and a message that says what to do. */
export class WasmtraceError extends Error {
  constructor(code: WasmtraceErrorCode, message: string);
  code: WasmtraceErrorCode;
}

export interface ThreadOption {
  /** A thread name or tid; default all threads. */
  thread?: string | number;
}

/** Samples with `name` on the stack (self: as the leaf). */
export function samplesIn(profile: Profile, name: string, options?: ThreadOption & { self?: boolean }): number;

/**
 * Time in `name` in ms: from its scope events ('scopes', exact) or samples x
 * interval ('samples'); 'auto' prefers scopes.
 */
export function timeIn(profile: Profile, name: string, options?: ThreadOption & {
  self?: boolean;
  source?: 'auto' | 'scopes' | 'samples';
}): { ms: number; source: 'scopes' | 'samples' };

/** Throws unless `name` was sampled (at least minSamples times) or has a scope event. */
export function assertRan(profile: Profile, name: string, options?: ThreadOption & { minSamples?: number }): number;

/** Throws unless the time in `name` (see timeIn) is below maxMs; returns it. */
export function assertTimeBelow(profile: Profile, name: string, maxMs: number, options?: ThreadOption & {
  self?: boolean;
  source?: 'auto' | 'scopes' | 'samples';
}): { ms: number; source: 'scopes' | 'samples' };

/**
 * When a startup phase happened, in ms since navigation start: 'main()' (its
 * entry), 'ready' or a mark (its instant), a span's name (its end).
 */
export function startupAt(profile: Profile, name: string): number;

/** Throws unless the startup phase (see startupAt) came before maxMs; returns its time in ms. */
export function assertStartupBefore(profile: Profile, name: string, maxMs: number): number;
