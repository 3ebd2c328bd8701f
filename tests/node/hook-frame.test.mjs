// What the inlined -finstrument-functions hooks add to an instrumented
// function's frame (issue 23). With -flto both hooks are inlined into every
// instrumented function, and every value they keep live at once is a wasm
// local; V8's baseline tier (Liftoff, where a page's startup code runs) and
// SpiderMonkey's give each local a stack slot in every frame, so a deep
// recursion overflows the browser's stack sooner by that much. The shipped
// hooks hold the thread record, the depth and the `top` word (the record
// shares a local with the function's own value): two locals more than the
// same function with empty hooks. Keeping the new `top` beside the old one
// was a third, 8 bytes a frame: ~9 % of the depth in Chromium
// (bench/depth.mjs). Deterministic: reads the built wasm of
// tests/moving/depth.c with wasmtrace's hooks and with empty ones.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { wasmBuildDir } from '../lib/build-dir.mjs';

/** A wasm module's functions: name (name section) -> number of locals (params excluded). */
function functionLocals(bytes) {
  let at = 0;
  const u32 = () => {
    let v = 0, shift = 0, b;
    do {
      b = bytes[at++];
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return v;
  };
  const name = () => {
    const n = u32();
    const s = Buffer.from(bytes.subarray(at, at + n)).toString('utf8');
    at += n;
    return s;
  };
  assert.equal(Buffer.from(bytes.subarray(0, 4)).toString('latin1'), '\0asm');
  at = 8;
  let imported = 0;
  const locals = [];
  const names = new Map();
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = u32();
    const end = at + size;
    if (id === 2) { // imports: count the functions (they come first in the index space)
      for (let n = u32(); n > 0; n--) {
        name();
        name();
        const kind = bytes[at++];
        if (kind === 0) { u32(); imported++; }
        else if (kind === 1) { at++; const f = u32(); u32(); if (f & 1) u32(); }
        else if (kind === 2) { const f = u32(); u32(); if (f & 1) u32(); }
        else if (kind === 3) { at++; at++; }
        else throw new Error(`import kind ${kind}`);
      }
    } else if (id === 10) { // code: each body starts with its local declarations
      for (let n = u32(); n > 0; n--) {
        const bodySize = u32();
        const bodyEnd = at + bodySize;
        let count = 0;
        for (let groups = u32(); groups > 0; groups--) {
          count += u32();
          at++; // the type
        }
        locals.push(count);
        at = bodyEnd;
      }
    } else if (id === 0 && name() === 'name') {
      while (at < end) {
        const sub = bytes[at++];
        const subSize = u32();
        const subEnd = at + subSize;
        if (sub === 1) for (let n = u32(); n > 0; n--) { const index = u32(); names.set(name(), index); }
        at = subEnd;
      }
    }
    at = end;
  }
  const out = new Map();
  for (const [n, index] of names) if (index >= imported) out.set(n, locals[index - imported]);
  return out;
}

const build = (variant) => join(wasmBuildDir, `tests/moving/depth_${variant}.wasm`);

test('the inlined hooks add at most two locals to an instrumented function', { skip: !existsSync(build('wasmtrace')) && 'not built' }, () => {
  const withHooks = functionLocals(readFileSync(build('wasmtrace'))).get('recurse');
  const empty = functionLocals(readFileSync(build('empty'))).get('recurse');
  const plain = functionLocals(readFileSync(build('plain'))).get('recurse');
  assert.equal(typeof withHooks, 'number', 'recurse() is in the name section');
  // The empty hooks inline to nothing: the same function as not instrumented.
  assert.equal(empty, plain);
  assert.ok(withHooks - empty <= 2, `wasmtrace's hooks add ${withHooks - empty} locals to recurse() (${empty} -> ${withHooks})`);
});

// LTO inlines both hooks into every instrumented function, so none of
// depth_wasmtrace's code calls them and the linker keeps no body for them
// (its wasm-opt drops what nothing calls). A hooks file compiled where emcc
// sees -Os (it then adds -fno-inline-functions, which marks them noinline)
// left a call in every instrumented function: 7.4 instead of ~4.5 ns a call.
test('LTO inlines the hooks: no body of __cyg_profile_func_enter or _exit is left in the instrumented build',
  { skip: !existsSync(build('wasmtrace')) && 'not built' }, () => {
    const functions = functionLocals(readFileSync(build('wasmtrace')));
    assert.ok(functions.has('recurse'), 'recurse() is in the name section');
    for (const hook of ['__cyg_profile_func_enter', '__cyg_profile_func_exit', 'wt_stack_push', 'wt_stack_pop']) {
      assert.ok(!functions.has(hook), `${hook} is a function of its own: it was not inlined`);
    }
  });
