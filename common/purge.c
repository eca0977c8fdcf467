/*  purge.c: the purge step's jobs, see purge.h. */
#include "purge.h"
#include "precondition.h"

#include <stdio.h>
#include <string.h>

int
purge_parse (const char *value, purge_t *out, char *why, size_t whylen)
{
    if (strcmp (value, "discard") == 0) {
        *out = PURGE_DISCARD;
        return 0;
    }
    if (strcmp (value, "none") == 0) {
        *out = PURGE_NONE;
        return 0;
    }
    if (strcmp (value, "format") == 0) {
        *out = PURGE_FORMAT;
        return 0;
    }
    snprintf (why, whylen, "purge=%s: give discard, format or none", value);
    return -1;
}

int
purge_job (parser_t *p, int line, const job_t *src, purge_t how, job_opts_t *o)
{
    if (!src->filename[0]) {
        optval_error (p, line, "purge= needs filename= on every job (job '%s' has none, so "
                      "its files are named after it): it discards the devices the jobs test",
                      src->name);
        return -1;
    }
    if (how == PURGE_FORMAT && (src->size || src->size_pct || src->offset || src->offset_pct)) {
        optval_error (p, line, "purge=format erases the whole device, and job '%s' tests only "
                      "part of it (size= or offset=): use purge=discard, which discards just "
                      "the region", src->name);
        return -1;
    }
    job_opts_default (o);
    snprintf (o->job.name, sizeof o->job.name, "%s", PURGE_NAME);
    o->job.line = line;
    bool null_engine = strcmp (src->ioengine, "null") == 0;
    if (job_opts_text (p, line, o, null_engine ? "ioengine=null" : "ioengine=libaio")
        || job_opts_text (p, line, o, src->direct ? "direct=1" : "direct=0")
        || job_opts_text (p, line, o, "rw=randtrim")
        || job_opts_text (p, line, o, "bsrange=" PURGE_BSRANGE)
        || job_opts_text (p, line, o, "iodepth=1"))
        return -1;
    precondition_copy_region (&o->job, src);
    o->job.purge = true;
    o->job.purge_format = how == PURGE_FORMAT;
    return 0;
}
