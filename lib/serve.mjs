// A small static file server for wasmtrace pages: serves a directory on
// 127.0.0.1 with the cross-origin isolation headers that pthreads
// (SharedArrayBuffer) need. Also a CLI: node lib/serve.mjs DIR [PORT]
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.css': 'text/css',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

/** Serves `dir`; resolves to { url, port, close() }. */
export async function serve(dir, { port = 0, host = '127.0.0.1', quiet = true } = {}) {
  const root = resolve(dir);
  const server = createServer(async (req, res) => {
    const headers = {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Cache-Control': 'no-store',
    };
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let file = normalize(join(root, path));
      if (file !== root && !file.startsWith(root + sep)) throw Object.assign(new Error('outside root'), { code: 'ENOENT' });
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { ...headers, 'Content-Type': TYPES[extname(file)] || 'application/octet-stream' });
      res.end(body);
      if (!quiet) console.log(`200 ${req.url}`);
    } catch (e) {
      res.writeHead(e.code === 'ENOENT' || e.code === 'ENOTDIR' ? 404 : 500, headers);
      res.end(String(e.code || e.message));
      if (!quiet) console.log(`404 ${req.url}`);
    }
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, ok);
  });
  const actual = server.address().port;
  return {
    url: `http://${host}:${actual}/`,
    port: actual,
    close: () => new Promise((ok) => server.close(ok)),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] || '').href) {
  const [dir = '.', port = '8080'] = process.argv.slice(2);
  const s = await serve(dir, { port: Number(port), quiet: false });
  console.log(`serving ${resolve(dir)} at ${s.url} (cross-origin isolated); Ctrl-C to stop`);
}
