// The output policy in headless Chromium (docs/GUIDE.md, "Where traces are
// written"): a hostile ?wasmtrace= link cannot write outside /traces/, over
// the app's files, over /wasmtrace.json or to a device; spellings of one
// path are one output; a stopped session's trace is not overwritten
// without "overwrite"; a file deleted or truncated under a running session
// fails it with the reason.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchTestBrowser } from '../lib/test-browser.mjs';
import { serve } from '../../lib/serve.mjs';
import { wasmBuildDir } from '../lib/build-dir.mjs';

const sampleDir = join(wasmBuildDir, 'samples/startup');

// The sample app, in a page that puts an app data file and a
// /wasmtrace.json on the VFS before the runtime starts (preRun).
const PAGE = `<!doctype html><meta charset="utf-8"><title>outputs</title><script>
var Module = {
  preRun: [function () {
    FS.mkdir('/data');
    FS.writeFile('/data/app.bin', 'precious');
    FS.writeFile('/wasmtrace.json', '{"sessions":[]}');
  }],
  print: function () {},
  printErr: function (t) { console.error(t); },
  onStartupComplete: function () { window.sampleStartupComplete = true; },
};
</script><script src="startup.js"></script>`;

const HOSTILE = {
  sessions: [
    { name: 'app-file', output: '/data/app.bin' },
    { name: 'config-file', output: '/wasmtrace.json' },
    { name: 'null', output: '/dev/null' },
    { name: 'tty', output: '/dev/tty' },
    { name: 'dotdot', output: '/traces/../data/other.bin' },
    { name: 'ok', output: '/traces/ok.json.gz' },
    { name: 'forced', output: '/traces/forced.json', overwrite: true },
  ],
};

describe('output policy', () => {
  let dir, server, browser, r;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wasmtrace-outputs-'));
    for (const f of ['startup.js', 'startup.wasm', 'startup.worker.js']) {
      if (existsSync(join(sampleDir, f))) copyFileSync(join(sampleDir, f), join(dir, f));
    }
    writeFileSync(join(dir, 'index.html'), PAGE);
    server = await serve(dir);
    browser = await launchTestBrowser();
    const page = await browser.newPage();
    await page.goto(`${server.url}index.html?wasmtrace=${encodeURIComponent(JSON.stringify(HOSTILE))}`);
    await page.waitForFunction('window.sampleStartupComplete === true', null, { timeout: 120000, polling: 50 });
    r = await page.evaluate(async () => {
      const wt = Module.wasmtrace;
      const out = {};
      const view = (s) => ({ name: s.name, state: s.state, error: s.error, output: s.output });
      const text = (p) => (FS.analyzePath(p).exists ? new TextDecoder().decode(FS.readFile(p)) : null);
      const settle = async (s) => { try { await s.stop(); } catch (e) { /* its state says why */ } return view(s); };
      const waitForFile = async (p) => {
        for (let t = Date.now(); Date.now() - t < 20000;) {
          if (FS.analyzePath(p).exists) return true;
          await new Promise((res) => setTimeout(res, 20));
        }
        return false;
      };
      out.startup = wt.getStartupSessions().map(view);
      out.appFile = text('/data/app.bin');
      out.configFile = text('/wasmtrace.json');
      out.nullIsDevice = FS.isChrdev(FS.stat('/dev/null').mode);
      const ok = wt.getStartupSessions().find((s) => s.name === 'ok');
      if (ok) out.ok = await settle(ok);
      // Three spellings of one path at once.
      const s1 = wt.startSession({ name: 's1', output: '/traces/s.json.gz', durationMs: 0 });
      const s2 = wt.startSession({ name: 's2', output: '/traces/./s.json.gz' });
      const s3 = wt.startSession({ name: 's3', output: '/traces//s.json.gz' });
      out.spellings = [view(s1), view(s2), view(s3)];
      out.s1 = await settle(s1);
      const first = s1.state === 'stopped' ? Array.from(s1.getTraceBlob ? new Uint8Array(await s1.getTraceBlob().arrayBuffer()) : []).slice(0, 2) : null;
      out.s1Magic = first;
      // A later session and the stopped session's trace.
      out.s4 = view(wt.startSession({ name: 's4', output: '/traces/sub/../s.json.gz' }));
      out.s1After = view(s1);
      out.s1Bytes = s1.stats().bytesWritten;
      out.s1FileBytes = FS.stat('/traces/s.json.gz').size;
      const s5 = wt.startSession({ name: 's5', output: '/traces/s.json.gz', overwrite: true });
      out.s5 = await settle(s5);
      // The app's own file, from the app's own (trusted) call.
      out.trustedAppFile = await settle(wt.startSession({ name: 'mine', output: '/data/app.bin' }));
      out.appFileAfter = text('/data/app.bin');
      // Damage under a running session.
      for (const [name, harm] of [['unlinked', (p) => FS.unlink(p)], ['truncated', (p) => FS.truncate(p, 0)]]) {
        const p = `/traces/${name}.json`;
        const s = wt.startSession({ name, output: p, compression: 'none' });
        out[`${name}Created`] = await waitForFile(p);
        harm(p);
        out[name] = await settle(s);
      }
      return out;
    });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('a hostile link writes nothing outside /traces/ and nothing over the app\'s or wasmtrace\'s files', () => {
    const by = Object.fromEntries(r.startup.map((s) => [s.name, s]));
    const url = "a config from the 'wasmtrace' URL parameter may write only there";
    assert.equal(by['app-file'].state, 'failed');
    assert.match(by['app-file'].error, /"\/data\/app\.bin" is outside \/traces\//);
    assert.ok(by['app-file'].error.includes(url), by['app-file'].error);
    assert.equal(by['config-file'].state, 'failed');
    assert.match(by['config-file'].error, /"\/wasmtrace\.json" is wasmtrace's own config file, never an output/);
    for (const n of ['null', 'tty']) {
      assert.equal(by[n].state, 'failed');
      assert.match(by[n].error, /is a device or system file/);
    }
    assert.equal(by.dotdot.state, 'failed');
    assert.match(by.dotdot.error, /"\/data\/other\.bin" is outside \/traces\//);
    assert.equal(by.forced.state, 'failed');
    assert.match(by.forced.error, /overwrite: not allowed in a config from the 'wasmtrace' URL parameter/);
    assert.equal(r.appFile, 'precious');
    assert.equal(r.configFile, '{"sessions":[]}');
    assert.equal(r.nullIsDevice, true);
    // The session that follows the rules records as usual.
    assert.equal(r.ok.state, 'stopped', r.ok.error);
  });

  test('three spellings of one path are one output: the second and third fail while the first runs', () => {
    const [s1, s2, s3] = r.spellings;
    assert.equal(s1.output, '/traces/s.json.gz');
    assert.equal(s2.output, '/traces/s.json.gz');
    for (const s of [s2, s3]) {
      assert.equal(s.state, 'failed');
      assert.equal(s.error, `output "/traces/s.json.gz" is in use by running session 's1'`);
    }
    assert.equal(r.s1.state, 'stopped', r.s1.error);
    assert.deepEqual(r.s1Magic, [0x1f, 0x8b]);
  });

  test("a later session does not overwrite a stopped session's trace without overwrite: true", () => {
    assert.equal(r.s4.state, 'failed');
    assert.match(r.s4.error, /"\/traces\/s\.json\.gz" is the trace of earlier session 's1' of this page/);
    assert.equal(r.s1After.state, 'stopped');
    assert.equal(r.s1FileBytes, r.s1Bytes);
    assert.equal(r.s5.state, 'stopped', r.s5.error);
    assert.equal(r.trustedAppFile.state, 'failed');
    assert.match(r.trustedAppFile.error, /"\/data\/app\.bin" already exists and wasmtrace did not create it/);
    assert.equal(r.appFileAfter, 'precious');
  });

  test('a trace deleted or truncated while its session runs ends the session failed, saying so', () => {
    assert.equal(r.unlinkedCreated, true);
    assert.equal(r.unlinked.state, 'failed');
    assert.match(r.unlinked.error, /"\/traces\/unlinked\.json" was deleted or moved while the session ran/);
    assert.equal(r.truncatedCreated, true);
    assert.equal(r.truncated.state, 'failed');
    assert.match(r.truncated.error, /"\/traces\/truncated\.json" was truncated or written to by someone else/);
  });
});
