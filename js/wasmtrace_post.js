// wasmtrace JS shim (linked with --post-js): Module.wasmtrace.
// Runs on the main browser thread; the C side does the recording on its own
// worker. Nothing here blocks: stop() polls, and this file's timer is what
// writes the worker's output to the VFS (VFS writes belong to this thread).
//
// Any JS value may reach these methods: none throws a raw TypeError, and
// startSession() always returns a Session (failed, with the reason, when it
// cannot start). Once the runtime is dead (abort(), or exit with
// -sEXIT_RUNTIME), nothing here calls into the module any more, except one
// read of each known session's state when the shim first notices (lock-free
// loads: abort() may have come from inside malloc); what that read found
// 'stopped' keeps its trace, which is a VFS file, and the VFS is JS.
// The Emscripten internals used here are listed at the top of
// js/wasmtrace_library.js.
(function () {
  if (typeof ENVIRONMENT_IS_PTHREAD !== 'undefined' && ENVIRONMENT_IS_PTHREAD) return;

  var STATES = ['starting', 'running', 'stopping', 'stopped', 'failed'];
  // session.stats()'s keys: native/src/stats_list.h lists them, in this order
  // (tests/node/counters.test.mjs checks it).
  var STAT_KEYS = ['samplesTaken', 'samplesWritten', 'samplesDropped', 'samplesDroppedBufferFull',
    'samplesDroppedTornStack', 'eventsWritten', 'eventsDropped', 'ticksMissed', 'bytesEncoded',
    'bytesWritten', 'threads', 'bufferHighWaterBytes', 'threadsRefused', 'threadsLimit',
    'samplesPartial', 'samplesWaiting'];
  var PUMP_INTERVAL_MS = 25;
  var CANNOT_FINISH = '; sessions cannot finish';
  var sessions = {};
  // Why the runtime is dead, or null (Module.wasmtrace.aborted).
  var aborted = null;
  // What was read of the runtime when the shim noticed it was dead.
  var lastWords = null;
  // The stats buffer: allocated once while the runtime lives, never freed,
  // so that reading stats never needs malloc (which an abort may have left
  // locked).
  var statsPtr = 0;

  function c(name) {
    var fn = Module['_' + name];
    if (!fn) {
      throw new Error('wasmtrace: ' + name + ' is missing from the module: link the app with the ' +
        'wasmtrace CMake target or the documented emcc flags');
    }
    return fn;
  }

  // A message of an exception, whatever was thrown (its message may be a
  // throwing getter), on one short line.
  function messageOf(e) {
    var m;
    try {
      m = e && typeof e.message === 'string' ? e.message : String(e);
    } catch (ignored) {
      m = 'an exception whose message cannot be read';
    }
    return m.length > 200 ? m.slice(0, 200) + '...' : m;
  }

  // The runtime's end, noticed through Emscripten's hooks (with the reason)
  // or its flags (when the app replaced the hooks after this file ran).
  function noteEnd(reason) {
    if (aborted) return;
    aborted = reason;
    lastWords = { startupIds: null, configError: null, version: 'unknown' };
    try {
      var ids = [];
      var n = c('wt_js_startup_count')();
      for (var i = 0; i < n; i++) ids.push(c('wt_js_startup_id')(i));
      lastWords.startupIds = ids;
      lastWords.configError = UTF8ToString(c('wt_js_config_error')()) || null;
      lastWords.version = UTF8ToString(c('wt_js_version')());
      ids.forEach(session); // their names and outputs, read now or never
    } catch (e) {
      // A module that cannot answer any more (exited, with assertions).
    }
    for (var id in sessions) sessions[id]._freeze();
  }

  function dead() {
    if (aborted) return aborted;
    if (typeof ABORT !== 'undefined' && ABORT) {
      // The hooks below were replaced by the app after this file ran.
      noteEnd('the wasm runtime aborted: reason unknown' +
        (typeof EXITSTATUS === 'number' ? ' (exit status ' + EXITSTATUS + ')' : ''));
    } else if (typeof runtimeExited !== 'undefined' && runtimeExited) {
      noteEnd('the wasm runtime exited');
    }
    return aborted;
  }

  // Chain to the app's own hooks (set on Module before this file ran);
  // a pthread's abort() reaches onAbort on this thread too.
  var appOnAbort = Module['onAbort'];
  Module['onAbort'] = function (what) {
    var r = what === undefined || what === null ? '' : messageOf(what);
    noteEnd('the wasm runtime aborted: ' + (r || 'abort() was called'));
    if (typeof appOnAbort === 'function') return appOnAbort.apply(this, arguments);
  };
  var appOnExit = Module['onExit'];
  Module['onExit'] = function (status) {
    noteEnd('the wasm runtime exited with status ' + messageOf(status));
    if (typeof appOnExit === 'function') return appOnExit.apply(this, arguments);
  };

  // Just before main(): one console line (debug level, hidden in DevTools
  // by default) saying which startup sessions run. A console line reaches
  // DevTools and `wasmtrace record` even while main() keeps this thread
  // busy, when nothing in the page can answer a question.
  //   wasmtrace: before main(): 'startup' running, 'other' failed
  //   wasmtrace: before main(): no startup sessions
  //   wasmtrace: before main(): the config was rejected: <why>
  var appOnInit = Module['onRuntimeInitialized'];
  function announceStartup() {
    var rejected = UTF8ToString(c('wt_js_config_error')());
    var names = [];
    var n = c('wt_js_startup_count')();
    for (var i = 0; i < n; i++) {
      var s = session(c('wt_js_startup_id')(i));
      names.push("'" + s.name + "' " + s.state);
    }
    console.debug('wasmtrace: before main(): ' + (rejected ? 'the config was rejected: ' + rejected :
      names.length ? names.join(', ') : 'no startup sessions'));
  }
  Module['onRuntimeInitialized'] = function () {
    // Browsers only: Node prints console.debug on stdout, which is the app's.
    if (typeof ENVIRONMENT_IS_NODE === 'undefined' || !ENVIRONMENT_IS_NODE) {
      try {
        announceStartup();
      } catch (e) {
        // Never in the way of the app's start.
      }
    }
    if (typeof appOnInit === 'function') return appOnInit.apply(this, arguments);
  };

  function ready() {
    if (!runtimeInitialized && !dead()) {
      throw new Error('wasmtrace: the module is not initialized yet; call Module.wasmtrace from ' +
        'Module.onRuntimeInitialized, Module.postRun or later');
    }
  }

  function pump() {
    if (runtimeInitialized && !dead()) c('wt_js_io_pump')();
  }

  // Writes worker output to the VFS whenever this thread is free. The worker
  // never waits for this: it buffers (bounded) until the next pump.
  var timer = setInterval(function () {
    try {
      pump();
    } catch (e) {
      // The module threw (a trap in the app's code it reached): the next
      // pump tries again; stop() reports it if it persists.
    }
  }, PUMP_INTERVAL_MS);
  if (timer && typeof timer.unref === 'function') timer.unref();

  function readStats(id) {
    if (!statsPtr) {
      if (aborted) return null;
      statsPtr = c('wt_js_alloc')(8 * STAT_KEYS.length);
      if (!statsPtr) throw new Error('wasmtrace: out of memory for the stats buffer (' + 8 * STAT_KEYS.length + ' bytes)');
    }
    c('wt_js_session_stats')(id, statsPtr);
    var out = {};
    for (var i = 0; i < STAT_KEYS.length; i++) out[STAT_KEYS[i]] = HEAPF64[(statsPtr >> 3) + i];
    return out;
  }

  function zeroStats() {
    var out = {};
    for (var i = 0; i < STAT_KEYS.length; i++) out[STAT_KEYS[i]] = 0;
    return out;
  }

  // A session: `id` is its C record (-1 for one that failed in JS without
  // one: after the runtime died, or when even a failed record could not be
  // had). What never changes is read once, while the runtime lives.
  function Session(id, localError) {
    Object.defineProperty(this, 'id', { value: id, enumerable: true });
    this._local = localError || null;
    this._final = null;
    this._stopPromise = null;
    this._meta = { name: '', output: '', gzip: false, format: 0 };
    if (!this._local) {
      this._meta = {
        name: UTF8ToString(c('wt_js_session_name')(id)),
        output: UTF8ToString(c('wt_js_session_output')(id)),
        gzip: c('wt_js_session_gzip')(id) === 1,
        format: c('wt_js_session_format')(id),
      };
    }
  }

  // `s` if it is a Session, else a clear Error (a method called detached).
  function own(s, member) {
    if (!(s instanceof Session)) {
      throw new Error('wasmtrace: Session.' + member + ' used on something that is not a session ' +
        '(use it as session.' + member + ')');
    }
    return s;
  }

  // Records what the session was when the runtime died: 'stopped' (its
  // file is complete on the VFS, which survives) or failed.
  Session.prototype._freeze = function () {
    if (this._local || this._final) return;
    var state = 'failed', error = null, stats = null;
    try {
      state = STATES[c('wt_js_session_state')(this.id)] || 'failed';
      if (state === 'failed') error = UTF8ToString(c('wt_js_session_error')(this.id));
      if (state === 'stopped') stats = readStats(this.id);
    } catch (e) {
      state = 'failed';
    }
    if (state !== 'stopped' && state !== 'failed') state = 'failed';
    if (state === 'failed' && !error) error = aborted + CANNOT_FINISH;
    this._final = { state: state, error: error, stats: stats };
  };

  Session.prototype._current = function () {
    if (this._local) return { state: 'failed', error: this._local, stats: null };
    if (this._final) return this._final;
    if (dead()) {
      this._freeze();
      return this._final;
    }
    return null;
  };

  Object.defineProperties(Session.prototype, {
    name: { get: function () { return own(this, 'name')._meta.name; } },
    output: { get: function () { return own(this, 'output')._meta.output; } },
    state: {
      get: function () {
        var f = own(this, 'state')._current();
        return f ? f.state : STATES[c('wt_js_session_state')(this.id)] || 'failed';
      },
    },
    error: {
      get: function () {
        var f = own(this, 'error')._current();
        if (f) return f.error;
        var e = UTF8ToString(c('wt_js_session_error')(this.id));
        return e === '' ? null : e;
      },
    },
  });

  Session.prototype.stats = function () {
    var f = own(this, 'stats()')._current();
    if (f) {
      if (f.stats) return Object.assign({}, f.stats);
      if (this._local) return zeroStats();
      throw new Error("wasmtrace: the stats of session '" + this.name + "' are gone: " + aborted +
        ' before the session finished');
    }
    return readStats(this.id);
  };

  // Resolves with the session once its file is complete on the VFS; rejects
  // if the session failed or the runtime died. Calling it again returns the
  // same promise.
  Session.prototype.stop = function () {
    var s;
    try {
      s = own(this, 'stop()');
    } catch (e) {
      return Promise.reject(e);
    }
    if (s._stopPromise) return s._stopPromise;
    function failure() {
      return new Error('wasmtrace: ' + (s.name ? "session '" + s.name + "'" : 'the session') + ' failed: ' + s.error);
    }
    s._stopPromise = new Promise(function (resolve, reject) {
      function tick() {
        try {
          pump();
          var state = s.state;
          if (state === 'stopped') return resolve(s);
          if (state === 'failed') return reject(failure());
          setTimeout(tick, 5);
        } catch (e) {
          reject(new Error("wasmtrace: stopping session '" + s.name + "' failed: " + messageOf(e)));
        }
      }
      if (!s._current()) {
        try {
          c('wt_js_session_stop')(s.id);
        } catch (e) {
          return reject(new Error("wasmtrace: stopping session '" + s.name + "' failed: " + messageOf(e)));
        }
      }
      // First poll on the next turn: stop() calls made together (one per
      // session) reach the worker together, before any file is written.
      setTimeout(tick, 0);
    });
    return s._stopPromise;
  };

  Session.prototype.getTraceBytes = function () {
    var state = own(this, 'getTraceBytes()').state;
    if (state !== 'stopped') {
      throw new Error("wasmtrace: session '" + this.name + "' is " + state +
        (state === 'failed' ? ' (' + this.error + ')' : '; await session.stop() first'));
    }
    try {
      return FS.readFile(this.output);
    } catch (e) {
      var code = e && typeof e.code === 'string' ? e.code : messageOf(e);
      throw new Error("wasmtrace: the trace of session '" + this.name + "' cannot be read from the VFS at " +
        this.output + ' (' + code + ')');
    }
  };

  Session.prototype.getTraceBlob = function () {
    var bytes = own(this, 'getTraceBlob()').getTraceBytes();
    var type = this._meta.gzip ? 'application/gzip' : this._meta.format === 2 ? 'text/plain' : 'application/json';
    return new Blob([bytes], { type: type });
  };

  // Saves the trace through a download link; `filename` defaults to the
  // output's base name when it is undefined, null or ''.
  Session.prototype.download = function (filename) {
    own(this, 'download()');
    if (filename !== undefined && filename !== null && typeof filename !== 'string') {
      throw new Error('wasmtrace: download(filename): filename must be a string, got ' + describe(filename));
    }
    if (typeof document === 'undefined') {
      throw new Error('wasmtrace: download() needs a page (document); use getTraceBlob() here');
    }
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
    // The stats buffer, taken while the runtime surely lives (see statsPtr).
    if (!statsPtr && !aborted) statsPtr = c('wt_js_alloc')(8 * STAT_KEYS.length);
    if (!sessions[id]) {
      sessions[id] = new Session(id);
      if (aborted) sessions[id]._freeze();
    }
    return sessions[id];
  }

  // What a JS value is, for an error message (never calls the value's code).
  function describe(v) {
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

  // The JSON text of a startSession() argument, or {error}.
  function configText(config) {
    var what = 'startSession(config): ';
    var text;
    if (typeof config === 'string') {
      text = config;
    } else if (config === null || typeof config !== 'object') {
      return { error: what + 'config must be a session object or a JSON string, got ' + describe(config) };
    } else {
      try {
        if (Array.isArray(config)) {
          return { error: what + 'config must be a session object or a JSON string, got an array' };
        }
        text = JSON.stringify(config);
      } catch (e) {
        return { error: what + 'config cannot be serialized as JSON: ' + messageOf(e) };
      }
      if (typeof text !== 'string') {
        return { error: what + 'config has no JSON form (its toJSON returned ' + describe(text) + ')' };
      }
    }
    var max = wasmtraceLimits.configMaxBytes;
    // Checked on UTF-16 units first: a huge string is refused before it is
    // copied; bytes >= units.
    if (text.length > max) {
      return { error: what + 'the config text is more than ' + max + ' bytes; the limit is ' + max };
    }
    text = wasmtraceWellFormed(text);
    var bytes = lengthBytesUTF8(text);
    if (bytes > max) return { error: what + 'the config text is ' + bytes + ' bytes; the limit is ' + max };
    return { text: text, bytes: bytes };
  }

  // A C string copy of `text` (well-formed), or 0; free it with wt_js_free.
  function cString(text) {
    var size = lengthBytesUTF8(text) + 1;
    var ptr = c('wt_js_alloc')(size);
    if (ptr) stringToUTF8(text, ptr, size);
    return ptr;
  }

  // A session that failed before it started: a C record when one can be
  // had (it gets an id and is printed once, like any failed session).
  function failedSession(error) {
    error = wasmtraceWellFormed(error);
    if (dead()) return new Session(-1, error);
    var ptr = cString(error);
    var id = -1;
    if (ptr) {
      try {
        id = c('wt_js_session_fail_new')(ptr);
      } finally {
        c('wt_js_free')(ptr);
      }
    }
    if (id < 0) {
      console.error('wasmtrace: ' + error);
      return new Session(-1, error);
    }
    return session(id);
  }

  Module['wasmtrace'] = {
    // The C library's version (WT_VERSION_STRING, the same as package.json's),
    // or 'unknown' before the runtime is initialized or when the library
    // lacks wt_js_version (older than this shim).
    get version() {
      if (dead()) return lastWords.version;
      var fn = Module['_wt_js_version'];
      return fn && runtimeInitialized ? UTF8ToString(fn()) : 'unknown';
    },
    // null while the runtime lives, else what ended it ("the wasm runtime
    // aborted: <reason>", "... exited with status <n>").
    get aborted() {
      return dead();
    },
    // The sessions started from the config blob before main() (including
    // failed ones, with their error).
    getStartupSessions: function () {
      ready();
      var ids = [];
      if (dead()) {
        ids = lastWords.startupIds || [];
      } else {
        var n = c('wt_js_startup_count')();
        for (var i = 0; i < n; i++) ids.push(c('wt_js_startup_id')(i));
      }
      return ids.map(session);
    },
    // The session with this id (Session.id; a tool's `started.session.id`),
    // or null when the page has none.
    getSession: function (id) {
      ready();
      if (typeof id !== 'number' || id !== Math.floor(id) || id < 0 || id > 0x7fffffff) return null;
      if (sessions[id]) return sessions[id];
      if (dead()) return null;
      return UTF8ToString(c('wt_js_session_name')(id)) === '' ? null : session(id);
    },
    // Starts a session now; `config` is one session object of the blob (an
    // object or a JSON string). Always returns a Session: check its state.
    startSession: function (config) {
      ready();
      var why = dead();
      if (why) return failedSession('startSession(config): ' + why + '; sessions cannot start');
      var r = configText(config);
      if (r.error) return failedSession(r.error);
      var ptr = c('wt_js_alloc')(r.bytes + 1);
      if (!ptr) {
        return failedSession('startSession(config): out of memory for the config text (' +
          (r.bytes + 1) + ' bytes)');
      }
      stringToUTF8(r.text, ptr, r.bytes + 1);
      try {
        return session(c('wt_js_session_start')(ptr));
      } finally {
        c('wt_js_free')(ptr);
      }
    },
    // A top-level problem with the config blob (malformed JSON, ...) or null.
    get configError() {
      ready();
      if (dead()) return lastWords.configError;
      var e = UTF8ToString(c('wt_js_config_error')());
      return e === '' ? null : e;
    },
    // Memory: the module's wasm memory size and bytes malloc'd, and what
    // wasmtrace allocates per registered thread and per session record.
    memory: function () {
      ready();
      var why = dead();
      if (why) throw new Error('wasmtrace: memory() is unavailable: ' + why);
      var ptr = c('wt_js_alloc')(32);
      if (!ptr) throw new Error('wasmtrace: out of memory for memory() (32 bytes)');
      try {
        c('wt_js_memory')(ptr);
        var at = ptr >> 3;
        return { heapBytes: HEAPF64[at], mallocBytes: HEAPF64[at + 1],
          threadRecordBytes: HEAPF64[at + 2], sessionRecordBytes: HEAPF64[at + 3] };
      } finally {
        c('wt_js_free')(ptr);
      }
    },
    pump: function () {
      pump();
    },
    // The diagnostic server connection (docs/PROTOCOL.md): null without a
    // valid `server` config, else {url, state: 'connecting' | 'connected' |
    // 'disconnected', suspended, error}.
    get server() {
      return server ? { url: server.config.url, state: server.state, suspended: server.suspended,
        error: server.error } : serverError ? { url: null, state: 'off', suspended: false, error: serverError } : null;
    },
  };

  // ---- The diagnostic server (docs/PROTOCOL.md) -------------------------
  // A plain JS Worker owns the WebSocket and reads each streamed session's
  // ring (native/src/stream.h) straight from the shared wasm memory, so the
  // trace keeps flowing while this thread is busy. A stop of a streamed
  // session goes from the Worker to the wasmtrace worker through a flag in
  // the ring (native/src/server.c); start and resume are carried out here,
  // on the main thread, through the same calls as the JS API: they wait for
  // this thread to reach its event loop (documented limit).
  var server = null;
  var serverError = null;

  // The `server` object of the startup config, checked with the rules of
  // native/src/config.c (parse_server): {config}, {error} or null. Only
  // the page's own config may name a server (Module.wasmtraceConfig or
  // globalThis.wasmtraceConfig), never the ?wasmtrace= URL parameter.
  function serverConfig() {
    var blob;
    try {
      blob = Module['wasmtraceConfig'];
      if (blob === undefined || blob === null) blob = typeof globalThis !== 'undefined' ? globalThis['wasmtraceConfig'] : undefined;
      if (typeof blob === 'string') blob = JSON.parse(blob);
    } catch (e) {
      return null; // the C parser reports an unreadable config
    }
    if (!blob || typeof blob !== 'object' || !Object.prototype.hasOwnProperty.call(blob, 'server')) return null;
    var v = blob.server;
    // Types named as the C parser names them (config.c type_name).
    function jsonType(x) {
      if (x === null) return 'null';
      if (Array.isArray(x)) return 'an array';
      var t = typeof x;
      return t === 'object' ? 'an object' : t === 'string' ? 'a string' : t === 'number' ? 'a number' :
        t === 'boolean' ? 'a boolean' : 'an invalid value';
    }
    var bad = function (path, why) { return { error: path + ': ' + why }; };
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
      return bad('server.url', 'is not a URL: ' + messageOf(err));
    }
    if (url.pathname === '/' || url.pathname === '') url.pathname = '/page';
    if (out.token) url.searchParams.set('token', out.token);
    out.connectUrl = url.href;
    out.blob = blob;
    return { config: out };
  }

  // The Worker's code (runs from a Blob URL; nothing of this scope).
  function wasmtraceStreamer() {
    var HEADER = 16, PAYLOAD_MAX = 1024 * 1024, SEND_BUFFER_MAX = 8 * 1024 * 1024;
    var CLOSED = 1, BROKEN = 2, DETACHED = 4, DONE = 8, STOP = 16;
    var cfg = null, memory = null, info = null, ws = null, open = false, timer = 0;
    var streams = {}; // page session id -> {ptr, seq}
    function post(m) { postMessage(m); }
    function sendJson(m) { if (open) ws.send(JSON.stringify(m)); }
    function words() { return new Int32Array(memory.buffer); }
    function detachAll() {
      if (!memory) return;
      var w = words();
      for (var sid in streams) Atomics.or(w, (streams[sid].ptr >> 2) + 4, DETACHED | DONE);
      streams = {};
    }
    function frame(sid, seq, flags, bytes) {
      var buf = new Uint8Array(HEADER + bytes.length);
      var dv = new DataView(buf.buffer);
      buf[0] = 1; buf[1] = flags; dv.setUint16(2, HEADER, true);
      dv.setUint32(4, sid, true); dv.setUint32(8, seq, true); dv.setUint32(12, bytes.length, true);
      buf.set(bytes, HEADER);
      ws.send(buf.buffer);
    }
    // Sends what each ring holds: flags are read before `write`, so a
    // CLOSED seen means every byte before it is visible.
    function drain() {
      if (!open || !memory) return;
      var w = words(), heap = null;
      for (var sid in streams) {
        if (ws.bufferedAmount > SEND_BUFFER_MAX) return; // the ring waits (bounded: it breaks when full)
        var st = streams[sid], b = st.ptr >> 2;
        var flags = Atomics.load(w, b + 4);
        var wr = Atomics.load(w, b) >>> 0, rd = Atomics.load(w, b + 1) >>> 0;
        var cap = w[b + 2] >>> 0, data = w[b + 3] >>> 0;
        var n = (wr - rd) >>> 0;
        while (n > 0) {
          var take = Math.min(n, PAYLOAD_MAX);
          heap = heap || new Uint8Array(memory.buffer);
          var at = rd & (cap - 1), first = Math.min(cap - at, take);
          var bytes = new Uint8Array(take);
          bytes.set(heap.subarray(data + at, data + at + first), 0);
          if (take > first) bytes.set(heap.subarray(data, data + take - first), first);
          frame(+sid, st.seq++, 0, bytes);
          rd = (rd + take) >>> 0;
          n -= take;
          Atomics.store(w, b + 1, rd | 0);
        }
        if (flags & (CLOSED | BROKEN)) {
          frame(+sid, st.seq++, flags & BROKEN ? 2 : 1, new Uint8Array(0));
          Atomics.or(w, b + 4, DONE);
          delete streams[sid];
          post({ cmd: 'streamEnded', sid: +sid, broken: !!(flags & BROKEN), lost: Atomics.load(w, b + 5) >>> 0 });
        }
      }
    }
    function connect() {
      timer = 0;
      try {
        ws = new WebSocket(cfg.connectUrl);
      } catch (e) {
        post({ cmd: 'state', state: 'disconnected', error: String(e && e.message) });
        return retry();
      }
      ws.binaryType = 'arraybuffer';
      ws.onopen = function () {
        open = true;
        ws.send(JSON.stringify({ type: 'hello', protocol: 1, role: 'page', page: info }));
        post({ cmd: 'state', state: 'connected' });
      };
      ws.onmessage = function (e) {
        if (typeof e.data !== 'string' || e.data.length > 65536) return;
        var m;
        try { m = JSON.parse(e.data); } catch (err) { return; }
        if (!m || typeof m !== 'object') return;
        // A stop of a session this Worker streams goes straight to the
        // wasmtrace worker through the ring (server.c): no main thread.
        if (m.type === 'stop' && typeof m.session === 'number' && streams[m.session] && memory) {
          Atomics.or(words(), (streams[m.session].ptr >> 2) + 4, STOP);
          sendJson({ type: 'stopping', req: m.req, session: m.session });
        } else if (m.type === 'start' || m.type === 'stop' || m.type === 'resume') {
          post({ cmd: 'command', msg: m });
        }
      };
      ws.onclose = function (e) {
        var was = open;
        open = false;
        detachAll();
        post({ cmd: 'state', state: 'disconnected', error: was ? 'the server closed the connection (code ' + e.code + ')' : 'cannot connect to ' + cfg.url });
        retry();
      };
      ws.onerror = function () {};
    }
    function retry() {
      if (cfg.reconnectMs > 0 && !timer) timer = setTimeout(connect, cfg.reconnectMs);
    }
    onmessage = function (e) {
      var m = e.data;
      if (m.cmd === 'init') {
        cfg = m.config; memory = m.memory; info = m.info;
        setInterval(drain, 10);
        connect();
      } else if (m.cmd === 'info') {
        info = m.info;
        sendJson({ type: 'status', threads: info.threads, suspended: info.suspended, sessions: info.sessions });
      } else if (m.cmd === 'reply') {
        sendJson(m.msg);
      } else if (m.cmd === 'stream') {
        if (open) streams[m.sid] = { ptr: m.ptr, seq: 0 };
        else Atomics.or(words(), (m.ptr >> 2) + 4, DETACHED | DONE);
      } else if (m.cmd === 'ended') {
        // A session that failed before its output was set up never closes
        // its ring: end the stream here (the ring stays until page unload).
        var st = streams[m.sid];
        if (!st && m.never && open) frame(m.sid, 0, 2, new Uint8Array(0)); // it never started
        if (st && m.state === 'failed' && !(Atomics.load(words(), (st.ptr >> 2) + 4) & CLOSED)) {
          drain();
          if (streams[m.sid] && open) frame(m.sid, st.seq++, 2, new Uint8Array(0));
          delete streams[m.sid];
        }
      }
    };
  }

  var remoteCount = 0;

  // A tool's session config: its own output under /traces/, streamed.
  function remoteConfig(config) {
    var c = {};
    if (config && typeof config === 'object' && !Array.isArray(config)) {
      for (var k in config) c[k] = config[k];
    }
    var name = typeof c.name === 'string' && /^[A-Za-z0-9._-]{1,40}$/.test(c.name) ? c.name : 'remote';
    c.name = name;
    var ext = (c.format === 'folded' ? '.txt' : '.json') + (c.compression === 'none' ? '' : '.gz');
    c.output = '/traces/server-' + (++remoteCount) + '-' + name + ext;
    c.stream = true;
    delete c.overwrite;
    return c;
  }

  function sessionInfo(s) {
    var out = { id: s.id, name: s.name, state: s.state, error: s.error || null, output: s.output, stream: !!s._streamed };
    if (s.state === 'stopped' || s.state === 'running' || s.state === 'stopping') {
      try { out.stats = s.stats(); } catch (e) { /* gone */ }
    }
    return out;
  }

  function pageInfo() {
    var list = [];
    var threads = 0;
    if (runtimeInitialized && !dead()) {
      try {
        var n = c('wt_js_startup_count')();
        for (var i = 0; i < n; i++) session(c('wt_js_startup_id')(i));
        threads = c('wt_js_thread_count')();
      } catch (e) { /* reported elsewhere */ }
      for (var id in sessions) if (sessions[id].id >= 0) list.push(sessionInfo(sessions[id]));
    }
    var version = 'unknown';
    try { version = Module['wasmtrace'].version; } catch (e) { /* unknown */ }
    return {
      url: typeof location !== 'undefined' ? String(location.href).slice(0, 4096) : '',
      title: typeof document !== 'undefined' ? String(document.title).slice(0, 512) : '',
      threads: threads, version: version.slice(0, 64), suspended: !!(server && server.suspended), sessions: list.slice(0, 256),
    };
  }

  function toWorker(m) {
    if (server) server.worker.postMessage(m);
  }

  function stream(s) {
    s._streamed = true;
    var ptr = 0;
    try { ptr = s.id >= 0 ? c('wt_js_session_stream')(s.id) : 0; } catch (e) { ptr = 0; }
    if (ptr) server.streamed[s.id] = { s: s, last: s.state };
    return ptr;
  }

  function startRemote(m) {
    var config = remoteConfig(m.config);
    if (!runtimeInitialized) {
      // Suspended, or not started yet: the constructors have not read the
      // config, so the session joins the startup sessions and starts before
      // main(). Its id is its place in the config (startup ids are given in
      // order from 0).
      var blob = server.config.blob;
      var count = Array.isArray(blob.sessions) ? blob.sessions.length : 0;
      var id = count + server.queued.length;
      server.queued.push({ id: id, config: config });
      var merged = {};
      for (var k in blob) merged[k] = blob[k];
      merged.sessions = (Array.isArray(blob.sessions) ? blob.sessions : []).concat(server.queued.map(function (q) { return q.config; }));
      Module['wasmtraceConfig'] = merged;
      toWorker({ cmd: 'reply', msg: { type: 'started', req: m.req, session: { id: id, name: config.name, state: 'starting',
        error: null, output: config.output, stream: true } } });
      return;
    }
    var s = Module['wasmtrace'].startSession(config);
    var ptr = s.state === 'failed' ? 0 : stream(s);
    var info = sessionInfo(s);
    if (!ptr && s.state !== 'failed') {
      info.stream = false;
      info.error = 'no memory for the stream buffer: the session records to the page VFS only (' + s.output + ')';
    }
    toWorker({ cmd: 'reply', msg: { type: 'started', req: m.req, session: info } });
    if (ptr) toWorker({ cmd: 'stream', sid: s.id, ptr: ptr }); // (after the reply: the router learns the id first)
  }

  function resume(why) {
    if (!server.suspended) return 0;
    server.suspended = false;
    clearTimeout(server.suspendTimer);
    var waited = Date.now() - server.suspendedAt;
    if (why) console.warn('wasmtrace: ' + why);
    removeRunDependency('wasmtrace-server-suspend');
    return waited;
  }

  function onCommand(m) {
    var req = typeof m.req === 'number' ? m.req : -1;
    try {
      if (dead()) throw new Error(dead());
      if (m.type === 'start') {
        startRemote(m);
      } else if (m.type === 'resume') {
        var waited = resume(null);
        toWorker({ cmd: 'reply', msg: { type: 'resumed', req: req, waited: waited } });
      } else if (m.type === 'stop') {
        var s = typeof m.session === 'number' && sessions[m.session];
        if (!s) throw new Error('no session ' + m.session + ' in this page');
        s.stop().catch(function () { /* its state says why */ });
        toWorker({ cmd: 'reply', msg: { type: 'stopping', req: req, session: s.id } });
      }
    } catch (e) {
      toWorker({ cmd: 'reply', msg: { type: 'error', req: req, code: 'page-error', message: messageOf(e) } });
    }
  }

  // State changes of streamed sessions (polled with the pump): each one
  // reaches the tool as a `session` frame.
  function watchStreamed() {
    if (!server || !runtimeInitialized) return;
    for (var id in server.streamed) {
      var e = server.streamed[id], state = e.s.state;
      if (state === e.last) continue;
      e.last = state;
      toWorker({ cmd: 'reply', msg: { type: 'session', session: sessionInfo(e.s) } });
      if (state === 'stopped' || state === 'failed') {
        toWorker({ cmd: 'ended', sid: e.s.id, state: state });
        delete server.streamed[id];
      }
    }
  }

  function startServer() {
    if (typeof ENVIRONMENT_IS_NODE !== 'undefined' && ENVIRONMENT_IS_NODE) return; // browsers only
    var r = serverConfig();
    if (!r) return;
    if (r.error) {
      serverError = r.error; // the C parser prints the same message once, before main()
      return;
    }
    if (typeof Worker === 'undefined' || typeof Blob === 'undefined' || typeof wasmMemory === 'undefined') {
      serverError = 'server: this page cannot run a Worker on the shared memory; not connecting';
      console.error('wasmtrace: ' + serverError);
      return;
    }
    var worker;
    try {
      var url = URL.createObjectURL(new Blob(['(' + wasmtraceStreamer.toString() + ')()'], { type: 'text/javascript' }));
      worker = new Worker(url, { name: 'wasmtrace-server' });
    } catch (e) {
      serverError = 'server: cannot start its Worker: ' + messageOf(e);
      console.error('wasmtrace: ' + serverError);
      return;
    }
    server = { config: r.config, worker: worker, state: 'connecting', error: null, suspended: false, queued: [], streamed: {} };
    worker.onmessage = function (e) {
      var m = e.data;
      if (m.cmd === 'command') onCommand(m.msg);
      else if (m.cmd === 'state') {
        server.state = m.state;
        server.error = m.error || null;
      }
    };
    if (r.config.suspend) {
      // Holds the constructors (the startup sessions' start) and main();
      // this thread stays free: it is a run dependency, not a wait.
      server.suspended = true;
      server.suspendedAt = Date.now();
      addRunDependency('wasmtrace-server-suspend');
      server.suspendTimer = setTimeout(function () {
        resume('no tool resumed the page within ' + r.config.suspendTimeoutMs + ' ms (server.suspendTimeoutMs): ' +
          'starting without one (' + (server.state === 'connected' ? 'connected to ' : 'no connection to ') + r.config.url + ')');
      }, r.config.suspendTimeoutMs);
    }
    worker.postMessage({ cmd: 'init', config: { url: r.config.url, connectUrl: r.config.connectUrl, reconnectMs: r.config.reconnectMs },
      memory: wasmMemory, info: pageInfo() });
  }

  // Before main(): the sessions a tool queued while the page was held
  // start with the startup ones; tell the Worker where their rings are.
  var appOnInit2 = Module['onRuntimeInitialized'];
  Module['onRuntimeInitialized'] = function () {
    if (server) {
      try {
        for (var i = 0; i < server.queued.length; i++) {
          var q = server.queued[i];
          var s = session(q.id);
          if (s.name !== q.config.name) continue; // the config was rejected: nothing started
          var ptr = stream(s);
          if (ptr) toWorker({ cmd: 'stream', sid: q.id, ptr: ptr });
          else toWorker({ cmd: 'ended', sid: q.id, state: 'failed', never: true });
        }
        server.queued = [];
        toWorker({ cmd: 'info', info: pageInfo() });
      } catch (e) {
        // Never in the way of the app's start.
      }
    }
    if (typeof appOnInit2 === 'function') return appOnInit2.apply(this, arguments);
  };
  // The page's hello, kept current for the router's list: threads and
  // session states, checked every second.
  var lastInfo = '', infoTicks = 0;
  var watcher = setInterval(function () {
    try {
      watchStreamed();
      if (server && runtimeInitialized && ++infoTicks * PUMP_INTERVAL_MS >= 1000) {
        infoTicks = 0;
        var info = pageInfo();
        var key = info.threads + ' ' + info.suspended + ' ' + info.sessions.map(function (x) { return x.id + x.state; }).join();
        if (key !== lastInfo) {
          lastInfo = key;
          toWorker({ cmd: 'info', info: info });
        }
      }
    } catch (e) { /* next time */ }
  }, PUMP_INTERVAL_MS);
  if (watcher && typeof watcher.unref === 'function') watcher.unref();
  startServer();
})();
