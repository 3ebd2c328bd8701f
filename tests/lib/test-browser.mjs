// The browser the browser tests run in: $WASMTRACE_BROWSER ('chromium', the
// default, or 'firefox'; scripts/test.sh runs the product-behaviour tests
// once in each). Tests launch it through launchTestBrowser() and pass
// recordArgs to `wasmtrace record`, so that one file checks the same
// behaviour in both. Read here only.
import { BROWSERS, launch } from '../../lib/browser.mjs';

export const testBrowser = process.env.WASMTRACE_BROWSER || 'chromium';
if (!BROWSERS.includes(testBrowser)) {
  throw new Error(`WASMTRACE_BROWSER='${testBrowser}': expected one of ${BROWSERS.join(', ')}`);
}

export const inFirefox = testBrowser === 'firefox';

// Suffix for the tests' own outputs beside the Chromium ones ('' for
// Chromium), so that the two runs never read each other's files.
export const browserSuffix = testBrowser === 'chromium' ? '' : `-${testBrowser}`;

// The test that does not depend on the app's toolchain or on the browser
// (the CLI's own options, a config the page's JS refuses, the router's
// checks) runs once, in the suite's first pass (Chromium on the default
// tree, build/wasm): the other passes re-run what the toolchain or the
// browser can change, and npm test must fit CI's time on two cores.
// `{ skip: notFirstPass }` on such a test says why elsewhere.
const defaultTree = !process.env.WASMTRACE_WASM_BUILD;
export const notFirstPass = !(testBrowser === 'chromium' && defaultTree) &&
  'depends on neither the toolchain nor the browser: runs in the first pass (Chromium, build/wasm)';
/** Outside the default tree, why a test that depends on the browser but not on the toolchain is skipped. */
export const notDefaultTree = !defaultTree && 'depends on the browser, not the toolchain: runs on build/wasm';

/** The `wasmtrace record` options that select the browser under test. */
export const recordArgs = ['--browser', testBrowser];

/** launch() of lib/browser.mjs in the browser under test. */
export function launchTestBrowser(options = {}) {
  return launch({ browser: testBrowser, ...options });
}
