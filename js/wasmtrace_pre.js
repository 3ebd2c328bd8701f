// wasmtrace (linked with --pre-js, the first of wasmtrace's page files):
// the page's lifecycle that every other page part plugs into
// (wasmtracePage, below), the toolchain adapter, what the page files share
// (text and config checks, the config's source, the name-section parser:
// at the end), and a reference to the compiled WebAssembly.Module in
// pthread workers, whose name section the wasmtrace worker reads to name
// the functions it sampled. Every Emscripten
// internal the shim relies on is listed, with the versions it holds for, at
// the top of js/wasmtrace_library.js; the two read for the module are:
//  - Module['wasmModule']: set by the separate worker.js before it loads the
//    app (Emscripten <= 3.1.57), dropped right after instantiation.
//  - the worker's first message ({cmd: 'load', wasmModule, ...}): since
//    3.1.58 the app's own JS runs in the worker and gets the module only
//    there, without keeping it. We do not rely on the field's name: the
//    first WebAssembly.Module found among the message's values is taken.
var wasmtraceCompiledModule = Module['wasmModule'] || null;
(function () {
  if (wasmtraceCompiledModule || typeof WebAssembly === 'undefined') return;
  function take(data) {
    if (wasmtraceCompiledModule || !data || typeof data !== 'object') return false;
    for (var key in data) {
      var value = data[key];
      if (value instanceof WebAssembly.Module) {
        wasmtraceCompiledModule = value;
        return true;
      }
    }
    return false;
  }
  // Browser workers: a listener beside Emscripten's own onmessage; messages
  // posted before this script finished are delivered after it, so the
  // 'load' message is never missed. Removed once the module is found.
  if (typeof self !== 'undefined' && typeof self.addEventListener === 'function' &&
      typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope) {
    var onMessage = function (e) {
      if (take(e.data)) self.removeEventListener('message', onMessage);
    };
    self.addEventListener('message', onMessage);
    return;
  }
  // Node worker_threads (the native tests run as wasm under Node).
  if (typeof process === 'object' && process.versions && process.versions.node &&
      typeof require === 'function') {
    try {
      var port = require('worker_threads').parentPort;
      if (port) {
        var onPortMessage = function (data) {
          if (take(data)) port.off('message', onPortMessage);
        };
        port.on('message', onPortMessage);
      }
    } catch (e) {
      // No worker_threads: not a pthread, nothing to capture.
    }
  }
})();

// ---- Emscripten by version: the one adapter -----------------------------
// What differs between the Emscripten versions wasmtrace supports, for the
// page's plug-ins, in one place (the rest of the shim asks here; the list
// of every internal read, with its versions, is at the top of
// js/wasmtrace_library.js). Each entry names the versions it was read in
// and tested on (3.1.6, 3.1.69, 6.0.5).
var wasmtraceEmscripten = {
  // A pthread pool worker says it has instantiated the module: {cmd:
  // 'loaded'} up to 3.1.x; numbered commands in 4.x and later, where
  // 'loaded' is CMD_LOADED = 3 (6.0.5's src/lib/libpthread.js).
  workerLoaded: function (data) {
    if (!data || typeof data !== 'object') return false;
    return data.cmd === 'loaded' || data.cmd === 3;
  },
  // Run dependencies: `hooks.added(id)` and `hooks.removed(id)` around
  // Emscripten's addRunDependency/removeRunDependency. Up to 4.0.13 they
  // are function declarations of the runtime, hoisted into the scope this
  // file runs in: wrapped from here, before the module's own code calls
  // them. Since 4.0.14 they are library symbols, `var`s assigned after this
  // file ran (6.0.5): the library's postset ($wasmtraceRunDependencies)
  // calls this again once they exist, before the module is instantiated.
  // Wrapped once; a missing pair means no run-dependency spans.
  runDependencyHooks: null,
  wrapRunDependencies: function () {
    var hooks = wasmtraceEmscripten.runDependencyHooks;
    try {
      if (!hooks || typeof addRunDependency !== 'function' || typeof removeRunDependency !== 'function' ||
          addRunDependency.wasmtraceWrapped) return;
      var origAdd = addRunDependency, origRemove = removeRunDependency;
      addRunDependency = function (id) {
        try { hooks.added(id); } catch (e) { /* not timed */ }
        return origAdd.apply(this, arguments);
      };
      removeRunDependency = function (id) {
        try { hooks.removed(id); } catch (e) { /* not timed */ }
        return origRemove.apply(this, arguments);
      };
      addRunDependency.wasmtraceWrapped = true;
    } catch (e) { /* not timed */ }
  },
};


// ---- The page's lifecycle: one registration, one set of hooks -----------
// Every page-side part of wasmtrace is a plug-in: an object whose methods
// are named after the moments it wants, registered with
// wasmtracePage.use(plugin). The moments, each at most once, in order:
//   preRunStart, preRunEnd  the first and last callbacks of Module.preRun
//                            (the module is instantiated; constructors next)
//   attach(c, constructorsMs)
//                            wasmtrace's startup constructor: the module's C
//                            is up; `c` holds what the plug-ins hand data to
//                            (js/wasmtrace_library.js, wt_js_startup_attach)
//   scriptEvaluated          the end of the app script (wasmtrace_post.js)
//   runtimeReady             Module.onRuntimeInitialized, before the app's
//   mainStarts               the same, after the app's: main() is next
//   mainReturned             Module.postRun
//   aborted(what), exited(status)
//                            Module.onAbort, Module.onExit, before the app's
// Module's hooks are chained here once each, around the app's own, on the
// main thread (a pthread worker gets none): from this file in a browser,
// before the module's code runs (preRun, onRuntimeInitialized, postRun),
// and from wasmtrace_post.js (all five), which also chains any hook the
// app replaced in between (its own --pre-js may assign
// Module.onRuntimeInitialized) and Node's. A hook that throws is caught:
// never in the app's way. A plug-in registered after a moment misses it (a
// -sMODULARIZE build of Emscripten 4.x and later runs --post-js files after
// main(): wasmtrace_post.js's plug-ins get only the moments after it).
var wasmtracePage = (function () {
  var plugins = [], fired = {};
  function tell(event, args) {
    for (var i = 0; i < plugins.length; i++) {
      try {
        if (typeof plugins[i][event] === 'function') plugins[i][event].apply(plugins[i], args || []);
      } catch (e) { /* never in the app's way */ }
    }
  }
  function fire(moment, args) {
    if (fired[moment]) return;
    fired[moment] = true;
    tell(moment, args);
  }
  function ours(f) { return typeof f === 'function' && f.wasmtracePage === true; }
  function mark(f) { f.wasmtracePage = true; return f; }
  function list(x) { return typeof x === 'function' ? [x] : Array.isArray(x) ? x : []; }
  function around(key, before, after) {
    var app = Module[key];
    if (ours(app)) return;
    Module[key] = mark(function () {
      fire(before, Array.prototype.slice.call(arguments));
      try {
        if (typeof app === 'function') return app.apply(this, arguments);
      } finally {
        if (after) fire(after);
      }
    });
  }
  return {
    use: function (plugin) {
      if (plugin && typeof plugin === 'object' && plugins.indexOf(plugin) < 0) plugins.push(plugin);
      return plugin;
    },
    fire: fire,
    // An event that may come again: nextWorker(label), the library's pool
    // naming the Worker it creates next.
    tell: tell,
    // ends: also Module.onAbort and Module.onExit (the post-js's call; the
    // pre-js's leaves them to it, as their setters before the module's own
    // code would trip Emscripten's INCOMING_MODULE_JS_API assertion). Each
    // hook on its own: one that cannot be chained loses its moments only.
    // The runtime's own three are left alone once it has run (with the
    // post-js after run(), e.g. -sMODULARIZE on Emscripten 4.0.7+):
    // Emscripten 4.0.5+ with assertions makes them setters that abort().
    chain: function (ends) {
      if (typeof Module !== 'object' || !Module) return;
      var ran = typeof runtimeInitialized !== 'undefined' && runtimeInitialized;
      var hooks = [
        ['onAbort', ends, function () { around('onAbort', 'aborted', null); }],
        ['onExit', ends, function () { around('onExit', 'exited', null); }],
        ['preRun', !ran, function () {
          var pre = list(Module['preRun']);
          if (pre.some(ours)) return;
          Module['preRun'] = [mark(function () { fire('preRunStart'); })].concat(pre, [mark(function () { fire('preRunEnd'); })]);
        }],
        ['postRun', !ran, function () {
          var post = list(Module['postRun']);
          if (!post.some(ours)) Module['postRun'] = post.concat([mark(function () { fire('mainReturned'); })]);
        }],
        ['onRuntimeInitialized', !ran, function () { around('onRuntimeInitialized', 'runtimeReady', 'mainStarts'); }],
      ];
      for (var i = 0; i < hooks.length; i++) {
        try {
          var d = Object.getOwnPropertyDescriptor(Module, hooks[i][0]);
          if (hooks[i][1] && !(d && (d.get || d.set))) hooks[i][2]();
        } catch (e) { /* this hook's moments do not come */ }
      }
    },
  };
})();
if (typeof window !== 'undefined' && typeof document !== 'undefined') wasmtracePage.chain(false);

// ---- What the page files share: text, the config, function names --------
// Plain functions of the module's scope, where the js-library's imports,
// the post-js files and the startup timeline call them; pthread workers
// have them too (the wasmtrace worker names its frames with
// wasmtraceParseNames). They use only documented runtime parts
// (lengthBytesUTF8, FS, Module), no Emscripten internal. Node evaluates
// this file to reach the pure ones (lib/names.mjs: the name parser;
// tests/node/server-files.test.mjs: the server object's rules).
// `text` with every lone surrogate replaced by U+FFFD, so that
// stringToUTF8 writes valid UTF-8 and keeps the next character (the list
// at the top of js/wasmtrace_library.js says why).
function wasmtraceWellFormed(text) {
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
}
// The largest config text the shim hands to C (startup blob from JS, or
// one startSession() config): far above any real config (a 16-session
// blob is ~16 KB), far below what could exhaust a fixed heap.
var wasmtraceLimits = { configMaxBytes: 1048576 };

// What a JS value is, for an error message (never calls the value's code).
function wasmtraceDescribe(v) {
  if (v === null) return 'null';
  var t = typeof v;
  if (t === 'undefined' || t === 'boolean') return String(v);
  if (t === 'number') return 'the number ' + String(v);
  if (t === 'bigint') return 'a BigInt';
  if (t === 'symbol') return 'a Symbol';
  if (t === 'function') return 'a function';
  if (t === 'string') return 'a string';
  return 'an object';
}

// A config as the C side takes it: `config` (a JSON string, or a session
// object, any JS value) as JSON text, checked against that limit and made
// well-formed: {text, bytes} (its UTF-8 size), or {error} saying why not.
// Counted in UTF-16 units first: a huge string is refused before it is
// copied (bytes >= units). For wt_js_read_config (the library, with the
// source's text), startSession() and the server's queue.
function wasmtraceConfigText(config) {
  var text = config;
  if (typeof config !== 'string') {
    var what = 'config must be a session object or a JSON string, got ';
    if (config === null || typeof config !== 'object') return { error: what + wasmtraceDescribe(config) };
    try {
      if (Array.isArray(config)) return { error: what + 'an array' }; // a revoked Proxy throws here
      text = JSON.stringify(config);
    } catch (e) {
      return { error: 'config cannot be serialized as JSON: ' + wasmtraceMessageOf(e) };
    }
    if (typeof text !== 'string') {
      return { error: 'config has no JSON form (its toJSON returned ' + wasmtraceDescribe(text) + ')' };
    }
  }
  var max = wasmtraceLimits.configMaxBytes;
  if (text.length > max) return { error: 'the config text is more than ' + max + ' bytes; the limit is ' + max };
  text = wasmtraceWellFormed(text);
  var bytes = lengthBytesUTF8(text);
  if (bytes > max) return { error: 'the config text is ' + bytes + ' bytes; the limit is ' + max };
  return { text: text, bytes: bytes };
}

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
// and wasmtraceServerConfig (below; js/wasmtrace_server.js, before run()).
function wasmtraceConfigSource() {
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
}
// A message of an exception, whatever was thrown, on one short line.
function wasmtraceMessageOf(e) {
  var m;
  try {
    m = e && typeof e.message === 'string' ? e.message : String(e);
  } catch (ignored) {
    m = 'an exception whose message cannot be read';
  }
  return m.length > 300 ? m.slice(0, 300) + '...' : m;
}


// The `server` object of a config (docs/PROTOCOL.md), checked: the one
// place its rules live. In JS, not in the C config parser, because the
// page must know the URL, and whether to suspend, before the module runs:
// suspend holds the constructors that read the config in C. Returns
// {config: {url, connectUrl, suspend, suspendTimeoutMs, token,
// reconnectMs}} or {error: '<key path>: <problem>'}. A pure function of
// its argument (tests/node/server-files.test.mjs).
function wasmtraceCheckServer(v) {
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
}
// The startup config's server, for js/wasmtrace_server.js: null (no
// config, no "server" key, or a config the C side reports as unreadable),
// {config}, {error, source} (an invalid server object: the page does not
// connect), or {refused} (a source anyone can set named a server).
function wasmtraceServerConfig() {
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
}


// The function names of a wasm "name" section's bytes: { funcIndex: name }.
// A pure function of its input (tests/node/fuzz-readers.test.mjs fuzzes it
// in Node): every length and index is checked against the bytes left, a
// LEB128 longer than 5 bytes or cut short ends the parse, each step
// consumes input (no loop runs past the end) and it never throws on any
// bytes; whatever was read before a bad entry is kept.
function wasmtraceParseNames(bytes) {
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
}

// One function, one name: `name` without the suffixes compilers and
// linkers add to copies of a function, so that a function's clones add up
// in one row. Seen in wasm name sections (clang 14 and 19): wasm-ld 14
// numbers same-named locals of different files `helper.1`, `f(int).1`
// (wasm-ld 19 and 21: `helper_42`, see wasmtraceParseNames); LTO renames them
// before demangling, which then reads
// `f(int) (.1)`; LLVM passes add `.llvm.N`, `.cold`, `.specialized.N`;
// GCC-style `.constprop.N`, `.isra.N`, `.part.N` too. Only whole
// dot-separated tokens at the end are cut (digits or one of these words),
// and only after a character that ends a C or C++ name: no C++ name
// contains a '.', so nothing of a real name goes. Linear in the length
// (no regex backtracking: the fuzzers feed it any string).
function wasmtraceCanonicalName(name) {
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
}
