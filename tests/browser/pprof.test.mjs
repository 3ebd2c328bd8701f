// The demo's trace as pprof opens in speedscope's own pprof importer
// (tests/lib/speedscope.mjs: its shipped web app in headless Chromium) with
// the same top functions as `wasmtrace report`: the demo's command records
// the sample, `wasmtrace report --thread main` prints its table, and
// `wasmtrace convert --to pprof` writes the file speedscope imports, one
// thread and all of them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { functionTable, isJsProfileThread, readProfile, weightToMs } from '../../lib/profile.mjs';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { importWithSpeedscope } from '../lib/speedscope.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(join(tmpdir(), 'wasmtrace-pprof-'));
const trace = join(dir, 'startup.json.gz');

const wasmtrace = (...args) => new Promise((ok) => {
  execFile(process.execPath, [join(root, 'bin/wasmtrace.mjs'), ...args], { maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
    ok({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr, all: `${stdout}\n${stderr}` });
  });
});

/** The "by self time" rows of one thread in report's text: [{ name, ms }]. */
function reportTop(text, thread) {
  const at = text.indexOf(`thread '${thread}'`);
  const lines = text.slice(at).split('\n');
  const from = lines.findIndex((l) => l.trim() === 'by self time:') + 2;
  const rows = [];
  for (const l of lines.slice(from)) {
    const m = /^\s+([\d.]+)\s+[\d.]+%\s+[\d.]+\s+[\d.]+\s+[\d.]+%\s+(.+)$/.exec(l);
    if (!m) break;
    rows.push({ name: m[2], ms: Number(m[1]) });
  }
  return rows;
}

describe('wasmtrace convert --to pprof, opened in speedscope', () => {
  let profile;
  before(async () => {
    // The demo's command (scripts/demo.mjs).
    const r = await wasmtrace('record', join(wasmBuildDir, 'samples/startup'), '--wait-for', 'window.sampleStartupComplete === true',
      '--out', dir, '--load-timeout', '120s', '--timeout', '120s', '--browser', 'chromium');
    assert.equal(r.status, 0, r.all);
    profile = readProfile(readFileSync(trace));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('one thread: speedscope\'s top self functions are report\'s, to the millisecond', async (t) => {
    const rep = await wasmtrace('report', trace, '--thread', 'main', '--top', '5');
    assert.equal(rep.status, 0, rep.all);
    // Up to five: the main thread's self time is in four to six functions,
    // the smallest a few ms, which a run may not sample at all.
    const top = reportTop(rep.stdout, 'main');
    assert.ok(top.length >= 3 && top.length <= 5, rep.stdout);
    const c = await wasmtrace('convert', trace, '--to', 'pprof', '--thread', 'main', '-o', join(dir, 'main.pb.gz'));
    assert.equal(c.status, 0, c.all);
    const ss = await importWithSpeedscope(readFileSync(join(dir, 'main.pb.gz')), { fileName: 'main.pb.gz' });
    t.diagnostic(`speedscope ${ss.version}: "Importing as ${ss.importer}"; report: ${top.map((r) => `${r.name} ${r.ms}`).join(', ')}`);
    assert.match(ss.importer, /pprof/);
    assert.equal(ss.profiles.length, 1);
    const [p] = ss.profiles;
    assert.equal(p.unit, 'nanoseconds');
    // The same ones with the same time, in the same order (functions with
    // equal time may be listed in either order).
    const ms = (ns) => Math.round(ns / 1e5) / 10;
    const theirs = new Map(p.selfWeights.map(([name, ns]) => [name, ms(ns)]));
    for (const r of top) assert.equal(theirs.get(r.name), r.ms, `${r.name} in speedscope`);
    assert.deepEqual(p.selfWeights.slice(0, top.length).map(([, ns]) => ms(ns)), top.map((r) => r.ms));
  });

  test('every thread: speedscope\'s self time per function is the sum of every app thread\'s table', async () => {
    const c = await wasmtrace('convert', trace, '--to', 'pprof', '-o', join(dir, 'all.pb.gz'));
    assert.equal(c.status, 0, c.all);
    // The JS profile's threads ("main (JS)", "worker N (JS)") are the
    // browser's view of the same threads: left out, and said (issue 38).
    const app = profile.threads.filter((th) => !isJsProfileThread(th.name));
    const js = profile.threads.filter((th) => isJsProfileThread(th.name));
    assert.match(c.stdout, new RegExp(`pprof CPU profile of ${app.length} threads`));
    if (js.length) assert.match(c.stdout, /left out: 'main \(JS\)'.*the browser's view of the same threads/);
    const ss = await importWithSpeedscope(readFileSync(join(dir, 'all.pb.gz')), { fileName: 'all.pb.gz' });
    const ours = new Map();
    for (const th of app) {
      for (const r of functionTable(th)) if (r.self) ours.set(r.name, (ours.get(r.name) ?? 0) + r.self);
    }
    const theirs = new Map(ss.profiles[0].selfWeights);
    assert.equal(theirs.size, ours.size);
    for (const [name, w] of ours) assert.equal(theirs.get(name), Math.round(weightToMs(profile, w) * 1e6), name);
  });
});
