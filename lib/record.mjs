// Records a wasmtrace page in headless Chromium: load it, wait until it says
// it is ready, stop its startup sessions through the JS API and take each
// trace as a Blob, exactly as an in-page "Download trace" button would.
import { launch } from './browser.mjs';
import { serve } from './serve.mjs';

/**
 * @param {object} o
 * @param {string} o.dir        directory to serve (cross-origin isolated)
 * @param {string} [o.path]     page path under dir, with query
 * @param {string} [o.waitFor]  JS expression that becomes true when done
 * @param {number} [o.timeoutMs]
 * @param {(msg: string) => void} [o.log] progress lines
 * @returns {Promise<{sessions: object[], console: string[], pageTiming: object}>}
 */
export async function recordPage({ dir, path = 'index.html', waitFor = 'window.sampleStartupComplete === true',
  timeoutMs = 60000, log = () => {}, beforeStop } = {}) {
  const server = await serve(dir);
  const browser = await launch();
  const consoleLines = [];
  try {
    const page = await browser.newPage();
    page.on('console', (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
    const url = server.url + path;
    log(`loading ${url}`);
    await page.goto(url);
    const isolated = await page.evaluate(() => self.crossOriginIsolated);
    if (!isolated) throw new Error('the page is not cross-origin isolated (COOP/COEP headers missing): pthreads cannot run');
    log('waiting for the app to finish starting up');
    await page.waitForFunction(waitFor, null, { timeout: timeoutMs, polling: 50 });
    if (beforeStop) await beforeStop(page);
    log('stopping the startup sessions');
    const sessions = await page.evaluate(async () => {
      const toBase64 = (bytes) => {
        let s = '';
        for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
        return btoa(s);
      };
      const out = [];
      for (const s of Module.wasmtrace.getStartupSessions()) {
        const entry = { id: s.id, name: s.name, output: s.output };
        try {
          const t0 = performance.now();
          await s.stop();
          entry.stopMs = performance.now() - t0;
          const blob = s.getTraceBlob();
          entry.type = blob.type;
          entry.base64 = toBase64(new Uint8Array(await blob.arrayBuffer()));
        } catch (e) {
          entry.error = String(e.message || e);
        }
        entry.state = s.state;
        entry.stats = s.stats();
        out.push(entry);
      }
      return out;
    });
    for (const s of sessions) {
      if (s.base64) s.bytes = Buffer.from(s.base64, 'base64');
      delete s.base64;
    }
    const pageTiming = await page.evaluate(() => ({ timeOrigin: performance.timeOrigin, now: performance.now() }));
    return { sessions, console: consoleLines, pageTiming };
  } finally {
    await browser.close();
    await server.close();
  }
}
