// Where the sampler's missed ticks are (docs/BENCHMARKS.md, "The sampler's
// beat"): one run of the sampler page (bench/sampler, 1 busy thread,
// 2000 ms), then every gap longer than 1.5 periods between the busy
// thread's consecutive samples inside its busy window. Sessions sample all
// threads at one tick time, so a gap that the idle main thread shows at the
// same moment is a tick the worker did not take (it ran late), not a sample
// of the busy thread lost. Prints the gaps' histogram, the time they lost
// and the largest ones.
//   bash scripts/build.sh wasm && node bench/gaps.mjs [INTERVAL_US]   (default 1000)
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectTraces } from '../js/playwright.mjs';
import { launch } from '../lib/browser.mjs';
import { serve } from '../lib/serve.mjs';
import { parseTrace } from '../lib/trace.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const interval = Number(process.argv[2] || 1000);
const server = await serve(join(root, process.env.WASMTRACE_WASM_BUILD || 'build/wasm'));
const browser = await launch();
let win, events;
try {
  const config = JSON.stringify({ sessions: [{ name: 's', sampling: { intervalUs: interval }, counters: { enabled: false }, maxBufferKB: 65536 }] });
  const p = await browser.newPage();
  await p.goto(`${server.url}bench/sampler/index.html?args=1%202000&config=${encodeURIComponent(config)}`);
  await p.waitForFunction('self.benchDone === true', null, { timeout: 120000, polling: 20 });
  win = await p.evaluate(() => ({ start: self.busyStartMs * 1000, end: self.busyEndMs * 1000 }));
  [{ bytes: events }] = await collectTraces(p, { parse: false, timeoutMs: 300000 });
  await p.close();
} finally {
  await browser.close();
  await server.close();
}
events = parseTrace(events);

// Sample times per thread name (Profile startTime plus timeDeltas).
const names = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [e.tid, e.args.name]));
const times = new Map();
const clock = new Map();
for (const e of events) {
  if (e.name === 'Profile') clock.set(e.tid, e.args.data.startTime);
  if (e.name !== 'ProfileChunk') continue;
  let t = clock.get(e.tid);
  const list = times.get(names.get(e.tid)) ?? [];
  for (const d of e.args.data.timeDeltas) list.push((t += d));
  clock.set(e.tid, t);
  times.set(names.get(e.tid), list);
}
const busy = (times.get('busy') ?? []).filter((t) => t >= win.start && t <= win.end);
const main = new Set(times.get('main') ?? []);
const gaps = [];
for (let i = 1; i < busy.length; i++) {
  const len = busy[i] - busy[i - 1];
  if (len <= 1.5 * interval) continue;
  // The main thread's samples inside the gap: none if the worker took no tick.
  let mainInside = 0;
  for (let t = busy[i - 1] + 1; t < busy[i]; t++) if (main.has(t)) mainInside++;
  gaps.push({ at: busy[i - 1] - win.start, len, workerLate: mainInside === 0 });
}
const expected = Math.round((win.end - win.start) / interval);
const lost = gaps.reduce((n, g) => n + g.len - interval, 0);
const bucket = (us) => (us < 300 ? '< 300 us' : us < 1000 ? '< 1 ms' : us < 5000 ? '< 5 ms' : '>= 5 ms');
const hist = {};
for (const g of gaps) hist[bucket(g.len)] = (hist[bucket(g.len)] ?? 0) + 1;
console.log(`${interval} us, busy window ${((win.end - win.start) / 1000).toFixed(0)} ms: ${busy.length} samples of ${expected} ` +
  `(${((100 * busy.length) / expected).toFixed(2)} %)`);
console.log(`gaps: ${gaps.length}, ${(lost / 1000).toFixed(1)} ms lost; ${gaps.filter((g) => g.workerLate).length} of them ` +
  `in every thread at once (the worker took no tick)`);
console.log(`by length: ${JSON.stringify(hist)}`);
console.log(`largest: ${[...gaps].sort((a, b) => b.len - a.len).slice(0, 8).map((g) => `+${(g.at / 1000).toFixed(1)} ms: ${g.len} us`).join(', ')}`);
