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

/** The `wasmtrace record` options that select the browser under test. */
export const recordArgs = ['--browser', testBrowser];

/** launch() of lib/browser.mjs in the browser under test. */
export function launchTestBrowser(options = {}) {
  return launch({ browser: testBrowser, ...options });
}
