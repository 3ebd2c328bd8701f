// The package's .d.ts files are checked (issue 27): a consumer file that
// uses every documented API (tests/types/consumer.ts) compiles with
// `tsc --noEmit --strict` against them, imported by the package's own name
// through its "exports"; a type error in a .d.ts fails that check (shown on
// a copy with one declaration broken); every value the modules export at
// run time is declared; and the config types have every key of the JSON
// schema.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const ts = require('typescript');
const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin/tsc');
const scratch = mkdtempSync(join(tmpdir(), 'wasmtrace-types-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const runTsc = (project) => spawnSync(process.execPath, [tsc, '-p', project, '--pretty', 'false'], { encoding: 'utf8' });

/** A copy of the package's declarations and the consumer, with edit(text, file) applied to one .d.ts. */
function brokenCopy(name, file, edit) {
  const dir = join(scratch, name);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  mkdirSync(join(dir, 'lib'), { recursive: true });
  mkdirSync(join(dir, 'js'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: pkg.name, type: pkg.type, exports: pkg.exports, types: pkg.types }));
  for (const f of ['lib/index.d.ts', 'js/playwright.d.ts', 'js/trace-assertions.d.ts', 'js/wasmtrace.d.ts']) {
    const text = readFileSync(join(root, f), 'utf8');
    writeFileSync(join(dir, f), f === file ? edit(text) : text);
  }
  cpSync(join(root, 'tests/types'), join(dir, 'tests/types'), { recursive: true });
  return join(dir, 'tests/types');
}

describe('the .d.ts files', () => {
  test('the consumer of every documented API compiles with tsc --noEmit --strict', () => {
    const config = JSON.parse(readFileSync(join(root, 'tests/types/tsconfig.json'), 'utf8'));
    assert.equal(config.compilerOptions.strict, true);
    assert.equal(config.compilerOptions.noEmit, true);
    assert.equal(config.compilerOptions.skipLibCheck, false);
    const r = runTsc(join(root, 'tests/types'));
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  });

  test('a declaration that no longer matches its use fails the check, naming the consumer', () => {
    const project = brokenCopy('wrong-return', 'lib/index.d.ts',
      (t) => t.replace('export function functionTable(thread: ProfileThread): FunctionRow[];', 'export function functionTable(thread: ProfileThread): FunctionRow;'));
    const r = runTsc(project);
    assert.notEqual(r.status, 0);
    assert.match(r.stdout, /consumer\.ts\(\d+,\d+\): error TS\d+/);
  });

  test('a type error inside a .d.ts fails the check, naming that file', () => {
    const project = brokenCopy('bad-dts', 'js/wasmtrace.d.ts', (t) => t.replace('stats(): WasmtraceStats;', 'stats(): WasmtraceStatz;'));
    const r = runTsc(project);
    assert.notEqual(r.status, 0);
    assert.match(r.stdout, /js\/wasmtrace\.d\.ts\(\d+,\d+\): error TS2552: Cannot find name 'WasmtraceStatz'/);
  });

  /** The names a module's declaration file exports (values and types). */
  function declaredExports(file) {
    const program = ts.createProgram([join(root, file)], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true });
    const checker = program.getTypeChecker();
    const sf = program.getSourceFile(join(root, file));
    return new Set(checker.getExportsOfModule(checker.getSymbolAtLocation(sf)).map((s) => s.name));
  }

  for (const [spec, file] of [['../../lib/index.mjs', 'lib/index.d.ts'], ['../../js/playwright.mjs', 'js/playwright.d.ts']]) {
    test(`every value ${file.replace(/\.d\.ts$/, '.mjs')} exports is declared in ${file}`, async () => {
      const declared = declaredExports(file);
      const missing = Object.keys(await import(spec)).filter((name) => !declared.has(name));
      assert.deepEqual(missing, []);
    });
  }

  test('the config types have every key of config/wasmtrace.schema.json', () => {
    const schema = JSON.parse(readFileSync(join(root, 'config/wasmtrace.schema.json'), 'utf8'));
    const sf = ts.createSourceFile('wasmtrace.d.ts', readFileSync(join(root, 'js/wasmtrace.d.ts'), 'utf8'), ts.ScriptTarget.ES2022, true);
    const members = (name) => {
      const decl = sf.statements.find((s) => ts.isInterfaceDeclaration(s) && s.name.text === name);
      assert.ok(decl, `js/wasmtrace.d.ts has no interface ${name}`);
      return decl.members.map((m) => m.name.getText(sf).replace(/^'|'$/g, '')).sort();
    };
    assert.deepEqual(members('WasmtraceConfig'), Object.keys(schema.properties).sort());
    assert.deepEqual(members('WasmtraceSessionConfig'), Object.keys(schema.properties.sessions.items.properties ?? resolveRef(schema, schema.properties.sessions.items)).sort());
    assert.deepEqual(members('WasmtraceServerConfig'), Object.keys(schema.properties.server.properties).sort());
  });
});

function resolveRef(schema, node) {
  const ref = node.$ref?.replace(/^#\//, '').split('/');
  let at = schema;
  for (const k of ref ?? []) at = at[k];
  return at.properties;
}
