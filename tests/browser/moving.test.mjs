// No sample lost to a moving stack (issue 16), in headless Chromium with a
// -finstrument-functions build (tests/moving): a pthread calls tiny
// functions in a tight loop, 7 deep, with a known call structure, while a
// session samples at 10 kHz. Every stack the trace keeps must be one the
// thread had (a prefix of a known path, as the hooks push it) or such a
// prefix marked "(partial stack)", and at most 0.5 % of the samples taken
// may be lost. Both are invariants of the copy protocol: a loaded machine
// that deschedules the mover only makes its stack hold still, and the page
// stops the mover by sample count, not by time.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { recordPage } from '../lib/record.mjs';
import { MARKERS, readProfile } from '../../lib/profile.mjs';

const PATHS = [
  ['mover_main', 'main_loop', 'work', 'sort_pass', 'cmp', 'less', 'leaf'],
  ['mover_main', 'main_loop', 'work', 'format_pass', 'leaf'],
];
const SAMPLES = 6000;

/** 'true', 'partial' or a reason why the stack never existed. */
function judge(stack) {
  const partial = stack.at(-1) === MARKERS.partial;
  const frames = partial ? stack.slice(0, -1) : stack;
  if (frames.includes(MARKERS.partial)) return 'a marker that is not the leaf';
  const fits = PATHS.some((p) => frames.length <= p.length && frames.every((f, i) => f === p[i]));
  if (!fits) return 'not a path of the call structure';
  return partial ? 'partial' : 'true';
}

test('every kept stack of a thread that never stops calling is one it had, or its marked prefix; lost <= 0.5 %', async () => {
  const config = JSON.stringify({ sessions: [{ name: 'moving', sampling: { intervalUs: 100 }, counters: { enabled: false }, maxBufferKB: 32768 }] });
  const rec = await recordPage({
    dir: join(wasmBuildDir, 'tests/moving'),
    path: `index.html?config=${encodeURIComponent(config)}`,
    // (Module.wasmtrace throws until the runtime is initialized.)
    waitFor: `(() => { try { const s = Module.wasmtrace.getStartupSessions()[0]; return !!s && s.stats().samplesTaken >= ${SAMPLES}; } catch (e) { return false; } })()`,
    timeoutMs: 180000,
    beforeStop: async (page) => {
      await page.evaluate(() => Module._moving_stop());
      await page.waitForFunction(() => Module._moving_done() === 1, null, { timeout: 60000, polling: 20 });
    },
  });
  const [s] = rec.sessions;
  assert.ok(s?.bytes, `no trace: ${s?.error}`);
  const profile = readProfile(s.bytes);
  const mover = profile.threads.find((t) => t.name === 'mover');
  assert.ok(mover, `threads: ${profile.threads.map((t) => t.name)}`);
  const counts = { true: 0, partial: 0 };
  const wrong = new Map();
  for (const x of mover.samples) {
    const v = judge(x.stack);
    if (v in counts) counts[v]++;
    else wrong.set(x.stack.join(' > '), v);
  }
  const st = s.stats;
  const lost = st.samplesDropped;
  const line = `${st.samplesTaken} taken, ${lost} lost (${st.samplesDroppedTornStack} torn); mover: ${mover.samples.length} ` +
    `samples, ${counts.partial} partial (${((100 * counts.partial) / mover.samples.length).toFixed(2)} %)`;
  console.log(`# ${line}`);
  assert.deepEqual([...wrong].slice(0, 5), [], `stacks the thread never had (${line})`);
  assert.ok(mover.samples.length >= SAMPLES / 4, line); // the mover was really sampled
  // ... inside its loop (it spends all its time there): not a vacuous pass.
  const inLoop = mover.samples.filter((x) => x.stack.includes('work')).length;
  assert.ok(inLoop * 2 >= mover.samples.length, `${inLoop} samples inside work: ${line}`);
  assert.ok(lost * 200 <= st.samplesTaken, `lost more than 0.5 %: ${line}`);
});
