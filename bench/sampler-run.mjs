// One run of the sampler benchmark page (bench/sampler): N threads spin
// for MS ms while a session samples them; shared by bench/run.mjs (section
// 2) and bench/targets.mjs.
import { collectTraces } from '../js/playwright.mjs';
import { parseTrace } from '../lib/trace.mjs';

/**
 * openPage(path, waitFor) opens a page of the served build tree. Returns
 * the run's figures: ratePct (samples per busy thread per second inside
 * the busy window, % of requested), p50/p99/max lateness (µs, each tick's
 * from the trace: see below; the session's own log2 buckets are p50Bucket
 * and p99Bucket), worker CPU %, µs per sample, encode samples/s, ticks
 * missed, thread record bytes.
 *
 * A tick's lateness is its time T minus its deadline: the grid point after
 * the previous tick's, (floor(T_prev / P) + 1) * P (native/src/rec_samples.c,
 * "The tick grid"). Sample times are the tick times in whole µs, so the
 * busy thread's consecutive samples give every tick's lateness exactly (to
 * the clock's resolution), where the stats' power-of-two buckets can only
 * say "below 128" or "below 256" of a 200 µs target.
 */
/** The q-quantile of xs (nearest rank), or null if empty. */
function pct(xs, q) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
}

export async function samplerRun(openPage, interval, n, ms) {
  const config = JSON.stringify({ sessions: [{ name: 's', sampling: { intervalUs: interval }, counters: { enabled: false }, maxBufferKB: 65536 }] });
  const p = await openPage(`bench/sampler/index.html?args=${n}%20${ms}&config=${encodeURIComponent(config)}`, 'self.benchDone === true');
  const win = await p.evaluate(() => ({ start: self.busyStartMs * 1000, end: self.busyEndMs * 1000, m0: self.memBeforeThreads, m1: self.memAfterThreads }));
  const [s] = await collectTraces(p, { parse: false, timeoutMs: 300000 });
  await p.close();
  const events = parseTrace(s.bytes);
  const stats = events.find((e) => e.name === 'wasmtrace_stats')?.args;
  // Samples of the busy threads inside the busy window, vs requested.
  const busyTids = new Set(events.filter((e) => e.name === 'thread_name' && e.args.name === 'busy').map((e) => e.tid));
  // Sample times: each thread's Profile startTime plus its timeDeltas.
  const clock = new Map();
  let samples = 0;
  const late = [];
  const P = interval;
  const lastSample = new Map(); // tid -> time of its previous sample
  for (const e of events) {
    if (!busyTids.has(e.tid)) continue;
    if (e.name === 'Profile') clock.set(e.tid, e.args.data.startTime);
    if (e.name !== 'ProfileChunk') continue;
    let ts = clock.get(e.tid);
    for (const d of e.args.data.timeDeltas) {
      ts += d;
      const prev = lastSample.get(e.tid);
      lastSample.set(e.tid, ts);
      if (ts >= win.start && ts <= win.end) {
        samples++;
        if (prev !== undefined && prev >= win.start) late.push(ts - (Math.floor(prev / P) + 1) * P);
      }
    }
    clock.set(e.tid, ts);
  }
  const durMs = (stats.stopTimeUs - stats.startTimeUs) / 1000;
  const perThreadRate = samples / n / ((win.end - win.start) / 1e6);
  return {
    ratePct: (100 * perThreadRate) / (1e6 / interval),
    p50: pct(late, 0.5), p99: pct(late, 0.99), max: late.length ? late.reduce((a, b) => (b > a ? b : a)) : null,
    p50Bucket: stats.samplerLatenessUs.p50Below, p99Bucket: stats.samplerLatenessUs.p99Below,
    workerCpuPct: (100 * stats.workerBusyUs) / (durMs * 1000),
    usPerSample: stats.workerBusyUs / stats.samplesTaken,
    encodeSamplesPerS: stats.samplesWritten / (stats.encodeUs / 1e6),
    ticksMissed: stats.ticksMissed,
    threadRecordBytes: win.m1.threadRecordBytes,
  };
}
