/*  fio_export.c: a run in fio's JSON (json+ with bins), see fio_export.h.

    One fio job entry per step and agent, as fio's client mode reports each
    server's jobs; the figures come from the stored snapshots.
*/
#include "controller.h"
#include "fio_json.h"
#include "histogram.h"
#include "report.h"
#include "series.h"
#include "util.h"
#include "groups.h"
#include "runs.h"
#include "snapshot_store.h"
#include "fio_export.h"
#include "store.h"
#include "report_agents.h"

#include <stdlib.h>
#include <string.h>

/* One fio job entry per step and agent, as fio's client mode reports each
   server's jobs: histograms and per-interval samples from the stored
   snapshots, merged over the agent's targets and workers. */
typedef struct {
    char agent[MSG_NAME_MAX + 1];
    histogram_t hist[DIR_COUNT][LK_N];
    uint64_t ops[DIR_COUNT], bytes[DIR_COUNT], errors[DIR_COUNT];
    uint64_t window_ns;
    double *samples[DIR_COUNT][2];  /* [dir][iops, bw] */
    int nsamples;
} fio_acc_t;

static void
s_acc_fini (fio_acc_t *a)
{
    for (int d = 0; d < DIR_COUNT; d++)
        for (int k = 0; k < 2; k++)
            free (a->samples[d][k]);
}

/* sel (report_selection_keys of the step; NULL: all): only the selected targets
   of the agent count.  Returns 0, -1 on a database error (logged), -2
   when out of memory. */
static int
s_acc_load (store_t *store, int64_t run, int step, int64_t agent, json_t *sel, fio_acc_t *a)
{
    for (int d = 0; d < DIR_COUNT; d++)
        for (int k = 0; k < LK_N; k++)
            histogram_reset (&a->hist[d][k]);
    /* Six columns a direction from 3, as step_results_compute reads them. */
    sqlite3_stmt *st = store_stmt (store,
        "SELECT seq, t_start, t_end, read_ops, read_bytes, read_errors, read_hist, "
        " read_slat_hist, read_lat_hist, write_ops, write_bytes, write_errors, write_hist, "
        " write_slat_hist, write_lat_hist, trim_ops, trim_bytes, trim_errors, trim_hist, "
        " trim_slat_hist, trim_lat_hist, target FROM snapshots "
        "WHERE run_id = ? AND step_idx = ? AND agent_id = ? ORDER BY seq, target");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    sqlite3_bind_int64 (st, 3, agent);
    int cap = 0, last_seq = -1;
    int rc;
    while ((rc = store_row (store, st, "read the agent's snapshots")) == 1) {
        if (sel) {
            char key[MSG_NAME_MAX + 40];
            snprintf (key, sizeof key, "%s\x1f#%d", a->agent, sqlite3_column_int (st, 21));
            if (!json_object_get (sel, key))
                continue;
        }
        int seq = sqlite3_column_int (st, 0);
        uint64_t span = (uint64_t) (sqlite3_column_int64 (st, 2) - sqlite3_column_int64 (st, 1));
        if (seq != last_seq) {
            if (a->nsamples == cap) {
                cap = cap ? cap * 2 : 64;
                for (int d = 0; d < DIR_COUNT; d++)
                    for (int k = 0; k < 2; k++) {
                        double *p = realloc (a->samples[d][k], (size_t) cap * sizeof *p);
                        if (!p) {
                            sqlite3_reset (st);
                            return -2;
                        }
                        a->samples[d][k] = p;
                    }
            }
            for (int d = 0; d < DIR_COUNT; d++)
                a->samples[d][0][a->nsamples] = a->samples[d][1][a->nsamples] = 0;
            a->nsamples++;
            a->window_ns += span;
            last_seq = seq;
        }
        double secs = (double) span / 1e9;
        for (int d = 0; d < DIR_COUNT; d++) {
            int c = 3 + d * 6;
            uint64_t ops = (uint64_t) sqlite3_column_int64 (st, c);
            uint64_t bytes = (uint64_t) sqlite3_column_int64 (st, c + 1);
            a->ops[d] += ops;
            a->bytes[d] += bytes;
            a->errors[d] += (uint64_t) sqlite3_column_int64 (st, c + 2);
            if (secs > 0) {
                a->samples[d][0][a->nsamples - 1] += (double) ops / secs;
                a->samples[d][1][a->nsamples - 1] += (double) bytes / secs;
            }
            for (int k = 0; k < LK_N; k++)
                series_blob_add (&a->hist[d][k], sqlite3_column_blob (st, c + 3 + k),
                          sqlite3_column_bytes (st, c + 3 + k));
        }
    }
    sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}

/* The run's (step, agent) pairs, each with its accumulator. */
typedef struct {
    fio_acc_t *accs;
    int *steps;                 /* the step's index */
    int *groups;                /* a round's step: its plan step */
    int64_t *agents;
    int n, cap;
} pairs_t;

static void
s_pairs_fini (pairs_t *p)
{
    for (int i = 0; i < p->n; i++)
        s_acc_fini (&p->accs[i]);
    free (p->accs);
    free (p->steps);
    free (p->groups);
    free (p->agents);
}

/* The run's start into *started and its plan, parsed, into *jf.  Returns
   0, or -1 with err (no such run, its intervals dropped, a plan that no
   longer parses, a database error). */
static int
s_run_plan (store_t *store, int64_t run, jobfile_t **jf, uint64_t *started, char *err,
            size_t errlen)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT p.name, p.text, r.started_at, r.intervals_dropped_at FROM runs r "
        "JOIN plans p ON p.id = r.plan_id WHERE r.id = ?");
    sqlite3_bind_int64 (st, 1, run);
    if (runs_row (store, st, run, err, errlen) != 1)
        return -1;
    if (sqlite3_column_type (st, 3) != SQLITE_NULL) {
        sqlite3_reset (st);
        snprintf (err, errlen, "run %lld: its per-interval data was removed by the retention "
                  "policy or iofleet gc, and fio's format is made from it; use --format json "
                  "or text", (long long) run);
        return -1;
    }
    char plan_err[512];
    *jf = jobfile_parse ((const char *) sqlite3_column_text (st, 0),
                         (const char *) sqlite3_column_text (st, 1), plan_err, sizeof plan_err);
    *started = (uint64_t) sqlite3_column_int64 (st, 2);
    sqlite3_reset (st);
    if (!*jf) {
        snprintf (err, errlen, "the stored plan of run %lld no longer parses: %s", (long long) run,
                  plan_err);
        return -1;
    }
    return 0;
}

/* Room for one more pair in p.  Returns 0, or -1 when out of memory. */
static int
s_pairs_room (pairs_t *p)
{
    if (p->n < p->cap)
        return 0;
    p->cap = p->cap ? p->cap * 2 : 16;
    fio_acc_t *a = realloc (p->accs, (size_t) p->cap * sizeof *a);
    int *s2 = realloc (p->steps, (size_t) p->cap * sizeof *s2);
    int64_t *ag = realloc (p->agents, (size_t) p->cap * sizeof *ag);
    int *gr = realloc (p->groups, (size_t) p->cap * sizeof *gr);
    if (gr)
        p->groups = gr;
    if (a)
        p->accs = a;
    if (s2)
        p->steps = s2;
    if (ag)
        p->agents = ag;
    return !a || !s2 || !ag || !gr ? -1 : 0;
}

/* (step, agent) pairs with their agent names, sorted by step.  Returns
   0, -1 on a database error (logged), or -2 with err (out of memory). */
static int
s_read_pairs (store_t *store, int64_t run, pairs_t *p, char *err, size_t errlen)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT sa.step_idx, sa.agent_id, a.name, COALESCE(s.plan_step, sa.step_idx) "
        "FROM step_agents sa JOIN agents a ON a.id = sa.agent_id "
        "LEFT JOIN steps s ON s.run_id = sa.run_id AND s.idx = sa.step_idx "
        "WHERE sa.run_id = ? ORDER BY sa.step_idx, a.name");
    sqlite3_bind_int64 (st, 1, run);
    int rc;
    while ((rc = store_row (store, st, "read the run's agents")) == 1) {
        if (s_pairs_room (p)) {
            sqlite3_reset (st);
            snprintf (err, errlen, "out of memory");
            return -2;
        }
        int n = p->n;
        memset (&p->accs[n], 0, sizeof p->accs[n]);
        p->steps[n] = sqlite3_column_int (st, 0);
        p->groups[n] = sqlite3_column_int (st, 3);     /* a round's step: its plan step */
        p->agents[n] = sqlite3_column_int64 (st, 1);
        str_copy (p->accs[n].agent, sizeof p->accs[n].agent,
                  (const char *) sqlite3_column_text (st, 2));
        p->n++;
    }
    sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}

/* --where: each step's selected targets into *sels ({"STEP": keys});
   NULL without conditions.  Returns 0, -1 on a database error (logged),
   or -2 with err (the conditions matched nothing). */
static int
s_select (store_t *store, int64_t run, const pairs_t *p, const match_cond_t *conds, int nconds,
          json_t *where, const char *where_flag, json_t **sels, char *err, size_t errlen)
{
    *sels = NULL;
    if (!nconds)
        return 0;
    json_t *all = json_object (), *values = json_object ();
    int kept = 0;
    for (int i = 0; i < p->n; i++) {
        char key[16];
        snprintf (key, sizeof key, "%d", p->steps[i]);
        if (json_object_get (all, key))
            continue;
        json_t *sa = report_agents_step (store, run, p->steps[i], NULL, NULL, 0);
        json_t *sj = sa ? json_pack ("{s:o}", "agents", sa) : NULL;
        int k = sj ? groups_select (store, run, p->steps[i], sj, conds, nconds, values) : -1;
        json_t *sel = k >= 0 ? report_selection_keys (store, run, p->steps[i], sj) : NULL;
        json_decref (sj);
        if (!sel) {
            json_decref (all);
            json_decref (values);
            return -1;
        }
        kept += k;
        json_object_set_new (all, key, sel);
    }
    if (!kept) {
        report_where_nothing (where, where_flag, run, &conds[0], values, err, errlen);
        json_decref (all);
        json_decref (values);
        return -2;
    }
    json_decref (values);
    *sels = all;
    return 0;
}

/* latency_target: the depth the agent's search found for the first job
   of step (0, none stored: fio_json prints the job's iodepth) into f.
   Returns 0, or -1 on a database error (logged). */
static int
s_latency_depth (store_t *store, int64_t run, int step, int64_t agent, fio_job_t *f)
{
    sqlite3_stmt *ls = store_stmt (store, "SELECT depth FROM latency_depths "
        "WHERE run_id = ? AND step_idx = ? AND agent_id = ? AND job_idx = 0");
    sqlite3_bind_int64 (ls, 1, run);
    sqlite3_bind_int (ls, 2, step);
    sqlite3_bind_int64 (ls, 3, agent);
    int rc = store_row (store, ls, "read the agent's latency depth");
    if (rc == 1)
        f->latency_depth = (uint32_t) sqlite3_column_int64 (ls, 0);
    sqlite3_reset (ls);
    return rc < 0 ? -1 : 0;
}

/* fio's entry f of step's agent a, after the step's first job jd.
   Can't fail. */
static void
s_fill_job (fio_job_t *f, const job_t *jd, fio_acc_t *a, int step)
{
    f->jobname = jd->name;
    f->hostname = a->agent;
    f->groupid = step;
    f->job = jd;
    f->job_runtime_ms = a->window_ns / NS_PER_MS;
    f->percentiles = jd->npercentiles ? jd->percentile_list : NULL;
    f->npercentiles = jd->npercentiles;
    /* fio prints all three directions; one not reported (no trims)
       stays all zero (jobs is calloc'd), as fio prints it. */
    for (int d = 0; d < DIR_COUNT; d++) {
        if (!dir_reported (d, a->ops[d], a->errors[d]))
            continue;
        fio_dir_t *fd = &f->dir[d];
        fd->ops = a->ops[d];
        fd->bytes = a->bytes[d];
        fd->errors = a->errors[d];
        fd->runtime_ns = fd->ops ? a->window_ns : 0;
        fd->slat = &a->hist[d][LK_SLAT];
        fd->clat = &a->hist[d][LK_CLAT];
        fd->lat = &a->hist[d][LK_LAT];
        fd->iops_samples = a->samples[d][0];
        fd->bw_samples = a->samples[d][1];
        fd->nsamples = a->nsamples;
    }
}

/* fio's entries of the pairs into jobs[0..*nj): each pair's figures
   loaded (sels: each step's selected targets, or NULL), a step of jobs
   run together one entry.  Returns 0, -1 on a database error (logged),
   or -2 with err (out of memory). */
static int
s_jobs (store_t *store, int64_t run, pairs_t *p, const jobfile_t *jf, json_t *sels,
        fio_job_t *jobs, int *nj, char *err, size_t errlen)
{
    static _Thread_local int first[JOB_MAX_STEPS + 1];
    int ngroups = jobfile_group (jf, first);
    *nj = 0;
    for (int i = 0; i < p->n; i++) {
        char key[16];
        snprintf (key, sizeof key, "%d", p->steps[i]);
        json_t *sel = sels ? json_object_get (sels, key) : NULL;
        if (p->groups[i] >= ngroups)
            continue;
        int rc = s_acc_load (store, run, p->steps[i], p->agents[i], sel, &p->accs[i]);
        if (rc == -2)
            snprintf (err, errlen, "out of memory");
        if (rc)
            return rc;
        if (p->accs[i].nsamples == 0)
            continue;       /* refused or lost before measuring: nothing to report */
        /* A step of jobs run together is one entry, named and optioned
           after its first job (its targets are merged). */
        const job_t *jd = &jf->steps[first[p->groups[i]]];
        fio_job_t *f = &jobs[(*nj)++];
        s_fill_job (f, jd, &p->accs[i], p->steps[i]);
        if (jd->latency_target_ns
            && s_latency_depth (store, run, p->steps[i], p->agents[i], f))
            return -1;
    }
    return 0;
}

json_t *
fio_export_json (store_t *store, int64_t run, bool plus, json_t *where, const char *where_flag,
                 char *err, size_t errlen)
{
    match_cond_t conds[MATCH_CONDS_MAX];
    int nconds = 0;
    if (!where_flag)
        where_flag = "--where";
    if (report_where_parse (where, where_flag, conds, &nconds, err, errlen))
        return NULL;
    jobfile_t *jf = NULL;
    uint64_t started = 0;
    if (s_run_plan (store, run, &jf, &started, err, errlen))
        return NULL;
    pairs_t p = { 0 };
    json_t *sels = NULL, *doc = NULL;
    fio_job_t *jobs = NULL;
    int nj = 0;
    /* Each returns 0, -1 on a database error, or -2 with err. */
    int rc = s_read_pairs (store, run, &p, err, errlen);
    if (rc == 0)
        rc = s_select (store, run, &p, conds, nconds, where, where_flag, &sels, err, errlen);
    if (rc == 0 && !(jobs = calloc ((size_t) (p.n ? p.n : 1), sizeof *jobs))) {
        snprintf (err, errlen, "out of memory");
        rc = -2;
    }
    if (rc == 0)
        rc = s_jobs (store, run, &p, jf, sels, jobs, &nj, err, errlen);
    if (rc == 0) {
        char version[64];
        snprintf (version, sizeof version, "iofleet-%s", IOF_VERSION);
        doc = fio_json_report (jobs, nj, plus, version, started / NS_PER_MS);
        if (!doc)
            snprintf (err, errlen, "out of memory");
    } else if (rc == -1)
        snprintf (err, errlen, "database error reading run %lld; see the controller's log",
                  (long long) run);
    free (jobs);
    json_decref (sels);
    s_pairs_fini (&p);
    jobfile_destroy (&jf);
    return doc;
}
