/*  job_check.c: the checks and fio defaults that need a job's final
    options, run when its section ends (see job_check.h): what iofleet
    would run differently from fio is refused at the line of the option to
    fix, and what fio leaves to a default gets fio's value.
*/
#include "job_check.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static const char *const s_dir_name[2] = { "reads", "writes" };

/* Reports a block size that direct=1 cannot issue: "WHAT SIZE[ (DIR)] is
   not a multiple of 512, ...", naming the direction only when the two
   directions differ.  Can't fail. */
static void
s_align_error (parser_t *p, int line, const job_opts_t *o, const char *what,
               uint32_t size, int dir, bool dirs_differ)
{
    optval_error (p, line, "%s%u%s%s%s is not a multiple of 512, which direct=1 (line %d) "
                  "needs (job '%s')", what, size, dirs_differ ? " (" : "",
                  dirs_differ ? s_dir_name[dir] : "", dirs_differ ? ")" : "",
                  o->direct_line, o->job.name);
}

/* With direct=1, every block size the job can issue must be a multiple
   of 512: bs, both bounds of bsrange and every bssplit size, in both
   directions.  Returns 0, or -1 with the error set at the line of the
   option to fix. */
static int
s_check_alignment (parser_t *p, const job_opts_t *o)
{
    const job_t *job = &o->job;
    if (!job->direct)
        return 0;
    bool bs_differ = job->bs[0] != job->bs[1];
    bool range_differ = job->bsrange_min[0] != job->bsrange_min[1]
                     || job->bsrange_max[0] != job->bsrange_max[1];
    bool split_differ = job->nbssplit[0] != job->nbssplit[1]
                     || memcmp (job->bssplit[0], job->bssplit[1],
                                (size_t) job->nbssplit[0] * sizeof (job_bssplit_t)) != 0;
    for (int d = 0; d < 2; d++) {
        if (job->bs[d] % 512 != 0) {
            s_align_error (p, o->bs_line[d], o, "bs=", job->bs[d], d, bs_differ);
            return -1;
        }
    }
    for (int d = 0; d < 2; d++) {
        uint32_t bound = job->bsrange_min[d] % 512 ? job->bsrange_min[d]
                       : job->bsrange_max[d] % 512 ? job->bsrange_max[d] : 0;
        if (bound) {
            s_align_error (p, o->bsrange_line[d], o, "bsrange bound ", bound, d,
                           range_differ);
            return -1;
        }
    }
    for (int d = 0; d < 2; d++) {
        for (int i = 0; i < job->nbssplit[d]; i++) {
            if (job->bssplit[d][i].bs % 512 != 0) {
                s_align_error (p, o->bssplit_line[d], o, "bssplit size ",
                               job->bssplit[d][i].bs, d, split_differ);
                return -1;
            }
        }
    }
    return 0;
}

/* verify= on a job iofleet cannot verify as fio does: one that writes
   nothing, or whose writes may overlap (fio sorts and trims those before it
   reads them back), or whose directions a rate decides.  Returns 0, or -1
   with the error set at the verify= line. */
static int
s_verify_refused (parser_t *p, const job_opts_t *o)
{
    const job_t *job = &o->job;
    const char *why = NULL;
    if (job_rw_trims (job->rw))
        why = "reading back what trims left (fio's trim_verify_zero, trim_backlog) is not "
              "supported by iofleet yet";
    else if (job->rw == JOB_RW_READ || job->rw == JOB_RW_RANDREAD
        || ((job->rw == JOB_RW_RW || job->rw == JOB_RW_RANDRW) && job->rwmixread == 100))
        why = "the job writes nothing to verify (verify_only=1 on the writing job reads back "
              "what an earlier run of it wrote)";
    else if ((job->rw == JOB_RW_RANDWRITE || job->rw == JOB_RW_RANDRW)
             && (job->norandommap || job->dist.kind != JOB_DIST_RANDOM || job->blockalign[1]
                 || job->rw_seq_nr > 1 || job->perc_random[1] < 100))
        why = "with norandommap, blockalign or a non-uniform random_distribution writes overlap, "
              "which fio "
              "sorts and trims before reading back and iofleet does not yet";
    else if ((job->rw == JOB_RW_RW || job->rw == JOB_RW_RANDRW)
             && (job->rate_iops[0] || job->rate_iops[1] || job->rate[0] || job->rate[1]))
        why = "rate_iops on a mixed job decides each I/O's direction by the clock, so the "
              "writes cannot be replayed for reading back";
    if (!why && job->numjobs > 1 && job->filename[0] && !job->offset_increment)
        why = "its numjobs copies write the same blocks of the same files, so a copy would "
              "read back another's data; give offset_increment= (regions of their own), or "
              "no filename= (files of their own)";
    /* The header (agent/verify.h) must fit in the smallest write. */
    uint32_t least = job->bs[1];
    if (job->bsrange_min[1] && job->bsrange_min[1] < least)
        least = job->bsrange_min[1];
    for (int i = 0; i < job->nbssplit[1]; i++)
        if (job->bssplit[1][i].bs < least)
            least = job->bssplit[1][i].bs;
    char small[96];
    if (!why && least < JOB_VERIFY_HEADER) {
        snprintf (small, sizeof small, "writes of %u bytes cannot hold its %d-byte header",
                  least, JOB_VERIFY_HEADER);
        why = small;
    }
    if (!why)
        return 0;
    optval_error (p, o->verify_line, "verify=%s on job '%s': %s",
                  job->verify == JOB_VERIFY_MD5 ? "md5" : "crc32c", job->name, why);
    return -1;
}

/* Without filename=, the files the job's name and copies make.  Returns
   0, or -1 with the error set. */
static int
s_check_own_files (parser_t *p, const job_opts_t *o)
{
    const job_t *job = &o->job;
    /* Without filename= the target is named after the job (jobspec.c), and
       a name of nothing but ':'s names no file. */
    const char *dflt = job->sweep_of[0] ? job->sweep_of : job->name;
    if (!job->filename[0] && strspn (dflt, ":") == strlen (dflt)) {
        optval_error (p, job->line, "job '%s' has no filename= and its name names no file; "
                      "add filename=", dflt);
        return -1;
    }
    /* Without filename= each worker gets a file of its own (jobspec.c), and
       a job's files go to an agent as its targets. */
    uint64_t nown = (uint64_t) job->numjobs * job->nrfiles;
    if (!job->filename[0] && nown > JOB_MAX_OWN_FILES) {
        optval_error (p, job->nrfiles > 1 && o->nrfiles_line > o->numjobs_line ? o->nrfiles_line
                                                                          : o->numjobs_line,
                      "numjobs=%u with nrfiles=%u without filename= makes %llu files, as fio does "
                      "(%s.0.0, %s.0.1, ...); the limit is %d: give filename=", job->numjobs,
                      job->nrfiles, (unsigned long long) nown, dflt, dflt, JOB_MAX_OWN_FILES);
        return -1;
    }
    return 0;
}

/* latency_target= where fio's search would not mean one thing.  Returns
   0, or -1 with the error set. */
static int
s_check_latency_target (parser_t *p, const job_opts_t *o)
{
    const job_t *job = &o->job;
    /* latency_target: fio's search, one per job copy. */
    if (job->latency_target_ns) {
        const char *why = NULL;
        if (job->numjobs > 1)
            why = "each numjobs copy would search a depth of its own (and fio 3.33 scales the "
                  "target of copies after the first by 1000 again); give numjobs=1";
        else if (!job->latency_window_ns)
            why = "without latency_window every loop of fio's is a window of one I/O; give "
                  "latency_window= (like 200ms)";
        else if (job->verify != JOB_VERIFY_NONE || job->read_iolog[0])
            why = "a search of depths with verify= or read_iolog= is not supported";
        if (why) {
            optval_error (p, job->line, "latency_target (job '%s'): %s", job->name, why);
            return -1;
        }
    }
    return 0;
}

/* read_iolog= and write_iolog= on a job whose replay or log fio would
   make differently.  Returns 0, or -1 with the error set. */
static int
s_check_iologs (parser_t *p, const job_opts_t *o)
{
    const job_t *job = &o->job;
    /* read_iolog: the log says where and what; fio ignores filename= and
       rw=, and each numjobs copy would replay all of it again. */
    if (job->read_iolog[0]) {
        const char *why = NULL;
        if (job->filename[0] && !job->replay_redirect[0])
            why = "it replays on the files the log names, and fio ignores filename=: remove "
                  "filename=, or give replay_redirect=PATH to send the whole log to PATH";
        else if (job->numjobs > 1)
            why = "each numjobs copy would replay the whole log again; give numjobs=1";
        else if (job->verify != JOB_VERIFY_NONE)
            why = "verify= reads back a job's own writes, and a replay writes the log's";
        else if (job->write_iolog[0] && strcmp (job->write_iolog, job->read_iolog) == 0)
            why = "write_iolog names the same file: the replay would append to the log it reads";
        if (why) {
            optval_error (p, o->read_iolog_line, "read_iolog=%s (job '%s'): %s", job->read_iolog,
                          job->name, why);
            return -1;
        }
    }
    /* fio 3.33's copies write one iolog over each other (seen: a truncated
       log); one log names one worker's I/O. */
    if (job->write_iolog[0] && job->numjobs > 1) {
        optval_error (p, o->iolog_line, "write_iolog with numjobs=%u (job '%s'): fio's copies "
                      "write the one log over each other; give each its own job section, or "
                      "numjobs=1", job->numjobs, job->name);
        return -1;
    }
    return 0;
}

/* rw=MODE:SIZE where iofleet's skips would not be whole blocks.  Returns
   0, or -1 with the error set. */
static int
s_check_skip (parser_t *p, const job_opts_t *o)
{
    const job_t *job = &o->job;
    /* rw=write:SIZE: holes that keep every I/O on a block of the job's one
       size, so a pass's length is known (and O_DIRECT stays aligned). */
    if (job->rw_skip) {
        bool one = job->nbssplit[0] == 0 && job->nbssplit[1] == 0 && !job->bsrange_min[0]
                && !job->bsrange_min[1] && job->bs[0] == job->bs[1];
        if (!one || job->rw_skip % job->bs[0]) {
            optval_error (p, o->rw_line, "rw=%s:%llu (job '%s'): iofleet skips whole blocks of one "
                          "size: give bs= alone (no bssplit, bsrange or per-direction sizes) and a "
                          "skip that is a multiple of it", job_rw_name (job->rw),
                          (unsigned long long) job->rw_skip, job->name);
            return -1;
        }
    }
    return 0;
}

/* The batch sizes: fio's 0s resolved, then checked against the iodepth.
   Returns 0, or -1 with the error set. */
static int
s_finish_batches (parser_t *p, job_opts_t *o)
{
    job_t *job = &o->job;
    /* fio's HOWTO: "If it is set to 0 the iodepth value will be used." */
    if (job->iodepth_batch_submit == 0)
        job->iodepth_batch_submit = job->iodepth;
    /* fio's 0 polls; iofleet never busy-polls and waits for one (docs/guide/02-plans.md).
       Both defaults are set here only; jobspec.c and job.c assert them. */
    if (job->iodepth_batch_complete_min == 0)
        job->iodepth_batch_complete_min = 1;
    /* fio would quietly lower these to the iodepth. */
    if (job->iodepth_batch_submit > job->iodepth) {
        optval_error (p, o->batch_submit_line, "%s=%u is larger than iodepth=%u (job '%s')",
                      o->batch_submit_key, job->iodepth_batch_submit, job->iodepth, job->name);
        return -1;
    }
    if (job->iodepth_batch_complete_min > job->iodepth) {
        optval_error (p, o->batch_complete_line, "%s=%u is larger than iodepth=%u (job '%s')",
                      o->batch_complete_key, job->iodepth_batch_complete_min, job->iodepth,
                      job->name);
        return -1;
    }
    return 0;
}

/* Steady state: steadystate= needs ss_dur=, and ss_dur= alone gets fio's
   default criterion.  Returns 0, or -1 with the error set. */
static int
s_finish_steadystate (parser_t *p, job_opts_t *o)
{
    job_t *job = &o->job;
    if (job->ss != JOB_SS_NONE && job->ss_dur_ns == 0) {
        optval_error (p, o->ss_line, "%s needs ss_dur= (job '%s' has none)", o->ss_key, job->name);
        return -1;
    }
    if (job->ss == JOB_SS_NONE && job->ss_dur_ns != 0) {
        /* ss_dur= alone turns steady state on with fio's default
           criterion, steadystate=iops_slope:0.01%. */
        job->ss = JOB_SS_IOPS_SLOPE;
        job->ss_limit = 0.0001;
        job->ss_pct = true;
    }
    return 0;
}

/* The checks and fio defaults that need a job's final options (direct
   may come after bs, iodepth after iodepth_batch, and any of them from a
   [global]).  Returns 0, or -1 with the error set at the line of the
   option to fix. */
int
job_check_finish (parser_t *p, job_opts_t *o)
{
    job_t *job = &o->job;
    if (job->time_based && job->runtime_ns == 0) {
        optval_error (p, o->time_based_line, "time_based needs runtime= (job '%s' has none)",
                      job->name);
        return -1;
    }
    if (s_check_alignment (p, o) || s_check_own_files (p, o))
        return -1;
    /* fio 3.33 with both: loops=2 io_size=384k size=256k issued 8 64k reads,
       neither 2 x 6 (io_size a loop) nor 6 (io_size in all). */
    if (job->loops > 1 && job->io_size) {
        optval_error (p, o->loops_line, "loops=%u with io_size=: fio's result for the two together "
                      "matches neither (job '%s'); use one of them", job->loops, job->name);
        return -1;
    }
    if (s_check_latency_target (p, o) || s_check_iologs (p, o))
        return -1;
    /* fio: "This typically won't work with direct I/O"; here it is refused. */
    if (job->bs_unaligned && job->direct) {
        optval_error (p, o->direct_line ? o->direct_line : job->line, "blocksize_unaligned with "
                      "direct=1 (job '%s'): O_DIRECT takes only multiples of the device's logical "
                      "block size; give direct=0", job->name);
        return -1;
    }
    if (s_check_skip (p, o))
        return -1;
    /* fio's LFSR visits every block once a pass without a random map. */
    if (job->lfsr)
        job->norandommap = false;
    if (job->verify != JOB_VERIFY_NONE && s_verify_refused (p, o))
        return -1;
    if (job->verify_only && job->verify == JOB_VERIFY_NONE) {
        optval_error (p, job->line, "verify_only on job '%s' without verify=: nothing to check "
                      "(give the verify= its data was written with)", job->name);
        return -1;
    }
    return s_finish_batches (p, o) || s_finish_steadystate (p, o) ? -1 : 0;
}
