// Crafted trace files of issue 12 (class 6), generated rather than committed:
// each is a few hundred bytes (or 2 MB for the gzip bomb) and used to crash
// or hang `wasmtrace report` and every reader of the package. Shared by
// tests/node/hostile-traces.test.mjs and the reader fuzzers.
import { gzipSync } from 'node:zlib';

const thread = (over) => ({
  name: 't',
  tid: 1,
  stringArray: ['main', 'f'],
  funcTable: { length: 2, name: [0, 1] },
  frameTable: { length: 2, func: [0, 1] },
  stackTable: { length: 2, frame: [0, 1], prefix: [null, 0] },
  samples: { length: 1, stack: [1], time: [0] },
  ...over,
});
const firefox = (th) => JSON.stringify({ meta: { interval: 1 }, threads: [th] });

/** A firefox profile whose stack prefixes form a cycle (0 -> 1 -> 0). */
export function firefoxPrefixCycle() {
  return firefox(thread({ stackTable: { length: 2, frame: [0, 1], prefix: [1, 0] } }));
}

/** A firefox profile whose only stack is its own prefix. */
export function firefoxSelfPrefix() {
  return firefox(thread({ stackTable: { length: 1, frame: [0], prefix: [0] }, samples: { length: 1, stack: [0], time: [0] } }));
}

/** A firefox profile claiming a billion samples, with one present. */
export function firefoxBillionSamples() {
  return firefox(thread({ samples: { length: 1e9, stack: [1], time: [0] } }));
}

/** A firefox profile with one stack chain `depth` deep, sampled at its leaf. */
export function firefoxDeepChain(depth = 100000) {
  const frame = new Array(depth).fill(1);
  frame[0] = 0;
  const prefix = Array.from({ length: depth }, (_, i) => (i ? i - 1 : null));
  return firefox(thread({
    stackTable: { length: depth, frame, prefix },
    samples: { length: 2, stack: [depth - 1, depth - 1], time: [0, 1] },
  }));
}

/** A chrome trace whose cpuProfile nodes form one chain `depth` deep. */
export function chromeDeepChain(depth = 100000) {
  const nodes = [{ id: 1, callFrame: { functionName: '(root)' } }];
  for (let i = 2; i <= depth + 1; i++) nodes.push({ id: i, parent: i - 1, callFrame: { functionName: `f${i % 7}` } });
  return JSON.stringify({ traceEvents: [
    { ph: 'P', name: 'Profile', tid: 1, args: { data: { startTime: 0 } } },
    { ph: 'P', name: 'ProfileChunk', tid: 1, args: { data: { cpuProfile: { nodes, samples: [depth + 1, depth + 1] }, timeDeltas: [1, 1] } } },
  ] });
}

/** A chrome trace whose cpuProfile nodes are each other's parents. */
export function chromeParentCycle() {
  const nodes = [{ id: 1, parent: 2, callFrame: { functionName: 'a' } }, { id: 2, parent: 1, callFrame: { functionName: 'b' } }];
  return JSON.stringify({ traceEvents: [
    { ph: 'P', name: 'ProfileChunk', tid: 1, args: { data: { cpuProfile: { nodes, samples: [1] }, timeDeltas: [1] } } },
  ] });
}

/**
 * A gzip file of about `mib` MiB that inflates about 1000 times larger:
 * gzip members of 64 MiB of zeros each, concatenated (a valid multi-member
 * gzip file). Only one member's input is ever held in memory.
 */
export function gzipBomb(mib = 2) {
  const member = gzipSync(Buffer.alloc(64 << 20), { level: 9 });
  const count = Math.max(1, Math.round((mib << 20) / member.length));
  return Buffer.concat(new Array(count).fill(member));
}
