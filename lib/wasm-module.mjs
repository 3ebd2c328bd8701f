// What the JS-profile import reads of a wasm module's own bytes: which
// function a code offset falls in (the JS Self-Profiling API gives wasm
// frames as offsets) and the "name" custom section, which the recorder's
// own parser (lib/names.mjs) names functions from. No dependencies.

// A reader of a wasm module's bytes: its unsigned LEB128s and its sections
// (each { id, end }, the position at its payload); null when the bytes are
// not a wasm module. Throws a RangeError where they are cut short.
function moduleReader(bytes) {
  const b = bytes instanceof Uint8Array ? bytes : null;
  if (!b || b.length < 8 || b[0] !== 0 || b[1] !== 0x61 || b[2] !== 0x73 || b[3] !== 0x6d) return null;
  const r = {
    b,
    p: 8,
    leb() {
      let v = 0;
      for (let shift = 0; ; shift += 7) {
        if (r.p >= b.length || shift > 35) throw new RangeError('truncated');
        const c = b[r.p++];
        v += (c & 0x7f) * 2 ** shift;
        if (!(c & 0x80)) return v;
      }
    },
    *sections() {
      while (r.p < b.length) {
        const id = b[r.p++];
        const size = r.leb();
        const end = r.p + size;
        if (end > b.length) throw new RangeError('truncated');
        yield { id, end };
        r.p = end;
      }
    },
  };
  return r;
}

/**
 * The function index of the wasm function whose code starts at `offset`
 * (the column Chromium gives a wasm frame), from the module's bytes: a
 * lookup built once by reading the import and code sections. Returns a
 * function (offset -> index or null), or null when the bytes are not a
 * wasm module it can read.
 */
export function wasmFunctionLocator(bytes) {
  const r = moduleReader(bytes);
  if (!r) return null;
  const { b } = r;
  const leb = () => r.leb();
  try {
    let imported = 0;
    let starts = null;
    for (const { id } of r.sections()) {
      if (id === 2) { // imports: count the functions (kind 0)
        const n = leb();
        for (let i = 0; i < n; i++) {
          const moduleName = leb();
          r.p += moduleName;
          const fieldName = leb();
          r.p += fieldName;
          const kind = b[r.p++];
          if (kind === 0) { leb(); imported++; } else if (kind === 1) { r.p++; const f = b[r.p++]; leb(); if (f & 1) leb(); } else if (kind === 2) { const f = b[r.p++]; leb(); if (f & 1) leb(); } else if (kind === 3) { r.p += 2; } else if (kind === 4) { r.p++; leb(); } else return null;
        }
      } else if (id === 10) { // code: each body's offset
        const n = leb();
        starts = [];
        for (let i = 0; i < n; i++) {
          const bodySize = leb();
          starts.push(r.p);
          r.p += bodySize;
        }
      }
    }
    if (!starts) return null;
    return (offset) => {
      // The body that contains the offset (Chromium's column: the body's
      // first byte, or one past it depending on the version).
      let lo = 0;
      let hi = starts.length - 1;
      if (hi < 0 || offset < starts[0] - 1) return null;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid] <= offset + 1) lo = mid;
        else hi = mid - 1;
      }
      return imported + lo;
    };
  } catch {
    return null;
  }
}

/**
 * The payload of a wasm module's "name" custom section (bytes), or null.
 */
export function wasmNameSection(bytes) {
  const r = moduleReader(bytes);
  if (!r) return null;
  const { b } = r;
  try {
    for (const { id, end } of r.sections()) {
      if (id !== 0) continue;
      const len = r.leb();
      if (r.p + len <= end && len === 4 && b[r.p] === 0x6e && b[r.p + 1] === 0x61 && b[r.p + 2] === 0x6d && b[r.p + 3] === 0x65) {
        return b.subarray(r.p + len, end);
      }
    }
  } catch {
    return null;
  }
  return null;
}
