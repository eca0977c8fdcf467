/*  finalizer.h: a finished step's results made off the event loop.

    A thread with its own connection to the database (WAL: it reads while
    the loop writes) computes a step's results (step_results.c) in a read
    transaction, then stores them in one short write transaction (BEGIN
    IMMEDIATE: all or nothing), while the loop goes on ingesting and
    answering.  The loop asks (finalizer_poll) each tick for the answer.
    One step at a time.
*/
#ifndef IOF_FINALIZER_H
#define IOF_FINALIZER_H

#include "step_results.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct finalizer finalizer_t;

/* A finalizer for the database at path (opened by its thread when the
   first step comes).  Returns NULL when out of memory or the thread
   cannot start. */
finalizer_t *finalizer_new (const char *path);
/* Stops the thread: a step being computed is given up before it is
   stored (a restarted controller makes it again, see recover.c); one
   being written is written.  Can't fail. */
void finalizer_destroy (finalizer_t **self_p);
/* Starts making the results of run's step.  Returns 0, or -1 when a step
   is in hand already. */
int finalizer_start (finalizer_t *self, int64_t run, int step);
/* The answer for the step started, once there is one: returns true and
   *results (the results stored, for their totals; the caller destroys
   them) or NULL when they could not be stored (logged).  Returns false
   while they are being made.  wait: blocks until there is an answer.
   Can't fail. */
bool finalizer_poll (finalizer_t *self, bool wait, step_results_t **results);
/* Is a step in hand (started, answer not taken)?  Can't fail. */
bool finalizer_busy (finalizer_t *self);
/* For tests: the thread sleeps delay_ns before each step's write. */
void finalizer_set_delay (finalizer_t *self, uint64_t delay_ns);

#endif
