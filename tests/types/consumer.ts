// A consumer of every documented API, type-checked with the package's own
// declarations (tsc --noEmit --strict -p tests/types; tests/node/types.test.mjs).
// It is compiled, never run: each call is written as a user would write it.
import {
  readProfile, detectFormat, functionTable, callTree, threadTotals, weightOf, weightToMs, MARKERS, realDepth,
  startupOf, TraceError, startupSummary, startupWaterfall, startupCoverage, startupMoments, textReport, htmlReport,
  reportData, serve, addJsProfile, readJsProfile, wasmFunctionLocator, isJsProfileThread, JS_THREAD_NAME, toPprof,
} from 'wasmtrace';
import type {
  Profile, ProfileThread, FunctionRow, CallTreeNode, StartupTimeline, TraceFormat, WasmtraceConfig,
  WasmtraceModule, WasmtraceSession, WasmtraceSessionConfig, WasmtraceStats,
} from 'wasmtrace';
import {
  DEFAULT_MODULE, adviceFor, configure, withConfig, abortReason, watchPage, status, waitForWasmtrace, startSession,
  waitForSessions, collectTraces, CHROMIUM_JS_PROFILING_FEATURES, CHROMIUM_JS_PROFILING_ARGS, compare,
  assertNotSlower, samplesIn, timeIn, assertRan, assertTimeBelow, startupAt, assertStartupBefore, WasmtraceError,
  readProfile as readProfileAgain,
} from 'wasmtrace/playwright';
import type { PageLike, CollectedTrace, DiffResult, DiffRow, PageStatus, WasmtraceErrorCode } from 'wasmtrace/playwright';

// ---- the config, every key of the schema ----
const session: WasmtraceSessionConfig = {
  name: 'startup', output: '/traces/startup.json.gz', format: 'firefox', compression: 'gzip', compressionLevel: 1,
  sampling: { enabled: true, intervalUs: 1000 }, categories: ['*'], durationMs: 3000, maxBufferKB: 16384,
  whenFull: 'ring', counters: { enabled: true, intervalMs: 10 }, heap: { enabled: true, sampleBytes: 524288 },
  overwrite: false, stream: false,
};
const config: WasmtraceConfig = {
  $schema: 'node_modules/wasmtrace/config/wasmtrace.schema.json', version: 1, sessions: [session],
  server: { url: 'ws://127.0.0.1:9777', suspend: false, suspendTimeoutMs: 10000, token: 't', reconnectMs: 1000 },
};

// ---- in the page: Module.wasmtrace ----
declare const Module: WasmtraceModule;
async function inThePage(): Promise<Blob[]> {
  Module.wasmtraceConfig = config;
  const api = Module.wasmtrace;
  const v: string = api.version;
  api.mark('ready');
  const s: WasmtraceSession = api.startSession({ name: 'later', durationMs: 500 });
  const stats: WasmtraceStats = s.stats();
  const n: number = stats.samplesTaken + stats.ticksMissed + stats.samplesWaiting;
  const again: WasmtraceSession | null = api.getSession(s.id);
  const mem = api.memory();
  const js = await api.jsProfile();
  api.pump();
  const problems: Array<string | null> = [api.configError, api.aborted, api.server?.error ?? null, again?.error ?? null, js.reason];
  const blobs: Blob[] = [];
  for (const started of api.getStartupSessions()) {
    const stopped = await started.stop();
    if (stopped.state === 'stopped') blobs.push(stopped.getTraceBlob());
    const bytes: Uint8Array = stopped.getTraceBytes();
    stopped.download(`${stopped.name}-${bytes.length}-${v}-${n}-${mem.heapBytes}-${problems.length}.json.gz`);
  }
  return blobs;
}

// ---- in Node: reading traces ----
function readTrace(bytes: Uint8Array): string[] {
  const lines: string[] = [];
  const format: TraceFormat | 'json' = detectFormat('[');
  let profile: Profile;
  try {
    profile = readProfile(bytes, { maxBytes: 64 << 20 });
  } catch (e) {
    if (e instanceof TraceError) return [e.code, e.message, format];
    throw e;
  }
  for (const t of profile.threads as ProfileThread[]) {
    const rows: FunctionRow[] = functionTable(t);
    const tree: CallTreeNode = callTree(t);
    const totals = threadTotals(t);
    const ms: number | null = weightToMs(profile, weightOf(t, 'main', { self: true }));
    lines.push(`${t.name} ${rows[0]?.name} ${tree.value} ${totals.busy} ${ms} ${realDepth([MARKERS.waiting])} ${isJsProfileThread(t.name)}`);
  }
  const timeline: StartupTimeline | null = startupOf(profile.stats) ?? profile.startup;
  const m = startupMoments(timeline);
  lines.push(startupSummary(timeline) ?? '', ...startupWaterfall(timeline, { width: 40 }), `${startupCoverage(timeline, m.main)} ${m.workers}`);
  lines.push(textReport(profile, { top: 5, thread: 'main' }), htmlReport(profile, { title: 't' }), JSON.stringify(reportData(profile)));
  const pprof: Uint8Array = toPprof(profile, { kind: 'cpu', thread: 'main' });
  lines.push(String(pprof.length), JS_THREAD_NAME);
  return lines;
}

async function servePage(wasm: Uint8Array, trace: Uint8Array, jsProfile: unknown): Promise<number> {
  const server = await serve('build/wasm/samples/startup', { port: 0, jsProfiling: true });
  const added = addJsProfile(trace, jsProfile, { wasmBytes: wasm });
  const read = readJsProfile(jsProfile, {});
  const locate = wasmFunctionLocator(wasm);
  await server.close();
  return added.added + added.workers.length + (locate ? locate(0) ?? 0 : 0) + (read ? 1 : 0) + server.port;
}

// ---- in a Playwright test ----
async function playwrightTest(page: PageLike, mainTraces: string, prTraces: CollectedTrace[]): Promise<DiffResult> {
  await configure(page, config);
  const url: string = withConfig('http://127.0.0.1/index.html', config);
  const watch = watchPage(page);
  const ready: PageStatus = await waitForWasmtrace(page, { timeoutMs: 30000, module: DEFAULT_MODULE });
  const started = await startSession(page, { name: 'extra' });
  const waited = await waitForSessions(page, { until: 'window.done === true', timeoutMs: 60000 });
  const now = await status(page);
  const traces = await collectTraces(page, { outDir: 'traces', parse: true, jsProfile: true });
  for (const t of traces) {
    const p = t.profile ?? readProfileAgain(t.bytes ?? new Uint8Array());
    assertRan(p, 'tokenize', { thread: 'main', minSamples: 20 });
    const inTokenize: number = samplesIn(p, 'tokenize', { self: true });
    const time = timeIn(p, 'parse', { source: 'auto' });
    assertTimeBelow(p, 'parse', 500, { self: false });
    const mainAt: number = startupAt(p, 'main() starts');
    assertStartupBefore(p, 'main() starts', 2000);
    if (inTokenize + time.ms + mainAt < 0) throw new WasmtraceError('assert-ran', `${url} ${started.state} ${waited.reason} ${now.sessions.length} ${ready.status}`);
  }
  const fault: WasmtraceError | null = watch.fault;
  const code: WasmtraceErrorCode | undefined = fault?.code;
  const advice: string | null = adviceFor('pool') ?? abortReason('Aborted(x)') ?? code ?? null;
  const result = compare(mainTraces, prTraces, { threshold: '2%,1ms', minShare: 0.5, paired: false });
  const pairedRuns: boolean = result.paired;
  const rows: DiffRow[] = result.rows.filter((r) => r.verdict === 'slower');
  if (rows.length && !pairedRuns && advice !== '' && CHROMIUM_JS_PROFILING_FEATURES.length + CHROMIUM_JS_PROFILING_ARGS.length > 0) {
    assertNotSlower(result);
  }
  return result;
}

export { inThePage, readTrace, servePage, playwrightTest };
