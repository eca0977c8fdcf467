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
    iofleet's one extension to the syntax (sweep.c), and the checks of a
    job's final options (job_check.c).  This file reads the sections,
    checks each job when its section ends and makes the steps.

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
#include "job_check.h"
#include "job_opts.h"
#include "precondition.h"
#include "purge.h"
#include "rounds.h"
#include "health_rule.h"
#include "sla.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define JOBFILE_MAX_BYTES   (1u << 20)      /* jobfile_load refuses more */

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
        return job_check_finish (p, o) || s_append (p, jf, cap, o) ? -1 : 0;
    for (int k = 0; k < n; k++) {
        *scratch = *o;
        if (sweep_step (p, &o->job, sr, sb, sq, k, &scratch->job)
        ||  job_check_finish (p, scratch) || s_append (p, jf, cap, scratch))
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
            || job_check_finish (p, o)) {
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
       jobs that share a write_lat_log prefix never share a log file.  A
       write_*_log given alone is named after its job. */
    uint32_t thread_number = 1;
    for (int i = 0; i < jf->nsteps; i++) {
        job_t *j = &jf->steps[i];
        j->thread_number = thread_number;
        thread_number += j->numjobs;
        char *logs[] = { j->write_lat_log, j->write_bw_log, j->write_iops_log };
        for (size_t k = 0; k < sizeof logs / sizeof logs[0]; k++)
            if (strcmp (logs[k], JOB_LOG_JOBNAME) == 0)
                snprintf (logs[k], JOB_LATLOG_MAX, "%s", j->name);
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

/* Refuses a text of len bytes that holds a NUL: it would silently end the
   text early (a C string), so that the rest were never read.  Returns 0,
   or -1 with the error set, naming the NUL's line. */
static int
s_check_nul (parser_t *p, const char *text, size_t len)
{
    const char *nul = memchr (text, '\0', len);
    if (!nul)
        return 0;
    int line = 1;
    for (const char *c = text; c < nul; c++)
        line += *c == '\n';
    optval_error (p, line, "NUL byte in the file: not a text job file");
    return -1;
}

/* Parses len bytes of text (see jobfile.h).  Returns NULL with err set
   on error. */
jobfile_t *
jobfile_parse_n (const char *name, const char *text, size_t len, char *err, size_t errlen)
{
    parser_t p = { name ? name : "(job file)", err, errlen };
    if (err && errlen)
        err[0] = '\0';
    if (text && s_check_nul (&p, text, len))
        return NULL;
    return jobfile_parse (name, text, err, errlen);
}

/* Reads a job file's text (see jobfile.h).  Returns NULL with err set on
   error. */
char *
jobfile_read (const char *path, size_t *len_out, char *err, size_t errlen)
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
            snprintf (err, errlen, "cannot read '%s': %s", path, strerror (errno));
        return NULL;
    }
    /* A directory opens; its read would say only EISDIR (or EIO through
       stdio). */
    struct stat sb;
    if (fstat (fd, &sb) == 0 && S_ISDIR (sb.st_mode)) {
        close (fd);
        optval_error (&p, 0, "is a directory, not a job file: give the path of a file "
                      "(e.g. %s/NAME.fio)", path);
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
                snprintf (err, errlen, "cannot read '%s': %s", path, strerror (errno));
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
    if (s_check_nul (&p, buf, len)) {
        free (buf);
        return NULL;
    }
    if (len_out)
        *len_out = len;
    return buf;
}

/* Reads and parses a file (see jobfile.h).  Returns NULL with err set on
   error. */
jobfile_t *
jobfile_load (const char *path, char *err, size_t errlen)
{
    char *text = jobfile_read (path, NULL, err, errlen);
    if (!text)
        return NULL;
    jobfile_t *jf = jobfile_parse (path, text, err, errlen);
    free (text);
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
