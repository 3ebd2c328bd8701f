import { readFileSync } from 'node:fs';
import * as Trace from '@paulirish/trace_engine';
import { polyfillDOMRect } from '@paulirish/trace_engine/analyze-trace.mjs';
import { parseTrace, analyzeTrace } from '../scripts/lib/trace.mjs';
polyfillDOMRect();
const mode = process.argv[3];
let events = parseTrace(readFileSync(process.argv[2] || 'out/startup.json.gz'));
const ours = analyzeTrace(structuredClone(events));
if (mode === 'enclose') {
  for (const w of events.filter(e => e.cat === 'wasmtrace' && e.ph === 'X')) {
    const xs = events.filter(e => e.ph === 'X' && e.tid === w.tid && e !== w);
    const start = Math.min(w.ts, ...xs.map(e => e.ts)); const end = Math.max(w.ts + w.dur, ...xs.map(e => e.ts + e.dur));
    w.ts = start; w.dur = end - start;
  }
} else if (mode === 'drop') events = events.filter(e => e.cat !== 'wasmtrace');
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events);
const data = model.parsedTrace().data;
for (const t of Trace.Handlers.Threads.threadsInTrace(data)) {
  const self = new Map();
  for (const e of t.entries) { const n = t.entryToNode.get(e); const k = (Trace.Types.Events.isProfileCall(e) ? 'f:' + e.callFrame.functionName : 'ev:' + e.name); self.set(k, (self.get(k) || 0) + (n?.selfTime ?? 0)); }
  const o = ours.threads.find(x => x.tid === t.tid); const ts = new Map();
  for (let i=0;i<o.samples.length-1;i++){ const leaf = 'f:' + (o.samples[i].stack.at(-1) ?? '(idle)'); ts.set(leaf,(ts.get(leaf)||0)+o.samples[i+1].ts-o.samples[i].ts); }
  console.log(t.tid, t.name, [...self].filter(([k,v])=>v>=500).sort((a,b)=>b[1]-a[1]).map(([n,v])=>`${n}=${(v/1000).toFixed(1)}`).join(' '));
  console.log('   ours', [...ts].sort((a,b)=>b[1]-a[1]).map(([n,v])=>`${n}=${(v/1000).toFixed(1)}`).join(' '));
}
