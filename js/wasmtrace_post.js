// wasmtrace JS shim (linked with --post-js): Module.wasmtrace.
// Runs on the main browser thread; the C side does the recording on its own
// worker. Nothing here blocks: stop() polls, and this file's timer is what
// writes the worker's output to the VFS (VFS writes belong to this thread).
(function () {
  if (typeof ENVIRONMENT_IS_PTHREAD !== 'undefined' && ENVIRONMENT_IS_PTHREAD) return;

  var STATES = ['starting', 'running', 'stopping', 'stopped', 'failed'];
  var STAT_KEYS = ['samplesTaken', 'samplesWritten', 'samplesDropped', 'samplesDroppedBufferFull',
    'samplesDroppedTornStack', 'eventsWritten', 'eventsDropped', 'ticksMissed', 'bytesEncoded',
    'bytesWritten', 'threads', 'bufferHighWaterBytes', 'threadsRefused', 'threadsLimit'];
  var PUMP_INTERVAL_MS = 25;
  var sessions = {};

  function c(name) {
    var fn = Module['_' + name];
    if (!fn) {
      throw new Error('wasmtrace: ' + name + ' is missing from the module: link the app with the ' +
        'wasmtrace CMake target or the documented emcc flags');
    }
    return fn;
  }

  function ready() {
    if (!runtimeInitialized) {
      throw new Error('wasmtrace: the module is not initialized yet; call Module.wasmtrace from ' +
        'Module.onRuntimeInitialized, Module.postRun or later');
    }
  }

  function pump() {
    if (runtimeInitialized && !ABORT) c('wt_js_io_pump')();
  }

  // Writes worker output to the VFS whenever this thread is free. The worker
  // never waits for this: it buffers (bounded) until the next pump.
  var timer = setInterval(pump, PUMP_INTERVAL_MS);
  if (timer && typeof timer.unref === 'function') timer.unref();

  function Session(id) {
    this.id = id;
    this._stopPromise = null;
  }

  Object.defineProperties(Session.prototype, {
    name: { get: function () { return UTF8ToString(c('wt_js_session_name')(this.id)); } },
    output: { get: function () { return UTF8ToString(c('wt_js_session_output')(this.id)); } },
    state: { get: function () { return STATES[c('wt_js_session_state')(this.id)] || 'failed'; } },
    error: {
      get: function () {
        var e = UTF8ToString(c('wt_js_session_error')(this.id));
        return e === '' ? null : e;
      },
    },
  });

  Session.prototype.stats = function () {
    var ptr = c('wt_js_alloc')(8 * STAT_KEYS.length);
    try {
      c('wt_js_session_stats')(this.id, ptr);
      var out = {};
      for (var i = 0; i < STAT_KEYS.length; i++) out[STAT_KEYS[i]] = HEAPF64[(ptr >> 3) + i];
      return out;
    } finally {
      c('wt_js_free')(ptr);
    }
  };

  // Resolves with the session once its file is complete on the VFS; rejects
  // if the session failed. Calling it again returns the same promise.
  Session.prototype.stop = function () {
    if (this._stopPromise) return this._stopPromise;
    var self = this;
    c('wt_js_session_stop')(this.id);
    this._stopPromise = new Promise(function (resolve, reject) {
      function tick() {
        pump();
        var state = self.state;
        if (state === 'stopped') return resolve(self);
        if (state === 'failed') {
          return reject(new Error("wasmtrace: session '" + self.name + "' failed: " + self.error));
        }
        setTimeout(tick, 5);
      }
      // First poll on the next turn: stop() calls made together (one per
      // session) reach the worker together, before any file is written.
      setTimeout(tick, 0);
    });
    return this._stopPromise;
  };

  Session.prototype.getTraceBytes = function () {
    var state = this.state;
    if (state !== 'stopped') {
      throw new Error("wasmtrace: session '" + this.name + "' is " + state +
        (state === 'failed' ? ' (' + this.error + ')' : '; await session.stop() first'));
    }
    return FS.readFile(this.output);
  };

  Session.prototype.getTraceBlob = function () {
    var gzip = c('wt_js_session_gzip')(this.id) === 1;
    var folded = c('wt_js_session_format')(this.id) === 2;
    var type = gzip ? 'application/gzip' : folded ? 'text/plain' : 'application/json';
    return new Blob([this.getTraceBytes()], { type: type });
  };

  Session.prototype.download = function (filename) {
    var blob = this.getTraceBlob();
    var url = URL.createObjectURL(blob);
    var a = document.createElement('a');
    a.href = url;
    a.download = filename || this.output.split('/').pop();
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  };

  function session(id) {
    if (!sessions[id]) sessions[id] = new Session(id);
    return sessions[id];
  }

  Module['wasmtrace'] = {
    // The C library's version (WT_VERSION_STRING, the same as package.json's),
    // or 'unknown' before the runtime is initialized or when the library
    // lacks wt_js_version (older than this shim).
    get version() {
      var fn = Module['_wt_js_version'];
      return fn && runtimeInitialized ? UTF8ToString(fn()) : 'unknown';
    },
    // The sessions started from the config blob before main() (including
    // failed ones, with their error).
    getStartupSessions: function () {
      ready();
      var n = c('wt_js_startup_count')();
      var out = [];
      for (var i = 0; i < n; i++) out.push(session(c('wt_js_startup_id')(i)));
      return out;
    },
    // Starts a session now; `config` is one session object of the blob (an
    // object or a JSON string). Always returns a Session: check its state.
    startSession: function (config) {
      ready();
      var text = typeof config === 'string' ? config : JSON.stringify(config || {});
      var size = lengthBytesUTF8(text) + 1;
      var ptr = c('wt_js_alloc')(size);
      if (!ptr) throw new Error('wasmtrace: out of memory for the session config');
      stringToUTF8(text, ptr, size);
      try {
        return session(c('wt_js_session_start')(ptr));
      } finally {
        c('wt_js_free')(ptr);
      }
    },
    // A top-level problem with the config blob (malformed JSON, ...) or null.
    get configError() {
      ready();
      var e = UTF8ToString(c('wt_js_config_error')());
      return e === '' ? null : e;
    },
    // Memory: the module's wasm memory size and bytes malloc'd, and what
    // wasmtrace allocates per registered thread and per session record.
    memory: function () {
      ready();
      var ptr = c('wt_js_alloc')(32);
      try {
        c('wt_js_memory')(ptr);
        var at = ptr >> 3;
        return { heapBytes: HEAPF64[at], mallocBytes: HEAPF64[at + 1],
          threadRecordBytes: HEAPF64[at + 2], sessionRecordBytes: HEAPF64[at + 3] };
      } finally {
        c('wt_js_free')(ptr);
      }
    },
    pump: pump,
  };
})();
