// A node:test reporter that writes one line per failing test, for the
// summary scripts/test.sh prints after every pass has run:
//   tests/browser/formats.test.mjs: one recording ... > time-weighted readers ...
// A suite or file whose only failures are its subtests' is not listed again
// (its subtests are); one that fails by itself (a `before` hook, a file that
// does not load) is. Paths are relative to the working directory.
import { relative } from 'node:path';

export default async function* failures(source) {
  const path = new Map(); // file -> names by nesting level
  for await (const ev of source) {
    if (ev.type !== 'test:start' && ev.type !== 'test:fail') continue;
    const { file = '(unknown file)', name, nesting } = ev.data;
    const names = path.get(file) ?? [];
    path.set(file, names);
    if (ev.type === 'test:start') {
      names.length = nesting;
      names[nesting] = name;
      continue;
    }
    const error = ev.data.details?.error;
    if (error?.failureType === 'subtestsFailed') continue;
    const where = relative(process.cwd(), file) || file;
    const chain = [...names.slice(0, nesting), name].filter((n) => n !== file);
    // The message's first lines (an assertion's first line alone is often
    // only "Expected values to be strictly equal:").
    const text = String(error?.cause?.message ?? error?.cause ?? error?.message ?? '');
    const why = text.split('\n').map((l) => l.trim()).filter(Boolean).slice(0, 3).join(' ').slice(0, 200);
    yield `${where}: ${chain.join(' > ') || '(the file)'}${why ? ` -- ${why}` : ''}\n`;
  }
}
