#!/usr/bin/env node
// Long runs of the reader fuzzers (tests/fuzz/reader-fuzzers.mjs), for
// scripts/fuzz.sh:
//   node tests/fuzz/run-readers.mjs [--runs N] [--seconds S] [--seed S] [--only NAME]
// Runs each fuzzer (or only NAME) for N executions or S seconds, in chunks
// of 100,000 with successive seeds (a "progress" line after each), and
// prints per fuzzer the executions,
// the rate and the seeds run. Exit status 1 on a finding (printed with its
// seed and counterexample).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fuzzers, runFuzzer } from './reader-fuzzers.mjs';

const { values: v } = parseArgs({ options: {
  runs: { type: 'string' }, seconds: { type: 'string' }, seed: { type: 'string' }, only: { type: 'string' },
  chunk: { type: 'boolean' },
} });

// One chunk in a child process (--chunk): Node 20's zlib keeps ~16 KB of
// native memory per gunzipSync that fails on damaged data (measured: 1 GB
// per 60,000 failures, not freed by GC), so a long run in one process of
// the byte-edit fuzzer grew to 22 GB. Each chunk in a fresh process keeps
// the run's memory flat; the readers' one-file-per-process use
// (`wasmtrace report`) is unaffected.
if (v.chunk) {
  const f = fuzzers().find((x) => x.name === v.only);
  try {
    const runs = runFuzzer(f, { numRuns: Number(v.runs), seed: Number(v.seed) });
    process.stdout.write(JSON.stringify({ runs }));
  } catch (e) {
    process.stdout.write(JSON.stringify({ finding: e.message }));
  }
  process.exit(0);
}
const self = fileURLToPath(import.meta.url);
/** Runs one chunk of fuzzer `name` in a child process; returns its executions or throws its finding. */
function runChunk(name, numRuns, seed) {
  const r = spawnSync(process.execPath, [self, '--chunk', '--only', name, '--runs', String(numRuns), '--seed', String(seed)],
    { encoding: 'utf8', maxBuffer: 64 << 20 });
  let out;
  try {
    out = JSON.parse(r.stdout);
  } catch {
    throw new Error(`the chunk's process ended without a result (status ${r.status}, signal ${r.signal}): ${r.stderr.slice(-2000)}`);
  }
  if (out.finding) throw new Error(out.finding);
  return out.runs;
}
const total = v.runs ? Number(v.runs) : Infinity;
const seconds = v.seconds ? Number(v.seconds) : v.runs ? Infinity : 60;
const firstSeed = v.seed !== undefined ? Number(v.seed) : Math.floor(Math.random() * 2 ** 31);
const CHUNK = 100000;
let failed = false;
for (const f of fuzzers()) {
  if (v.only && f.name !== v.only) continue;
  const start = performance.now();
  let runs = 0;
  let seed = firstSeed;
  try {
    while (runs < total && performance.now() - start < seconds * 1000) {
      const left = seconds * 1000 - (performance.now() - start);
      // Runs bounded by count go chunk by chunk in child processes (see
      // --chunk); runs bounded by time (npm test's short ones) in this one.
      runs += Number.isFinite(total)
        ? runChunk(f.name, Math.min(CHUNK, total - runs), seed)
        : runFuzzer(f, { numRuns: Math.min(CHUNK, total - runs), seed, timeLimitMs: Number.isFinite(left) ? Math.max(1, left) : undefined });
      seed = (seed + 1) % 2 ** 31;
      // A long run that is cut short still says how far it got.
      if (runs < total) console.log(`progress ${f.name}: ${runs} executions, no finding`);
    }
  } catch (e) {
    failed = true;
    console.log(`fuzzer ${f.name}: FINDING after ${runs} executions (seed ${seed}):\n${e.message}`);
    continue;
  }
  const s = (performance.now() - start) / 1000;
  console.log(`fuzzer ${f.name}: ${runs} executions in ${s.toFixed(1)} s (${Math.round(runs / s)}/s), seeds ${firstSeed}..${seed - 1}, no finding`);
}
process.exitCode = failed ? 1 : 0;
