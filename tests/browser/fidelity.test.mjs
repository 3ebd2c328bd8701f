// Fidelity: with every function instrumented, the sampled self-time shares
// match the known truth (50/30/20 of each thread's time) within 3 points, on
// the main thread (busy without yielding the whole time) and on two pthreads.
import assert from 'node:assert/strict';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { recordPage } from '../../scripts/lib/record.mjs';
import { analyzeTrace, parseTrace } from '../../scripts/lib/trace.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TRUTH = { fid_outer: 50, fid_middle: 30, fid_inner: 20 };
const TOLERANCE_PP = 3;

test('self-time shares are within 3 percentage points of the truth on every thread', async () => {
  const rec = await recordPage({ dir: join(root, 'build/wasm/tests/fidelity'), waitFor: 'self.fidelityDone === true' });
  const analysis = analyzeTrace(parseTrace(rec.sessions[0].bytes));
  const workers = analysis.threads.filter((t) => t.samples.some((s) => s.stack.includes('run_workload')));
  assert.equal(workers.length, 3, `threads running the workload: ${workers.map((t) => t.name)}`);
  const report = [];
  for (const t of workers) {
    const inWorkload = t.samples.filter((s) => s.stack.includes('run_workload'));
    assert.ok(inWorkload.length >= 2000, `${t.name}: only ${inWorkload.length} samples in 2.5 s at 1 kHz`);
    for (const s of inWorkload.filter((x) => x.stack.includes('fid_inner'))) {
      // Nesting as called: run_workload > fid_outer > fid_middle > fid_inner.
      const i = s.stack.indexOf('run_workload');
      assert.deepEqual(s.stack.slice(i, i + 4), ['run_workload', 'fid_outer', 'fid_middle', 'fid_inner']);
    }
    for (const [fn, truth] of Object.entries(TRUTH)) {
      const self = inWorkload.filter((s) => s.stack[s.stack.length - 1] === fn).length;
      const share = (100 * self) / inWorkload.length;
      report.push(`${t.name} ${fn}: ${share.toFixed(2)}% (truth ${truth}%, error ${(share - truth).toFixed(2)} pp)`);
      assert.ok(Math.abs(share - truth) <= TOLERANCE_PP, report.join('\n'));
    }
  }
  console.log(report.join('\n'));
});
