#!/usr/bin/env node
// wasmtrace command line: `wasmtrace record <dir|url>`, `wasmtrace report <trace>`.
// The code is in lib/cli.mjs; `wasmtrace --help` lists the options.
import { main } from '../lib/cli.mjs';

process.exitCode = await main(process.argv.slice(2));
