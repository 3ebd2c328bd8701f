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
// A function declaration called only off pthread workers: they evaluate
// this script too, and V8 compiles a declaration only when it is called
// (a parenthesised function expression at once: see js/wasmtrace_pre.js).
if (typeof ENVIRONMENT_IS_PTHREAD === 'undefined' || !ENVIRONMENT_IS_PTHREAD) wasmtraceShimInstall();
function wasmtraceShimInstall() {
  // The page's lifecycle (js/wasmtrace_pre.js): chain whatever hook the
  // app replaced since (and Node's, which the pre-js leaves to this file),
  // then say that the app script's evaluation ends here (this file is the
  // last part of it). The shim's own moments are a plug-in, below.
  var page = typeof wasmtracePage !== 'undefined' ? wasmtracePage : null;
  var timeline = typeof wasmtraceStartup !== 'undefined' && wasmtraceStartup ? wasmtraceStartup : null;
  if (page) {
    page.chain(true);
    page.fire('scriptEvaluated');
  }

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
  // The stats buffer: static memory of the C side (wt_js_stats_buffer), so
  // that reading stats never needs malloc (the heap may be full, or an
  // abort may have left malloc locked).
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
  // throwing getter), on one short line: one for all the page-side files
  // (js/wasmtrace_pre.js).
  var messageOf = wasmtraceMessageOf;

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
      // The app replaced Module.onAbort after the lifecycle chained it.
      noteEnd('the wasm runtime aborted: reason unknown' +
        (typeof EXITSTATUS === 'number' ? ' (exit status ' + EXITSTATUS + ')' : ''));
    } else if (typeof runtimeExited !== 'undefined' && runtimeExited) {
      noteEnd('the wasm runtime exited');
    }
    return aborted;
  }

  // Just before main(): one console line (debug level, hidden in DevTools
  // by default) saying which startup sessions run. A console line reaches
  // DevTools and `wasmtrace record` even while main() keeps this thread
  // busy, when nothing in the page can answer a question.
  //   wasmtrace: before main(): 'startup' running, 'other' failed
  //   wasmtrace: before main(): no startup sessions
  //   wasmtrace: before main(): the config was rejected: <why>
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
  var browser = typeof ENVIRONMENT_IS_NODE === 'undefined' || !ENVIRONMENT_IS_NODE;
  // The shim's plug-in: the runtime's end, with its reason (a pthread's
  // abort() reaches onAbort on this thread too), and the line above
  // (browsers only: Node prints console.debug on stdout, which is the
  // app's). Then, as it used to be linked, an app without the startup
  // observers' file, or without the server's page code that its config
  // names, is told so.
  if (page) {
    page.use({
      aborted: function (what) {
        var r = what === undefined || what === null ? '' : messageOf(what);
        noteEnd('the wasm runtime aborted: ' + (r || 'abort() was called'));
      },
      exited: function (status) { noteEnd('the wasm runtime exited with status ' + messageOf(status)); },
      runtimeReady: function () {
        if (browser) announceStartup();
      },
    });
  }
  if (typeof window !== 'undefined' && typeof document !== 'undefined' && typeof wasmtraceStartupTimeline === 'undefined') {
    console.warn('wasmtrace: this app was linked without js/wasmtrace_startup.js (the --pre-js after wasmtrace_pre.js, ' +
      'a newer flag): no startup timeline, long tasks or JS profiles; relink: CMake targets and the port add it, ' +
      'plain emcc: `wasmtrace flags --ldflags` (docs/GUIDE.md, "Plain emcc")');
  }

  function ready() {
    if (!runtimeInitialized && !dead()) {
      throw new Error('wasmtrace: the module is not initialized yet; call Module.wasmtrace from ' +
        'Module.onRuntimeInitialized, Module.postRun or later');
    }
  }

  function pump() {
    if (runtimeInitialized && !dead()) {
      c('wt_js_io_pump')();
      noteWraps();
    }
  }

  // An app linked without the pthread wrappers (native/src/threads.h) shows
  // only the threads that call wasmtrace, and no waiting: said once, as
  // soon as it is known (wasmtrace's worker is up).
  var WRAP_LINE = 'pthreads are registered on first use: link with -Wl,--wrap=pthread_create ' +
    '-Wl,--wrap=emscripten_futex_wait to see every pthread and its waiting';
  var wrapsKnown = false;
  function noteWraps() {
    if (wrapsKnown) return;
    var fn = Module['_wt_js_threads_wrapped'];
    var w = fn ? fn() : 1;
    if (w < 0) return;
    wrapsKnown = true;
    if (w === 0) console.warn('wasmtrace: ' + WRAP_LINE);
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

  // The session's counters; zeros for what cannot be read (never throws:
  // an unknown id reads as zeros on the C side, and the buffer is static).
  function readStats(id) {
    var out = zeroStats();
    try {
      if (!statsPtr) {
        var fn = Module['_wt_js_stats_buffer'];
        if (!fn || c('wt_js_stats_capacity')() < STAT_KEYS.length) return out;
        statsPtr = fn();
      }
      c('wt_js_session_stats')(id, statsPtr);
      for (var i = 0; i < STAT_KEYS.length; i++) out[STAT_KEYS[i]] = HEAPF64[(statsPtr >> 3) + i];
      // Why it stopped early, if it did (static memory too).
      var early = Module['_wt_js_session_stopped_early'] ? c('wt_js_session_stopped_early')(id) : 0;
      if (early) out.stoppedEarly = UTF8ToString(early);
    } catch (e) {
      // A module without the export, or a trap: the zeros stand.
    }
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
      // Lock-free loads into static memory: the counters as they were.
      stats = readStats(this.id);
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

  // Never throws (a session that never had a C record, a runtime that
  // died, a full heap): the counters that can be read, zeros for the rest.
  Session.prototype.stats = function () {
    var f = own(this, 'stats()')._current();
    if (f) return f.stats ? Object.assign({}, f.stats) : zeroStats();
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
      throw new Error('wasmtrace: download(filename): filename must be a string, got ' + wasmtraceDescribe(filename));
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
    if (!sessions[id]) {
      sessions[id] = new Session(id);
      if (aborted) sessions[id]._freeze();
    }
    return sessions[id];
  }

  // The JSON text of a startSession() argument (any JS value), or {error}.
  function configText(config) {
    var checked = wasmtraceConfigText(config); // js/wasmtrace_pre.js
    if (checked.error) checked.error = 'startSession(config): ' + checked.error;
    return checked;
  }

  // A C string copy of `text` (well-formed) for one call, or 0: in the C
  // side's static text buffer when it fits (no heap: a start must say why
  // it fails when the heap is full), else malloc'd; give it to freeText.
  function cString(text) {
    var size = lengthBytesUTF8(text) + 1;
    var ptr = 0;
    if (Module['_wt_js_text_buffer'] && size <= c('wt_js_text_capacity')()) ptr = c('wt_js_text_buffer')();
    else ptr = c('wt_js_alloc')(size);
    if (ptr) stringToUTF8(text, ptr, size);
    return ptr;
  }

  function freeText(ptr) {
    if (ptr && !(Module['_wt_js_text_buffer'] && ptr === c('wt_js_text_buffer')())) c('wt_js_free')(ptr);
  }

  // Why C gave no id (no memory even for the session's record), or ''.
  function noRecordError() {
    var fn = Module['_wt_js_no_record_error'];
    return fn ? UTF8ToString(fn()) : '';
  }

  // The name a config text gives its session, or '' (read in JS: the C
  // record that would hold it could not be had).
  function nameIn(text) {
    try {
      var o = JSON.parse(text);
      return o && typeof o.name === 'string' ? o.name : '';
    } catch (e) {
      return '';
    }
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
        freeText(ptr);
      }
    }
    if (id < 0) {
      // (With the text given to C, C printed it.)
      if (!ptr) console.error('wasmtrace: ' + error);
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
    // Marks a moment of the app's startup (e.g. mark('ready')) in the
    // startup timeline, on the samples' clock: an instant of the "Startup"
    // track (chrome), a marker (firefox), the stats record's "startup"
    // list (all formats). Callable before the runtime is up (kept until
    // then). Returns true, or false where no timeline is recorded (not a
    // page's main thread).
    mark: function (name) {
      if (typeof name !== 'string' || name.length === 0 || name.length > 95) {
        throw new TypeError('wasmtrace.mark(name): name must be a string of 1 to 95 characters, not ' +
          (typeof name === 'string' ? 'one of ' + name.length : typeof name));
      }
      if (!timeline) return false;
      timeline.mark(name);
      return true;
    },
    // The page main thread's JavaScript and wasm as the browser sampled
    // them (the JS Self-Profiling API, from before the module was fetched
    // until the first call): a Promise of plain data, { reason: '' ,
    // intervalMs, startMs, stopMs, full, samples: [[ms, stackId?]],
    // stacks: [[frameId, parentId?]], frames: [{ name, resource, line,
    // column }], resources: [url] }, or { reason } saying why there is
    // none. Every later call gives the same. lib/jsprofile.mjs adds it to
    // a trace as the thread "main (JS)" (wasmtrace record does).
    jsProfile: function () {
      if (!timeline) return Promise.resolve({ reason: "not the page's main thread: only it is profiled" });
      return timeline.jsProfile();
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
      var ptr = cString(r.text);
      if (!ptr) {
        return failedSession('startSession(config): out of memory for the config text (' +
          (r.bytes + 1) + ' bytes)');
      }
      var id;
      try {
        id = c('wt_js_session_start')(ptr);
      } finally {
        freeText(ptr);
      }
      if (id >= 0) return session(id);
      // No record even for a failed session: C printed why (what it needs).
      var s = new Session(-1, noRecordError() || 'out of memory for the session\'s record');
      s._meta.name = nameIn(r.text);
      return s;
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
  };

  // The diagnostic server (docs/PROTOCOL.md) is js/wasmtrace_server.js, an
  // opt-in --post-js: it adds Module.wasmtrace.server, now if it was linked
  // before this file. An app linked without it whose config names a server
  // is told once, before main().
  if (typeof wasmtraceServerPending !== 'undefined' && wasmtraceServerPending) {
    wasmtraceServerPending = false;
    try {
      wasmtraceServerInstall();
    } catch (e) {
      console.error('wasmtrace: the diagnostic server could not start: ' + messageOf(e));
    }
  }
  if (page) {
    page.use({
      runtimeReady: function () {
        if (!('server' in Module['wasmtrace']) && typeof wasmtraceServerConfig === 'function' && browser &&
            wasmtraceServerConfig()) {
          console.error('wasmtrace: the config names a server, but the app was linked without the diagnostic ' +
            "server's page code, which is opt-in: CMake: wasmtrace_server(app); plain emcc: " +
            '--post-js <wasmtrace>/share/wasmtrace/js/wasmtrace_server.js (or `wasmtrace flags --ldflags --with-server`); ' +
            'port: server=1 (docs/GUIDE.md, "Live"); not connecting');
        }
      },
    });
  }
}
