/* The Firefox Profiler encoder's parts (encoder_firefox.c: the retained
 * buffers, the threads' tables, counters and meta; encoder_firefox_markers.c:
 * the markers and allocations): its state, the final write's context, and
 * what the parts share. Worker only. */
#ifndef WT_ENCODER_FIREFOX_H
#define WT_ENCODER_FIREFOX_H

#include <stdint.h>

#include "encoder.h"
#include "strtab.h"
#include "u32map.h"

/* No index: a null in a table column (a stack without prefix), or a string
 * the table had no memory for (wt_strtab_index's WT_STRTAB_NONE). */
#define NO_INDEX WT_STRTAB_NONE
#define PROCESSED_VERSION 57
#define FIXED_CATEGORIES 4
enum { CAT_OTHER = 0, CAT_IDLE = 1, CAT_WASM = 2, CAT_SCOPE = 3 };
/* Marker phases of the processed format. */
enum { PHASE_INSTANT = 0, PHASE_INTERVAL = 1, PHASE_INTERVAL_START = 2 };
#define SAMPLE_ENTRY 14 /* a retained sample: double time, u32 node, u16 weight (unaligned) */

typedef struct ff_state {
  wt_ring samples; /* retained SAMPLE_ENTRY records */
  wt_ring events;  /* retained wt_event_rec */
  double epoch_ms; /* wall clock at the session's start */
} ff_state;

static inline const wt_event_rec *ff_event_at(const ff_state *f, size_t i) { return wt_ring_at(&f->events, i); }

/* Everything the final write needs besides the view. */
typedef struct ff_writer {
  const wt_encode_view *v;
  const ff_state *f;
  wt_json *j;
  wt_strtab strings;
  uint32_t *order;      /* retained samples' storage positions grouped by thread, time order */
  uint32_t first[WT_MAX_THREADS + 1]; /* order[first[t] .. first[t+1]) belong to thread t */
  uint32_t *ev_order;   /* retained event positions sorted by (thread, time) */
  uint32_t *stack_of;   /* node id -> stack index + 1 in its thread (0: none yet) */
  uint32_t *stack_frame, *stack_prefix; /* this thread's stack table */
  uint32_t *frame_id, *frame_func, *frame_cat; /* this thread's frame table */
  uint32_t *func_name;                  /* this thread's func table */
  uint32_t nstacks, nframes, nfuncs;
  wt_u32map frame_of; /* frame index + 1 by frame id (per thread) */
  wt_u32map func_of;  /* func index + 1 by name string index (per thread) */
  uint8_t marker_cat[WT_MAX_CATEGORY_NAMES]; /* wasmtrace category -> profile category, 0: unused */
  uint32_t ncats;
  /* The recorders' spans (recorder.h: the startup timeline's): markers of
   * a category per set ("Startup") on the main thread (span_slot; the
   * first thread written if none is). */
  size_t nspans;                          /* in all sets */
  uint32_t span_cat[WT_RECORDERS_MAX];    /* each set's profile category */
  int span_slot;
  int oom;
} ff_writer;

/* A time in the profile: milliseconds since the session started. */
void ff_write_ms(ff_writer *w, double us);
/* The string index of a frame's (or event's) name; WT_STRTAB_NONE sets oom. */
uint32_t ff_name_index(ff_writer *w, uint32_t frame);
/* The thread's events: ev_order[*lo .. *hi), in time order. */
void ff_thread_events(const ff_writer *w, uint16_t slot, uint32_t *lo_out, uint32_t *hi_out);
/* A record that is a marker: a scope, an instant, or a growth of the wasm
 * memory (an instant whose cause is its stack). */
int ff_is_marker(const wt_event_rec *r);

/* encoder_firefox_markers.c: the thread's "nativeAllocations" and
 * "markers" members (the recorders' spans on the main thread). */
void ff_write_allocations(ff_writer *w, uint16_t slot);
void ff_write_markers(ff_writer *w, uint16_t slot);

#endif
