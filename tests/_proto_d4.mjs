import { readFileSync } from 'node:fs';
import * as Trace from '@paulirish/trace_engine';
import { polyfillDOMRect } from '@paulirish/trace_engine/analyze-trace.mjs';
import { parseTrace, analyzeTrace } from '../scripts/lib/trace.mjs';
polyfillDOMRect();
const events = parseTrace(readFileSync(process.argv[2] || 'out/startup.json.gz'));
const ours = analyzeTrace(events.map(e=>structuredClone(e)));
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events);
const data = model.parsedTrace().data;
for (const t of Trace.Handlers.Threads.threadsInTrace(data)) {
  const used = new Set(t.entries.filter(e => Trace.Types.Events.isProfileCall(e)).map(e => e.sampleIndex));
  const o = ours.threads.find(x => x.tid === t.tid);
  const lost = o.samples.map((s, i) => ({ i, ...s })).filter(s => !used.has(s.i));
  console.log(t.tid, t.name, 'samples', o.samples.length, 'samples starting a profile call', used.size);
  // leaf-change samples only start calls; show the lost samples whose stack differs from previous sample
  const changes = o.samples.map((s, i) => ({ i, ...s })).filter((s, i, a) => i === 0 || a[i - 1].stack.join(';') !== s.stack.join(';'));
  const lostChanges = changes.filter(s => !used.has(s.i));
  console.log('   stack changes', changes.length, 'not turned into calls', lostChanges.length);
  for (const s of lostChanges.slice(0, 6)) {
    const scopes = o.scopes.filter(sc => sc.ts <= s.ts && s.ts < sc.ts + sc.dur).map(sc => sc.name);
    console.log('     #' + s.i, s.ts, s.stack.join(';'), '| inside scopes:', scopes.join(' > '));
  }
}
