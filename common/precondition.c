/*  precondition.c: the precondition step's jobs, see precondition.h. */
#include "precondition.h"

#include <stdio.h>
#include <string.h>

/* One option line applied to o as a job file's would be.  Returns 0 or
   -1 with the error set. */
static int
apply (parser_t *p, int line, job_opts_t *o, const char *text)
{
    char buf[128];
    snprintf (buf, sizeof buf, "%s", text);
    return job_opts_line (p, line, false, o, buf);
}

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
    if (apply (p, line, o, null_engine ? "ioengine=null" : "ioengine=libaio")
        || apply (p, line, o, src->direct ? "direct=1" : "direct=0")
        || apply (p, line, o, "rw=write") || apply (p, line, o, "bs=128k")
        || apply (p, line, o, "iodepth=32") || apply (p, line, o, "refill_buffers=1")
        || apply (p, line, o, loops))
        return -1;
    /* The region the job tests, as the job has it. */
    job_t *j = &o->job;
    memcpy (j->filename, src->filename, sizeof j->filename);
    memcpy (j->directory, src->directory, sizeof j->directory);
    j->size = src->size;
    j->size_pct = src->size_pct;
    j->offset = src->offset;
    j->offset_pct = src->offset_pct;
    j->nrfiles = src->nrfiles;
    j->filesize = src->filesize;
    return 0;
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
