// `wasmtrace report`: a trace's tables (CPU or --heap), an offline page.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { readProfile } from '../profile.mjs';
import { identities, isOneOf } from '../diff.mjs';
import { foldedHeap, heapView, textHeapReport } from '../heap.mjs';
import { htmlReport, printable, textReport } from '../report.mjs';
import { UsageError } from './common.mjs';
import { limitNotes } from './record.mjs';

export function report(positionals, v, io) {
  if (positionals.length !== 1) throw new UsageError('report: give one trace file');
  const file = positionals[0];
  if (!existsSync(file)) throw new UsageError(`report: no file '${printable(file)}'`);
  // Never write over the trace read (through any link).
  const input = identities([file]);
  for (const o of ['html', 'folded']) {
    if (v[o] !== undefined && isOneOf(v[o], input)) throw new UsageError(`report: --${o}: '${printable(v[o])}' is the trace read: it is never overwritten`);
  }
  let profile;
  try {
    profile = readProfile(readFileSync(file), { format: v.format });
  } catch (e) {
    // Bad input, as every command says it: one line, exit status 2.
    io.err(`wasmtrace report: cannot read ${printable(file)}: ${String(e.message).split('\n')[0]}`);
    return 2;
  }
  const top = v.top !== undefined ? Number(v.top) : 10;
  if (v.heap) {
    let view;
    try {
      view = heapView(profile, { wrappers: v['alloc-wrapper'] ?? [] });
    } catch (e) {
      io.err(`wasmtrace report: ${printable(file)}: ${String(e.message).split('\n')[0]}`);
      return 2;
    }
    io.out(textHeapReport(view, { top, title: `wasmtrace report --heap: ${file}` }));
    if (v.folded) {
      writeFileSync(v.folded, foldedHeap(view, 'peak'));
      io.out('');
      io.out(`live at the peak as folded stacks (bytes): ${v.folded} (opens in speedscope; flamegraph.pl --countname=bytes)`);
    }
    return 0;
  }
  if (v.folded) throw new UsageError('report: --folded goes with --heap (a CPU trace in folded form: record with "format": "folded")');
  if (v['alloc-wrapper']) throw new UsageError('report: --alloc-wrapper goes with --heap');
  io.out(textReport(profile, { top, thread: v.thread, title: `wasmtrace report: ${file}` }));
  const notes = limitNotes(profile.stats);
  if (notes.length) {
    io.out('');
    for (const note of notes) io.out(`limit: ${note}`);
  }
  if (v.html) {
    writeFileSync(v.html, htmlReport(profile, { title: `wasmtrace report: ${basename(file)}`, file }));
    io.out('');
    io.out(`flame graphs: ${v.html} (open it in a browser; it works offline)`);
  }
  return 0;
}
