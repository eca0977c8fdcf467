/*  step.c: see step.h. */
#include "step.h"
#include "direction.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct step {
    iojob_t *jobs[MSG_JOBS_MAX];
    int njobs;
    int toff[MSG_JOBS_MAX + 1];     /* first target of each job */
    bool have[MSG_JOBS_MAX];        /* interval k collected into out */
    bool ended[MSG_JOBS_MAX];
    uint64_t t0[MSG_JOBS_MAX], t1[MSG_JOBS_MAX];
    uint32_t k;
};

/* Destroys a step being made and puts why it failed in err, naming the
   job when the step has several.  Returns NULL. */
static step_t *
refuse (step_t **self_p, const Iofleet__Prepare *p, const Iofleet__JobSpec *spec,
        const char *why, char *err, size_t errlen)
{
    if (spec && p->n_more_jobs)
        snprintf (err, errlen, "job '%s': %s", spec->name, why);
    else
        snprintf (err, errlen, "%s", why);
    step_destroy (self_p);
    return NULL;
}

step_t *
step_new (const Iofleet__Prepare *p, const target_policy_t *pol, char *err, size_t errlen)
{
    step_t *s = calloc (1, sizeof *s);
    if (!s) {
        snprintf (err, errlen, "out of memory");
        return NULL;
    }
    /* Every job planned, then the space all of them lay out checked, and
       only then anything created or written. */
    char why[1024];
    for (size_t i = 0; i <= p->n_more_jobs && i < MSG_JOBS_MAX; i++) {
        const Iofleet__JobSpec *spec = i == 0 ? p->job : p->more_jobs[i - 1];
        s->jobs[i] = job_plan (spec, p->run, p->step, pol, why, sizeof why);
        if (!s->jobs[i])
            return refuse (&s, p, spec, why, err, errlen);
        s->njobs++;
        s->toff[s->njobs] = s->toff[s->njobs - 1] + job_ntargets (s->jobs[i]);
    }
    if (job_check_space (s->jobs, s->njobs, why, sizeof why))
        return refuse (&s, p, NULL, why, err, errlen);
    for (int i = 0; i < s->njobs; i++) {
        const Iofleet__JobSpec *spec = i == 0 ? p->job : p->more_jobs[i - 1];
        if (job_open (s->jobs[i], spec, pol, why, sizeof why))
            return refuse (&s, p, spec, why, err, errlen);
    }
    return s;
}

void
step_destroy (step_t **self_p)
{
    step_t *s = *self_p;
    if (!s)
        return;
    for (int i = 0; i < s->njobs; i++)
        job_destroy (&s->jobs[i]);
    free (s);
    *self_p = NULL;
}

uint64_t step_run (const step_t *self) { return job_run (self->jobs[0]); }
uint32_t step_step (const step_t *self) { return job_step (self->jobs[0]); }
int step_ntargets (const step_t *self) { return self->toff[self->njobs]; }

const char *
step_target_path (const step_t *self, int i)
{
    int j = 0;
    while (j + 1 < self->njobs && i >= self->toff[j + 1])
        j++;
    return job_target_path (self->jobs[j], i - self->toff[j]);
}

int
step_start (step_t *self, uint64_t mono_start)
{
    for (int i = 0; i < self->njobs; i++) {
        int rc = job_start (self->jobs[i], mono_start);
        if (rc) {
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
        job_stop (self->jobs[i]);
}

int
step_collect (step_t *self, dir_stats_t *out, uint32_t *seq, uint64_t *t_start,
              uint64_t *t_end)
{
    bool waiting = false, any = false;
    for (int j = 0; j < self->njobs; j++) {
        if (!self->have[j] && !self->ended[j]) {
            uint32_t s;
            int rc = job_collect (self->jobs[j], out + self->toff[j] * DIR_COUNT, &s, &self->t0[j],
                                  &self->t1[j]);
            if (rc > 0)
                self->have[j] = true;
            else if (rc < 0) {
                self->ended[j] = true;
                /* fio's exitall: one job's end stops the ones beside it. */
                if (job_exitall (self->jobs[j]))
                    step_stop (self);
            } else
                waiting = true;
        }
        any |= self->have[j];
    }
    if (waiting)
        return 0;
    if (!any)
        return -1;
    *t_start = UINT64_MAX;
    *t_end = 0;
    for (int j = 0; j < self->njobs; j++) {
        if (!self->have[j]) {
            /* An ended job adds nothing to this interval. */
            for (int t = self->toff[j] * DIR_COUNT; t < self->toff[j + 1] * DIR_COUNT; t++)
                dir_stats_reset (&out[t]);
            continue;
        }
        if (self->t0[j] < *t_start)
            *t_start = self->t0[j];
        if (self->t1[j] > *t_end)
            *t_end = self->t1[j];
        self->have[j] = false;
    }
    *seq = self->k++;
    return 1;
}

uint64_t
step_actual_start (const step_t *self)
{
    uint64_t first = 0;
    for (int i = 0; i < self->njobs; i++) {
        uint64_t t = job_actual_start (self->jobs[i]);
        if (t && (first == 0 || t < first))
            first = t;
    }
    return first;
}

const char *
step_error (const step_t *self)
{
    for (int i = 0; i < self->njobs; i++)
        if (job_error (self->jobs[i])[0])
            return job_error (self->jobs[i]);
    return "";
}

int
step_latency_depths (const step_t *self, uint32_t *out)
{
    bool any = false;
    for (int j = 0; j < self->njobs; j++) {
        out[j] = job_latency_depth (self->jobs[j]);
        any |= out[j] != 0;
    }
    return any ? self->njobs : 0;
}
