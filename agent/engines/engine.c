/*  engine.c: the registry of built-in I/O engines. */
#include "engine.h"
#include "jobfile.h"

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

const engine_ops_t *
engine_find (const char *name)
{
    for (size_t i = 0; i < sizeof s_engines / sizeof s_engines[0]; i++)
        if (strcmp (s_engines[i]->name, name) == 0)
            return s_engines[i];
    return NULL;
}

const char *
engine_names (void)
{
    return JOB_ENGINES;
}
