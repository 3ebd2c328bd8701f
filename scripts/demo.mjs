// npm run demo: record the sample app's startup in headless Chromium and
// write the trace under out/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordPage } from './lib/record.mjs';
import { analyzeTrace, parseTrace, summarize } from './lib/trace.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const variant = process.argv[2] || 'startup';
const sampleDir = join(root, 'build/wasm/samples', variant);
const outDir = join(root, 'out');

const t0 = Date.now();
const result = await recordPage({ dir: sampleDir, log: (m) => console.log(`wasmtrace demo: ${m}`) });
mkdirSync(outDir, { recursive: true });
let failed = false;
for (const s of result.sessions) {
  if (s.error || !s.bytes) {
    console.error(`wasmtrace demo: session '${s.name}' failed: ${s.error}`);
    failed = true;
    continue;
  }
  const file = join(outDir, `${s.name}.json.gz`);
  writeFileSync(file, s.bytes);
  const analysis = analyzeTrace(parseTrace(s.bytes));
  console.log('');
  console.log(summarize(analysis));
  const first = Math.min(...analysis.threads.filter((t) => t.samples.length).map((t) => t.samples[0].ts));
  console.log(`first sample ${(first / 1000).toFixed(1)} ms after navigation start; stop() took ${s.stopMs.toFixed(1)} ms`);
  console.log('');
  console.log(`trace: ${relative(process.cwd(), file)} (${s.bytes.length} bytes gzip)`);
  console.log('open it in:');
  console.log('  - Perfetto UI: https://ui.perfetto.dev -> "Open trace file"');
  console.log('  - Chrome DevTools: Performance panel -> "Load profile..." (the .gz file as is)');
  console.log(`  - speedscope: npx speedscope ${relative(process.cwd(), file)}`);
}
if (!result.sessions.length) {
  console.error('wasmtrace demo: the page has no startup sessions');
  failed = true;
}
console.log(`\nwasmtrace demo: done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);
