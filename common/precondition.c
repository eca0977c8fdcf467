/*  precondition.c: the precondition step's jobs, see precondition.h. */
#include "precondition.h"

#include <stdio.h>
#include <string.h>

int
precondition_job (parser_t *p, int line, const job_t *src, uint32_t count, job_opts_t *o)
{
    if (!src->filename[0]) {
        optval_error (p, line, "precondition= needs filename= on every job (job '%s' has none, "
                      "so its files are named after it): it writes the targets the jobs test",
                      src->name);
        return -1;
    }
    job_opts_default (o);
    snprintf (o->job.name, sizeof o->job.name, "%s", PRECONDITION_NAME);
    o->job.line = line;
    char loops[32];
    snprintf (loops, sizeof loops, "loops=%u", count);
    bool null_engine = strcmp (src->ioengine, "null") == 0;
    if (job_opts_text (p, line, o, null_engine ? "ioengine=null" : "ioengine=libaio")
        || job_opts_text (p, line, o, src->direct ? "direct=1" : "direct=0")
        || job_opts_text (p, line, o, "rw=write")
        || job_opts_text (p, line, o, "bs=128k")
        || job_opts_text (p, line, o, "iodepth=32")
        || job_opts_text (p, line, o, "refill_buffers=1")
        || job_opts_text (p, line, o, loops))
        return -1;
    precondition_copy_region (&o->job, src);
    return 0;
}

void
precondition_copy_region (job_t *dst, const job_t *src)
{
    memcpy (dst->filename, src->filename, sizeof dst->filename);
    memcpy (dst->directory, src->directory, sizeof dst->directory);
    dst->size = src->size;
    dst->size_pct = src->size_pct;
    dst->offset = src->offset;
    dst->offset_pct = src->offset_pct;
    dst->nrfiles = src->nrfiles;
    dst->filesize = src->filesize;
}

bool
precondition_same_region (const job_t *a, const job_t *b)
{
    return strcmp (a->filename, b->filename) == 0 && strcmp (a->directory, b->directory) == 0
           && a->size == b->size && a->size_pct == b->size_pct && a->offset == b->offset
           && a->offset_pct == b->offset_pct && a->nrfiles == b->nrfiles
           && a->filesize == b->filesize && a->direct == b->direct
           && (strcmp (a->ioengine, "null") == 0) == (strcmp (b->ioengine, "null") == 0);
}
