/*  test_precondition.c: [iofleet] precondition=COUNT (common/precondition.c,
    jobfile.c): the plan gets a first step of 128 KiB sequential writes
    over each distinct region its jobs test, written COUNT times, before
    its own jobs, which keep their steps, options, SLA and fio's worker
    numbers; and the refusals, each naming the line and the limit.
*/
#include "jobfile.h"
#include "precondition.h"
#include "parse_err.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static const char *const s_plan =
    "[global]\n"                    /* 1 */
    "ioengine=libaio\n"
    "direct=1\n"
    "bs=4k\n"
    "runtime=3\n"                   /* 5 */
    "time_based\n"
    "filename=/dev/loop7\n"
    "[iofleet]\n"
    "precondition=2\n"              /* 9 */
    "sla=p99<2ms\n"
    "[randread]\n"
    "rw=randread\n"
    "iodepth=16\n"
    "[randwrite]\n"
    "rw=randwrite\n"                /* 15 */
    "write_lat_log=lat\n"
    "[file]\n"
    "filename=/var/tmp/f\n"
    "size=64m\n"
    "offset=1m\n"                   /* 20 */
    "ioengine=io_uring\n";

/* The precondition job for a region: what it writes, and how. */
static void
check_pre (const job_t *j, const char *filename, uint64_t size, uint64_t offset, bool stonewall)
{
    CHECK (strcmp (j->name, PRECONDITION_NAME) == 0 && j->line == 9);
    CHECK_MSG (strcmp (j->filename, filename) == 0, "filename %s", j->filename);
    CHECK (j->size == size && j->size_pct == 0 && j->offset == offset);
    CHECK (j->rw == JOB_RW_WRITE && j->bs[0] == 128 * 1024 && j->bs[1] == 128 * 1024);
    CHECK (j->iodepth == 32 && j->numjobs == 1 && j->loops == 2 && j->direct);
    CHECK (j->refill_buffers && strcmp (j->ioengine, "libaio") == 0);
    CHECK (!j->time_based && j->runtime_ns == 0 && j->ramp_time_ns == 0);
    CHECK (j->sla[0] == '\0' && j->write_lat_log[0] == '\0' && j->rate_iops[1] == 0);
    CHECK (j->stonewall == stonewall);
    CHECK (job_fleet_refusal (j) == NULL);
}

static void
test_expansion (void)
{
    char err[512] = "";
    jobfile_t *jf = jobfile_parse ("t.fio", s_plan, err, sizeof err);
    CHECK_MSG (jf != NULL, "%s", err);
    if (!jf)
        return;
    /* Two regions (the device of randread and randwrite, the file's
       64 MiB at 1 MiB), then the plan's three jobs. */
    CHECK (jf->precondition == 2 && jf->nsteps == 5);
    check_pre (&jf->steps[0], "/dev/loop7", 0, 0, true);
    check_pre (&jf->steps[1], "/var/tmp/f", 64ull << 20, 1ull << 20, false);
    CHECK (strcmp (jf->steps[2].name, "randread") == 0 && jf->steps[2].stonewall);
    CHECK (strcmp (jf->steps[3].name, "randwrite") == 0 && !jf->steps[3].stonewall);
    CHECK (strcmp (jf->steps[4].name, "file") == 0 && !jf->steps[4].stonewall);
    /* The plan's jobs as they were: options, SLA, fio's worker numbers. */
    CHECK (jf->steps[2].iodepth == 16 && jf->steps[2].time_based && jf->steps[2].bs[0] == 4096);
    CHECK (strcmp (jf->steps[4].ioengine, "io_uring") == 0);
    for (int i = 2; i < 5; i++)
        CHECK (strcmp (jf->steps[i].sla, "p99<2ms") == 0);
    CHECK (jf->steps[2].thread_number == 1 && jf->steps[3].thread_number == 2
           && jf->steps[4].thread_number == 3);
    CHECK (jf->steps[0].thread_number == 4 && jf->steps[1].thread_number == 5);
    /* Steps: the two precondition jobs together, then the plan's jobs
       together, as they ran without it. */
    int first[8];
    int n = jobfile_group (jf, first);
    CHECK_MSG (n == 2 && first[0] == 0 && first[1] == 2 && first[2] == 5, "%d steps", n);
    jobfile_destroy (&jf);

    /* Without it, nothing is added. */
    jf = jobfile_parse ("t.fio", "[iofleet]\nsla=p99<2ms\n[a]\nfilename=x\nrw=read\n"
                        "[b]\nfilename=x\nrw=write\n", err, sizeof err);
    CHECK_MSG (jf && jf->precondition == 0 && jf->nsteps == 2
               && strcmp (jf->steps[0].name, "a") == 0 && !jf->steps[0].stonewall
               && strcmp (jf->steps[0].sla, "p99<2ms") == 0, "%s", err);
    jobfile_destroy (&jf);

    /* [iofleet] health= (health_rule.h) is every step's rule. */
    jf = jobfile_parse ("t.fio", "[iofleet]\nhealth=no_new_media_errors,max_temp<70\n[a]\n"
                        "filename=x\nrw=read\n[b]\nfilename=x\nrw=write\n", err, sizeof err);
    CHECK_MSG (jf && jf->nsteps == 2
               && strcmp (jf->steps[0].health, "no_new_media_errors,max_temp<70") == 0
               && strcmp (jf->steps[1].health, "no_new_media_errors,max_temp<70") == 0, "%s", err);
    jobfile_destroy (&jf);
    EXPECT_PARSE_ERR ("[iofleet]\nhealth=max_temp>70\n[a]\nfilename=x\n",
                      "t.fio:2: [iofleet] health: 'max_temp>70' is not a condition (use "
                      "no_new_media_errors, no_new_error_log_entries, no_new_critical_warnings, "
                      "no_throttling, no_new_defects, max_temp<C or waf<X; max_temp in degrees C, "
                      "waf a ratio above 0)");

    /* A null engine's region is preconditioned by the null engine (a
       simulated fleet), direct=0 as the job has it; one job, one region. */
    jf = jobfile_parse ("t.fio", "[iofleet]\nprecondition=1\n[a]\nioengine=null\nfilename=@all\n"
                        "rw=randread\nsize=1g\n[b]\nioengine=null\nfilename=@all\nsize=1g\n"
                        "rw=read\nstonewall\n", err, sizeof err);
    CHECK_MSG (jf && jf->nsteps == 3, "%s", err);
    if (jf) {
        CHECK (strcmp (jf->steps[0].ioengine, "null") == 0 && !jf->steps[0].direct
               && jf->steps[0].loops == 1 && jf->steps[0].size == (1ull << 30));
        CHECK (jobfile_group (jf, first) == 3);
    }
    jobfile_destroy (&jf);
}

static void
test_refusals (void)
{
    EXPECT_PARSE_ERR ("[iofleet]\nprecondition=0\n[a]\nfilename=x\n",
                "t.fio:2: [iofleet] precondition=0: give how many times to write the targets, "
                "1 to 16 (the SNIA PTS writes them twice)");
    EXPECT_PARSE_ERR ("[iofleet]\nprecondition=17\n[a]\nfilename=x\n",
                "t.fio:2: [iofleet] precondition=17: give how many times to write the targets, "
                "1 to 16 (the SNIA PTS writes them twice)");
    EXPECT_PARSE_ERR ("[iofleet]\nprecondition=twice\n[a]\nfilename=x\n",
                "t.fio:2: [iofleet] precondition=twice: give how many times to write the "
                "targets, 1 to 16 (the SNIA PTS writes them twice)");
    EXPECT_PARSE_ERR ("[a]\nfilename=x\n[iofleet]\nprecondition=2\n[b]\nrw=read\nsize=1m\n",
                "t.fio:4: precondition= needs filename= on every job (job 'b' has none, so its "
                "files are named after it): it writes the targets the jobs test");
    EXPECT_PARSE_ERR ("[iofleet]\nerase=discard\n[a]\nfilename=x\n",
                "t.fio:2: unknown setting 'erase' in [iofleet] (it takes sla=CONDITIONS, "
                "health=CONDITIONS, purge=discard|format, precondition=COUNT, rounds=MAX and steady_state=STEP:METRIC["
                ",window=N,range=P%,slope=P%]; fio options belong in [global] or a job)");
}

int
main (void)
{
    test_expansion ();
    test_refusals ();
    return TEST_DONE ();
}
