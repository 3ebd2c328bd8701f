#!/usr/bin/env node
// Long runs of the reader fuzzers (tests/fuzz/reader-fuzzers.mjs), for
// scripts/fuzz.sh:
//   node tests/fuzz/run-readers.mjs [--runs N] [--seconds S] [--seed S] [--only NAME]
// Runs each fuzzer (or only NAME) for N executions or S seconds, in chunks
// of 100,000 with successive seeds (a "progress" line after each), and
// prints per fuzzer the executions,
// the rate and the seeds run. Exit status 1 on a finding (printed with its
// seed and counterexample).
import { parseArgs } from 'node:util';
import { fuzzers, runFuzzer } from './reader-fuzzers.mjs';

const { values: v } = parseArgs({ options: {
  runs: { type: 'string' }, seconds: { type: 'string' }, seed: { type: 'string' }, only: { type: 'string' },
} });
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
      runs += runFuzzer(f, { numRuns: Math.min(CHUNK, total - runs), seed, timeLimitMs: Number.isFinite(left) ? Math.max(1, left) : undefined });
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
