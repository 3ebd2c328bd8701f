// docs/BENCHMARKS.md is written by several runs; a reader must be able to
// tell which run wrote what. Its Key figures section is generated from
// docs/benchmarks.json (bench/figures.mjs) and must equal what the generator
// writes from the stored file now; every numbered section names its run.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { keyFiguresSection, readFigures, stampSections } from '../../bench/figures.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const doc = readFileSync(join(root, 'docs/BENCHMARKS.md'), 'utf8');

test('BENCHMARKS\' key figures are what bench/figures.mjs writes from docs/benchmarks.json', () => {
  const section = keyFiguresSection(readFigures());
  assert.ok(doc.includes(section), 'docs/BENCHMARKS.md: Key figures differ from docs/benchmarks.json: run `node bench/figures.mjs`');
});

test('every figure of docs/benchmarks.json says which command measured it, and when', () => {
  for (const f of readFigures()) {
    const m = f.machine ?? {};
    assert.ok(m.note || (m.command && m.date), `${f.name}: no command or date`);
  }
});

test('every numbered section of BENCHMARKS names the run that wrote it', () => {
  const sections = [...doc.matchAll(/^## (\d+)\. .*\n\n(.*)$/gm)];
  assert.ok(sections.length >= 7);
  for (const [, n, first] of sections) {
    if (/^_Run: `[^`]+`, \d{4}-\d\d-\d\d /.test(first)) continue;
    assert.match(first, /^Not in this file yet/, `section ${n}: its first line names no run: ${first}`);
  }
});

test('stampSections puts one stamp under each numbered heading, replacing an old one', () => {
  const md = '# t\n\n## 1. A\n\ntext\n\n## 2. B\n\n_Run: `old`, 2020-01-01 00:00 UTC, load average 1.0._\n\nmore\n\n## Not numbered\n';
  const once = stampSections(md, '_Run: `npm run bench`, 2026-11-26 12:00 UTC, load average 1.0._');
  assert.equal(once.match(/_Run: /g).length, 2);
  assert.ok(!once.includes('`old`'));
  assert.equal(stampSections(once, '_Run: `npm run bench`, 2026-11-26 12:00 UTC, load average 1.0._'), once);
});
