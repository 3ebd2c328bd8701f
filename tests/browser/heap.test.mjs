// Heap profiling (issue 25): tests/heap, linked with the allocator shim,
// knows exactly what each of its sites keeps and allocates. A session that
// samples every allocation ("heap": {"sampleBytes": 1}: each weighs its own
// size) must find those numbers exactly: in the trace's nativeAllocations
// (read by our reader and by the Firefox Profiler's own code, whose
// "Retained memory" must equal what the app kept), in `wasmtrace report
// --heap`, and across the paths: frees on another thread, realloc growth
// and shrink, aligned allocations, calloc, a thread that exits. A session
// without "heap" writes none of it. Nothing here depends on machine speed:
// the app paces its loops so that the shim's queue never fills, and the
// test checks that no sample was dropped (the counts say so if one was).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Profile } from 'pprof-format';
import { HEAP_UNLINKED, heapNote, heapView, siteOf } from '../../lib/heap.mjs';
import { readProfile } from '../../lib/profile.mjs';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { importWithFirefoxProfiler, profilerCliPath } from '../lib/firefox-profiler.mjs';
import { recordPage } from '../lib/record.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = mkdtempSync(join(tmpdir(), 'wasmtrace-heap-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

// dlmalloc (Emscripten's default), emmalloc, and mimalloc where the
// toolchain has it (not 3.1.6: tests/heap/CMakeLists.txt builds it from
// 3.1.50 on): the shim sits on each.
// (allocators.txt: what the tree's CMake built, so a missing build fails.)
const BUILDS = readFileSync(join(wasmBuildDir, 'tests/heap/allocators.txt'), 'utf8').trim().split(/\s+/)
  .map((allocator) => ({ allocator, dir: join(wasmBuildDir, allocator === 'dlmalloc' ? 'tests/heap' : `tests/heap/${allocator}`) }));

for (const { allocator, dir } of BUILDS) describe(`${allocator}: a session sampling every allocation`, () => {
  let bytes, profile, view, expect;
  before(async () => {
    const rec = await recordPage({ dir, path: 'index.html?sampleBytes=1', waitFor: 'self.heapDone === true',
      beforeStop: async (page) => { expect = await page.evaluate(() => self.heapExpect); } });
    const s = rec.sessions[0];
    assert.equal(s.state, 'stopped', `${s.state}: ${s.error ?? ''}`);
    bytes = s.bytes;
    profile = readProfile(bytes);
    view = heapView(profile);
  });

  const siteTotal = (key, site) => view.sites.filter((s) => s.site === site).reduce((a, s) => a + s[key], 0);

  test('drops nothing, and the stats say what it sampled', () => {
    const h = profile.stats.heap;
    assert.equal(h.linked, true);
    assert.equal(h.sampleBytes, 1);
    assert.deepEqual(h.dropped, { queueFull: 0, setFull: 0, freesLost: 0, bytes: 0 });
    assert.ok(h.allocations >= 15000, `allocations ${h.allocations}`);
    assert.equal(view.allocations, h.allocations, 'every sampled allocation is in the trace');
    assert.equal(view.frees, h.frees, 'and every free');
    assert.equal(view.allocated, h.allocatedBytes);
  });

  test('finds exactly what each site keeps and allocated', () => {
    for (const [site, live] of Object.entries(expect.live)) assert.equal(siteTotal('live', site), live, `live at stop: ${site}`);
    for (const [site, allocated] of Object.entries(expect.allocated)) assert.equal(siteTotal('allocated', site), allocated, `allocated: ${site}`);
    // Freed on main, allocated on the pthread: matched across threads.
    assert.equal(siteTotal('live', 'handed_over'), 0);
    assert.equal(siteTotal('live', 'transient'), 0);
    assert.equal(siteTotal('live', 'peak_burst'), 0);
    // realloc: 1 KiB doubled to 1 MiB, then 100 B; each step a free and an allocation.
    assert.equal(siteTotal('allocated', 'grow_shrink'), 2096128 + 100);
  });

  test('names the site that causes the peak first', () => {
    const byPeak = view.sites.filter((s) => s.site !== '(no stack)').sort((a, b) => b.peak - a.peak);
    assert.equal(byPeak[0].site, expect.peakSite);
    assert.equal(byPeak[0].peak, 64 << 20);
    // The burst before it is gone by then.
    assert.equal(siteTotal('peak', 'peak_burst'), 0);
  });

  test('puts each allocation on its own thread, the exited one included', () => {
    const t = profile.threads.find((x) => x.name.includes('keep_on_thread'));
    assert.ok(t, profile.threads.map((x) => x.name).join(', '));
    assert.equal(t.allocations.filter((a) => a.bytes > 0).reduce((a, x) => a + x.bytes, 0), expect.live.keep_on_thread);
    assert.ok(t.allocations.every((a) => a.bytes < 0 || siteOf(a.stack) === 'keep_on_thread'));
  });

  test("the Firefox Profiler's own code reads it: its retained memory is what the app kept",
    { skip: profilerCliPath() ? false : 'the Firefox Profiler CLI is not installed' }, async () => {
      const fxp = await importWithFirefoxProfiler(bytes, { fileName: 'heap.json', strategy: 'native-retained-allocations' });
      const total = (site) => fxp.threads.flatMap((t) => t.strategyTotals).filter(([name]) => name === site).reduce((a, [, n]) => a + n, 0);
      for (const [site, live] of Object.entries(expect.live)) assert.equal(total(site), live, `retained: ${site}`);
      assert.equal(total('transient'), 0);
      assert.equal(total('peak_burst'), 0);
    });

  // Every allocator on every toolchain: the growth goes through the wrapped
  // emscripten_resize_heap (native/src/heap_grow.c; 6.0.5's emmalloc and
  // mimalloc never reach --wrap=sbrk).
  test('the wasm memory grows where the app allocated past it: markers with that stack', () => {
    const p = JSON.parse(gunzipSync(bytes));
    const strings = p.shared.stringArray;
    const grew = [];
    for (const t of p.threads) {
      const m = t.markers;
      for (let i = 0; i < m.length; i++) {
        if (strings[m.name[i]] !== 'wasm memory grew') continue;
        const d = m.data[i];
        const stack = [];
        for (let s = d.cause?.stack ?? null; s !== null && s !== undefined; s = t.stackTable.prefix[s]) {
          stack.unshift(strings[t.funcTable.name[t.frameTable.func[t.stackTable.frame[s]]]]);
        }
        grew.push({ thread: t.name, from: d.fromBytes, to: d.toBytes, stack, phase: m.phase[i] });
      }
    }
    assert.ok(grew.length > 0, 'no growth marker');
    for (const g of grew) {
      assert.ok(g.to > g.from && g.from >= 64 << 20, JSON.stringify(g));
      assert.equal(g.phase, 0); // an instant
    }
    // 64 MiB kept past a 64 MiB memory: it grows in grow_memory.
    assert.ok(grew.some((g) => g.thread === 'main' && g.stack.includes('grow_memory')), JSON.stringify(grew));
  });

  test('report --heap prints the three tables, and --folded the stacks live at the peak', async () => {
    const file = join(tmp, `${allocator}.json.gz`), folded = join(tmp, `${allocator}.folded`);
    writeFileSync(file, bytes);
    const out = await new Promise((ok, fail) => execFile(process.execPath, [join(root, 'bin/wasmtrace.mjs'), 'report', file, '--heap', '--folded', folded],
      (e, stdout, stderr) => (e ? fail(new Error(`${e.message}\n${stderr}`)) : ok(stdout))));
    assert.match(out, /live at the peak: .* by allocation site\n\s+64\.0 MiB\s+\d+\.\d%\s+grow_memory/);
    assert.match(out, /live when the session stopped:/);
    assert.match(out, /allocated in all:[\s\S]*transient/);
    // Every sampled block at the peak, by stack: the peak's bytes in all,
    // and the 64 MiB kept last under grow_memory, on main.
    const lines = readFileSync(folded, 'utf8').trimEnd().split('\n').map((l) => /^(.*) (\d+)$/.exec(l));
    assert.ok(lines.every(Boolean));
    assert.equal(lines.reduce((a, m) => a + Number(m[2]), 0), view.peak.bytes);
    const grow = lines.filter((m) => m[1].startsWith('main;') && m[1].endsWith(';grow_memory'));
    assert.equal(grow.reduce((a, m) => a + Number(m[2]), 0), 64 * 1024 * 1024, lines.map((m) => m[0]).join('\n'));
  });

  test('convert --to pprof --heap: each site\'s bytes to the byte, read back by pprof-format\'s decoder', async () => {
    const file = join(tmp, `${allocator}-pprof.json.gz`), out = join(tmp, `${allocator}.heap.pb.gz`);
    writeFileSync(file, bytes);
    await new Promise((ok, fail) => execFile(process.execPath, [join(root, 'bin/wasmtrace.mjs'), 'convert', file, '--to', 'pprof', '--heap', '-o', out],
      (e, stdout, stderr) => (e ? fail(new Error(`${e.message}\n${stderr}`)) : ok(stdout))));
    const p = Profile.decode(gunzipSync(readFileSync(out)));
    const str = (i) => p.stringTable.strings[Number(i)];
    assert.deepEqual(p.sampleType.map((t) => str(t.type)), ['alloc_space', 'inuse_space', 'peak_space']);
    const fn = new Map(p.function.map((f) => [Number(f.id), str(f.name)]));
    const leaf = new Map(p.location.map((l) => [Number(l.id), fn.get(Number(l.line[0].functionId))]));
    const bySite = new Map();
    for (const sm of p.sample) {
      const site = leaf.get(Number(sm.locationId[0]));
      const v = bySite.get(site) ?? [0, 0, 0];
      sm.value.forEach((x, i) => { v[i] += Number(x); });
      bySite.set(site, v);
    }
    for (const [site, live] of Object.entries(expect.live)) assert.equal(bySite.get(site)?.[1] ?? 0, live, `inuse_space: ${site}`);
    for (const [site, allocated] of Object.entries(expect.allocated)) assert.equal(bySite.get(site)?.[0], allocated, `alloc_space: ${site}`);
    assert.equal(bySite.get(expect.peakSite)[2], 64 << 20, 'peak_space of the peak\'s site');
    assert.equal([...bySite.values()].reduce((a, v) => a + v[2], 0), view.peak.bytes);
  });
});

describe('the chrome format', () => {
  const dir = BUILDS[0].dir;
  test('has the heap counters, the heap stats record and the growth events with their stacks', async () => {
    const rec = await recordPage({ dir, path: 'index.html?sampleBytes=1&format=chrome', waitFor: 'self.heapDone === true' });
    const s = rec.sessions[0];
    assert.equal(s.state, 'stopped', `${s.state}: ${s.error ?? ''}`);
    const raw = JSON.parse(gunzipSync(s.bytes));
    const events = Array.isArray(raw) ? raw : raw.traceEvents;
    const grew = events.filter((e) => e.name === 'wasm memory grew');
    assert.ok(grew.length > 0);
    for (const g of grew) {
      assert.equal(g.ph, 'I');
      assert.equal(g.cat, 'heap');
      assert.ok(g.args.toBytes > g.args.fromBytes);
    }
    assert.ok(grew.some((g) => g.args.stack.split(';').includes('grow_memory')), JSON.stringify(grew.map((g) => g.args)));
    const live = events.filter((e) => e.ph === 'C' && e.name === 'heap live bytes (sampled)');
    assert.ok(live.length > 0);
    const p = readProfile(s.bytes);
    assert.equal(p.stats.heap.sampleBytes, 1);
    // The counter's last value is the session's own estimate when it stopped.
    assert.ok(Math.abs(live.at(-1).args.value - p.stats.heap.liveBytes) <= p.stats.heap.liveBytes * 0.01 + 65536,
      `${live.at(-1).args.value} vs ${p.stats.heap.liveBytes}`);
    assert.ok(p.stats.heap.liveBytes >= 67108864 + 2000000);
  });
});

describe('a session without "heap"', () => {
  const dir = BUILDS[0].dir;
  test('writes no allocations and no heap record, and report --heap says why', async () => {
    const rec = await recordPage({ dir, path: 'index.html?sampleBytes=0', waitFor: 'self.heapDone === true' });
    const s = rec.sessions[0];
    assert.equal(s.state, 'stopped', `${s.state}: ${s.error ?? ''}`);
    const p = readProfile(s.bytes);
    assert.equal(p.stats.heap, undefined);
    assert.ok(p.threads.every((t) => t.allocations.length === 0));
    assert.throws(() => heapView(p), /no heap samples in this trace/);
  });
});

// An app linked with the shim's flags of before (tests/heap/oldflags: no
// -Wl,--wrap=emscripten_resize_heap): told once how to relink, and
// dlmalloc's growth still marked through sbrk's wrapper.
describe('an app linked with the heap flags of before', () => {
  test('says once how to relink, and still marks where dlmalloc grew the memory', async () => {
    const rec = await recordPage({ dir: join(wasmBuildDir, 'tests/heap/oldflags'), path: 'index.html?sampleBytes=4096',
      waitFor: 'self.heapDone === true' });
    const said = rec.console.filter((l) => l.includes('--wrap=emscripten_resize_heap'));
    assert.equal(said.length, 1, rec.console.join('\n'));
    assert.match(said[0], /session 'heap': the app was linked without -Wl,--wrap=emscripten_resize_heap .* Relink \(CMake: wasmtrace_heap\(app\) adds it/);
    const p = JSON.parse(gunzipSync(rec.sessions[0].bytes));
    const grew = p.threads.flatMap((t) => t.markers.name.filter((n) => p.shared.stringArray[n] === 'wasm memory grew'));
    assert.ok(grew.length > 0, 'no growth marker');
  });
  test('the new flags say nothing of it', async () => {
    const rec = await recordPage({ dir: join(wasmBuildDir, 'tests/heap'), path: 'index.html?sampleBytes=4096',
      waitFor: 'self.heapDone === true' });
    assert.deepEqual(rec.console.filter((l) => l.includes('--wrap=emscripten_resize_heap')), []);
  });
});

// An app linked with wasmtrace but not with the shim (tests/cli-apps): a
// session that asks for "heap" runs, records nothing of the heap, and the
// page's console, the stats and record's summary say why.
describe('an app not linked with the allocator shim', () => {
  test('says so once on the console and in the trace; the app and the session run on', async () => {
    const config = { sessions: [{ name: 'heap', format: 'firefox', heap: {} }, { name: 'heap2', heap: { sampleBytes: 4096 } }] };
    const rec = await recordPage({ dir: join(wasmBuildDir, 'tests/cli-apps'),
      path: `index.html?wasmtrace=${encodeURIComponent(JSON.stringify(config))}`,
      // (getStartupSessions throws until the runtime is up.)
      waitFor: "(() => { try { return Module.wasmtrace.getStartupSessions().every((s) => s.state === 'running'); } catch { return false; } })()" });
    const said = rec.console.filter((l) => l.includes('asks for "heap", but the app was not linked with the allocator shim'));
    assert.equal(said.length, 1, rec.console.join('\n'));
    assert.match(said[0], /\[error\] wasmtrace: session 'heap' asks .* no allocation is recorded\. Link it \(CMake: wasmtrace_heap\(app\)/);
    assert.equal(rec.sessions.length, 2);
    for (const s of rec.sessions) {
      assert.equal(s.state, 'stopped', `${s.state}: ${s.error ?? ''}`);
      const p = readProfile(s.bytes);
      assert.equal(p.stats.heap.linked, false);
      assert.equal(p.stats.heap.unavailable, undefined); // not out of memory: nothing to sample
      assert.equal(p.stats.heap.allocations, 0);
      assert.equal(heapNote(p), `heap: nothing recorded: ${HEAP_UNLINKED}`);
      assert.ok(p.threads.some((t) => t.samples.length), 'the CPU samples are there');
    }
  });
});
