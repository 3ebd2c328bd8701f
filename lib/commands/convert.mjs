import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { readProfile } from '../profile.mjs';
import { identities, isOneOf } from '../diff.mjs';
import { printable } from '../report.mjs';
import { isJsProfileThread } from '../jsprofile.mjs';
import { UsageError } from './common.mjs';

// convert's errors are the input's: one line, exit status 2 (issue 27).
export async function convert(positionals, v, io) {
  if (positionals.length !== 1) throw new UsageError('convert: give one trace file');
  const to = v.to ?? '';
  if (to !== 'pprof') throw new UsageError(to ? `convert: cannot convert to '${to}' (formats: pprof)` : 'convert: say what to: --to pprof');
  const file = positionals[0];
  if (!existsSync(file) || !statSync(file).isFile()) throw new UsageError(`convert: no file '${file}'`);
  const out = v.out ?? `${file.replace(/\.gz$/, '').replace(/\.(json|folded|txt)$/, '')}${v.heap ? '.heap' : ''}.pb.gz`;
  if (resolve(out) === resolve(file) || isOneOf(out, identities([file]))) {
    throw new UsageError(`convert: the output would overwrite the trace '${printable(file)}' (the same file, or a link to it): give --out`);
  }
  const { toPprof } = await import('../pprof.mjs'); // pprof-format: only convert needs it
  let bytes, profile;
  try {
    profile = readProfile(readFileSync(file), { format: v.format });
    bytes = toPprof(profile, { kind: v.heap ? 'heap' : 'cpu', thread: v.thread });
  } catch (e) {
    io.err(`wasmtrace convert: cannot convert ${file}: ${String(e.message || e).split('\n')[0]}`);
    return 2;
  }
  writeFileSync(out, bytes);
  const second = v.thread === undefined && !v.heap ? profile.threads.filter((t) => isJsProfileThread(t.name)).map((t) => t.name) : [];
  const what = v.heap ? 'heap profile (alloc_space, inuse_space, peak_space)' : `CPU profile of ${v.thread !== undefined ? `thread '${printable(v.thread)}'` : `${profile.threads.length - second.length} threads`}`;
  io.out(`pprof ${what}: ${out} (${bytes.length} bytes)`);
  if (second.length) {
    io.out(`  left out: ${second.map((n) => `'${printable(n)}'`).join(', ')}, the browser's view of the same threads (its time would count twice); --thread '${printable(second[0])}' converts one`);
  }
  io.out(`open it: go tool pprof -http=: ${out}   or drop it on speedscope`);
  return 0;
}
