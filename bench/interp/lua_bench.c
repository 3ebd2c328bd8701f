/* A call-dense real workload for the -finstrument-functions hooks (issue
 * 28): the Lua 5.4 interpreter (Debian's sources, fetched at build time by
 * bench/interp.mjs, never committed) running a script of our own whose work
 * goes through the interpreter's small C functions: table gets and sets,
 * string interning and concatenation, C->Lua calls from table.sort's
 * comparator, closures, metamethods and the collector.
 *
 *   node lua_bench.js [REPS] [SESSION_JSON]
 * prints one line: {"ms":[...], "check":N} (each rep's wall time; check is
 * the script's result, the same for every build). With SESSION_JSON a
 * wasmtrace session records the whole run (the sampler running, as in an
 * app being profiled). */
#include <emscripten.h>
#include <stdio.h>
#include <stdlib.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

#ifndef WT_INTERP_PLAIN
#include <wasmtrace/wasmtrace.h>
#endif

static const char *SCRIPT =
    "local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end\n"
    "local Vec = {}\n"
    "Vec.__index = Vec\n"
    "Vec.__add = function(a, b) return setmetatable({x = a.x + b.x, y = a.y + b.y}, Vec) end\n"
    "function Vec.new(x, y) return setmetatable({x = x, y = y}, Vec) end\n"
    "function Vec:len2() return self.x * self.x + self.y * self.y end\n"
    "local function words(n)\n"
    "  local t = {}\n"
    "  for i = 1, n do t[#t + 1] = string.format('w%05d', (i * 7919) % 10007) end\n"
    "  return t\n"
    "end\n"
    "local check = fib(24)\n"
    "local acc = Vec.new(0, 0)\n"
    "for i = 1, 60000 do acc = acc + Vec.new(i % 7, i % 11); check = check + (acc:len2() % 3) end\n"
    "local w = words(12000)\n"
    "table.sort(w, function(a, b) return a > b end)\n"
    "local counts = {}\n"
    "for _, s in ipairs(w) do local k = s:sub(1, 3); counts[k] = (counts[k] or 0) + 1 end\n"
    "local parts = {}\n"
    "for k, v in pairs(counts) do parts[#parts + 1] = k .. '=' .. v end\n"
    "table.sort(parts)\n"
    "check = check + #table.concat(parts, ',') + #w[1]\n"
    "return check\n";

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 5;
  if (reps < 1) reps = 1;
  if (reps > 64) reps = 64;
#ifndef WT_INTERP_PLAIN
  int session = -1;
  if (argc > 2 && wt_session_start(argv[2], &session) != WT_OK) {
    fprintf(stderr, "lua_bench: session: %s\n", wt_session_error(session));
    return 2;
  }
#endif
  double ms[64];
  long long check = 0;
  for (int r = 0; r < reps; r++) {
    double t0 = emscripten_get_now();
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    if (luaL_dostring(L, SCRIPT) != LUA_OK) {
      fprintf(stderr, "lua_bench: %s\n", lua_tostring(L, -1));
      return 2;
    }
    check = (long long)lua_tointeger(L, -1);
    lua_close(L);
    ms[r] = emscripten_get_now() - t0;
  }
#ifndef WT_INTERP_PLAIN
  if (session >= 0) wt_session_stop(session);
#endif
  printf("{\"ms\":[");
  for (int r = 0; r < reps; r++) printf("%s%.3f", r ? "," : "", ms[r]);
  printf("],\"check\":%lld}\n", check);
  return 0;
}
