/*  engine.c: the registry of built-in I/O engines.

    The list of engines has one home, JOB_ENGINES (common/fio_names.h): the
    job-file parser in common/ must know the names without linking the
    agent's engines.  The list the agent prints is built here from its ops
    tables, and the first look-up asserts (in every build) that it is that
    one, in that order, so an engine added here and not there, or there and
    not here, stops the agent at once instead of being refused at PREPARE.
*/
#include "engine.h"
#include "fio_names.h"
#include "util.h"

#include <pthread.h>
#include <string.h>

extern const engine_ops_t engine_libaio_ops;
extern const engine_ops_t engine_io_uring_ops;
extern const engine_ops_t engine_psync_ops;
extern const engine_ops_t engine_pvsync_ops;
extern const engine_ops_t engine_pvsync2_ops;
extern const engine_ops_t engine_sync_ops;
extern const engine_ops_t engine_vsync_ops;
extern const engine_ops_t engine_posixaio_ops;
extern const engine_ops_t engine_null_ops;

static const engine_ops_t *s_engines[] = {
    &engine_libaio_ops,
    &engine_io_uring_ops,
    &engine_psync_ops,
    &engine_pvsync_ops,
    &engine_pvsync2_ops,
    &engine_sync_ops,
    &engine_vsync_ops,
    &engine_posixaio_ops,
    &engine_null_ops,
};

#define NENGINES (sizeof s_engines / sizeof s_engines[0])

static char s_names[sizeof JOB_ENGINES];
static pthread_once_t s_names_once = PTHREAD_ONCE_INIT;

/* Builds s_names from the ops tables and asserts it is JOB_ENGINES.
   Can't fail (asserts). */
static void
s_names_build (void)
{
    size_t len = 0;
    for (size_t i = 0; i < NENGINES; i++) {
        const char *name = s_engines[i]->name;
        size_t n = strlen (name);
        IOF_ASSERT (len + (i ? 2 : 0) + n < sizeof s_names);
        if (i) {
            memcpy (s_names + len, ", ", 2);
            len += 2;
        }
        memcpy (s_names + len, name, n);
        len += n;
        IOF_ASSERT (job_engine_known (name));
        /* A diskless engine does no I/O, so it has none to wait for. */
        IOF_ASSERT (!s_engines[i]->diskless || s_engines[i]->completes_at_commit);
        /* One I/O at a time is a synchronous engine's. */
        IOF_ASSERT (!s_engines[i]->one_at_a_time || s_engines[i]->completes_at_commit);
    }
    s_names[len] = '\0';
    IOF_ASSERT (strcmp (s_names, JOB_ENGINES) == 0);
    /* And the parser's table of engines, with their properties, is it too. */
    IOF_ASSERT (fio_engines_listed ());
}

/* The ops table for name, or NULL when unknown.  Can't fail. */
const engine_ops_t *
engine_find (const char *name)
{
    pthread_once (&s_names_once, s_names_build);
    for (size_t i = 0; i < NENGINES; i++)
        if (strcmp (s_engines[i]->name, name) == 0)
            return s_engines[i];
    return NULL;
}

/* The engines' names, from their ops tables.  Can't fail. */
const char *
engine_names (void)
{
    pthread_once (&s_names_once, s_names_build);
    return s_names;
}
