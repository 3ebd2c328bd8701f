// A small static file server for wasmtrace pages: serves a directory on
// 127.0.0.1 with the cross-origin isolation headers that pthreads
// (SharedArrayBuffer) need. Also a CLI: node lib/serve.mjs DIR [PORT]
//
// It serves the files under its root and nothing else, to nobody but pages
// of its own origin:
//   - a path that leaves the root ('..', encoded or not) is not found (404);
//   - a symlink (or a symlinked directory) whose real path is outside the
//     root is refused (403): the root's own real path is the boundary (a
//     program may name other directories links may lead into: linksInto);
//   - a request whose Host header is not this server's own address
//     (127.0.0.1:<port>, localhost:<port>) is refused (421): a page of
//     another site whose name was rebound to 127.0.0.1 (DNS rebinding)
//     cannot read files through it while `wasmtrace record` runs;
//   - only GET and HEAD.
import { createServer } from 'node:http';
import { readFile, realpath, stat } from 'node:fs/promises';
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

/** An HTTP refusal: status and a one-line reason. */
class Refusal extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const inside = (file, root) => file === root || file.startsWith(root.endsWith(sep) ? root : root + sep);

/** The Host header values that name this server (lower case). */
function ownHosts(host, port) {
  const names = new Set([host, '127.0.0.1', 'localhost']);
  if (host === '::1' || host === '::') names.add('[::1]');
  const out = new Set();
  for (const n of names) out.add(`${(n.includes(':') && !n.startsWith('[') ? `[${n}]` : n).toLowerCase()}:${port}`);
  return out;
}

/**
 * The real path of the file that `urlPath` names under `root` (a real
 * path), or a Refusal. Directories resolve to their index.html. A real path
 * must be under the root or one of `also` (real paths).
 */
async function fileFor(root, urlPath, also) {
  let path;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    throw new Refusal(400, 'malformed path');
  }
  if (path.includes('\0')) throw new Refusal(400, 'malformed path');
  const file = normalize(join(root, path));
  if (!inside(file, root)) throw new Refusal(404, 'not found');
  const real = async (f) => {
    let r;
    try {
      r = await realpath(f);
    } catch (e) {
      if (e.code === 'ENOENT' || e.code === 'ENOTDIR' || e.code === 'ELOOP') throw new Refusal(404, 'not found');
      throw e;
    }
    if (!inside(r, root) && !also.some((d) => inside(r, d))) throw new Refusal(403, 'outside the served directory');
    return r;
  };
  let r = await real(file);
  if ((await stat(r)).isDirectory()) r = await real(join(r, 'index.html'));
  return r;
}

/**
 * Serves `dir`; resolves to { url, port, close() }. linksInto: directories
 * outside `dir` that symlinks inside it may lead to (default none).
 * jsProfiling: send `Document-Policy: js-profiling` (the JS profile): true on
 * every file (the page and its workers' scripts), 'document' on HTML only.
 */
export async function serve(dir, { port = 0, host = '127.0.0.1', quiet = true, linksInto = [], jsProfiling = false } = {}) {
  // The boundary is the root's real path: a root given through a symlink
  // still serves its own files.
  const root = await realpath(resolve(dir));
  const also = await Promise.all(linksInto.map((d) => realpath(resolve(d))));
  let hosts = null;
  const server = createServer(async (req, res) => {
    const headers = {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Cache-Control': 'no-store',
    };
    try {
      if (!hosts.has(String(req.headers.host || '').toLowerCase())) {
        throw new Refusal(421, 'this server answers only requests for its own address');
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new Refusal(405, 'only GET and HEAD');
      const file = await fileFor(root, new URL(req.url, 'http://x').pathname, also);
      const body = await readFile(file);
      // Lets the page (and, on their scripts, its workers) run the JS
      // Self-Profiling API (Chromium): the shim's "main (JS)" profile.
      if (jsProfiling === true || (jsProfiling === 'document' && /\.html?$/i.test(file))) headers['Document-Policy'] = 'js-profiling';
      res.writeHead(200, { ...headers, 'Content-Type': TYPES[extname(file)] || 'application/octet-stream' });
      res.end(req.method === 'HEAD' ? undefined : body);
      if (!quiet) console.log(`200 ${req.url}`);
    } catch (e) {
      const status = e instanceof Refusal ? e.status : e.code === 'ENOENT' || e.code === 'ENOTDIR' ? 404 : 500;
      res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(e instanceof Refusal ? e.message : String(e.code || e.message));
      if (!quiet) console.log(`${status} ${req.url}`);
    }
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, ok);
  });
  const actual = server.address().port;
  hosts = ownHosts(host, actual);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${actual}/`,
    port: actual,
    close: () => new Promise((ok) => {
      server.close(() => ok());
      server.closeAllConnections?.();
    }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] || '').href) {
  const [dir = '.', port = '8080'] = process.argv.slice(2);
  const s = await serve(dir, { port: Number(port), quiet: false });
  console.log(`serving ${resolve(dir)} at ${s.url} (cross-origin isolated); Ctrl-C to stop`);
}
