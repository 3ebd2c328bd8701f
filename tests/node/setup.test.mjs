// What each npm script's set-up installs (scripts/setup.sh --dry-run prints
// the plan and changes nothing): `npm run demo` asks only for what the demo
// uses (no Firefox, no second Emscripten, no fuzz toolchain), `npm run bench`
// adds what the benchmark uses, `npm test` asks for everything.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts;

/** The arguments an npm script gives scripts/setup.sh. */
function setupArgs(script) {
  const m = /bash scripts\/setup\.sh((?: [a-z0-9-]+)*?)(?: &&|$)/.exec(scripts[script] ?? '');
  assert.ok(m, `npm run ${script} does not run scripts/setup.sh: ${scripts[script]}`);
  return m[1].trim().split(/\s+/).filter(Boolean);
}

/** What that set-up would install, everything listed whether present or not. */
function plan(script) {
  const env = { ...process.env };
  delete env.WASMTRACE_SKIP_SETUP;
  delete env.WASMTRACE_SKIP_NEXT;
  delete env.WASMTRACE_SKIP_6;
  const out = execFileSync('bash', [join(root, 'scripts/setup.sh'), ...setupArgs(script), '--dry-run'], {
    cwd: root, encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const debs = /Debian packages needed: (.*); present: (.*)/.exec(out);
  assert.ok(debs, `no package line in: ${out}`);
  const list = (s) => (s === 'none' ? [] : s.split(' '));
  return { out, debs: [...list(debs[1]), ...list(debs[2])], next: /Emscripten 3\.1\.69/.test(out), six: /Emscripten 6\.x/.test(out) };
}

const DEMO = ['emscripten', 'cmake', 'make', 'chromium', 'dpkg-dev'];
const BENCH = [...DEMO, 'gcc', 'libcjson-dev', 'zlib1g-dev', 'firefox-esr'];
const ALL = [...BENCH, 'clang', 'libclang-rt-14-dev', 'node-acorn', 'mmdebstrap'];

test('npm run demo installs only what the demo uses: no Firefox, no Emscripten 3.1.69', () => {
  const p = plan('demo');
  assert.deepEqual(p.debs.sort(), [...DEMO].sort(), p.out);
  assert.equal(p.next, false, p.out);
  assert.equal(p.six, false, p.out);
  assert.match(p.out, /cJSON and zlib sources/);
  assert.match(p.out, /npm packages/);
});

test('npm run bench adds the host compiler and Firefox (its Firefox section), not Emscripten 3.1.69 or 6.x', () => {
  const p = plan('bench');
  assert.deepEqual(p.debs.sort(), [...BENCH].sort(), p.out);
  assert.equal(p.next, false, p.out);
  assert.equal(p.six, false, p.out);
});

test('npm test installs everything: both browsers, the fuzz toolchain, Emscripten 3.1.69 and 6.x', () => {
  const p = plan('test');
  assert.deepEqual(p.debs.sort(), [...ALL].sort(), p.out);
  assert.equal(p.next, true, p.out);
  assert.equal(p.six, true, p.out);
});
