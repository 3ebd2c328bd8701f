// The static server of `wasmtrace record` (lib/serve.mjs), over real
// sockets: it serves the files under its root with the isolation headers,
// and nothing else, to nobody but its own origin (no symlink out of the
// root, no path traversal, no foreign Host header: DNS rebinding).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { serve } from '../../lib/serve.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'wasmtrace-serve-'));
const root = join(tmp, 'root');
const SECRET = 'not for the page\n';

/** GET `path` (sent as is) with `host` as the Host header; { status, body, headers }. */
function get(port, path, host = `127.0.0.1:${port}`, method = 'GET') {
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host }, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.on('error', fail);
    req.end();
  });
}

describe('the static server of wasmtrace record', () => {
  let server;
  before(async () => {
    mkdirSync(join(root, 'sub'), { recursive: true });
    writeFileSync(join(root, 'index.html'), '<!doctype html>root');
    writeFileSync(join(root, 'sub/index.html'), '<!doctype html>sub');
    writeFileSync(join(root, 'app.wasm'), 'wasm');
    writeFileSync(join(tmp, 'secret.txt'), SECRET);
    mkdirSync(join(tmp, 'elsewhere'));
    writeFileSync(join(tmp, 'elsewhere/index.html'), SECRET);
    writeFileSync(join(tmp, 'elsewhere/data.txt'), SECRET);
    // Links out of the root: to a file, to a system file, to a directory.
    symlinkSync(join(tmp, 'secret.txt'), join(root, 'secret-link.txt'));
    symlinkSync('/etc/passwd', join(root, 'passwd'));
    symlinkSync(join(tmp, 'elsewhere'), join(root, 'outdir'));
    // A link that stays inside the root is an ordinary file.
    symlinkSync(join(root, 'app.wasm'), join(root, 'alias.wasm'));
    server = await serve(root);
  });
  after(async () => {
    await server?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  test('serves the root with the cross-origin isolation headers', async () => {
    const r = await get(server.port, '/');
    assert.equal(r.status, 200);
    assert.equal(r.body, '<!doctype html>root');
    assert.equal(r.headers['cross-origin-opener-policy'], 'same-origin');
    assert.equal(r.headers['cross-origin-embedder-policy'], 'require-corp');
    assert.equal((await get(server.port, '/sub/')).body, '<!doctype html>sub');
    const w = await get(server.port, '/app.wasm', `localhost:${server.port}`);
    assert.equal(w.status, 200);
    assert.equal(w.headers['content-type'], 'application/wasm');
  });

  test('a symlink inside the root that stays inside is served', async () => {
    const r = await get(server.port, '/alias.wasm');
    assert.equal(r.status, 200);
    assert.equal(r.body, 'wasm');
  });

  test('a symlink to a file outside the root is refused', async () => {
    for (const path of ['/secret-link.txt', '/passwd', '/outdir/data.txt', '/outdir/', '/outdir', '/sub/../passwd', '/%70asswd']) {
      const r = await get(server.port, path);
      assert.equal(r.status, 403, path);
      assert.doesNotMatch(r.body, /not for the page|root:/, path);
    }
  });

  test('paths that climb out of the root are not found', async () => {
    for (const path of ['/../secret.txt', '/..%2fsecret.txt', '/%2e%2e/secret.txt', '/sub/..%2f..%2fsecret.txt',
      '/..%5csecret.txt', '/%2e%2e%2f%2e%2e%2fetc/passwd']) {
      const r = await get(server.port, path);
      assert.ok(r.status === 404 || r.status === 400, `${path}: ${r.status}`);
      assert.doesNotMatch(r.body, /not for the page|root:/, path);
    }
    assert.equal((await get(server.port, '/%E0%A4%A')).status, 400, 'a malformed escape');
    assert.equal((await get(server.port, '/index.html%00.wasm')).status, 400, 'a NUL byte');
  });

  test('a request for another host name (DNS rebinding) is refused', async () => {
    for (const host of [`evil.example:${server.port}`, 'evil.example', `127.0.0.1:${server.port + 1}`,
      '127.0.0.1', `localhost.evil.example:${server.port}`]) {
      const r = await get(server.port, '/index.html', host);
      assert.equal(r.status, 421, `Host: ${host}`);
      assert.doesNotMatch(r.body, /root/, `Host: ${host}`);
    }
    assert.equal((await get(server.port, '/index.html', `LOCALHOST:${server.port}`)).status, 200, 'host names ignore case');
    // HTTP/1.0 without any Host header.
    const raw = await new Promise((ok, fail) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.end('GET /index.html HTTP/1.0\r\n\r\n'));
      let text = '';
      socket.on('data', (c) => { text += c; });
      socket.on('end', () => ok(text));
      socket.on('error', fail);
    });
    assert.match(raw, /^HTTP\/1\.[01] 421 /, 'no Host header');
  });

  test('only GET and HEAD', async () => {
    assert.equal((await get(server.port, '/index.html', undefined, 'POST')).status, 405);
    const head = await get(server.port, '/index.html', undefined, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
  });

  test('links may lead into the directories a program names (linksInto), and nowhere else', async () => {
    const s = await serve(root, { linksInto: [join(tmp, 'elsewhere')] });
    try {
      assert.equal((await get(s.port, '/outdir/data.txt')).status, 200);
      assert.equal((await get(s.port, '/secret-link.txt')).status, 403);
      assert.equal((await get(s.port, '/passwd')).status, 403);
    } finally {
      await s.close();
    }
  });

  test('a root given through a symlink serves its own files', async () => {
    symlinkSync(root, join(tmp, 'root-link'));
    const s = await serve(join(tmp, 'root-link'));
    try {
      assert.equal((await get(s.port, '/index.html')).status, 200);
      assert.equal((await get(s.port, '/passwd')).status, 403);
    } finally {
      await s.close();
    }
  });
});
