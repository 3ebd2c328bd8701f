// npm run demo: record the sample app's startup in headless Chromium with
// `wasmtrace record`, write the trace under out/, then read it back with
// `wasmtrace report` (terminal tables and an HTML flame graph page). The
// sample page sets its own config (one startup session) and says when its
// startup is over (window.sampleStartupComplete). The commands are printed
// as a user would type them.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const variant = process.argv[2] || 'startup';
// WASMTRACE_WASM_BUILD: the wasm tree to take the sample from (build.sh's).
const sampleDir = join(resolve(root, process.env.WASMTRACE_WASM_BUILD || 'build/wasm'), 'samples', variant);
const outDir = join(root, 'out');
const cli = join(root, 'bin/wasmtrace.mjs');
const rel = (p) => relative(process.cwd(), p) || '.';

function wasmtrace(args) {
  const shown = args.map((a) => (/[\s"'=]/.test(a) ? `'${a}'` : a)).join(' ');
  console.log(`\n$ wasmtrace ${shown}`);
  const r = spawnSync(process.execPath, [cli, ...args], { stdio: 'inherit' });
  return r.status ?? 1;
}

const t0 = Date.now();
// Builds what it runs: the library and this sample (scripts/build.sh demo),
// not the tests and benchmarks of the tree (npm test builds those).
if (!/^startup(_[a-z0-9]+)?$/.test(variant)) {
  console.error(`wasmtrace demo: '${variant}' is not a sample (startup, startup_instrumented, startup_lean)`);
  process.exit(2);
}
console.log(`$ bash scripts/build.sh demo ${variant}`);
const built = spawnSync('bash', [join(root, 'scripts/build.sh'), 'demo', variant], { stdio: 'inherit' });
if (built.status !== 0 || !existsSync(join(sampleDir, 'index.html'))) {
  console.error(`wasmtrace demo: building the sample ${variant} failed${built.status === 0 ? ` (no ${rel(sampleDir)}/index.html)` : ''}`);
  process.exit(1);
}
console.log(`wasmtrace demo: built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
const trace = join(outDir, 'startup.json.gz');
const html = join(outDir, 'startup.html');
let status = wasmtrace(['record', rel(sampleDir), '--wait-for', 'window.sampleStartupComplete === true', '--out', rel(outDir)]);
if (status === 0) status = wasmtrace(['report', rel(trace), '--top', '5', '--html', rel(html)]);
if (status === 0) {
  console.log('');
  console.log(`trace: ${rel(trace)}`);
  console.log('open it in:');
  console.log(`  - the report page: ${rel(html)} (flame graph per thread, offline)`);
  console.log('  - Perfetto UI: https://ui.perfetto.dev -> "Open trace file"');
  console.log('  - Chrome DevTools: Performance panel -> "Load profile..." (the .gz file as is)');
  console.log(`  - speedscope: npx speedscope ${rel(trace)}`);
}
console.log(`\nwasmtrace demo: ${status === 0 ? 'done' : 'FAILED'} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exit(status);
