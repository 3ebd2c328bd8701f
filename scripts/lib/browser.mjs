// Headless Chromium through playwright-core and the system browser (never a
// downloaded one: 'playwright install' cannot work on machines without the
// internet, and Debian's chromium is what we test against).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function chromiumPath() {
  const candidates = [process.env.WASMTRACE_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const found = candidates.find((p) => p && existsSync(p));
  if (!found) {
    throw new Error('wasmtrace: no Chromium found (tried /usr/bin/chromium); install it ' +
      '(apt-get install chromium) or set WASMTRACE_CHROMIUM to its path');
  }
  return found;
}

/** Launches headless Chromium with a fresh profile; close() also removes it. */
export async function launch() {
  const userDataDir = mkdtempSync(join(tmpdir(), 'wasmtrace-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath(),
    headless: true,
    args: CHROMIUM_ARGS,
  });
  return {
    context,
    async newPage() {
      const page = await context.newPage();
      page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
      return page;
    },
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
