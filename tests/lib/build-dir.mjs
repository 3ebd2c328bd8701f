// The wasm build tree the browser tests load their pages from: build/wasm
// (the emcc first on PATH), or $WASMTRACE_WASM_BUILD, e.g. build/wasm-3.1.69
// built by `scripts/build.sh wasm-next`, or a tree built with your own emsdk
// (`WASMTRACE_WASM_BUILD=build/wasm-mine bash scripts/build.sh wasm`).
// Relative paths are taken from the repository root. Read here only.
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const wasmBuildDir = resolve(root, process.env.WASMTRACE_WASM_BUILD || 'build/wasm');

// Suffix for the tests' own build outputs beside it ('' for build/wasm, else
// '-<dir name>'), so two toolchains' outputs never mix.
export const buildSuffix = process.env.WASMTRACE_WASM_BUILD ? `-${basename(wasmBuildDir)}` : '';

// The Emscripten version the tree was built with ([major, minor, patch]),
// from the stamp scripts/build.sh writes; [0, 0, 0] when unknown. For the
// tests' expectations of what a version does (e.g. which run dependencies
// it has), never for the product's behaviour.
export const emccVersion = (() => {
  try {
    const m = /\) (\d+)\.(\d+)\.(\d+)/.exec(readFileSync(resolve(wasmBuildDir, '.emcc-version'), 'utf8'));
    return m ? m.slice(1).map(Number) : [0, 0, 0];
  } catch {
    return [0, 0, 0];
  }
})();
