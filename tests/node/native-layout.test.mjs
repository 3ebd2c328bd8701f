// native/src's modules (a .c and its .h) and what they include (issue 39:
// no cycles, as in zlib, cJSON and the Perfetto SDK). The cycles the issue
// named are gone: api.c -> worker.c -> session_encode.c -> api.c
// (session_encode asks the session's host whether the pthreads are
// wrapped) and heap.c <-> runtime.c (the runtime registers its wake); and
// config <-> outputs <-> config_read (the output policy takes plain values
// and owns the path constants; config_read.h needs nothing of config.h);
// categories, runtime, server, worker (the runtime object is its own
// module below them; its start and the test reset are runtime_start.c).
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

test('native/src has no include cycle', () => {
  assert.deepEqual(cycles(includeGraph()), []);
});

test('the checker finds a cycle where there is one', () => {
  assert.deepEqual(cycles(new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])], ['d', new Set(['a'])]])), ['a b c']);
});

test('heap and session_encode reach nothing above them', () => {
  const g = includeGraph();
  assert.ok(!g.get('heap').has('runtime'), 'heap.c wakes the worker through the waker the runtime registers');
  assert.ok(!g.get('session_encode').has('threads'), "session_encode asks the session's host whether the pthreads are wrapped");
});

// The recorders (native/src/recorder.h): the session, the worker, the API
// and the encoders call them through the registry (recorders.c) and name
// none of them; a recorder's data source (heap.h, phases.h) is its own.
test('the session, the worker, the API and the encoders name no recorder', () => {
  const g = includeGraph();
  const core = ['session', 'session_encode', 'worker', 'api', 'encoder', 'encoder_chrome', 'encoder_firefox', 'encoder_folded'];
  for (const m of core) {
    for (const own of ['heap', 'phases', 'span_table', 'rec_counters', 'rec_heap', 'rec_timeline', 'rec_longtask', 'rec_calls', 'rec_events', 'rec_samples']) {
      assert.ok(!g.get(m).has(own), `${m} includes ${own}.h: reach it through recorders.h`);
    }
  }
  const named = [];
  for (const f of readdirSync(dir).filter((x) => /\.[ch]$/.test(x))) {
    if (/^(rec_|recorders\.c)/.test(f)) continue;
    if (/wt_recorder_(samples|counters|heap|timeline|longtask|calls|events)\b/.test(readFileSync(join(dir, f), 'utf8'))) named.push(f);
  }
  assert.deepEqual(named, [], 'only the registry (recorders.c) names a recorder');
});

// No file of native/src, js or lib over 600 lines (issue 39).
test('no source file is over 600 lines', () => {
  const top = resolve(dir, '../..');
  const over = [];
  for (const d of ['native/src', 'js', 'lib', 'lib/commands']) {
    for (const f of readdirSync(join(top, d)).filter((x) => /\.(c|h|js|mjs)$/.test(x))) {
      const rel = `${d}/${f}`;
      const lines = readFileSync(join(top, rel), 'utf8').split('\n').length - 1;
      if (lines > 600) over.push(`${rel}: ${lines} lines`);
    }
  }
  assert.deepEqual(over, []);
});
