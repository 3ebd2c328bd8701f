// wasmtrace convert --to pprof (lib/pprof.mjs): the file is gzip'd
// profile.proto that pprof-format's own decoder reads back to the same
// samples (leaf first, values in counts and nanoseconds, threads as labels,
// markers as a "state" label with self time on the last real frame), the
// heap profile's three sample types, and the CLI's errors: one line, exit
// status 2.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { after, describe, test } from 'node:test';
import { Profile } from 'pprof-format';
import { main } from '../../lib/cli.mjs';
import { functionTable, readProfile } from '../../lib/profile.mjs';
import { cpuPprof, heapPprof, toPprof } from '../../lib/pprof.mjs';

const dir = mkdtempSync(join(tmpdir(), 'wasmtrace-pprof-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A decoded profile as plain data: samples with their stacks' names and labels. */
function decoded(bytes) {
  const p = Profile.decode(gunzipSync(bytes));
  const str = (i) => p.stringTable.strings[Number(i)];
  const fnName = new Map(p.function.map((f) => [Number(f.id), str(f.name)]));
  const locName = new Map(p.location.map((l) => [Number(l.id), fnName.get(Number(l.line[0].functionId))]));
  return {
    types: p.sampleType.map((t) => `${str(t.type)}/${str(t.unit)}`),
    defaultType: str(p.defaultSampleType),
    comments: p.comment.map(str),
    period: Number(p.period),
    durationNanos: Number(p.durationNanos),
    samples: p.sample.map((s) => ({
      stack: s.locationId.map((id) => locName.get(Number(id))), // leaf first
      values: s.value.map(Number),
      labels: Object.fromEntries(s.label.map((l) => [str(l.key), l.str ? str(l.str) : Number(l.num)])),
    })),
  };
}

// Folded traces carry no interval; a firefox-like profile object does.
const folded = [
  'main;main;startup;parse;tokenize 30',
  'main;main;startup;parse 5',
  'main;main;startup;wait_here;(waiting) 7',
  'worker 1;worker;decode;inflate 12',
  'worker 1;worker;decode;(partial stack) 2',
].join('\n') + '\n';

describe('cpuPprof', () => {
  const profile = { ...readProfile(Buffer.from(folded), { format: 'folded' }), intervalUs: 1000, session: { session: 'boot' }, stats: { startTimeUs: 100, stopTimeUs: 600 } };
  const d = decoded(gzipSync(cpuPprof(profile).encode()));

  test('sample types, period and duration say CPU time at the session\'s interval', () => {
    assert.deepEqual(d.types, ['samples/count', 'cpu/nanoseconds']);
    assert.equal(d.defaultType, 'cpu');
    assert.deepEqual(d.comments, ['wasmtrace folded trace, session \'boot\'']);
    assert.equal(d.period, 1e6);
    assert.equal(d.durationNanos, 500e3);
  });

  test('every stack comes back leaf first with its count and nanoseconds, its thread a label', () => {
    const find = (leaf, thread) => d.samples.find((s) => s.stack[0] === leaf && s.labels.thread === thread);
    assert.deepEqual(find('tokenize', 'main').stack, ['tokenize', 'parse', 'startup', 'main']);
    assert.deepEqual(find('tokenize', 'main').values, [30, 30e6]);
    assert.deepEqual(find('parse', 'main').values, [5, 5e6]);
    assert.deepEqual(find('inflate', 'worker 1').stack, ['inflate', 'decode', 'worker']);
    assert.equal(typeof find('inflate', 'worker 1').labels.thread_id, 'number');
    assert.equal(d.samples.reduce((n, s) => n + s.values[0], 0), 30 + 5 + 7 + 12 + 2);
  });

  test('markers are not functions: a state label, and the self time stays with the last real frame', () => {
    const waiting = d.samples.find((s) => s.labels.state === 'waiting');
    assert.deepEqual(waiting.stack, ['wait_here', 'startup', 'main']);
    assert.deepEqual(waiting.values, [7, 7e6]);
    const partial = d.samples.find((s) => s.labels.state === 'partial stack');
    assert.deepEqual(partial.stack, ['decode', 'worker']);
    assert.ok(!d.samples.some((s) => s.stack.some((n) => n.startsWith('('))));
  });

  test('self time per function equals the report\'s function table', () => {
    for (const t of profile.threads) {
      const self = new Map();
      for (const s of d.samples.filter((x) => x.labels.thread === t.name)) self.set(s.stack[0], (self.get(s.stack[0]) ?? 0) + s.values[0]);
      for (const r of functionTable(t).filter((x) => x.self > 0)) assert.equal(self.get(r.name), r.self, `${t.name}: ${r.name}`);
    }
  });

  test('a trace without its interval has counts, no times: its default sample type is the count', () => {
    const untimed = decoded(toPprof(readProfile(Buffer.from(folded), { format: 'folded' })));
    assert.equal(untimed.defaultType, 'samples');
    assert.equal(untimed.period, 0);
    assert.deepEqual(untimed.comments, ['wasmtrace folded trace']);
    assert.equal(untimed.samples.reduce((n, s) => n + s.values[0], 0), 56);
  });

  test('--thread keeps one thread; an unknown one and an all-idle trace are errors that say so', () => {
    const one = decoded(toPprof(profile, { thread: 'worker 1' }));
    assert.deepEqual([...new Set(one.samples.map((s) => s.labels.thread))], ['worker 1']);
    assert.throws(() => cpuPprof(profile, { thread: 'nope' }), /no thread named 'nope' \(threads: main, worker 1\)/);
    const idle = { ...profile, threads: [{ tid: 1, name: 'main', samples: [{ ts: 0, stack: [], weight: 3 }], scopes: [] }] };
    assert.throws(() => cpuPprof(idle), /no CPU samples to convert/);
  });
});

describe('heapPprof', () => {
  // Two sites on main: 'keep' stays, 'temp' is freed after the peak.
  const a = (ts, bytes, stack, address) => ({ ts, bytes, stack, address });
  const profile = {
    format: 'firefox', session: 'heap', intervalUs: 1000, stats: { heap: { sampleBytes: 4096 } },
    threads: [{
      tid: 1, name: 'main', samples: [], scopes: [],
      allocations: [
        a(1, 1000, ['main', 'keep'], 16), a(2, 5000, ['main', 'temp'], 32),
        a(3, -5000, ['main', 'done'], 32), a(4, 700, ['main', 'temp'], 48),
      ],
    }],
  };
  const d = decoded(toPprof(profile, { kind: 'heap' }));
  const at = (leaf) => d.samples.find((s) => s.stack[0] === leaf).values;

  test('alloc_space, inuse_space at stop and peak_space per stack, peak the default', () => {
    assert.deepEqual(d.types, ['alloc_space/bytes', 'inuse_space/bytes', 'peak_space/bytes']);
    assert.equal(d.defaultType, 'peak_space');
    assert.equal(d.period, 4096);
    assert.deepEqual(at('keep'), [1000, 1000, 1000]);
    assert.deepEqual(at('temp'), [5700, 700, 5000]);
  });

  test('--thread picks a thread by name or by tid, as for CPU; a missing one is named (issue 38 class 12)', () => {
    const two = { ...profile, threads: [...profile.threads, { tid: 7, name: 'worker', samples: [], scopes: [], allocations: [a(5, 300, ['w', 'buf'], 64)] }] };
    const leaves = (p) => decoded(toPprof(two, { kind: 'heap', thread: p })).samples.map((x) => x.stack[0]).sort();
    assert.deepEqual(leaves('worker'), ['buf']);
    assert.deepEqual(leaves('7'), ['buf'], 'by tid');
    assert.deepEqual(leaves(1), ['keep', 'temp'], 'by tid');
    assert.throws(() => heapPprof(two, { thread: 'nope' }), /no thread named 'nope' \(threads: main, worker\)/);
    assert.throws(() => heapPprof(two, { thread: 'nope' }), (e) => !/undefined/.test(e.message));
  });

  test('a trace without heap samples says how to record one', () => {
    const cpu = { ...profile, stats: {}, threads: [{ ...profile.threads[0], allocations: [] }] };
    assert.throws(() => heapPprof(cpu), /no heap samples in this trace: record with a session config "heap"/);
  });
});

describe('wasmtrace convert', () => {
  const io = () => {
    const out = [], err = [];
    return { out, err, io: { out: (l) => out.push(l), err: (l) => err.push(l) } };
  };
  const trace = join(dir, 'run.folded');
  writeFileSync(trace, folded);

  test('writes <trace>.pb.gz beside the trace and says how to open it', async () => {
    const c = io();
    assert.equal(await main(['convert', trace, '--to', 'pprof'], c.io), 0, c.err.join('\n'));
    assert.match(c.out[0], new RegExp(`^pprof CPU profile of 2 threads: ${join(dir, 'run.pb.gz')} \\(\\d+ bytes\\)$`));
    assert.match(c.out[1], /go tool pprof/);
    const back = decoded(readFileSync(join(dir, 'run.pb.gz')));
    assert.equal(back.samples.reduce((n, s) => n + s.values[0], 0), 56);
  });

  for (const [what, args, message] of [
    ['something that is not a trace', () => [writeJunk(), '--to', 'pprof'], /^wasmtrace convert: cannot convert .*junk\.bin: /],
    ['a format it cannot convert to', () => [trace, '--to', 'perfetto'], /^wasmtrace: convert: cannot convert to 'perfetto' \(formats: pprof\)/],
    ['no --to', () => [trace], /^wasmtrace: convert: say what to: --to pprof/],
    ['a missing file', () => [join(dir, 'absent.json'), '--to', 'pprof'], /^wasmtrace: convert: no file /],
    ['an output that is the trace', () => [trace, '--to', 'pprof', '-o', trace], /would overwrite the trace/],
    ['--heap on a CPU trace', () => [trace, '--to', 'pprof', '--heap'], /^wasmtrace convert: cannot convert .*no heap samples in this trace/],
  ]) {
    test(`${what}: one line, exit status 2`, async () => {
      const c = io();
      assert.equal(await main(['convert', ...args()], c.io), 2);
      assert.match(c.err[0], message);
      assert.equal(c.err[0].split('\n').filter((l) => !/run 'wasmtrace --help'/.test(l)).length, 1);
      assert.equal(c.out.length, 0);
    });
  }
  function writeJunk() {
    const f = join(dir, 'junk.bin');
    writeFileSync(f, Buffer.from([0x1f, 0x8b, 1, 2, 3, 4, 5]));
    return f;
  }
});

describe('the JS profile\'s threads (issue 38, class 5)', () => {
  test('are left out of the CPU profile unless asked for by name: their time would count twice', async () => {
    const p = readProfile('main;parse 30\nmain (JS);callMain;parse 28\nworker 1 (JS);x 4\n');
    const sum = (prof) => prof.sample.reduce((a, s) => a + Number(s.value[0]), 0);
    assert.equal(sum(cpuPprof(p)), 30);
    assert.equal(sum(cpuPprof(p, { thread: 'main (JS)' })), 28);
    const dir = mkdtempSync(join(tmpdir(), 'wasmtrace-pprof-js-'));
    try {
      const trace = join(dir, 't.folded');
      writeFileSync(trace, 'main;parse 30\nmain (JS);callMain;parse 28\n');
      const out = [];
      const status = await main(['convert', trace, '--to', 'pprof'], { out: (l) => out.push(l), err: (l) => out.push(`ERR ${l}`) });
      assert.equal(status, 0, out.join('\n'));
      assert.match(out.join('\n'), /CPU profile of 1 threads/);
      assert.match(out.join('\n'), /left out: 'main \(JS\)', the browser's view of the same threads/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
