/*  jobfile.c: parser for fio job files, the plan format of iofleet.

    The aim is to read a job file exactly as fio would, and to refuse, with
    the file and line, anything iofleet would run differently: options it
    does not implement, values it cannot honour, and fio features it does
    not expand (include, ${VAR}, $ncpus, (arithmetic)).  A plan that parses
    here must mean the same thing to fio.

    Where fio's parser and its HOWTO disagree, the parser wins, because
    that is what users' job files were tested against:
      - ';' and '#' start a comment anywhere on a line (fio's
        strip_blank_end() cuts every line at the first of them; the HOWTO
        only mentions whole-line comments);
      - option names are case-sensitive (fio matches them with strcmp);
      - only fio's "set" options (time_based, group_reporting, stonewall,
        norandommap, new_group, zero_buffers) may be written bare: fio
        rejects a bare `direct` or `randrepeat` with "Option direct
        requires an argument", and so do we;
      - fio takes any section whose untrimmed name starts with "global"
        as a [global]; we take "[global]" (trailing blanks allowed) and
        refuse the names where the two rules disagree ("[global-x]",
        "[ global]") rather than read them differently from fio.
    Where the file leaves something to fio's defaults, the job gets fio's value:
    iodepth_batch_submit=0 is the iodepth (fio's HOWTO: "If it is set to 0
    the iodepth value will be used"), and ss_dur= without steadystate=
    gets fio's default criterion iops_slope:0.01%.

    The parts, each in a file named for it: sizes and times (units.c),
    fio's names (fio_names.c), the options iofleet implements and their
    handlers (option_table.c, opt_*.c), one value read and its message
    (optval.c), a section's lines applied (job_opts.c), and sweeps,
    iofleet's one extension to the syntax (sweep.c).  This file reads the
    sections, checks each job when its section ends and makes the steps.

    The other extension is the [iofleet] section, for settings of the plan
    rather than of a job, wherever the section stands in the file: sla=
    CONDITIONS (common/sla.h), the service level of every job that does
    not set its own iofleet_sla=, and precondition=COUNT, a first step
    that writes the jobs' targets COUNT times (precondition.h), purge=
    discard, a step before it that discards them (purge.h), and
    rounds=MAX with steady_state=STEP:METRIC[,...], the steps run again as
    rounds until a figure of each drive is steady (rounds.h).  fio would
    read [iofleet] as a job, so a plan that uses it is an iofleet plan, as
    with iofleet_sla=.
*/
#include "jobfile.h"
#include "job_opts.h"
#include "precondition.h"
#include "purge.h"
#include "rounds.h"
#include "health_rule.h"
#include "sla.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define JOBFILE_MAX_BYTES   (1u << 20)      /* jobfile_load refuses more */

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

/* The checks and fio defaults that need a job's final options (direct
   may come after bs, iodepth after iodepth_batch, and any of them from a
   [global]).  Returns 0, or -1 with the error set at the line of the
   option to fix. */
static int
s_finish_job (parser_t *p, job_opts_t *o)
{
    job_t *job = &o->job;
    if (job->time_based && job->runtime_ns == 0) {
        optval_error (p, o->time_based_line, "time_based needs runtime= (job '%s' has none)",
                      job->name);
        return -1;
    }
    if (s_check_alignment (p, o))
        return -1;
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
    /* fio 3.33 with both: loops=2 io_size=384k size=256k issued 8 64k reads,
       neither 2 x 6 (io_size a loop) nor 6 (io_size in all). */
    if (job->loops > 1 && job->io_size) {
        optval_error (p, o->loops_line, "loops=%u with io_size=: fio's result for the two together "
                      "matches neither (job '%s'); use one of them", job->loops, job->name);
        return -1;
    }
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
    /* fio: "This typically won't work with direct I/O"; here it is refused. */
    if (job->bs_unaligned && job->direct) {
        optval_error (p, o->direct_line ? o->direct_line : job->line, "blocksize_unaligned with "
                      "direct=1 (job '%s'): O_DIRECT takes only multiples of the device's logical "
                      "block size; give direct=0", job->name);
        return -1;
    }
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
    /* fio's HOWTO: "If it is set to 0 the iodepth value will be used." */
    if (job->iodepth_batch_submit == 0)
        job->iodepth_batch_submit = job->iodepth;
    /* fio's 0 polls; iofleet never busy-polls and waits for one (README).
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

/* Appends a finished job to *jf, growing it.  Returns 0, or -1 with the
   error set. */
static int
s_append (parser_t *p, jobfile_t **jf, int *cap, const job_opts_t *o)
{
    if ((*jf)->nsteps == *cap) {
        int ncap = *cap ? *cap * 2 : 8;
        if (ncap > JOB_MAX_STEPS)
            ncap = JOB_MAX_STEPS;
        jobfile_t *bigger = realloc (*jf, sizeof (jobfile_t)
                                        + (size_t) ncap * sizeof (job_t));
        if (!bigger) {
            optval_error (p, 0, "out of memory");
            return -1;
        }
        *jf = bigger;
        *cap = ncap;
    }
    (*jf)->steps[(*jf)->nsteps++] = o->job;
    return 0;
}

/* Ends a job section: checks it and appends it to *jf, or, when it
   sweeps, appends one checked step per combination (sweep.h).  scratch is
   working space.  Returns 0, or -1 with the error set. */
static int
s_emit (parser_t *p, jobfile_t **jf, int *cap, job_opts_t *o, job_opts_t *scratch)
{
    const sweep_t *sr = &o->sweep_rw, *sb = &o->sweep_bs, *sq = &o->sweep_iodepth;
    int n = sweep_count (p, &o->job, sr, sb, sq, (*jf)->nsteps);
    if (n < 0)
        return -1;
    if (n == 0)
        return s_finish_job (p, o) || s_append (p, jf, cap, o) ? -1 : 0;
    for (int k = 0; k < n; k++) {
        *scratch = *o;
        if (sweep_step (p, &o->job, sr, sb, sq, k, &scratch->job)
        ||  s_finish_job (p, scratch) || s_append (p, jf, cap, scratch))
            return -1;
    }
    return 0;
}

/* The [iofleet] section's settings, as read so far, with the line of
   each (for messages about it later). */
typedef struct {
    char sla[sizeof ((job_t *) 0)->sla];
    char health[sizeof ((job_t *) 0)->health];
    uint32_t precondition;
    int precondition_line;
    purge_t purge;
    int purge_line;
    uint32_t rounds;
    int rounds_line;
    bool steady;
    rounds_rule_t rule;
    int steady_line;
} iofleet_set_t;

#define IOFLEET_KEYS "sla=CONDITIONS, health=CONDITIONS, purge=discard|format, " \
                     "precondition=COUNT, rounds=MAX and " \
                     "steady_state=STEP:METRIC[,window=N,range=P%%,slope=P%%]"

/* One line of the [iofleet] section into set.  Returns 0, or -1 with the
   error set. */
static int
s_iofleet_line (parser_t *p, int line, char *s, iofleet_set_t *set)
{
    char *eq = strchr (s, '=');
    if (!eq) {
        optval_error (p, line, "'%.*s' in [iofleet] needs a value (it takes " IOFLEET_KEYS ")",
                      OPTVAL_SHOW, s);
        return -1;
    }
    *eq = '\0';
    char *key = optval_trim (s), *value = optval_trim (eq + 1);
    if (strcmp (key, "precondition") == 0) {
        uint64_t n;
        if (parse_u64 (value, 1, PRECONDITION_MAX, &n)) {
            optval_error (p, line, "[iofleet] precondition=%.*s: give how many times to write "
                          "the targets, 1 to %d (the SNIA PTS writes them twice)", OPTVAL_SHOW,
                          value, PRECONDITION_MAX);
            return -1;
        }
        set->precondition = (uint32_t) n;
        set->precondition_line = line;
        return 0;
    }
    if (strcmp (key, "purge") == 0) {
        char why[256];
        if (purge_parse (value, &set->purge, why, sizeof why)) {
            optval_error (p, line, "[iofleet] %s", why);
            return -1;
        }
        set->purge_line = line;
        return 0;
    }
    if (strcmp (key, "rounds") == 0) {
        uint64_t n;
        if (parse_u64 (value, 1, ROUNDS_MAX, &n)) {
            optval_error (p, line, "[iofleet] rounds=%.*s: give the most times to run the "
                          "plan's steps, 1 to %d (the SNIA PTS: 25)", OPTVAL_SHOW, value,
                          ROUNDS_MAX);
            return -1;
        }
        set->rounds = (uint32_t) n;
        set->rounds_line = line;
        return 0;
    }
    if (strcmp (key, "steady_state") == 0) {
        char why[256];
        if (rounds_rule_parse (value, &set->rule, why, sizeof why)) {
            optval_error (p, line, "[iofleet] steady_state: %s", why);
            return -1;
        }
        set->steady = true;
        set->steady_line = line;
        return 0;
    }
    if (strcmp (key, "health") == 0) {
        health_rule_t rule;
        char why[256];
        if (strlen (value) >= sizeof set->health) {
            optval_error (p, line, "[iofleet] health: longer than %zu characters",
                          sizeof set->health - 1);
            return -1;
        }
        if (health_rule_parse (value, &rule, why, sizeof why)) {
            optval_error (p, line, "[iofleet] %s", why);
            return -1;
        }
        memcpy (set->health, value, strlen (value) + 1);
        return 0;
    }
    if (strcmp (key, "sla") != 0) {
        optval_error (p, line, "unknown setting '%.*s' in [iofleet] (it takes " IOFLEET_KEYS
                      "; fio options belong in [global] or a job)", OPTVAL_SHOW, key);
        return -1;
    }
    sla_t parsed;
    char why[256];
    if (strlen (value) >= sizeof set->sla) {
        optval_error (p, line, "[iofleet] sla: longer than %zu characters", sizeof set->sla - 1);
        return -1;
    }
    if (sla_parse (value, &parsed, why, sizeof why)) {
        optval_error (p, line, "[iofleet] sla: %s", why);
        return -1;
    }
    memcpy (set->sla, value, strlen (value) + 1);
    return 0;
}

/* rounds= and steady_state= checked against the plan's jobs (before the
   precondition step is added) and set in jf.  Returns 0, or -1 with the
   error set. */
static int
s_rounds (parser_t *p, jobfile_t *jf, const iofleet_set_t *set)
{
    if (!set->steady) {
        jf->rounds = set->rounds;
        return 0;
    }
    int found = 0;
    for (int i = 0; i < jf->nsteps; i++)
        found += strcmp (jf->steps[i].name, set->rule.step) == 0;
    if (found != 1) {
        char names[512] = "";
        size_t off = 0;
        for (int i = 0; i < jf->nsteps && off < sizeof names; i++)
            off += (size_t) snprintf (names + off, sizeof names - off, "%s%s", i ? ", " : "",
                                      jf->steps[i].name);
        if (found)
            optval_error (p, set->steady_line, "[iofleet] steady_state: step '%s' names %d "
                          "jobs; give each job its own name", set->rule.step, found);
        else
            optval_error (p, set->steady_line, "[iofleet] steady_state: no job is named '%s'; "
                          "the plan's jobs: %s", set->rule.step, names);
        return -1;
    }
    uint32_t rounds = set->rounds ? set->rounds : ROUNDS_DEFAULT;
    if (rounds < (uint32_t) set->rule.window) {
        optval_error (p, set->rounds_line ? set->rounds_line : set->steady_line,
                      "[iofleet] rounds=%u is fewer than steady_state's window=%d: no window "
                      "could ever be judged; give rounds=%d or more", rounds, set->rule.window,
                      set->rule.window);
        return -1;
    }
    jf->rounds = rounds;
    jf->steady = true;
    jf->rule = set->rule;
    return 0;
}

/* Puts a step of the plan's methodology before its jobs: the precondition
   step (precondition.h) or the purge step (purge.h), one job for each
   distinct region the plan's own jobs test (those past the first skip,
   the steps put in front before), the first starting the step, and the
   job after them starting the next.  Their workers are numbered after
   all the others, the plan's keeping fio's numbers (their logs' names).
   count: precondition's COUNT, 0 for the purge.  o is working space.
   Returns 0, or -1 with the error set. */
static int
s_prepend (parser_t *p, jobfile_t **jf_p, int skip, uint32_t count, int line, job_opts_t *o)
{
    jobfile_t *jf = *jf_p;
    int k = 0;
    job_t *pre = calloc ((size_t) jf->nsteps, sizeof *pre);
    if (!pre) {
        optval_error (p, line, "out of memory");
        return -1;
    }
    uint32_t thread_number = 0;
    for (int i = 0; i < jf->nsteps; i++)
        if (jf->steps[i].thread_number + jf->steps[i].numjobs > thread_number)
            thread_number = jf->steps[i].thread_number + jf->steps[i].numjobs;
    for (int i = skip; i < jf->nsteps; i++) {
        bool seen = false;
        for (int m = skip; m < i && !seen; m++)
            seen = precondition_same_region (&jf->steps[m], &jf->steps[i]);
        if (seen)
            continue;
        if ((count ? precondition_job (p, line, &jf->steps[i], count, o)
                   : purge_job (p, line, &jf->steps[i], (purge_t) jf->purge, o))
            || s_finish_job (p, o)) {
            free (pre);
            return -1;
        }
        o->job.stonewall = k == 0;
        o->job.thread_number = thread_number++;
        pre[k++] = o->job;
    }
    if (jf->nsteps + k > JOB_MAX_STEPS) {
        if (count)
            optval_error (p, line, "precondition=%u adds %d job(s) to the plan's %d: more than "
                          "%d (the limit)", count, k, jf->nsteps, JOB_MAX_STEPS);
        else
            optval_error (p, line, "purge= adds %d job(s) to the plan's %d: more than %d (the "
                          "limit)", k, jf->nsteps, JOB_MAX_STEPS);
        free (pre);
        return -1;
    }
    jobfile_t *bigger = realloc (jf, sizeof (jobfile_t) + (size_t) (jf->nsteps + k)
                                                          * sizeof (job_t));
    if (!bigger) {
        optval_error (p, line, "out of memory");
        free (pre);
        return -1;
    }
    jf = *jf_p = bigger;
    memmove (&jf->steps[k], &jf->steps[0], (size_t) jf->nsteps * sizeof (job_t));
    memcpy (&jf->steps[0], pre, (size_t) k * sizeof (job_t));
    jf->steps[k].stonewall = true;
    jf->nsteps += k;
    free (pre);
    return 0;
}

/* A parse under way: the steps so far, the section being read and the
   options its lines build on. */
typedef struct {
    parser_t p;
    jobfile_t *jf;
    int cap;                    /* steps jf has room for */
    enum { SECTION_NONE, SECTION_GLOBAL, SECTION_JOB, SECTION_IOFLEET } section;
    job_opts_t *global;         /* the [global]s read so far */
    job_opts_t *cur;            /* the job section being read */
    job_opts_t *scratch;        /* working space (sweeps, prepended steps) */
    iofleet_set_t set;
    int iofleet_line;           /* 0 until an [iofleet] is read */
} reading_t;

/* Refuses a text no line of which need be read: none, too big, not
   UTF-8, or a build whose table of fio's options is out of order.
   Returns 0, or -1 with the error set. */
static int
s_check_text (parser_t *p, const char *text)
{
    if (!text) {
        optval_error (p, 0, "no job file text");
        return -1;
    }
    if (strlen (text) > JOBFILE_MAX_BYTES) {
        optval_error (p, 0, "%zu bytes (the limit is %u)", strlen (text), JOBFILE_MAX_BYTES);
        return -1;
    }
    /* Plans are stored and reported as JSON text: UTF-8 only. */
    long bad = utf8_invalid_at (text, strlen (text));
    if (bad >= 0) {
        int bad_line = 1;
        for (long i = 0; i < bad; i++)
            bad_line += text[i] == '\n';
        optval_error (p, bad_line, "not valid UTF-8 text (byte %ld of the file)", bad + 1);
        return -1;
    }
    if (!fio_options_sorted ()) {
        optval_error (p, 0, "internal error: the table of fio options is not sorted");
        return -1;
    }
    return 0;
}

/* The name of the section header s ("[NAME]", s modified), trimmed, in
   *name, and whether it is a [global] in *is_global.  Returns 0, or -1
   with the error set. */
static int
s_section_name (parser_t *p, int line, char *s, char **name, bool *is_global)
{
    size_t len = strlen (s);
    if (s[len - 1] != ']') {
        optval_error (p, line, "section header '%.*s' does not end with ']'", OPTVAL_SHOW, s);
        return -1;
    }
    s[len - 1] = '\0';
    /* fio does not trim the name, and takes any name starting with
       "global" as a [global]; refuse every name where that rule and ours
       (exactly "global" once trimmed) disagree. */
    bool fio_global = strncmp (s + 1, "global", 6) == 0;
    char *sname = optval_trim (s + 1);
    if (optval_name (p, line, "section name", sname))
        return -1;
    bool global = strcmp (sname, "global") == 0;
    if (fio_global && !global) {
        optval_error (p, line, "fio would treat [%s] as a [global] section (every name "
                      "starting with 'global' is); rename it", sname);
        return -1;
    }
    if (global && !fio_global) {
        optval_error (p, line, "fio would treat this as a job named '%s', not as [global]; "
                      "remove the blanks", s + 1);
        return -1;
    }
    *name = sname;
    *is_global = global;
    return 0;
}

/* Starts the section whose header is s (s modified), ending the job
   section before it.  Returns 0, or -1 with the error set. */
static int
s_section (reading_t *r, int line, char *s)
{
    char *sname;
    bool is_global;
    if (s_section_name (&r->p, line, s, &sname, &is_global))
        return -1;
    if (r->section == SECTION_JOB && s_emit (&r->p, &r->jf, &r->cap, r->cur, r->scratch))
        return -1;
    if (strcmp (sname, "iofleet") == 0) {
        if (r->iofleet_line) {
            optval_error (&r->p, line, "a second [iofleet] section (the first is at line %d); "
                          "merge them", r->iofleet_line);
            return -1;
        }
        r->iofleet_line = line;
        r->section = SECTION_IOFLEET;
        return 0;
    }
    if (is_global) {
        /* Later [global]s change the defaults of the jobs below them
           only, building on the earlier ones, like fio. */
        r->section = SECTION_GLOBAL;
        return 0;
    }
    if (r->jf->nsteps >= JOB_MAX_STEPS) {
        bool swept = false;
        for (int i = 0; i < r->jf->nsteps; i++)
            swept = swept || r->jf->steps[i].sweep_of[0];
        if (swept)
            optval_error (&r->p, line, "more than %d steps (the limit is %d; each step of a "
                          "sweep counts)", JOB_MAX_STEPS, JOB_MAX_STEPS);
        else
            optval_error (&r->p, line, "more than %d job sections (the limit is %d)",
                          JOB_MAX_STEPS, JOB_MAX_STEPS);
        return -1;
    }
    *r->cur = *r->global;
    strcpy (r->cur->job.name, sname);
    r->cur->job.line = line;
    r->section = SECTION_JOB;
    return 0;
}

/* Reads one line of the file (s, its newline cut, modified): a comment,
   a section header, or a line of the section being read.  Returns 0, or
   -1 with the error set. */
static int
s_line (reading_t *r, int line, char *s)
{
    if (strlen (s) > JOB_MAX_LINE) {
        optval_error (&r->p, line, "line of %zu bytes (the limit is %d)", strlen (s),
                      JOB_MAX_LINE);
        return -1;
    }
    if (line == 1 && strncmp (s, "\xEF\xBB\xBF", 3) == 0) {
        optval_error (&r->p, line, "file starts with a UTF-8 byte order mark (fio rejects it "
                      "too); save it without one");
        return -1;
    }
    /* fio cuts every line at the first ';' or '#'. */
    s[strcspn (s, ";#")] = '\0';
    s = optval_trim (s);
    if (*s == '\0')
        return 0;
    if (*s == '[')
        return s_section (r, line, s);
    if (r->section == SECTION_NONE) {
        char *eq = strchr (s, '=');
        if (eq)
            *eq = '\0';
        optval_error (&r->p, line, "option '%.*s' outside of a section", OPTVAL_SHOW,
                      optval_trim (s));
        return -1;
    }
    if (r->section == SECTION_IOFLEET)
        return s_iofleet_line (&r->p, line, s, &r->set);
    bool in_global = r->section == SECTION_GLOBAL;
    return job_opts_line (&r->p, line, in_global, in_global ? r->global : r->cur, s);
}

/* Reads every line of text (modified) and ends the last job section.
   Returns 0, or -1 with the error set. */
static int
s_read (reading_t *r, char *text)
{
    int line = 0;
    char *next = text;
    while (next) {
        char *s = next;
        char *nl = strchr (s, '\n');
        next = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        if (line < INT32_MAX)
            line++;
        if (s_line (r, line, s))
            return -1;
    }
    if (r->section == SECTION_JOB && s_emit (&r->p, &r->jf, &r->cap, r->cur, r->scratch))
        return -1;
    if (r->jf->nsteps == 0) {
        optval_error (&r->p, 0, "no job sections (a plan needs at least one [job])");
        return -1;
    }
    return 0;
}

/* What the plan's jobs share once all are read: the [iofleet] settings,
   fio's run-wide exitall and worker numbers, rounds, and the steps put in
   front of the jobs.  Returns 0, or -1 with the error set. */
static int
s_finish_plan (reading_t *r)
{
    jobfile_t *jf = r->jf;
    const iofleet_set_t *set = &r->set;
    for (int i = 0; i < jf->nsteps; i++) {
        if (!jf->steps[i].sla[0])
            memcpy (jf->steps[i].sla, set->sla, sizeof set->sla);
        memcpy (jf->steps[i].health, set->health, sizeof set->health);
    }
    /* fio's exitall is one flag for the whole run (fio 3.33: set on the
       job that ends last, it still stops the others when the first one
       ends): any job's is every job's. */
    bool exitall = false;
    for (int i = 0; i < jf->nsteps; i++)
        exitall |= jf->steps[i].exitall;
    for (int i = 0; i < jf->nsteps; i++)
        jf->steps[i].exitall = exitall;
    /* fio numbers the workers of a file 1, 2, ... over all its jobs, so
       jobs that share a write_lat_log prefix never share a log file. */
    uint32_t thread_number = 1;
    for (int i = 0; i < jf->nsteps; i++) {
        jf->steps[i].thread_number = thread_number;
        thread_number += jf->steps[i].numjobs;
    }
    if (s_rounds (&r->p, jf, set))
        return -1;
    /* The precondition step, then the purge step in front of it, each
       over the regions of the plan's own jobs. */
    int before = 0;
    if (set->precondition) {
        int n0 = r->jf->nsteps;
        if (s_prepend (&r->p, &r->jf, 0, set->precondition, set->precondition_line,
                       r->scratch))
            return -1;
        r->jf->precondition = set->precondition;
        before = r->jf->nsteps - n0;
    }
    if (set->purge) {
        r->jf->purge = set->purge;
        if (s_prepend (&r->p, &r->jf, before, 0, set->purge_line, r->scratch))
            return -1;
    }
    return 0;
}

/* Parses the text (see jobfile.h).  Returns NULL with err set on error. */
jobfile_t *
jobfile_parse (const char *name, const char *text, char *err, size_t errlen)
{
    reading_t r = { .p = { name ? name : "(job file)", err, errlen } };
    if (err && errlen)
        err[0] = '\0';
    if (s_check_text (&r.p, text))
        return NULL;
    char *copy = strdup (text);
    r.jf = calloc (1, sizeof (jobfile_t));
    r.global = malloc (sizeof (job_opts_t));
    r.cur = malloc (sizeof (job_opts_t));
    r.scratch = malloc (sizeof (job_opts_t));
    int rc = -1;
    if (!copy || !r.jf || !r.global || !r.cur || !r.scratch)
        optval_error (&r.p, 0, "out of memory");
    else {
        job_opts_default (r.global);
        rc = s_read (&r, copy) || s_finish_plan (&r) ? -1 : 0;
    }
    free (copy);
    free (r.global);
    free (r.cur);
    free (r.scratch);
    if (rc) {
        free (r.jf);
        return NULL;
    }
    return r.jf;
}

/* Reads and parses a file (see jobfile.h).  Returns NULL with err set on
   error. */
jobfile_t *
jobfile_load (const char *path, char *err, size_t errlen)
{
    parser_t p = { path ? path : "(null)", err, errlen };
    if (err && errlen)
        err[0] = '\0';
    if (!path) {
        optval_error (&p, 0, "no job file path");
        return NULL;
    }
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (err && errlen)
            snprintf (err, errlen, "cannot read %s: %s", path, strerror (errno));
        return NULL;
    }
    /* One byte over the limit tells "too big" from "exactly the limit";
       st_size is not trusted, so pipes and /proc files work too. */
    size_t cap = JOBFILE_MAX_BYTES + 1;
    char *buf = malloc (cap + 1);
    if (!buf) {
        close (fd);
        optval_error (&p, 0, "out of memory");
        return NULL;
    }
    size_t len = 0;
    while (len < cap) {
        ssize_t n = read (fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            if (err && errlen)
                snprintf (err, errlen, "cannot read %s: %s", path, strerror (errno));
            close (fd);
            free (buf);
            return NULL;
        }
        if (n == 0)
            break;
        len += (size_t) n;
    }
    close (fd);
    if (len > JOBFILE_MAX_BYTES) {
        optval_error (&p, 0, "job file is larger than %u bytes (1 MiB, the limit)",
                      JOBFILE_MAX_BYTES);
        free (buf);
        return NULL;
    }
    buf[len] = '\0';
    /* A NUL would silently end the text early. */
    const char *nul = memchr (buf, '\0', len);
    if (nul) {
        int line = 1;
        for (const char *c = buf; c < nul; c++)
            line += *c == '\n';
        optval_error (&p, line, "NUL byte in the file: not a text job file");
        free (buf);
        return NULL;
    }
    jobfile_t *jf = jobfile_parse (path, buf, err, errlen);
    free (buf);
    return jf;
}

/* Groups the jobs into steps (see jobfile.h).  Can't fail. */
int
jobfile_group (const jobfile_t *jf, int *first)
{
    int n = 0;
    for (int i = 0; i < jf->nsteps; i++) {
        const job_t *j = &jf->steps[i];
        bool starts = i == 0 || j->stonewall || j->sweep_of[0] || jf->steps[i - 1].sweep_of[0];
        if (starts)
            first[n++] = i;
    }
    first[n] = jf->nsteps;
    return n;
}

/* Frees the jobfile and NULLs the pointer.  Can't fail. */
void
jobfile_destroy (jobfile_t **self_p)
{
    if (self_p && *self_p) {
        free (*self_p);
        *self_p = NULL;
    }
}

const char *
job_fleet_refusal (const job_t *j)
{
    if (j->exitall && j->exit_what_all)
        return "exit_what=all with exitall: the steps after the first job's end would not "
               "run, which a controller does not do yet; use exit_what=group (fio's default)";
    if (j->read_iolog[0] && !j->replay_redirect[0])
        return "read_iolog without replay_redirect=PATH: the log names the files of the "
               "machine it was recorded on; give replay_redirect= the target each agent "
               "replays it on";
    return NULL;
}
