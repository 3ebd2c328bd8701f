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
  return `${session.name.replace(/[^\w.-]/g, '_') || 'remote'}.${format === 'folded' ? 'folded' : 'json'}.gz`;
}

/**
 * Collects one session per config session from one page, each streamed into
 * its own file under --out while it records; stops after --duration or on
 * SIGINT (Ctrl-C; a second one stops waiting for the page); prints the usual
 * summary. `summarize` is cli.mjs's summarizeSession. Resolves with the
 * exit status. Every stream ends written: complete, or cut where it was.
 */
export async function collectCommand(positionals, v, io, { config, durationMs, summarize, url = serverUrl(v) }) {
  const outDir = resolve(v.out ?? 'wasmtrace-traces');
  mkdirSync(outDir, { recursive: true });
  const tool = await connectTool(url, { token: tokenOf(v) });
  const quiet = v.quiet;
  const say = (l) => quiet || io.err(`wasmtrace collect: ${l}`);
  let target = targetOf(positionals, v);
  const streams = [];
  // Ctrl-C: the first ends the recording (the sessions are stopped and
  // their traces completed), a second stops waiting for the page.
  let interrupts = 0;
  let onInterrupt = () => {};
  const interrupted = new Promise((r) => { onInterrupt = r; });
  let onSecond = () => {};
  const second = new Promise((r) => { onSecond = r; });
  const onSig = () => {
    interrupts++;
    if (interrupts === 1) {
      say('interrupted: stopping the sessions (Ctrl-C again to stop waiting for them)');
      onInterrupt();
    } else {
      onSecond();
    }
  };
  process.on('SIGINT', onSig);
  try {
    if (target === 'first') say('waiting for a page to connect');
    // Every start goes at once, then the resume: a page that is held
    // (suspended, or not started yet) answers a start only once its runtime
    // is up and the session really started (with its real id,
    // docs/PROTOCOL.md), which needs the resume first. The router sends a
    // tool's "first" requests to one page.
    const asks = config.sessions.map((s) => tool.request({ type: 'start', page: target, config: s })
      .then((started) => ({ s, started }), (error) => ({ s, error })));
    const resumed = v.resume ? tool.request({ type: 'resume', page: target }).then((r) => r, (error) => ({ error })) : null;
    const answers = await Promise.race([Promise.all(asks), interrupted.then(() => null)]);
    if (resumed) {
      const r = await Promise.race([resumed, interrupted.then(() => null)]);
      if (r && !r.error) say(`${r.page} resumed (it had waited ${Math.round(r.waited)} ms)`);
      else if (r?.error) say(`could not resume the page: ${r.error.message}`);
    }
    for (const a of answers ?? []) {
      if (a.error) {
        streams.push({ name: a.s.name ?? 'remote', error: a.error.message, result: null });
        continue;
      }
      const { started } = a;
      target = started.page; // "first" resolved: every session on the same page
      if (started.session.state === 'failed' || started.stream === null) {
        // Failed, or recording without a stream (no memory for its ring):
        // nothing to collect here (the page keeps its VFS copy).
        streams.push({ started, result: null });
        continue;
      }
      const file = join(outDir, fileName(started.session, a.s.format));
      say(`${started.page}: session #${started.session.id} '${started.session.name}' streaming into ${file}`);
      streams.push({ started, file, result: streamToFile(tool, started, file), stats: null });
    }
    if (!answers) say('interrupted before the page answered');
    const byStream = new Map(streams.filter((x) => x.started && x.started.stream !== null).map((x) => [x.started.stream, x]));
    tool.onEvent((m) => {
      if (m.type === 'session' && byStream.has(m.stream)) byStream.get(m.stream).last = m.session;
    });
    // Until --duration (from the sessions' start), Ctrl-C, or every stream
    // ended by itself (durationMs).
    const live = streams.filter((x) => x.result);
    let timer;
    await Promise.race([
      durationMs !== undefined ? new Promise((r) => { timer = setTimeout(r, durationMs); }) : new Promise(() => {}),
      interrupted,
      Promise.all(live.map((x) => x.result)),
    ]);
    clearTimeout(timer);
    for (const x of live) {
      await tool.request({ type: 'stop', page: target, session: x.started.session.id })
        .catch((e) => { x.stopError = e.message; });
    }
    // The page completes each stopped stream; one it could not stop is cut
    // now (its file holds what came).
    for (const x of live) if (x.stopError) x.result.cut(`the page could not stop the session: ${x.stopError}`);
    await Promise.race([
      Promise.all(live.map((x) => x.result)),
      new Promise((r) => { timer = setTimeout(r, STOP_TIMEOUT_MS); }),
      second,
    ]);
    clearTimeout(timer);
    // The page reports the final state (and stats) right after the last
    // frame, from its main thread: wait for it a little.
    const final = (x) => ['stopped', 'failed'].includes(x.last?.state);
    for (let waited = 0; waited < 2000 && interrupts < 2 && !live.every(final); waited += 50) await new Promise((r) => setTimeout(r, 50));
    for (const x of live) x.result.cut(interrupts > 1 ? 'interrupted (Ctrl-C) before the trace ended' : 'the trace did not end in time');
    await Promise.all(live.map((x) => x.result));
  } finally {
    process.off('SIGINT', onSig);
    tool.close();
  }
  let status = 0;
  io.out('');
  io.out(`wasmtrace collect: ${streams.length} session(s) from ${target}`);
  for (const x of streams) {
    if (x.error) {
      io.out(summarize({ name: x.name, error: x.error }).join('\n'));
      status = 1;
      continue;
    }
    const s = x.last ?? x.started.session;
    if (!x.result) {
      io.out(summarize({ name: s.name, error: s.error ?? 'the page could not stream this session' }).join('\n'));
      status = 1;
      continue;
    }
    const r = await x.result;
    const bytes = readFileSync(x.file);
    // A complete stream is a stopped session, even when the page's main
    // thread was too busy to report the state (the stop needs no main thread).
    const state = r.complete && !['stopped', 'failed'].includes(s.state) ? 'stopped' : s.state;
    const entry = { name: s.name, state, file: x.file, bytes, stats: s.stats ?? {}, stopMs: 0 };
    try {
      entry.profile = readProfile(bytes);
    } catch (e) {
      entry.parseError = e.message;
    }
    if (!r.complete) {
      entry.state = `incomplete (${r.error}; the file holds what came, readable up to its last flush)`;
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
