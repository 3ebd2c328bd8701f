// wasmtrace (linked with --pre-js): keep a reference to the compiled
// WebAssembly.Module in pthread workers, whose name section the wasmtrace
// worker reads to name the functions it sampled. Every Emscripten internal
// the shim relies on is listed, with the versions it holds for, at the top
// of js/wasmtrace_library.js; the two read here are:
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
