// native/src's modules (a .c and its .h) and what they include (issue 39:
// no cycles). Two cycles of includes are left, written here; any other is
// a failure, and one of these that grows or goes away must be written
// here too (a ratchet: the house only gets tidier). The two cycles the
// issue named are gone: api.c -> worker.c -> session_encode.c -> api.c
// (session_encode asks the session's host whether the pthreads are
// wrapped) and heap.c <-> runtime.c (the runtime registers its wake).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const dir = resolve(dirname(fileURLToPath(import.meta.url)), '../../native/src');

/** module -> the modules its files include (wasmtrace/x.h is the public header, not a module). */
function includeGraph() {
  const graph = new Map();
  for (const f of readdirSync(dir).filter((x) => /\.[ch]$/.test(x))) {
    const m = f.slice(0, -2);
    const deps = graph.get(m) ?? new Set();
    for (const [, h] of readFileSync(join(dir, f), 'utf8').matchAll(/#include "(\w+)\.h"/g)) {
      if (h !== m && (existsSync(join(dir, `${h}.c`)) || existsSync(join(dir, `${h}.h`)))) deps.add(h);
    }
    graph.set(m, deps);
  }
  return graph;
}

/** The strongly connected components of more than one module (Tarjan). */
function cycles(graph) {
  let next = 0;
  const index = new Map(), low = new Map(), stack = [], onStack = new Set(), out = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const c = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort().join(' '));
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out.sort();
}

test('the include cycles of native/src are the two written here, no more', () => {
  const found = cycles(includeGraph());
  assert.deepEqual(found, [
    // the worker's loop, the runtime that starts it, the server it serves, the categories it updates.
    'categories runtime server worker',
    // config.c reads outputs' policy, outputs.c parses through config_read.h.
    'config config_read outputs',
  ]);
});

test('the checker finds a cycle where there is one', () => {
  assert.deepEqual(cycles(new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])], ['d', new Set(['a'])]])), ['a b c']);
});

test('heap and session_encode reach nothing above them', () => {
  const g = includeGraph();
  assert.ok(!g.get('heap').has('runtime'), 'heap.c wakes the worker through the waker the runtime registers');
  assert.ok(!g.get('session_encode').has('threads'), "session_encode asks the session's host whether the pthreads are wrapped");
});
