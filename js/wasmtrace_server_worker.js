// wasmtrace: the diagnostic server's Worker (docs/PROTOCOL.md). A plain JS
// Worker started by js/wasmtrace_server.js: it owns the WebSocket to
// wasmtrace serve, and reads each streamed session's ring straight from the
// shared wasm memory, so the trace keeps flowing while the page's main thread
// is busy. The build embeds this file's text in the server's post-js
// (CMakeLists.txt: wasmtrace_server.js in the build and install trees), so
// the app ships no extra file; it must contain no backquote and no dollar
// sign followed by a brace (tests/node/server-files.test.mjs checks it).
//
// Messages from the page's main thread: init {config, memory, info},
// info {info}, reply {msg}, stream {sid, ptr}, ended {sid, state, never}.
// To it: command {msg} (a tool's start/stop/resume), state {state, error},
// streamEnded {sid, broken, lost}.
'use strict';

// The ring's header (native/src/stream.h), in 32-bit words from its start:
// the C header is the source; tests/node/server-files.test.mjs fails if these
// differ from it.
var RING = { WRITE: 0, READ: 1, CAPACITY: 2, DATA: 3, FLAGS: 4, LOST: 5 };
var RING_FLAGS = { CLOSED: 1, BROKEN: 2, DETACHED: 4, DONE: 8, STOP: 16 };

// The data frame (docs/PROTOCOL.md): 16-byte header, then the payload.
var HEADER = 16;
var PAYLOAD_MAX = 1024 * 1024;
var FRAME_LAST = 1;
var FRAME_BROKEN = 2;
// Stop reading the rings while this much waits in the socket (the rings
// fill, and break when full: the VFS copy is unaffected).
var SEND_BUFFER_MAX = 8 * 1024 * 1024;
var DRAIN_EVERY_MS = 10;

var cfg = null;
var memory = null;
var info = null;
var ws = null;
var open = false;
var timer = 0;
var streams = {}; // page session id -> {ptr, seq}

function post(m) {
  postMessage(m);
}

function sendJson(m) {
  if (open) ws.send(JSON.stringify(m));
}

function words() {
  return new Int32Array(memory.buffer);
}

// The word index of field "field" of the ring at byte address "ptr".
function at(ptr, field) {
  return (ptr >> 2) + field;
}

function detachAll() {
  if (!memory) return;
  var w = words();
  for (var sid in streams) Atomics.or(w, at(streams[sid].ptr, RING.FLAGS), RING_FLAGS.DETACHED | RING_FLAGS.DONE);
  streams = {};
}

function frame(sid, seq, flags, bytes) {
  var buf = new Uint8Array(HEADER + bytes.length);
  var dv = new DataView(buf.buffer);
  buf[0] = 1;
  buf[1] = flags;
  dv.setUint16(2, HEADER, true);
  dv.setUint32(4, sid, true);
  dv.setUint32(8, seq, true);
  dv.setUint32(12, bytes.length, true);
  buf.set(bytes, HEADER);
  ws.send(buf.buffer);
}

// Sends what each ring holds: flags are read before write, so a CLOSED
// seen means every byte before it is visible.
function drain() {
  if (!open || !memory) return;
  var w = words();
  var heap = null;
  for (var sid in streams) {
    if (ws.bufferedAmount > SEND_BUFFER_MAX) return; // the ring waits (bounded: it breaks when full)
    var st = streams[sid];
    var p = st.ptr;
    var flags = Atomics.load(w, at(p, RING.FLAGS));
    var wr = Atomics.load(w, at(p, RING.WRITE)) >>> 0;
    var rd = Atomics.load(w, at(p, RING.READ)) >>> 0;
    var cap = w[at(p, RING.CAPACITY)] >>> 0;
    var data = w[at(p, RING.DATA)] >>> 0;
    var n = (wr - rd) >>> 0;
    while (n > 0) {
      var take = Math.min(n, PAYLOAD_MAX);
      heap = heap || new Uint8Array(memory.buffer);
      var from = rd & (cap - 1);
      var first = Math.min(cap - from, take);
      var bytes = new Uint8Array(take);
      bytes.set(heap.subarray(data + from, data + from + first), 0);
      if (take > first) bytes.set(heap.subarray(data, data + take - first), first);
      frame(+sid, st.seq++, 0, bytes);
      rd = (rd + take) >>> 0;
      n -= take;
      Atomics.store(w, at(p, RING.READ), rd | 0);
    }
    if (flags & (RING_FLAGS.CLOSED | RING_FLAGS.BROKEN)) {
      frame(+sid, st.seq++, flags & RING_FLAGS.BROKEN ? FRAME_BROKEN : FRAME_LAST, new Uint8Array(0));
      Atomics.or(w, at(p, RING.FLAGS), RING_FLAGS.DONE);
      delete streams[sid];
      post({ cmd: 'streamEnded', sid: +sid, broken: !!(flags & RING_FLAGS.BROKEN), lost: Atomics.load(w, at(p, RING.LOST)) >>> 0 });
    }
  }
}

function connect() {
  timer = 0;
  try {
    ws = new WebSocket(cfg.connectUrl);
  } catch (e) {
    post({ cmd: 'state', state: 'disconnected', error: String(e && e.message) });
    retry();
    return;
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
    try {
      m = JSON.parse(e.data);
    } catch (err) {
      return;
    }
    if (!m || typeof m !== 'object') return;
    // A stop of a session this Worker streams goes straight to the wasmtrace
    // worker through the ring (native/src/server.c): no main thread.
    if (m.type === 'stop' && typeof m.session === 'number' && streams[m.session] && memory) {
      Atomics.or(words(), at(streams[m.session].ptr, RING.FLAGS), RING_FLAGS.STOP);
      sendJson({ type: 'stopping', req: m.req, session: m.session });
    } else if (m.type === 'start' || m.type === 'stop' || m.type === 'resume') {
      post({ cmd: 'command', msg: m });
    }
  };
  ws.onclose = function (e) {
    var was = open;
    open = false;
    detachAll();
    post({ cmd: 'state', state: 'disconnected',
      error: was ? 'the server closed the connection (code ' + e.code + ')' : 'cannot connect to ' + cfg.url });
    retry();
  };
  ws.onerror = function () {};
}

function retry() {
  if (cfg.reconnectMs > 0 && !timer) timer = setTimeout(connect, cfg.reconnectMs);
}

self.onmessage = function (e) {
  var m = e.data;
  if (m.cmd === 'init') {
    cfg = m.config;
    memory = m.memory;
    info = m.info;
    setInterval(drain, DRAIN_EVERY_MS);
    connect();
  } else if (m.cmd === 'info') {
    info = m.info;
    sendJson({ type: 'status', threads: info.threads, suspended: info.suspended, sessions: info.sessions });
  } else if (m.cmd === 'reply') {
    sendJson(m.msg);
  } else if (m.cmd === 'stream') {
    if (open) streams[m.sid] = { ptr: m.ptr, seq: 0 };
    else Atomics.or(words(), at(m.ptr, RING.FLAGS), RING_FLAGS.DETACHED | RING_FLAGS.DONE);
  } else if (m.cmd === 'ended') {
    // A session that failed before its output was set up never closes its
    // ring: end the stream here (the ring stays until page unload).
    var st = streams[m.sid];
    if (!st && m.never && open) frame(m.sid, 0, FRAME_BROKEN, new Uint8Array(0)); // it never started
    if (st && m.state === 'failed' && !(Atomics.load(words(), at(st.ptr, RING.FLAGS)) & RING_FLAGS.CLOSED)) {
      drain();
      if (streams[m.sid] && open) frame(m.sid, st.seq++, FRAME_BROKEN, new Uint8Array(0));
      delete streams[m.sid];
    }
  }
};
