/*  finalizer.c: a finished step's results made off the event loop, see
    finalizer.h.

    At 2,500 agents a step's results take seconds to compute; on the loop
    that was seconds without ingesting, pinging or answering.  Here the
    loop and the thread share only the job and its answer, under a mutex;
    the database is what they share otherwise, each with its connection.
    Both connections wait (busy_timeout) for the other's write: the loop's
    commits every tick, the thread's once a step, both short.
*/
#define _GNU_SOURCE
#include "finalizer.h"
#include "log.h"
#include "side_db.h"
#include "util.h"
#include "step_results.h"

#include <pthread.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FIN_BUSY_MS  30000      /* waiting for the loop's tick to commit */

struct finalizer {
    char path[4096];
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_bool stop;
    bool job, answered;         /* a step is in hand; its answer is in */
    int64_t run;
    int step;
    step_results_t *results;    /* the answer (NULL: not stored) */
    uint64_t delay_ns;
    sqlite3 *db;                /* the thread's */
};

#define WHO "step results"         /* the thread, in the log */

/* Opens the thread's connection if not open.  Returns 0 or -1 (logged). */
static int
connect_db (finalizer_t *self)
{
    if (self->db)
        return 0;
    /* Results are acknowledged by nothing, but the step's end is recorded
       after them: side_db's synchronous=FULL keeps that order on a power
       cut. */
    self->db = side_db_open (self->path, FIN_BUSY_MS, WHO);
    return self->db ? 0 : -1;
}

/* Sleeps ns, or less when told to stop.  Can't fail. */
static void
nap (finalizer_t *self, uint64_t ns)
{
    uint64_t end = clock_mono_ns () + ns;
    while (!atomic_load (&self->stop) && clock_mono_ns () < end) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep (&ts, NULL);
    }
}

/* Makes and stores the results of run's step (after delay_ns, a test's
   slow database).  Returns them, or NULL (logged, or stopped). */
static step_results_t *
finalize (finalizer_t *self, int64_t run, int step, uint64_t delay_ns)
{
    if (connect_db (self) || side_db_begin (self->db, false, WHO))
        return NULL;
    step_results_t *sr = step_results_compute (self->db, run, step, &self->stop);
    side_db_commit (self->db, WHO);
    if (!sr)
        return NULL;
    nap (self, delay_ns);
    if (atomic_load (&self->stop)) {
        step_results_destroy (&sr);
        return NULL;
    }
    /* One transaction: a step's results are all stored or none. */
    if (side_db_begin (self->db, true, WHO))
        step_results_destroy (&sr);
    else if (step_results_save (sr, self->db) || side_db_commit (self->db, WHO)) {
        side_db_rollback (self->db, WHO);
        step_results_destroy (&sr);
    }
    return sr;
}

static void *
thread_main (void *arg)
{
    finalizer_t *self = arg;
    pthread_mutex_lock (&self->mu);
    for (;;) {
        while (!atomic_load (&self->stop) && !(self->job && !self->answered))
            pthread_cond_wait (&self->cv, &self->mu);
        if (atomic_load (&self->stop))
            break;
        int64_t run = self->run;
        int step = self->step;
        uint64_t delay = self->delay_ns;
        pthread_mutex_unlock (&self->mu);
        uint64_t t0 = clock_mono_ns ();
        step_results_t *sr = finalize (self, run, step, delay);
        /* What making them took (histograms of every target) back to the
           system: glibc keeps a thread's freed memory in its arena. */
        malloc_trim (0);
        if (sr)
            log_debug ("run %lld step %d: results made in %.0f ms", (long long) run, step + 1,
                       (double) (clock_mono_ns () - t0) / 1e6);
        pthread_mutex_lock (&self->mu);
        self->results = sr;
        self->answered = true;
        pthread_cond_broadcast (&self->cv);
    }
    pthread_mutex_unlock (&self->mu);
    side_db_close (&self->db);
    return NULL;
}

finalizer_t *
finalizer_new (const char *path)
{
    finalizer_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    str_copy (self->path, sizeof self->path, path);
    atomic_init (&self->stop, false);
    pthread_mutex_init (&self->mu, NULL);
    pthread_cond_init (&self->cv, NULL);
    if (pthread_create (&self->thread, NULL, thread_main, self) != 0) {
        pthread_mutex_destroy (&self->mu);
        pthread_cond_destroy (&self->cv);
        free (self);
        return NULL;
    }
    return self;
}

void
finalizer_destroy (finalizer_t **self_p)
{
    finalizer_t *self = *self_p;
    if (!self)
        return;
    pthread_mutex_lock (&self->mu);
    atomic_store (&self->stop, true);
    pthread_cond_broadcast (&self->cv);
    pthread_mutex_unlock (&self->mu);
    pthread_join (self->thread, NULL);
    step_results_destroy (&self->results);
    pthread_mutex_destroy (&self->mu);
    pthread_cond_destroy (&self->cv);
    free (self);
    *self_p = NULL;
}

int
finalizer_start (finalizer_t *self, int64_t run, int step)
{
    pthread_mutex_lock (&self->mu);
    int rc = -1;
    if (!self->job) {
        self->job = true;
        self->answered = false;
        self->run = run;
        self->step = step;
        pthread_cond_broadcast (&self->cv);
        rc = 0;
    }
    pthread_mutex_unlock (&self->mu);
    return rc;
}

bool
finalizer_poll (finalizer_t *self, bool wait, step_results_t **results)
{
    pthread_mutex_lock (&self->mu);
    IOF_ASSERT (self->job);
    while (wait && !self->answered)
        pthread_cond_wait (&self->cv, &self->mu);
    bool got = self->answered;
    if (got) {
        *results = self->results;
        self->results = NULL;
        self->job = self->answered = false;
    }
    pthread_mutex_unlock (&self->mu);
    return got;
}

bool
finalizer_busy (finalizer_t *self)
{
    pthread_mutex_lock (&self->mu);
    bool busy = self->job;
    pthread_mutex_unlock (&self->mu);
    return busy;
}

void
finalizer_set_delay (finalizer_t *self, uint64_t delay_ns)
{
    pthread_mutex_lock (&self->mu);
    self->delay_ns = delay_ns;
    pthread_mutex_unlock (&self->mu);
}
