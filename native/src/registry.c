/* Thread registry, scope-name interning and shadow-stack copies. */
#include "registry.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "json.h"
#include "mem.h"
#include "platform.h"

/* The registry's state: below the runtime object (runtime.h says why it is
 * not a part of wt_rt). */
static struct {
  pthread_mutex_t mutex;
  _Atomic uint32_t count;
  _Atomic(wt_thread *) threads[WT_MAX_THREADS];
  _Atomic uint64_t threads_dropped;
  /* Slots whose thread exited and whose record the worker freed
   * (wt_registry_reclaim), taken again before new ones. */
  uint32_t free_slots[WT_MAX_THREADS];
  uint32_t free_count;
  uint32_t registered;   /* threads registered so far: the next one's number */
  _Atomic uint64_t threads_reclaimed;
  pthread_key_t exit_key;
  _Atomic int exit_key_made; /* exit_key is valid (release: after it is) */
  /* Interned names: an open-addressing map from pointer to id, and the
   * id -> name table. Names are string literals, so the pointer identifies
   * them; two equal strings at different addresses get two ids with the
   * same text, which the encoders merge by text. Both grow with the names
   * an app has (a few dozen, typically), never to their limit up front: at
   * Emscripten's default 16 MiB heap the full tables (1.25 MiB) were a
   * twelfth of the heap. The id -> name table is in segments that never
   * move (readers take no lock); the map is only touched under the mutex. */
  const char **name_segs[WT_MAX_NAMES / WT_NAME_SEGMENT]; /* index -> name */
  _Atomic uint32_t names_count;
  const char **map_keys;  /* pointer hash map, map_cap slots (a power of two) */
  uint32_t *map_ids;
  uint32_t map_cap;
  char categories[WT_MAX_CATEGORY_NAMES][32];
  _Atomic uint32_t category_count;
} reg = {.mutex = PTHREAD_MUTEX_INITIALIZER};

enum { TLS_UNKNOWN = 0, TLS_REGISTERED = 1, TLS_EXCLUDED = 2 };
_Thread_local wt_thread *wt_i_tls_self;
static _Thread_local int tls_state;

/* The thread's call count tables (calls.h), as its record is freed. */
static void free_calls(wt_thread *t) {
  wt_calls *c = atomic_load_explicit(&t->calls_table, memory_order_relaxed);
  while (c) {
    wt_calls *older = c->older;
    wt_mem_free(c);
    c = older;
  }
}

/* The thread is exiting (a pthread key destructor): it forgets its record
 * first, so that instrumented code running later in its exit (other
 * destructors) never touches it, then marks it exited; the worker may free
 * it from then on (wt_registry_reclaim). */
static void on_thread_exit(void *arg) {
  wt_thread *t = arg;
  wt_i_tls_self = NULL;
  tls_state = TLS_EXCLUDED;
  atomic_store_explicit(&t->exited, 1, memory_order_release);
}

static wt_thread *register_self_as(uint32_t start_fn, int base_frame) {
  if (tls_state != TLS_UNKNOWN) return NULL;
  tls_state = TLS_EXCLUDED; /* also guards against re-entry while we register */
  pthread_mutex_lock(&reg.mutex);
  uint32_t count = atomic_load_explicit(&reg.count, memory_order_relaxed);
  uint32_t slot = reg.free_count ? reg.free_slots[reg.free_count - 1] : count;
  wt_thread *t = NULL;
  if (slot < WT_MAX_THREADS) {
    t = wt_mem_aligned_alloc(64, sizeof(wt_thread));
    if (t) {
      memset(t, 0, sizeof *t);
      t->slot = slot;
      t->number = reg.registered++;
      t->is_main = wt_platform_is_main_thread();
      t->start_fn = start_fn;
      atomic_store_explicit(&t->base_frame, base_frame, memory_order_relaxed);
      if (t->is_main)
        wt_snprintf(t->name, sizeof t->name, "main");
      else
        wt_snprintf(t->name, sizeof t->name, "pthread %u", (unsigned)t->number);
      if (slot < count) reg.free_count--;
      if (!atomic_load_explicit(&reg.exit_key_made, memory_order_relaxed) &&
          pthread_key_create(&reg.exit_key, on_thread_exit) == 0)
        atomic_store_explicit(&reg.exit_key_made, 1, memory_order_release);
      if (atomic_load_explicit(&reg.exit_key_made, memory_order_relaxed) && !t->is_main)
        pthread_setspecific(reg.exit_key, t);
      atomic_store_explicit(&reg.threads[slot], t, memory_order_release);
      if (slot == count) atomic_store_explicit(&reg.count, slot + 1, memory_order_release);
    }
  }
  if (!t) atomic_fetch_add_explicit(&reg.threads_dropped, 1, memory_order_relaxed);
  pthread_mutex_unlock(&reg.mutex);
  if (t) {
    wt_i_tls_self = t;
    tls_state = TLS_REGISTERED;
  }
  return t;
}

static wt_thread *register_self(void) { return register_self_as(0, 0); }

wt_thread *wt_thread_self(void) {
  wt_thread *t = wt_i_tls_self;
  if (__builtin_expect(t != NULL, 1)) return t;
  return register_self();
}

wt_thread *wt_registry_register_started(uint32_t start_fn, int base_frame) {
  return register_self_as(start_fn, base_frame);
}

uint32_t wt_registry_thread_start(const wt_thread *t) {
  pthread_mutex_lock(&reg.mutex);
  uint32_t fn = t->named ? 0 : t->start_fn;
  pthread_mutex_unlock(&reg.mutex);
  return fn;
}

wt_thread *wt_registry_self_without_tls(void) {
  /* The main thread's thread-local storage is static: always there. */
  if (wt_platform_is_main_thread()) return wt_i_tls_self;
  if (!atomic_load_explicit(&reg.exit_key_made, memory_order_acquire)) return NULL;
  /* Thread-specific data lives in the thread's pthread struct from its
   * creation (zeroed: NULL until the thread registers, and again from its
   * exit on). */
  return pthread_getspecific(reg.exit_key);
}

void wt_registry_exclude_self(void) {
  if (tls_state == TLS_UNKNOWN) tls_state = TLS_EXCLUDED;
}

uint32_t wt_registry_count(void) {
  return atomic_load_explicit(&reg.count, memory_order_acquire);
}

wt_thread *wt_registry_get(uint32_t slot) {
  if (slot >= WT_MAX_THREADS) return NULL;
  return atomic_load_explicit(&reg.threads[slot], memory_order_acquire);
}

void wt_registry_thread_name(const wt_thread *t, char *out) {
  pthread_mutex_lock(&reg.mutex);
  memcpy(out, t->name, WT_THREAD_NAME_MAX);
  pthread_mutex_unlock(&reg.mutex);
  out[WT_THREAD_NAME_MAX - 1] = '\0';
}

void wt_thread_set_name(const char *name) {
  wt_thread *t = wt_thread_self();
  if (!t || !name) return;
  pthread_mutex_lock(&reg.mutex);
  wt_json_utf8_copy(t->name, sizeof t->name, name);
  t->named = 1;
  pthread_mutex_unlock(&reg.mutex);
}

uint64_t wt_registry_threads_dropped(void) {
  return atomic_load_explicit(&reg.threads_dropped, memory_order_relaxed);
}

uint64_t wt_registry_threads_reclaimed(void) {
  return atomic_load_explicit(&reg.threads_reclaimed, memory_order_relaxed);
}

void wt_registry_reclaim(uint32_t slot) {
  if (slot >= WT_MAX_THREADS) return;
  pthread_mutex_lock(&reg.mutex);
  wt_thread *t = atomic_load_explicit(&reg.threads[slot], memory_order_relaxed);
  if (t && atomic_load_explicit(&t->exited, memory_order_acquire)) {
    atomic_store_explicit(&reg.threads[slot], NULL, memory_order_release);
    reg.free_slots[reg.free_count++] = slot;
    atomic_fetch_add_explicit(&reg.threads_reclaimed, 1, memory_order_relaxed);
  } else {
    t = NULL;
  }
  pthread_mutex_unlock(&reg.mutex);
  if (t) free_calls(t);
  wt_mem_free(t);
}

static uint32_t hash_ptr(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (uint32_t)x;
}

static const char overflow_name[] = "(too many scope names)";

/* Puts (key, id) in a map of cap slots (a power of two, never full). */
static void map_put(const char **keys, uint32_t *ids, uint32_t cap, const char *key, uint32_t id) {
  uint32_t i = hash_ptr(key) & (cap - 1);
  while (keys[i]) i = (i + 1) & (cap - 1);
  keys[i] = key;
  ids[i] = id;
}

/* Makes room for one more name: the map at most half full, the segment of
 * the next index allocated. 0 if the heap refused (the tables stay as they
 * were). Under the mutex. */
static int names_make_room(uint32_t index) {
  uint32_t cap = reg.map_cap;
  if (2 * (index + 1) > cap) {
    uint32_t bigger = cap ? 2 * cap : WT_NAME_MAP_FIRST;
    const char **keys = wt_mem_calloc(bigger, sizeof *keys);
    uint32_t *ids = wt_mem_calloc(bigger, sizeof *ids);
    if (!keys || !ids) {
      wt_mem_free(keys);
      wt_mem_free(ids);
      return 0;
    }
    for (uint32_t i = 0; i < cap; i++)
      if (reg.map_keys[i]) map_put(keys, ids, bigger, reg.map_keys[i], reg.map_ids[i]);
    wt_mem_free(reg.map_keys);
    wt_mem_free(reg.map_ids);
    reg.map_keys = keys;
    reg.map_ids = ids;
    reg.map_cap = bigger;
  }
  const char ***seg = &reg.name_segs[index / WT_NAME_SEGMENT];
  if (!*seg && !(*seg = wt_mem_calloc(WT_NAME_SEGMENT, sizeof **seg))) return 0;
  return 1;
}

uint32_t wt_registry_intern(const char *name) {
  if (!name) return 0;
  uint32_t id = 0;
  pthread_mutex_lock(&reg.mutex);
  if (reg.map_cap) {
    uint32_t mask = reg.map_cap - 1;
    for (uint32_t i = hash_ptr(name) & mask; reg.map_keys[i]; i = (i + 1) & mask)
      if (reg.map_keys[i] == name) {
        id = reg.map_ids[i];
        pthread_mutex_unlock(&reg.mutex);
        return id;
      }
  }
  uint32_t index = atomic_load_explicit(&reg.names_count, memory_order_relaxed);
  if (index >= WT_MAX_NAMES - 1 && name != overflow_name) {
    /* Full: every further name shares the last slot's sentinel. */
    pthread_mutex_unlock(&reg.mutex);
    return wt_registry_intern(overflow_name);
  }
  /* 0 (no name) when the heap refused the tables' growth. */
  if (index < WT_MAX_NAMES && names_make_room(index)) {
    reg.name_segs[index / WT_NAME_SEGMENT][index % WT_NAME_SEGMENT] = name;
    id = WT_FRAME_SCOPE_BIT | index;
    map_put(reg.map_keys, reg.map_ids, reg.map_cap, name, id);
    /* Release: a reader that sees the count sees the segment and the name. */
    atomic_store_explicit(&reg.names_count, index + 1, memory_order_release);
  }
  pthread_mutex_unlock(&reg.mutex);
  return id;
}

uint32_t wt_registry_intern_category(const char *name) {
  if (!name) name = "app";
  pthread_mutex_lock(&reg.mutex);
  uint32_t n = atomic_load_explicit(&reg.category_count, memory_order_relaxed);
  uint32_t index = WT_MAX_CATEGORY_NAMES - 1;
  int found = 0;
  for (uint32_t i = 0; i < n; i++)
    if (strncmp(reg.categories[i], name, sizeof reg.categories[i] - 1) == 0) {
      index = i;
      found = 1;
      break;
    }
  if (!found && n < WT_MAX_CATEGORY_NAMES) {
    index = n;
    wt_snprintf(reg.categories[n], sizeof reg.categories[n], "%s",
                n == WT_MAX_CATEGORY_NAMES - 1 ? "(other)" : name);
    atomic_store_explicit(&reg.category_count, n + 1, memory_order_release);
  }
  pthread_mutex_unlock(&reg.mutex);
  return index;
}

const char *wt_registry_category_name(uint32_t index) {
  if (index >= atomic_load_explicit(&reg.category_count, memory_order_acquire)) return "";
  return reg.categories[index];
}

uint32_t wt_registry_category_count(void) {
  return atomic_load_explicit(&reg.category_count, memory_order_acquire);
}

const char *wt_registry_scope_name(uint32_t id) {
  if (!(id & WT_FRAME_SCOPE_BIT)) return NULL;
  uint32_t index = id & ~WT_FRAME_SCOPE_BIT;
  if (index >= atomic_load_explicit(&reg.names_count, memory_order_acquire)) return NULL;
  return reg.name_segs[index / WT_NAME_SEGMENT][index % WT_NAME_SEGMENT];
}

/* Copies a moving stack: see "No sample lost to a moving stack" in
 * registry.h for why the kept prefix is true. Up to STACK_COPY_TRIES tries
 * for a complete copy; if none is, the one that proves the longest
 * prefix. */
#define STACK_COPY_TRIES 8 /* as many as the whole-word check had: never fewer complete copies */
int wt_stack_copy(wt_thread *t, uint32_t *out, uint32_t *depth, int *partial) {
  uint64_t raw[WT_MAX_DEPTH];
  int best = -1;
  uint32_t best_depth = 0;
  for (int attempt = 0; attempt < STACK_COPY_TRIES; attempt++) {
    uint64_t before = atomic_load_explicit(&t->top, memory_order_acquire);
    uint32_t d = WT_TOP_DEPTH(before);
    uint32_t n = d < WT_MAX_DEPTH ? d : WT_MAX_DEPTH;
    /* Deepest first: the slots that change most often are read closest
     * to `before`, which makes their window shortest. */
    for (uint32_t i = n; i-- > 0;) raw[i] = atomic_load_explicit(&t->frames[i], memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    uint64_t after = atomic_load_explicit(&t->top, memory_order_relaxed);
    /* Tags written during the copy: (P0, P1 + 1], mod 2^32. */
    uint32_t p0 = (uint32_t)WT_TOP_PUSHES(before), span = (uint32_t)WT_TOP_PUSHES(after) - p0;
    uint32_t m = 0;
    while (m < n && (uint32_t)(WT_SLOT_TAG(raw[m]) - p0 - 1u) > span) m++;
    /* A complete copy wins over any partial one, even a longer one: its
     * leaf is known, so self time goes where it belongs. */
    if ((int)m > best || m == n) {
      for (uint32_t i = 0; i < m; i++) out[i] = WT_SLOT_ID(raw[i], i);
      best = (int)m;
      best_depth = d;
    }
    if (m == n) break;
  }
  *depth = best_depth;
  *partial = (uint32_t)best < (best_depth < WT_MAX_DEPTH ? best_depth : WT_MAX_DEPTH);
  return best;
}

void wt_registry_reset(void) {
  pthread_mutex_lock(&reg.mutex);
  uint32_t n = atomic_load_explicit(&reg.count, memory_order_relaxed);
  for (uint32_t i = 0; i < n; i++) {
    wt_thread *t = atomic_load_explicit(&reg.threads[i], memory_order_relaxed);
    if (t) free_calls(t);
    wt_mem_free(t);
    atomic_store_explicit(&reg.threads[i], NULL, memory_order_relaxed);
  }
  atomic_store_explicit(&reg.count, 0, memory_order_relaxed);
  atomic_store_explicit(&reg.threads_dropped, 0, memory_order_relaxed);
  atomic_store_explicit(&reg.threads_reclaimed, 0, memory_order_relaxed);
  reg.free_count = 0;
  reg.registered = 0;
  for (size_t i = 0; i < sizeof reg.name_segs / sizeof reg.name_segs[0]; i++) {
    wt_mem_free(reg.name_segs[i]);
    reg.name_segs[i] = NULL;
  }
  wt_mem_free(reg.map_keys);
  wt_mem_free(reg.map_ids);
  reg.map_keys = NULL;
  reg.map_ids = NULL;
  reg.map_cap = 0;
  atomic_store_explicit(&reg.names_count, 0, memory_order_relaxed);
  atomic_store_explicit(&reg.category_count, 0, memory_order_relaxed);
  pthread_mutex_unlock(&reg.mutex);
  wt_i_tls_self = NULL;
  tls_state = TLS_UNKNOWN;
}
