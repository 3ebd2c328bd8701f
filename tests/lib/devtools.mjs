// Opens a trace with Chrome DevTools' own trace engine: the Performance
// panel's models/trace, published on npm as @paulirish/trace_engine (the
// package Lighthouse uses), run in Node.
//
// Per thread this reports what the Performance panel builds its tracks and
// tree views from:
//  - the CPU profile the Samples handler rebuilt from Profile/ProfileChunk
//    (cpuSamples: samples it kept);
//  - the ProfileCalls the SamplesIntegrator derived from those samples and
//    merged with the thread's trace events (Renderer handler);
//  - the thread's entry tree (what the flame chart draws): entries that
//    do not nest are silently left out of it (TreeHelpers.treify), so
//    `droppedFromTree` lists them;
//  - the Bottom-Up view (Extras.TraceTree.BottomUpRootNode over the
//    thread's entries): self time per function (ProfileCalls) and per
//    trace event name;
//  - whether the thread gets a track: the panel makes one ThreadAppender
//    per thread of Handlers.Threads.threadsInTrace(); in a generic trace
//    (not a Chrome browser trace, like ours) every entry is visible, so a
//    thread has a track when it is listed there with at least one entry.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import * as Trace from '@paulirish/trace_engine';
import { polyfillDOMRect } from '@paulirish/trace_engine/analyze-trace.mjs';

const require = createRequire(import.meta.url);

function traceEngineVersion() {
  return JSON.parse(readFileSync(require.resolve('@paulirish/trace_engine/package.json'), 'utf8')).version;
}

/**
 * @param {object[]} traceEvents Chrome Trace Event objects (not mutated)
 * @returns {Promise<{version: string, traceIsGeneric: boolean,
 *   bounds: {min: number, max: number}, threads: object[], warnings: string[]}>}
 */
export async function importWithDevTools(traceEvents) {
  // The engine expects a browser: DOMRect is the one global it needs.
  if (typeof globalThis.DOMRect === 'undefined') polyfillDOMRect();

  // The engine annotates and reorders what it is given: work on a copy.
  const events = structuredClone(traceEvents);
  const warnings = [];
  const origError = console.error;
  const origWarn = console.warn;
  console.error = (...a) => warnings.push(`error: ${a.join(' ')}`);
  console.warn = (...a) => warnings.push(`warn: ${a.join(' ')}`);
  let data;
  try {
    const model = Trace.TraceModel.Model.createWithAllHandlers();
    await model.parse(events);
    data = model.parsedTrace().data;
  } finally {
    console.error = origError;
    console.warn = origWarn;
  }

  const bounds = data.Meta.traceBounds;
  const threads = [];
  for (const t of Trace.Handlers.Threads.threadsInTrace(data)) {
    const samples = data.Samples.profilesInProcess.get(t.pid)?.get(t.tid);
    const renderer = data.Renderer.processes.get(t.pid)?.threads.get(t.tid);
    const profileCalls = renderer?.profileCalls ?? t.entries.filter((e) => Trace.Types.Events.isProfileCall(e));
    const label = (e) => (Trace.Types.Events.isProfileCall(e) ? `ProfileCall ${e.callFrame.functionName}` : `${e.ph} ${e.name}`);
    const dropped = t.entries.filter((e) => !t.entryToNode.has(e));

    // Bottom-Up, ungrouped, over the whole trace: what the panel's tab shows.
    const bottomUp = new Trace.Extras.TraceTree.BottomUpRootNode(t.entries, {
      textFilter: { accept: () => true },
      filters: [],
      startTime: Trace.Helpers.Timing.microToMilli(bounds.min),
      endTime: Trace.Helpers.Timing.microToMilli(bounds.max),
    });
    const functionSelfMs = new Map();
    const eventSelfMs = new Map();
    for (const node of bottomUp.children().values()) {
      if (Trace.Types.Events.isProfileCall(node.event)) {
        const name = node.event.callFrame.functionName;
        functionSelfMs.set(name, (functionSelfMs.get(name) || 0) + node.selfTime);
      } else {
        eventSelfMs.set(node.event.name, (eventSelfMs.get(node.event.name) || 0) + node.selfTime);
      }
    }
    const sorted = (m) => [...m.entries()].sort((a, b) => b[1] - a[1]);

    threads.push({
      pid: t.pid,
      tid: t.tid,
      name: t.name,
      type: t.type,
      hasTrack: t.entries.length > 0 && (t.tree?.roots.size ?? 0) > 0,
      profileId: samples?.profileId ?? null,
      cpuSamples: samples?.parsedProfile?.samples?.length ?? 0,
      profileCalls: profileCalls.length,
      entries: t.entries.length,
      droppedFromTree: dropped.map(label),
      functionSelfMs: sorted(functionSelfMs),
      eventSelfMs: sorted(eventSelfMs),
    });
  }
  return {
    version: traceEngineVersion(),
    traceIsGeneric: data.Meta.traceIsGeneric,
    bounds: { min: bounds.min, max: bounds.max },
    threads,
    warnings,
  };
}
