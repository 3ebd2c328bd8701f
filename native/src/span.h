/* A span of time with a name: what the process-wide span tables keep
 * (span_table.h: the startup timeline's phases, the main thread's long
 * tasks) and what recorders give the encoders (recorder.h). */
#ifndef WT_SPAN_H
#define WT_SPAN_H

#include <stdint.h>

/* Kinds. A note is a sentence saying what could not be recorded (e.g. a
 * resource without timing detail), in `name`, with its time. */
enum { WT_SPAN_SPAN = 1, WT_SPAN_INSTANT = 2, WT_SPAN_NOTE = 3 };

#define WT_SPAN_NAME_MAX 128
#define WT_SPAN_LANES 16

typedef struct wt_span {
  double begin_us, end_us; /* end_us == begin_us for instants and notes */
  double bytes;            /* bytes it stands for (a resource's transfer), or -1 */
  uint8_t kind;            /* WT_SPAN_* */
  uint8_t lane;            /* encoders: its track (< WT_SPAN_LANES); no two spans of a lane overlap */
  char name[WT_SPAN_NAME_MAX]; /* UTF-8, cut at a character boundary */
} wt_span;

#endif
