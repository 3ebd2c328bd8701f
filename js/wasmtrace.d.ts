// Type declarations for the wasmtrace JS shim: `Module.wasmtrace` on an
// Emscripten module linked with wasmtrace.

/** Lifecycle of a session; it only moves forward. */
export type WasmtraceSessionState = 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';

/** One session object of the config blob (see config/wasmtrace.schema.json). */
export interface WasmtraceSessionConfig {
  /** Letters, digits, '-', '_', '.'; used in the default output path. */
  name?: string;
  /** Absolute VFS path of the trace. Default `/traces/<name>.json.gz`. */
  output?: string;
  /** Default "chrome"; see docs/VIEWERS.md for which viewer reads which. */
  format?: 'chrome' | 'firefox' | 'folded';
  compression?: 'gzip' | 'none';
  /** zlib level 1..9, default 1. */
  compressionLevel?: number;
  sampling?: { enabled?: boolean; /** default 1000 */ intervalUs?: number };
  /** Scope categories: exact, "*", or "prefix*". Default ["*"]. */
  categories?: string[];
  /** Auto-stop after this many ms; 0 (default) runs until stop(). */
  durationMs?: number;
  /** Memory limit of the session's buffers, KiB. Default 16384. */
  maxBufferKB?: number;
  /** "stop" (default) drops new data when full, "ring" drops the oldest. */
  whenFull?: 'stop' | 'ring';
  /** Replace `output` if it exists (never allowed from the URL parameter). Default false. */
  overwrite?: boolean;
}

/** The config blob given as `Module.wasmtraceConfig`. */
export interface WasmtraceConfig {
  $schema?: string;
  version?: 1;
  sessions: WasmtraceSessionConfig[];
}

/** Counters of a session. samplesTaken = samplesWritten + samplesDropped once stopped. */
export interface WasmtraceStats {
  samplesTaken: number;
  samplesWritten: number;
  samplesDropped: number;
  samplesDroppedBufferFull: number;
  samplesDroppedTornStack: number;
  eventsWritten: number;
  eventsDropped: number;
  ticksMissed: number;
  /** Uncompressed trace bytes produced so far. */
  bytesEncoded: number;
  /** Bytes written to the output file so far. */
  bytesWritten: number;
  threads: number;
  bufferHighWaterBytes: number;
}

export interface WasmtraceSession {
  readonly id: number;
  readonly name: string;
  /** VFS path of the trace. */
  readonly output: string;
  readonly state: WasmtraceSessionState;
  /** Why the session failed (names the config key when that is the cause), else null. */
  readonly error: string | null;
  stats(): WasmtraceStats;
  /**
   * Stops recording. Resolves with the session once the trace file is
   * complete; rejects if the session failed. Never blocks the main thread;
   * calling it again returns the same promise.
   */
  stop(): Promise<WasmtraceSession>;
  /** The finished trace (throws unless the state is "stopped"). */
  getTraceBytes(): Uint8Array;
  /** The finished trace as a Blob: application/gzip, or without compression application/json (chrome, firefox) or text/plain (folded). */
  getTraceBlob(): Blob;
  /** Saves the finished trace through a download link (pages only). */
  download(filename?: string): void;
}

export interface WasmtraceApi {
  /**
   * The C library's version (WT_VERSION_STRING, the package's version), or
   * 'unknown' before the runtime is initialized or with a library older
   * than this shim.
   */
  readonly version: string;
  /** Sessions started from the config blob before main(), failed ones included. */
  getStartupSessions(): WasmtraceSession[];
  /** Starts a session now. Always returns a session: check `state` and `error`. */
  startSession(config?: WasmtraceSessionConfig | string): WasmtraceSession;
  /** A problem with the whole config blob (e.g. malformed JSON), else null. */
  readonly configError: string | null;
  /**
   * Memory of the whole module (wasm memory size, bytes in use by malloc or -1
   * if unknown) and what wasmtrace allocates per registered thread and per
   * session record.
   */
  memory(): { heapBytes: number; mallocBytes: number; threadRecordBytes: number; sessionRecordBytes: number };
  /** Writes pending trace output to the VFS now (it also runs on a timer). */
  pump(): void;
}

/** Fields wasmtrace adds to the Emscripten Module object. */
export interface WasmtraceModule {
  /** Startup config: an object or its JSON text. */
  wasmtraceConfig?: WasmtraceConfig | string;
  wasmtrace: WasmtraceApi;
}
