/* Empty -finstrument-functions hooks (the app's own, instead of wasmtrace):
 * with -flto they inline to nothing, the floor for tests/moving/depth.c. */
__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *call_site) {
  (void)fn;
  (void)call_site;
}
__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *call_site) {
  (void)fn;
  (void)call_site;
}
/* As native/src/hooks.c: the call site the compiler passes is not used. */
__attribute__((no_instrument_function)) void *emscripten_return_address(int level) {
  (void)level;
  return 0;
}
