#!/usr/bin/env node
// Names the functions of a trace recorded from a stripped build (no wasm name
// section), using the symbol map that `emcc --emit-symbol-map` wrote next to
// the build (lines "<function index>:<name>").
//
//   node scripts/symbolicate.mjs TRACE.json[.gz] app.js.symbols [OUT]
//
// Every callFrame.functionName "wasm-function[N]" whose N is in the map gets
// the mapped name. OUT defaults to TRACE with ".symbolicated" before ".json".
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { canonicalFunctionName } from '../lib/names.mjs';
import { parseTrace } from '../lib/trace.mjs';

/** Parses an Emscripten symbol map into Map(functionIndex -> name). */
export function parseSymbolMap(text) {
  const map = new Map();
  for (const line of text.split('\n')) {
    const at = line.indexOf(':');
    if (at <= 0) continue;
    const index = Number(line.slice(0, at));
    if (Number.isInteger(index)) map.set(index, line.slice(at + 1).trim());
  }
  return map;
}

/** Renames wasm-function[N] frames in place; returns how many were renamed. */
export function symbolicate(events, map) {
  let renamed = 0;
  for (const e of events) {
    const nodes = e.name === 'ProfileChunk' ? e.args?.data?.cpuProfile?.nodes : null;
    for (const n of nodes || []) {
      const m = /^wasm-function\[(\d+)\]$/.exec(n.callFrame.functionName);
      if (m && map.has(Number(m[1]))) {
        // A symbol map numbers same-named statics ("helper.1"): one name.
        n.callFrame.functionName = canonicalFunctionName(map.get(Number(m[1])), { all: true });
        renamed++;
      }
    }
  }
  return renamed;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [tracePath, mapPath, outArg] = process.argv.slice(2);
  if (!tracePath || !mapPath) {
    console.error('usage: node scripts/symbolicate.mjs TRACE.json[.gz] SYMBOL_MAP [OUT]');
    process.exit(2);
  }
  const bytes = readFileSync(tracePath);
  const events = parseTrace(bytes);
  const renamed = symbolicate(events, parseSymbolMap(readFileSync(mapPath, 'utf8')));
  const out = outArg || tracePath.replace(/\.json(\.gz)?$/, '.symbolicated.json$1');
  const json = Buffer.from(JSON.stringify(events));
  writeFileSync(out, out.endsWith('.gz') ? gzipSync(json) : json);
  console.log(`wasmtrace symbolicate: ${renamed} frames named; wrote ${out}`);
}
