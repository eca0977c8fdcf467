/*  worker.h: a worker thread's body.
*/
#ifndef IOF_WORKER_H
#define IOF_WORKER_H

#include "job_state.h"

/* The thread of worker arg (a worker_t): runs its I/O until the job ends or
   is stopped; its error, if any, is in the worker.  Returns NULL. */
void *worker_main (void *arg);

#endif
