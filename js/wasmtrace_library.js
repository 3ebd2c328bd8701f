// wasmtrace: C-callable JS imports (linked with --js-library).
// These run on the thread that calls them; none is proxied to the main thread,
// so the wasmtrace worker never waits on it.
//
// Emscripten internals the shim relies on, and the versions each holds for
// (tested: 3.1.6 and 3.1.69; what changed up to 6.0.8 is in docs/INTERNALS.md,
// "Emscripten versions: the adapters").
// Everything else the shim uses is a documented library function or Module
// field. Keep this list and $wasmtraceInternals below up to date.
//  - The compiled WebAssembly.Module, for its name section:
//      main thread: the global `wasmModule` (pthread builds, all versions);
//      workers: Module['wasmModule'] (separate worker.js, <= 3.1.57) or the
//      worker's 'load' message (>= 3.1.58), both captured by
//      js/wasmtrace_pre.js into wasmtraceCompiledModule.
//  - The table: the global `wasmTable`. Up to ~3.1.4x it is always defined
//    (preamble); later it is the library symbol '$wasmTable', defined only
//    when something depends on it. 3.1.6 has no such symbol (a dependency on
//    it would fail), so the dependency is added when the symbol exists.
//  - V8 and SpiderMonkey name a wasm function object by its function index
//    (fn.name === '85'): engine behaviour, not Emscripten's.
//  - The clock: not Emscripten's. emscripten_get_now() counts from the page's
//    navigation start (<= 3.1.27, or no pthreads; in workers corrected by a
//    drift measured with a postMessage, off by its latency: up to ms under
//    load) or from the Unix epoch (>= 3.1.28 with pthreads). wasmtrace reads
//    performance.timeOrigin + performance.now() (the web's clock shared by
//    all threads, HR-Time) minus the main thread's timeOrigin, the same on
//    every version; emscripten_get_now() only where timeOrigin is missing,
//    its origin measured once (wt_js_clock_origin_ms).
//  - js/wasmtrace_server.js, the diagnostic server: `wasmMemory` (the
//    shared WebAssembly.Memory, created in JS before instantiation in every
//    pthread build; posted to the server's Worker, which reads the stream
//    rings through memory.buffer), addRunDependency/removeRunDependency
//    called from the post-js before run() (suspend: the constructors and
//    main() wait), Module.onRuntimeInitialized and Module.onAbort (chained
//    once more; onRuntimeInitialized runs after the constructors, which
//    read $wasmtraceStartQueue, and before main()), and that library
//    symbols and the --pre-js files' functions are in scope of a --post-js
//    file (wasmtraceStartQueue: in the output as a dependency of
//    wt_js_queued_count, which the startup constructor always imports;
//    wasmtraceServerConfig and the text helpers of js/wasmtrace_pre.js).
//    3.1.6 and 3.1.69 tested (tests/browser/serve.test.mjs).
//  - js/wasmtrace_post.js: runtimeInitialized, ABORT, ENVIRONMENT_IS_PTHREAD,
//    HEAPF64 and FS (in scope of a --post-js file in all versions tested);
//    `runtimeExited` (always defined <= 3.1.6x; since ~3.1.5x only with
//    -sEXIT_RUNTIME: read behind typeof); Module['onAbort'] and
//    Module['onExit'] (documented hooks: the page's lifecycle in
//    js/wasmtrace_pre.js chains to the app's own), which a pthread's abort() reaches too (proxied to the main thread:
//    3.1.6 always, 3.1.69 when Module.onAbort exists as the pool loads);
//    abort() sets ABORT (and EXITSTATUS, read for the message) on the main
//    thread only; a real exit (procExit) sets ABORT too (3.1.6, 3.1.69).
//  - Emscripten's stringToUTF8 encodes a lone surrogate as a pair with the
//    next UTF-16 unit, eating that character (3.1.6, 3.1.69): every JS string
//    wasmtrace hands to C goes through wasmtraceWellFormed
//    (js/wasmtrace_pre.js) first.
//  - The pthread pool ($wasmtracePool below), 3.1.6 and 3.1.69 alike:
//    PThread.unusedWorkers (array of idle workers; pthread_create pops the
//    last one), PThread.allocateUnusedWorker() (pushes a new Worker),
//    PThread.loadWasmModuleToWorker(worker, onLoaded) (3.1.6: calls back
//    on 'loaded'; 3.1.69: ignores the callback and returns a Promise: both
//    are handled; it sets worker.onmessage, which tells a worker that some
//    code started loading; 3.1.69 loads every pool worker from its own
//    preRun, ours too when that runs after ours), addOnPreRun (preRun callbacks, run after the module's own
//    Module.preRun functions and after the wasm module is instantiated, so
//    the global `wasmModule` is set), addRunDependency/removeRunDependency
//    (main() waits for them), and the settings PTHREAD_POOL_SIZE and
//    PTHREAD_POOL_SIZE_STRICT read by the preprocessor. If any is missing
//    the pool is left alone (the worker takes a pool slot, as before).
//    PThread.getNewWorker() (pthread_create calls it through the object
//    when it needs a worker; 3.1.6, 3.1.69): wrapped to warn when the pool
//    is empty; without it, no warning.
//  - Module.onRuntimeInitialized, called after the constructors and just
//    before main() (3.1.6, 3.1.69): the page's lifecycle
//    (js/wasmtrace_pre.js) chains it, around the app's own, for the
//    moments runtimeReady and mainStarts; Module.postRun (mainReturned)
//    runs once main() returns.
//  - The startup timeline (js/wasmtrace_startup.js, 3.1.6 and 3.1.69):
//    addRunDependency/removeRunDependency are function declarations in
//    the scope a --pre-js file runs in (wrapped there, before the module's
//    own code and the file packager's Module['addRunDependency'] export
//    read them); a pool worker posts {cmd: 'loaded'} once its module is
//    instantiated; the pool's workers are created with the global Worker
//    constructor after the pre-js ran (PThread.init, its library postset);
//    Module.preRun callbacks run after the module is instantiated, before
//    the constructors. If one is missing, its phases are missing (the
//    rest still come).
// Dependencies on runtime symbols that are library symbols only in some
// versions ($wasmTable since 3.1.46, $stringToUTF8 and friends in 3.1.69;
// 3.1.6 defines them in its runtime and would reject the dependency): only
// those the library defines are declared. The link exports the string
// helpers too (-sEXPORTED_RUNTIME_METHODS), but the shim must not depend on
// the app's flags for what it calls itself.
// App shapes wasmtrace does not support are refused here, at link time, with
// one line (this file runs in the JS compiler, where the link's settings are
// globals): never a silent wrong trace.
//  - -sMEMORY64 / -m64: the library and its hooks are built for wasm32;
//  - -sWASM_WORKERS: Wasm Workers are not pthreads (no registration, no
//    wait wrappers): their threads would be missing from every trace.
(function () {
  var refuse = function (what, why) {
    var text = 'wasmtrace: ' + what + ' is not supported: ' + why + '. Supported: pthread apps on wasm32 ' +
      '(docs/GUIDE.md, "Emscripten versions")';
    if (typeof error === 'function') error(text);
    else throw new Error(text);
  };
  if (typeof MEMORY64 !== 'undefined' && MEMORY64) refuse('-sMEMORY64 (-m64)', 'the library is built for wasm32');
  if (typeof WASM_WORKERS !== 'undefined' && WASM_WORKERS) {
    refuse('-sWASM_WORKERS', "Wasm Workers are not pthreads, and their threads would be missing from the traces");
  }
})();
function wasmtraceOptionalDeps(symbols) {
  var lib = typeof LibraryManager !== 'undefined' && LibraryManager.library;
  return lib ? symbols.filter(function (s) { return Object.prototype.hasOwnProperty.call(lib, s); }) : [];
}
var wasmtraceLibrary = {
  // Returns a malloc'd UTF-8 copy of the startup config blob, or 0 (none
  // given, or it could not be read: then the reason is written to errorPtr).
  // *sourceKind is the source's kind (wasmtraceConfigSource, in
  // js/wasmtrace_pre.js). Called once, on the main thread, before main():
  // it must not throw.
  wt_js_read_config__deps: ['malloc'].concat(wasmtraceOptionalDeps(['$lengthBytesUTF8', '$stringToUTF8'])),
  wt_js_read_config: function (sourceKindPtr, errorPtr, errorCap) {
    var src = wasmtraceConfigSource();
    if (!src) return 0;
    HEAP32[sourceKindPtr >> 2] = src.kind;
    var checked = src.error ? { error: src.error } : wasmtraceConfigText(src.text);
    if (checked.error) {
      stringToUTF8(wasmtraceWellFormed(checked.error), errorPtr, errorCap);
      return 0;
    }
    var size = checked.bytes + 1;
    var ptr = _malloc(size);
    if (!ptr) {
      stringToUTF8('out of memory for the config text (' + size + ' bytes)', errorPtr, errorCap);
      return 0;
    }
    stringToUTF8(checked.text, ptr, size);
    return ptr;
  },

  // ---- the diagnostic server's queue (js/wasmtrace_server.js) ------------
  // Sessions a tool asked for before the runtime was up (the page suspended
  // or still loading). The startup constructor (native/src/startup.c) reads
  // the queue once, after the config's sessions are added and before any
  // app constructor and main(), starts each entry and answers with its real
  // id; from then on the queue is closed and js/wasmtrace_server.js starts
  // a tool's sessions through startSession(). Entries: {text, id}; id is
  // null until the C side answered (-1: not even a failed record could be
  // had).
  $wasmtraceStartQueue: { entries: [], closed: false },
  // (js/wasmtrace_server.js reads it: a post-js has no __deps of its own,
  // and the C startup code always references this.)
  wt_js_queued_count__deps: ['$wasmtraceStartQueue'],
  wt_js_queued_count: function () {
    wasmtraceStartQueue.closed = true;
    return wasmtraceStartQueue.entries.length;
  },
  // A malloc'd UTF-8 copy of entry `index`'s config text, or 0 (no memory).
  wt_js_queued_config__deps: ['$wasmtraceStartQueue', 'malloc']
    .concat(wasmtraceOptionalDeps(['$lengthBytesUTF8', '$stringToUTF8'])),
  wt_js_queued_config: function (index) {
    try {
      var text = wasmtraceStartQueue.entries[index].text;
      var size = lengthBytesUTF8(text) + 1;
      var ptr = _malloc(size);
      if (ptr) stringToUTF8(text, ptr, size);
      return ptr;
    } catch (e) {
      return 0;
    }
  },
  wt_js_queued_started__deps: ['$wasmtraceStartQueue'],
  wt_js_queued_started: function (index, id) {
    var e = wasmtraceStartQueue.entries[index];
    if (e) e.id = id;
  },

  // The one place that reads Emscripten internals (see the list above).
  $wasmtraceInternals__deps: wasmtraceOptionalDeps(['$wasmTable']),
  $wasmtraceInternals: {
    // The compiled module on this thread, or null.
    compiledModule: function () {
      if (typeof wasmtraceCompiledModule !== 'undefined' && wasmtraceCompiledModule) {
        return wasmtraceCompiledModule;
      }
      if (typeof wasmModule !== 'undefined' && wasmModule instanceof WebAssembly.Module) return wasmModule;
      return null;
    },
    // The function in table slot `index`, or null (out of range, empty).
    tableEntry: function (index) {
      try {
        return wasmTable.get(index) || null;
      } catch (e) {
        if (e instanceof RangeError) return null;
        throw e;
      }
    },
  },

  // Function names for the wasmtrace worker, built once per thread from the
  // wasm "name" section (present with --profiling-funcs or -g).
  $wasmtraceNames: null,
  $wasmtraceLoadNames__deps: ['$wasmtraceInternals'],
  $wasmtraceLoadNames: function () {
    var mod = wasmtraceInternals.compiledModule();
    if (!mod) {
      // Names would all read wasm-function[N]: say so once, on this thread.
      console.warn('wasmtrace: the compiled wasm module is not reachable on this thread; ' +
        'functions are named wasm-function[N] (docs/GUIDE.md, "Emscripten versions")');
      return {};
    }
    try {
      var sections = WebAssembly.Module.customSections(mod, 'name');
      return sections.length ? wasmtraceParseNames(new Uint8Array(sections[0])) : {};
    } catch (e) {
      console.warn('wasmtrace: the wasm name section could not be read (' + e + '); ' +
        'functions are named wasm-function[N]');
      return {};
    }
  },

  // Writes the name of the function at wasm table index `tableIndex` into
  // buf; returns the bytes written, 0 if the slot holds no function.
  wt_js_function_name__deps: ['$wasmtraceNames', '$wasmtraceLoadNames', '$wasmtraceInternals']
    .concat(wasmtraceOptionalDeps(['$stringToUTF8'])),
  wt_js_function_name: function (tableIndex, buf, cap) {
    if (!wasmtraceNames) wasmtraceNames = wasmtraceLoadNames();
    var fn = wasmtraceInternals.tableEntry(tableIndex);
    if (!fn) return 0;
    // In V8 the name of a wasm function object is its function index.
    var funcIndex = parseInt(fn.name, 10);
    var name = wasmtraceNames[funcIndex];
    if (name === undefined) {
      name = isNaN(funcIndex) ? 'wasm-table[' + tableIndex + ']' : 'wasm-function[' + funcIndex + ']';
    }
    return stringToUTF8(name, buf, cap);
  },

  // Prints one wasmtrace message to the console of the calling thread.
  wt_js_log_error__deps: wasmtraceOptionalDeps(['$UTF8ToString']),
  wt_js_log_error: function (messagePtr) {
    console.error('wasmtrace: ' + UTF8ToString(messagePtr));
  },

  // native/src/fmt.c's wt_fmt_double: a double that is not an integer, as
  // the shortest text of it rounded to `digits` significant digits, so that
  // the C side links no floating-point printf. ASCII, written byte by byte,
  // NUL-terminated within `cap`; returns the whole text's length. Any
  // thread (the worker's encoders call it).
  wt_js_format_number: function (v, digits, buf, cap) {
    var s = String(Number(v.toPrecision(digits)));
    var n = Math.min(s.length, cap - 1);
    for (var i = 0; i < n; i++) HEAPU8[buf + i] = s.charCodeAt(i);
    if (cap > 0) HEAPU8[buf + n] = 0;
    return s.length;
  },

  // performance.timeOrigin of this thread (ms since the epoch), or 0 where
  // there is none. Called once, on the main thread.
  wt_js_time_origin_ms: function () {
    return typeof performance !== 'undefined' && typeof performance.timeOrigin === 'number' &&
      typeof performance.now === 'function' ? performance.timeOrigin : 0;
  },

  // Milliseconds since the main thread's timeOrigin (`mainOrigin`), on any
  // thread: this thread's performance.now() plus the distance between the
  // two origins (computed once per thread).
  $wasmtraceClockShift: null,
  wt_js_now_ms__deps: ['$wasmtraceClockShift'],
  wt_js_now_ms: function (mainOrigin) {
    if (wasmtraceClockShift === null) wasmtraceClockShift = performance.timeOrigin - mainOrigin;
    return performance.now() + wasmtraceClockShift;
  },

  // The value of emscripten_get_now() (ms) at the page's navigation start,
  // given `now`, a value of it just read on the main thread. Emscripten's
  // clock counts from navigation start (<= 3.1.27, and without pthreads) or
  // from the Unix epoch (>= 3.1.28 with pthreads: performance.timeOrigin +
  // performance.now(), so that workers share it); under Node from an
  // arbitrary point. Measured, not inferred from a version: the offset
  // between `now` and this thread's performance.now(), snapped to 0 or to
  // performance.timeOrigin when it is within 1 ms of either.
  wt_js_clock_origin_ms: function (now) {
    if (typeof performance === 'undefined' || typeof performance.now !== 'function') return 0;
    var offset = now - performance.now();
    if (Math.abs(offset) < 1) return 0;
    var timeOrigin = performance.timeOrigin;
    if (typeof timeOrigin === 'number' && Math.abs(offset - timeOrigin) < 1) return timeOrigin;
    return offset;
  },

  // ---- the pthread pool: wasmtrace brings its own worker -----------------
  // The wasmtrace worker is a pthread, and pthread_create takes a worker of
  // Emscripten's pool. So that it never takes one the app counted on: when a
  // config is present before main() (Module.wasmtraceConfig,
  // globalThis.wasmtraceConfig, a ?wasmtrace= parameter or /wasmtrace.json),
  // a preRun adds one worker to the pool and main() waits until it is loaded
  // (so that the worker starts at once, before main). A session started at
  // runtime with no such worker (wt_js_pool_prepare) takes a pool worker only
  // if the app keeps at least one free; else it adds its own worker (which
  // starts when the main thread next yields), or, under
  // -sPTHREAD_POOL_SIZE_STRICT=2, refuses with the fix in the message.
  // Run dependencies for the startup timeline (wasmtraceEmscripten in
  // js/wasmtrace_pre.js): since 4.0.14 addRunDependency and
  // removeRunDependency are library symbols, defined after the pre-js ran
  // and only when something depends on them; this postset wraps them once
  // they exist, before the module is instantiated (its postsets run before
  // createWasm in 6.0.5). Up to 4.0.13 the pre-js wrapped them already.
  $wasmtraceRunDependencies__deps: wasmtraceOptionalDeps(['$addRunDependency', '$removeRunDependency']),
  $wasmtraceRunDependencies__postset: "if (typeof wasmtraceEmscripten !== 'undefined') wasmtraceEmscripten.wrapRunDependencies();",
  $wasmtraceRunDependencies: null,
  $wasmtracePool__deps: ['$PThread', '$wasmtraceRunDependencies'],
  $wasmtracePool__postset: 'wasmtracePool.install();',
  $wasmtracePool: {
    reserved: false, // a worker was added for wasmtrace and not used yet
    early: null, // that worker, when it was added with the pool (addEarly)
    install: function () {
      if (typeof ENVIRONMENT_IS_PTHREAD !== 'undefined' && ENVIRONMENT_IS_PTHREAD) return;
      wasmtracePool.addEarly();
      if (typeof addOnPreRun === 'function') addOnPreRun(wasmtracePool.preRun);
      wasmtracePool.watchExhaustion();
    },
    // With a pool (-sPTHREAD_POOL_SIZE) and a startup config already given
    // (Module, globalThis or the URL: the VFS file comes later), wasmtrace's
    // worker joins the pool as the pool is made (this runs just after
    // PThread.init, whose postset comes first), so that Emscripten loads it
    // together with the app's workers (3.1.x: once the module is
    // instantiated; 4.x and later: in its preRun), overlapping their load,
    // instead of after them: it was a serial 34 ms before main() on a
    // two-worker app (bench/startup.mjs). It is the pool's last worker: the
    // startup constructor's pthread_create, the first of the page, takes it.
    addEarly: function () {
#if PTHREAD_POOL_SIZE
      try {
        if (typeof PThread !== 'object' || !PThread || !Array.isArray(PThread.unusedWorkers) ||
            typeof PThread.allocateUnusedWorker !== 'function' || !wasmtracePool.configPresent()) return;
        if (typeof wasmtracePage !== 'undefined') wasmtracePage.tell('nextWorker', ['wasmtrace worker']);
        PThread.allocateUnusedWorker();
        wasmtracePool.early = PThread.unusedWorkers[PThread.unusedWorkers.length - 1];
        wasmtracePool.reserved = true;
      } catch (e) {
        wasmtracePool.early = null; // preRun adds it, after the pool, as before
      }
#endif
    },
    // A pthread the app creates when no pool worker is free gets a new
    // worker that starts only when the main thread returns to its event
    // loop (strict pools refuse it: EAGAIN); if main() waits for it, the
    // page hangs with no message (-O2 builds have no ASSERTIONS, the only
    // case where Emscripten says so). Say it on the console, with the pool
    // size that fits: a console line reaches DevTools and `wasmtrace
    // record` even while the main thread stays blocked. Browsers only
    // (Node starts such workers at once). PThread.getNewWorker: 3.1.6 and
    // 3.1.69 alike (pthread_create calls it through the object).
    extraThreads: 0,
    watchExhaustion: function () {
      if (typeof ENVIRONMENT_IS_NODE !== 'undefined' && ENVIRONMENT_IS_NODE) return;
      if (typeof PThread !== 'object' || !PThread || typeof PThread.getNewWorker !== 'function') return;
      var original = PThread.getNewWorker;
      PThread.getNewWorker = function () {
        try {
          if (Array.isArray(PThread.unusedWorkers) && PThread.unusedWorkers.length === 0 &&
              wasmtracePool.extraThreads < 16) {
            wasmtracePool.extraThreads++;
            var size = 0;
#if PTHREAD_POOL_SIZE
            size = {{{ PTHREAD_POOL_SIZE }}};
#endif
            var n = wasmtracePool.extraThreads;
            console.warn('wasmtrace: the pthread pool is exhausted: pthread_create found no free worker ' +
              '(' + n + ' thread' + (n === 1 ? '' : 's') + ' beyond a pool of ' + size + ')' +
#if PTHREAD_POOL_SIZE_STRICT == 2
              ' and fails with EAGAIN (-sPTHREAD_POOL_SIZE_STRICT=2). ' +
#else
              '; such a thread starts only when the main thread returns to its event loop, so a main() ' +
              'that waits for it hangs the page. ' +
#endif
              'Link with -sPTHREAD_POOL_SIZE=' + (size + n + 1) + ' (the threads the app starts at once + 1 ' +
              'for wasmtrace)');
          }
        } catch (e) {
          // Never in the way of pthread_create.
        }
        return original.apply(this, arguments);
      };
    },
    // The internals listed at the top of this file are all there.
    usable: function () {
      return typeof PThread === 'object' && PThread !== null && Array.isArray(PThread.unusedWorkers) &&
        typeof PThread.allocateUnusedWorker === 'function' &&
        typeof PThread.loadWasmModuleToWorker === 'function' &&
        typeof wasmModule !== 'undefined' && wasmModule instanceof WebAssembly.Module;
    },
    // Adds one worker at the end of the pool (the next pthread_create takes
    // it) and loads it; onLoaded (may be null) runs once it is loaded.
    addWorker: function (onLoaded) {
      if (typeof wasmtracePage !== 'undefined') wasmtracePage.tell('nextWorker', ['wasmtrace worker']);
      PThread.allocateUnusedWorker();
      wasmtracePool.load(PThread.unusedWorkers[PThread.unusedWorkers.length - 1], onLoaded);
    },
    load: function (worker, onLoaded) {
      var called = false;
      var loaded = function () {
        if (called) return;
        called = true;
        if (onLoaded) onLoaded();
      };
      var result = PThread.loadWasmModuleToWorker(worker, loaded);
      if (result && typeof result.then === 'function') result.then(loaded);
    },
    // A startup config is present in one of its sources (not read: a
    // getter that throws is the config reader's to report).
    configPresent: function () {
      var src = wasmtraceConfigSource();
      return src !== null && !src.error;
    },
    preRun: function () {
      var waiting = false;
      try {
        var worker = wasmtracePool.early;
        if (!worker && (!wasmtracePool.usable() || !wasmtracePool.configPresent())) return;
        addRunDependency('wasmtrace-worker');
        waiting = true;
        if (!worker) {
          if (typeof wasmtracePage !== 'undefined') wasmtracePage.tell('nextWorker', ['wasmtrace worker']);
          PThread.allocateUnusedWorker();
          worker = PThread.unusedWorkers[PThread.unusedWorkers.length - 1];
          wasmtracePool.reserved = true;
        }
        var done = function () { removeRunDependency('wasmtrace-worker'); };
        // After every preRun callback: 3.1.69's own preRun loads every
        // worker of the pool (ours too, if it runs after this one, or if it
        // was added with the pool) and main() waits for it; 3.1.6 loaded
        // the pool's (ours with them, if added early) before preRun. Load
        // ours only if nothing started loading it.
        Promise.resolve().then(function () {
          try {
            if (worker.onmessage) {
              done();
            } else if (!wasmtracePool.usable()) {
              // Nothing loads it and no module to load it with: out of the
              // pool again (a pthread_create must never take a worker that
              // never loads); wt_js_pool_prepare decides at the constructor.
              var at = PThread.unusedWorkers.indexOf(worker);
              if (at >= 0) PThread.unusedWorkers.splice(at, 1);
              if (typeof worker.terminate === 'function') worker.terminate();
              wasmtracePool.reserved = false;
              wasmtracePool.early = null;
              done();
            } else {
              wasmtracePool.load(worker, done);
            }
          } catch (e) {
            done();
          }
        });
      } catch (e) {
        if (waiting) removeRunDependency('wasmtrace-worker');
        console.warn('wasmtrace: could not add a worker to the pthread pool (' +
          (e && e.message) + '); the wasmtrace worker takes a pool worker');
      }
    },
  },

  // The page lifecycle's attach (js/wasmtrace_pre.js): called by the startup
  // constructor once the module is up, on the main thread; each plug-in
  // takes what it hands data to: phase(kind, name, beginUs, endUs, bytes)
  // for the startup timeline (native/src/phases.h; no heap: the name goes
  // through a static buffer of its own), longtask and longtasksObserved for
  // the long tasks (native/src/rec_longtask.c). Nothing to do in a worker,
  // in Node, or in an app linked without the pre-js.
  wt_js_startup_attach__deps: wasmtraceOptionalDeps(['$stringToUTF8']),
  wt_js_startup_attach: function (constructorsUs) {
    try {
      if (typeof wasmtracePage === 'undefined') return;
      var c = { longtask: Module['_wt_js_longtask'], longtasksObserved: Module['_wt_js_longtasks_observed'] };
      var add = Module['_wt_js_phase'], buffer = Module['_wt_js_phase_name'];
      var capacity = Module['_wt_js_phase_name_capacity'];
      if (add && buffer && capacity) {
        var ptr = buffer(), cap = capacity();
        c.phase = function (kind, name, beginUs, endUs, bytes) {
          stringToUTF8(wasmtraceWellFormed(name), ptr, cap);
          add(kind, ptr, beginUs, endUs, bytes);
        };
      }
      wasmtracePage.fire('attach', [c, constructorsUs / 1000]);
    } catch (e) {
      // Never in the way of the app's start: no timeline, no long tasks.
    }
  },

  // Called by wt_runtime_init just before it creates the wasmtrace worker.
  // Returns 0 to go ahead, or -1 after writing why not to errorPtr (the
  // app's last free pool worker would be taken, and the pool is strict).
  wt_js_pool_prepare__deps: ['$wasmtracePool'].concat(wasmtraceOptionalDeps(['$stringToUTF8'])),
  wt_js_pool_prepare: function (errorPtr, errorCap) {
    try {
      if (typeof ENVIRONMENT_IS_PTHREAD !== 'undefined' && ENVIRONMENT_IS_PTHREAD) return 0;
      if (!wasmtracePool.usable()) return 0;
      if (wasmtracePool.reserved) {
        wasmtracePool.reserved = false;
        return 0; // ours was added before main()
      }
      var free = PThread.unusedWorkers.length;
      if (free >= 2) return 0; // the app keeps a free worker
#if PTHREAD_POOL_SIZE_STRICT == 2
      var size = 0;
#if PTHREAD_POOL_SIZE
      size = {{{ PTHREAD_POOL_SIZE }}};
#endif
      stringToUTF8('the wasmtrace worker would take the ' +
        (free ? "app's last free pthread pool worker" : 'no free pthread pool worker (none left)') +
        ' and the pool is strict (-sPTHREAD_POOL_SIZE_STRICT=2): link with -sPTHREAD_POOL_SIZE=' +
        (size + 1) + ' (your threads + 1), or give the config before main() so that wasmtrace ' +
        'adds its own worker', errorPtr, errorCap);
      return -1;
#else
      // Not strict: a worker of our own (loads while the main thread yields).
      if (free === 1) wasmtracePool.addWorker(null);
      return 0;
#endif
    } catch (e) {
      return 0; // the pool is left alone: pthread_create decides
    }
  },
};
// addToLibrary replaces mergeInto since 3.1.47 (mergeInto warns in 4.x).
if (typeof addToLibrary === 'function') {
  addToLibrary(wasmtraceLibrary);
} else {
  mergeInto(LibraryManager.library, wasmtraceLibrary);
}
