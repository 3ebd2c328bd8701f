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

  // Function names for the wasmtrace worker, built once per thread from the
  // wasm "name" section (present with --profiling-funcs or -g).
  $wasmtraceNames: null,
  $wasmtraceLoadNames: function () {
    var names = {};
    var mod = (typeof wasmtraceCompiledModule !== 'undefined' && wasmtraceCompiledModule) ||
      (typeof wasmModule !== 'undefined' && wasmModule) || null;
    if (!mod) return names;
    var sections = WebAssembly.Module.customSections(mod, 'name');
    if (!sections.length) return names;
    var bytes = new Uint8Array(sections[0]);
    var pos = 0;
    function leb() {
      var result = 0, shift = 0, b;
      do {
        b = bytes[pos++];
        result += (b & 0x7f) * Math.pow(2, shift);
        shift += 7;
      } while (b & 0x80);
      return result;
    }
    var decoder = new TextDecoder('utf-8');
    while (pos < bytes.length) {
      var id = bytes[pos++];
      var size = leb();
      var end = pos + size;
      if (id === 1) { // function names: vec(index, name)
        var count = leb();
        for (var i = 0; i < count && pos < end; i++) {
          var index = leb();
          var len = leb();
          names[index] = decoder.decode(bytes.subarray(pos, pos + len));
          pos += len;
        }
      }
      pos = end;
    }
    return names;
  },

  // Writes the name of the function at wasm table index `tableIndex` into
  // buf; returns the bytes written, 0 if the slot holds no function.
  wt_js_function_name__deps: ['$wasmtraceNames', '$wasmtraceLoadNames'],
  wt_js_function_name: function (tableIndex, buf, cap) {
    if (!wasmtraceNames) wasmtraceNames = wasmtraceLoadNames();
    var fn = null;
    try {
      fn = wasmTable.get(tableIndex);
    } catch (e) {
      return 0;
    }
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
  wt_js_log_error: function (messagePtr) {
    console.error('wasmtrace: ' + UTF8ToString(messagePtr));
  },
});
