// The bad-input rule, as a property over the CLI surfaces that read files
// (issue 38): `report` (text, --heap, --html, --folded), `diff` (--json,
// --markdown, --html) and `convert --to pprof` (CPU and --heap) are given
// traces made from the golden ones by fast-check — numbers replaced by
// extreme ones, text cut short, bytes inserted, gzip or not — and option
// values from a pool of good and bad ones, mixed with other commands'
// options. Whatever the input, each run:
//   - exits 0, or 2 with exactly one line naming the problem (diff: 1 and
//     3 only as verdicts, with its report on stdout), never a stack trace;
//   - prints no raw control character (names are escaped);
//   - prints no NaN or Infinity as a number;
//   - leaves every input file as it was, and writes only the outputs it
//     was asked for.
// In-process (lib/cli.mjs's main), so that 200 runs take seconds; the
// readers' hang and memory guards have their own tests (hostile-traces).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { main } from '../../lib/cli.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = mkdtempSync(join(tmpdir(), 'wasmtrace-cli-property-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const GOLDEN = ['chrome.json', 'firefox.json', 'folded.txt'].map((f) => readFileSync(join(root, 'tests/golden', f), 'utf8'));

// ---- inputs --------------------------------------------------------------------

const EXTREME = ['1e308', '-1e308', '1e24', '-1', '0', '4294967297', '9007199254740993', '0.5', '"7"', 'null', '[]', '{}', 'true'];
// A golden trace with some of its numbers replaced, maybe cut short or
// with bytes inserted, maybe gzip'd.
const traceArb = fc.record({
  golden: fc.integer({ min: 0, max: GOLDEN.length - 1 }),
  swaps: fc.array(fc.record({ at: fc.nat(), to: fc.constantFrom(...EXTREME) }), { maxLength: 4 }),
  cut: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
  insert: fc.option(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), text: fc.string({ maxLength: 8 }) }), { nil: null }),
  gzip: fc.boolean(),
}).map(({ golden, swaps, cut, insert, gzip }) => {
  let text = GOLDEN[golden];
  const numbers = [...text.matchAll(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/g)];
  for (const { at, to } of swaps) {
    const m = numbers.length ? numbers[at % numbers.length] : null;
    if (m && text.slice(m.index, m.index + m[0].length) === m[0]) text = text.slice(0, m.index) + to + text.slice(m.index + m[0].length);
  }
  if (insert) {
    const i = Math.floor(insert.at * text.length);
    text = text.slice(0, i) + insert.text + text.slice(i);
  }
  if (cut !== null) text = text.slice(0, Math.floor(cut * text.length));
  const bytes = Buffer.from(text, 'utf8');
  return { bytes: gzip ? gzipSync(bytes) : bytes, name: `t${golden}${gzip ? '.json.gz' : golden === 2 ? '.folded' : '.json'}` };
});

const BAD_VALUES = ['', 'abc', '-1', '1e309', '0x10', '\u001b]0;x\u0007', '2%,5%', ',', '9'.repeat(40), 'main\r(JS)'];
const optionArb = (good) => fc.oneof(
  fc.constantFrom(...good),
  fc.tuple(fc.constantFrom('--top', '--thread', '--threshold', '--min-share', '--format', '--session', '--repeat', '--browser', '--to'),
    fc.constantFrom(...BAD_VALUES, '3', 'main', '2%')),
);
const surfaceArb = fc.oneof(
  fc.record({ cmd: fc.constant('report'), opts: fc.array(optionArb([['--heap'], ['--top', '5'], ['--thread', 'main'], ['--html', '@out.html'], ['--folded', '@out.folded'], ['--format', 'chrome']]), { maxLength: 3 }) }),
  fc.record({ cmd: fc.constant('convert'), opts: fc.array(optionArb([['--heap'], ['--thread', '1'], ['--thread', 'main (JS)'], ['--format', 'folded']]), { maxLength: 2 }) }),
  fc.record({ cmd: fc.constant('diff'), opts: fc.array(optionArb([['--json', '@out.json'], ['--markdown', '@out.md'], ['--html', '@out.html'], ['--threshold', '1%'], ['--min-share', '1'], ['--top', '3'], ['--paired'], ['--fail-on-undecided']]), { maxLength: 3 }) }),
);

// ---- the property ----------------------------------------------------------------

const sha = (p) => createHash('sha256').update(readFileSync(p)).digest('hex');
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f\u009b]/;
const NON_FINITE = /(?:^|[\s([,:=])-?(?:NaN|Infinity)(?=$|[\s)\],%;])/m;
let run = 0;

async function check(surface, traces) {
  const dir = join(tmp, `run-${run++}`);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dir);
  const files = traces.map((t, i) => {
    const p = join(dir, `${i}-${t.name}`);
    writeFileSync(p, t.bytes);
    return p;
  });
  const before = new Map(files.map((f) => [f, sha(f)]));
  const args = [surface.cmd];
  if (surface.cmd === 'diff') {
    const half = Math.max(1, Math.floor(files.length / 2));
    for (const f of files.slice(0, half)) args.push('--base', f);
    for (const f of files.slice(half).length ? files.slice(half) : files.slice(0, 1)) args.push('--new', f);
  } else {
    args.push(files[0]);
  }
  if (surface.cmd === 'convert') args.push('--to', 'pprof', '-o', join(dir, 'out.pb.gz'));
  const asked = new Set(surface.cmd === 'convert' ? ['out.pb.gz'] : []);
  for (const o of surface.opts) {
    for (const a of o) {
      if (a.startsWith('@')) {
        asked.add(a.slice(1));
        args.push(join(dir, a.slice(1)));
      } else args.push(a);
    }
  }
  const out = [], err = [];
  const status = await main(args, { out: (l) => out.push(String(l)), err: (l) => err.push(String(l)) });
  const detail = `${args.map((a) => JSON.stringify(a)).join(' ')}\nstatus ${status}\nstderr: ${err.join('\n').slice(0, 800)}\nstdout: ${out.join('\n').slice(0, 400)}`;
  const allowed = surface.cmd === 'diff' ? [0, 1, 2, 3] : [0, 2];
  assert.ok(allowed.includes(status), `status ${status}: ${detail}`);
  if (status === 2) {
    const lines = err.join('\n').trimEnd().split('\n');
    assert.equal(lines.length, 1, `one line on a refusal: ${detail}`);
    assert.doesNotMatch(lines[0], /\n\s+at |TypeError|RangeError|ReferenceError/, detail);
  }
  const printed = [...out, ...err].join('\n');
  assert.doesNotMatch(printed, CONTROL, `a raw control character was printed: ${detail}`);
  assert.doesNotMatch(printed, NON_FINITE, `NaN or Infinity printed as a number: ${detail}`);
  for (const [f, h] of before) assert.equal(sha(f), h, `input ${f} was changed: ${detail}`);
  const written = readdirSync(dir).filter((n) => !files.some((f) => f.endsWith(`/${n}`)));
  for (const n of written) assert.ok(asked.has(n), `wrote ${n}, which was not asked for: ${detail}`);
  rmSync(dir, { recursive: true, force: true });
}

test('report, diff and convert keep the bad-input rule, whatever the trace and the options (seeded, then random)', async () => {
  const property = fc.asyncProperty(surfaceArb, fc.array(traceArb, { minLength: 1, maxLength: 4 }), check);
  await fc.assert(property, { seed: 38, numRuns: 150 });
  await fc.assert(property, { numRuns: 50 });
});
