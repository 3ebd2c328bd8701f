// The diagnostic server's page-side files against their single sources:
// the ring layout of native/src/stream.h (the Worker's RING and RING_FLAGS
// constants), the Worker's text (embedded by CMakeLists.txt in a String.raw
// template), the `server` object's rules (wasmtraceCheckServer of
// js/wasmtrace_pre.js, the one place they live: the page must know the URL
// before the module runs), the config's source (wasmtraceConfigSource, the
// one place that knows where a config comes from) and the config text's
// checks (wasmtraceConfigText: the startup config, startSession() and the
// server's queue).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import vm from 'node:vm';

import { loadPageHelpers } from '../../lib/names.mjs';

const root = new URL('../..', import.meta.url).pathname;
const read = (f) => readFileSync(root + f, 'utf8');

describe('the stream ring layout has one source: native/src/stream.h', () => {
  const header = read('native/src/stream.h');
  const define = (name) => {
    const m = new RegExp(`^#define ${name} (\\d+)u?\\b`, 'm').exec(header);
    assert.ok(m, `stream.h defines ${name}`);
    return Number(m[1]);
  };
  const worker = read('js/wasmtrace_server_worker.js');
  const object = (name) => {
    const m = new RegExp(`^var ${name} = (\\{[^}]*\\});`, 'm').exec(worker);
    assert.ok(m, `the Worker declares ${name}`);
    return vm.runInNewContext(`(${m[1]})`);
  };

  test("the Worker's word offsets are the header's byte offsets / 4", () => {
    const ring = object('RING');
    const fields = ['WRITE', 'READ', 'CAPACITY', 'DATA', 'FLAGS', 'LOST'];
    assert.deepEqual(Object.keys(ring).sort(), [...fields].sort());
    for (const f of fields) assert.equal(ring[f] * 4, define(`WT_STREAM_AT_${f}`), f);
  });

  test("the Worker's flags are the header's", () => {
    const flags = object('RING_FLAGS');
    const names = ['CLOSED', 'BROKEN', 'DETACHED', 'DONE', 'STOP'];
    assert.deepEqual(Object.keys(flags).sort(), [...names].sort());
    for (const f of names) assert.equal(flags[f], define(`WT_STREAM_${f}`), f);
  });

  test('the Worker reads the ring only through those names (no bare word offsets)', () => {
    assert.doesNotMatch(worker, /w\[b \+ \d\]|\(\w+ >> 2\) \+ \d/);
  });
});

describe("the server's Worker is a real file the build embeds", () => {
  const worker = read('js/wasmtrace_server_worker.js');
  test('it parses as a script, and holds nothing that would end the String.raw template it is embedded in', () => {
    assert.doesNotThrow(() => new vm.Script(worker, { filename: 'wasmtrace_server_worker.js' }));
    assert.ok(!worker.includes('`'), 'a backquote');
    assert.ok(!worker.includes('${'), "a '${'");
  });
  test('the generated server file is opt-in: the server targets link it, the default ones do not', () => {
    // The link contract (cmake/link-contract.txt) gives it to the server part
    // only; tests/node/link-contract.test.mjs checks that CMake, pkg-config
    // and the port take each part's items.
    const contract = read('cmake/link-contract.txt').split('\n').filter((l) => l && !l.startsWith('#'));
    assert.deepEqual(contract.filter((l) => l.includes('wasmtrace_server.js')).map((l) => l.split(' ').slice(0, 3).join(' ')),
      ['server post-js wasmtrace_server.js']);
    const cmake = read('CMakeLists.txt');
    assert.match(cmake, /get_filename_component\(_wt_server_dir "\$\{WASMTRACE_SERVER_JS\}" DIRECTORY\)\n\s*wasmtrace_contract_link\(server "\$\{_wt_server_dir\}" _wt_options _wt_depends\)\n\s*target_link_options\(wasmtrace_server INTERFACE/);
    assert.match(read('cmake/wasmtraceConfig.cmake.in'), /wasmtrace_contract_link\(server "\$\{WASMTRACE_JS_DIR\}" _wt_options _wt_depends\)\n\s*set_target_properties\(wasmtrace::server/);
  });

  test('the server file installs itself whichever side of wasmtrace_post.js it is linked', () => {
    const server = read('js/wasmtrace_server.js');
    // Before wasmtrace_post.js: no Module.wasmtrace yet, so it waits.
    const early = vm.createContext({ Module: {} });
    vm.runInContext(server, early);
    assert.equal(early.wasmtraceServerPending, true);
    // wasmtrace_post.js then installs it, once Module.wasmtrace exists.
    const post = read('js/wasmtrace_post.js');
    assert.match(post, /if \(typeof wasmtraceServerPending !== 'undefined' && wasmtraceServerPending\) \{\n\s*wasmtraceServerPending = false;\n\s*try \{\n\s*wasmtraceServerInstall\(\);/);
    assert.ok(post.indexOf('wasmtraceServerInstall()') > post.indexOf("Module['wasmtrace'] = {"), 'after Module.wasmtrace is made');
    // After it: it installs itself at once (here in a pthread, where it stops at its first line).
    const late = vm.createContext({ Module: { wasmtrace: {} }, ENVIRONMENT_IS_PTHREAD: true });
    vm.runInContext(server, late);
    assert.equal(late.wasmtraceServerPending, false);
  });
});

describe('the server object is checked in one place: wasmtraceCheckServer', () => {
  const helpers = loadPageHelpers();
  // (Objects made in the helpers' context: compared as plain JSON.)
  const check = (v) => JSON.parse(JSON.stringify(helpers.wasmtraceCheckServer(v)));

  test('a valid one, with its defaults and the URL it connects to', () => {
    assert.deepEqual(check({ url: 'ws://127.0.0.1:9777' }).config, {
      url: 'ws://127.0.0.1:9777', suspend: false, suspendTimeoutMs: 10000, token: null, reconnectMs: 2000,
      connectUrl: 'ws://127.0.0.1:9777/page',
    });
    const c = check({ url: 'wss://h/x', suspend: true, suspendTimeoutMs: 0, token: 'a-b_c.d~9', reconnectMs: 600000 }).config;
    assert.deepEqual([c.suspend, c.suspendTimeoutMs, c.reconnectMs, c.token, c.connectUrl],
      [true, 0, 600000, 'a-b_c.d~9', 'wss://h/x?token=a-b_c.d%7E9']);
  });

  // The cases the C parser checked before the rules moved here.
  test('every bad one fails with its key path', () => {
    const cases = [
      [5, 'server: expected an object, got a number'],
      [[], 'server: expected an object, got an array'],
      [{}, "server.url: missing (expected the router's ws:// or wss:// URL)"],
      [{ url: 7 }, 'server.url: expected a string, got a number'],
      [{ url: '' }, 'server.url: expected 1 to 2047 characters, got 0'],
      [{ url: 'http://127.0.0.1:9777' }, 'server.url: expected a ws:// or wss:// URL, got "http://127.0.0.1:9777"'],
      [{ url: 'ws://a b' }, 'server.url: contains a space or control character'],
      [{ url: 'ws://h', suspend: 'yes' }, 'server.suspend: expected true or false, got a string'],
      [{ url: 'ws://h', suspendTimeoutMs: -1 }, 'server.suspendTimeoutMs: expected an integer from 0 to 600000, got -1'],
      [{ url: 'ws://h', suspendTimeoutMs: 1.5 }, 'server.suspendTimeoutMs: expected an integer from 0 to 600000, got 1.5'],
      [{ url: 'ws://h', reconnectMs: 600001 }, 'server.reconnectMs: expected an integer from 0 to 600000, got 600001'],
      [{ url: 'ws://h', token: '' }, 'server.token: expected 1 to 256 characters, got 0'],
      [{ url: 'ws://h', token: 'a&b' }, "server.token: may contain only letters, digits, '-', '_', '.' and '~'"],
      [{ url: 'ws://h', port: 1 }, 'server.port: unknown key (allowed: see config/wasmtrace.schema.json)'],
    ];
    for (const [server, message] of cases) assert.deepEqual(check(server), { error: message }, JSON.stringify(server));
  });
});

describe("the config's source is resolved in one place: wasmtraceConfigSource", () => {
  const source = (globals) => {
    const context = loadPageHelpers(globals);
    return vm.runInContext('wasmtraceConfigSource()', context);
  };
  const fs = (files) => ({
    analyzePath: (p) => ({ exists: p in files }),
    readFile: (p) => files[p],
  });

  test('Module.wasmtraceConfig, then globalThis.wasmtraceConfig, then ?wasmtrace=, then /wasmtrace.json', () => {
    const all = {
      Module: { wasmtraceConfig: { sessions: [] } },
      globalThis: { wasmtraceConfig: '{"from":"global"}' },
      location: { search: '?wasmtrace=%7B%22from%22%3A%22url%22%7D' },
      FS: fs({ '/wasmtrace.json': '{"from":"file"}' }),
    };
    const pick = (g) => {
      const r = source(g);
      return r && { kind: r.kind, name: r.name, untrusted: r.untrusted, text: r.text };
    };
    assert.deepEqual(pick(all), { kind: 1, name: 'Module.wasmtraceConfig', untrusted: false, text: '{"sessions":[]}' });
    assert.deepEqual(pick({ ...all, Module: {} }), { kind: 3, name: 'globalThis.wasmtraceConfig', untrusted: false, text: '{"from":"global"}' });
    assert.deepEqual(pick({ ...all, Module: {}, globalThis: {} }),
      { kind: 2, name: "the 'wasmtrace' URL parameter", untrusted: true, text: '{"from":"url"}' });
    assert.deepEqual(pick({ ...all, Module: {}, globalThis: {}, location: { search: '' } }),
      { kind: 4, name: '/wasmtrace.json', untrusted: false, text: '{"from":"file"}' });
    assert.equal(source({ Module: {}, globalThis: {}, location: { search: '' }, FS: fs({}) }), null);
  });

  test('a source that cannot be read is blamed by name, never thrown', () => {
    const Module = {};
    Object.defineProperty(Module, 'wasmtraceConfig', { get() { throw new Error('boom'); } });
    assert.deepEqual({ ...source({ Module, globalThis: {} }) },
      { kind: 1, name: 'Module.wasmtraceConfig', untrusted: false, error: 'the config cannot be read as JSON: boom' });
    const cyclic = {};
    cyclic.self = cyclic;
    assert.match(source({ Module: { wasmtraceConfig: cyclic }, globalThis: {} }).error, /^the config cannot be read as JSON: .*circular/i);
  });

  test('the server never comes from a source anyone can set', () => {
    const context = loadPageHelpers({
      Module: {}, globalThis: {}, location: { search: `?wasmtrace=${encodeURIComponent('{"server":{"url":"ws://evil.example"}}')}` },
    });
    assert.deepEqual({ ...vm.runInContext('wasmtraceServerConfig()', context) }, {
      refused: "server: not allowed in a config from the 'wasmtrace' URL parameter (anyone can set it): " +
        "only the app's own config may name a server",
    });
  });
});

describe("a config's text is checked in one place: wasmtraceConfigText", () => {
  const helpers = loadPageHelpers();
  const text = (v) => JSON.parse(JSON.stringify(helpers.wasmtraceConfigText(v)));
  const max = 1048576;

  test('a string or a session object becomes well-formed JSON text with its UTF-8 size', () => {
    assert.deepEqual(text('{"name":"é"}'), { text: '{"name":"é"}', bytes: 13 });
    assert.deepEqual(text({ name: 'a\ud800b' }), { text: '{"name":"a\\ud800b"}', bytes: 19 });
    assert.deepEqual(text('"\ud800"'), { text: '"\ufffd"', bytes: 5 });
  });

  test('any other JS value, and one with no JSON form, is refused with what it is', () => {
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const cyclic = {};
    cyclic.self = cyclic;
    const cases = [
      [undefined, 'config must be a session object or a JSON string, got undefined'],
      [null, 'config must be a session object or a JSON string, got null'],
      [7, 'config must be a session object or a JSON string, got the number 7'],
      [() => 1, 'config must be a session object or a JSON string, got a function'],
      [[], 'config must be a session object or a JSON string, got an array'],
      [{ toJSON: () => undefined }, 'config has no JSON form (its toJSON returned undefined)'],
    ];
    for (const [v, message] of cases) assert.deepEqual(text(v), { error: message }, String(v));
    assert.match(text(revoked.proxy).error, /^config cannot be serialized as JSON: /);
    assert.match(text(cyclic).error, /^config cannot be serialized as JSON: .*circular/i);
  });

  test('the size limit holds in UTF-16 units before any copy, then in UTF-8 bytes', () => {
    assert.equal(text('x'.repeat(max)).bytes, max);
    assert.deepEqual(text('x'.repeat(max + 1)), { error: `the config text is more than ${max} bytes; the limit is ${max}` });
    assert.deepEqual(text('é'.repeat(max / 2 + 1)), { error: `the config text is ${max + 2} bytes; the limit is ${max}` });
  });
});

