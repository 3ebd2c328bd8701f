// The diagnostic server's router (lib/router.mjs, docs/PROTOCOL.md) over
// real sockets on 127.0.0.1, with scripted pages (a `ws` client that says
// what a page says) and real tools (lib/tool.mjs): who may connect, what a
// bad frame gets, and that nothing one peer sends reaches another.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { WebSocket } from 'ws';
import { dataFrame, FLAG_BROKEN, FLAG_LAST, pageOriginAllowed, parseDataHeader, startRouter } from '../../lib/router.mjs';
import { connectTool, streamToFile, ToolError } from '../../lib/tool.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'wasmtrace-router-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const ORIGIN = 'http://127.0.0.1:8080';

/** Opens a raw socket; resolves {ws, frames, closed} or rejects with the HTTP status. */
function open(url, opts = {}) {
  const origin = 'origin' in opts ? opts.origin : ORIGIN;
  const ws = new WebSocket(url, origin === undefined ? {} : { origin });
  const frames = [];
  const waiters = [];
  let closeCode = null;
  const closed = new Promise((r) => ws.on('close', (code) => { closeCode = code; r(code); }));
  ws.on('message', (data, isBinary) => {
    frames.push(isBinary ? data : JSON.parse(data.toString()));
    for (const w of waiters.splice(0)) w();
  });
  const next = async (pred = () => true, ms = 5000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const i = frames.findIndex(pred);
      if (i >= 0) return frames.splice(i, 1)[0];
      if (closeCode !== null) throw new Error(`closed (${closeCode}) before the frame came`);
      if (Date.now() > deadline) throw new Error(`no such frame within ${ms} ms; got ${JSON.stringify(frames)}`);
      await new Promise((r) => { waiters.push(r); setTimeout(r, 50); });
    }
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, next, closed, get closeCode() { return closeCode; } }));
    ws.once('unexpected-response', (req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
    ws.once('error', reject);
  });
}

const pageInfo = (extra = {}) => ({
  url: 'http://127.0.0.1:8080/index.html', title: 'app', threads: 3, version: '0.1.0', suspended: false,
  sessions: [{ id: 0, name: 'startup', state: 'running', error: null }], ...extra,
});

/**
 * A scripted page: says hello, then answers start/stop/resume as the page
 * shim does; data(sid, bytes, flags) sends one data frame.
 */
async function fakePage(router, { info = pageInfo(), origin = ORIGIN, query = '' } = {}) {
  const c = await open(`${router.url}/page${query}`, { origin });
  c.ws.send(JSON.stringify({ type: 'hello', protocol: 1, role: 'page', page: info }));
  const welcome = await c.next((f) => f.type === 'welcome');
  const seqs = new Map();
  let nextSession = 1;
  const page = {
    ...c,
    id: welcome.id,
    // Answers the next request of `type` as the shim would.
    async answer(type) {
      const m = await c.next((f) => f.type === type);
      if (type === 'start') {
        const id = nextSession++;
        c.ws.send(JSON.stringify({ type: 'started', req: m.req, session: { id, name: m.config.name ?? 'remote', state: 'running', error: null, stream: true } }));
        return { ...m, session: id };
      }
      if (type === 'stop') c.ws.send(JSON.stringify({ type: 'stopping', req: m.req, session: m.session }));
      if (type === 'resume') c.ws.send(JSON.stringify({ type: 'resumed', req: m.req, waited: 12 }));
      return m;
    },
    data(sid, bytes, flags = 0) {
      const seq = seqs.get(sid) ?? 0;
      seqs.set(sid, seq + 1);
      c.ws.send(dataFrame(sid, seq, flags, Buffer.from(bytes)));
    },
  };
  return page;
}

describe('router', () => {
  let router;
  const lines = [];
  before(async () => {
    router = await startRouter({ log: (l) => lines.push(l), allowOrigins: ['https://app.example'] });
  });
  after(() => router.close());

  test('binds 127.0.0.1 by default', () => {
    assert.equal(router.host, '127.0.0.1');
  });

  test('a page from a foreign origin is refused before the upgrade, and the refusal is printed', async () => {
    await assert.rejects(open(`${router.url}/page`, { origin: 'https://evil.example' }), { status: 403 });
    assert.ok(lines.some((l) => /refused a page from https:\/\/evil\.example: origin .* is not allowed/.test(l)), lines.join('\n'));
  });

  test('a page from a loopback origin or an --allow-origin origin is accepted', async () => {
    const a = await fakePage(router, { origin: 'http://localhost:3000' });
    const b = await fakePage(router, { origin: 'https://app.example' });
    a.ws.close();
    b.ws.close();
    assert.ok(pageOriginAllowed('http://[::1]:1'));
    assert.ok(!pageOriginAllowed('null'));
    assert.ok(!pageOriginAllowed('http://127.0.0.1.evil.example'));
  });

  test('a tool connection from a web page (with an Origin header) is refused', async () => {
    await assert.rejects(open(`${router.url}/tool`, { origin: 'http://127.0.0.1:8080' }), { status: 403 });
  });

  test('an unknown path is refused', async () => {
    await assert.rejects(open(`${router.url}/admin`), { status: 404 });
  });

  test('a page is listed with its info while connected, and its connect and disconnect are printed', async () => {
    const page = await fakePage(router);
    const tool = await connectTool(router.url);
    const { pages } = await tool.request({ type: 'list' });
    const me = pages.find((p) => p.id === page.id);
    assert.equal(me.url, 'http://127.0.0.1:8080/index.html');
    assert.equal(me.threads, 3);
    assert.deepEqual(me.sessions.map((s) => s.name), ['startup']);
    page.ws.close();
    await page.closed;
    await new Promise((r) => setTimeout(r, 100));
    assert.ok(lines.some((l) => l.startsWith(`page connected: ${page.id} http://127.0.0.1:8080/index.html (wasmtrace 0.1.0, 3 threads, sessions: 'startup' running`)), lines.join('\n'));
    assert.ok(lines.some((l) => l.startsWith(`page disconnected: ${page.id}`)), lines.join('\n'));
    const after2 = await tool.request({ type: 'list' });
    assert.ok(!after2.pages.some((p) => p.id === page.id));
    tool.close();
  });

  test('a collect streams the page data into a file byte for byte, in order, until the last frame', async () => {
    const page = await fakePage(router);
    const tool = await connectTool(router.url);
    const startP = tool.request({ type: 'start', page: page.id, config: { name: 'remote' } });
    const req = await page.answer('start');
    const started = await startP;
    assert.equal(started.session.name, 'remote');
    assert.equal(typeof started.stream, 'number');
    const file = join(tmp, 'stream.bin');
    const done = streamToFile(tool, started, file);
    const parts = [Buffer.from('hello '), Buffer.alloc(70000, 7), Buffer.from('end')];
    page.data(req.session, parts[0]);
    page.data(req.session, parts[1]);
    const stopP = tool.request({ type: 'stop', page: page.id, session: req.session });
    await page.answer('stop');
    await stopP;
    page.data(req.session, parts[2], FLAG_LAST);
    const r = await done;
    assert.equal(r.complete, true);
    assert.equal(r.frames, 3);
    assert.deepEqual(readFileSync(file), Buffer.concat(parts));
    tool.close();
    page.ws.close();
  });

  test('two pages and two tools at once: each tool gets only its own stream', async () => {
    const [p1, p2] = [await fakePage(router), await fakePage(router)];
    const [t1, t2] = [await connectTool(router.url), await connectTool(router.url)];
    const s1 = t1.request({ type: 'start', page: p1.id, config: {} });
    const r1 = await p1.answer('start');
    const s2 = t2.request({ type: 'start', page: p2.id, config: {} });
    const r2 = await p2.answer('start');
    const [a1, a2] = [await s1, await s2];
    const d1 = streamToFile(t1, a1, join(tmp, 'a.bin'));
    const d2 = streamToFile(t2, a2, join(tmp, 'b.bin'));
    p1.data(r1.session, 'one-a ');
    p2.data(r2.session, 'two-a ');
    p2.data(r2.session, 'two-b', FLAG_LAST);
    p1.data(r1.session, 'one-b', FLAG_LAST);
    const [x1, x2] = [await d1, await d2];
    assert.equal(readFileSync(join(tmp, 'a.bin'), 'utf8'), 'one-a one-b');
    assert.equal(readFileSync(join(tmp, 'b.bin'), 'utf8'), 'two-a two-b');
    assert.ok(x1.complete && x2.complete);
    for (const c of [t1, t2]) c.close();
    for (const p of [p1, p2]) p.ws.close();
  });

  test('a page closed mid-stream ends the tool stream with a reason, keeping what came', async () => {
    const page = await fakePage(router);
    const tool = await connectTool(router.url);
    const s = tool.request({ type: 'start', page: page.id, config: {} });
    const r = await page.answer('start');
    const started = await s;
    const file = join(tmp, 'cut.bin');
    const done = streamToFile(tool, started, file);
    page.data(r.session, 'partial');
    await new Promise((res) => setTimeout(res, 100));
    page.ws.terminate();
    const out = await done;
    assert.equal(out.complete, false);
    assert.match(out.error, /disconnected before its trace was complete/);
    assert.equal(readFileSync(file, 'utf8'), 'partial');
    tool.close();
  });

  test('a tool killed mid-stream leaves the page connected and its later data dropped quietly', async () => {
    const page = await fakePage(router);
    const tool = await connectTool(router.url);
    const s = tool.request({ type: 'start', page: page.id, config: {} });
    const r = await page.answer('start');
    await s;
    page.data(r.session, 'a');
    tool.terminate();
    await new Promise((res) => setTimeout(res, 100));
    page.data(r.session, 'b');
    page.data(r.session, 'c', FLAG_LAST);
    const other = await connectTool(router.url);
    const { pages } = await other.request({ type: 'list' });
    assert.ok(pages.some((p) => p.id === page.id), 'the page is still connected');
    await new Promise((res) => setTimeout(res, 100));
    assert.equal(page.closeCode, null);
    assert.equal(page.ws.readyState, 1);
    other.close();
    page.ws.close();
  });

  test('"first" waits for the next page that connects (the one-shot CI form), and resume reaches it', async () => {
    const tool = await connectTool(router.url);
    const resumed = tool.request({ type: 'resume', page: 'first' });
    await new Promise((res) => setTimeout(res, 50));
    const page = await fakePage(router, { info: pageInfo({ suspended: true }) });
    await page.answer('resume');
    const r = await resumed;
    assert.equal(r.page, page.id);
    assert.equal(r.waited, 12);
    tool.close();
    page.ws.close();
  });

  test('one tool\'s "first" requests all reach one page: a start and a resume sent together, and later ones', async () => {
    const tool = await connectTool(router.url);
    // Sent at once, before any page: a held page answers the start only
    // after the resume, so the tool cannot wait for the first answer.
    const started = tool.request({ type: 'start', page: 'first', config: { name: 'held' } });
    const resumed = tool.request({ type: 'resume', page: 'first' });
    await new Promise((res) => setTimeout(res, 50));
    const page = await fakePage(router, { info: pageInfo({ suspended: true }) });
    const start = await page.next((f) => f.type === 'start');
    await page.answer('resume');
    assert.equal((await resumed).page, page.id);
    page.ws.send(JSON.stringify({ type: 'started', req: start.req, session: { id: 3, name: 'held', state: 'running', error: null, stream: true } }));
    const s = await started;
    assert.equal(s.page, page.id);
    assert.equal(s.session.id, 3);
    // Another page connects: this tool's "first" is still the first one.
    const other = await fakePage(router);
    const again = tool.request({ type: 'resume', page: 'first' });
    await page.answer('resume');
    assert.equal((await again).page, page.id);
    await assert.rejects(other.next((f) => f.type === 'resume', 300), /no such frame/);
    tool.close();
    page.ws.close();
    other.ws.close();
  });

  test('a request for a page that is not connected gets no-page', async () => {
    const tool = await connectTool(router.url);
    await assert.rejects(tool.request({ type: 'resume', page: 'p999' }), (e) => e instanceof ToolError && e.code === 'no-page');
    tool.close();
  });

  // The corpus: every frame gets an error reply, the connection survives
  // (unless the error says fatal), and an honest page next to it keeps
  // streaming to its tool.
  test('a corpus of bad frames from pages and tools: error replies, no crash, no effect on others', async () => {
    const honest = await fakePage(router);
    const watcher = await connectTool(router.url);
    const s = watcher.request({ type: 'start', page: honest.id, config: {} });
    const r = await honest.answer('start');
    const started = await s;
    const done = streamToFile(watcher, started, join(tmp, 'honest.bin'));
    honest.data(r.session, 'before ');

    const badPage = await fakePage(router);
    const pageCorpus = [
      ['not json {', 'bad-frame'],
      ['[1,2]', 'bad-frame'],
      ['{"type":3}', 'bad-frame'],
      ['{"type":"launch-missiles"}', 'unknown-type'],
      ['{"type":"hello","protocol":1,"role":"page","page":{}}', 'bad-frame'],
      ['{"type":"started","req":9999,"session":{}}', 'bad-field'],
      ['{"type":"started","req":"x"}', 'bad-field'],
      ['{"type":"session","session":{"id":-1,"name":"x","state":"running"}}', 'bad-field'],
      ['{"type":"session","session":{"id":1,"name":"x","state":"exploded"}}', 'bad-field'],
      ['{"type":"status","sessions":"many"}', 'bad-field'],
      [JSON.stringify({ type: 'x', pad: 'a'.repeat(70 * 1024) }), 'too-large'],
    ];
    for (const [text, code] of pageCorpus) {
      badPage.ws.send(text);
      const e = await badPage.next((f) => f.type === 'error');
      assert.equal(e.code, code, `${text.slice(0, 60)} -> ${JSON.stringify(e)}`);
      assert.ok(!e.fatal);
    }
    const binCorpus = [
      [Buffer.alloc(5), /shorter than its 16-byte header/],
      [Buffer.from([2, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), /version 2/],
      [Buffer.from([1, 0x80, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), /reserved bits/],
      [Buffer.from([1, 0, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), /header length 17/],
      [Buffer.from([1, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1]), /payload length 9 but 1/],
      [dataFrame(77, 0, 0, Buffer.from('x')), /session 77, which no tool started/],
    ];
    const badData = await fakePage(router);
    for (const [buf, why] of binCorpus) {
      badData.ws.send(buf);
      const e = await badData.next((f) => f.type === 'error');
      assert.equal(e.code, 'bad-data');
      assert.match(e.message, why);
    }
    // Too many errors: the bad page is closed; the honest one is not.
    for (let i = 0; i < 16; i++) badPage.ws.send('x');
    assert.equal(await badPage.closed, 1008);
    assert.equal(badData.ws.readyState, 1);
    badData.ws.close();

    const badTool = await open(`${router.url}/tool`, { origin: undefined });
    badTool.ws.send(JSON.stringify({ type: 'hello', protocol: 1, role: 'tool' }));
    await badTool.next((f) => f.type === 'welcome');
    const toolCorpus = [
      ['{"type":"list"}', 'bad-field'],
      ['{"type":"start","req":1,"page":"p1"}', 'bad-field'],
      ['{"type":"start","req":1,"page":"p1","config":[1]}', 'bad-field'],
      ['{"type":"stop","req":1,"page":"' + honest.id + '","session":4242}', 'no-session'],
      ['{"type":"read-file","req":1,"path":"/etc/passwd"}', 'unknown-type'],
    ];
    for (const [text, code] of toolCorpus) {
      badTool.ws.send(text);
      const e = await badTool.next((f) => f.type === 'error');
      assert.equal(e.code, code, `${text} -> ${JSON.stringify(e)}`);
    }
    badTool.ws.send(Buffer.from('binary'));
    assert.equal((await badTool.next((f) => f.type === 'error')).code, 'bad-frame');
    // A frame above the binary limit: ws closes that socket (1009).
    badTool.ws.send(Buffer.alloc(2 * 1024 * 1024));
    assert.equal(await badTool.closed, 1009);

    honest.data(r.session, 'after', FLAG_LAST);
    const out = await done;
    assert.equal(out.complete, true);
    assert.equal(readFileSync(join(tmp, 'honest.bin'), 'utf8'), 'before after');
    watcher.close();
    honest.ws.close();
  });

  test('a hello with another protocol version, or no hello first, is refused and closed', async () => {
    const a = await open(`${router.url}/page`);
    a.ws.send(JSON.stringify({ type: 'hello', protocol: 2, role: 'page', page: pageInfo() }));
    const e = await a.next((f) => f.type === 'error');
    assert.equal(e.code, 'version');
    assert.equal(e.fatal, true);
    await a.closed;
    const b = await open(`${router.url}/page`);
    b.ws.send(dataFrame(0, 0, 0, Buffer.from('x')));
    assert.equal((await b.next((f) => f.type === 'error')).code, 'not-hello');
    await b.closed;
    const c = await open(`${router.url}/page`);
    c.ws.send(JSON.stringify({ type: 'hello', protocol: 1, role: 'page', page: pageInfo({ threads: 'many' }) }));
    assert.match((await c.next((f) => f.type === 'error')).message, /hello\.page\.threads must be an integer/);
    await c.closed;
  });

  test('a sequence gap breaks that stream for its tool and tells the page', async () => {
    const page = await fakePage(router);
    const tool = await connectTool(router.url);
    const s = tool.request({ type: 'start', page: page.id, config: {} });
    const r = await page.answer('start');
    const started = await s;
    const done = streamToFile(tool, started, join(tmp, 'gap.bin'));
    page.ws.send(dataFrame(r.session, 0, 0, Buffer.from('a')));
    page.ws.send(dataFrame(r.session, 2, 0, Buffer.from('c')));
    const out = await done;
    assert.equal(out.complete, false);
    assert.match(out.error, /data frame 2 of session .* where 1 was expected/);
    assert.equal((await page.next((f) => f.type === 'error')).code, 'bad-data');
    tool.close();
    page.ws.close();
  });
});

describe('router with a token', () => {
  let router;
  before(async () => {
    router = await startRouter({ token: 's3cret' });
  });
  after(() => router.close());

  test('a page or tool without the token is refused; with it, accepted', async () => {
    await assert.rejects(open(`${router.url}/page`), { status: 401 });
    await assert.rejects(open(`${router.url}/page?token=wrong`), { status: 401 });
    await assert.rejects(connectTool(router.url), (e) => e.code === 'refused' && /HTTP 401/.test(e.message));
    const page = await fakePage(router, { query: '?token=s3cret' });
    const tool = await connectTool(router.url, { token: 's3cret' });
    const { pages } = await tool.request({ type: 'list' });
    assert.equal(pages.length, 1);
    tool.close();
    page.ws.close();
  });
});

test('data frame headers round-trip', () => {
  const f = dataFrame(5, 9, FLAG_LAST, Buffer.from('abc'));
  assert.deepEqual(parseDataHeader(f), { flags: FLAG_LAST, stream: 5, seq: 9, length: 3 });
});

describe('the tool commands of the CLI against a router', () => {
  let router;
  before(async () => {
    router = await startRouter();
  });
  after(() => router.close());

  const run = async (args) => {
    const out = [], err = [];
    const { main } = await import('../../lib/cli.mjs');
    const status = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { status, out: out.join('\n'), err: err.join('\n') };
  };

  test('pages lists each connected page with its sessions, and watch reports arrivals', async () => {
    const tool = await connectTool(router.url);
    const events = [];
    tool.onEvent((m) => events.push(m));
    await tool.request({ type: 'watch' });
    const page = await fakePage(router, { info: pageInfo({ suspended: true }) });
    const r = await run(['pages', '--server', router.url]);
    assert.equal(r.status, 0, r.err);
    assert.match(r.out, new RegExp(`^${page.id}  http://127\\.0\\.0\\.1:8080/index\\.html  wasmtrace 0\\.1\\.0, 3 threads, SUSPENDED; sessions: #0 'startup' running$`, 'm'));
    assert.ok(events.some((m) => m.type === 'page-connected' && m.page.id === page.id));
    page.ws.close();
    await page.closed;
    await new Promise((res) => setTimeout(res, 100));
    assert.ok(events.some((m) => m.type === 'page-disconnected' && m.id === page.id));
    tool.close();
  });

  test('collect streams a session into --out for --duration and prints the summary', async () => {
    const page = await fakePage(router);
    const dir = join(tmp, 'collected');
    const cli = run(['collect', page.id, '--server', router.url, '--duration', '300ms', '-o', dir, '-q']);
    const req = await page.answer('start');
    assert.equal(req.config.name, 'remote');
    const trace = gzipSync(readFileSync(new URL('../golden/chrome.json', import.meta.url)));
    page.data(req.session, trace.subarray(0, 1000));
    page.data(req.session, trace.subarray(1000));
    const stop = await page.answer('stop');
    assert.equal(stop.session, req.session);
    page.ws.send(JSON.stringify({ type: 'session', session: { id: req.session, name: 'remote', state: 'stopped', error: null, stream: true } }));
    page.data(req.session, Buffer.alloc(0), FLAG_LAST);
    const r = await cli;
    assert.equal(r.status, 0, r.err);
    assert.match(r.out, /^session 'remote': stopped, chrome trace .*remote\.json\.gz/m);
    assert.deepEqual(readFileSync(join(dir, 'remote.json.gz')), trace);
    page.ws.close();
  });

  // A held page (suspended) answers a start only once it runs, i.e. after
  // the resume: collect --resume must send both without waiting.
  test('collect --first --resume of a held page: the resume goes before the start is answered, --duration counts from the start', async () => {
    const dir = join(tmp, 'held');
    const cli = run(['collect', '--first', '--resume', '--server', router.url, '--duration', '300ms', '-o', dir, '-q']);
    await new Promise((res) => setTimeout(res, 100));
    const page = await fakePage(router, { info: pageInfo({ suspended: true }) });
    const start = await page.next((f) => f.type === 'start', 10000);
    await page.answer('resume');
    page.ws.send(JSON.stringify({ type: 'started', req: start.req, session: { id: 5, name: 'remote', state: 'running', error: null, stream: true } }));
    const trace = gzipSync(readFileSync(new URL('../golden/chrome.json', import.meta.url)));
    page.data(5, trace);
    const t0 = Date.now();
    const stop = await page.answer('stop');
    assert.ok(Date.now() - t0 >= 200, `stopped ${Date.now() - t0} ms after the start was answered`);
    assert.equal(stop.session, 5);
    page.data(5, Buffer.alloc(0), FLAG_LAST);
    const r = await cli;
    assert.equal(r.status, 0, r.err);
    assert.match(r.out, /^session 'remote': stopped, chrome trace .*remote\.json\.gz/m);
    assert.deepEqual(readFileSync(join(dir, 'remote.json.gz')), trace);
    page.ws.close();
  });

  test('collect --duration ends a stream the page cannot stop: cut where it was, written, status 1', async () => {
    const page = await fakePage(router);
    const dir = join(tmp, 'unstoppable');
    const t0 = Date.now();
    const cli = run(['collect', page.id, '--server', router.url, '--duration', '300ms', '-o', dir, '-q']);
    const req = await page.answer('start');
    const trace = gzipSync(readFileSync(new URL('../golden/chrome.json', import.meta.url)));
    page.data(req.session, trace.subarray(0, 500));
    const stop = await page.next((f) => f.type === 'stop');
    page.ws.send(JSON.stringify({ type: 'error', req: stop.req, code: 'page-error', message: 'no session 1 in this page' }));
    const r = await cli;
    assert.ok(Date.now() - t0 < 10000, `collect took ${Date.now() - t0} ms`);
    assert.equal(r.status, 1);
    assert.match(r.out, /incomplete \(the page could not stop the session: no session 1 in this page;/);
    assert.deepEqual(readFileSync(join(dir, 'remote.json.gz')), trace.subarray(0, 500));
    page.ws.close();
  });

  test('collect ends cleanly on Ctrl-C: the session is stopped and its whole trace written', async () => {
    const page = await fakePage(router);
    const dir = join(tmp, 'interrupted');
    const cli = spawn(process.execPath, [new URL('../../bin/wasmtrace.mjs', import.meta.url).pathname, 'collect', page.id,
      '--server', router.url, '-o', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    cli.stdout.on('data', (d) => { stdout += d; });
    cli.stderr.on('data', (d) => { stderr += d; });
    const exited = new Promise((res) => cli.on('exit', (code, signal) => res({ code, signal })));
    const req = await page.answer('start');
    const trace = gzipSync(readFileSync(new URL('../golden/chrome.json', import.meta.url)));
    page.data(req.session, trace.subarray(0, 700));
    for (let i = 0; i < 200 && !/streaming into/.test(stderr); i++) await new Promise((res) => setTimeout(res, 25));
    cli.kill('SIGINT');
    const stop = await page.answer('stop');
    assert.equal(stop.session, req.session);
    page.data(req.session, trace.subarray(700));
    page.ws.send(JSON.stringify({ type: 'session', session: { id: req.session, name: 'remote', state: 'stopped', error: null, stream: true } }));
    page.data(req.session, Buffer.alloc(0), FLAG_LAST);
    const { code, signal } = await exited;
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, `${stdout}\n${stderr}`);
    assert.match(stderr, /interrupted: stopping the sessions/);
    assert.match(stdout, /^session 'remote': stopped, chrome trace/m);
    assert.deepEqual(readFileSync(join(dir, 'remote.json.gz')), trace);
    page.ws.close();
  });

  test('a stream that brought no bytes is summarized as such, never as a "folded" trace', async () => {
    const page = await fakePage(router);
    const dir = join(tmp, 'empty');
    const cli = run(['collect', page.id, '--server', router.url, '--duration', '200ms', '-o', dir, '-q']);
    const req = await page.answer('start');
    await page.answer('stop');
    page.data(req.session, Buffer.alloc(0), FLAG_BROKEN);
    const r = await cli;
    assert.equal(r.status, 1);
    assert.doesNotMatch(r.out, /folded/);
    assert.match(r.out, /^session 'remote': incomplete \(the page lost bytes of this stream .*\), 0 bytes in /m);
    page.ws.close();
  });

  test('resume of a page that is not there fails with one line', async () => {
    const r = await run(['resume', 'p404', '--server', router.url]);
    assert.equal(r.status, 1);
    assert.equal(r.err, 'wasmtrace: no page p404 is connected');
  });

  test('a tool command without a router says what to run', async () => {
    const r = await run(['pages', '--server', 'ws://127.0.0.1:1']);
    assert.equal(r.status, 1);
    assert.match(r.err, /cannot connect to the router at ws:\/\/127\.0\.0\.1:1: .*is 'wasmtrace serve' running\?/);
  });
});
