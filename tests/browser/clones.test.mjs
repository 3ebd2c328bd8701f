// One function, one name: an app with two C files that each have a static
// `helper` and two C++ files that each have an anonymous-namespace `step`
// (tests/clones), instrumented and built with and without -flto. The linker
// and LTO number the duplicates in the wasm name section ("helper.1",
// "(anonymous namespace)::step(unsigned int) (.1)" or "....1"); no such
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
import { loadNameParser } from '../fuzz/reader-fuzzers.mjs';

const dir = join(wasmBuildDir, 'tests/clones');
const HELPER = 'helper';
const STEP = '(anonymous namespace)::step(unsigned int)';
// A clone suffix after one of the app's names, in any format's text.
const SUFFIXED = /(helper|step\(unsigned int\))(\.[0-9A-Za-z_]| \(\.)/;

/** The function names of a wasm file's name section, as the linker wrote them. */
function rawNames(wasmPath) {
  const [section] = WebAssembly.Module.customSections(new WebAssembly.Module(readFileSync(wasmPath)), 'name');
  return Object.values(loadNameParser({ raw: true })(new Uint8Array(section)));
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
  });
}
