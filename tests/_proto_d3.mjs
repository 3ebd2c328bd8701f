import { readFileSync } from 'node:fs';
import * as Trace from '@paulirish/trace_engine';
import { polyfillDOMRect } from '@paulirish/trace_engine/analyze-trace.mjs';
import { parseTrace } from '../scripts/lib/trace.mjs';
polyfillDOMRect();
const events = parseTrace(readFileSync(process.argv[2] || 'out/startup.json.gz'));
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events);
const data = model.parsedTrace().data;
for (const t of Trace.Handlers.Threads.threadsInTrace(data)) {
  const self = new Map();
  for (const e of t.entries) { const n = t.entryToNode.get(e); const k = (Trace.Types.Events.isProfileCall(e) ? 'f:' + e.callFrame.functionName : 'ev:' + e.name); const v = self.get(k) || [0,0]; v[0] += n?.selfTime ?? 0; v[1]++; self.set(k, v); }
  console.log(t.tid, t.name, [...self].sort((a,b)=>b[1][0]-a[1][0]).map(([n,v])=>`${n}=${(v[0]/1000).toFixed(1)}ms/${v[1]}`).join(' '));
  const roots = [...t.tree.roots].map(r => `${r.entry.name}${r.entry.callFrame ? ':' + r.entry.callFrame.functionName : ''}@${r.entry.ts}+${r.entry.dur}`);
  console.log('   roots', roots.length, roots.slice(0, 6).join(' '));
}
