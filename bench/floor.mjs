// The sampler against its floor (issue 28): in the same page (bench/sampler,
// 1 busy thread, main() back in the event loop), rounds alternate
//   ours   a session sampling at the interval: ticks taken, from the trace
//          (bench/sampler-run.mjs: samples of the busy thread in the busy
//          window, % of the grid points)
//   floor  no session; one more thread that only sleeps to the same
//          absolute deadlines with the same primitive (emscripten_futex_wait)
//          and counts its wake-ups in the same window (bench/sampler/sampler.c)
// at 1 kHz and 10 kHz, so that drift in the machine's load is shared.
//   sampler.floor.<k>khz.ticks_pct        the floor's ticks, % of requested
//   sampler.floor.<k>khz.ours_ticks_pct   ours in the same rounds
//   sampler.floor.<k>khz.gap_pp           ours - floor, paired per round
//                                         (percentage points; > -1: within
//                                         1 pp of the floor)
//   sampler.floor.<k>khz.late_p99_us      the floor's p99 lateness
// each the median over rounds with a bootstrap 95 % interval.
//   bash scripts/build.sh wasm && node bench/floor.mjs
//   WT_FLOOR_ROUNDS=N (default 12)   WT_FLOOR_WRITE=0 (print only)
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../lib/browser.mjs';
import { serve } from '../lib/serve.mjs';
import { figure, median, replaceSection, stampSections, writeFigures } from './figures.mjs';
import { samplerRun } from './sampler-run.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.WT_FLOOR_ROUNDS || 12);
const MS = 2000;
const INTERVALS = [1000, 100];

async function floorRun(openPage, interval, ms) {
  const p = await openPage(`bench/sampler/index.html?args=1%20${ms}%20${interval}`, 'self.benchDone === true && self.floorResult !== undefined');
  const r = await p.evaluate(() => ({ ...self.floorResult, start: self.busyStartMs, end: self.busyEndMs }));
  await p.close();
  const requested = ((r.end - r.start) * 1000) / interval;
  return { ratePct: (100 * r.ticks) / requested, p50: r.p50, p99: r.p99, max: r.max };
}

export async function floorBench({ wasm = join(root, 'build/wasm'), rounds = ROUNDS, log = () => {} } = {}) {
  const server = await serve(wasm);
  const browser = await launch();
  const openPage = async (path, waitFor) => {
    const p = await browser.newPage();
    await p.goto(server.url + path);
    await p.waitForFunction(waitFor, null, { timeout: 120000, polling: 50 });
    return p;
  };
  const res = Object.fromEntries(INTERVALS.map((i) => [i, { ours: [], floor: [] }]));
  try {
    for (let r = 0; r < rounds; r++) {
      for (const interval of INTERVALS) {
        // Alternate which goes first, round by round.
        const order = r % 2 ? ['floor', 'ours'] : ['ours', 'floor'];
        for (const which of order) {
          const run = which === 'ours' ? await samplerRun(openPage, interval, 1, MS) : await floorRun(openPage, interval, MS);
          res[interval][which].push(run);
        }
      }
      log(`floor: round ${r + 1}/${rounds}: ${INTERVALS.map((i) => `${1000 / i} kHz ours ${res[i].ours.at(-1).ratePct.toFixed(2)} % floor ${res[i].floor.at(-1).ratePct.toFixed(2)} %`).join('; ')}`);
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return res;
}

export function floorFigures(res) {
  const out = [];
  for (const [interval, { ours, floor }] of Object.entries(res)) {
    const k = `sampler.floor.${1000 / Number(interval)}khz`;
    out.push(figure(`${k}.ticks_pct`, '%', floor.map((x) => x.ratePct)));
    out.push(figure(`${k}.ours_ticks_pct`, '%', ours.map((x) => x.ratePct)));
    out.push(figure(`${k}.gap_pp`, 'pp', ours.map((x, i) => x.ratePct - floor[i].ratePct), { target: '>= -1' }));
    out.push(figure(`${k}.late_p99_us`, 'us', floor.map((x) => x.p99)));
  }
  return out;
}

export function floorSection(res, command) {
  const f = (xs) => median(xs).toFixed(2);
  const rows = Object.entries(res).map(([interval, { ours, floor }]) => {
    const gap = ours.map((x, i) => x.ratePct - floor[i].ratePct);
    return `| ${1000 / Number(interval)} kHz | ${f(floor.map((x) => x.ratePct))} % | ${f(ours.map((x) => x.ratePct))} % | ${f(gap)} pp | ${f(floor.map((x) => x.p99))} µs | ${f(ours.map((x) => x.p99))} µs |`;
  });
  const figs = floorFigures(res).map((x) => `\`${x.name}\` ${x.value.toFixed(2)}${x.ci95 ? ` [${x.ci95[0].toFixed(2)}, ${x.ci95[1].toFixed(2)}]` : ''}`);
  return `## 15. The sampler against its floor

\`${command}\`: bench/sampler with 1 busy thread (main() back in the event loop), ${Object.values(res)[0].ours.length} rounds
alternating ours (a session sampling at the interval: ticks from the trace) and the floor (no session; a thread that
only sleeps to the same absolute deadlines with the same primitive, emscripten_futex_wait, and counts its wake-ups in
the same busy window), medians over the rounds.

| rate | floor: ticks | ours: ticks | ours − floor (paired) | floor: p99 late | ours: p99 late |
|---|---|---|---|---|---|
${rows.join('\n')}

Figures (median [95 % CI]): ${figs.join('; ')}.
`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const res = await floorBench({ log: (m) => console.log(m) });
  const text = floorSection(res, 'node bench/floor.mjs');
  console.log(text);
  if (process.env.WT_FLOOR_WRITE !== '0') {
    writeFigures(floorFigures(res));
    replaceSection('## 15. The sampler against its floor', stampSections(text));
  }
}
