// wasmtrace: C-callable JS imports (linked with --js-library).
// These run on the thread that calls them; none is proxied to the main thread,
// so the wasmtrace worker never waits on it.
mergeInto(LibraryManager.library, {
  // Returns a malloc'd UTF-8 copy of the startup config blob, or 0.
  // *sourceKind = 1 for Module.wasmtraceConfig, 2 for the URL parameter.
  // Called once, on the main thread, before main().
  wt_js_read_config__deps: ['malloc'],
  wt_js_read_config: function (sourceKindPtr) {
    var text = null;
    var kind = 0;
    var cfg = Module['wasmtraceConfig'];
    if (cfg !== undefined && cfg !== null) {
      text = typeof cfg === 'string' ? cfg : JSON.stringify(cfg);
      kind = 1;
    } else if (typeof location !== 'undefined' && location.search) {
      var param = new URLSearchParams(location.search).get('wasmtrace');
      if (param !== null) {
        text = param;
        kind = 2;
      }
    }
    if (text === null) return 0;
    var size = lengthBytesUTF8(text) + 1;
    var ptr = _malloc(size);
    if (!ptr) return 0;
    stringToUTF8(text, ptr, size);
    HEAP32[sourceKindPtr >> 2] = kind;
    return ptr;
  },

  // Prints one wasmtrace message to the console of the calling thread.
  wt_js_log_error: function (messagePtr) {
    console.error('wasmtrace: ' + UTF8ToString(messagePtr));
  },
});
