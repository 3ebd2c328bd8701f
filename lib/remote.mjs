// The diagnostic server's commands (docs/PROTOCOL.md, docs/GUIDE.md):
//   wasmtrace serve [--port N] [--host H] [--token T] [--allow-origin O]...
//   wasmtrace pages [--server URL]
//   wasmtrace collect [PAGE|--first] [--resume] [--duration D] [presets] [-o DIR]
//   wasmtrace resume [PAGE|--first]
//   wasmtrace serve --once --duration D ...   (CI: router + first page + collect)
// lib/cli.mjs parses the command line and calls these with its values.
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readProfile } from './profile.mjs';
import { clean, startRouter } from './router.mjs';
import { connectTool, streamToFile } from './tool.mjs';

export const DEFAULT_PORT = 9777;
const STOP_TIMEOUT_MS = 30000;

function serverUrl(v) {
  return v.server ?? process.env.WASMTRACE_SERVER ?? `ws://127.0.0.1:${DEFAULT_PORT}`;
}

function tokenOf(v) {
  return v.token ?? process.env.WASMTRACE_TOKEN ?? null;
}

/** Starts the router; resolves when it listens (it runs until close()). */
export async function serveCommand(v, io) {
  const port = v.port !== undefined ? Number(v.port) : DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: '${v.port}' is not a port number`);
  const router = await startRouter({
    host: v.host ?? '127.0.0.1',
    port,
    token: tokenOf(v),
    allowOrigins: v['allow-origin'] ?? [],
    log: (l) => io.out(`wasmtrace serve: ${l}`),
  });
  io.out(`wasmtrace serve: listening on ${router.url} (pages: ${router.url}/page, tools: ${router.url}/tool` +
    `${tokenOf(v) ? ', token required' : ''})`);
  if ((v.host ?? '127.0.0.1') !== '127.0.0.1' && !tokenOf(v)) {
    io.err('wasmtrace serve: warning: listening beyond 127.0.0.1 without --token: anyone who can reach this port can attach a tool');
  }
  return router;
}

/** `wasmtrace pages`: one line per connected page. */
export async function pagesCommand(v, io) {
  const tool = await connectTool(serverUrl(v), { token: tokenOf(v) });
  try {
    const { pages } = await tool.request({ type: 'list' });
    if (!pages.length) io.out('no pages connected');
    for (const p of pages) {
      const sessions = p.sessions.map((s) => `#${s.id} '${clean(s.name, 40)}' ${s.state}`).join(', ') || 'none';
      io.out(`${p.id}  ${clean(p.url, 200)}  wasmtrace ${clean(p.version, 20)}, ${p.threads} threads` +
        `${p.suspended ? ', SUSPENDED' : ''}; sessions: ${sessions}`);
    }
    return 0;
  } finally {
    tool.close();
  }
}

function targetOf(positionals, v) {
  if (v.first) return 'first';
  if (positionals.length !== 1) throw new Error('give one page id (see wasmtrace pages) or --first');
  return positionals[0];
}

/** `wasmtrace resume PAGE|--first`. */
export async function resumeCommand(positionals, v, io) {
  const tool = await connectTool(serverUrl(v), { token: tokenOf(v) });
  try {
    const r = await tool.request({ type: 'resume', page: targetOf(positionals, v) });
    io.out(`wasmtrace resume: ${r.page} resumed (it had waited ${Math.round(r.waited)} ms)`);
    return 0;
  } finally {
    tool.close();
  }
}

function fileName(session, format) {
  const base = session.output ? session.output.split('/').pop() : '';
  if (base && /^[\w.-]+$/.test(base)) return base;
  return `${session.name.replace(/[^\w.-]/g, '_') || 'remote'}.${format === 'folded' ? 'txt' : 'json'}.gz`;
}

/**
 * Collects one session per config session from one page, each streamed into
 * its own file under --out while it records; stops after --duration or on
 * SIGINT (Ctrl-C); prints the usual summary. `summarize` is cli.mjs's
 * summarizeSession. Resolves with the exit status.
 */
export async function collectCommand(positionals, v, io, { config, durationMs, summarize, url = serverUrl(v) }) {
  const outDir = resolve(v.out ?? 'wasmtrace-traces');
  mkdirSync(outDir, { recursive: true });
  const tool = await connectTool(url, { token: tokenOf(v) });
  const quiet = v.quiet;
  const say = (l) => quiet || io.err(`wasmtrace collect: ${l}`);
  let target = targetOf(positionals, v);
  const streams = [];
  try {
    if (target === 'first') say('waiting for a page to connect');
    for (const s of config.sessions) {
      const started = await tool.request({ type: 'start', page: target, config: s });
      target = started.page; // "first" resolved: every session on the same page
      if (started.session.state === 'failed' || started.stream === null) {
        // Failed, or recording without a stream (no memory for its ring):
        // nothing to collect here (the page keeps its VFS copy).
        streams.push({ started, result: null });
        continue;
      }
      const file = join(outDir, fileName(started.session, s.format));
      say(`${started.page}: session #${started.session.id} '${started.session.name}' streaming into ${file}`);
      streams.push({ started, file, result: streamToFile(tool, started, file), stats: null });
    }
    const byStream = new Map(streams.filter((x) => x.started.stream !== null).map((x) => [x.started.stream, x]));
    tool.onEvent((m) => {
      if (m.type === 'session' && byStream.has(m.stream)) byStream.get(m.stream).last = m.session;
    });
    if (v.resume) {
      const r = await tool.request({ type: 'resume', page: target });
      say(`${r.page} resumed (it had waited ${Math.round(r.waited)} ms)`);
    }
    // Until --duration, Ctrl-C, or every stream ended by itself (durationMs).
    let onSig;
    const live = streams.filter((x) => x.result);
    await Promise.race([
      durationMs !== undefined ? new Promise((r) => setTimeout(r, durationMs)) : new Promise(() => {}),
      new Promise((r) => { onSig = r; process.once('SIGINT', r); }),
      Promise.all(live.map((x) => x.result)),
    ]);
    process.off('SIGINT', onSig);
    for (const x of live) {
      await tool.request({ type: 'stop', page: target, session: x.started.session.id }).catch(() => {});
    }
    let timer;
    await Promise.race([
      Promise.all(live.map((x) => x.result)),
      new Promise((r) => { timer = setTimeout(r, STOP_TIMEOUT_MS); }),
    ]);
    clearTimeout(timer);
    // The page reports the final state (and stats) right after the last
    // frame, from its main thread: wait for it a little.
    const final = (x) => ['stopped', 'failed'].includes(x.last?.state);
    for (let waited = 0; waited < 2000 && !live.every(final); waited += 50) await new Promise((r) => setTimeout(r, 50));
  } finally {
    tool.close();
  }
  let status = 0;
  io.out('');
  io.out(`wasmtrace collect: ${streams.length} session(s) from ${target}`);
  for (const x of streams) {
    const s = x.last ?? x.started.session;
    if (!x.result) {
      io.out(summarize({ name: s.name, error: s.error ?? 'the page could not stream this session' }).join('\n'));
      status = 1;
      continue;
    }
    // A stream that has not ended by now is cut where it is.
    const r = await Promise.race([x.result, Promise.resolve(null)]);
    const bytes = readFileSync(x.file);
    const entry = { name: s.name, state: s.state, file: x.file, bytes, stats: s.stats ?? {}, stopMs: 0 };
    try {
      entry.profile = readProfile(bytes);
    } catch (e) {
      entry.parseError = e.message;
    }
    if (!r || !r.complete) {
      entry.state = `incomplete (${r ? r.error : 'the trace did not end in time'}; the file holds what came, readable up to its last flush)`;
      status = 1;
      if (entry.parseError) {
        io.out(`session '${s.name}': ${entry.state}, ${bytes.length} bytes in ${x.file}`);
        continue;
      }
    }
    io.out(summarize(entry).join('\n'));
  }
  return status;
}

/** The CI form: a router, the first page, resume, collect, exit. */
export async function onceCommand(v, io, opts) {
  const router = await serveCommand(v, { out: (l) => io.err(l), err: io.err });
  try {
    return await collectCommand([], { ...v, first: true, resume: true }, io, { ...opts, url: router.url });
  } finally {
    await router.close();
  }
}
