// The Emscripten port file (port/wasmtrace.py) under hostile package paths
// and option values (issue 38 class 12), run by the system's python3 as
// emcc would import it (no emcc needed: only the module's own code).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = mkdtempSync(join(tmpdir(), 'wasmtrace-port-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const python = spawnSync('python3', ['--version']).status === 0;

// The package's port, native sources, link contract (cmake/) and package.json under `dir`.
function packageAt(dir) {
  mkdirSync(dir, { recursive: true });
  for (const p of ['port', 'native', 'cmake', 'package.json']) cpSync(join(root, p), join(dir, p), { recursive: true });
  return join(dir, 'port', 'wasmtrace.py');
}
function run(port, code) {
  const script = `import importlib.util, json, sys
spec = importlib.util.spec_from_file_location('wasmtrace_port', ${JSON.stringify(port)})
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
${code}`;
  const r = spawnSync('python3', ['-c', script], { encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('a package path with glob characters still finds every source', { skip: !python && 'no python3' }, () => {
  const plain = run(packageAt(join(tmp, 'plain')), 'print(json.dumps(m.SOURCES))');
  assert.ok(plain.length > 10, `${plain.length} sources`);
  for (const dir of ['we[ir]d', 'st*r', 'q?m']) {
    assert.deepEqual(run(packageAt(join(tmp, dir, 'pkg')), 'print(json.dumps(m.SOURCES))'), plain, dir);
  }
});

test('a bad option value is not kept when the error handler returns', { skip: !python && 'no python3' }, () => {
  const got = run(packageAt(join(tmp, 'opts')), `errors = []
m.handle_options({'instrument': 'bogus', 'heap': '2', 'server': '1'}, errors.append)
print(json.dumps({'opts': m.opts, 'errors': errors}))`);
  assert.deepEqual(got.opts, { instrument: 'none', heap: '0', server: '1', formats: '0' });
  assert.equal(got.errors.length, 2);
  assert.match(got.errors[0], /instrument=bogus: expected one of none, after-inlining, full/);
});
