// An app linked without wasmtrace's pthread wrappers (-Wl,--wrap=pthread_create
// -Wl,--wrap=emscripten_futex_wait) shows only the threads that call wasmtrace
// and no waiting (issue 23): the trace says so ("pthreadsWrapped": false in
// the session record), `wasmtrace record`'s summary and `wasmtrace report`
// print one line about it, and the page's console has it once. The same app
// linked with the wrappers (the CMake target's default) gets none of it.
// tests/waiting: waiting (with the wrappers) and nowrap/ (WASMTRACE_THREADS OFF).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readProfile } from '../../lib/profile.mjs';
import { WRAP_LINE } from '../../lib/report.mjs';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { recordPage } from '../lib/record.mjs';
import { recordArgs } from '../lib/test-browser.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'bin/wasmtrace.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'wasmtrace-wraps-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function wasmtrace(...args) {
  return new Promise((ok) => {
    execFile(process.execPath, [cli, ...args], { cwd: root, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      ok({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

const BUILDS = [
  { name: 'linked without the wrappers', dir: join(wasmBuildDir, 'tests/waiting/nowrap'), wrapped: false },
  { name: 'linked with the wrappers', dir: join(wasmBuildDir, 'tests/waiting'), wrapped: true },
];

for (const b of BUILDS) {
  describe(`an app ${b.name}`, () => {
    test(`the trace says so and the page's console ${b.wrapped ? 'has no' : 'has one'} line about it`, async () => {
      const rec = await recordPage({ dir: b.dir, waitFor: 'self.waitingDone === true' });
      const s = rec.sessions[0];
      assert.equal(s.state, 'stopped', `${s.state}: ${s.error ?? ''}`);
      const profile = readProfile(s.bytes);
      assert.equal(profile.session.pthreadsWrapped, b.wrapped);
      const lines = rec.console.filter((l) => l.includes(WRAP_LINE));
      assert.equal(lines.length, b.wrapped ? 0 : 1, rec.console.join('\n'));
      if (!b.wrapped) {
        // What the line warns of: no waiting, and the never-instrumented
        // thread is missing.
        assert.equal(profile.threads.some((t) => t.samples.some((x) => x.stack.at(-1) === '(waiting)')), false);
      }
    });

    test(`record's summary and report ${b.wrapped ? 'do not print' : 'print'} the line`, async () => {
      const out = join(tmp, b.wrapped ? 'wrapped' : 'nowrap');
      const r = await wasmtrace('record', b.dir, '--wait-for', 'self.waitingDone === true', '--out', out,
        '--load-timeout', '120s', '--timeout', '120s', ...recordArgs);
      assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
      assert.equal(r.stdout.split('\n').filter((l) => l.includes(WRAP_LINE)).length, b.wrapped ? 0 : 1, r.stdout);
      const [file] = readdirSync(out).filter((f) => f.endsWith('.json.gz'));
      const rep = await wasmtrace('report', join(out, file));
      assert.equal(rep.status, 0, rep.stderr);
      assert.equal(rep.stdout.split('\n').filter((l) => l === WRAP_LINE).length, b.wrapped ? 0 : 1, rep.stdout);
    });
  });
}
