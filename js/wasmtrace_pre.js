// wasmtrace (linked with --pre-js): keep a reference to the compiled
// WebAssembly.Module in pthread workers. Emscripten's worker drops
// Module.wasmModule right after instantiating, but the wasmtrace worker needs
// the module's name section to name the functions it sampled.
var wasmtraceCompiledModule = Module['wasmModule'] || null;
