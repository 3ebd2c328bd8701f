// What the commands share: the usage error (exit status 2), durations,
// the --config option, and how paths, sizes and times are printed.
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

export class UsageError extends Error {}

/** "5s" -> 5000 (ms). Bare numbers are milliseconds. */
export function parseDuration(text, what) {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(us|µs|ms|s|m|min)?\s*$/.exec(String(text));
  if (!m) throw new UsageError(`${what}: '${text}' is not a duration (e.g. 5s, 500ms, 250us)`);
  const scale = { us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60000, min: 60000 }[m[2] || 'ms'];
  return Number(m[1]) * scale;
}

export function readConfigOption(value) {
  const text = value.trim().startsWith('{') ? value : (() => {
    if (!existsSync(value)) throw new UsageError(`--config: no file '${value}' (give a file or inline JSON starting with '{')`);
    return readFileSync(value, 'utf8');
  })();
  let config;
  try {
    config = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--config: not valid JSON: ${e.message}`);
  }
  // A config with only a `server` needs no sessions (a tool starts them).
  if (!config || typeof config !== 'object' ||
      !(Array.isArray(config.sessions) || (config.sessions === undefined && config.server !== undefined))) {
    throw new UsageError('--config: expected an object with a "sessions" array (see config/wasmtrace.schema.json)');
  }
  return config;
}

/**
 * The config blob the command line asks for, or null to leave the page's
 * own config alone.
 */
export function buildConfig(v) {
  const presets = v.startup !== undefined || v.interval !== undefined || v.format !== undefined;
  let config = v.config !== undefined ? readConfigOption(v.config) : null;
  if (!config && !presets) return null;
  config ??= { sessions: [{ name: 'startup' }] };
  const waitsOtherwise = v['wait-for'] !== undefined || v.duration !== undefined;
  const fromPresets = v.config === undefined;
  for (const s of config.sessions ?? []) {
    if (v.startup !== undefined) s.durationMs = Math.round(parseDuration(v.startup, '--startup'));
    else if (fromPresets && !waitsOtherwise) s.durationMs = 5000;
    if (v.interval !== undefined) {
      const us = Math.round(parseDuration(v.interval, '--interval') * 1000);
      s.sampling = { ...(s.sampling || {}), intervalUs: us };
    }
    if (v.format !== undefined) {
      if (!['chrome', 'firefox', 'folded'].includes(v.format)) {
        throw new UsageError(`--format: '${v.format}' is not one of chrome, firefox, folded`);
      }
      s.format = v.format;
    }
  }
  return config;
}

export function kib(n) {
  return n >= 1024 * 1024 ? `${(n / 1048576).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`;
}

/** A path as the user would type it: relative below the cwd, else absolute. */
export function shown(file, cwd = process.cwd()) {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith('..') ? rel : file;
}

export function secs(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

export const count = (n) => (Number.isFinite(Number(n)) && Number(n) > 0 ? Number(n) : 0);
