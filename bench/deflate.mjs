// Deflate throughput of wasmtrace's zlib at -O2 and at -Os (issue 28: the
// library's download; zlib is the worker's per-byte cost). Both builds of
// bench/deflate/throughput.c (the library's zlib files and definitions, one
// at each level) run in one Node process, in alternating rounds (in each of
// several instances, every one compiling both modules afresh), on the
// same ~4 MB of chrome-format text, deflated as a session does (gzip,
// level 1 the default, 64 KiB of output at a time):
//   deflate.o2.mb_per_s       input MB (10^6 bytes) per second at -O2
//   deflate.os.mb_per_s       the same at -Os
//   deflate.os_vs_o2.ratio    -Os time / -O2 time, paired per round
// each the median over rounds with a bootstrap 95 % interval; and what it
// means for the worker: its share of one core at 10 kHz x 8 threads of
// chrome output (12.29 raw bytes a sample, docs/BENCHMARKS.md section 3).
//   bash scripts/build.sh wasm && node bench/deflate.mjs
//   WT_DEFLATE_INSTANCES=N (default 5)   WT_DEFLATE_ROUNDS=N per instance (default 6)
//   WT_DEFLATE_WRITE=0 (print only)
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { figure, median, replaceSection, stampSections, writeFigures } from './figures.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const INSTANCES = Number(process.env.WT_DEFLATE_INSTANCES || 5);
const ROUNDS = Number(process.env.WT_DEFLATE_ROUNDS || 6);
const LEVELS = ['O2', 'Os'];
const INPUT = 4 << 20;
const GZIP_LEVEL = 1;
const RAW_BYTES_PER_SAMPLE = 12.29;

export async function deflateBench({ wasm = join(root, 'build/wasm'), instances = INSTANCES, rounds = ROUNDS, log = () => {} } = {}) {
  const files = {};
  for (const l of LEVELS) {
    const js = join(wasm, `bench/deflate/deflate_${l}.js`);
    if (!existsSync(js)) throw new Error(`${js} is missing: run bash scripts/build.sh wasm first`);
    files[l] = { factory: require(js), binary: readFileSync(js.replace(/\.js$/, '.wasm')) };
  }
  const res = { inputBytes: 0, outBytes: 0, ms: { O2: [], Os: [] }, perInstance: [] };
  // Each instance compiles both modules afresh: one instance's ratio moved
  // from 1.00 to 1.08 between runs (compiled code, or the machine), so the
  // rounds are spread over several.
  for (let k = 0; k < instances; k++) {
    const mods = {};
    for (const l of LEVELS) {
      // The binary handed over: Emscripten 3.1.6's loader would fetch() a path under Node 18+.
      mods[l] = await files[l].factory({ wasmBinary: files[l].binary });
      res.inputBytes = mods[l]._make_input(INPUT);
      if (res.inputBytes <= 0) throw new Error(`deflate_${l}: no memory for the input`);
    }
    const once = (l, reps) => {
      const ms = mods[l]._deflate_input(GZIP_LEVEL, reps);
      if (ms < 0) throw new Error(`deflate_${l}: zlib failed`);
      return ms / reps;
    };
    for (const l of LEVELS) once(l, 2); // warm-up: V8's tiers
    // The same input in both (the same generator): checked by its deflated size.
    const sizes = LEVELS.map((l) => mods[l]._last_out_bytes());
    if (sizes[0] !== sizes[1]) throw new Error(`the two builds deflate to different sizes: ${sizes.join(' vs ')}`);
    res.outBytes = sizes[0];
    const ratios = [];
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first.
      const order = r % 2 ? [...LEVELS].reverse() : LEVELS;
      for (const l of order) res.ms[l].push(once(l, 3));
      ratios.push(res.ms.Os.at(-1) / res.ms.O2.at(-1));
    }
    res.perInstance.push(median(ratios));
    log(`instance ${k + 1}/${instances}: ${rounds} rounds, -Os/-O2 ${median(ratios).toFixed(3)}`);
  }
  return res;
}

const mbps = (res, l) => res.ms[l].map((ms) => res.inputBytes / 1e6 / (ms / 1000));

export function deflateFigures(res) {
  return [
    figure('deflate.o2.mb_per_s', 'MB/s', mbps(res, 'O2')),
    figure('deflate.os.mb_per_s', 'MB/s', mbps(res, 'Os')),
    figure('deflate.os_vs_o2.ratio', 'x', res.ms.Os.map((ms, i) => ms / res.ms.O2[i])),
  ];
}

export function deflateSection(res, command) {
  const figs = deflateFigures(res);
  const show = (x) => `\`${x.name}\` ${x.value.toFixed(2)}${x.ci95 ? ` [${x.ci95[0].toFixed(2)}, ${x.ci95[1].toFixed(2)}]` : ''}`;
  const rate = 10000 * 8 * RAW_BYTES_PER_SAMPLE / 1e6; // MB/s of chrome text at 10 kHz x 8 threads
  const share = (l) => (100 * rate / median(mbps(res, l))).toFixed(2);
  return `## 17. Deflate throughput

\`${command}\` (\`bench/deflate.mjs\`, \`bench/deflate/throughput.c\`): the library's zlib files at -O2 and at -Os, one
module each in one Node process, ${res.ms.O2.length} rounds alternating them (${res.perInstance.length} instances compiling both afresh,
${res.ms.O2.length / res.perInstance.length} rounds each; -Os/-O2 per instance: ${res.perInstance.map((x) => x.toFixed(3)).join(', ')}), on ${(res.inputBytes / 1e6).toFixed(2)} MB of
chrome-format text deflated as a session does (gzip, level ${GZIP_LEVEL}, 64 KiB of output at a time; ${(res.outBytes / 1e6).toFixed(2)} MB out).

| zlib built | input MB/s | the worker's share of a core at 10 kHz x 8 threads (${rate.toFixed(2)} MB/s of chrome text) |
|---|---|---|
| -O2 | ${median(mbps(res, 'O2')).toFixed(1)} | ${share('O2')} % |
| -Os | ${median(mbps(res, 'Os')).toFixed(1)} | ${share('Os')} % |

Figures (median [95 % CI]): ${figs.map(show).join('; ')}.
`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let res;
  try {
    res = await deflateBench({ log: (m) => console.log(m) });
  } catch (e) {
    // (The modules' own uncaughtException handler would print their source.)
    console.error(`bench/deflate.mjs: ${e.message}`);
    process.exit(1);
  }
  const text = deflateSection(res, 'node bench/deflate.mjs');
  console.log(text);
  if (process.env.WT_DEFLATE_WRITE !== '0') {
    writeFigures(deflateFigures(res));
    replaceSection('## 17. Deflate throughput', stampSections(text));
  }
}
