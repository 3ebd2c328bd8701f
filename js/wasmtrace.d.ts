// Type declarations for the wasmtrace JS shim: `Module.wasmtrace` on an
// Emscripten module linked with wasmtrace.

/** Lifecycle of a session; it only moves forward. */
export type WasmtraceSessionState = 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';

/** The JS Self-Profiling API's trace, as plain data (times: the page's performance.now(), ms). */
export interface WasmtraceJsProfile {
  reason: string;
  intervalMs?: number;
  startMs?: number;
  stopMs?: number;
  /** The browser stopped sampling: its buffer (60,000 samples) was full. */
  full?: boolean;
  /** [time, stackId]; no stackId: no JavaScript or wasm ran. */
  samples?: Array<[number] | [number, number]>;
  /** [frameId, parentId]; no parentId: outermost. */
  stacks?: Array<[number] | [number, number]>;
  /** line and column 1-based; -1 when not given; resource indexes `resources`, -1 for none. */
  frames?: Array<{ name: string; resource: number; line: number; column: number }>;
  resources?: string[];
  /** The pthreads' workers that answered, each with its name ("worker N (JS)") and clock offset to the page's (ms). */
  workers?: Array<WasmtraceJsProfile & { name: string; offsetMs: number; timeOrigin: number }>;
  /** Workers that did not answer in 2 s (their pthread still ran). */
  workersMissing?: number;
}

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
  /** Built-in counters (wasm heap bytes, malloc bytes in use, live threads). Default on, every 10 ms. */
  counters?: { enabled?: boolean; /** 1..60000, default 10 */ intervalMs?: number };
  /**
   * Sampled heap profiling (the app linked with the allocator shim wasmtrace_heap): present means on.
   * sampleBytes: the mean bytes between samples, 1..2^30, default 524288.
   */
  heap?: { enabled?: boolean; sampleBytes?: number };
  /** Replace `output` if it exists (never allowed from the URL parameter). Default false. */
  overwrite?: boolean;
  /** Copy the output to the diagnostic server as it is written; set by the shim for sessions a tool starts. Default false. */
  stream?: boolean;
}

/** The config blob given as `Module.wasmtraceConfig`. */
/** The diagnostic server the page connects to (docs/PROTOCOL.md, `wasmtrace serve`). */
export interface WasmtraceServerConfig {
  /** The router's ws:// or wss:// URL, e.g. "ws://127.0.0.1:9777" (path defaults to /page). */
  url: string;
  /** Hold the constructors and main() until a tool resumes the page. Default false. */
  suspend?: boolean;
  /** With suspend: start anyway after this long (console says why). 0..600000, default 10000. */
  suspendTimeoutMs?: number;
  /** Sent as ?token= (wasmtrace serve --token). Letters, digits, '-', '_', '.', '~'. */
  token?: string;
  /** Delay before connecting again; 0: never. 0..600000, default 2000. */
  reconnectMs?: number;
}

export interface WasmtraceConfig {
  $schema?: string;
  version?: 1;
  /** Required unless `server` is given. */
  sessions?: WasmtraceSessionConfig[];
  /** Only from Module.wasmtraceConfig or globalThis.wasmtraceConfig, never the URL parameter. */
  server?: WasmtraceServerConfig;
}

/** Counters of a session (listed once in native/src/stats_list.h). samplesTaken = samplesWritten + samplesDropped once stopped. */
export interface WasmtraceStats {
  samplesTaken: number;
  samplesWritten: number;
  samplesDropped: number;
  samplesDroppedBufferFull: number;
  /** Always 0 since the moving-stack protocol (see samplesPartial); kept
   * for compatibility. */
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
  /** Threads wasmtrace refused in this page's life so far (never sampled):
   * at most `threadsLimit` thread records exist at once (running threads,
   * and exited ones a recording session still needs). */
  threadsRefused: number;
  /** Thread records at once (256). */
  threadsLimit: number;
  /** Samples (of samplesTaken) whose stack moved during every copy try:
   * written with only a true prefix of it and a "(partial stack)" leaf, not
   * dropped for it (a full buffer may still drop one, like any sample). */
  samplesPartial: number;
  /** Samples (of samplesTaken) whose thread was blocked in a wait (mutex,
   * condition variable, join, semaphore, sleep): they keep their stack and
   * end in a "(waiting)" frame. Always 0 in an app not linked with
   * -Wl,--wrap=emscripten_futex_wait (the wasmtrace CMake target adds it). */
  samplesWaiting: number;
  /** Why the session stopped before it was asked to, when it did: "the
   * app's heap ran low: … KiB free, below the … KiB wasmtrace keeps free for
   * the app (…)" or "out of memory (N allocations refused)". Absent
   * otherwise. The trace's stats record says so too ("stoppedEarly"). */
  stoppedEarly?: string;
}

/**
 * A session. Its methods throw only an `Error` with a one-line message
 * (never a raw TypeError), also when called detached from the session.
 */
export interface WasmtraceSession {
  /** Its id in the C library; -1 for a session that failed without a C record (after the runtime died). */
  readonly id: number;
  /** '' for a session with id -1. */
  readonly name: string;
  /** VFS path of the trace ('' for a session with id -1). */
  readonly output: string;
  /**
   * After the runtime died (`Module.wasmtrace.aborted`): "stopped" if the
   * session had finished by then (its file is on the VFS and stays
   * readable), else "failed".
   */
  readonly state: WasmtraceSessionState;
  /**
   * Why the session failed (names the config key when that is the cause;
   * "<aborted>; sessions cannot finish" when the runtime died under it),
   * else null.
   */
  readonly error: string | null;
  /**
   * The counters (all 0 for a session that failed before it started).
   * Never throws, whatever the heap or the runtime: a session the runtime
   * died under keeps the counters read when the shim noticed; a session
   * that had stopped keeps its final counters.
   */
  stats(): WasmtraceStats;
  /**
   * Stops recording. Resolves with the session once the trace file is
   * complete; rejects if the session failed, and at once (on the next turn
   * of the event loop) when the runtime has died or dies while it waits,
   * with "wasmtrace: session '<name>' failed: the wasm runtime aborted:
   * <reason>; sessions cannot finish". Never blocks the main thread;
   * calling it again returns the same promise.
   */
  stop(): Promise<WasmtraceSession>;
  /** The finished trace (throws an Error unless the state is "stopped", or if the file is gone from the VFS). */
  getTraceBytes(): Uint8Array;
  /** The finished trace as a Blob: application/gzip, or without compression application/json (chrome, firefox) or text/plain (folded). */
  getTraceBlob(): Blob;
  /**
   * Saves the finished trace through a download link. `filename` defaults
   * to the output's base name when undefined, null or ''; any other
   * non-string, or no `document` (not a page), throws an Error.
   */
  download(filename?: string | null): void;
}

export interface WasmtraceApi {
  /**
   * The C library's version (WT_VERSION_STRING, the package's version), or
   * 'unknown' before the runtime is initialized or with a library older
   * than this shim.
   */
  readonly version: string;
  /**
   * Sessions started from the config blob before main(), failed ones
   * included. Like every member below except `version` and `aborted`, it
   * throws an Error when called before the runtime is initialized (use it
   * from Module.onRuntimeInitialized, postRun or later).
   */
  getStartupSessions(): WasmtraceSession[];
  /**
   * Marks a moment of the app's startup (e.g. `mark('ready')`) in the startup
   * timeline that sessions started before main() write, on the samples'
   * clock (the same as `wt_mark()` in C). Callable at any time, before the
   * runtime is up too. Returns false where no timeline is recorded (not a
   * page's main thread, e.g. Node); throws a TypeError unless `name` is a
   * string of 1 to 95 characters.
   */
  mark(name: string): boolean;
  /**
   * The page main thread's JavaScript and wasm as the browser sampled them
   * with the JS Self-Profiling API (Chromium, documents served with
   * `Document-Policy: js-profiling`), from before the module was fetched
   * until the first call; every later call gives the same. Callable at any
   * time. `reason` is '' when there is a profile, else why there is none
   * (no API, no policy, not the page's main thread). Add it to a trace with
   * `addJsProfile` (wasmtrace's Node library); `wasmtrace record` does.
   */
  jsProfile(): Promise<WasmtraceJsProfile>;
  /**
   * Starts a session now. `config` is one session object of the blob, or its
   * JSON text (at most 1 MiB of UTF-8; lone surrogates become U+FFFD); `{}`
   * gives a session with every default. Whatever the value (null, a number,
   * an array, a cyclic object, a throwing getter or toJSON, a Proxy, ...),
   * it returns a session and never throws once the runtime is initialized:
   * check `state` and `error` ("startSession(config): config must be a
   * session object or a JSON string, got null"). After the runtime died,
   * the session is failed with that reason.
   */
  startSession(config: WasmtraceSessionConfig | string): WasmtraceSession;
  /** A problem with the whole config blob (e.g. malformed JSON, a value JSON.stringify throws on), else null. */
  readonly configError: string | null;
  /**
   * null while the wasm runtime lives; once it is dead, what ended it:
   * "the wasm runtime aborted: <reason>" (abort() on any thread), "the wasm
   * runtime exited with status <n>" (exit with -sEXIT_RUNTIME). A wasm trap
   * that Emscripten survives is not an end: sessions go on.
   */
  readonly aborted: string | null;
  /**
   * Memory of the whole module (wasm memory size, bytes in use by malloc or -1
   * if unknown) and what wasmtrace allocates per registered thread and per
   * session record. Throws an Error once the runtime is dead.
   */
  memory(): { heapBytes: number; mallocBytes: number; threadRecordBytes: number; sessionRecordBytes: number };
  /** The session with this id (e.g. the `session.id` a tool's start returned), or null. */
  getSession(id: number): WasmtraceSession | null;
  /**
   * The diagnostic server connection: null without a `server` config; with
   * an invalid one, state 'off' and the error; else its state.
   */
  readonly server: {
    url: string | null;
    state: 'connecting' | 'connected' | 'disconnected' | 'off';
    suspended: boolean;
    error: string | null;
  } | null;
  /** Writes pending trace output to the VFS now (it also runs on a timer; a no-op once the runtime is dead). */
  pump(): void;
}

/** Fields wasmtrace adds to the Emscripten Module object. */
export interface WasmtraceModule {
  /** Startup config: an object or its JSON text. */
  wasmtraceConfig?: WasmtraceConfig | string;
  wasmtrace: WasmtraceApi;
}
