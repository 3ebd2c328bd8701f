// How deep an instrumented recursion goes on the page's main thread before
// the browser's stack overflows (issue 23), in headless Chromium: the
// builds of tests/moving/depth.c with wasmtrace's hooks, with empty hooks
// and not instrumented, in the same run. "cold": the first searches (V8's
// baseline tier, Liftoff, where startup code runs: every wasm local has a
// stack slot); "warm": after 600,000 calls (optimized code).
//   bash scripts/build.sh wasm && node bench/depth.mjs   (WT_DEPTH_ROUNDS=3)
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../lib/browser.mjs';
import { serve } from '../lib/serve.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const wasm = join(root, process.env.WASMTRACE_WASM_BUILD || 'build/wasm');
const ROUNDS = Number(process.env.WT_DEPTH_ROUNDS || 3);
const server = await serve(join(wasm, 'tests/moving'));
const browser = await launch();
const rows = {};
try {
  for (let r = 0; r < ROUNDS; r++) {
    for (const app of ['depth_wasmtrace', 'depth_empty', 'depth_plain']) {
      const page = await browser.newPage();
      await page.goto(`${server.url}depth.html?app=${app}`);
      await page.waitForFunction('self.depthReady === true', null, { timeout: 60000, polling: 20 });
      const cold = await page.evaluate(() => self.maxDepth());
      const warm = await page.evaluate(() => {
        for (let i = 0; i < 3000; i++) Module._depth_run(200);
        return self.maxDepth();
      });
      await page.close();
      (rows[app] ??= []).push({ cold, warm });
    }
  }
} finally {
  await browser.close();
  await server.close();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const empty = median(rows.depth_empty.map((x) => x.cold));
console.log('| build | max depth, cold (Liftoff) | vs empty hooks | max depth, warm |');
console.log('|---|---|---|---|');
for (const [app, xs] of Object.entries(rows)) {
  const cold = median(xs.map((x) => x.cold));
  console.log(`| ${app.replace('depth_', '')} | ${cold} | ${((100 * cold) / empty).toFixed(1)} % | ${median(xs.map((x) => x.warm))} |`);
}
