/*  step.c: see step.h. */
#include "step.h"
#include "direction.h"
#include "pacing.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    iojob_t *job;
    int toff;                       /* its first target in the step's */
    bool have;                      /* interval k collected into out */
    bool ended;
    uint64_t t0, t1;
} step_job_t;

struct step {
    int njobs;
    int ntargets;
    uint32_t k;
    step_job_t jobs[];              /* njobs */
};

int
step_open (step_t **out, const Iofleet__JobSpec *const *specs, int njobs, uint64_t run,
           uint32_t step, const target_policy_t *pol, int *failed, char *err, size_t errlen)
{
    IOF_ASSERT (out && njobs > 0);
    *out = NULL;
    *failed = -1;
    step_t *s = calloc (1, sizeof *s + (size_t) njobs * sizeof s->jobs[0]);
    iojob_t **planned = calloc ((size_t) njobs, sizeof *planned);
    if (!s || !planned) {
        free (s);
        free (planned);
        snprintf (err, errlen, "out of memory");
        return -ENOMEM;
    }
    /* Every job planned, then the space all of them lay out checked, and
       only then anything created or written. */
    for (int i = 0; i < njobs; i++) {
        s->jobs[i].job = job_plan (specs[i], run, step, pol, err, errlen);
        if (!s->jobs[i].job) {
            *failed = i;
            free (planned);
            step_destroy (&s);
            return -EINVAL;
        }
        s->njobs++;
        s->jobs[i].toff = s->ntargets;
        s->ntargets += job_ntargets (s->jobs[i].job);
        planned[i] = s->jobs[i].job;
    }
    int rc = job_check_space (planned, njobs, err, errlen);
    free (planned);
    if (rc) {
        step_destroy (&s);
        return rc;
    }
    for (int i = 0; i < njobs; i++)
        if (job_open (s->jobs[i].job, specs[i], pol, err, errlen)) {
            *failed = i;
            step_destroy (&s);
            return -EINVAL;
        }
    *out = s;
    return 0;
}

step_t *
step_new (const Iofleet__Prepare *p, const target_policy_t *pol, char *err, size_t errlen)
{
    const Iofleet__JobSpec *specs[MSG_JOBS_MAX];
    int njobs = 0;
    for (size_t i = 0; i <= p->n_more_jobs && i < MSG_JOBS_MAX; i++)
        specs[njobs++] = i == 0 ? p->job : p->more_jobs[i - 1];
    step_t *s;
    int failed;
    char why[1024];
    if (step_open (&s, specs, njobs, p->run, p->step, pol, &failed, why, sizeof why) == 0)
        return s;
    /* Which job could not be set up, when the step has several. */
    if (failed >= 0 && p->n_more_jobs)
        snprintf (err, errlen, "job '%s': %s", specs[failed]->name, why);
    else
        snprintf (err, errlen, "%s", why);
    return NULL;
}

void
step_destroy (step_t **self_p)
{
    step_t *s = *self_p;
    if (!s)
        return;
    for (int i = 0; i < s->njobs; i++)
        job_destroy (&s->jobs[i].job);
    free (s);
    *self_p = NULL;
}

uint64_t step_run (const step_t *self) { return job_run (self->jobs[0].job); }
uint32_t step_step (const step_t *self) { return job_step (self->jobs[0].job); }
int step_ntargets (const step_t *self) { return self->ntargets; }
int step_njobs (const step_t *self) { return self->njobs; }

iojob_t *
step_job (const step_t *self, int j)
{
    IOF_ASSERT (j >= 0 && j < self->njobs);
    return self->jobs[j].job;
}

const char *
step_target_path (const step_t *self, int i)
{
    int j = 0;
    while (j + 1 < self->njobs && i >= self->jobs[j + 1].toff)
        j++;
    return job_target_path (self->jobs[j].job, i - self->jobs[j].toff);
}

uint64_t
step_planned_bytes (const step_t *self, int i)
{
    int j = 0;
    while (j + 1 < self->njobs && i >= self->jobs[j + 1].toff)
        j++;
    return job_planned_bytes (self->jobs[j].job, i - self->jobs[j].toff);
}

int
step_start (step_t *self, uint64_t mono_start, int *failed)
{
    for (int i = 0; i < self->njobs; i++) {
        int rc = job_start (self->jobs[i].job, mono_start);
        if (rc) {
            if (failed)
                *failed = i;
            step_stop (self);
            return rc;
        }
    }
    return 0;
}

void
step_stop (step_t *self)
{
    for (int i = 0; i < self->njobs; i++)
        job_stop (self->jobs[i].job);
}

int
step_collect_job (step_t *self, int j, dir_stats_t *out, uint32_t *seq, uint64_t *t_start,
                  uint64_t *t_end)
{
    int rc = job_collect (step_job (self, j), out, seq, t_start, t_end);
    /* fio's exitall: one job's end stops the ones beside it. */
    if (rc < 0 && job_exitall (self->jobs[j].job))
        step_stop (self);
    return rc;
}

int
step_collect (step_t *self, dir_stats_t *out, uint32_t *seq, uint64_t *t_start,
              uint64_t *t_end)
{
    bool waiting = false, any = false;
    for (int j = 0; j < self->njobs; j++) {
        step_job_t *sj = &self->jobs[j];
        if (!sj->have && !sj->ended) {
            uint32_t s;
            int rc = step_collect_job (self, j, out + sj->toff * DIR_COUNT, &s, &sj->t0,
                                       &sj->t1);
            if (rc > 0)
                sj->have = true;
            else if (rc < 0)
                sj->ended = true;
            else
                waiting = true;
        }
        any |= sj->have;
    }
    if (waiting)
        return 0;
    if (!any)
        return -1;
    *t_start = UINT64_MAX;
    *t_end = 0;
    for (int j = 0; j < self->njobs; j++) {
        step_job_t *sj = &self->jobs[j];
        if (!sj->have) {
            /* An ended job adds nothing to this interval. */
            int end = j + 1 < self->njobs ? self->jobs[j + 1].toff : self->ntargets;
            for (int t = sj->toff * DIR_COUNT; t < end * DIR_COUNT; t++)
                dir_stats_reset (&out[t]);
            continue;
        }
        if (sj->t0 < *t_start)
            *t_start = sj->t0;
        if (sj->t1 > *t_end)
            *t_end = sj->t1;
        sj->have = false;
    }
    *seq = self->k++;
    return 1;
}

uint64_t
step_actual_start (const step_t *self)
{
    uint64_t first = 0;
    for (int i = 0; i < self->njobs; i++) {
        uint64_t t = job_actual_start (self->jobs[i].job);
        if (t && (first == 0 || t < first))
            first = t;
    }
    return first;
}

const char *
step_error (const step_t *self)
{
    for (int i = 0; i < self->njobs; i++)
        if (job_error (self->jobs[i].job)[0])
            return job_error (self->jobs[i].job);
    return "";
}

int
step_latency_depths (const step_t *self, uint32_t *out)
{
    IOF_ASSERT (self->njobs <= MSG_JOBS_MAX);
    bool any = false;
    for (int j = 0; j < self->njobs; j++) {
        out[j] = job_latency_depth (self->jobs[j].job);
        any |= out[j] != 0;
    }
    return any ? self->njobs : 0;
}

bool
step_above_pace (const step_t *self, const dir_stats_t *interval, uint64_t len_ns)
{
    for (int j = 0; j < self->njobs; j++) {
        int end = j + 1 < self->njobs ? self->jobs[j + 1].toff : self->ntargets;
        uint64_t ops[DIR_COUNT] = { 0 }, bytes[DIR_COUNT] = { 0 };
        for (int t = self->jobs[j].toff; t < end; t++)
            for (int d = 0; d < DIR_COUNT; d++) {
                ops[d] += interval[t * DIR_COUNT + d].ops;
                bytes[d] += interval[t * DIR_COUNT + d].bytes;
            }
        if (pace_above (self->jobs[j].job, ops, bytes, len_ns))
            return true;
    }
    return false;
}
