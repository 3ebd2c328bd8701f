// lib/browser.mjs without a browser: which executable it picks and what it
// says when there is none, and the Firefox page adapter's mapping of
// Playwright's Page methods onto a puppeteer page (a stand-in here; the
// browser tests run the real one with WASMTRACE_BROWSER=firefox).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { browserPath, firefoxPage } from '../../lib/browser.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('browserPath', () => {
  test('no Firefox: the error names the Debian package and the variable', () => {
    assert.throws(() => browserPath('firefox', undefined, { env: {}, candidates: ['/nonexistent/firefox-esr'] }),
      /^Error: wasmtrace: no Firefox found \(tried \/nonexistent\/firefox-esr\); install it \(apt-get install firefox-esr\) or set WASMTRACE_FIREFOX to its path$/);
  });

  test('no Chromium: the same with chromium and WASMTRACE_CHROMIUM', () => {
    assert.throws(() => browserPath('chromium', undefined, { env: {}, candidates: [] }),
      /install it \(apt-get install chromium\) or set WASMTRACE_CHROMIUM to its path$/);
  });

  test('the variable wins over the default paths; an explicit path must exist', () => {
    assert.equal(browserPath('firefox', undefined, { env: { WASMTRACE_FIREFOX: process.execPath }, candidates: [] }), process.execPath);
    assert.throws(() => browserPath('firefox', '/nonexistent/ff'), /no browser at \/nonexistent\/ff: give the path of a Firefox executable/);
  });

  test('an unknown browser is refused', () => {
    assert.throws(() => browserPath('safari'), /unknown browser 'safari' \(one of chromium, firefox\)/);
  });
});

describe('record --browser on the command line', () => {
  const cli = (...args) => spawnSync(process.execPath, [join(root, 'bin/wasmtrace.mjs'), 'record', root, ...args], { encoding: 'utf8' });

  test('an unknown browser is a usage error (exit 2)', () => {
    const r = cli('--browser', 'safari');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--browser: 'safari' is not one of chromium, firefox/);
  });

  test('--chromium with --browser firefox is a usage error that names --browser-path', () => {
    const r = cli('--browser', 'firefox', '--chromium', '/usr/bin/chromium');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--chromium names a Chromium executable, but the browser is firefox: use --browser-path/);
  });

  test('a Firefox path that does not exist: exit 1, one line that says so', () => {
    const r = cli('--browser', 'firefox', '--browser-path', '/nonexistent/firefox', '--page', 'README.md', '-q');
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stderr.trim(), 'wasmtrace: no browser at /nonexistent/firefox: give the path of a Firefox executable');
  });
});

describe('the Firefox page adapter', () => {
  // A stand-in puppeteer page that records what it is asked.
  function standIn() {
    const calls = [];
    const listeners = new Map();
    const page = {
      calls,
      emit: (event, value) => (listeners.get(event) ?? []).forEach((h) => h(value)),
      on: (event, h) => { listeners.set(event, [...(listeners.get(event) ?? []), h]); },
      off: (event, h) => { listeners.set(event, (listeners.get(event) ?? []).filter((x) => x !== h)); },
      goto: async (...a) => calls.push(['goto', ...a]),
      evaluate: async (...a) => { calls.push(['evaluate', ...a]); return 42; },
      waitForFunction: async (...a) => { calls.push(['waitForFunction', ...a]); return { dispose: async () => calls.push(['dispose']) }; },
      evaluateOnNewDocument: async (...a) => calls.push(['evaluateOnNewDocument', ...a]),
      url: () => 'http://x/',
      mainFrame: () => 'main',
      close: async () => calls.push(['close']),
    };
    return page;
  }

  test("waitForFunction takes Playwright's (fn, arg, options) order", async () => {
    const raw = standIn();
    const page = firefoxPage(raw);
    await page.waitForFunction('self.ready', null, { timeout: 5, polling: 50 });
    await page.waitForFunction((x) => x, 7, { timeout: 5 });
    assert.deepEqual(raw.calls[0], ['waitForFunction', 'self.ready', { timeout: 5, polling: 50 }]);
    assert.equal(raw.calls[2][0], 'waitForFunction');
    assert.deepEqual(raw.calls[2].slice(2), [{ timeout: 5 }, 7]);
  });

  test('addInitScript is evaluateOnNewDocument with the argument; evaluate passes one argument', async () => {
    const raw = standIn();
    const page = firefoxPage(raw);
    const fn = (cfg) => cfg;
    await page.addInitScript(fn, { sessions: [] });
    assert.deepEqual(raw.calls[0], ['evaluateOnNewDocument', fn, { sessions: [] }]);
    assert.equal(await page.evaluate('1 + 1'), 42);
    assert.deepEqual(raw.calls[1], ['evaluate', '1 + 1']);
  });

  test("console messages keep text() and report puppeteer's 'warn' as Playwright's 'warning'", () => {
    const raw = standIn();
    const page = firefoxPage(raw);
    const seen = [];
    const h = (m) => seen.push(`${m.type()}: ${m.text()}`);
    page.on('console', h);
    raw.emit('console', { type: () => 'warn', text: () => 'w' });
    raw.emit('console', { type: () => 'log', text: () => 'l' });
    page.off('console', h);
    raw.emit('console', { type: () => 'log', text: () => 'after off' });
    assert.deepEqual(seen, ['warning: w', 'log: l']);
  });

  test('an evaluate pending when the main frame loads another document rejects as in Playwright; a later one does not', async () => {
    const raw = standIn();
    const never = [];
    raw.evaluate = (expr) => new Promise((ok) => never.push({ expr, ok }));
    const page = firefoxPage(raw);
    const old = page.evaluate('old document');
    raw.emit('request', { isNavigationRequest: () => true, frame: () => 'main' });
    const fresh = page.evaluate('new document');
    raw.emit('domcontentloaded');
    await assert.rejects(old, /^Error: Execution context was destroyed, most likely because of a navigation$/);
    never.find((c) => c.expr === 'new document').ok('fine');
    assert.equal(await fresh, 'fine');
  });

  test('an evaluate made between the navigation request and the commit (it ran in the old document) rejects too', async () => {
    const raw = standIn();
    const never = [];
    raw.evaluate = (expr) => new Promise((ok) => never.push({ expr, ok }));
    const page = firefoxPage(raw);
    raw.emit('request', { isNavigationRequest: () => true, frame: () => 'main' });
    const between = page.evaluate('between request and commit');
    raw.emit('framenavigated', 'main');
    const after = page.evaluate('after the commit');
    raw.emit('domcontentloaded');
    await assert.rejects(between, /^Error: Execution context was destroyed, most likely because of a navigation$/);
    never.find((c) => c.expr === 'after the commit').ok('fine');
    assert.equal(await after, 'fine');
  });

  test('an iframe navigation or a request that is no navigation leaves evaluations alone', async () => {
    const raw = standIn();
    let finish;
    raw.evaluate = () => new Promise((ok) => { finish = ok; });
    const page = firefoxPage(raw);
    const call = page.evaluate('x');
    raw.emit('request', { isNavigationRequest: () => true, frame: () => 'iframe' });
    raw.emit('request', { isNavigationRequest: () => false, frame: () => 'main' });
    raw.emit('domcontentloaded');
    finish(1);
    assert.equal(await call, 1);
  });

  test('an evaluate on a closed page says so in Playwright\'s words', async () => {
    const raw = standIn();
    raw.evaluate = async () => { throw new Error("Attempted to use detached Frame 'abc'."); };
    await assert.rejects(firefoxPage(raw).evaluate('1'), /^Error: Target page, context or browser has been closed \(Attempted to use detached Frame/);
  });

  test("'crash' listens to puppeteer's 'error'; networkidle becomes networkidle0", async () => {
    const raw = standIn();
    const page = firefoxPage(raw);
    let crashed = false;
    page.on('crash', () => { crashed = true; });
    raw.emit('error', new Error('Page crashed!'));
    assert.ok(crashed);
    await page.goto('http://x/', { waitUntil: 'networkidle', timeout: 9 });
    assert.deepEqual(raw.calls[0], ['goto', 'http://x/', { waitUntil: 'networkidle0', timeout: 9 }]);
  });
});
