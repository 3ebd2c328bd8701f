// `wasmtrace diff`: two sides of runs, a verdict (lib/diff.mjs).
import { writeFileSync } from 'node:fs';
import { compare, DiffError, diffStatus, htmlDiff, identities, isOneOf, jsonDiff, markdownDiff, parseThreshold, readSide, sideFiles, textDiff } from '../diff.mjs';
import { printable } from '../report.mjs';
import { UsageError } from './common.mjs';

export function diff(positionals, v, io) {
  let base = v.base ?? [], next = v.new ?? [];
  if (positionals.length === 2 && !base.length && !next.length) [base, next] = [[positionals[0]], [positionals[1]]];
  else if (positionals.length || !base.length || !next.length) {
    throw new UsageError('diff: give the base and the new traces: wasmtrace diff <base dir|file> <new dir|file>, or --base F... --new F...');
  }
  let res, sides;
  const notes = [];
  try {
    const threshold = parseThreshold(v.threshold ?? '2%,1ms');
    const files = [['base', base], ['new', next]].map(([side, paths]) => [side, sideFiles(paths, side)]);
    // Never write over a trace read (through any link).
    const inputs = identities(files.flatMap(([, f]) => f));
    for (const o of ['markdown', 'json', 'html']) {
      if (v[o] !== undefined && isOneOf(v[o], inputs)) throw new DiffError(`--${o}: '${printable(v[o])}' is one of the traces read: it is never overwritten`);
    }
    sides = files.map(([side, f]) => readSide(f, side, { session: v.session, notes }));
    const minShare = v['min-share'] !== undefined ? Number(String(v['min-share']).replace(/%$/, '')) : 0.5;
    if (!(minShare >= 0 && minShare <= 100)) throw new DiffError(`--min-share: '${v['min-share']}' is not a percentage from 0 to 100`);
    res = compare(sides[0], sides[1], { threshold, minShare, paired: !!v.paired });
  } catch (e) {
    if (!(e instanceof DiffError)) throw e;
    io.err(`wasmtrace diff: ${e.message}`);
    return 2;
  }
  const top = v.top !== undefined ? Number(v.top) : 20;
  for (const n of notes) io.err(`wasmtrace diff: ${n}`);
  io.out(textDiff(res, { top, title: `wasmtrace diff: ${res.runs.base} base vs ${res.runs.new} new` }));
  if (v.markdown) writeFileSync(v.markdown, `${markdownDiff(res, { top })}\n`);
  if (v.json) writeFileSync(v.json, `${jsonDiff(res)}\n`);
  if (v.html) writeFileSync(v.html, htmlDiff(res, sides[1], { title: `wasmtrace diff: ${res.runs.base} base vs ${res.runs.new} new` }));
  return diffStatus(res, { failOnUndecided: v['fail-on-undecided'] });
}
