// wasmtrace (linked with --pre-js, after wasmtrace_pre.js): the page's
// startup observers, each a plug-in of the page's lifecycle
// (wasmtracePage, js/wasmtrace_pre.js): the JS Self-Profiling API on the
// page and in workers, the main thread's long tasks, and the startup
// timeline. This file runs before the module is fetched and compiled, so
// what it does it does by observing: it never waits or fetches. An app
// linked without it is told once on the console (js/wasmtrace_post.js),
// and one that links it before wasmtrace_pre.js, here.
if (typeof window !== 'undefined' && typeof document !== 'undefined' && typeof wasmtracePage === 'undefined') {
  console.warn('wasmtrace: js/wasmtrace_startup.js is linked before js/wasmtrace_pre.js: no startup timeline, long ' +
    'tasks or JS profiles; give wasmtrace_pre.js first (`wasmtrace flags --ldflags` has the order)');
}

// ---- The JS Self-Profiling API (Chromium), on the page and in workers ---
// The browser's own sampler of a thread's JavaScript and wasm, at its 10 ms,
// started here, before the module is fetched, when the document (or, in a
// worker, the worker's script) was served with `Document-Policy:
// js-profiling` (wasmtrace record's server sends it) and, in a worker, when
// Chromium runs with the features DocumentPolicyInDedicatedWorker and
// ProfilerAPIForDedicatedWorker (wasmtrace's launcher enables them). One
// profile per thread, read when the page first calls jsProfile() (the API
// gives samples only once stopped); lib/jsprofile.mjs adds them to a trace
// as the threads "main (JS)" and "worker N (JS)". A pthread worker answers
// on a BroadcastChannel only when its event loop runs: a worker whose
// pthread still runs (e.g. wasmtrace's own) cannot, and is counted.
var WASMTRACE_JS_PROFILE_CHANNEL = 'wasmtrace-js-profile';
function wasmtraceJsProfiler(now) {
  var INTERVAL_MS = 10, MAX_SAMPLES = 60000; // 10 minutes at 10 ms
  var profiler = null, start = -1, full = false, reason = '', taken = null;
  try {
    if (typeof Profiler !== 'function') {
      reason = 'this browser has no JS Self-Profiling API (Profiler): Chromium has it';
    } else {
      start = now();
      profiler = new Profiler({ sampleInterval: INTERVAL_MS, maxBufferSize: MAX_SAMPLES });
      try {
        profiler.addEventListener('samplebufferfull', function () { full = true; });
      } catch (e) { /* not told when it is full */ }
    }
  } catch (e) {
    profiler = null;
    reason = (e && e.name === 'NotAllowedError' ? 'the document was not served with the header ' +
      '"Document-Policy: js-profiling"' : 'new Profiler() failed: ' + (e && e.message)) +
      ' (wasmtrace record sends it; --no-js-profile turns it off)';
  }
  return {
    running: !!profiler,
    // A Promise of plain data (structured-cloneable; times on this
    // thread's performance.now(), ms), or of { reason }. Once.
    take: function () {
      if (taken) return taken;
      if (!profiler) {
        taken = Promise.resolve({ reason: reason });
        return taken;
      }
      var interval = profiler.sampleInterval;
      taken = profiler.stop().then(function (trace) {
        return {
          reason: '', intervalMs: interval, startMs: start, stopMs: now(), full: full,
          samples: trace.samples.map(function (x) { return x.stackId === undefined ? [x.timestamp] : [x.timestamp, x.stackId]; }),
          stacks: trace.stacks.map(function (x) { return x.parentId === undefined ? [x.frameId] : [x.frameId, x.parentId]; }),
          frames: trace.frames.map(function (f) {
            return { name: f.name || '', resource: f.resourceId === undefined ? -1 : f.resourceId,
              line: f.line === undefined ? -1 : f.line, column: f.column === undefined ? -1 : f.column };
          }),
          resources: trace.resources.slice(),
        };
      }, function (e) {
        return { reason: 'the JS profiler could not be read: ' + (e && e.message) };
      });
      return taken;
    },
  };
}
// In a pthread worker: its profile, given to the page that asks.
(function () {
  if (typeof WorkerGlobalScope === 'undefined' || typeof self === 'undefined' || !(self instanceof WorkerGlobalScope) ||
      typeof BroadcastChannel !== 'function' || typeof performance === 'undefined') return;
  var profiler = wasmtraceJsProfiler(function () { return performance.now(); });
  if (!profiler.running) return; // the page says why (its own profile has the reason)
  try {
    var channel = new BroadcastChannel(WASMTRACE_JS_PROFILE_CHANNEL);
    channel.onmessage = function (e) {
      var d = e.data;
      // Only a page that existed when this worker started can be its own
      // (a BroadcastChannel reaches every page of the origin).
      if (!d || d.cmd !== 'take' || !(d.pageOrigin <= performance.timeOrigin)) return;
      profiler.take().then(function (p) {
        p.timeOrigin = performance.timeOrigin;
        channel.postMessage({ cmd: 'profile', nonce: d.nonce, profile: p });
        channel.close();
      });
    };
  } catch (e) { /* not profiled */ }
})();

// ---- Long tasks (page main thread only) ----------------------------------
// The page main thread's long tasks (tasks of 50 ms or more: the browser's
// `longtask` PerformanceObserver entries, buffered: those from before this
// script ran are delivered too; Chromium has them, Firefox does not), on
// the samples' clock, handed to C (native/src/rec_longtask.c) once the
// module is up (the lifecycle's attach), kept here until then. Called only
// on the page's main thread, like wasmtraceStartupTimeline below.
var wasmtraceLongTasks = typeof window === 'undefined' || typeof document === 'undefined' ||
  typeof wasmtracePage === 'undefined' ? null : wasmtracePage.use(wasmtraceLongTaskObserver());
function wasmtraceLongTaskObserver() {
  var MAX_PENDING = 256; // as many as C keeps (LONGTASKS_MAX)
  var pending = [], sink = null, supported = false, lost = 0;
  function add(e) {
    var t = [e.startTime * 1000, (e.startTime + e.duration) * 1000];
    if (sink) sink(t);
    else if (pending.length < MAX_PENDING) pending.push(t);
    else lost++;
  }
  try {
    var types = typeof PerformanceObserver === 'function' && PerformanceObserver.supportedEntryTypes;
    supported = !!types && types.indexOf('longtask') >= 0;
    if (supported) {
      new PerformanceObserver(function (list) {
        try { list.getEntries().forEach(add); } catch (e) { /* never in the way */ }
      }).observe({ type: 'longtask', buffered: true });
    }
  } catch (e) {
    supported = false;
  }
  return {
    // c.longtask(beginUs, endUs) takes one task; c.longtasksObserved(yes,
    // lost) says whether this browser gives them and how many were not kept
    // before (an app whose C has neither keeps them here).
    attach: function (c) {
      var to = c && c.longtask, observed = c && c.longtasksObserved;
      if (sink || typeof to !== 'function' || typeof observed !== 'function') return;
      try { observed(supported ? 1 : 0, lost); } catch (e) { /* not said */ }
      sink = function (t) {
        try { to(t[0], t[1]); } catch (e) { /* dropped */ }
      };
      var kept = pending;
      pending = [];
      kept.forEach(sink);
    },
  };
}

// ---- The startup timeline (page main thread only) ------------------------
// What happened from navigation to main() and the app's "ready", on the
// samples' clock (performance.now() of the page, in microseconds), handed
// to C (native/src/phases.h) once the module is up (wt_js_startup_attach
// in js/wasmtrace_library.js); until then kept here. This is the only
// wasmtrace code that runs before the module is fetched and compiled, so
// it observes, and never waits or fetches:
//  - the document and the app's resources: Navigation and Resource Timing
//    (a PerformanceObserver, buffered: the entries from before this script
//    ran are delivered too), each span copied exactly from its entry;
//  - wasm compile and instantiate: WebAssembly.instantiateStreaming,
//    instantiate, compileStreaming and compile are timed through Proxies
//    (which keep their name, length and behaviour) until the module is up,
//    then put back;
//  - the pthread pool: the Worker constructor is timed through a Proxy
//    (new.target, instanceof and subclassing unchanged) for the page's
//    life, so that workers created later by pthread_create are seen too;
//    a worker is ready when it posts Emscripten's 'loaded' message
//    (wasmtraceEmscripten.workerLoaded), seen by a listener beside
//    Emscripten's own onmessage;
//  - run dependencies: Emscripten's addRunDependency/removeRunDependency
//    are wrapped (wasmtraceEmscripten.wrapRunDependencies), so each gets a
//    span with its id;
//  - preRun (its first and last callbacks), the constructors (from
//    wasmtrace's startup constructor, which attaches this recorder, to
//    main()), main() (from the app's Module.onRuntimeInitialized to
//    Module.postRun): the lifecycle's moments; and the app's own marks
//    (Module.wasmtrace.mark(name)).
// What a browser does not give (no PerformanceObserver, a cross-origin
// resource without Timing-Allow-Origin, an entry whose times are out of
// order) becomes a note in the timeline, saying so.
//
// A function declaration, called only on the page's main thread: a worker
// evaluates this whole script too (every pthread worker loads it), and V8
// compiles a parenthesised function expression at once but a declaration
// only when it is called, so workers only pre-parse it.
var wasmtraceStartup = typeof window === 'undefined' || typeof document === 'undefined' ||
  typeof performance === 'undefined' || typeof performance.now !== 'function' || typeof wasmtracePage === 'undefined' ?
  null : // a worker or Node: the page's main thread records the timeline
  wasmtracePage.use(wasmtraceStartupTimeline());
function wasmtraceStartupTimeline() {
  var SPAN = 1, INSTANT = 2, NOTE = 3;
  var MAX_PENDING = 512, MAX_RESOURCES = 64, MAX_DEPS = 64;
  var pending = [];
  var sink = null;
  var counts = { resources: 0, deps: 0, workers: 0 };
  var scriptStart = performance.now();
  var scriptName = 'the app script';
  try {
    var src = document.currentScript && document.currentScript.src;
    if (src) scriptName = baseName(src);
  } catch (e) { /* keep the generic name */ }

  function now() { return performance.now(); }
  function baseName(url) {
    var path = String(url).split(/[?#]/)[0];
    var at = path.lastIndexOf('/');
    return path.slice(at + 1) || path;
  }
  function add(kind, name, beginMs, endMs, bytes) {
    var p = [kind, String(name).slice(0, 200), beginMs * 1000, endMs * 1000,
      typeof bytes === 'number' && bytes >= 0 ? bytes : -1];
    if (sink) sink(p);
    else if (pending.length < MAX_PENDING) pending.push(p);
  }
  function note(text) { add(NOTE, text, now(), now()); }

  // The document and the app's resources.
  var navigationSeen = false, parseSeen = false;
  function onNavigation(e) {
    if (!navigationSeen && e.responseEnd > 0) { // once (an observer may see the entry twice)
      navigationSeen = true;
      add(SPAN, 'request document', e.startTime, e.responseEnd, e.transferSize);
    }
    if (!parseSeen && e.domInteractive > e.responseEnd && e.responseEnd > 0) {
      parseSeen = true;
      add(SPAN, 'parse document', e.responseEnd, e.domInteractive);
    }
  }
  // domInteractive is set once parsing ends, after this script: read the
  // entry again then (the observer delivers it only once, often earlier).
  function readNavigation() {
    try {
      var entries = performance.getEntriesByType && performance.getEntriesByType('navigation');
      if (entries && entries[0]) onNavigation(entries[0]);
    } catch (e) { /* never in the way */ }
  }
  try {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', readNavigation);
    else readNavigation();
  } catch (e) { /* not recorded */ }
  var APP_RESOURCE = /\.(m?js|wasm|data|mem)$/i;
  var outOfOrder = {};
  function onResource(e) {
    var name = baseName(e.name);
    if (!APP_RESOURCE.test(name)) return;
    if (++counts.resources > MAX_RESOURCES) {
      if (counts.resources === MAX_RESOURCES + 1) note('more than ' + MAX_RESOURCES + ' resources: the rest are left out');
      return;
    }
    if (!(e.responseEnd >= e.startTime && e.startTime >= 0)) {
      // Seen in Chromium for worker scripts: a response end before the
      // start. Said once per name.
      if (!outOfOrder[name]) {
        outOfOrder[name] = true;
        note('fetch ' + name + ': Resource Timing out of order (start ' + e.startTime.toFixed(1) +
          ' > response end ' + e.responseEnd.toFixed(1) + ' ms); such entries left out');
      }
      return;
    }
    var detail = e.requestStart > 0 || e.transferSize > 0 || e.decodedBodySize > 0;
    add(SPAN, 'fetch ' + name, e.startTime, e.responseEnd, detail ? e.transferSize : -1);
    if (!detail) {
      note('fetch ' + name + ': no size or request detail (cross-origin without Timing-Allow-Origin?)');
    }
  }
  try {
    if (typeof PerformanceObserver === 'function') {
      new PerformanceObserver(function (list) {
        try { list.getEntries().forEach(onNavigation); } catch (e) { /* never in the way */ }
      }).observe({ type: 'navigation', buffered: true });
      new PerformanceObserver(function (list) {
        try { list.getEntries().forEach(onResource); } catch (e) { /* never in the way */ }
      }).observe({ type: 'resource', buffered: true });
    } else {
      note('no PerformanceObserver in this browser: the document and resource phases are not recorded');
    }
  } catch (e) {
    note('Navigation/Resource Timing could not be observed: ' + (e && e.message));
  }

  // wasm compile and instantiate, until the module is up.
  var restore = [];
  function timeCalls(obj, key, label) {
    var original = obj[key];
    if (typeof original !== 'function' || typeof Proxy !== 'function') return;
    var proxy = new Proxy(original, {
      apply: function (target, self, args) {
        var begin = now();
        var result = Reflect.apply(target, self, args);
        try {
          var what = label;
          if (key === 'instantiate' && args[0] instanceof WebAssembly.Module) what = 'instantiate';
          if (result && typeof result.then === 'function') {
            result.then(function () {
              add(SPAN, what, begin, now());
              // The page instantiates the app once: put the originals back.
              if (/instantiate/.test(what)) restoreAll();
            }, function () {});
          }
        } catch (e) { /* never in the way */ }
        return result;
      },
    });
    obj[key] = proxy;
    // Put back only if still ours (the page may have wrapped it since).
    restore.push(function () { if (obj[key] === proxy) obj[key] = original; });
  }
  function restoreAll() {
    var fns = restore;
    restore = [];
    fns.forEach(function (f) { try { f(); } catch (e) { /* left */ } });
  }
  try {
    if (typeof WebAssembly === 'object') {
      timeCalls(WebAssembly, 'instantiateStreaming', 'compile + instantiate (streaming)');
      timeCalls(WebAssembly, 'instantiate', 'compile + instantiate');
      timeCalls(WebAssembly, 'compileStreaming', 'compile (streaming)');
      timeCalls(WebAssembly, 'compile', 'compile');
    }
  } catch (e) { /* not timed */ }

  // The pthread pool's workers, and later ones. The library names the one
  // it adds for wasmtrace itself (the lifecycle's nextWorker).
  var nextWorkerLabel = null;
  try {
    if (typeof Worker === 'function' && typeof Proxy === 'function') {
      window.Worker = new Proxy(window.Worker, {
        construct: function (target, args, newTarget) {
          var worker = Reflect.construct(target, args, newTarget);
          try {
            var label = nextWorkerLabel || 'worker ' + (++counts.workers);
            nextWorkerLabel = null;
            var created = now();
            // wasmtrace's own worker samples for good: it never answers.
            if (label !== 'wasmtrace worker' && workerBirths.length < 1024) workerBirths.push([label, created]);
            var onMessage = function (e) {
              if (!wasmtraceEmscripten.workerLoaded(e.data)) return;
              worker.removeEventListener('message', onMessage);
              var t = now();
              add(SPAN, label + ' load', created, t);
              add(INSTANT, label + ' ready', t, t);
            };
            worker.addEventListener('message', onMessage);
          } catch (e) { /* not timed */ }
          return worker;
        },
      });
    }
  } catch (e) { /* not timed */ }

  // Run dependencies (see above), by id; the same id may come back.
  // depsDone: when the last one in flight ended (the runtime starts then).
  var depBegin = {}, depsDone = -1;
  wasmtraceEmscripten.runDependencyHooks = {
    added: function (id) { if (!(id in depBegin)) depBegin[id] = now(); },
    removed: function (id) {
      if (!(id in depBegin)) return;
      var begin = depBegin[id];
      delete depBegin[id];
      if (Object.keys(depBegin).length === 0) depsDone = now();
      if (++counts.deps <= MAX_DEPS) add(SPAN, 'run dependency: ' + id, begin, now());
      else if (counts.deps === MAX_DEPS + 1) note('more than ' + MAX_DEPS + ' run dependencies: the rest are left out');
    },
  };
  wasmtraceEmscripten.wrapRunDependencies();

  // preRun: the lifecycle's preRunStart and preRunEnd.
  var preRunTimes = [];
  function preRunMark() {
    preRunTimes.push(now());
    if (preRunTimes.length === 2) {
      add(SPAN, 'preRun', Math.min(preRunTimes[0], preRunTimes[1]), Math.max(preRunTimes[0], preRunTimes[1]));
    }
  }

  // The main thread's JavaScript and wasm as the browser samples them (see
  // wasmtraceJsProfiler above), and each pthread worker's, which answer
  // on a BroadcastChannel when the page takes the profiles (the page asks
  // once, when jsProfile() is first called).
  var jsProfiler = wasmtraceJsProfiler(now);
  var jsProfileTaken = null;
  var workerBirths = []; // [label, created (page ms)] of the first 1,024 Workers
  var WORKER_ANSWER_MS = 2000;
  function takeWorkerProfiles() {
    if (typeof BroadcastChannel !== 'function' || !workerBirths.length) return Promise.resolve({ workers: [], missing: 0 });
    return new Promise(function (resolve) {
      var channel;
      try {
        channel = new BroadcastChannel(WASMTRACE_JS_PROFILE_CHANNEL);
      } catch (e) { // e.g. an opaque origin
        resolve({ workers: [], missing: workerBirths.length });
        return;
      }
      var nonce = String(Math.random()).slice(2) + '-' + now();
      var got = [];
      var done = false;
      var expected = workerBirths.length;
      function finish() {
        if (done) return;
        done = true;
        try { channel.close(); } catch (e) { /* closed */ }
        // Answers in the order their workers started (a worker's clock
        // starts when it does, some time after new Worker()), each given
        // the first Worker created before it that no earlier answer took.
        var origin = performance.timeOrigin;
        var births = workerBirths.slice().sort(function (a, b) { return a[1] - b[1]; });
        var named = got.slice().sort(function (a, b) { return a.timeOrigin - b.timeOrigin; }).map(function (w) {
          var born = w.timeOrigin - origin;
          var at = -1;
          for (var i = 0; i < births.length; i++) {
            if (births[i] && births[i][1] <= born + 1) { at = i; break; }
          }
          w.name = (at >= 0 ? births[at][0] : 'worker') + ' (JS)';
          if (at >= 0) births[at] = null;
          w.offsetMs = born; // worker clock + offset = page clock
          return w;
        });
        resolve({ workers: named, missing: expected - got.length });
      }
      channel.onmessage = function (e) {
        var d = e.data;
        if (!d || d.cmd !== 'profile' || d.nonce !== nonce || !d.profile || !(d.profile.timeOrigin >= performance.timeOrigin)) return;
        got.push(d.profile);
        if (got.length >= expected) finish();
      };
      channel.postMessage({ cmd: 'take', nonce: nonce, pageOrigin: performance.timeOrigin });
      setTimeout(finish, WORKER_ANSWER_MS);
    });
  }
  function takeJsProfile() {
    if (jsProfileTaken) return jsProfileTaken;
    jsProfileTaken = Promise.all([jsProfiler.take(), jsProfiler.running ? takeWorkerProfiles() : { workers: [], missing: 0 }])
      .then(function (both) {
        var main = both[0];
        main.workers = both[1].workers;
        main.workersMissing = both[1].missing;
        return main;
      });
    return jsProfileTaken;
  }

  var mainStart = -1, mainEnd = -1, constructorsStart = -1, scriptEnd = -1;
  // main() starts after Module.onRuntimeInitialized and has returned when
  // Module.postRun runs: the lifecycle's mainStarts and mainReturned.
  function mainStarts() {
    if (mainStart >= 0) return;
    mainStart = now();
    if (constructorsStart >= 0) add(SPAN, 'constructors', constructorsStart, mainStart);
    add(INSTANT, 'main() starts', mainStart, mainStart);
  }
  function mainReturned() {
    if (mainStart < 0 || mainEnd >= 0) return;
    mainEnd = now();
    add(SPAN, 'main()', mainStart, mainEnd);
  }
  return {
    // The lifecycle's moments (js/wasmtrace_pre.js).
    preRunStart: preRunMark,
    preRunEnd: preRunMark,
    // The module is up (wasmtrace's startup constructor): every phase kept
    // so far goes to C through c.phase(kind, name, beginUs, endUs, bytes),
    // and every later one as it comes. constructorsMs: when wasmtrace's
    // startup constructor began (the first constructor of the app's;
    // Emscripten's own run before it).
    attach: function (c, constructorsMs) {
      var to = c && c.phase;
      if (sink || typeof to !== 'function') return;
      sink = function (p) {
        try { to(p[0], p[1], p[2], p[3], p[4]); } catch (e) { /* dropped */ }
      };
      restoreAll();
      constructorsStart = typeof constructorsMs === 'number' && isFinite(constructorsMs) ? constructorsMs : now();
      // From the last of preRun and the run dependencies to the
      // constructors: Emscripten's runtime init (its own constructors, the
      // file system, the main thread's TLS).
      var ready = Math.max(depsDone, preRunTimes.length ? Math.max.apply(null, preRunTimes) : -1);
      if (ready >= 0 && ready < constructorsStart) add(SPAN, 'runtime init', ready, constructorsStart);
      add(SPAN, 'evaluate ' + scriptName, scriptStart, scriptEnd >= 0 ? scriptEnd : scriptStart);
      var kept = pending;
      pending = [];
      kept.forEach(sink);
    },
    // The end of the app script's evaluation.
    scriptEvaluated: function () { if (scriptEnd < 0) scriptEnd = now(); },
    mainStarts: mainStarts,
    mainReturned: mainReturned,
    mark: function (name) { var t = now(); add(INSTANT, name, t, t); },
    // The page's JS profile so far (see takeJsProfile): a Promise of plain data.
    jsProfile: takeJsProfile,
    // The next Worker created is not one of the app's pool (its phases get
    // this label instead of "worker N"): the lifecycle's event.
    nextWorker: function (label) { nextWorkerLabel = String(label); },
  };
}
