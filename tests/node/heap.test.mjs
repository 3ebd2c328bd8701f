// The heap view's arithmetic (lib/heap.mjs), against known answers: the
// weight's inverse, the Horvitz-Thompson variance against a simulation of
// the shim's own sampling, the replay's peak and live sets on a made-up
// profile, the folded output, and the record summary's line.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { main } from '../../lib/cli.mjs';
import { foldedHeap, HEAP_UNLINKED, heapNote, heapView, sizeOfWeight, textHeapReport, weightVariance } from '../../lib/heap.mjs';
import { seededRandom } from '../../lib/stats.mjs';

// What native/src/heap.c weighs a sampled allocation of n bytes at interval I.
const weightOf = (n, I) => n / -Math.expm1(-n / I);

const rng = seededRandom;

describe('the estimate of one sampled allocation', () => {
  test('sizeOfWeight recovers the size from its weight, for sizes around the interval and far past it', () => {
    for (const I of [4096, 524288]) {
      for (const n of [I + 1, 2 * I, 10 * I, 1000 * I, 7 * I + 3]) {
        const back = sizeOfWeight(weightOf(n, I), I);
        assert.ok(Math.abs(back - n) <= n * 1e-9 + 1e-6, `I=${I} n=${n}: ${back}`);
      }
    }
    // Every allocation sampled (I = 1): the weight is the size.
    assert.ok(Math.abs(sizeOfWeight(100, 1) - 100) < 1e-6);
  });

  test('the summed variance estimates match the spread of the estimate over many samplings', () => {
    // A site of 200 allocations of mixed sizes at I = 64 KiB, sampled the
    // way the shim samples (each with p = 1 - e^(-n/I), weighing n/p).
    const I = 65536, sizes = [];
    const r = rng(7);
    for (let i = 0; i < 200; i++) sizes.push(1 + Math.floor(r() * 4 * I));
    const truth = sizes.reduce((a, b) => a + b, 0);
    const trials = 4000, estimates = [];
    let varianceSum = 0;
    for (let t = 0; t < trials; t++) {
      let est = 0, v = 0;
      for (const n of sizes) {
        if (r() < -Math.expm1(-n / I)) {
          const w = weightOf(n, I);
          est += w;
          v += weightVariance(w, I);
        }
      }
      estimates.push(est);
      varianceSum += v;
    }
    const mean = estimates.reduce((a, b) => a + b, 0) / trials;
    const spread = estimates.reduce((a, e) => a + (e - mean) ** 2, 0) / (trials - 1);
    // Unbiased: the mean estimate is the truth (within 4 standard errors).
    assert.ok(Math.abs(mean - truth) < 4 * Math.sqrt(spread / trials), `${mean} vs ${truth}`);
    // The variance estimator's mean is the estimate's variance (within 10 %).
    const predicted = varianceSum / trials;
    assert.ok(Math.abs(predicted / spread - 1) < 0.1, `predicted ${predicted}, observed ${spread}`);
  });

  test('an allocation sampled with certainty has no variance', () => {
    assert.equal(weightVariance(100, 1), 0);
    assert.ok(weightVariance(weightOf(100 * 4096, 4096), 4096) < 1e-6);
  });
});

// A made-up firefox profile as readProfile returns it: main keeps 300
// bytes from parse and frees 100 of load's; a worker thread's block is
// freed on main after the peak.
function profile() {
  const a = (ts, bytes, stack, address) => ({ ts, bytes, stack, address });
  return {
    format: 'firefox',
    stats: { heap: { sampleBytes: 1, linked: true, allocations: 4, frees: 2, peakBytes: 700, liveBytes: 400, dropped: {} } },
    threads: [
      { name: 'main', samples: [], scopes: [], allocations: [
        a(10, 100, ['main', 'load'], 16),
        a(20, 300, ['main', 'parse'], 32),
        a(40, -100, [], 16),
        a(50, -200, [], 48),
        a(60, 100, ['main', 'parse;tok\nx'], 64),
      ] },
      { name: 'worker', samples: [], scopes: [], allocations: [a(30, 200, ['run', 'work'], 48)] },
    ],
  };
}

describe('the replay of a profile', () => {
  test('finds the peak, what was live at it and at stop, and what each site allocated', () => {
    const v = heapView(profile());
    assert.equal(v.peak.bytes, 600);
    assert.equal(v.peak.ts, 30);
    assert.equal(v.live, 400);
    assert.equal(v.allocated, 700);
    assert.equal(v.allocations, 4);
    assert.equal(v.frees, 2);
    const site = (name) => v.sites.find((s) => s.site === name);
    assert.deepEqual([site('load').peak, site('parse').peak, site('work').peak], [100, 300, 200]);
    assert.deepEqual([site('load').live, site('parse').live, site('work').live], [0, 300, 0]);
    assert.equal(site('parse;tok\nx').live, 100);
  });

  test('writes the blocks live at the peak as folded stacks, names made safe for the format', () => {
    const v = heapView(profile());
    assert.equal(foldedHeap(v, 'peak'), 'main;main;parse 300\nworker;run;work 200\nmain;main;load 100\n');
    assert.equal(foldedHeap(v, 'live'), 'main;main;parse 300\nmain;main;parse:tok x 100\n');
  });

  test('a profile with no allocations says why', () => {
    const p = profile();
    for (const t of p.threads) t.allocations = [];
    p.stats.heap.linked = false;
    assert.throws(() => heapView(p), (e) => e.message.includes(HEAP_UNLINKED));
    delete p.stats.heap;
    assert.throws(() => heapView(p), /no heap samples in this trace/);
  });
});

describe("record's summary line", () => {
  test('a linked app: what was sampled, the peak and the live bytes, and where to look', () => {
    assert.equal(heapNote(profile()),
      'heap: 4 sampled allocations (every 1 B on average), ~700 B live at the peak, ~400 B at stop (by site: wasmtrace report --heap)');
  });
  test('an app without the shim: nothing recorded, and how to link it', () => {
    const p = profile();
    p.stats.heap.linked = false;
    assert.equal(heapNote(p), `heap: nothing recorded: ${HEAP_UNLINKED}`);
  });
  test('drops are counted; other formats are told where the sites are', () => {
    const p = profile();
    p.format = 'chrome';
    p.stats.heap.dropped = { queueFull: 2, setFull: 1, freesLost: 'x' };
    assert.match(heapNote(p), /, 3 dropped \(by site only in the firefox format; this trace is chrome\)$/);
  });
  test('a session without heap sampling: no line', () => {
    assert.equal(heapNote({ stats: {} }), null);
    assert.equal(heapNote(null), null);
  });
});

// Issue 38, class 4: a site or thread name never reaches the terminal raw
// (ESC sequences set the window title or clear the screen; a CR overdraws).
test('the heap report prints names escaped', () => {
  const p = profile();
  p.threads[0].name = 'main\u001b]0;pwned\u0007';
  p.threads[0].allocations[1].stack = ['main', 'parse\u001b[2J\rX'];
  const text = textHeapReport(heapView(p), { top: 10 });
  assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f]/);
  assert.match(text, /parse\\x1b\[2J\\rX {2}\[main\\x1b\]0;pwned\\x07\]/);
});

describe('report --folded', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'wasmtrace-heap-node-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));
  test('without --heap: a usage error (exit 2) that says what goes with what', async () => {
    const lines = [];
    const io = { out: (l) => lines.push(l), err: (l) => lines.push(l) };
    // Any trace will do: the option is refused before the heap is read.
    const trace = join(tmp, 't.folded');
    writeFileSync(trace, 'main;a 3\n');
    assert.equal(await main(['report', trace, '--folded', join(tmp, 'x.folded')], io), 2);
    assert.match(lines.join('\n'), /--folded goes with --heap/);
    assert.equal(existsSync(join(tmp, 'x.folded')), false);
  });
});

describe('the heap view within the process\'s memory (issue 38, class 2)', () => {
  test('a heap too large to replay in this process is refused with one line, not an out-of-memory abort', async () => {
    const { spawnSync } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const heap = fileURLToPath(new URL('../../lib/heap.mjs', import.meta.url));
    // 1.3 M allocations and frees in a node of 200 MiB of heap: the replay
    // would need ~600 MiB (it aborted the process: exit 134, 4.6 GB for 10^7).
    const script = `import { heapView } from ${JSON.stringify(heap)};
const stacks = Array.from({ length: 100 }, (_, i) => ['main', 'site' + i]);
const allocations = [];
for (let i = 0; i < 1e6; i++) {
  allocations.push({ ts: i, bytes: 64, stack: stacks[i % 100], address: 4096 + 16 * i });
  if (i % 3 === 0) allocations.push({ ts: i + 0.5, bytes: -64, stack: [], address: 4096 + 16 * i });
}
try {
  heapView({ format: 'firefox', intervalUs: 1000, stats: { heap: { sampleBytes: 4096 } }, threads: [{ tid: 1, name: 'main', samples: [], scopes: [], allocations }] });
  console.log('read');
} catch (e) { console.log(e.name + ': ' + e.message); }`;
    const r = spawnSync(process.execPath, ['--max-old-space-size=200', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120000 });
    assert.equal(r.status, 0, `killed or aborted: ${r.signal} ${r.stderr.slice(-400)}`);
    assert.match(r.stdout, /^TraceError: trace needs more JS heap to read \(the heap view of its 1333334 allocations and frees\)/);
  });
});

describe('sites past allocation wrappers (issue 38, heap)', () => {
  const a = (ts, bytes, stack, address) => ({ ts, bytes, stack, address });
  // Lua-like: every allocation goes through l_alloc <- luaM_malloc_; the
  // real sites are luaH_new and luaS_newlstr. A C++ one through operator new.
  const wrapped = (site) => ['main', 'lua_pcall', site, 'luaM_malloc_', 'l_alloc'];
  const profile = {
    format: 'firefox', intervalUs: 1000, stats: { heap: { sampleBytes: 1 } },
    threads: [{
      tid: 1, name: 'main', samples: [], scopes: [],
      allocations: [
        a(1, 600, wrapped('luaH_new'), 16), a(2, 400, wrapped('luaS_newlstr'), 32), a(3, 100, wrapped('luaS_newlstr'), 48),
        a(4, 50, ['main', 'Parser::node()', 'operator new(unsigned long)'], 64),
        a(5, 30, ['l_alloc'], 80), // only wrappers: the innermost named frame
      ],
    }],
  };

  test('the rule: names ending in "alloc" and operator new, whatever the decoration; extra names exactly', async () => {
    const { isAllocationWrapper } = await import('../../lib/heap.mjs');
    for (const n of ['malloc', 'calloc', 'realloc', 'l_alloc', 'luaM_malloc_', 'luaM_realloc_', 'sqlite3Malloc', 'xmalloc', '__libc_malloc', 'pool_alloc2', 'operator new(unsigned long)', 'operator new[](unsigned long)']) {
      assert.ok(isAllocationWrapper(n), n);
    }
    for (const n of ['main', 'luaH_new', 'realloc_buffer', 'allocate_table', 'Parser::node()', '(partial stack)']) assert.ok(!isAllocationWrapper(n), n);
    assert.ok(isAllocationWrapper('my_new', new Set(['my_new'])));
  });

  test('a site is the first frame past the wrappers; the report names them; the stacks stay whole', () => {
    const view = heapView(profile);
    const bySite = Object.fromEntries(view.sites.map((s) => [s.site, s.allocated]));
    assert.deepEqual(bySite, { luaH_new: 600, luaS_newlstr: 500, 'Parser::node()': 50, l_alloc: 30 });
    assert.deepEqual(view.wrappers, ['l_alloc', 'luaM_malloc_', 'operator new(unsigned long)']);
    assert.deepEqual(view.blocks.peak.find((b) => b.bytes === 600).stack, wrapped('luaH_new'));
    assert.match(textHeapReport(view), /sites: the first frame past allocation wrappers \(l_alloc, luaM_malloc_, operator new\(unsigned long\)\); --alloc-wrapper NAME names more/);
    // One more, named: luaS_newlstr's callers... here the site moves to lua_pcall.
    const more = heapView(profile, { wrappers: ['luaS_newlstr'] });
    assert.equal(more.sites.find((s) => s.site === 'lua_pcall').allocated, 500);
  });

  test('report --alloc-wrapper takes names, and only with --heap', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wasmtrace-wrappers-'));
    try {
      const file = join(dir, 'x.json');
      writeFileSync(file, '{}');
      const err = [];
      const status = await main(['report', file, '--alloc-wrapper', 'x'], { out: () => {}, err: (l) => err.push(l) });
      assert.equal(status, 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('dropped samples make the report say it is not exact (issue 38, heap)', () => {
  test('exact mode with the address set full: "not exact", with what the intervals leave out', () => {
    const profile = {
      format: 'firefox', intervalUs: 1000,
      stats: { heap: { sampleBytes: 1, dropped: { queueFull: 0, setFull: 130000, freesLost: 0 } } },
      threads: [{ tid: 1, name: 'main', samples: [], scopes: [], allocations: [{ ts: 1, bytes: 64, stack: ['main', 'f'], address: 16 }] }],
    };
    const text = textHeapReport(heapView(profile));
    assert.match(text, /dropped: 130000 samples \(queue full 0, address set full 130000\)/);
    // A trace of before dropped.bytes: a bound from the count alone.
    assert.match(text, /not exact: each figure below may be low by at least 127 KiB, beyond its interval \(the shim's queue was full, or the heap rule kept its address set from growing\)/);
    // With what the dropped samples stood for (the shim counts it): by that much.
    const counted = structuredClone(profile);
    counted.stats.heap.dropped.bytes = 3 * 1024 * 1024;
    assert.match(textHeapReport(heapView(counted)), /not exact: each figure below may be low by up to 3.00 MiB \(what the dropped samples stood for\)/);
    const clean = textHeapReport(heapView({ ...profile, stats: { heap: { sampleBytes: 1 } } }));
    assert.doesNotMatch(clean, /not exact/);
    assert.doesNotMatch(clean, /accuracy:/, 'sampleBytes 1 is exact: no accuracy line');
  });

  test('samples the session counted but the trace lacks (its buffer was full) make the report say it is not complete', () => {
    const allocations = [{ ts: 1, bytes: 64, stack: ['main', 'f'], address: 16 }];
    const threads = [{ tid: 1, name: 'main', samples: [], scopes: [], allocations }];
    const full = { format: 'firefox', intervalUs: 1000, threads,
      stats: { heap: { sampleBytes: 1, allocations: 5, frees: 2, peakBytes: 5 << 20, liveBytes: 3 << 20 } } };
    assert.match(textHeapReport(heapView(full)), /not complete: 6 sampled allocations and frees are not in the trace \(the session's buffer was full: raise maxBufferKB\); the tables below lack them; the session's own totals: ~5.00 MiB live at the peak, ~3.00 MiB at stop/);
    const whole = { ...full, stats: { heap: { sampleBytes: 1, allocations: 1, frees: 0 } } };
    assert.doesNotMatch(textHeapReport(heapView(whole)), /not complete/);
  });

  test('sampleBytes 1 weighs each allocation at its own size, with no spread; a sampling interval prints its accuracy', () => {
    const allocations = [1, 2, 3, 7].map((bytes, i) => ({ ts: i, bytes, stack: ['main', 'f'], address: 16 * (i + 1) }));
    const exact = heapView({ format: 'firefox', intervalUs: 1000, stats: { heap: { sampleBytes: 1 } },
      threads: [{ tid: 1, name: 'main', samples: [], scopes: [], allocations }] });
    const f = exact.sites.find((s) => s.site === 'f');
    assert.equal(f.live, 13);
    assert.equal(f.liveVar, 0);
    assert.equal(sizeOfWeight(3, 1), 3);
    const sampled = textHeapReport(heapView({ format: 'firefox', intervalUs: 1000, stats: { heap: { sampleBytes: 65536 } },
      threads: [{ tid: 1, name: 'main', samples: [], scopes: [], allocations }] }));
    assert.match(sampled, /accuracy: ±10 % \(95 %\) from ~24.0 MiB at a site in blocks smaller than 64.0 KiB, ±30 % from ~2.69 MiB; larger blocks are nearly exact; a site not listed may hold up to ~192 KiB/);
  });
});
