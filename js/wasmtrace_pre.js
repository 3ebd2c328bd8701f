// wasmtrace (linked with --pre-js, the first of wasmtrace's page files):
// the page's lifecycle that every other page part plugs into
// (wasmtracePage, below), the toolchain adapter, and a reference to the
// compiled WebAssembly.Module in pthread workers, whose name section the
// wasmtrace worker reads to name the functions it sampled. Every Emscripten
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
