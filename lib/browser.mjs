// Headless browsers from the system, never downloaded builds ('playwright
// install' and puppeteer's browser download cannot work on machines without
// the internet, and Debian's packages are what we test against):
//   - chromium: Debian's chromium through playwright-core (CDP);
//   - firefox: Debian's firefox-esr through puppeteer-core over WebDriver
//     BiDi (Playwright's Firefox needs Playwright's own patched build, so it
//     cannot drive Debian's).
// launch() returns the same small interface for both, and its pages the
// subset of Playwright's Page that wasmtrace uses (firefoxPage below says
// where the Firefox page differs), so that the CLI, the Playwright helper
// (js/playwright.mjs) and the tests run unchanged in either browser.
// The drivers are imported on first use: a machine with only one of them
// installed can still drive the other.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_JS_PROFILING_ARGS } from '../js/playwright.mjs';

/** The browsers launch() knows, the default first. */
export const BROWSERS = ['chromium', 'firefox'];

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // The JS Self-Profiling API in the pthreads' workers (js/wasmtrace_startup.js):
  // "worker N (JS)" threads. Chromium keeps only the last --enable-features,
  // and this one comes after playwright-core's own: it repeats those
  // (js/playwright.mjs exports the same flag).
  ...CHROMIUM_JS_PROFILING_ARGS,
];

// Firefox preferences for a quiet, test-like profile (puppeteer adds its own
// automation defaults): no network chatter a run could wait on, no session
// restore of a crashed profile.
const FIREFOX_PREFS = {
  'app.update.enabled': false,
  'browser.sessionstore.resume_from_crash': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.enabled': false,
  'network.captive-portal-service.enabled': false,
};

const INSTALL = {
  chromium: { envVar: 'WASMTRACE_CHROMIUM', candidates: ['/usr/bin/chromium', '/usr/bin/chromium-browser'], pkg: 'chromium', what: 'Chromium' },
  firefox: { envVar: 'WASMTRACE_FIREFOX', candidates: ['/usr/bin/firefox-esr', '/usr/bin/firefox'], pkg: 'firefox-esr', what: 'Firefox' },
};

/** Throws a clear error unless `name` is one of BROWSERS. */
export function checkBrowserName(name) {
  if (!BROWSERS.includes(name)) {
    throw new Error(`wasmtrace: unknown browser '${name}' (one of ${BROWSERS.join(', ')})`);
  }
  return name;
}

/**
 * The executable of `browser`: `explicit` if given (it must exist), else
 * $WASMTRACE_CHROMIUM / $WASMTRACE_FIREFOX, else the Debian package's path.
 * Throws an error that names the fix when there is none. `where`
 * ({ env, candidates }) replaces process.env and the default paths (tests).
 */
export function browserPath(browser = 'chromium', explicit, where = {}) {
  const b = INSTALL[checkBrowserName(browser)];
  const env = where.env ?? process.env;
  const candidates = where.candidates ?? b.candidates;
  if (explicit) {
    if (!existsSync(explicit)) {
      throw new Error(`wasmtrace: no browser at ${explicit}: give the path of a ${b.what} executable`);
    }
    return explicit;
  }
  const found = [env[b.envVar], ...candidates].find((p) => p && existsSync(p));
  if (!found) {
    throw new Error(`wasmtrace: no ${b.what} found (tried ${candidates.join(', ')}); install it ` +
      `(apt-get install ${b.pkg}) or set ${b.envVar} to its path`);
  }
  return found;
}

/** The Chromium executable (browserPath('chromium', explicit)). */
export function chromiumPath(explicit) {
  return browserPath('chromium', explicit);
}

/** The Firefox executable (browserPath('firefox', explicit)). */
export function firefoxPath(explicit) {
  return browserPath('firefox', explicit);
}

// Asked once per executable in a process (record --repeat stamps every run's traces with it).
const versions = new Map();
/** What `<executable> --version` says, e.g. "Chromium 156.0.1234.5 built on Debian", "Mozilla Firefox 153.7.0esr". */
export function browserVersion(executablePath) {
  if (!versions.has(executablePath)) {
    let v;
    try {
      v = execFileSync(executablePath, ['--version'], { encoding: 'utf8', timeout: 30000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      v = executablePath;
    }
    versions.set(executablePath, v);
  }
  return versions.get(executablePath);
}

// A driver that is not installed: one line naming the package.
async function importDriver(pkg) {
  try {
    return await import(pkg);
  } catch (e) {
    if (e.code !== 'ERR_MODULE_NOT_FOUND') throw e;
    const cause = e.message.split('\n')[0];
    const err = new Error(`wasmtrace: the browser driver ${pkg} is missing (npm install): ${cause}`);
    Object.assign(err, { code: 'ERR_MODULE_NOT_FOUND', driver: pkg, cause });
    throw err;
  }
}

/**
 * Launches a headless browser with a fresh profile; close() also removes it.
 * @param {object} [o]
 * @param {'chromium'|'firefox'} [o.browser] default 'chromium'
 * @param {string} [o.executablePath] default browserPath(browser)
 * @param {boolean} [o.logPageErrors] print uncaught page errors to stderr
 *   (default true)
 * @param {string[]} [o.args] more command-line arguments for the browser,
 *   after wasmtrace's own (e.g. '--js-flags=--no-liftoff' for Chromium)
 * @param {object} [o.prefs] more Firefox preferences (about:config names;
 *   Chromium has none)
 * @returns {Promise<{ name: string, executablePath: string, version: () => string,
 *   newPage: () => Promise<object>, close: () => Promise<void> }>}
 */
export async function launch({ browser = 'chromium', executablePath, logPageErrors = true, args = [], prefs = {} } = {}) {
  if (!Array.isArray(args) || args.some((a) => typeof a !== 'string')) {
    throw new TypeError('wasmtrace: launch({ args }): give an array of strings');
  }
  const path = browserPath(browser, executablePath);
  const driver = await importDriver(browser === 'firefox' ? 'puppeteer-core' : 'playwright-core');
  const userDataDir = mkdtempSync(join(tmpdir(), `wasmtrace-${browser}-`));
  const removeProfile = () => {
    try {
      rmSync(userDataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    } catch { /* a browser still writing: left in the temp directory */ }
  };
  // The drivers' own signal handlers kill the browser and exit the process
  // (Ctrl-C on `record`): the profile directory goes with it.
  process.once('exit', removeProfile);
  let impl;
  try {
    impl = browser === 'firefox' ? await launchFirefox(driver, path, userDataDir, args, prefs) : await launchChromium(driver, path, userDataDir, args);
  } catch (e) {
    process.off('exit', removeProfile);
    removeProfile();
    throw e;
  }
  return {
    name: browser,
    executablePath: path,
    version: () => browserVersion(path),
    async newPage() {
      const page = await impl.newPage();
      if (logPageErrors) page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
      return page;
    },
    async close() {
      try {
        await impl.close();
      } finally {
        process.off('exit', removeProfile);
        removeProfile();
      }
    },
  };
}

async function launchChromium({ chromium }, executablePath, userDataDir, args) {
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath, headless: true, args: [...CHROMIUM_ARGS, ...args] });
  return {
    newPage: () => context.newPage(),
    close: () => context.close(),
  };
}

async function launchFirefox({ default: puppeteer }, executablePath, userDataDir, args, prefs) {
  const b = await puppeteer.launch({
    browser: 'firefox',
    executablePath,
    args,
    headless: true,
    userDataDir,
    extraPrefsFirefox: { ...FIREFOX_PREFS, ...prefs },
    // puppeteer's defaults, as Playwright's for Chromium: the browser is
    // killed when this process gets SIGINT, SIGTERM or SIGHUP (Ctrl-C on
    // `record` leaves no Firefox behind).
  });
  return {
    newPage: async () => firefoxPage(await b.newPage()),
    // A close that has not finished after 15 s (seen once, with an
    // evaluation left pending across a navigation) kills the browser: a
    // run must never leave one behind, nor hang on it.
    async close() {
      let timer;
      const closed = b.close().then(() => true, () => false);
      const done = await Promise.race([closed, new Promise((ok) => { timer = setTimeout(() => ok(false), 15000); })]);
      clearTimeout(timer);
      const proc = b.process();
      if (done || !proc || proc.exitCode !== null || proc.signalCode !== null) return;
      // puppeteer starts Firefox detached, in a process group of its own:
      // kill the group (its content processes too), then wait for the exit
      // so that the profile is no longer written when it is removed.
      const exited = new Promise((ok) => { proc.once('exit', ok); setTimeout(ok, 5000).unref(); });
      try {
        process.kill(-proc.pid, 'SIGKILL');
      } catch {
        proc.kill('SIGKILL');
      }
      await exited;
    },
  };
}

// Playwright's console types where puppeteer's differ.
const CONSOLE_TYPES = { warn: 'warning' };

/**
 * A puppeteer (WebDriver BiDi) page behind the Playwright Page methods
 * wasmtrace uses. Same names and meaning:
 *   goto(url, { waitUntil, timeout }), url(), close(), mainFrame(),
 *   evaluate(fnOrExpression, arg), waitForFunction(fnOrExpression, arg,
 *   { timeout, polling }), addInitScript(fnOrSource, arg),
 *   on/off(event, handler) for 'console' (messages with text() and type(),
 *   'warn' reported as Playwright's 'warning'), 'pageerror', 'close',
 *   'crash' (puppeteer's 'error'), 'framenavigated' (frames with url()),
 *   'request', 'response' (status(), url()), 'dialog'.
 * Like Playwright's, an evaluate still pending when the main frame loads
 * another document rejects ("Execution context was destroyed ..."): over
 * BiDi it would never settle (measured with Firefox 153 and puppeteer-core
 * 25.16), and the Playwright helper retries or reports a navigation on that
 * message. One that fails because the page is closed says "Target page,
 * context or browser has been closed", as Playwright does.
 * Differences: waitUntil 'networkidle' is puppeteer's 'networkidle0' and
 * 'commit' is not supported; waitForFunction resolves with no handle (and,
 * like puppeteer's, outlives a navigation); a timeout is a TimeoutError
 * whose message is puppeteer's. `puppeteer` is the underlying page for
 * anything else.
 */
export function firefoxPage(page) {
  const wrapped = new Map();
  // Evaluations in flight, and those that were in flight when the main
  // frame started a navigation request or committed the new document
  // (a call made between the two still ran in the old one): they die with
  // the old document once the new one has loaded (a navigation that
  // replaces no document, e.g. a download, leaves them alone).
  const inFlight = new Set();
  let doomed = null;
  const doomInFlight = () => { doomed = new Set([...(doomed ?? []), ...inFlight]); };
  page.on('request', (r) => {
    if (r.isNavigationRequest() && r.frame() === page.mainFrame()) doomInFlight();
  });
  page.on('framenavigated', (f) => {
    if (f === page.mainFrame()) doomInFlight();
  });
  page.on('domcontentloaded', () => {
    if (!doomed) return;
    for (const call of doomed) call.reject(new Error('Execution context was destroyed, most likely because of a navigation'));
    doomed = null;
  });
  const CLOSED = /detached Frame|Target closed|Session closed|browsingContext\.close|no such frame/i;
  const evaluate = (...args) => {
    const call = {};
    const gone = new Promise((_, reject) => { call.reject = reject; });
    inFlight.add(call);
    return Promise.race([page.evaluate(...args), gone]).catch((e) => {
      if (CLOSED.test(String(e && e.message)) && !/Execution context was destroyed/.test(e.message)) {
        throw new Error(`Target page, context or browser has been closed (${e.message.split('\n')[0]})`);
      }
      throw e;
    }).finally(() => {
      inFlight.delete(call);
      doomed?.delete(call);
    });
  };
  const wrap = (event, handler) => {
    if (event === 'console') return (m) => handler({ text: () => m.text(), type: () => CONSOLE_TYPES[m.type()] ?? m.type(), raw: m });
    return handler;
  };
  const events = { crash: 'error' };
  return {
    puppeteer: page,
    browserName: 'firefox',
    goto(url, { waitUntil = 'load', timeout } = {}) {
      if (waitUntil === 'commit') throw new Error("wasmtrace: waitUntil 'commit' is not supported in Firefox");
      return page.goto(url, { waitUntil: waitUntil === 'networkidle' ? 'networkidle0' : waitUntil, timeout });
    },
    url: () => page.url(),
    mainFrame: () => page.mainFrame(),
    close: () => page.close(),
    evaluate: (fn, arg) => (arg === undefined ? evaluate(fn) : evaluate(fn, arg)),
    async waitForFunction(fn, arg, { timeout, polling } = {}) {
      const options = { ...(timeout !== undefined && { timeout }), ...(polling !== undefined && { polling }) };
      const handle = arg === undefined || arg === null ? await page.waitForFunction(fn, options) : await page.waitForFunction(fn, options, arg);
      await handle.dispose().catch(() => {});
    },
    async addInitScript(script, arg) {
      // Playwright also takes { content } or { path }; wasmtrace passes a
      // function (with one argument) or a source string.
      if (typeof script === 'function') await page.evaluateOnNewDocument(script, arg);
      else await page.evaluateOnNewDocument(typeof script === 'string' ? script : script.content);
    },
    on(event, handler) {
      const h = wrap(event, handler);
      wrapped.set(handler, h);
      page.on(events[event] ?? event, h);
      return this;
    },
    off(event, handler) {
      page.off(events[event] ?? event, wrapped.get(handler) ?? handler);
      return this;
    },
  };
}
