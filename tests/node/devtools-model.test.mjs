// tests/lib/weights.mjs computes what DevTools' Bottom-Up must show for a
// chrome-format trace (devtoolsBottomUp), so that the browser tests compare
// the engine's figures with the file exactly instead of within a bound
// derived from the recording's gaps (which grew past every function's time
// under load). Here that computation is checked against the engine itself
// (@paulirish/trace_engine) on crafted traces with what our traces hold:
// idle samples, recursion, nested scopes (some of zero length, some with
// fractional times), scopes that start or end at a sample's very time,
// two samples at one time and everything on a coarse clock's ticks,
// samples before and after every scope, the enclosing "wasmtrace: sampled"
// event, instants; and on the encoders' golden chrome trace.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseTrace } from '../../lib/trace.mjs';
import { importWithDevTools } from '../lib/devtools.mjs';
import { assertDevToolsBottomUp } from '../lib/weights.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const NAMES = ['main', 'parse', 'sort', 'inflate', 'tokenize'];

/** A small deterministic generator (seeded LCG): the same traces every run. */
function random(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/**
 * Two threads (ids 2 * seed - 1 and 2 * seed): samples every 100-300 us,
 * scopes on a 50 us grid. With a `clock` (us), every time is a multiple of
 * it, as from a coarse clock (Firefox's is 20 us): samples 0-2 ticks apart
 * (two at one time, as when the sampler catches up after a delay), scopes
 * 0-2 ticks long, so samples and scope boundaries fall on the same times.
 */
function craftedThreads(seed, clock = 0) {
  const r = random(seed);
  const pick = (n) => Math.floor(r() * n);
  const frame = (functionName) => ({ functionName, scriptId: 0, url: '', lineNumber: -1, columnNumber: -1 });
  const events = [];
  for (const tid of [2 * seed - 1, 2 * seed]) {
    events.push({ ph: 'M', cat: '__metadata', name: 'thread_name', pid: 1, tid, ts: 0, args: { name: `thread ${tid}` } });
    const nodes = [{ id: 1, callFrame: frame('(root)') }, { id: 2, parent: 1, callFrame: frame('(idle)') }];
    const ids = new Map();
    const nodeOf = (stack) => {
      if (!stack.length) return 2;
      let parent = 1;
      let key = '';
      for (const f of stack) {
        key += `/${f}`;
        if (!ids.has(key)) {
          ids.set(key, nodes.length + 1);
          nodes.push({ id: nodes.length + 1, parent, callFrame: frame(f) });
        }
        parent = ids.get(key);
      }
      return parent;
    };
    const first = (clock ? 1232920 : 1000) + pick(5) * (clock || 100);
    const samples = [];
    const deltas = [];
    let t = first;
    let prev = first;
    let stack = ['main'];
    for (let i = 0, n = 5 + pick(40); i < n; i++) {
      const x = r();
      if (x < 0.15) stack = []; // idle
      else if (x < 0.5) stack = stack.length ? stack : ['main']; // the same stack again
      else stack = Array.from({ length: 1 + pick(4) }, (_, k) => NAMES[pick(k ? NAMES.length : 2)]); // recursion too
      samples.push(nodeOf(stack));
      deltas.push(t - prev);
      prev = t;
      t += clock ? clock * pick(3) : 100 * (1 + pick(3));
    }
    const last = prev;
    events.push({ ph: 'P', cat: 'disabled-by-default-v8.cpu_profiler', name: 'Profile', id: `0x${tid}`, pid: 1, tid, ts: first, args: { data: { startTime: first } } });
    events.push({ ph: 'P', cat: 'disabled-by-default-v8.cpu_profiler', name: 'ProfileChunk', id: `0x${tid}`, pid: 1, tid, ts: last,
      args: { data: { cpuProfile: { nodes, samples }, timeDeltas: deltas } } });
    const scopes = [];
    const nest = (lo, hi, depth) => {
      for (let at = lo; at < hi && depth < 3;) {
        const start = at + (clock ? pick(3) * clock : pick(4) * 50);
        if (start >= hi) break;
        const end = Math.min(hi, start + (clock ? pick(3) * clock : pick(8) * 50 + (r() < 0.5 ? 0 : 25.5)));
        scopes.push({ ph: 'X', cat: 'app', name: NAMES[pick(NAMES.length)], pid: 1, tid, ts: start, dur: end - start });
        if (r() < 0.5) nest(start, end, depth + 1);
        at = Math.max(end + (clock ? pick(2) * clock : pick(3) * 50), start + (clock || 0));
      }
    };
    nest(first - 2 * (clock || 100), last + 2 * (clock || 100), 0);
    events.push(...scopes);
    if (r() < 0.5) events.push({ ph: 'I', s: 't', cat: 'app', name: 'mark', pid: 1, tid, ts: first + 300 });
    const lo = Math.min(first, ...scopes.map((s) => s.ts));
    const hi = Math.max(last, ...scopes.map((s) => s.ts + s.dur));
    events.push({ ph: 'X', cat: 'wasmtrace', name: 'wasmtrace: sampled', pid: 1, tid, ts: lo, dur: hi - lo });
  }
  return events;
}

async function assertModelIsTheEngine(events, label) {
  const dt = await importWithDevTools(events);
  const sampled = dt.threads.filter((d) => d.cpuSamples > 0);
  assert.ok(sampled.length > 0, `${label}: no sampled thread`);
  for (const d of sampled) assertDevToolsBottomUp(d, events, d.tid, `${label}, thread ${d.tid}`);
}

test('the Bottom-Up computed from crafted threads is the engine\'s, exactly (200 threads, one trace)', async () => {
  // One trace: the engine parses it once (it yields to the event loop as
  // it goes, which takes long on a loaded machine), every thread is its own.
  const events = [];
  for (let seed = 1; seed <= 100; seed++) events.push(...craftedThreads(seed));
  await assertModelIsTheEngine(events, 'crafted');
});

test('the Bottom-Up computed from threads on a coarse clock is the engine\'s, exactly (samples and scope boundaries at one time)', async () => {
  // Firefox's clock ticks every 20 us; 5 us and 1 us also check that the
  // model rounds sample times the way the engine does (us -> ms -> us).
  for (const clock of [20, 5, 1]) {
    const events = [];
    for (let seed = 1; seed <= 100; seed++) events.push(...craftedThreads(seed, clock));
    await assertModelIsTheEngine(events, `crafted on a ${clock} us clock`);
  }
});

test('the Bottom-Up computed from the golden chrome trace is the engine\'s, exactly', async () => {
  await assertModelIsTheEngine(parseTrace(readFileSync(join(root, 'tests/golden/chrome.json'))), 'tests/golden/chrome.json');
});
