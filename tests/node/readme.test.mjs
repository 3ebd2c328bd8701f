// The README's config reference must list exactly the keys of the JSON
// Schema (session objects, one level down), so neither can drift.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

test('the README config table lists exactly the schema keys of a session', () => {
  const schema = JSON.parse(readFileSync(join(root, 'config/wasmtrace.schema.json'), 'utf8'));
  const keys = [];
  for (const [k, v] of Object.entries(schema.$defs.session.properties)) {
    if (v.properties) for (const sub of Object.keys(v.properties)) keys.push(`${k}.${sub}`);
    else keys.push(k);
  }
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Config reference'), readme.indexOf('## JS API'));
  const rows = [...section.matchAll(/^\| `([A-Za-z.]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual([...rows].filter((r) => !r.startsWith('server.')).sort(), [...keys].sort());
});

test('the README config table lists exactly the schema keys of the server object', () => {
  const schema = JSON.parse(readFileSync(join(root, 'config/wasmtrace.schema.json'), 'utf8'));
  const keys = Object.keys(schema.properties.server.properties).map((k) => `server.${k}`);
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Config reference'), readme.indexOf('## Live: `wasmtrace serve`'));
  const rows = [...section.matchAll(/^\| `(server\.[A-Za-z]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual([...rows].sort(), [...keys].sort());
});
