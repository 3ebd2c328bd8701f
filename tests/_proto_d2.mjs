import { readFileSync } from 'node:fs';
import * as Trace from '@paulirish/trace_engine';
import { polyfillDOMRect } from '@paulirish/trace_engine/analyze-trace.mjs';
import { parseTrace, analyzeTrace, selfCounts } from '../scripts/lib/trace.mjs';
polyfillDOMRect();
const bytes = readFileSync(process.argv[2] || 'out/startup.json.gz');
const events = parseTrace(bytes);
const ours = analyzeTrace(parseTrace(bytes));
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events);
const pt = model.parsedTrace(); const data = pt.data;
const threads = Trace.Handlers.Threads.threadsInTrace(data);
for (const t of threads) {
  const s = data.Samples.profilesInProcess.get(t.pid)?.get(t.tid);
  const calls = t.entries.filter(e => Trace.Types.Events.isProfileCall(e));
  const self = new Map();
  for (const c of calls) { const n = t.entryToNode.get(c); const name = c.callFrame.functionName; self.set(name, (self.get(name)||0) + (n?.selfTime ?? NaN)); }
  const top = [...self].sort((a,b)=>b[1]-a[1]).slice(0,8).map(([n,v])=>`${n}=${(v/1000).toFixed(1)}ms`);
  // total time covered by leaf profile calls
  const ourT = ours.threads.find(x => x.tid === t.tid);
  // our time-weighted self
  const ts = new Map(); const smp = ourT.samples;
  for (let i=0;i<smp.length-1;i++){ const leaf = smp[i].stack.at(-1) ?? '(idle)'; ts.set(leaf,(ts.get(leaf)||0)+smp[i+1].ts-smp[i].ts); }
  console.log(t.tid, t.name, t.type, 'entries', t.entries.length, 'samples', s?.parsedProfile.samples.length, 'calls', calls.length);
  console.log('   devtools self', top.join(' '));
  console.log('   ours counts  ', selfCounts(ours, t.tid).slice(0,8).map(([n,c])=>`${n}=${c}`).join(' '));
  console.log('   ours time    ', [...ts].sort((a,b)=>b[1]-a[1]).slice(0,8).map(([n,v])=>`${n}=${(v/1000).toFixed(1)}ms`).join(' '));
  // model-level self
  const pm = s.parsedProfile; const ms = new Map();
  pm.forEachNode(n => { ms.set(n.functionName, (ms.get(n.functionName)||0) + n.self); });
  console.log('   model self   ', [...ms].sort((a,b)=>b[1]-a[1]).slice(0,8).map(([n,v])=>`${n}=${v.toFixed(1)}ms`).join(' '));
}
