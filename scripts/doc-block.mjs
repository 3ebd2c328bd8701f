// A generated block of a doc file, between two marker lines: written from
// its source, or (check) compared with it. Used by scripts/stats-table.mjs
// and scripts/link-table.mjs; exits 2 when the markers are missing, 1 when
// a check finds the block out of date.
import { readFileSync, writeFileSync } from 'node:fs';

/** { file, begin, end, body, check, tool, what } */
export function updateBlock({ file, begin, end, body, check, tool, what }) {
  const text = readFileSync(file, 'utf8');
  const a = text.indexOf(begin), b = text.indexOf(end);
  if (a < 0 || b < a) {
    console.error(`${tool}: ${file} has no "${begin}" ... "${end}" block`);
    process.exit(2);
  }
  const next = `${text.slice(0, a)}${begin}\n${body}\n${text.slice(b)}`;
  if (next === text) return;
  if (check) {
    console.error(`${tool}: ${what}: run node scripts/${tool}.mjs`);
    process.exit(1);
  }
  writeFileSync(file, next);
  console.log(`${tool}: ${file} updated`);
}
