// The docs a newcomer reads: the README (what it is, a picture, a start in
// five lines, the key numbers), docs/GUIDE.md (the user guide),
// docs/REFERENCE.md (every key, command, option and API) and
// docs/INTERNALS.md (how it works, the tests, the measurements). Every
// command, example, link and figure in them must be real. This checks that
// it stays so:
//  - the README fits its budget (about 250 lines) and the guide its own
//    (1,000 lines): the long text lives in REFERENCE and INTERNALS;
//  - every link into docs/ names a file that exists, and a heading of it
//    that exists (GitHub's anchors), and GUIDE, REFERENCE and INTERNALS
//    each have a contents list of their sections;
//  - the README's npm scripts are package.json's, its wasmtrace commands use
//    options the CLI documents, the files and CMake functions it names
//    exist, its plain-emcc link line uses the guide's flags, its JS and C
//    examples call what the shim, the Playwright helper and the header
//    export, and its pictures are real PNGs;
//  - its sample `record` output has the lines the CLI prints (no "torn",
//    which it no longer prints);
//  - its key numbers, and their targets, are docs/benchmarks.json's;
//  - REFERENCE's config tables list exactly the schema keys, and it has a
//    section for every command that names exactly the options the command
//    takes, with the usage lines and the example its --help prints;
//  - every docs/<FILE>.md#anchor and docs/<FILE>.md, "Heading" that a
//    message or comment in lib/, js/, native/src/ or scripts/ (or cmake/,
//    config/, CMakeLists.txt) names exists.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { flagOf, readContract } from '../../scripts/link-table.mjs';
import { fileURLToPath } from 'node:url';
import { COMMANDS, commandHelp } from '../../lib/cli.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (p) => readFileSync(join(root, p), 'utf8');
const readme = read('README.md');
const guide = read('docs/GUIDE.md');
const reference = read('docs/REFERENCE.md');
const internals = read('docs/INTERNALS.md');

/** The text from a heading to the next heading of the same or a higher
 * level (headings inside code blocks do not count). */
function section(doc, heading) {
  const start = doc.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `no section '${heading}'`);
  const level = heading.match(/^#+/)[0].length;
  const lines = doc.slice(start + 1).split('\n');
  let fenced = false;
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].startsWith('```')) fenced = !fenced;
    else if (!fenced && new RegExp(`^#{1,${level}} `).test(lines[i])) return lines.slice(0, i).join('\n');
  }
  return lines.join('\n');
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
  for (const h of ['## Get it', '## Add it to an existing Emscripten app', '## Try it', '## Open a trace', '## In CI', '## Key numbers', '## Limitations']) {
    assert.ok(readme.includes(`\n${h}\n`), `README: no '${h}'`);
  }
});

test('the guide is a user guide a newcomer can hold: at most 1,000 lines', () => {
  const lines = guide.trimEnd().split('\n').length;
  assert.ok(lines <= 1000, `docs/GUIDE.md has ${lines} lines: move reference text to docs/REFERENCE.md, internals to docs/INTERNALS.md`);
});

test('the README\'s pictures are real PNGs of a readable size', () => {
  const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
  assert.ok(images.includes('docs/img/report.png'), 'the README shows the report (docs/img/report.png)');
  for (const image of images) {
    const bytes = readFileSync(join(root, image));
    // The PNG signature, then the IHDR chunk: its length (13), its type, the width and the height.
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${image}: not a PNG`);
    assert.equal(bytes.toString('latin1', 12, 16), 'IHDR', `${image}: no IHDR chunk first`);
    const [width, height] = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
    assert.ok(width >= 400 && height >= 200, `${image}: ${width}×${height} pixels, less than 400×200`);
  }
});

test('every link of the README, the guide, the reference and the internals resolves to a file and a heading', () => {
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
  for (const doc of ['GUIDE', 'REFERENCE', 'INTERNALS']) {
    check(read(`docs/${doc}.md`), `docs/${doc}.md`, join(root, 'docs'));
    assert.ok(readme.includes(`](docs/${doc}.md`), `the README links to docs/${doc}.md`);
  }
  assert.ok(readme.includes('](docs/GUIDE.md#'), 'the README links into the guide');
});

for (const [name, doc] of [['guide', guide], ['reference', reference], ['internals', internals]]) {
  test(`the ${name}'s table of contents lists every section, in order`, () => {
    const toc = section(doc, '## Contents');
    const listed = [...toc.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]);
    const all = headings(doc);
    const after = all.slice(all.findIndex((h) => h.title === 'Contents') + 1);
    for (const a of listed) assert.ok(all.some((h) => h.anchor === a), `Contents: #${a} is no heading of the ${name}`);
    // Every section (subsections may be listed too), in the document's order.
    const order = after.map((h) => h.anchor);
    assert.deepEqual(listed, [...listed].sort((a, b) => order.indexOf(a) - order.indexOf(b)), `Contents: not in the ${name}'s order`);
    for (const h of after.filter((x) => x.level === 2)) assert.ok(listed.includes(h.anchor), `Contents: section '${h.title}' (#${h.anchor}) is not listed`);
  });
}

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
    assert.ok(guideEmcc.includes(f.replace(/=<.*$/, '=')), `README's emcc flag ${f} is not in the guide's plain-emcc commands`);
  }
  // What `wasmtrace flags` prints (wasmtrace.pc: the link contract's core
  // and instrument parts) is the guide's plain-emcc command, flag for flag,
  // and the other way round.
  const contract = readContract().filter((i) => ['core', 'instrument'].includes(i.part));
  const pcFlags = ['-I$WT/include', ...contract.flatMap((i) => flagOf(i).split(' '))];
  for (const f of pcFlags) assert.ok(guideEmcc.includes(f), `wasmtrace.pc's ${f} is not in the guide's plain-emcc commands`);
  const guideFlags = [...guideEmcc.matchAll(/(?:^|\s)(-[^\s\\\[\]]+|\$WT\/[^\s\\]+)/g)].map((m) => m[1])
    .filter((f) => !/^(-c|-o|-O2|--profiling-funcs|-sPTHREAD_POOL_SIZE=.*|-sINITIAL_MEMORY=.*|-finstrument-functions-after-inlining)$/.test(f));
  assert.ok(guideFlags.length > 15, `plain emcc flags found in the guide: ${guideFlags.length}`);
  for (const f of guideFlags) assert.ok(pcFlags.includes(f), `the guide's plain-emcc ${f} is not in cmake/link-contract.txt's core or instrument part (wasmtrace flags)`);
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
  const cli = ['lib/cli.mjs', 'lib/commands/record.mjs', 'lib/report.mjs'].map(read).join('\n');
  for (const phrase of ['threads, ', 'samples (', 'dropped', 'partial stack', 'ticks missed', 'top self functions (running)', 'after navigation start', 'stop() took']) {
    assert.ok(sample.includes(phrase), `sample output: no '${phrase}'`);
    assert.ok(cli.includes(phrase.replace(/\(\)/, '()')), `the CLI's sources never print '${phrase}'`);
  }
  for (const t of ['main', 'asset-decoder-0', 'asset-decoder-1']) assert.match(sample, new RegExp(`^  ${t} +\\d+`, 'm'));
});

test('the README\'s key numbers and their targets are docs/benchmarks.json\'s, to the digits shown', () => {
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
  // The target column is the figure's own target ("≥ 99.5 %" is ">= 99.5"),
  // or no bound where the figure has none: a target shown beside another
  // figure than the one it was set for reads as met when it was missed.
  const targets = [...table.matchAll(/^\| [^|]+ \| `([\w.]+)` \| [^|]+ \| ([^|]+) \|/gm)];
  assert.equal(targets.length, rows.length);
  for (const [, name, cell] of targets) {
    const want = figures.get(name).target;
    const bound = cell.trim().match(/^([≤≥])\s*([−-]?[\d.]+)/);
    if (!bound) {
      assert.equal(want, null, `${name}: the README shows no target ('${cell.trim()}'), docs/benchmarks.json has ${want}`);
      continue;
    }
    assert.ok(want, `${name}: the README's target ${cell.trim()} is no target of this figure in docs/benchmarks.json`);
    const [, op, value] = want.match(/^(<=|>=)\s*(-?[\d.]+)$/) ?? [];
    assert.equal(bound[1], op === '<=' ? '≤' : '≥', `${name}: the README's target ${cell.trim()}, docs/benchmarks.json ${want}`);
    assert.equal(num(bound[2]), Number(value), `${name}: the README's target ${cell.trim()}, docs/benchmarks.json ${want}`);
  }
});

test('the reference\'s config table lists exactly the schema keys of a session', () => {
  const schema = JSON.parse(read('config/wasmtrace.schema.json'));
  const keys = [];
  for (const [k, v] of Object.entries(schema.$defs.session.properties)) {
    if (v.properties) for (const sub of Object.keys(v.properties)) keys.push(`${k}.${sub}`);
    else keys.push(k);
  }
  const rows = [...section(reference, '## Config keys').matchAll(/^\| `([A-Za-z.]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual([...rows].filter((r) => !r.startsWith('server.')).sort(), [...keys].sort());
});

test('the reference\'s config table lists exactly the schema keys of the server object', () => {
  const schema = JSON.parse(read('config/wasmtrace.schema.json'));
  const keys = Object.keys(schema.properties.server.properties).map((k) => `server.${k}`);
  const rows = [...section(reference, '## Config keys').matchAll(/^\| `(server\.[A-Za-z]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual([...rows].sort(), [...keys].sort());
});

test('readme.test keeps every command and option in the reference and --help in step both ways', () => {
  // "--name" where the text names an option, not inside a value ("--browser-arg=--js-flags=…").
  const named = (text) => new Set([...text.matchAll(/(?<![\w=-])--([a-z][a-z-]*)/g)].map((m) => m[1]));
  for (const [command, { options, example }] of Object.entries(COMMANDS)) {
    const heading = `### \`wasmtrace ${command}\``;
    assert.ok(reference.includes(`\n${heading}\n`), `docs/REFERENCE.md has no section '${heading}'`);
    const text = section(reference, heading);
    const help = commandHelp(command);
    const accepted = new Set([...options, 'help']);
    const inReference = named(text);
    const inHelp = named(help);
    for (const o of options) {
      assert.ok(inReference.has(o), `docs/REFERENCE.md, wasmtrace ${command}: --${o}, an option it takes, is not named`);
      assert.ok(inHelp.has(o), `wasmtrace help ${command}: --${o}, an option it takes, is not named`);
    }
    for (const o of inReference) {
      assert.ok(accepted.has(o), `docs/REFERENCE.md, wasmtrace ${command}: --${o} is named, but ${command} does not take it`);
    }
    // Its options table: a row for every option it takes, and for no other.
    const inTable = named(text.split('\n').filter((l) => l.startsWith('| ')).map((l) => l.split('|')[1]).join(' '));
    assert.deepEqual([...inTable].filter((o) => o !== 'help').sort(), [...options].sort(),
      `docs/REFERENCE.md, wasmtrace ${command}: the options table is not the options it takes`);
    // Its usage lines (the help's first paragraph) and its example, as --help prints them.
    for (const usage of help.split('\n\n')[0].split('\n').filter((l) => /^ {2}wasmtrace /.test(l))) {
      const line = usage.trim().split(/ {2,}/)[0]; // without the description some lines carry
      assert.ok(text.includes(line), `docs/REFERENCE.md, wasmtrace ${command}: no usage line '${line}'`);
    }
    assert.ok(text.includes(example), `docs/REFERENCE.md, wasmtrace ${command}: not the example of its help ('${example}')`);
  }
  // And no section for a command the CLI does not have.
  for (const [, command] of reference.matchAll(/^### `wasmtrace (\w+)`$/gm)) {
    assert.ok(Object.hasOwn(COMMANDS, command), `docs/REFERENCE.md documents 'wasmtrace ${command}', which is no command`);
  }
});

/** The docs references in a source file: "docs/X.md", "docs/X.md#anchor",
 * and "docs/X.md, "Heading"" (or ("Heading"), or 'Heading', escaped quotes
 * included), with comments and strings that run over several lines joined. */
function docReferences(text) {
  const joined = text.replace(/\\?\n[ \t]*(?:\/\/+|\*+(?!\/)|#+)?[ \t]*/g, ' ');
  return [...joined.matchAll(/docs\/([A-Za-z]+)\.md(?:#([\w-]+)|,?\s+\(?(?:\\?"([^"\\]+)\\?"|'([^']+)'))?/g)]
    .map(([match, doc, anchor, title, quoted]) => ({ match, doc, anchor, title: title ?? quoted }));
}

/** Headings' titles as text: no markdown code spans or emphasis, single spaces. */
const plainTitle = (title) => title.replace(/[`*]/g, '').replace(/\s+/g, ' ').trim();

test('every docs reference in lib/, js/, native/src/ and scripts/ (and cmake/, config/) names a heading that exists', () => {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(join(root, dir))) {
      const p = join(dir, name);
      if (statSync(join(root, p)).isDirectory()) walk(p);
      else if (/\.(mjs|js|ts|c|h|sh|py|txt|in|json|cmake)$/.test(name)) files.push(p);
    }
  };
  // The user-facing messages live in the first four; CMake's and the schema's too.
  for (const dir of ['lib', 'js', 'native/src', 'scripts', 'cmake', 'config']) walk(dir);
  files.push('CMakeLists.txt');
  let checked = 0;
  for (const file of files) {
    for (const { match, doc, anchor, title } of docReferences(read(file))) {
      const path = `docs/${doc}.md`;
      assert.ok(existsSync(join(root, path)), `${file}: '${match}': no file ${path}`);
      const md = read(path);
      if (anchor) assert.ok(anchors(md).has(anchor), `${file}: '${match}': no heading with anchor #${anchor} in ${path}`);
      if (title) {
        const want = plainTitle(title);
        assert.ok(headings(md).some((h) => plainTitle(h.title).startsWith(want)), `${file}: '${match}': no heading '${want}' in ${path}`);
      }
      if (anchor || title) checked++;
    }
  }
  // The C strings of native/ name guide sections that must keep their headings (the wasm
  // build carries them): a few are known, so that a reader that finds none fails.
  assert.ok(checked >= 15, `only ${checked} section references found`);
  const native = docReferences(read('native/src/rec_heap.c')).map((r) => r.title);
  assert.ok(native.includes('Where the memory went'), 'native/src/rec_heap.c no longer names "Where the memory went"');
});

test('the docs-reference reader finds the forms the sources use', () => {
  const refs = docReferences([
    '// (docs/GUIDE.md, "Reading untrusted trace',
    '// files") and docs/INTERNALS.md#fuzzing',
    '"see docs/GUIDE.md, \\"Where the memory went\\")",',
    '/* docs/GUIDE.md ("Where traces are',
    ' * written") */ docs/BENCHMARKS.md section 14',
    "\"description\": \"… (docs/GUIDE.md, 'Where traces are written'). …\"",
  ].join('\n'));
  assert.deepEqual(refs.map(({ doc, anchor, title }) => [doc, anchor ?? null, title ?? null]), [
    ['GUIDE', null, 'Reading untrusted trace files'],
    ['INTERNALS', 'fuzzing', null],
    ['GUIDE', null, 'Where the memory went'],
    ['GUIDE', null, 'Where traces are written'],
    ['BENCHMARKS', null, null],
    ['GUIDE', null, 'Where traces are written'],
  ]);
});
