/*  opt_io.c: the handlers of the options that say what I/O a job issues
    and where (see opt_io.h).

    Integer options (iodepth, numjobs, rwmix*, ...) go through the size
    parser like they do in fio, so iodepth=0x20 and numjobs=1k are
    accepted.
*/
#include "opt_io.h"
#include "job_opts.h"

#include <errno.h>
#include <string.h>

/* Returns 0, or -1 with the error set. */
int
opt_io_ioengine (const opt_line_t *l, job_opts_t *o)
{
    const char *value = l->value;
    if (job_engine_known (value)) {
        strcpy (o->job.ioengine, value);
        return 0;
    }
    if (fio_engine_unsupported (value)
    ||  strncmp (value, "external:", 9) == 0 || strchr (value, '/'))
        optval_error (l->p, l->line, "ioengine '%.*s' is not supported by iofleet yet "
                      "(supported: " JOB_ENGINES ")", OPTVAL_SHOW, value);
    else
        optval_error (l->p, l->line, "ioengine '%.*s' is not an fio ioengine (supported: "
                      JOB_ENGINES ")", OPTVAL_SHOW, value);
    return -1;
}

/* direct=B and buffered=B, its opposite.  Returns 0, or -1 with the error
   set. */
static int
s_direct (const opt_line_t *l, job_opts_t *o, bool direct_if_true)
{
    bool b;
    if (optval_bool (l->p, l->line, l->key, l->value, &b))
        return -1;
    o->job.direct = direct_if_true ? b : !b;
    o->direct_line = l->line;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_io_direct (const opt_line_t *l, job_opts_t *o)
{
    return s_direct (l, o, true);
}

/* Returns 0, or -1 with the error set. */
int
opt_io_buffered (const opt_line_t *l, job_opts_t *o)
{
    return s_direct (l, o, false);
}

/* Returns 0, or -1 with the error set. */
int
opt_io_invalidate (const opt_line_t *l, job_opts_t *o)
{
    bool b;
    if (optval_bool (l->p, l->line, l->key, l->value, &b))
        return -1;
    o->job.no_invalidate = !b;
    return 0;
}

/* per_job_logs=0: the logs named PREFIX_bw.log, without the job's index
   (fio's default 1 names them PREFIX_bw.N.log).  Returns 0, or -1 with the
   error set. */
int
opt_io_per_job_logs (const opt_line_t *l, job_opts_t *o)
{
    bool b;
    if (optval_bool (l->p, l->line, l->key, l->value, &b))
        return -1;
    o->job.shared_logs = !b;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_io_fadvise (const opt_line_t *l, job_opts_t *o)
{
    /* fio's values: 0 none, 1 by the job's pattern (default), or one. */
    static const char *const hints[] = { "1", "0", "sequential", "random" };
    for (int k = 0; k < 4; k++)
        if (strcmp (l->value, hints[k]) == 0) {
            o->job.fadvise = (job_fadvise_t) k;
            return 0;
        }
    optval_error (l->p, l->line, "fadvise_hint=%.*s is not one of fio's: 0, 1, sequential, "
                  "random", OPTVAL_SHOW, l->value);
    return -1;
}

/* Returns 0, or -1 with the error set. */
int
opt_io_submit_mode (const opt_line_t *l, job_opts_t *o)
{
    (void) o;
    /* inline (fio's default) is how iofleet submits; offload hands
       submission to a pool of fio threads. */
    if (strcmp (l->value, "inline") == 0)
        return 0;
    optval_error (l->p, l->line, "io_submit_mode=%.*s: %s", OPTVAL_SHOW, l->value,
                  strcmp (l->value, "offload") == 0
                  ? "offloaded submission is not supported by iofleet yet (inline is)"
                  : "not one of fio's: inline, offload");
    return -1;
}

/* Returns 0, or -1 with the error set. */
int
opt_io_rw (const opt_line_t *l, job_opts_t *o)
{
    /* fio has no ',' in rw: a list is a sweep. */
    if (strchr (l->value, ',')) {
        if (sweep_parse (l->p, l->line, l->key, l->value, SWEEP_RW, &o->sweep_rw))
            return -1;
        o->job.rw = (job_rw_t) o->sweep_rw.v[0];
        return 0;
    }
    job_rw_t m;
    uint64_t mod;
    if (optval_rw_mode (l->p, l->line, l->key, l->value, l->value, &m, &mod))
        return -1;
    o->job.rw = m;
    /* ':SIZE' skips on sequential modes; ':N' counts on random ones. */
    bool random = m == JOB_RW_RANDREAD || m == JOB_RW_RANDWRITE || m == JOB_RW_RANDRW;
    o->job.rw_skip = random ? 0 : mod;
    o->job.rw_seq_nr = random ? (uint32_t) mod : 0;
    o->sweep_rw.n = 0;
    o->rw_line = l->line;
    return 0;
}

/* rwmixread=PCT, or rwmixwrite=PCT, its complement.  Returns 0, or -1
   with the error set. */
static int
s_rwmix (const opt_line_t *l, job_opts_t *o, bool reads)
{
    uint64_t v;
    if (optval_uint (l->p, l->line, l->key, l->value, 0, 100, &v))
        return -1;
    /* fio: when both are given, the later one wins. */
    o->job.rwmixread = reads ? (uint32_t) v : (uint32_t) (100 - v);
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_io_rwmixread (const opt_line_t *l, job_opts_t *o)
{
    return s_rwmix (l, o, true);
}

/* Returns 0, or -1 with the error set. */
int
opt_io_rwmixwrite (const opt_line_t *l, job_opts_t *o)
{
    return s_rwmix (l, o, false);
}

/* Returns 0, or -1 with the error set. */
int
opt_io_iodepth (const opt_line_t *l, job_opts_t *o)
{
    if (strchr (l->value, ',')) {
        if (sweep_parse (l->p, l->line, l->key, l->value, SWEEP_IODEPTH, &o->sweep_iodepth))
            return -1;
        o->job.iodepth = o->sweep_iodepth.v[0];
        return 0;
    }
    uint64_t v;
    if (optval_uint (l->p, l->line, l->key, l->value, 1, JOB_MAX_IODEPTH, &v))
        return -1;
    o->job.iodepth = (uint32_t) v;
    o->sweep_iodepth.n = 0;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_io_batch_submit (const opt_line_t *l, job_opts_t *o)
{
    /* 0 is fio's "the iodepth", resolved at the end of the job. */
    uint64_t v;
    if (optval_uint (l->p, l->line, l->key, l->value, 0, JOB_MAX_IODEPTH, &v))
        return -1;
    o->job.iodepth_batch_submit = (uint32_t) v;
    o->batch_submit_line = l->line;
    o->batch_submit_key = l->key;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_io_batch_complete (const opt_line_t *l, job_opts_t *o)
{
    /* 0 is fio's "poll: do not wait for a completion". */
    uint64_t v;
    if (optval_uint (l->p, l->line, l->key, l->value, 0, JOB_MAX_IODEPTH, &v))
        return -1;
    o->job.iodepth_batch_complete_min = (uint32_t) v;
    o->batch_complete_line = l->line;
    o->batch_complete_key = l->key;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_io_numjobs (const opt_line_t *l, job_opts_t *o)
{
    uint64_t v;
    if (optval_uint (l->p, l->line, l->key, l->value, 1, JOB_MAX_NUMJOBS, &v))
        return -1;
    o->job.numjobs = (uint32_t) v;
    o->numjobs_line = l->line;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_io_size (const opt_line_t *l, job_opts_t *o)
{
    return optval_size_or_pct (l->p, l->line, l->key, l->value, 1, 100,
                               &o->job.size, &o->job.size_pct);
}

/* Returns 0, or -1 with the error set. */
int
opt_io_offset (const opt_line_t *l, job_opts_t *o)
{
    return optval_size_or_pct (l->p, l->line, l->key, l->value, 0, 99,
                               &o->job.offset, &o->job.offset_pct);
}

/* Returns 0, or -1 with the error set. */
int
opt_io_offset_increment (const opt_line_t *l, job_opts_t *o)
{
    return optval_bytes (l->p, l->line, l->key, l->value, 0, JOB_MAX_OFFSET_INC,
                         &o->job.offset_increment);
}

/* Returns 0, or -1 with the error set. */
int
opt_io_io_size (const opt_line_t *l, job_opts_t *o)
{
    return optval_bytes (l->p, l->line, l->key, l->value, 1, UINT64_MAX >> 1, &o->job.io_size);
}

/* Returns 0, or -1 with the error set. */
int
opt_io_number_ios (const opt_line_t *l, job_opts_t *o)
{
    return optval_uint (l->p, l->line, l->key, l->value, 0, UINT64_MAX >> 1,
                        &o->job.number_ios);
}

/* Returns 0, or -1 with the error set. */
int
opt_io_loops (const opt_line_t *l, job_opts_t *o)
{
    uint64_t v;
    if (optval_uint (l->p, l->line, l->key, l->value, 1, JOB_MAX_LOOPS, &v))
        return -1;
    o->job.loops = (uint32_t) v;
    o->loops_line = l->line;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_io_filename (const opt_line_t *l, job_opts_t *o)
{
    const char *key = l->key, *value = l->value;
    size_t len = strlen (value);
    if (len > JOB_FILENAME_MAX - 1) {
        optval_error (l->p, l->line, "%s is %zu bytes long (the limit is %d)",
                      key, len, JOB_FILENAME_MAX - 1);
        return -1;
    }
    if (optval_path_text (l->p, l->line, key, value))
        return -1;
    /* Empty names between ':'s are skipped; a list of nothing else
       would leave the job without a target. */
    if (len && strspn (value, ":") == len) {
        optval_error (l->p, l->line, "%s=%.*s names no file", key, OPTVAL_SHOW, value);
        return -1;
    }
    memcpy (o->job.filename, value, len + 1);
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_io_directory (const opt_line_t *l, job_opts_t *o)
{
    const char *key = l->key, *value = l->value;
    size_t len = strlen (value);
    if (len > JOB_DIRECTORY_MAX - 1) {
        optval_error (l->p, l->line, "%s is %zu bytes long (the limit is %d)", key, len,
                      JOB_DIRECTORY_MAX - 1);
        return -1;
    }
    if (optval_path_text (l->p, l->line, key, value))
        return -1;
    if (strchr (value, ':')) {
        optval_error (l->p, l->line, "%s=%.*s: fio's list of directories is not supported by "
                      "iofleet yet; give one", key, OPTVAL_SHOW, value);
        return -1;
    }
    memcpy (o->job.directory, value, len + 1);
    /* One trailing '/' is the directory itself. */
    if (len > 1 && o->job.directory[len - 1] == '/')
        o->job.directory[len - 1] = '\0';
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_io_nrfiles (const opt_line_t *l, job_opts_t *o)
{
    uint64_t v;
    if (optval_uint (l->p, l->line, l->key, l->value, 1, JOB_MAX_OWN_FILES, &v))
        return -1;
    o->job.nrfiles = (uint32_t) v;
    o->nrfiles_line = l->line;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_io_filesize (const opt_line_t *l, job_opts_t *o)
{
    const char *value = l->value;
    if (strchr (value + 1, '-') || strchr (value, ':') || strchr (value, '%')) {
        optval_error (l->p, l->line,
                      "%s=%.*s: a range or percentage is not supported by iofleet yet; "
                      "give one size", l->key, OPTVAL_SHOW, value);
        return -1;
    }
    return optval_uint (l->p, l->line, l->key, value, 1, UINT64_MAX >> 1, &o->job.filesize);
}

/* Returns 0, or -1 with the error set. */
int
opt_io_compress (const opt_line_t *l, job_opts_t *o)
{
    uint64_t v;
    if (optval_uint (l->p, l->line, l->key, l->value, 0, 100, &v))
        return -1;
    o->job.buffer_compress_percentage = (uint32_t) v;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_io_cpus (const opt_line_t *l, job_opts_t *o)
{
    const char *key = l->key, *value = l->value;
    size_t len = strlen (value);
    if (len > JOB_CPUS_MAX - 1) {
        optval_error (l->p, l->line, "%s is %zu bytes long (the limit is %d)",
                      key, len, JOB_CPUS_MAX - 1);
        return -1;
    }
    uint64_t mask[JOB_CPUS_MAX / 64];
    const char *bad;
    size_t badlen;
    int rc = units_parse_cpus (value, mask, &bad, &badlen);
    if (rc == -ERANGE) {
        optval_error (l->p, l->line, "%s=%.*s: CPU %.*s is out of range (allowed: 0..%d)",
                      key, OPTVAL_SHOW, value, (int) (badlen < 24 ? badlen : 24), bad,
                      JOB_CPUS_MAX - 1);
        return -1;
    }
    if (rc == -EDOM) {
        optval_error (l->p, l->line, "%s=%.*s: the CPU range %.*s goes backwards",
                      key, OPTVAL_SHOW, value, (int) (badlen < 48 ? badlen : 48), bad);
        return -1;
    }
    if (rc != 0) {
        optval_error (l->p, l->line, "%s='%.*s' is not a list of CPUs (like 0-3,8,10-11)",
                      key, OPTVAL_SHOW, value);
        return -1;
    }
    memcpy (o->job.cpus_allowed, value, len + 1);
    return 0;
}
