// wasmtrace: the diagnostic server, page side (docs/PROTOCOL.md; linked
// with --post-js after js/wasmtrace_post.js, whose Module.wasmtrace it
// uses). A plain JS Worker (js/wasmtrace_server_worker.js, whose text the
// build puts in wasmtraceServerWorkerSource ahead of this file) owns the
// WebSocket and reads each streamed session's ring (native/src/stream.h)
// straight from the shared wasm memory, so the trace keeps flowing while
// this thread is busy. A stop of a streamed session goes from the Worker to
// the wasmtrace worker through a flag in the ring (native/src/server.c);
// start and resume are carried out here, on the main thread, through the
// same calls as the JS API: they wait for this thread to reach its event
// loop (documented limit).
//
// A tool's start that arrives before the runtime is up (the page suspended,
// or still loading) goes into wasmtraceStartQueue (js/wasmtrace_library.js):
// the startup constructor (native/src/startup.c) starts it with the
// config's sessions, before the app's constructors and main(), and gives
// it its real id; the tool's answer leaves at the page lifecycle's
// runtimeReady (js/wasmtrace_pre.js), once that id is known. Nothing here touches the page's config.
//
// Emscripten internals used (js/wasmtrace_library.js lists them):
// wasmMemory, addRunDependency/removeRunDependency, runtimeInitialized;
// Module.onRuntimeInitialized and Module.onAbort through the page's
// lifecycle (js/wasmtrace_pre.js).
//
// Opt-in (CMake: wasmtrace_server(app); plain emcc: this --post-js; the
// port's server=1): an app without it does not download it. Its place among
// the --post-js files does not matter (CMake puts a dependency's link
// options after the target's own): linked before js/wasmtrace_post.js it
// marks itself pending, and that file installs it once Module.wasmtrace
// exists; linked after, it installs itself.
var wasmtraceServerPending = false;
function wasmtraceServerInstall() {
  if (typeof ENVIRONMENT_IS_PTHREAD !== 'undefined' && ENVIRONMENT_IS_PTHREAD) return;
  var api = Module['wasmtrace'];
  if (!api || Object.prototype.hasOwnProperty.call(api, 'server')) return; // (installed once)
  var WATCH_EVERY_MS = 25;
  var INFO_EVERY_MS = 1000;
  var QUEUE_MAX = 64;
  var server = null;
  var serverError = null;
  var streamed = {}; // id -> {s, last}: sessions a tool streams
  var streamedIds = {}; // ids ever streamed (the `stream` field of a session record)
  var queue = typeof wasmtraceStartQueue !== 'undefined' ? wasmtraceStartQueue : { entries: [], closed: true };
  var messageOf = wasmtraceMessageOf; // js/wasmtrace_pre.js

  function dead() {
    try {
      return api.aborted;
    } catch (e) {
      return 'the wasm runtime is gone';
    }
  }

  function live() {
    return runtimeInitialized && !dead();
  }

  // Every session the page has (ids are never reused: 0 .. the first gap).
  function allSessions() {
    var list = [];
    for (var id = 0; id < 256; id++) {
      var s = api.getSession(id);
      if (!s) break;
      list.push(s);
    }
    return list;
  }

  Object.defineProperty(api, 'server', {
    enumerable: true,
    // The diagnostic server connection: null without a `server` config,
    // else {url, state: 'connecting' | 'connected' | 'disconnected' | 'off',
    // suspended, error}.
    get: function () {
      return server ? { url: server.config.url, state: server.state, suspended: server.suspended, error: server.error }
        : serverError ? { url: null, state: 'off', suspended: false, error: serverError } : null;
    },
  });

  var remoteCount = 0;

  // A tool's session config: its own output under /traces/, streamed.
  function remoteConfig(config) {
    var c = {};
    if (config && typeof config === 'object' && !Array.isArray(config)) {
      for (var k in config) c[k] = config[k];
    }
    var name = typeof c.name === 'string' && /^[A-Za-z0-9._-]{1,40}$/.test(c.name) ? c.name : 'remote';
    c.name = name;
    var ext = (c.format === 'folded' ? '.folded' : '.json') + (c.compression === 'none' ? '' : '.gz'); // as the C default (config.c)
    c.output = '/traces/server-' + (++remoteCount) + '-' + name + ext;
    c.stream = true;
    delete c.overwrite;
    return c;
  }

  function sessionInfo(s) {
    var out = { id: s.id, name: s.name, state: s.state, error: s.error || null, output: s.output, stream: !!streamedIds[s.id] };
    if (s.state === 'stopped' || s.state === 'running' || s.state === 'stopping') {
      try { out.stats = s.stats(); } catch (e) { /* gone */ }
    }
    return out;
  }

  function pageInfo() {
    var list = [];
    var threads = 0;
    if (live()) {
      try {
        list = allSessions().map(sessionInfo);
        threads = Module['_wt_js_thread_count']();
      } catch (e) { /* reported elsewhere */ }
    }
    var version = 'unknown';
    try { version = api.version; } catch (e) { /* unknown */ }
    return {
      url: typeof location !== 'undefined' ? String(location.href).slice(0, 4096) : '',
      title: typeof document !== 'undefined' ? String(document.title).slice(0, 512) : '',
      threads: threads, version: version.slice(0, 64), suspended: !!(server && server.suspended), sessions: list.slice(0, 256),
    };
  }

  function toWorker(m) {
    if (server) server.worker.postMessage(m);
  }

  function reply(msg) {
    toWorker({ cmd: 'reply', msg: msg });
  }

  // Streams session `s` (started with stream: true): its ring's address, or
  // 0 (no memory for it: the session records to the VFS only).
  function stream(s) {
    var ptr = 0;
    try { ptr = s.id >= 0 ? Module['_wt_js_session_stream'](s.id) : 0; } catch (e) { ptr = 0; }
    if (ptr) {
      streamedIds[s.id] = true;
      streamed[s.id] = { s: s, last: s.state };
    }
    return ptr;
  }

  // The `started` answer for a session a tool asked for, then its ring.
  function answerStarted(req, s) {
    var ptr = s.state === 'failed' ? 0 : stream(s);
    var info = sessionInfo(s);
    if (!ptr && s.state !== 'failed') {
      info.stream = false;
      info.error = 'no memory for the stream buffer: the session records to the page VFS only (' + s.output + ')';
    }
    reply({ type: 'started', req: req, session: info });
    if (ptr) toWorker({ cmd: 'stream', sid: s.id, ptr: ptr }); // (after the reply: the router learns the id first)
  }

  function startRemote(m) {
    var config = remoteConfig(m.config);
    if (!runtimeInitialized && !queue.closed) {
      // Before the runtime is up: the startup constructor starts it and
      // gives its id; answered from onRuntimeInitialized (below).
      // Bounded: a tool cannot grow the page's memory without end while it
      // is held (the C side refuses sessions past its own limits anyway).
      if (queue.entries.length >= QUEUE_MAX) {
        throw new Error('more than ' + QUEUE_MAX + ' sessions queued before the runtime started');
      }
      var checked = wasmtraceConfigText(config); // js/wasmtrace_pre.js
      if (checked.error) throw new Error(checked.error);
      queue.entries.push({ text: checked.text, id: null, req: m.req });
      return;
    }
    answerStarted(m.req, api.startSession(config));
  }

  // The tools' answers for the sessions the startup constructor started.
  function answerQueued() {
    var entries = queue.entries.splice(0);
    for (var i = 0; i < entries.length; i++) {
      var e = entries[i];
      var s = null;
      try {
        if (typeof e.id === 'number' && e.id >= 0 && live()) s = api.getSession(e.id);
      } catch (err) {
        s = null;
      }
      if (s) {
        answerStarted(e.req, s);
      } else {
        var why = dead() || (e.id === null ? 'the runtime started without reading the queue of tool sessions'
          : 'no memory for the session record');
        reply({ type: 'error', req: e.req, code: 'page-error', message: 'the session could not start: ' + why });
      }
    }
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
        reply({ type: 'resumed', req: req, waited: waited });
      } else if (m.type === 'stop') {
        var s = typeof m.session === 'number' && live() ? api.getSession(m.session) : null;
        if (!s) throw new Error('no session ' + m.session + ' in this page');
        s.stop().catch(function () { /* its state says why */ });
        reply({ type: 'stopping', req: req, session: s.id });
      }
    } catch (e) {
      reply({ type: 'error', req: req, code: 'page-error', message: messageOf(e) });
    }
  }

  // State changes of streamed sessions (polled): each one reaches the tool
  // as a `session` frame.
  function watchStreamed() {
    if (!server || !live()) return;
    for (var id in streamed) {
      var e = streamed[id], state = e.s.state;
      if (state === e.last) continue;
      e.last = state;
      reply({ type: 'session', session: sessionInfo(e.s) });
      if (state === 'stopped' || state === 'failed') {
        toWorker({ cmd: 'ended', sid: e.s.id, state: state });
        delete streamed[id];
      }
    }
  }

  function startServer() {
    if (typeof ENVIRONMENT_IS_NODE !== 'undefined' && ENVIRONMENT_IS_NODE) return; // browsers only
    var r = wasmtraceServerConfig();
    if (!r) return;
    if (r.error) {
      serverError = r.error;
      console.error('wasmtrace: config error: ' + r.error + ' (from ' + r.source + '); the page does not connect to a server');
      return;
    }
    if (r.refused) {
      console.error('wasmtrace: config error: ' + r.refused);
      return;
    }
    if (typeof Worker === 'undefined' || typeof Blob === 'undefined' || typeof wasmMemory === 'undefined') {
      serverError = 'server: this page cannot run a Worker on the shared memory; not connecting';
      console.error('wasmtrace: ' + serverError);
      return;
    }
    if (typeof wasmtraceServerWorkerSource !== 'string') {
      serverError = "server: this build has no source for the server's Worker (link the wasmtrace_server.js " +
        'of the build or install tree, which holds it, not js/wasmtrace_server.js); not connecting';
      console.error('wasmtrace: ' + serverError);
      return;
    }
    var worker;
    try {
      var url = URL.createObjectURL(new Blob([wasmtraceServerWorkerSource], { type: 'text/javascript' }));
      worker = new Worker(url, { name: 'wasmtrace-server' });
    } catch (e) {
      serverError = 'server: cannot start its Worker: ' + messageOf(e);
      console.error('wasmtrace: ' + serverError);
      return;
    }
    var config = r.config;
    server = { config: config, worker: worker, state: 'connecting', error: null, suspended: false };
    worker.onmessage = function (e) {
      var m = e.data;
      if (m.cmd === 'command') onCommand(m.msg);
      else if (m.cmd === 'state') {
        server.state = m.state;
        server.error = m.error || null;
      }
    };
    if (config.suspend) {
      // Holds the constructors (the startup sessions' start) and main();
      // this thread stays free: it is a run dependency, not a wait.
      server.suspended = true;
      server.suspendedAt = Date.now();
      addRunDependency('wasmtrace-server-suspend');
      server.suspendTimer = setTimeout(function () {
        resume('no tool resumed the page within ' + config.suspendTimeoutMs + ' ms (server.suspendTimeoutMs): ' +
          'starting without one (' + (server.state === 'connected' ? 'connected to ' : 'no connection to ') + config.url + ')');
      }, config.suspendTimeoutMs);
    }
    worker.postMessage({ cmd: 'init', config: { url: config.url, connectUrl: config.connectUrl, reconnectMs: config.reconnectMs },
      memory: wasmMemory, info: pageInfo() });
  }

  // The server's plug-in of the page's lifecycle (js/wasmtrace_pre.js).
  // Just before main(): answer the tools whose sessions the constructors
  // started, and tell the Worker where their rings are. A runtime that dies
  // before it starts never reads the queue: its tools get an error instead
  // of waiting.
  if (typeof wasmtracePage !== 'undefined') {
    wasmtracePage.use({
      runtimeReady: function () {
        if (!server) return;
        answerQueued();
        toWorker({ cmd: 'info', info: pageInfo() });
      },
      aborted: function () {
        if (server) answerQueued();
      },
    });
  }
  startServer();
  if (!server) return;
  // The page's hello, kept current for the router's list: threads and
  // session states, checked every second.
  var lastInfo = '', infoTicks = 0;
  var watcher = setInterval(function () {
    try {
      watchStreamed();
      if (server && live() && ++infoTicks * WATCH_EVERY_MS >= INFO_EVERY_MS) {
        infoTicks = 0;
        var info = pageInfo();
        var key = info.threads + ' ' + info.suspended + ' ' + info.sessions.map(function (x) { return x.id + x.state; }).join();
        if (key !== lastInfo) {
          lastInfo = key;
          toWorker({ cmd: 'info', info: info });
        }
      }
    } catch (e) { /* next time */ }
  }, WATCH_EVERY_MS);
  if (watcher && typeof watcher.unref === 'function') watcher.unref();
}
if (Module['wasmtrace']) wasmtraceServerInstall();
else wasmtraceServerPending = true;
