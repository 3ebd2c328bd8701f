// Headless Chromium through playwright-core and the system browser (never a
// downloaded one: 'playwright install' cannot work on machines without the
// internet, and Debian's chromium is what we test against).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function chromiumPath(explicit) {
  if (explicit) {
    if (!existsSync(explicit)) {
      throw new Error(`wasmtrace: no browser at ${explicit}: give the path of a Chromium or Chrome executable`);
    }
    return explicit;
  }
  const candidates = [process.env.WASMTRACE_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const found = candidates.find((p) => p && existsSync(p));
  if (!found) {
    throw new Error('wasmtrace: no Chromium found (tried /usr/bin/chromium); install it ' +
      '(apt-get install chromium) or set WASMTRACE_CHROMIUM to its path');
  }
  return found;
}

/**
 * Launches headless Chromium with a fresh profile; close() also removes it.
 * executablePath defaults to $WASMTRACE_CHROMIUM or the system Chromium;
 * logPageErrors prints uncaught page errors to stderr.
 */
export async function launch({ executablePath, logPageErrors = true } = {}) {
  const path = chromiumPath(executablePath);
  const userDataDir = mkdtempSync(join(tmpdir(), 'wasmtrace-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: path,
      headless: true,
      args: CHROMIUM_ARGS,
    });
  } catch (e) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    async newPage() {
      const page = await context.newPage();
      if (logPageErrors) page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
      return page;
    },
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
