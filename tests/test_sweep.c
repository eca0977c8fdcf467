/*  test_sweep.c: unit tests for sweeps, iofleet's one extension to fio's
    syntax (common/sweep.c): lists in rw=, bs= and iodepth=, the steps they
    expand to, their names and limits.

    Usage: test_sweep FIXTURES_DIR   (tests/fixtures/jobs, for sweep.fio)

    On the fixture of the job-file tests (jobfile_fx.c).
*/
#include "jobfile_fx.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names of the steps of jf are exactly the n in want, in order. */
static bool
s_names_are (const jobfile_t *jf, int n, const char *const *want)
{
    if (!jf || jf->nsteps != n) {
        fprintf (stderr, "  %d steps, want %d\n", jf ? jf->nsteps : -1, n);
        return false;
    }
    for (int i = 0; i < n; i++) {
        if (strcmp (jf->steps[i].name, want[i]) != 0) {
            fprintf (stderr, "  step %d is '%s', want '%s'\n", i, jf->steps[i].name, want[i]);
            return false;
        }
    }
    return true;
}

/* One list: rw=, iodepth=, and bs= (two sizes are reads,writes; three or
   more a sweep). */
static void
test_sweeps_1d (void)
{
    /* 1-D. */
    jobfile_t *jf = fx_parse ("[q]\niodepth=1,32\n");
    static const char *const qd[] = { "q-qd1", "q-qd32" };
    if (CHECK_OK (s_names_are (jf, 2, qd))) {
        CHECK (jf->steps[0].iodepth == 1 && jf->steps[1].iodepth == 32);
        for (int i = 0; i < 2; i++) {
            CHECK (strcmp (jf->steps[i].sweep_of, "q") == 0);
            CHECK (jf->steps[i].sweep == JOB_SWEEP_IODEPTH);
            CHECK (jf->steps[i].line == 1 && jf->steps[i].rw == JOB_RW_READ);
            CHECK (BS_IS (&jf->steps[i], 4096));
        }
    }
    jobfile_destroy (&jf);
    jf = fx_parse ("[randread-4k]\nrw=randread\nbs=4k\niodepth=1,32\n");
    static const char *const rr[] = { "randread-4k-qd1", "randread-4k-qd32" };
    if (CHECK_OK (s_names_are (jf, 2, rr)))
        CHECK (jf->steps[1].rw == JOB_RW_RANDREAD && jf->steps[1].iodepth == 32);
    jobfile_destroy (&jf);
    jf = fx_parse ("[m]\nrw=read,write,randrw\nrwmixread=70\n");
    static const char *const modes[] = { "m-read", "m-write", "m-randrw" };
    if (CHECK_OK (s_names_are (jf, 3, modes))) {
        CHECK (jf->steps[0].rw == JOB_RW_READ && jf->steps[1].rw == JOB_RW_WRITE);
        CHECK (jf->steps[2].rw == JOB_RW_RANDRW && jf->steps[2].rwmixread == 70);
        CHECK (jf->steps[2].sweep == JOB_SWEEP_RW);
    }
    jobfile_destroy (&jf);
    /* readwrite is named rw, fio's name. */
    jf = fx_parse ("[m]\nreadwrite=readwrite,randread\n");
    static const char *const rwnames[] = { "m-rw", "m-randread" };
    CHECK (s_names_are (jf, 2, rwnames));
    jobfile_destroy (&jf);

    /* bs: two sizes are reads,writes; three or more a sweep. */
    job_t j;
    if (CHECK_OK (fx_one_job ("[job]\nbs=4k,8k\n", &j))) {
        CHECK (j.bs[0] == 4096 && j.bs[1] == 8192);
        CHECK (j.sweep == 0 && j.sweep_of[0] == '\0' && strcmp (j.name, "job") == 0);
    }
    if (CHECK_OK (fx_one_job ("[job]\nbs=4k,8k,\n", &j)))
        CHECK (j.bs[0] == 4096 && j.bs[1] == 8192 && j.sweep == 0);
    jf = fx_parse ("[b]\nbs=4k,8k,16k\n");
    static const char *const b3[] = { "b-4k", "b-8k", "b-16k" };
    if (CHECK_OK (s_names_are (jf, 3, b3))) {
        CHECK (BS_IS (&jf->steps[0], 4096) && BS_IS (&jf->steps[1], 8192));
        CHECK (BS_IS (&jf->steps[2], 16384) && jf->steps[2].sweep == JOB_SWEEP_BS);
    }
    jobfile_destroy (&jf);
    /* Compact sizes: k, m, or bytes; as written, not sorted. */
    jf = fx_parse ("[b]\nblocksize=64m,512,1536,2048k,0x1000\n");
    static const char *const bsz[] = { "b-64m", "b-512", "b-1536", "b-2m", "b-4k" };
    if (CHECK_OK (s_names_are (jf, 5, bsz)))
        CHECK (BS_IS (&jf->steps[0], JOB_MAX_BS) && BS_IS (&jf->steps[2], 1536));
    jobfile_destroy (&jf);
}

/* Two and three lists, and name=. */
static void
test_sweeps_nd (void)
{
    jobfile_t *jf;
    /* 2-D: docs/guide/02-plans.md's example, then a 3x2 sweep (iodepth fastest). */
    jf = fx_parse ("[q]\nrw=randread,randwrite\niodepth=1,32\n");
    static const char *const q4[] = { "q-randread-qd1", "q-randread-qd32",
                                      "q-randwrite-qd1", "q-randwrite-qd32" };
    if (CHECK_OK (s_names_are (jf, 4, q4))) {
        CHECK (jf->steps[2].rw == JOB_RW_RANDWRITE && jf->steps[2].iodepth == 1);
        CHECK (jf->steps[3].sweep == (JOB_SWEEP_RW | JOB_SWEEP_IODEPTH));
    }
    jobfile_destroy (&jf);
    /* The order written in the file does not change the order of steps. */
    jf = fx_parse ("[s]\niodepth=1,32\nbs=4k,64k,1m\n");
    static const char *const s6[] = { "s-4k-qd1", "s-4k-qd32", "s-64k-qd1",
                                      "s-64k-qd32", "s-1m-qd1", "s-1m-qd32" };
    if (CHECK_OK (s_names_are (jf, 6, s6))) {
        static const uint32_t bs[] = { 4096, 4096, 65536, 65536, 1048576, 1048576 };
        for (int i = 0; i < 6; i++) {
            CHECK (BS_IS (&jf->steps[i], bs[i]));
            CHECK (jf->steps[i].iodepth == (i % 2 ? 32u : 1u));
        }
    }
    jobfile_destroy (&jf);

    /* 3-D, with plain sections around it. */
    jf = fx_parse ("[first]\n[c]\nrw=randwrite,read\nbs=128k,4k,8k\niodepth=2,1\n"
                  "direct=1\n[last]\n");
    static const char *const c3[] = {
        "first",
        "c-randwrite-128k-qd2", "c-randwrite-128k-qd1", "c-randwrite-4k-qd2",
        "c-randwrite-4k-qd1", "c-randwrite-8k-qd2", "c-randwrite-8k-qd1",
        "c-read-128k-qd2", "c-read-128k-qd1", "c-read-4k-qd2",
        "c-read-4k-qd1", "c-read-8k-qd2", "c-read-8k-qd1",
        "last",
    };
    if (CHECK_OK (s_names_are (jf, 14, c3))) {
        CHECK (jf->steps[0].sweep == 0 && jf->steps[13].sweep == 0);
        CHECK (!jf->steps[0].direct && jf->steps[13].iodepth == 1);
        const job_t *k = &jf->steps[12];
        CHECK (k->rw == JOB_RW_READ && BS_IS (k, 8192) && k->iodepth == 1 && k->direct);
        CHECK (k->line == 2 && strcmp (k->sweep_of, "c") == 0);
        CHECK (k->sweep == (JOB_SWEEP_RW | JOB_SWEEP_BS | JOB_SWEEP_IODEPTH));
    }
    jobfile_destroy (&jf);

    /* name= names the steps. */
    jf = fx_parse ("[q]\nname=lat\niodepth=1,2\n");
    static const char *const named[] = { "lat-qd1", "lat-qd2" };
    if (CHECK_OK (s_names_are (jf, 2, named)))
        CHECK (strcmp (jf->steps[0].sweep_of, "lat") == 0);
    jobfile_destroy (&jf);
}

/* Lists inherited from [global], and replaced. */
static void
test_sweeps_global (void)
{
    jobfile_t *jf;
    job_t j;
    /* Inherited from [global]: each job below expands. */
    jf = fx_parse ("[global]\nrw=randread,randwrite\ndirect=1\n[a]\n[b]\niodepth=1,2\n");
    static const char *const g[] = { "a-randread", "a-randwrite", "b-randread-qd1",
                                     "b-randread-qd2", "b-randwrite-qd1", "b-randwrite-qd2" };
    if (CHECK_OK (s_names_are (jf, 6, g))) {
        CHECK (jf->steps[0].direct && jf->steps[5].direct);
        CHECK (jf->steps[1].line == 4 && jf->steps[2].line == 5);
        CHECK (strcmp (jf->steps[1].sweep_of, "a") == 0);
        CHECK (strcmp (jf->steps[4].sweep_of, "b") == 0);
    }
    jobfile_destroy (&jf);
    /* A later [global] applies to the jobs after it only. */
    jf = fx_parse ("[a]\n[global]\nbs=4k,8k,16k\n[b]\n");
    static const char *const g2[] = { "a", "b-4k", "b-8k", "b-16k" };
    CHECK (s_names_are (jf, 4, g2));
    jobfile_destroy (&jf);
    /* A single value replaces a list: in the job, or later in a section. */
    if (CHECK_OK (fx_one_job ("[global]\niodepth=1,2\nrw=read,write\n[a]\niodepth=8\nrw=write\n",
                             &j)))
        CHECK (j.iodepth == 8 && j.rw == JOB_RW_WRITE && j.sweep == 0
            && strcmp (j.name, "a") == 0);
    if (CHECK_OK (fx_one_job ("[a]\niodepth=1,2\niodepth=4\n", &j)))
        CHECK (j.iodepth == 4 && j.sweep == 0);
    if (CHECK_OK (fx_one_job ("[global]\nbs=4k,8k,16k\n[a]\nbs=4k,64k\n", &j)))
        CHECK (j.bs[0] == 4096 && j.bs[1] == 65536 && j.sweep == 0);
    if (CHECK_OK (fx_one_job ("[global]\nbs=4k,8k,16k\n[a]\nbs=2k\n", &j)))
        CHECK (BS_IS (&j, 2048) && j.sweep == 0);
    /* ... and a list replaces an earlier list. */
    jf = fx_parse ("[global]\niodepth=1,2\n[a]\niodepth=4,8,16\n");
    static const char *const g3[] = { "a-qd4", "a-qd8", "a-qd16" };
    CHECK (s_names_are (jf, 3, g3));
    jobfile_destroy (&jf);
    EXPECT_ERR ("[global]\nbs=4k,8k,16k\n[a]\nbs=,8k\n", "t.fio:4: bs=,8k sets only writes, "
                "but the bs sweep of line 2 sets both directions (give both, bs=READS,WRITES, "
                "to replace the sweep)");
    EXPECT_ERR ("[a]\nbs=4k,8k,16k\nbs=2k,\n", "t.fio:3: bs=2k, sets only reads, but the bs "
                "sweep of line 2 sets both directions (give both, bs=READS,WRITES, to replace "
                "the sweep)");
}

/* Repeated and invalid values, and the end-of-section checks on each step. */
static void
test_sweeps_bad (void)
{
    jobfile_t *jf;
    /* Repeated values. */
    EXPECT_ERR ("[q]\niodepth=1,2,1\n", "t.fio:2: iodepth=1,2,1: '1' repeats an earlier value "
                "(the values of a sweep must all differ)");
    EXPECT_ERR ("[q]\niodepth=16,0x10\n", "t.fio:2: iodepth=16,0x10: '0x10' repeats an earlier "
                "value (the values of a sweep must all differ)");
    EXPECT_ERR ("[q]\nrw=rw,readwrite\n", "t.fio:2: rw=rw,readwrite: 'readwrite' repeats an "
                "earlier value (the values of a sweep must all differ)");
    EXPECT_ERR ("[q]\nbs=4k,8k,4096\n", "t.fio:2: bs=4k,8k,4096: '4096' repeats an earlier "
                "value (the values of a sweep must all differ)");

    /* An invalid value inside a list, at the line of the list. */
    EXPECT_ERR ("[q]\nrw=read\n\niodepth=1,0,4\n",
                "t.fio:4: iodepth=1,0,4: 0 is out of range (allowed: 1..65536)");
    EXPECT_ERR ("[q]\niodepth=1,65537\n",
                "t.fio:2: iodepth=1,65537: 65537 is out of range (allowed: 1..65536)");
    EXPECT_ERR ("[q]\niodepth=1,x\n",
                "t.fio:2: iodepth=1,x: 'x' is not a number (allowed: 1..65536)");
    EXPECT_ERR ("[q]\niodepth=1, 2\n",
                "t.fio:2: iodepth=1, 2: ' 2' is not a number (allowed: 1..65536)");
    EXPECT_ERR ("[q]\nrw=randread,bogus\n", "t.fio:2: rw=randread,bogus: 'bogus' is not an "
                "fio I/O pattern " RW_ALL ")");
    EXPECT_ERR ("[q]\nrw=read,filedelete\n", "t.fio:2: rw 'filedelete' is not supported by "
                "iofleet yet " RW_ALL ")");
    EXPECT_ERR ("[q]\nrw=read,randread:8\n", "t.fio:2: rw=read,randread:8: fio's ':N' offset "
                "modifier is not supported by iofleet yet in a sweep");
    EXPECT_ERR ("[global]\nbs=4k,0,8k\n[q]\n",
                "t.fio:2: bs=4k,0,8k: 0 is out of range (allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[q]\nbs=4k,8q,16k\n", "t.fio:2: bs=4k,8q,16k: '8q' is not a size (like 4k "
                "or 128k; allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[q]\nbs=4k,8k-16k,32k\n", "t.fio:2: bs=4k,8k-16k,32k: '8k-16k' is not a size "
                "(like 4k or 128k; allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[q]\niodepth=1,,2\n", "t.fio:2: iodepth=1,,2 has an empty value (a sweep "
                "lists its values separated by ',')");
    EXPECT_ERR ("[q]\niodepth=1,\n", "t.fio:2: iodepth=1, has an empty value (a sweep "
                "lists its values separated by ',')");
    EXPECT_ERR ("[q]\nrw=,read\n", "t.fio:2: rw=,read has an empty value (a sweep "
                "lists its values separated by ',')");
    EXPECT_ERR ("[q]\nbs=4k,,8k,16k\n", "t.fio:2: bs=4k,,8k,16k has an empty value (a sweep "
                "lists its values separated by ',')");
    /* The end-of-section checks run on every step. */
    EXPECT_ERR ("[q]\ndirect=1\nbs=4k,1000,8k\n", "t.fio:3: bs=1000 is not a multiple of 512, "
                "which direct=1 (line 2) needs (job 'q-1000')");
    EXPECT_ERR ("[global]\nbs=4k,1000,8k\n[q]\ndirect=1\n", "t.fio:2: bs=1000 is not a multiple "
                "of 512, which direct=1 (line 4) needs (job 'q-1000')");
    EXPECT_ERR ("[global]\niodepth_batch_submit=8\n[q]\niodepth=32,1\n", "t.fio:2: "
                "iodepth_batch_submit=8 is larger than iodepth=1 (job 'q-qd1')");
    jf = fx_parse ("[q]\niodepth_batch_submit=0\niodepth=4,8\n");
    if (CHECK_OK (jf && jf->nsteps == 2))
        CHECK (jf->steps[0].iodepth_batch_submit == 4 && jf->steps[1].iodepth_batch_submit == 8);
    jobfile_destroy (&jf);
}

/* The limits on steps and values. */
static void
test_sweeps_limits (void)
{
    jobfile_t *jf;
    /* Too many steps: 16 x 16 is the limit, 17 x 16 is not. */
    char text[2048];
    const char *bs16 = "bs=1k,2k,3k,4k,5k,6k,7k,8k,9k,10k,11k,12k,13k,14k,15k,16k\n";
    snprintf (text, sizeof text, "[q]\n%siodepth=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n", bs16);
    jf = fx_parse (text);
    if (CHECK_OK (jf && jf->nsteps == JOB_MAX_STEPS)) {
        CHECK (strcmp (jf->steps[0].name, "q-1k-qd1") == 0);
        CHECK (strcmp (jf->steps[17].name, "q-2k-qd2") == 0);
        CHECK (strcmp (jf->steps[255].name, "q-16k-qd16") == 0);
    }
    jobfile_destroy (&jf);
    size_t len = strlen (text);
    snprintf (text + len, sizeof text - len, "[one-more]\n");
    EXPECT_ERR (text, "t.fio:4: more than 256 steps (the limit is 256; each step of a sweep "
                "counts)");
    snprintf (text, sizeof text, "[q]\n%siodepth=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17\n",
              bs16);
    EXPECT_ERR (text, "t.fio:1: section 'q' would expand to 272 steps by its sweeps, more "
                "than the limit of 256");
    snprintf (text, sizeof text, "[a]\n[b]\n[q]\n%siodepth=1,2,3,4,5,6,7,8,9,10,11,12,13,14,"
              "15,16\n", bs16);
    EXPECT_ERR (text, "t.fio:3: section 'q' would expand to 256 steps by its sweeps, 258 with "
                "the 2 steps before it, more than the limit of 256");
    /* More values than steps in one list. */
    char *big = malloc (8192);
    len = (size_t) snprintf (big, 8192, "[q]\niodepth=1");
    for (int i = 2; i <= JOB_MAX_STEPS + 1; i++)
        len += (size_t) snprintf (big + len, 8192 - len, ",%d", i);
    snprintf (big + len, 8192 - len, "\n");
    char e[1024];
    CHECK (fx_parse_fails (big, e, sizeof e));
    CHECK_MSG (strncmp (e, "t.fio:2: iodepth=1,2,3,4,", 25) == 0, "got: %s", e);
    CHECK_MSG (strstr (e, ": a sweep has more than 256 values"), "got: %s", e);
    free (big);
}

/* The limit on a step name's length. */
static void
test_sweeps_names (void)
{
    jobfile_t *jf;
    char text[2048];
    /* Too long names: 63 characters is fine, 64 is not. */
    char name[64];
    memset (name, 'n', sizeof name);
    name[JOB_NAME_MAX - 1 - 12] = '\0';     /* 51 + "-randread-qd" + 1 digit... */
    snprintf (text, sizeof text, "[%s]\nrw=randread\niodepth=1,2\n", name);
    jf = fx_parse (text);
    CHECK (jf && jf->nsteps == 2);
    jobfile_destroy (&jf);
    name[JOB_NAME_MAX - 1 - 12] = 'n';
    name[JOB_NAME_MAX - 1 - 4] = '\0';      /* 59 + "-qd1" = 63 */
    snprintf (text, sizeof text, "[%s]\niodepth=1,2\n", name);
    jf = fx_parse (text);
    if (CHECK_OK (jf && jf->nsteps == 2))
        CHECK (strlen (jf->steps[1].name) == JOB_NAME_MAX - 1);
    jobfile_destroy (&jf);
    snprintf (text, sizeof text, "[global]\nrw=randread,randwrite\n[x]\n[%s]\niodepth=1,32\n",
              name);
    char want[512];
    snprintf (want, sizeof want, "t.fio:4: section '%s': the sweep step name "
              "'%s-randread-qd1' is 72 characters long (the limit is 63); shorten the "
              "section name", name, name);
    EXPECT_ERR (text, want);
    snprintf (text, sizeof text, "[%s]\niodepth=1,32\n", name);
    snprintf (want, sizeof want, "t.fio:1: section '%s': the sweep step name '%s-qd32' is 64 "
              "characters long (the limit is 63); shorten the section name", name, name);
    EXPECT_ERR (text, want);
}

/* Sweeps: rw=, bs= (3+ sizes) and iodepth= lists expand a section. */
static void
test_sweeps (void)
{
    test_sweeps_1d ();
    test_sweeps_nd ();
    test_sweeps_global ();
    test_sweeps_bad ();
    test_sweeps_limits ();
    test_sweeps_names ();
}

/* tests/fixtures/jobs/sweep.fio: a QD x bs sweep. */
static void
test_sweep_fixture (void)
{
    char path[1024], err[512];
    jobfile_t *jf = jobfile_load (fx_path (path, sizeof path, "sweep.fio"), err, sizeof err);
    CHECK_MSG (jf, "%s", err);
    if (!jf)
        return;
    CHECK (jf->nsteps == 36 + 4);
    if (jf->nsteps != 40) {
        jobfile_destroy (&jf);
        return;
    }
    static const uint32_t sizes[] = { 4096, 8192, 65536, 131072 };
    static const char *const size_names[] = { "4k", "8k", "64k", "128k" };
    static const uint32_t depths[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256 };
    for (int b = 0; b < 4; b++) {
        for (int q = 0; q < 9; q++) {
            const job_t *j = &jf->steps[b * 9 + q];
            char want[64];
            snprintf (want, sizeof want, "randread-%s-qd%u", size_names[b], depths[q]);
            CHECK_MSG (strcmp (j->name, want) == 0, "step %d is '%s', want '%s'",
                       b * 9 + q, j->name, want);
            CHECK (BS_IS (j, sizes[b]) && j->iodepth == depths[q]);
            CHECK (j->rw == JOB_RW_RANDREAD && j->direct && j->time_based);
            CHECK (j->runtime_ns == 30 * NS_PER_S && j->ramp_time_ns == 5 * NS_PER_S);
            CHECK (strcmp (j->filename, "/dev/nvme0n1") == 0);
            CHECK (strcmp (j->sweep_of, "randread") == 0 && j->line == 18);
            CHECK (j->sweep == (JOB_SWEEP_BS | JOB_SWEEP_IODEPTH));
        }
    }
    static const char *const w[] = { "randwrite-4k-qd1", "randwrite-4k-qd4",
                                     "randwrite-4k-qd16", "randwrite-4k-qd64" };
    for (int i = 0; i < 4; i++) {
        const job_t *j = &jf->steps[36 + i];
        CHECK (strcmp (j->name, w[i]) == 0);
        CHECK (j->rw == JOB_RW_RANDWRITE && BS_IS (j, 4096));
        CHECK (j->sweep == JOB_SWEEP_IODEPTH && j->iodepth == (1u << (2 * i)));
    }
    jobfile_destroy (&jf);
}

int
main (int argc, char **argv)
{
    if (fx_dir_arg (argc, argv))
        return 2;
    test_sweeps ();
    test_sweep_fixture ();
    return TEST_DONE ();
}
