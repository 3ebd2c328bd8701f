import { UsageError } from './common.mjs';

// flags and deps: the native library of an installed package (lib/native.mjs).
export async function flags(positionals, v, io) {
  if (positionals.length) throw new UsageError(`flags: unexpected '${positionals[0]}' (wasmtrace flags --cflags | --ldflags [--heap] [--formats] [--with-server] [--build])`);
  if (!v.cflags && !v.ldflags && !v.build) throw new UsageError('flags: say which: --cflags, --ldflags (or --build)');
  const native = await import('../native.mjs');
  try {
    const note = native.emccVersionNote(native.emccVersion());
    if (note) io.err(`wasmtrace flags: note: ${note}`);
    if (v.build) native.buildLibrary({ progress: (l) => io.err(`wasmtrace: ${l}`) });
    if (!v.cflags && !v.ldflags) {
      const { prefix } = native.libraryFlags();
      io.err(`wasmtrace: built: ${prefix} (wasmtrace flags --cflags / --ldflags print its flags)`);
      return 0;
    }
    const f = native.libraryFlags({ heap: !!v.heap, formats: !!v.formats, server: !!v['with-server'] });
    io.out([v.cflags ? f.cflags : '', v.ldflags ? f.ldflags : ''].filter(Boolean).join(' '));
    return 0;
  } catch (e) {
    if (!(e instanceof native.NativeError)) throw e;
    io.err(`wasmtrace flags: ${e.message}`);
    return 1;
  }
}

export async function deps(positionals, v, io) {
  if (positionals.length) throw new UsageError(`deps: unexpected '${positionals[0]}'`);
  const native = await import('../native.mjs');
  try {
    const d = native.ensureDeps({ progress: (l) => io.err(`wasmtrace: ${l}`) });
    io.out(`cJSON: ${d.cjson}`);
    io.out(`zlib:  ${d.zlib}`);
    return 0;
  } catch (e) {
    if (!(e instanceof native.NativeError)) throw e;
    io.err(`wasmtrace deps: ${e.message}`);
    return 1;
  }
}
