// The diagnostic server's router (`wasmtrace serve`): pages connect out to
// it over a WebSocket, tools connect to it, and it relays a tool's commands
// to one page and that page's replies and trace bytes back to the tool.
// The protocol is docs/PROTOCOL.md (version 1). Every frame is bounded and
// validated here; a bad frame costs its sender an error reply (and, when it
// cannot go on, its connection), never the router or another connection.
import { WebSocketServer } from 'ws';

export const PROTOCOL_VERSION = 1;
export const TEXT_MAX = 64 * 1024;
export const DATA_HEADER = 16;
export const PAYLOAD_MAX = 1024 * 1024;
export const FLAG_LAST = 1;
export const FLAG_BROKEN = 2;
const PEERS_MAX = 64;
const ERRORS_MAX = 16;
const SLOW_TOOL_BYTES = 64 * 1024 * 1024;
const SESSIONS_MAX = 256;
const STATES = new Set(['starting', 'running', 'stopping', 'stopped', 'failed']);

/** A data frame's header, or a string saying what is wrong with it. */
export function parseDataHeader(buf) {
  if (buf.length < DATA_HEADER) return `a data frame is ${buf.length} bytes, shorter than its 16-byte header`;
  const version = buf[0], flags = buf[1], headerLength = buf.readUInt16LE(2);
  if (version !== 1) return `data frame version ${version} (expected 1)`;
  if (flags & ~(FLAG_LAST | FLAG_BROKEN)) return `data frame flags 0x${flags.toString(16)} use reserved bits`;
  if (headerLength !== DATA_HEADER) return `data frame header length ${headerLength} (expected 16)`;
  const stream = buf.readUInt32LE(4), seq = buf.readUInt32LE(8), length = buf.readUInt32LE(12);
  if (length !== buf.length - DATA_HEADER) {
    return `data frame payload length ${length} but ${buf.length - DATA_HEADER} bytes follow the header`;
  }
  if (length > PAYLOAD_MAX) return `data frame payload of ${length} bytes (the limit is ${PAYLOAD_MAX})`;
  return { flags, stream, seq, length };
}

/** A data frame: header + payload (a Buffer). */
export function dataFrame(stream, seq, flags, payload) {
  const buf = Buffer.allocUnsafe(DATA_HEADER + payload.length);
  buf[0] = 1;
  buf[1] = flags;
  buf.writeUInt16LE(DATA_HEADER, 2);
  buf.writeUInt32LE(stream >>> 0, 4);
  buf.writeUInt32LE(seq >>> 0, 8);
  buf.writeUInt32LE(payload.length, 12);
  payload.copy ? payload.copy(buf, DATA_HEADER) : buf.set(payload, DATA_HEADER);
  return buf;
}

/** Text for one console line: no control characters, at most `max` chars. */
export function clean(text, max = 200) {
  const s = String(text).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?');
  return s.length > max ? `${s.slice(0, max)}...` : s;
}

class FrameError extends Error {
  constructor(code, message, fatal = false) {
    super(message);
    this.code = code;
    this.fatal = fatal;
  }
}

const isInt = (v, min = 0, max = 2 ** 31 - 1) => Number.isInteger(v) && v >= min && v <= max;

function field(obj, key, check, what) {
  if (!check(obj[key])) throw new FrameError('bad-field', `${obj.type}.${key} must be ${what}`);
  return obj[key];
}

const isStr = (max) => (v) => typeof v === 'string' && v.length <= max;

/** A session record from a page, checked and copied (only known fields). */
function checkSession(s, where) {
  if (!s || typeof s !== 'object' || Array.isArray(s)) throw new FrameError('bad-field', `${where} must be a session object`);
  const out = {
    id: field({ ...s, type: where }, 'id', (v) => isInt(v), 'a session id (an integer >= 0)'),
    name: field({ ...s, type: where }, 'name', isStr(256), 'a string of at most 256 characters'),
    state: field({ ...s, type: where }, 'state', (v) => STATES.has(v), 'a session state'),
    error: field({ ...s, type: where }, 'error', (v) => v === null || v === undefined || isStr(1024)(v), 'null or a string')
      ?? null,
    output: typeof s.output === 'string' ? s.output.slice(0, 1024) : '',
    stream: s.stream === true,
  };
  // stats(): numbers only, a bounded count (passed on to the tool as is).
  if (s.stats && typeof s.stats === 'object' && !Array.isArray(s.stats)) {
    out.stats = Object.fromEntries(Object.entries(s.stats).slice(0, 32)
      .filter(([k, v]) => /^\w{1,40}$/.test(k) && typeof v === 'number' && Number.isFinite(v)));
  }
  return out;
}

/** The page description of a page's hello (or status), checked. */
function checkPageInfo(p) {
  if (!p || typeof p !== 'object' || Array.isArray(p)) throw new FrameError('bad-field', 'hello.page must be an object', true);
  const f = (key, check, what) => field({ ...p, type: 'hello.page' }, key, check, what);
  const sessions = f('sessions', (v) => Array.isArray(v) && v.length <= SESSIONS_MAX, `an array of at most ${SESSIONS_MAX} sessions`);
  return {
    url: f('url', isStr(4096), 'a string of at most 4096 characters'),
    title: p.title === undefined ? '' : f('title', isStr(512), 'a string of at most 512 characters'),
    threads: f('threads', (v) => isInt(v, 0, 1e6), 'an integer >= 0'),
    version: f('version', isStr(64), 'a string of at most 64 characters'),
    suspended: f('suspended', (v) => typeof v === 'boolean', 'true or false'),
    sessions: sessions.map((s, i) => checkSession(s, `hello.page.sessions[${i}]`)),
  };
}

/** Origins a page may connect from by default: loopback ones. */
export function isLoopbackOrigin(origin) {
  let u;
  try {
    u = new URL(origin);
  } catch {
    return false;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  return u.hostname === '127.0.0.1' || u.hostname === 'localhost' || u.hostname === '[::1]';
}

/** Whether a page from `origin` may connect (docs/PROTOCOL.md). */
export function pageOriginAllowed(origin, allowOrigins = [], loopbackOrigins = true) {
  if (typeof origin !== 'string' || origin === '' || origin === 'null') return allowOrigins.includes('*');
  if (allowOrigins.includes('*') || allowOrigins.includes(origin)) return true;
  return loopbackOrigins && isLoopbackOrigin(origin);
}

/**
 * Starts a router. Resolves with {host, port, url, close(), pages()} once it
 * listens. `log` gets one line per page that connects or disconnects and per
 * refused connection. `loopbackOrigins: false` allows pages from
 * `allowOrigins` only (default: loopback origins too).
 */
export async function startRouter({ host = '127.0.0.1', port = 0, token = null, allowOrigins = [], loopbackOrigins = true,
  log = () => {} } = {}) {
  const pages = new Map();
  const tools = new Map();
  const waitingFirst = []; // {tool, msg}: requests for the next page
  let nextPage = 1, nextTool = 1, nextReq = 1;

  const wss = new WebSocketServer({
    host,
    port,
    maxPayload: DATA_HEADER + PAYLOAD_MAX,
    perMessageDeflate: false,
    verifyClient: (info, done) => {
      let url;
      try {
        url = new URL(info.req.url, 'http://router');
      } catch {
        return done(false, 400, 'Bad Request');
      }
      const role = url.pathname === '/page' ? 'page' : url.pathname === '/tool' ? 'tool' : null;
      const origin = info.req.headers.origin;
      const refuse = (code, text, why) => {
        log(`refused a ${role || 'connection'} from ${clean(origin ?? info.req.socket.remoteAddress)}: ${why}`);
        done(false, code, text);
      };
      if (!role) return refuse(404, 'Not Found', `unknown path ${clean(url.pathname, 80)} (use /page or /tool)`);
      if (role === 'tool' && origin !== undefined) {
        return refuse(403, 'Forbidden', 'a tool connection must not come from a web page (it has an Origin header)');
      }
      if (role === 'page' && !pageOriginAllowed(origin, allowOrigins, loopbackOrigins)) {
        return refuse(403, 'Forbidden', `origin ${clean(origin ?? '(none)', 120)} is not allowed (wasmtrace serve --allow-origin ORIGIN)`);
      }
      if (token !== null && url.searchParams.get('token') !== token) return refuse(401, 'Unauthorized', 'wrong or missing token');
      if ((role === 'page' ? pages : tools).size >= PEERS_MAX) return refuse(503, 'Service Unavailable', `more than ${PEERS_MAX} ${role}s`);
      info.req.wasmtraceRole = role;
      done(true);
    },
  });

  function send(peer, msg) {
    if (peer.ws.readyState === 1) peer.ws.send(JSON.stringify(msg));
  }

  function fail(peer, code, message, req, fatal = false) {
    const reply = { type: 'error', code, message: clean(message, 500) };
    if (req !== undefined) reply.req = req;
    peer.errors++;
    if (!fatal && peer.errors >= ERRORS_MAX) {
      fatal = true;
      reply.code = 'too-many-errors';
      reply.message = `${ERRORS_MAX} errors on this connection (the last: ${reply.message})`;
    }
    if (fatal) reply.fatal = true;
    send(peer, reply);
    if (fatal) peer.ws.close(1008, code.slice(0, 100));
  }

  function pageView(p) {
    return { id: p.id, ...p.info, sessions: [...p.sessions.values()] };
  }

  function describePage(p) {
    const i = p.info;
    const sessions = [...p.sessions.values()].map((s) => `'${clean(s.name, 40)}' ${s.state}`).join(', ') || 'none';
    return `${p.id} ${clean(i.url, 200)} (wasmtrace ${clean(i.version, 20)}, ${i.threads} threads, sessions: ${sessions}` +
      `${i.suspended ? ', suspended: waiting for a tool' : ''})`;
  }

  function toWatchers(msg) {
    for (const t of tools.values()) if (t.watching) send(t, msg);
  }

  // A tool's stream ends (page gone, bad data, slow tool, tool gone).
  function breakStream(p, sid, why) {
    const st = p.streams.get(sid);
    if (!st || !st.tool) return;
    const t = st.tool;
    st.tool = null;
    t.streams.delete(st.no);
    if (why) send(t, { type: 'error', code: 'stream-broken', stream: st.no, page: p.id, session: sid, message: why });
  }

  // ---- pages
  function onPageText(p, msg) {
    if (msg.type === 'hello') throw new FrameError('bad-frame', 'a second hello');
    if (msg.type === 'status') {
      const sessions = field(msg, 'sessions', (v) => Array.isArray(v) && v.length <= SESSIONS_MAX, 'an array of sessions');
      if (msg.threads !== undefined) p.info.threads = field(msg, 'threads', (v) => isInt(v, 0, 1e6), 'an integer >= 0');
      if (msg.suspended !== undefined) p.info.suspended = field(msg, 'suspended', (v) => typeof v === 'boolean', 'true or false');
      p.sessions = new Map(sessions.map((s, i) => checkSession(s, `status.sessions[${i}]`)).map((s) => [s.id, s]));
      toWatchers({ type: 'page-updated', page: pageView(p) });
      return;
    }
    if (msg.type === 'session') {
      const s = checkSession(msg.session, 'session.session');
      p.sessions.set(s.id, s);
      // Also after the last frame: the page reports a session's final state
      // (and stats) from its main thread, after its Worker sent the bytes.
      const st = p.streams.get(s.id);
      const to = st?.tool ?? st?.doneTool;
      if (to && to.ws.readyState === 1) send(to, { type: 'session', page: p.id, stream: st.no, session: s });
      return;
    }
    if (!['started', 'stopping', 'resumed', 'error'].includes(msg.type)) {
      throw new FrameError('unknown-type', `unknown frame type '${clean(msg.type, 40)}' from a page`);
    }
    const req = field(msg, 'req', (v) => isInt(v), 'the request number it answers');
    const pending = p.pending.get(req);
    if (!pending) throw new FrameError('bad-field', `${msg.type}.req ${req} answers no request`);
    p.pending.delete(req);
    const { tool, toolReq } = pending;
    if (msg.type === 'error') {
      send(tool, { type: 'error', req: toolReq, page: p.id, code: 'page-error', message: clean(msg.message ?? 'the page refused', 500) });
      return;
    }
    if (pending.kind !== msg.type) throw new FrameError('bad-field', `${msg.type} answers a ${pending.kind} request`);
    if (msg.type === 'started') {
      const s = checkSession(msg.session, 'started.session');
      p.sessions.set(s.id, s);
      let no = null;
      if (s.state !== 'failed' && s.stream) {
        if (p.streams.get(s.id)?.tool) breakStream(p, s.id, 'another tool started a session with this id');
        // A tool that left before the answer: the stream is registered
        // without one, and its data is dropped.
        const alive = tool.ws.readyState === 1;
        if (alive) no = tool.nextStream++;
        p.streams.set(s.id, { tool: alive ? tool : null, no, seq: 0 });
        if (alive) tool.streams.set(no, { page: p, sid: s.id });
      }
      send(tool, { type: 'started', req: toolReq, page: p.id, session: s, stream: no });
    } else if (msg.type === 'stopping') {
      send(tool, { type: 'stopping', req: toolReq, page: p.id, session: field(msg, 'session', (v) => isInt(v), 'a session id') });
    } else {
      const waited = typeof msg.waited === 'number' && msg.waited >= 0 ? msg.waited : 0;
      p.info.suspended = false;
      send(tool, { type: 'resumed', req: toolReq, page: p.id, waited });
      log(`${p.id} resumed (held ${Math.round(waited)} ms)`);
    }
  }

  function onPageData(p, buf) {
    const h = parseDataHeader(buf);
    if (typeof h === 'string') throw new FrameError('bad-data', h);
    const st = p.streams.get(h.stream);
    if (!st) throw new FrameError('bad-data', `data for session ${h.stream}, which no tool started`);
    if (h.seq !== st.seq) {
      const why = `data frame ${h.seq} of session ${h.stream} where ${st.seq} was expected`;
      st.seq = -1; // nothing more of it is forwarded
      breakStream(p, h.stream, `the page sent ${why}`);
      throw new FrameError('bad-data', why);
    }
    st.seq++;
    if (!st.tool) return; // its tool went away: dropped
    const t = st.tool;
    if (t.ws.bufferedAmount > SLOW_TOOL_BYTES) {
      breakStream(p, h.stream, `the tool reads too slowly (more than ${SLOW_TOOL_BYTES >> 20} MiB waiting)`);
      return;
    }
    const out = Buffer.from(buf);
    out.writeUInt32LE(st.no, 4);
    t.ws.send(out, { binary: true });
    if (h.flags & (FLAG_LAST | FLAG_BROKEN)) {
      t.streams.delete(st.no);
      st.tool = null;
      st.doneTool = t;
    }
  }

  function forward(t, p, msg, kind, extra) {
    const req = nextReq++;
    p.pending.set(req, { tool: t, toolReq: msg.req, kind: kind === 'start' ? 'started' : kind === 'stop' ? 'stopping' : 'resumed' });
    send(p, { type: kind, req, ...extra });
  }

  // ---- tools
  function onToolText(t, msg) {
    if (msg.type === 'hello') throw new FrameError('bad-frame', 'a second hello');
    const req = field(msg, 'req', (v) => isInt(v), 'an integer (the request number)');
    if (msg.type === 'list') return send(t, { type: 'pages', req, pages: [...pages.values()].filter((p) => p.info).map(pageView) });
    if (msg.type === 'watch') {
      t.watching = true;
      return send(t, { type: 'watching', req, pages: [...pages.values()].filter((p) => p.info).map(pageView) });
    }
    if (!['start', 'stop', 'resume'].includes(msg.type)) {
      throw new FrameError('unknown-type', `unknown request type '${clean(msg.type, 40)}' (list, watch, start, stop, resume)`);
    }
    const target = field(msg, 'page', isStr(32), 'a page id or "first"');
    let extra;
    if (msg.type === 'start') {
      const config = field(msg, 'config', (v) => v && typeof v === 'object' && !Array.isArray(v), 'a session object');
      extra = { config };
    } else if (msg.type === 'stop') {
      extra = { session: field(msg, 'session', (v) => isInt(v), 'a session id') };
    } else {
      extra = {};
    }
    // "first": the first page that connects after this tool first asked;
    // the tool's later "first" requests go to that same page (a tool may
    // send a start and a resume at once: both reach one page).
    if (target === 'first' && !t.firstPage) {
      waitingFirst.push({ tool: t, msg, extra });
      return undefined;
    }
    const p = pages.get(target === 'first' ? t.firstPage : target);
    if (!p || !p.info) {
      return fail(t, 'no-page', target === 'first' ? `page ${t.firstPage} (this tool's first page) is gone`
        : `no page ${clean(target, 32)} is connected`, req);
    }
    if (msg.type === 'stop' && !p.sessions.has(extra.session)) {
      return fail(t, 'no-session', `page ${p.id} has no session ${extra.session}`, req);
    }
    forward(t, p, msg, msg.type, extra);
    return undefined;
  }

  // One connection: its hello, then its frames; every problem is its own.
  function onConnection(ws, req) {
    const role = req.wasmtraceRole;
    const peer = { ws, role, errors: 0, hello: false };
    if (role === 'page') Object.assign(peer, { id: `p${nextPage++}`, info: null, sessions: new Map(), streams: new Map(), pending: new Map() });
    else Object.assign(peer, { id: `t${nextTool++}`, watching: false, streams: new Map(), nextStream: 1, firstPage: null });
    (role === 'page' ? pages : tools).set(peer.id, peer);

    ws.on('message', (data, isBinary) => {
      try {
        if (isBinary) {
          if (role !== 'page') throw new FrameError('bad-frame', 'a tool sends no binary frames');
          if (!peer.hello) throw new FrameError('not-hello', 'a data frame before hello', true);
          onPageData(peer, data);
          return;
        }
        if (data.length > TEXT_MAX) throw new FrameError('too-large', `a text frame of ${data.length} bytes (the limit is ${TEXT_MAX})`);
        let msg;
        try {
          msg = JSON.parse(data.toString('utf8'));
        } catch {
          throw new FrameError('bad-frame', 'a text frame that is not JSON', !peer.hello);
        }
        if (!msg || typeof msg !== 'object' || Array.isArray(msg) || typeof msg.type !== 'string') {
          throw new FrameError('bad-frame', 'a frame must be a JSON object with a string "type"', !peer.hello);
        }
        if (!peer.hello) {
          if (msg.type !== 'hello') throw new FrameError('not-hello', `the first frame must be hello, not '${clean(msg.type, 40)}'`, true);
          if (msg.protocol !== PROTOCOL_VERSION) {
            throw new FrameError('version', `protocol ${clean(JSON.stringify(msg.protocol) ?? 'missing', 20)}: this router speaks ${PROTOCOL_VERSION}`, true);
          }
          if (msg.role !== role) throw new FrameError('bad-field', `hello.role must be '${role}' on /${role}`, true);
          if (role === 'page') {
            try {
              peer.info = checkPageInfo(msg.page);
            } catch (e) {
              if (e instanceof FrameError) e.fatal = true; // no page without a valid hello
              throw e;
            }
            for (const s of peer.info.sessions) peer.sessions.set(s.id, s);
            delete peer.info.sessions;
          }
          peer.hello = true;
          send(peer, { type: 'welcome', protocol: PROTOCOL_VERSION, id: peer.id });
          if (role === 'page') {
            log(`page connected: ${describePage(peer)}`);
            toWatchers({ type: 'page-connected', page: pageView(peer) });
            for (const w of waitingFirst.splice(0)) {
              w.tool.firstPage = peer.id;
              if (w.tool.ws.readyState === 1) forward(w.tool, peer, w.msg, w.msg.type, w.extra);
            }
          }
          return;
        }
        if (role === 'page') onPageText(peer, msg);
        else onToolText(peer, msg);
      } catch (e) {
        if (e instanceof FrameError) {
          fail(peer, e.code, e.message, undefined, e.fatal);
        } else {
          // A bug of ours: the peer is told, the router goes on.
          fail(peer, 'internal', `the router failed on this frame: ${e.message}`, undefined, true);
        }
      }
    });
    ws.on('error', () => {}); // e.g. too large (ws closes with 1009 itself)
    ws.on('close', (code) => {
      (role === 'page' ? pages : tools).delete(peer.id);
      if (role === 'page') {
        for (const sid of [...peer.streams.keys()]) breakStream(peer, sid, `page ${peer.id} disconnected before its trace was complete`);
        for (const { tool, toolReq } of peer.pending.values()) {
          send(tool, { type: 'error', req: toolReq, page: peer.id, code: 'no-page', message: `page ${peer.id} disconnected` });
        }
        if (peer.info) {
          log(`page disconnected: ${peer.id} ${clean(peer.info.url, 200)} (code ${code})`);
          toWatchers({ type: 'page-disconnected', id: peer.id, reason: `code ${code}` });
        }
      } else {
        for (const { page, sid } of peer.streams.values()) {
          const st = page.streams.get(sid);
          if (st) st.tool = null;
        }
        for (let i = waitingFirst.length - 1; i >= 0; i--) if (waitingFirst[i].tool === peer) waitingFirst.splice(i, 1);
        for (const p of pages.values()) {
          for (const [r, pend] of p.pending) if (pend.tool === peer) p.pending.set(r, { ...pend, tool: { ws: { readyState: 3 } } });
        }
      }
    });
  }

  wss.on('connection', onConnection);
  await new Promise((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', reject);
  });
  wss.on('error', (e) => log(`router error: ${e.message}`));
  const addr = wss.address();
  return {
    host: addr.address,
    port: addr.port,
    url: `ws://${addr.address.includes(':') ? `[${addr.address}]` : addr.address}:${addr.port}`,
    pages: () => [...pages.values()].filter((p) => p.info).map(pageView),
    close: () => new Promise((resolve) => {
      for (const c of wss.clients) c.terminate();
      wss.close(() => resolve());
    }),
  };
}
