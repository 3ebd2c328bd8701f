// Opens a trace with speedscope's real importer: the web app that the npm
// package `speedscope` ships (node_modules/speedscope/dist/release), loaded
// in headless Chromium exactly as a user would load a file by URL
// (index.html#profileURL=...). Nothing of speedscope is copied: its dist
// directory is served as is, next to the trace.
//
// What speedscope "sees" is read back through its own exporter: Ctrl+S in
// the app downloads the imported profile group in speedscope's file format
// (https://www.speedscope.app/file-format-schema.json), the data model its
// views (Time Order, Left Heavy, Sandwich) render.
//
// Speedscope's Chrome importer (importFromChromeTimeline) turns each
// Profile/ProfileChunk id into one "evented" profile named
// "<file name> - <thread_name>" and weights each sample by the time to the
// next sample (the last sample of a thread weighs 0; "(root)" and "(idle)"
// frames are skipped). So speedscope has no sample counts, only time.
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { launch } from '../../lib/browser.mjs';
import { serve } from '../../lib/serve.mjs';

const require = createRequire(import.meta.url);

/** The directory of speedscope's shipped web app (throws if not installed). */
function speedscopeDistDir() {
  const pkg = require.resolve('speedscope/package.json');
  return join(dirname(pkg), 'dist/release');
}

function speedscopeVersion() {
  return JSON.parse(readFileSync(require.resolve('speedscope/package.json'), 'utf8')).version;
}

/**
 * Self and total weight per frame name of one exported speedscope profile
 * (evented or sampled), plus its weight span.
 */
function summarizeSpeedscopeProfile(profile, frames) {
  const self = new Map();
  let covered = 0; // weight during which some frame is on the stack
  const add = (name, w) => self.set(name, (self.get(name) || 0) + w);
  if (profile.type === 'evented') {
    const stack = [];
    let last = profile.startValue;
    for (const ev of profile.events) {
      if (stack.length) {
        add(frames[stack[stack.length - 1]].name, ev.at - last);
        covered += ev.at - last;
      }
      last = ev.at;
      if (ev.type === 'O') stack.push(ev.frame);
      else if (ev.type === 'C') {
        const top = stack.pop();
        if (top !== ev.frame) throw new Error(`speedscope profile ${profile.name}: unbalanced close of frame ${ev.frame}`);
      }
    }
    if (stack.length) throw new Error(`speedscope profile ${profile.name}: ${stack.length} frames left open`);
  } else if (profile.type === 'sampled') {
    profile.samples.forEach((stack, i) => {
      const w = profile.weights[i];
      if (stack.length) {
        add(frames[stack[stack.length - 1]].name, w);
        covered += w;
      }
    });
  } else {
    throw new Error(`speedscope profile ${profile.name}: unknown type ${profile.type}`);
  }
  const selfWeights = [...self.entries()].filter(([, w]) => w > 0).sort((a, b) => b[1] - a[1]);
  return {
    type: profile.type,
    unit: profile.unit,
    startValue: profile.startValue,
    endValue: profile.endValue,
    span: profile.endValue - profile.startValue,
    totalWeight: covered,
    sampleCount: profile.type === 'sampled' ? profile.samples.length : null,
    selfWeights,
  };
}

/**
 * Per root frame of a sampled profile (speedscope's collapsed-stack import
 * makes one profile whose root frames are, in wasmtrace's folded files, the
 * thread names): total weight, and self weight per leaf frame name
 * (descending). Weights of a folded import are sample counts.
 */
export function summarizeByRootFrame(profile, frames) {
  const roots = new Map();
  const add = (stack, w) => {
    if (!stack.length || !w) return;
    const root = frames[stack[0]].name;
    if (!roots.has(root)) roots.set(root, { total: 0, self: new Map() });
    const r = roots.get(root);
    r.total += w;
    const leaf = frames[stack[stack.length - 1]].name;
    r.self.set(leaf, (r.self.get(leaf) || 0) + w);
  };
  if (profile.type === 'sampled') {
    profile.samples.forEach((stack, i) => add(stack, profile.weights[i]));
  } else if (profile.type === 'evented') {
    // The exporter turns a collapsed-stack import into open/close events;
    // the weight between two events belongs to the stack open then.
    const stack = [];
    let last = profile.startValue;
    for (const ev of profile.events) {
      add(stack, ev.at - last);
      last = ev.at;
      if (ev.type === 'O') stack.push(ev.frame);
      else if (ev.type === 'C') stack.pop();
    }
  } else {
    throw new Error(`speedscope profile ${profile.name}: unknown type ${profile.type}`);
  }
  for (const r of roots.values()) r.self = [...r.self.entries()].sort((a, b) => b[1] - a[1]);
  return roots;
}

/**
 * Imports a trace (gzip or plain Chrome Trace Event JSON bytes) with
 * speedscope's shipped app in headless Chromium.
 *
 * @param {Uint8Array|Buffer} traceBytes
 * @param {object} [o]
 * @param {string} [o.fileName] the name speedscope is given for the file
 *   (it picks importers by name first, then by content)
 * @param {number} [o.timeoutMs]
 * @param {string} [o.screenshot] if set, a PNG of the loaded app (1280x720) is
 *   written to this path
 * @returns {Promise<{version: string, importer: string|null, title: string,
 *   groupName: string, toolbar: string, console: string[],
 *   profiles: Array<{name: string, thread: string|null} & ReturnType<typeof summarizeSpeedscopeProfile>>,
 *   exported: object}>}
 */
export async function importWithSpeedscope(traceBytes, { fileName, timeoutMs = 120000, screenshot } = {}) {
  const bytes = Buffer.from(traceBytes);
  const gz = bytes[0] === 0x1f && bytes[1] === 0x8b;
  fileName ??= gz ? 'trace.json.gz' : 'trace.json';

  // One served root: speedscope's dist (linked, not copied) and the trace.
  const root = mkdtempSync(join(tmpdir(), 'wasmtrace-speedscope-'));
  symlinkSync(speedscopeDistDir(), join(root, 'speedscope'), 'dir');
  mkdirSync(join(root, 'trace'));
  writeFileSync(join(root, 'trace', fileName), bytes);

  const server = await serve(root, { linksInto: [speedscopeDistDir()] });
  const browser = await launch();
  const consoleLines = [];
  try {
    const page = await browser.newPage();
    if (screenshot) await page.setViewportSize({ width: 1280, height: 720 });
    page.on('console', (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
    // Speedscope reports "Unrecognized format" and empty imports with alert().
    const dialogs = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      d.dismiss().catch(() => {});
    });

    const traceUrl = `${server.url}trace/${encodeURIComponent(fileName)}`;
    await page.goto(`${server.url}speedscope/index.html#profileURL=${encodeURIComponent(traceUrl)}`);

    // Loaded: speedscope sets document.title to "<name> - speedscope".
    // Failed: an alert, or its "Something went wrong" panel.
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (dialogs.length) throw new Error(`speedscope could not import ${fileName}: ${dialogs.join('; ')}`);
      const state = await page.evaluate(() => ({
        title: document.title,
        failed: document.body.innerText.includes('Something went wrong'),
      }));
      if (state.failed) {
        throw new Error(`speedscope failed to import ${fileName}:\n${consoleLines.join('\n')}`);
      }
      if (state.title.endsWith(' - speedscope')) break;
      if (Date.now() > deadline) {
        throw new Error(`speedscope did not finish importing ${fileName} in ${timeoutMs} ms:\n${consoleLines.join('\n')}`);
      }
      await page.waitForTimeout(50);
    }
    const title = await page.title();
    const toolbar = await page.evaluate(() => document.body.innerText.split('\n').find((l) => /\(\d+\/\d+\)$/.test(l)) ?? '');

    if (screenshot) {
      await page.waitForTimeout(300); // the flame graph is drawn on the next frames
      await page.screenshot({ path: screenshot });
    }

    // Export through the app itself (its Ctrl+S handler).
    const downloaded = page.waitForEvent('download', { timeout: timeoutMs });
    await page.keyboard.press('Control+s');
    const download = await downloaded;
    const exported = JSON.parse(readFileSync(await download.path(), 'utf8'));

    const importerLine = consoleLines.find((l) => l.includes('Importing as '));
    const frames = exported.shared.frames;
    const prefix = `${fileName} - `;
    const profiles = exported.profiles.map((p) => ({
      name: p.name,
      thread: p.name.startsWith(prefix) ? p.name.slice(prefix.length) : null,
      ...summarizeSpeedscopeProfile(p, frames),
    }));
    return {
      version: speedscopeVersion(),
      importer: importerLine ? importerLine.replace(/^.*Importing as /, '') : null,
      title,
      groupName: exported.name,
      toolbar,
      console: consoleLines,
      profiles,
      exported,
    };
  } finally {
    await browser.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}
