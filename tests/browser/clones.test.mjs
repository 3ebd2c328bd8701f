// One function, one name: an app with two C files that each have a static
// `helper` and two C++ files that each have an anonymous-namespace `step`
// (tests/clones), instrumented and built with and without -flto. The linker
// and LTO number the duplicates in the wasm name section ("helper.1",
// "(anonymous namespace)::step(unsigned int) (.1)", "....1" or, with
// wasm-ld 19, "helper_<function index>"); no such
// suffix may reach any trace format, and `report` shows one row per name.
// The raw name section is checked first, so that the test cannot pass
// because the toolchain stopped producing suffixes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { readProfile, functionTable } from '../../lib/profile.mjs';
import { decompress } from '../../lib/trace.mjs';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { recordPage } from '../lib/record.mjs';
import { inFirefox } from '../lib/test-browser.mjs';
import { isJsProfileThread } from '../../lib/jsprofile.mjs';
import { parseTrace } from '../../lib/trace.mjs';
import { importWithDevTools } from '../lib/devtools.mjs';

const dir = join(wasmBuildDir, 'tests/clones');
const HELPER = 'helper';
const STEP = '(anonymous namespace)::step(unsigned int)';
// A clone suffix after one of the app's names, in any format's text.
// (wasm-ld 14: "helper.1"; LTO: "... (.1)"; wasm-ld 19: "helper_<index>".)
const SUFFIXED = /(helper|step\(unsigned int\))(\.[0-9A-Za-z_]| \(\.|_\d)/;

/** The function names of a wasm file's name section, as the linker wrote them. */
function rawNames(wasmPath) {
  const [section] = WebAssembly.Module.customSections(new WebAssembly.Module(readFileSync(wasmPath)), 'name');
  const b = new Uint8Array(section);
  let pos = 0;
  const leb = () => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const x = b[pos++];
      v += (x & 0x7f) * 2 ** shift;
      if (!(x & 0x80)) return v;
    }
  };
  const names = [];
  while (pos < b.length) {
    const id = b[pos++];
    const end = leb() + pos;
    if (id === 1) {
      for (let n = leb(); n > 0; n--) {
        leb(); // function index
        const len = leb();
        names.push(new TextDecoder().decode(b.subarray(pos, pos + len)));
        pos += len;
      }
    }
    pos = end;
  }
  return names;
}

const FORMATS = ['chrome', 'firefox', 'folded'];
const config = JSON.stringify({
  sessions: FORMATS.map((format) => ({ name: format, format, output: `/traces/clones-${format}.gz`, sampling: { intervalUs: 500 } })),
});

for (const app of ['clones_lto', 'clones_nolto']) {
  describe(`clone suffixes (${app})`, () => {
    test('the name section has duplicates with suffixes (the precondition of this test)', () => {
      const names = rawNames(join(dir, `${app}.wasm`));
      assert.ok(names.some((n) => SUFFIXED.test(n)), `no suffixed helper/step in the name section: ${names.filter((n) => /helper|step/.test(n)).join(', ')}`);
    });

    test('no trace format carries a clone suffix, and report merges the copies into one row', async () => {
      const { sessions } = await recordPage({ dir, path: `index.html?app=${app}&config=${encodeURIComponent(config)}`, waitFor: 'self.clonesDone === true' });
      assert.equal(sessions.length, FORMATS.length);
      for (const s of sessions) {
        assert.equal(s.error ?? null, null, `${s.name}: ${s.error}`);
        const text = decompress(s.bytes).toString('utf8');
        const m = SUFFIXED.exec(text);
        assert.equal(m, null, `${s.name}: a clone suffix reached the trace: ${m && text.slice(Math.max(0, m.index - 40), m.index + 60)}`);
        for (const name of [HELPER, STEP]) assert.ok(text.includes(name), `${s.name}: ${name} is not in the trace`);
        // report: one row for both helpers, one for both steps.
        const rows = readProfile(s.bytes).threads.filter((t) => t.samples.length).flatMap((t) => functionTable(t).map((r) => r.name));
        // (main is the only thread that runs them.)
        for (const name of [HELPER, STEP]) assert.equal(rows.filter((r) => r === name).length, 1, `${s.name}: ${name} rows: ${rows.join(', ')}`);
        assert.equal(rows.filter((r) => SUFFIXED.test(r)).length, 0);
      }
    });

    // Issue 41: the browser's JS profile ("main (JS)", Chromium) names wasm
    // frames from the raw name section; they get the names wasmtrace's own
    // frames have, in every format.
    test("the JS profile's wasm frames carry no clone suffix either (Chromium)", { skip: inFirefox ? 'no JS profile in Firefox' : false }, async () => {
      const { sessions } = await recordPage({ dir, path: `index.html?app=${app}&config=${encodeURIComponent(config)}`,
        waitFor: 'self.clonesDone === true', jsProfiling: true });
      assert.equal(sessions.length, FORMATS.length);
      for (const s of sessions) {
        assert.equal(s.error ?? null, null, `${s.name}: ${s.error}`);
        assert.ok(s.jsProfile?.samples > 0, `${s.name}: no JS profile samples (${s.jsProfile?.reason})`);
        const js = readProfile(s.bytes).threads.filter((t) => isJsProfileThread(t.name));
        const names = new Set(js.flatMap((t) => t.samples.flatMap((x) => x.stack)));
        // The precondition: the JS profile saw the cloned functions.
        assert.ok([HELPER, STEP].some((n) => names.has(n)), `${s.name}: the JS profile has neither ${HELPER} nor ${STEP}: ${[...names].slice(0, 40).join(', ')}`);
        const suffixed = [...names].filter((n) => SUFFIXED.test(n));
        assert.deepEqual(suffixed, [], `${s.name}: clone suffixes in the JS profile's frames`);
        if (s.name === 'chrome') {
          // DevTools' own engine (the Performance panel's) lists one function per name.
          const dt = await importWithDevTools(parseTrace(s.bytes));
          const fns = dt.threads.flatMap((t) => t.functionSelfMs.map(([n]) => n));
          assert.ok([HELPER, STEP].some((n) => fns.includes(n)), `DevTools: neither ${HELPER} nor ${STEP}`);
          assert.deepEqual(fns.filter((n) => SUFFIXED.test(n)), [], 'DevTools: clone suffixes');
        }
      }
    });
  });
}
