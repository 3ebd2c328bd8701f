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
//    symbols are in scope of a --post-js file (wasmtraceStartQueue,
//    wasmtraceServerConfig, wasmtraceWellFormed, wasmtraceLimits, and
//    wasmtraceMessageOf, which js/wasmtrace_post.js uses too: it is in the
//    output as a dependency of wt_js_read_config, which the startup
//    constructor always imports).
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
//    wasmtrace hands to C goes through $wasmtraceWellFormed first.
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
  // `text` with every lone surrogate replaced by U+FFFD, so that
  // stringToUTF8 writes valid UTF-8 and keeps the next character (see the
  // list above). The post-js uses it too (library symbols share its scope).
  $wasmtraceWellFormed: function (text) {
    if (typeof String.prototype.toWellFormed === 'function') return text.toWellFormed();
    var out = null;
    for (var i = 0; i < text.length; i++) {
      var u = text.charCodeAt(i);
      if (u < 0xd800 || u > 0xdfff) continue;
      var next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (u <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++; // a valid pair
        continue;
      }
      if (out === null) out = text.split('');
      out[i] = '\ufffd';
    }
    return out === null ? text : out.join('');
  },
  // The largest config text the shim hands to C (startup blob from JS, or
  // one startSession() config): far above any real config (a 16-session
  // blob is ~16 KB), far below what could exhaust a fixed heap.
  $wasmtraceLimits: { configMaxBytes: 1048576 },

  // The startup config's source: the one place that knows where a config
  // comes from and in which order (docs/GUIDE.md, "Giving the app a
  // config"): Module.wasmtraceConfig, globalThis.wasmtraceConfig (set by
  // tools, for -sMODULARIZE builds), the ?wasmtrace= URL parameter (anyone
  // can send a link: untrusted), the file /wasmtrace.json on the VFS.
  // Returns null (none), {kind, name, untrusted, text} (text: the JSON
  // text, a string), or {kind, name, untrusted, error} (a source was given
  // but cannot be read). kind: 1 Module, 3 globalThis, 2 URL, 4 file.
  // Never throws, whatever the page put there (a throwing getter, a cyclic
  // object, ...). Read again at each use: a preRun may still add a config.
  // Its users: wt_js_read_config (the C startup code), the pool's preRun
  // and $wasmtraceServerConfig (js/wasmtrace_server.js, before run()).
  $wasmtraceConfigSource__deps: ['$wasmtraceMessageOf'],
  $wasmtraceConfigSource: function () {
    var sources = [
      { kind: 1, name: 'Module.wasmtraceConfig', untrusted: false,
        get: function () { return Module['wasmtraceConfig']; } },
      { kind: 3, name: 'globalThis.wasmtraceConfig', untrusted: false,
        get: function () { return typeof globalThis !== 'undefined' ? globalThis['wasmtraceConfig'] : undefined; } },
      { kind: 2, name: "the 'wasmtrace' URL parameter", untrusted: true,
        get: function () {
          return typeof location !== 'undefined' && location.search ?
            new URLSearchParams(location.search).get('wasmtrace') : null;
        } },
      { kind: 4, name: '/wasmtrace.json', untrusted: false,
        get: function () {
          return typeof FS !== 'undefined' && FS.analyzePath('/wasmtrace.json').exists ?
            FS.readFile('/wasmtrace.json', { encoding: 'utf8' }) : null;
        } },
    ];
    for (var i = 0; i < sources.length; i++) {
      var src = sources[i];
      var out = { kind: src.kind, name: src.name, untrusted: src.untrusted };
      try {
        var v = src.get();
        if (v === undefined || v === null) continue;
        var text = typeof v === 'string' ? v : JSON.stringify(v);
        if (typeof text !== 'string') throw new Error('it is not a JSON value (' + typeof v + ')');
        out.text = text;
      } catch (e) {
        out.error = 'the config cannot be read as JSON: ' + wasmtraceMessageOf(e);
      }
      return out;
    }
    return null;
  },
  // A message of an exception, whatever was thrown, on one short line.
  $wasmtraceMessageOf: function (e) {
    var m;
    try {
      m = e && typeof e.message === 'string' ? e.message : String(e);
    } catch (ignored) {
      m = 'an exception whose message cannot be read';
    }
    return m.length > 300 ? m.slice(0, 300) + '...' : m;
  },

  // Returns a malloc'd UTF-8 copy of the startup config blob, or 0 (none
  // given, or it could not be read: then the reason is written to errorPtr).
  // *sourceKind is the source's kind ($wasmtraceConfigSource). Called once,
  // on the main thread, before main(): it must not throw.
  wt_js_read_config__deps: ['malloc', '$wasmtraceWellFormed', '$wasmtraceLimits', '$wasmtraceConfigSource']
    .concat(wasmtraceOptionalDeps(['$lengthBytesUTF8', '$stringToUTF8'])),
  wt_js_read_config: function (sourceKindPtr, errorPtr, errorCap) {
    var src = wasmtraceConfigSource();
    if (!src) return 0;
    HEAP32[sourceKindPtr >> 2] = src.kind;
    if (src.error) {
      stringToUTF8(wasmtraceWellFormed(src.error), errorPtr, errorCap);
      return 0;
    }
    var text = src.text;
    var max = wasmtraceLimits.configMaxBytes;
    // Checked on UTF-16 units first: a huge string is refused before it is
    // copied; bytes >= units.
    var bytes = text.length > max ? text.length : lengthBytesUTF8(text = wasmtraceWellFormed(text));
    if (bytes > max) {
      stringToUTF8('the config text is ' + (text.length > max ? 'more than ' : '') +
        bytes + ' bytes; the limit is ' + max, errorPtr, errorCap);
      return 0;
    }
    var size = bytes + 1;
    var ptr = _malloc(size);
    if (!ptr) {
      stringToUTF8('out of memory for the config text (' + size + ' bytes)', errorPtr, errorCap);
      return 0;
    }
    stringToUTF8(text, ptr, size);
    return ptr;
  },

  // The `server` object of a config (docs/PROTOCOL.md), checked: the one
  // place its rules live. In JS, not in the C config parser, because the
  // page must know the URL, and whether to suspend, before the module runs:
  // suspend holds the constructors that read the config in C. Returns
  // {config: {url, connectUrl, suspend, suspendTimeoutMs, token,
  // reconnectMs}} or {error: '<key path>: <problem>'}. A pure function of
  // its argument (tests/node/server-files.test.mjs).
  $wasmtraceCheckServer__deps: ['$wasmtraceMessageOf'],
  $wasmtraceCheckServer: function (v) {
    // Types named as the C parser names them (config.c type_name).
    function jsonType(x) {
      if (x === null) return 'null';
      if (Array.isArray(x)) return 'an array';
      var t = typeof x;
      return t === 'object' ? 'an object' : t === 'string' ? 'a string' : t === 'number' ? 'a number' :
        t === 'boolean' ? 'a boolean' : 'an invalid value';
    }
    function bad(path, why) { return { error: path + ': ' + why }; }
    if (!v || typeof v !== 'object' || Array.isArray(v)) return bad('server', 'expected an object, got ' + jsonType(v));
    var keys = ['url', 'suspend', 'suspendTimeoutMs', 'token', 'reconnectMs'];
    for (var k in v) {
      if (keys.indexOf(k) < 0) return bad('server.' + k, 'unknown key (allowed: see config/wasmtrace.schema.json)');
    }
    var out = { url: v.url, suspend: false, suspendTimeoutMs: 10000, token: null, reconnectMs: 2000 };
    if (v.url === undefined) return bad('server.url', "missing (expected the router's ws:// or wss:// URL)");
    if (typeof v.url !== 'string') return bad('server.url', 'expected a string, got ' + jsonType(v.url));
    if (v.url.length < 1 || v.url.length > 2047) return bad('server.url', 'expected 1 to 2047 characters, got ' + v.url.length);
    if (!/^wss?:\/\//.test(v.url)) return bad('server.url', 'expected a ws:// or wss:// URL, got "' + v.url.slice(0, 80) + '"');
    if (/[\u0000-\u0020\u007f]/.test(v.url)) return bad('server.url', 'contains a space or control character');
    function uint(key, max) {
      if (v[key] === undefined) return null;
      var n = v[key];
      if (typeof n !== 'number' || n !== Math.floor(n) || n < 0 || n > max) {
        return bad('server.' + key, 'expected an integer from 0 to ' + max + ', got ' + (typeof n === 'number' ? String(n) : jsonType(n)));
      }
      out[key] = n;
      return null;
    }
    var e = uint('suspendTimeoutMs', 600000) || uint('reconnectMs', 600000);
    if (e) return e;
    if (v.suspend !== undefined) {
      if (typeof v.suspend !== 'boolean') return bad('server.suspend', 'expected true or false, got ' + jsonType(v.suspend));
      out.suspend = v.suspend;
    }
    if (v.token !== undefined) {
      if (typeof v.token !== 'string') return bad('server.token', 'expected a string, got ' + jsonType(v.token));
      if (v.token.length < 1 || v.token.length > 256) return bad('server.token', 'expected 1 to 256 characters, got ' + v.token.length);
      if (!/^[A-Za-z0-9._~-]+$/.test(v.token)) return bad('server.token', "may contain only letters, digits, '-', '_', '.' and '~'");
      out.token = v.token;
    }
    var url;
    try {
      url = new URL(out.url);
    } catch (err) {
      return bad('server.url', 'is not a URL: ' + wasmtraceMessageOf(err));
    }
    if (url.pathname === '/' || url.pathname === '') url.pathname = '/page';
    if (out.token) url.searchParams.set('token', out.token);
    out.connectUrl = url.href;
    return { config: out };
  },
  // The startup config's server, for js/wasmtrace_server.js: null (no
  // config, no "server" key, or a config the C side reports as unreadable),
  // {config}, {error, source} (an invalid server object: the page does not
  // connect), or {refused} (a source anyone can set named a server).
  $wasmtraceServerConfig__deps: ['$wasmtraceConfigSource', '$wasmtraceCheckServer'],
  $wasmtraceServerConfig: function () {
    var src = wasmtraceConfigSource();
    if (!src || src.error) return null;
    var blob;
    try {
      blob = JSON.parse(src.text);
    } catch (e) {
      return null; // the C parser reports a malformed config
    }
    if (!blob || typeof blob !== 'object' || Array.isArray(blob) ||
        !Object.prototype.hasOwnProperty.call(blob, 'server')) {
      return null;
    }
    if (src.untrusted) {
      return { refused: 'server: not allowed in a config from ' + src.name + ' (anyone can set it): ' +
        "only the app's own config may name a server" };
    }
    var r = wasmtraceCheckServer(blob.server);
    r.source = src.name;
    return r;
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
  // (Its deps also carry what js/wasmtrace_server.js calls: a post-js has no
  // __deps of its own, and the C startup code always references this.)
  wt_js_queued_count__deps: ['$wasmtraceStartQueue', '$wasmtraceServerConfig', '$wasmtraceWellFormed', '$wasmtraceLimits'],
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
  $wasmtraceLoadNames__deps: ['$wasmtraceInternals', '$wasmtraceParseNames'],
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

  // The function names of a wasm "name" section's bytes: { funcIndex: name }.
  // A pure function of its input (tests/node/fuzz-readers.test.mjs fuzzes it
  // in Node): every length and index is checked against the bytes left, a
  // LEB128 longer than 5 bytes or cut short ends the parse, each step
  // consumes input (no loop runs past the end) and it never throws on any
  // bytes; whatever was read before a bad entry is kept.
  $wasmtraceParseNames__deps: ['$wasmtraceCanonicalName'],
  $wasmtraceParseNames: function (bytes) {
    var names = {};
    var pos = 0;
    var limit = bytes.length;
    // An unsigned LEB128 of at most 32 bits before `limit`, or -1.
    function u32() {
      var result = 0;
      for (var shift = 0; shift < 35; shift += 7) {
        if (pos >= limit) return -1;
        var b = bytes[pos++];
        result += (b & 0x7f) * Math.pow(2, shift);
        if (!(b & 0x80)) return result <= 0xffffffff ? result : -1;
      }
      return -1;
    }
    var decoder = new TextDecoder('utf-8'); // invalid UTF-8 becomes U+FFFD
    while (pos < bytes.length) {
      var id = bytes[pos++];
      limit = bytes.length;
      var size = u32();
      if (size < 0 || size > bytes.length - pos) break;
      var end = pos + size;
      if (id === 1) { // function names: vec(index, name)
        limit = end;
        var count = u32();
        for (var i = 0; i < count && pos < end; i++) {
          var index = u32();
          var len = u32();
          if (index < 0 || len < 0 || len > end - pos) break;
          names[index] = wasmtraceCanonicalName(decoder.decode(bytes.subarray(pos, pos + len)));
          pos += len;
        }
      }
      pos = end;
    }
    // wasm-ld 19 and 21 (Emscripten 3.1.69, 6.0.5) write a second local of
    // the same name, from another object, as `<name>_<the linker's function
    // index>` (`helper_42`); wasm-opt may then move the function by a few
    // indices (6.0.5: `helper_48` at index 46). Merged when the number is
    // within WINDOW of the entry's own index and the plain name is in the
    // section too (a real `foo_N` beside a `foo`, with N that close to its
    // own index, is the only name this could take wrongly).
    var WINDOW = 16;
    var plain = Object.create(null);
    var index2;
    for (index2 in names) plain[names[index2]] = true;
    for (index2 in names) {
      var full = names[index2];
      var cut = full.lastIndexOf('_');
      if (cut <= 0 || cut === full.length - 1 || full.length - cut > 11) continue;
      var digits = full.slice(cut + 1);
      if (!/^[0-9]+$/.test(digits) || Math.abs(Number(digits) - Number(index2)) > WINDOW) continue;
      var base = full.slice(0, cut);
      if (plain[base] === true) names[index2] = base;
    }
    return names;
  },

  // One function, one name: `name` without the suffixes compilers and
  // linkers add to copies of a function, so that a function's clones add up
  // in one row. Seen in wasm name sections (clang 14 and 19): wasm-ld 14
  // numbers same-named locals of different files `helper.1`, `f(int).1`
  // (wasm-ld 19 and 21: `helper_42`, see $wasmtraceParseNames); LTO renames them
  // before demangling, which then reads
  // `f(int) (.1)`; LLVM passes add `.llvm.N`, `.cold`, `.specialized.N`;
  // GCC-style `.constprop.N`, `.isra.N`, `.part.N` too. Only whole
  // dot-separated tokens at the end are cut (digits or one of these words),
  // and only after a character that ends a C or C++ name: no C++ name
  // contains a '.', so nothing of a real name goes. Linear in the length
  // (no regex backtracking: the fuzzers feed it any string).
  $wasmtraceCanonicalName: function (name) {
    if (typeof name !== 'string') return name;
    var words = { llvm: 1, constprop: 1, isra: 1, part: 1, cold: 1, specialized: 1, lto_priv: 1,
      clone: 1, localalias: 1, argelim: 1, retval: 1 };
    function isToken(t) {
      if (!t.length || t.length > 32) return false;
      if (words[t] === 1) return true;
      for (var i = 0; i < t.length; i++) {
        var c = t.charCodeAt(i);
        if (c < 48 || c > 57) return false;
      }
      return true;
    }
    // What may precede a suffix: the end of an identifier, ')' or '>'.
    function endsName(c) {
      return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 ||
        c === 41 || c === 62 || c === 36;
    }
    var out = name;
    for (;;) {
      // The demangler's form: "f(int) (.llvm.123)".
      var n = out.length;
      if (n > 4 && out.charCodeAt(n - 1) === 41) {
        var from = n > 64 ? n - 64 : 0;
        var open = out.slice(from).lastIndexOf(' (.');
        if (open >= 0) open += from;
        if (open > 0) {
          var inner = out.slice(open + 3, n - 1).split('.');
          var all = inner.length > 0;
          for (var k = 0; k < inner.length; k++) if (!isToken(inner[k])) all = false;
          if (all && endsName(out.charCodeAt(open - 1))) {
            out = out.slice(0, open);
            continue;
          }
        }
      }
      var dot = out.lastIndexOf('.');
      if (dot <= 0 || !isToken(out.slice(dot + 1)) || !endsName(out.charCodeAt(dot - 1))) break;
      out = out.slice(0, dot);
    }
    return out;
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
  $wasmtracePool__deps: ['$PThread', '$wasmtraceConfigSource', '$wasmtraceRunDependencies'],
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
  wt_js_startup_attach__deps: ['$wasmtraceWellFormed'].concat(wasmtraceOptionalDeps(['$stringToUTF8'])),
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
