// Opens a profile with the Firefox Profiler's own importer, offline: the npm
// package @firefox-devtools/profiler-cli bundles the profiler's profile
// loading code (format detection, gzip, the processed-profile upgraders up
// to its current version, the call tree and marker selectors) behind a
// command line. Nothing of it is copied: it is run as a user would run it,
//   profiler-cli --daemon <file>; profiler-cli thread list --json; ...
// with a private session directory, and stopped afterwards. The daemon is
// started in the foreground form the CLI itself suggests (`load` gives a
// daemon it spawns 500 ms to become ready, too little on a loaded machine),
// and the test waits until it answers, for as long as loading can take.
//
// Where the CLI is found: $WASMTRACE_PROFILER_CLI (a path to its
// dist/profiler-cli.js), else the installed npm package. It declares
// Node >= 24 but runs on Node 20 for the commands used here.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

/** Path of the CLI's script, or null when it is not installed. */
export function profilerCliPath() {
  if (process.env.WASMTRACE_PROFILER_CLI) return process.env.WASMTRACE_PROFILER_CLI;
  try {
    const pkg = require.resolve('@firefox-devtools/profiler-cli/package.json');
    const main = JSON.parse(readFileSync(pkg, 'utf8')).bin?.['profiler-cli'] ?? 'dist/profiler-cli.js';
    return join(dirname(pkg), main);
  } catch {
    return null;
  }
}

function profilerCliVersion(cli = profilerCliPath()) {
  try {
    return JSON.parse(readFileSync(join(dirname(cli), '..', 'package.json'), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

/** The daemon's session file exists and is whole (it is written once). */
function sessionFileWritten(file) {
  if (!existsSync(file)) return false;
  try {
    JSON.parse(readFileSync(file, 'utf8'));
    return true;
  } catch {
    return false;
  }
}

/**
 * Loads a profile (gzip or plain, any format the Firefox Profiler imports)
 * and reads back, per thread, what the profiler's call tree shows.
 *
 * @param {Uint8Array|Buffer} bytes
 * @param {object} [o]
 * @param {string} [o.fileName]
 * @returns {Promise<{version: string, threads: Array<{handle: string,
 *   name: string, tid: string, markerCount: number, totalSamples: number,
 *   activeSamples: number, selfSamples: Array<[string, number]>,
 *   categories: Array<[string, number]>, strategyTotals: Array<[string, number]>|null}>,
 *   counters: string}>}
 */
export async function importWithFirefoxProfiler(bytes, { fileName = 'profile.json', timeoutMs = 120000, strategy = null } = {}) {
  const cli = profilerCliPath();
  if (!cli) throw new Error('@firefox-devtools/profiler-cli is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'wt-fxp-'));
  const file = join(dir, fileName);
  writeFileSync(file, bytes);
  // Unix socket paths are limited to 108 bytes: a short session directory.
  const sessionDir = join(dir, 's');
  const env = { ...process.env, PROFILER_CLI_SESSION_DIR: sessionDir };
  const session = 'wt';
  const pq = async (...args) => {
    const { stdout } = await run(process.execPath, [cli, ...args, '--session', session], { env, timeout: timeoutMs, maxBuffer: 64 << 20 });
    return stdout;
  };
  const daemon = spawn(process.execPath, [cli, '--daemon', file, '--session', session], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let daemonErr = '';
  daemon.stderr.on('data', (d) => { daemonErr += d; });
  let exited = null;
  daemon.once('exit', (code, signal) => { exited = { code, signal }; });
  try {
    // Ready when it lists the profile's threads: poll, bounded by timeoutMs.
    const deadline = Date.now() + timeoutMs;
    let list = null;
    let lastError = '';
    while (!list) {
      if (exited) throw new Error(`the profiler-cli daemon exited (${JSON.stringify(exited)}) while loading ${fileName}: ${daemonErr.trim()}`);
      if (Date.now() > deadline) {
        throw new Error(`the profiler-cli daemon did not answer within ${timeoutMs} ms for ${fileName}: ${lastError || daemonErr.trim()}`);
      }
      // No client before the daemon has published its session file: a
      // client that finds none "cleans up" the session, deleting the socket
      // and the metadata the daemon may be writing at that very moment,
      // and the daemon is then unreachable for good (profiler-cli 0.10).
      if (!sessionFileWritten(join(sessionDir, `${session}.json`))) {
        lastError = 'no session file yet';
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      try {
        list = JSON.parse(await pq('thread', 'list', '--json', '--limit', '10000'));
      } catch (e) {
        lastError = String(e.stderr || e.message).trim().split('\n')[0];
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const threads = [];
    for (const t of list.threads) {
      const all = JSON.parse(await pq('thread', 'samples', '--thread', t.threadHandle, '--include-idle', '--json', '--limit', '100000'));
      const active = JSON.parse(await pq('thread', 'samples', '--thread', t.threadHandle, '--json', '--limit', '1'));
      threads.push({
        handle: t.threadHandle,
        name: t.name,
        tid: t.tid,
        markerCount: t.markerCount,
        totalSamples: all.categoryBreakdown.totalSamples,
        activeSamples: active.categoryBreakdown.totalSamples,
        selfSamples: all.topFunctionsBySelf.filter((f) => f.selfSamples > 0).map((f) => [f.name, f.selfSamples]),
        categories: all.categoryBreakdown.categories.map((c) => [c.name, c.samples]),
        // With a strategy (e.g. native-retained-allocations): the
        // profiler's own totals per function under it (bytes for the
        // allocation strategies).
        strategyTotals: strategy
          ? JSON.parse(await pq('thread', 'samples', '--thread', t.threadHandle, '--strategy', strategy, '--json', '--limit', '100000'))
            .topFunctionsByTotal.map((f) => [f.name, f.totalSamples])
          : null,
      });
    }
    const counters = await pq('counter', 'list');
    return { version: profilerCliVersion(cli), threads, counters };
  } finally {
    await run(process.execPath, [cli, 'stop', '--all'], { env, timeout: timeoutMs }).catch(() => {});
    if (!exited) daemon.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
