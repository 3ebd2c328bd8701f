// wasmtrace's Node API (the package's main export): read traces of any
// format, the views a report shows, the report itself, and the static server
// with the cross-origin isolation headers pthread pages need. Types in
// index.d.ts; the Playwright helper is the 'wasmtrace/playwright' export.
export { readProfile, detectFormat, functionTable, callTree, threadTotals, weightOf, weightToMs, MARKERS, realDepth, startupOf, longTasksOf, TraceError } from './profile.mjs';
export { startupSummary, startupWaterfall, startupCoverage, startupMoments, longTaskSummary } from './startup.mjs';
export { callsOf, callsByFunction, callSummary } from './calls.mjs';
export { textReport, htmlReport, reportData } from './report.mjs';
export { serve } from './serve.mjs';
export { addJsProfile, readJsProfile, wasmFunctionLocator, isJsProfileThread, JS_THREAD_NAME } from './jsprofile.mjs';
export { toPprof } from './pprof.mjs';
