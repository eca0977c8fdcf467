/*  fuzz_jobfile.c: libFuzzer harness for jobfile_parse(), which reads plans
    from the CLI (plan add) and again from the database at every run.

    Beyond "no crash": a refusal has a message; an accepted plan keeps the
    bounds jobfile.h documents and groups into steps as jobfile_group says;
    and each of its jobs, sent as the controller sends it (jobspec_from_job
    in a PREPARE), passes message_unpack's validation on the agent: a plan
    the parser accepts but no agent would take is a bug (jobspec.h: "j
    comes from the parser, inside every bound").
*/
#include "jobfile.h"
#include "jobspec.h"
#include "message.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define INPUT_MAX   (1u << 20)          /* jobfile_load's limit */

static void
fail (const char *name, const char *what, const char *detail)
{
    fprintf (stderr, "jobfile: job '%s': %s%s%s\n", name, what, detail ? ": " : "",
             detail ? detail : "");
    abort ();
}


//  Sends job j alone in a PREPARE, as the controller would, and unpacks it
//  as the agent would.
static void
check_wire (const job_t *j)
{
    static jobspec_t js;
    jobspec_from_job (&js, j, NS_PER_SEC);
    Iofleet__Prepare prep = IOFLEET__PREPARE__INIT;
    prep.run = 1;
    prep.job = &js.spec;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_PREPARE;
    env.prepare = &prep;
    size_t len = 0;
    uint8_t *buf = message_pack (&env, &len);
    if (!buf)
        abort ();
    char err[256] = "";
    int mm = -1;
    envelope_t *e = message_unpack (buf, len, &mm, err, sizeof err);
    if (!e || mm)
        fail (j->name, "accepted by the parser, refused on the wire", err);
    message_free (e);
    free (buf);
}

static void
check_job (const job_t *j)
{
    if (!memchr (j->name, '\0', sizeof j->name) || !j->name[0])
        fail ("?", "name empty or not terminated", NULL);
    if (!memchr (j->filename, '\0', sizeof j->filename)
        || !memchr (j->ioengine, '\0', sizeof j->ioengine)
        || !memchr (j->cpus_allowed, '\0', sizeof j->cpus_allowed)
        || !memchr (j->sla, '\0', sizeof j->sla)
        || !memchr (j->write_lat_log, '\0', sizeof j->write_lat_log)
        || !memchr (j->write_bw_log, '\0', sizeof j->write_bw_log)
        || !memchr (j->write_iops_log, '\0', sizeof j->write_iops_log)
        || !memchr (j->write_iolog, '\0', sizeof j->write_iolog)
        || !memchr (j->read_iolog, '\0', sizeof j->read_iolog)
        || !memchr (j->replay_redirect, '\0', sizeof j->replay_redirect)
        || !memchr (j->sweep_of, '\0', sizeof j->sweep_of))
        fail (j->name, "a text field is not terminated", NULL);
    if (j->iodepth < 1 || j->iodepth > JOB_MAX_IODEPTH || j->numjobs < 1
        || j->numjobs > JOB_MAX_NUMJOBS || j->rwmixread > 100
        || (unsigned) j->rw > JOB_RW_RANDTRIMWRITE)
        fail (j->name, "iodepth, numjobs, rwmixread or rw out of range", NULL);
    char why[160];
    if (dist_check (&j->dist, why, sizeof why))
        fail (j->name, "random_distribution breaks its rules:", why);
    if (!job_engine_known (j->ioengine))
        fail (j->name, "an engine no agent has", j->ioengine);
    for (int d = 0; d < 2; d++) {
        if (j->bs[d] < 1 || j->bs[d] > JOB_MAX_BS)
            fail (j->name, "bs out of range", NULL);
        if (j->nbssplit[d] < 0 || j->nbssplit[d] > JOB_BSSPLIT_MAX)
            fail (j->name, "bssplit count out of range", NULL);
    }
    if (j->npercentiles < 0 || j->npercentiles > JOB_PCT_MAX)
        fail (j->name, "percentile_list count out of range", NULL);
    if (j->runtime_ns > (uint64_t) JOB_MAX_RUNTIME_S * NS_PER_SEC)
        fail (j->name, "runtime over the limit", NULL);
    check_wire (j);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    if (size > INPUT_MAX)
        return 0;
    char *text = malloc (size + 1);
    if (!text)
        abort ();
    memcpy (text, data, size);
    text[size] = '\0';

    char err[512] = "";
    jobfile_t *jf = jobfile_parse ("fuzz.fio", text, err, sizeof err);
    free (text);
    if (!jf) {
        if (!err[0])
            fail ("-", "refused without a message", NULL);
        return 0;
    }
    if (jf->nsteps < 1 || jf->nsteps > JOB_MAX_STEPS)
        fail ("-", "number of jobs out of range", NULL);
    static int first[JOB_MAX_STEPS + 1];
    int n = jobfile_group (jf, first);
    if (n < 1 || n > jf->nsteps || first[0] != 0 || first[n] != jf->nsteps)
        fail ("-", "jobfile_group: bad step boundaries", NULL);
    for (int i = 0; i < n; i++)
        if (first[i + 1] <= first[i])
            fail ("-", "jobfile_group: an empty step", NULL);
    for (int i = 0; i < jf->nsteps; i++)
        check_job (&jf->steps[i]);
    jobfile_destroy (&jf);
    if (jf)
        fail ("-", "jobfile_destroy did not NULL the pointer", NULL);
    return 0;
}
