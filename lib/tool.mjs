// A tool's side of the diagnostic server protocol (docs/PROTOCOL.md):
// connect to `wasmtrace serve`, send requests, receive trace streams.
// Used by `wasmtrace pages | collect | resume` and by the tests.
import { createWriteStream } from 'node:fs';
import { WebSocket } from 'ws';
import { FLAG_BROKEN, FLAG_LAST, PROTOCOL_VERSION, parseDataHeader } from './router.mjs';

export class ToolError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/**
 * Connects to a router at `url` (ws://127.0.0.1:PORT) as a tool. Resolves
 * with a client once the router welcomed it:
 *   client.request({type, ...}) -> Promise of the answer (rejects with a
 *     ToolError on an error answer);
 *   client.onData(stream, fn(header, payload)), client.onStreamError(stream, fn(msg));
 *   client.events: every unasked frame goes to client.onEvent(fn);
 *   client.close().
 */
export async function connectTool(url, { token = null, timeoutMs = 10000 } = {}) {
  const target = new URL('/tool', url.replace(/^http/, 'ws'));
  if (token) target.searchParams.set('token', token);
  const ws = new WebSocket(target, { maxPayload: 2 * 1024 * 1024 });
  const pending = new Map();
  const dataHandlers = new Map();
  const brokenHandlers = new Map();
  const eventHandlers = [];
  const early = new Map();
  const EARLY_MAX = 64 * 1024 * 1024;
  let earlyBytes = 0;
  let nextReq = 1;
  let id = null;
  let closedWhy = null;

  const welcome = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new ToolError('timeout', `no answer from the router at ${url} within ${timeoutMs} ms`));
    }, timeoutMs);
    ws.once('open', () => ws.send(JSON.stringify({ type: 'hello', protocol: PROTOCOL_VERSION, role: 'tool' })));
    ws.on('unexpected-response', (req, res) => {
      clearTimeout(timer);
      reject(new ToolError('refused', `the router at ${url} refused the connection: HTTP ${res.statusCode} ${res.statusMessage}`));
      ws.terminate();
    });
    ws.once('error', (e) => {
      clearTimeout(timer);
      reject(new ToolError('connect', `cannot connect to the router at ${url}: ${e.message} (is 'wasmtrace serve' running?)`));
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        const h = parseDataHeader(data);
        if (typeof h === 'string') return;
        const fn = dataHandlers.get(h.stream);
        if (fn) {
          fn(h, data.subarray(16));
        } else if (earlyBytes + data.length <= EARLY_MAX) {
          // Frames that came with (or right after) the `started` answer,
          // before the caller could call onData: kept for it.
          earlyBytes += data.length;
          if (!early.has(h.stream)) early.set(h.stream, []);
          early.get(h.stream).push([h, data.subarray(16)]);
        }
        return;
      }
      let msg;
      try {
        msg = JSON.parse(data.toString('utf8'));
      } catch {
        return;
      }
      if (msg.type === 'welcome') {
        clearTimeout(timer);
        id = msg.id;
        resolve();
        return;
      }
      if (msg.req !== undefined && pending.has(msg.req)) {
        const p = pending.get(msg.req);
        pending.delete(msg.req);
        if (msg.type === 'error') p.reject(new ToolError(msg.code, msg.message));
        else p.resolve(msg);
        return;
      }
      if (msg.type === 'error' && msg.code === 'stream-broken') {
        const fn = brokenHandlers.get(msg.stream);
        if (fn) fn(msg);
      }
      if (msg.type === 'error' && msg.fatal && id === null) {
        clearTimeout(timer);
        reject(new ToolError(msg.code, msg.message));
      }
      for (const fn of eventHandlers) fn(msg);
    });
    ws.on('close', (code, reason) => {
      closedWhy = `the router closed the connection (code ${code}${reason.length ? `: ${reason}` : ''})`;
      for (const p of pending.values()) p.reject(new ToolError('closed', closedWhy));
      pending.clear();
      for (const fn of brokenHandlers.values()) fn({ code: 'closed', message: closedWhy });
      for (const fn of eventHandlers) fn({ type: 'closed', message: closedWhy });
    });
  });
  await welcome;
  return {
    get id() {
      return id;
    },
    request(msg) {
      if (closedWhy) return Promise.reject(new ToolError('closed', closedWhy));
      const req = nextReq++;
      return new Promise((resolve, reject) => {
        pending.set(req, { resolve, reject });
        ws.send(JSON.stringify({ ...msg, req }));
      });
    },
    onData(stream, fn) {
      dataHandlers.set(stream, fn);
      for (const [h, payload] of early.get(stream) ?? []) {
        earlyBytes -= payload.length + 16;
        fn(h, payload);
      }
      early.delete(stream);
    },
    onStreamError(stream, fn) {
      brokenHandlers.set(stream, fn);
    },
    onEvent(fn) {
      eventHandlers.push(fn);
    },
    close() {
      ws.close();
    },
    terminate() {
      ws.terminate();
    },
  };
}

/**
 * Streams one session into `file`. `start` is the answer to the tool's
 * start request (its `stream` number). Resolves when the stream ends:
 * {complete, bytes, frames, error, times}: complete when the last frame
 * came; else `error` says why it ended early and the file holds what came
 * (readable up to its last flush point). `times[i]` is when frame i was
 * written (performance.timeOrigin + now, ms) and `sizes[i]` its payload
 * bytes — for benchmarks and tests. The promise's cut(why) ends it early.
 */
export function streamToFile(client, start, file) {
  const out = createWriteStream(file);
  let bytes = 0, frames = 0, expect = 0;
  const times = [], sizes = [];
  let cut = null;
  const result = new Promise((resolve) => {
    let done = false;
    const finish = (r) => {
      if (done) return;
      done = true;
      out.end(() => resolve({ bytes, frames, times, sizes, ...r }));
    };
    client.onData(start.stream, (h, payload) => {
      if (h.seq !== expect) return finish({ complete: false, error: `frame ${h.seq} came where ${expect} was expected` });
      expect++;
      frames++;
      bytes += payload.length;
      out.write(payload);
      times.push(performance.timeOrigin + performance.now());
      sizes.push(payload.length);
      if (h.flags & FLAG_LAST) finish({ complete: true, error: null });
      else if (h.flags & FLAG_BROKEN) finish({ complete: false, error: 'the page lost bytes of this stream (its buffer was full)' });
    });
    client.onStreamError(start.stream, (msg) => finish({ complete: false, error: msg.message }));
    cut = (why) => finish({ complete: false, error: why });
  });
  // Ends the stream where it is (what came is in the file, flushed), e.g.
  // on Ctrl-C or when the page will not end it; resolves like the stream.
  result.cut = (why) => {
    cut(why);
    return result;
  };
  return result;
}
