// The README is a newcomer's first page: short, and every command, example,
// link and figure in it real. This checks that it stays so:
//  - it fits its budget (about 250 lines; the long text lives in docs/GUIDE.md);
//  - every link into docs/ names a file that exists, and a heading of it
//    that exists (GitHub's anchors), and docs/GUIDE.md's table of contents
//    lists every section of the guide;
//  - its npm scripts are package.json's, its wasmtrace commands use options
//    the CLI documents, the files and CMake functions it names exist, its
//    plain-emcc link line uses the guide's flags, its JS and C examples call
//    what the shim, the Playwright helper and the header export;
//  - its sample `record` output has the lines the CLI prints (no "torn",
//    which it no longer prints);
//  - its key numbers are docs/benchmarks.json's, to the digits shown;
//  - the guide's config reference lists exactly the schema's keys.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (p) => readFileSync(join(root, p), 'utf8');
const readme = read('README.md');
const guide = read('docs/GUIDE.md');

/** The text between a heading and the next heading of the same level. */
function section(doc, heading) {
  const start = doc.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `no section '${heading}'`);
  const level = heading.match(/^#+/)[0];
  const next = doc.slice(start + heading.length + 2).search(new RegExp(`^${level} `, 'm'));
  return next < 0 ? doc.slice(start) : doc.slice(start, start + heading.length + 2 + next);
}

/** Fenced code blocks of a language ('sh', 'c', …) in a markdown text. */
const blocks = (md, lang) => [...md.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```', 'gm'))].map((m) => m[1]);

/** The headings of a markdown text, in order, with GitHub's anchors: lower
 * case, punctuation dropped, spaces to '-', '-1', '-2', … for repeats. */
function headings(md) {
  const seen = new Map();
  const text = md.replace(/^```[\s\S]*?^```/gm, '');
  return [...text.matchAll(/^(#{1,6}) (.+)$/gm)].map(([, hashes, title]) => {
    const base = title.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return { level: hashes.length, title, anchor: n ? `${base}-${n}` : base };
  });
}
const anchors = (md) => new Set(headings(md).map((h) => h.anchor));

test('the README fits its budget: a newcomer\'s page, about 250 lines', () => {
  const lines = readme.split('\n').length;
  assert.ok(lines <= 270, `README.md has ${lines} lines: move details into docs/GUIDE.md`);
  // Sections a newcomer looks for.
  for (const h of ['## Try it', '## Add it to an existing Emscripten app', '## Open a trace', '## In CI', '## Key numbers', '## Limitations']) {
    assert.ok(readme.includes(`\n${h}\n`), `README: no '${h}'`);
  }
});

test('every link of the README (and of the guide) into docs/ resolves to a file and a heading', () => {
  const check = (doc, from, base) => {
    const links = [...doc.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l));
    assert.ok(links.length > 0);
    for (const link of links) {
      const [path, hash] = link.split('#');
      const file = path ? join(base, path) : join(root, from);
      assert.ok(existsSync(file), `${from}: link ${link}: no file ${file}`);
      if (hash !== undefined) {
        assert.ok(file.endsWith('.md'), `${from}: link ${link}: an anchor into a file that is not markdown`);
        assert.ok(anchors(readFileSync(file, 'utf8')).has(hash), `${from}: link ${link}: no heading with anchor #${hash} in ${path || from}`);
      }
    }
  };
  check(readme, 'README.md', root);
  check(guide, 'docs/GUIDE.md', join(root, 'docs'));
  assert.ok(readme.includes('](docs/GUIDE.md#'), 'the README links into the guide');
});

test('the guide\'s table of contents lists every section of the guide', () => {
  const toc = section(guide, '## Contents');
  const listed = [...toc.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]);
  const all = headings(guide);
  const after = all.slice(all.findIndex((h) => h.title === 'Contents') + 1);
  for (const a of listed) assert.ok(all.some((h) => h.anchor === a), `Contents: #${a} is no heading of the guide`);
  // Every section (subsections may be listed too), in the guide's order.
  const order = after.map((h) => h.anchor);
  assert.deepEqual(listed, [...listed].sort((a, b) => order.indexOf(a) - order.indexOf(b)), 'Contents: not in the guide\'s order');
  for (const h of after.filter((x) => x.level === 2)) assert.ok(listed.includes(h.anchor), `Contents: section '${h.title}' (#${h.anchor}) is not listed`);
});

test('the README\'s commands are real: npm scripts, CLI options, files, CMake functions, emcc flags', () => {
  const pkg = JSON.parse(read('package.json'));
  const sh = blocks(readme, 'sh').join('\n');
  for (const [, script] of readme.matchAll(/npm run (\w+)/g)) assert.ok(pkg.scripts[script], `npm run ${script}: no such script`);
  assert.ok(pkg.scripts.test, 'npm test');

  const help = execFileSync(process.execPath, [join(root, 'bin/wasmtrace.mjs'), '--help'], { encoding: 'utf8' });
  const commands = readme.split('\n').map((l) => l.match(/(?:^|[\s`])wasmtrace (record|report|diff|convert|flags|deps|serve|pages|collect|resume)\b([^`)]*)/)).filter(Boolean);
  assert.ok(commands.length >= 3);
  for (const [, sub, rest] of commands) {
    assert.match(help, new RegExp(`wasmtrace ${sub}\\b`), `wasmtrace ${sub}: not a command`);
    for (const [opt] of rest.replace(/#.*/, '').matchAll(/--[a-z][a-z-]*/g)) {
      assert.match(help, new RegExp(`${opt}\\b`), `wasmtrace ${sub} ${opt}: not an option the CLI documents`);
    }
  }

  // Files and directories the README names in backticks.
  for (const [, p] of readme.matchAll(/`((?:samples|docs|config|js|lib|native|scripts|bench|tests)\/[\w./-]+?)`/g)) {
    assert.ok(existsSync(join(root, p)), `README names ${p}, which does not exist`);
  }
  // CMake functions of the snippet.
  const cmakeSrc = read('CMakeLists.txt');
  for (const [, fn] of blocks(readme, 'cmake').join('\n').matchAll(/^(\w+)\(/gm)) {
    if (['add_subdirectory', 'target_link_libraries', 'target_link_options', 'find_package'].includes(fn)) continue;
    assert.match(cmakeSrc, new RegExp(`function\\(${fn}\\b`), `CMake: no function ${fn}`);
  }
  // The emcc lines: the flags come from `wasmtrace flags` (the pkg-config
  // file CMake writes) or the port; every other flag is one the guide's
  // plain-emcc section gives (with its reason).
  const guideEmcc = blocks(section(guide, '### Plain emcc'), 'sh').join(' ').replace(/\s+/g, ' ');
  const emccLines = sh.split('\n').filter((l) => /^\s*emcc/.test(l));
  assert.ok(emccLines.some((l) => l.includes('$(npx wasmtrace flags --cflags)')) && emccLines.some((l) => l.includes('$(npx wasmtrace flags --ldflags)')));
  const port = emccLines.join(' ').match(/--use-port=node_modules\/wasmtrace\/(port\/wasmtrace\.py)/);
  assert.ok(port && existsSync(join(root, port[1])), 'the README\'s port line names port/wasmtrace.py');
  const rest = emccLines.join(' ').replace(/\$\(npx wasmtrace flags --\w+\)/g, '').replace(/--use-port=\S+/g, '').replace(/#.*$/gm, '');
  for (const [, f] of rest.matchAll(/(?:^|\s)(-[^\s\\]+)/g)) {
    if (['-c', '-o', '-D', '-O2', '-pthread'].includes(f)) continue;
    assert.ok(guideEmcc.includes(f.replace(/<your threads \+ 1>/, '')), `README's emcc flag ${f} is not in the guide's plain-emcc commands`);
  }
  // What `wasmtrace flags` prints (cmake/wasmtrace.pc.in) is the guide's
  // plain-emcc command, flag for flag, and the other way round.
  const pc = read('cmake/wasmtrace.pc.in');
  const field = (k) => pc.match(new RegExp(`^${k}: (.*)$`, 'm'))[1]
    .replace(/\$\{libdir\}/g, '$WT/lib').replace(/\$\{includedir\}/g, '$WT/include').replace(/\$\{jsdir\}/g, '$WT/share/wasmtrace/js')
    .replace(/@WT_PC_DEFINES@/, '').split(/\s+/);
  const pcFlags = [...field('Cflags'), ...field('Libs')];
  for (const f of pcFlags) assert.ok(guideEmcc.includes(f), `wasmtrace.pc's ${f} is not in the guide's plain-emcc commands`);
  const guideFlags = [...guideEmcc.matchAll(/(?:^|\s)(-[^\s\\\[\]]+|\$WT\/[^\s\\]+)/g)].map((m) => m[1])
    .filter((f) => !/^(-c|-o|-O2|--profiling-funcs|-sPTHREAD_POOL_SIZE=.*|-sINITIAL_MEMORY=.*|-finstrument-functions-after-inlining)$/.test(f));
  assert.ok(guideFlags.length > 15, `plain emcc flags found in the guide: ${guideFlags.length}`);
  for (const f of guideFlags) assert.ok(pcFlags.includes(f), `the guide's plain-emcc ${f} is not in cmake/wasmtrace.pc.in (wasmtrace flags)`);
});

test('the README\'s examples call what exists: JS API, Playwright helper, C macros', () => {
  const dts = read('js/wasmtrace.d.ts');
  const html = blocks(readme, 'html').join('\n');
  for (const m of ['getStartupSessions', 'stop', 'download', 'getTraceBlob']) {
    assert.ok(html.includes(m));
    assert.match(dts, new RegExp(`\\b${m}\\(`), `js/wasmtrace.d.ts: no ${m}()`);
  }
  const js = blocks(readme, 'js').join('\n');
  const imported = js.match(/import \{([^}]+)\} from 'wasmtrace\/playwright'/);
  assert.ok(imported, 'the Playwright example imports wasmtrace/playwright');
  const helper = read('js/playwright.mjs');
  for (const name of imported[1].split(',').map((s) => s.trim())) {
    assert.match(helper, new RegExp(`export (async )?function ${name}\\b|export \\{[^}]*\\b${name}\\b`), `wasmtrace/playwright exports no ${name}`);
  }
  const header = read('native/include/wasmtrace/wasmtrace.h');
  for (const [, macro] of blocks(readme, 'c').join('\n').matchAll(/\b(WT_[A-Z_]+)\(/g)) {
    assert.match(header, new RegExp(`#define ${macro}\\(`), `wasmtrace.h defines no ${macro}`);
  }
});

test('the README\'s sample record output has the lines the CLI prints', () => {
  const start = readme.indexOf('prints a summary like this one');
  assert.ok(start >= 0);
  const sample = blocks(readme.slice(start), '').find((b) => b.includes('session '));
  assert.ok(sample, 'no sample output');
  assert.doesNotMatch(sample, /torn/, 'the CLI no longer prints torn stacks');
  const lines = sample.trimEnd().split('\n');
  assert.match(lines[0], /^session 'startup': stopped, chrome trace out\/startup\.json\.gz \([\d.]+ KiB\)$/);
  // The phrases come from the CLI's summary code, so they change together.
  const cli = ['lib/cli.mjs', 'lib/report.mjs'].map(read).join('\n');
  for (const phrase of ['threads, ', 'samples (', 'dropped', 'partial stack', 'ticks missed', 'top self functions (running)', 'after navigation start', 'stop() took']) {
    assert.ok(sample.includes(phrase), `sample output: no '${phrase}'`);
    assert.ok(cli.includes(phrase.replace(/\(\)/, '()')), `the CLI's sources never print '${phrase}'`);
  }
  for (const t of ['main', 'asset-decoder-0', 'asset-decoder-1']) assert.match(sample, new RegExp(`^  ${t} +\\d+`, 'm'));
});

test('the README\'s key numbers are docs/benchmarks.json\'s, to the digits shown', () => {
  const figures = new Map(JSON.parse(read('docs/benchmarks.json')).map((f) => [f.name, f]));
  const table = section(readme, '## Key numbers');
  const rows = [...table.matchAll(/^\| [^|]+ \| `([\w.]+)` \| ([^|]+) \|/gm)];
  assert.ok(rows.length >= 8, `key numbers: ${rows.length} rows`);
  const num = (s) => Number(s.replace('−', '-'));
  const close = (shown, value, name) => {
    const decimals = (shown.split('.')[1] ?? '').length;
    assert.ok(Math.abs(num(shown) - value) <= 0.5 * 10 ** -decimals + 1e-9, `${name}: README says ${shown}, docs/benchmarks.json ${value}`);
  };
  for (const [, name, cell] of rows) {
    const f = figures.get(name);
    assert.ok(f, `${name}: not in docs/benchmarks.json`);
    const m = cell.match(/^([−-]?[\d.]+)[^[]*(?:\[([−-]?[\d.]+), ([−-]?[\d.]+)\])?/);
    assert.ok(m, `${name}: no figure in '${cell}'`);
    close(m[1], f.value, name);
    if (m[2] !== undefined) {
      assert.ok(f.ci95, `${name}: the README gives an interval, docs/benchmarks.json none`);
      close(m[2], f.ci95[0], `${name} (CI low)`);
      close(m[3], f.ci95[1], `${name} (CI high)`);
    }
  }
});

test('the guide\'s config table lists exactly the schema keys of a session', () => {
  const schema = JSON.parse(read('config/wasmtrace.schema.json'));
  const keys = [];
  for (const [k, v] of Object.entries(schema.$defs.session.properties)) {
    if (v.properties) for (const sub of Object.keys(v.properties)) keys.push(`${k}.${sub}`);
    else keys.push(k);
  }
  const rows = [...section(guide, '## Config reference').matchAll(/^\| `([A-Za-z.]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual([...rows].filter((r) => !r.startsWith('server.')).sort(), [...keys].sort());
});

test('the guide\'s config table lists exactly the schema keys of the server object', () => {
  const schema = JSON.parse(read('config/wasmtrace.schema.json'));
  const keys = Object.keys(schema.properties.server.properties).map((k) => `server.${k}`);
  const rows = [...section(guide, '## Config reference').matchAll(/^\| `(server\.[A-Za-z]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual([...rows].sort(), [...keys].sort());
});
