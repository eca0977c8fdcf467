/*  test_jobspec.c: unit tests for a parsed job as the JobSpec an agent
    runs (common/jobspec.c): the files a job's copies get, and the release
    an agent needs to run it (an engine's from fio_names.c).  On the fixture of the job-file tests
    (jobfile_fx.c).
*/
#include "jobfile_fx.h"
#include "jobspec.h"
#include "fio_names.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Without filename= each job copy gets files of its own, as fio names
   them ($jobname.$jobnum.$filenum), in directory= when given; a sweep's
   steps share their section's. */
static void
test_own_files (void)
{
    jobfile_t *jf = fx_parse ("[w]\nnumjobs=3\nsize=1m\n"
                             "[s]\nfilename=/dev/x:y\nnumjobs=2\nnrfiles=5\ndirectory=d/\n"
                             "[q]\niodepth=1,4\nsize=1m\n"
                             "[n]\nnr_files=2\nnumjobs=2\nfilesize=64k\ndirectory=/srv/t\n");
    CHECK (jf && jf->nsteps == 5);
    if (jf && jf->nsteps == 5) {
        static jobspec_t js;
        jobspec_from_job (&js, &jf->steps[0], NS_PER_S);
        CHECK (js.spec.files_per_worker == 1 && js.spec.n_filenames == 3);
        if (js.spec.n_filenames == 3)
            CHECK (strcmp (js.spec.filenames[0], "w.0.0") == 0
                   && strcmp (js.spec.filenames[2], "w.2.0") == 0);
        /* filename= names the files (fio takes no nrfiles= then); directory=
           goes before the relative ones. */
        jobspec_from_job (&js, &jf->steps[1], NS_PER_S);
        CHECK (js.spec.files_per_worker == 0 && js.spec.n_filenames == 2);
        if (js.spec.n_filenames == 2)
            CHECK (strcmp (js.spec.filenames[0], "/dev/x") == 0
                   && strcmp (js.spec.filenames[1], "d/y") == 0);
        jobspec_from_job (&js, &jf->steps[3], NS_PER_S);
        CHECK (js.spec.files_per_worker == 1 && js.spec.n_filenames == 1
               && strcmp (js.spec.filenames[0], "q.0.0") == 0);
        jobspec_from_job (&js, &jf->steps[4], NS_PER_S);
        CHECK (js.spec.files_per_worker == 2 && js.spec.n_filenames == 4
               && js.spec.filesize == 65536);
        if (js.spec.n_filenames == 4)
            CHECK (strcmp (js.spec.filenames[1], "/srv/t/n.0.1") == 0
                   && strcmp (js.spec.filenames[2], "/srv/t/n.1.0") == 0);
    }
    jobfile_destroy (&jf);
    /* Files per copy, and a job's files are an agent's targets. */
    jf = fx_parse ("[w]\nnumjobs=256\nsize=1m\n");
    CHECK (jf != NULL);
    jobfile_destroy (&jf);
    EXPECT_ERR ("[global]\nnumjobs=257\n[w]\nsize=1m\n",
                "t.fio:2: numjobs=257 with nrfiles=1 without filename= makes 257 files, as fio "
                "does (w.0.0, w.0.1, ...); the limit is 256: give filename=");
    EXPECT_ERR ("[w]\nnumjobs=16\nnrfiles=17\nsize=1m\n",
                "t.fio:3: numjobs=16 with nrfiles=17 without filename= makes 272 files, as fio "
                "does (w.0.0, w.0.1, ...); the limit is 256: give filename=");
    EXPECT_ERR ("[w]\nfilesize=1k-4k\n",
                "t.fio:2: filesize=1k-4k: a range or percentage is not supported by iofleet "
                "yet; give one size");
    EXPECT_ERR ("[w]\ndirectory=/a:/b\n",
                "t.fio:2: directory=/a:/b: fio's list of directories is not supported by "
                "iofleet yet; give one");
}

/* Which release runs a job: the options of 0.3.0 are named, so a
   controller can leave an older agent out instead of letting it skip them. */
static void
test_release_needed (void)
{
    CHECK (jobspec_release_older ("0.2.0", "0.3.0"));
    CHECK (jobspec_release_older ("0.2.9", "0.3.0"));
    CHECK (!jobspec_release_older ("0.3.0", "0.3.0"));
    CHECK (!jobspec_release_older ("0.10.0", "0.3.0"));
    CHECK (!jobspec_release_older ("1.0", "0.3.0"));
    CHECK (jobspec_release_older ("", "0.3.0"));
    CHECK (jobspec_release_older ("dev", "0.3.0"));
    jobfile_t *jf = fx_parse ("[a]\nfilename=x\nrw=randread\n"
                             "[b]\nfilename=x\nrw=write\nverify=md5\n"
                             "[c]\nnumjobs=2\nsize=1m\n");
    CHECK (jf && jf->nsteps == 3);
    if (jf && jf->nsteps == 3) {
        static jobspec_t js;
        const char *what = "untouched";
        jobspec_from_job (&js, &jf->steps[0], NS_PER_S);
        CHECK (jobspec_needs (&js.spec, &what) == NULL && strcmp (what, "untouched") == 0);
        jobspec_from_job (&js, &jf->steps[1], NS_PER_S);
        const char *need = jobspec_needs (&js.spec, &what);
        CHECK (need && strcmp (need, "0.3.0") == 0 && strcmp (what, "verify=") == 0);
        jobspec_from_job (&js, &jf->steps[2], NS_PER_S);
        CHECK (jobspec_needs (&js.spec, &what) != NULL && strstr (what, "without filename="));
    }
    jobfile_destroy (&jf);
}

/* An engine needs the release its row in fio_names.c says, named to the
   operator as the engines 0.3.0 added. */
static void
test_engine_release (void)
{
    char list[] = JOB_ENGINES, *save = NULL;
    for (char *name = strtok_r (list, ", ", &save); name; name = strtok_r (NULL, ", ", &save)) {
        char text[128];
        snprintf (text, sizeof text, "[a]\nfilename=x\nsize=1m\nioengine=%s\n", name);
        jobfile_t *jf = fx_parse (text);
        if (!CHECK_OK (jf && jf->nsteps == 1)) {
            jobfile_destroy (&jf);
            continue;
        }
        static jobspec_t js;
        jobspec_from_job (&js, &jf->steps[0], NS_PER_S);
        const char *what = "untouched";
        const char *need = jobspec_needs (&js.spec, &what);
        const char *since = job_engine_since (name);
        if (since)
            CHECK_MSG (need && strcmp (need, since) == 0 && strstr (what, name)
                       && strcmp (what, "ioengine=sync|vsync|pvsync|pvsync2|posixaio") == 0,
                       "%s: needs %s for %s", name, need ? need : "(null)", what);
        else
            CHECK_MSG (need == NULL && strcmp (what, "untouched") == 0, "%s: needs %s for %s",
                       name, need, what);
        jobfile_destroy (&jf);
    }
}

int
main (void)
{
    test_own_files ();
    test_release_needed ();
    test_engine_release ();
    return TEST_DONE ();
}
