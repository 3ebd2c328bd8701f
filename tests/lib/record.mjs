// Records a wasmtrace page for the tests, in the browser under test
// (tests/lib/test-browser.mjs): serve the directory, load the page, wait
// until it says it is ready, then stop its sessions and take each trace
// with the Playwright helper's collectTraces (the same page-side recorder
// the CLI uses).
import { launch } from '../../lib/browser.mjs';
import { testBrowser } from './test-browser.mjs';
import { serve } from '../../lib/serve.mjs';
import { collectTraces } from '../../js/playwright.mjs';

/**
 * @param {object} o
 * @param {string} o.dir        directory to serve (cross-origin isolated)
 * @param {string} [o.path]     page path under dir, with query
 * @param {string} [o.waitFor]  JS expression that becomes true when done
 * @param {number} [o.timeoutMs] how long the page may take to get there
 * @param {(page) => Promise<void>} [o.beforeStop] runs in between
 * @param {string} [o.browser] the browser (default: the browser under test)
 * @param {boolean} [o.jsProfiling] serve with Document-Policy: js-profiling
 *   (the page's JS profile becomes each trace's "main (JS)" thread)
 * @returns {Promise<{sessions: object[], console: string[], collectedAt: number}>}
 *   sessions as collectTraces returns them (bytes, stats, state, error),
 *   unparsed; collectedAt: Date.now() once they had stopped
 */
export async function recordPage({ dir, path = 'index.html', waitFor = 'window.sampleStartupComplete === true',
  timeoutMs = 120000, beforeStop, browser: browserName = testBrowser, jsProfiling = false } = {}) {
  const server = await serve(dir, { jsProfiling });
  const browser = await launch({ browser: browserName });
  const consoleLines = [];
  try {
    const page = await browser.newPage();
    page.on('console', (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
    await page.goto(server.url + path);
    // The browser asked for is the one that runs the page.
    const ua = await page.evaluate(() => navigator.userAgent);
    if (/Firefox\//.test(ua) !== (browserName === 'firefox')) throw new Error(`asked for ${browserName}, but the page runs in ${ua}`);
    const isolated = await page.evaluate(() => self.crossOriginIsolated);
    if (!isolated) throw new Error('the page is not cross-origin isolated (COOP/COEP headers missing): pthreads cannot run');
    await page.waitForFunction(waitFor, null, { timeout: timeoutMs, polling: 50 });
    if (beforeStop) await beforeStop(page);
    const sessions = await collectTraces(page, { parse: false, timeoutMs });
    return { sessions, console: consoleLines, collectedAt: Date.now() };
  } finally {
    await browser.close();
    await server.close();
  }
}
