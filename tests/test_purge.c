/*  test_purge.c: [iofleet] purge=discard|format (common/purge.c, jobfile.c): the
    plan gets a first step of discards (rw=randtrim bsrange=4k-64m, one at
    a time, marked purge) over each distinct region its own jobs test,
    before the precondition step when there is one; and the refusals,
    each naming the line and what to write instead.
*/
#include "jobfile.h"
#include "purge.h"
#include "parse_err.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static void
check_purge (const job_t *j, const char *filename, uint64_t size, bool stonewall)
{
    CHECK (strcmp (j->name, PURGE_NAME) == 0 && j->purge && j->line == 2);
    CHECK_MSG (strcmp (j->filename, filename) == 0, "filename %s", j->filename);
    CHECK (j->rw == JOB_RW_RANDTRIM && j->bsrange_min[1] == 4096
           && j->bsrange_max[1] == 64u << 20 && j->iodepth == 1 && j->numjobs == 1);
    CHECK (j->size == size && !j->time_based && j->runtime_ns == 0 && j->loops == 1);
    CHECK (j->norandommap == false);        /* the random map: each block once */
    CHECK (j->stonewall == stonewall && j->sla[0] == '\0');
}

static void
test_expansion (void)
{
    char err[512] = "";
    jobfile_t *jf = jobfile_parse ("t.fio",
        "[iofleet]\n"
        "purge=discard\n"               /* 2 */
        "precondition=2\n"
        "[global]\nfilename=/dev/loop7\nruntime=1\ntime_based\n"
        "[a]\nrw=randread\n"
        "[b]\nrw=randwrite\nfilename=/dev/loop8\nsize=1g\nstonewall\n", err, sizeof err);
    CHECK_MSG (jf != NULL, "%s", err);
    if (!jf)
        return;
    /* purge (2 regions), precondition (2 regions), the plan's a and b. */
    CHECK_MSG (jf->nsteps == 6 && jf->purge == PURGE_DISCARD && jf->precondition == 2,
               "%d steps", jf->nsteps);
    check_purge (&jf->steps[0], "/dev/loop7", 0, true);
    check_purge (&jf->steps[1], "/dev/loop8", 1ull << 30, false);
    CHECK (strcmp (jf->steps[2].name, "precondition") == 0 && jf->steps[2].stonewall
           && !jf->steps[2].purge && jf->steps[2].rw == JOB_RW_WRITE);
    CHECK (strcmp (jf->steps[4].name, "a") == 0 && jf->steps[4].stonewall);
    CHECK (strcmp (jf->steps[5].name, "b") == 0 && !jf->steps[5].purge);
    /* The plan's workers keep fio's numbers; the precondition's follow,
       then the purge's. */
    CHECK (jf->steps[4].thread_number == 1 && jf->steps[5].thread_number == 2
           && jf->steps[2].thread_number == 3 && jf->steps[3].thread_number == 4
           && jf->steps[0].thread_number == 5 && jf->steps[1].thread_number == 6);
    int first[8];
    CHECK (jobfile_group (jf, first) == 4 && first[1] == 2 && first[2] == 4 && first[3] == 5);
    jobfile_destroy (&jf);

    /* purge= alone; purge=none adds nothing. */
    jf = jobfile_parse ("t.fio", "[iofleet]\npurge=discard\n[a]\nfilename=/dev/sdz\n", err,
                        sizeof err);
    CHECK_MSG (jf && jf->nsteps == 2 && jf->steps[0].purge && !jf->steps[1].purge
               && jf->precondition == 0, "%s", err);
    jobfile_destroy (&jf);
    jf = jobfile_parse ("t.fio", "[iofleet]\npurge=none\n[a]\nfilename=/dev/sdz\n", err,
                        sizeof err);
    CHECK_MSG (jf && jf->nsteps == 1 && jf->purge == PURGE_NONE, "%s", err);
    jobfile_destroy (&jf);
    /* purge=format: the same step, its jobs marked to format (agent/
       format.h), one per device; a discard step's are not. */
    jf = jobfile_parse ("t.fio", "[iofleet]\npurge=format\n[a]\nfilename=/dev/nvme0n1\n"
                        "[b]\nfilename=/dev/sdb\n", err, sizeof err);
    CHECK_MSG (jf && jf->nsteps == 4 && jf->purge == PURGE_FORMAT, "%s", err);
    if (jf) {
        check_purge (&jf->steps[0], "/dev/nvme0n1", 0, true);
        check_purge (&jf->steps[1], "/dev/sdb", 0, false);
        CHECK (jf->steps[0].purge_format && jf->steps[1].purge_format
               && !jf->steps[2].purge_format);
    }
    jobfile_destroy (&jf);
    jf = jobfile_parse ("t.fio", "[iofleet]\npurge=discard\n[a]\nfilename=/dev/sdz\n", err,
                        sizeof err);
    CHECK (jf && jf->steps[0].purge && !jf->steps[0].purge_format);
    jobfile_destroy (&jf);
}

static void
test_refusals (void)
{
    EXPECT_PARSE_ERR ("[iofleet]\npurge=format\n[a]\nfilename=/dev/nvme0n1\nsize=1g\n",
                "t.fio:2: purge=format erases the whole device, and job 'a' tests only part of "
                "it (size= or offset=): use purge=discard, which discards just the region");
    EXPECT_PARSE_ERR ("[iofleet]\npurge=format\n[a]\nfilename=/dev/nvme0n1\noffset=10%\n",
                "t.fio:2: purge=format erases the whole device, and job 'a' tests only part of "
                "it (size= or offset=): use purge=discard, which discards just the region");
    EXPECT_PARSE_ERR ("[iofleet]\npurge=secure\n[a]\nfilename=/dev/nvme0n1\n",
                "t.fio:2: [iofleet] purge=secure: give discard, format or none");
    EXPECT_PARSE_ERR ("[iofleet]\npurge=discard\n[a]\nrw=read\nsize=1m\n",
                "t.fio:2: purge= needs filename= on every job (job 'a' has none, so its files "
                "are named after it): it discards the devices the jobs test");
}

int
main (void)
{
    test_expansion ();
    test_refusals ();
    return TEST_DONE ();
}
