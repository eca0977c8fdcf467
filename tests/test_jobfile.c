/*  test_jobfile.c: unit tests for the fio job file parser proper
    (common/jobfile.c): sections and [global], comments and CRLF, loading
    a file, the checks each job gets when its section ends, the steps a
    plan makes and how they group.

    Usage: test_jobfile FIXTURES_DIR   (tests/fixtures/jobs)

    The fixtures are the plans users will actually write (summary.fio,
    qualification.fio) and one broken file per error class; messages are
    compared exactly, because "FILE:LINE: what" is the user interface.
    Beside it, each on the fixture they share (jobfile_fx.c): a job's
    options (test_job_opts.c), their values (test_optval.c), sweeps
    (test_sweep.c), the JobSpec a job makes (test_jobspec.c) and random
    plans (test_jobfile_fuzz.c); units and fio's names have their own
    (test_units.c, test_fio_names.c).
*/
#include "jobfile_fx.h"
#include "jobspec.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
test_summary (void)
{
    char path[1024], err[512];
    jobfile_t *jf = jobfile_load (fx_path (path, sizeof path, "summary.fio"),
                                  err, sizeof err);
    CHECK_MSG (jf, "%s", err);
    if (!jf)
        return;
    CHECK (jf->nsteps == 1);
    const job_t *j = &jf->steps[0];
    CHECK (strcmp (j->name, "random-4k") == 0);
    CHECK (j->line == 7);
    CHECK (strcmp (j->ioengine, "libaio") == 0);
    CHECK (j->direct);
    CHECK (j->rw == JOB_RW_RANDREAD);
    CHECK (strcmp (job_rw_name (j->rw), "randread") == 0);
    CHECK (j->rwmixread == 50);
    CHECK (BS_IS (j, 4096));
    CHECK (j->iodepth == 32);
    CHECK (j->numjobs == 8);
    CHECK (j->size == 0 && j->size_pct == 0);
    CHECK (j->offset == 0 && j->offset_pct == 0);
    CHECK (strcmp (j->filename, "/dev/sdX") == 0);
    CHECK (j->runtime_ns == 60 * NS_PER_S);
    CHECK (j->time_based);
    CHECK (j->ramp_time_ns == 0);
    CHECK (j->group_reporting);
    CHECK (!j->stonewall);
    jobfile_destroy (&jf);
    CHECK (jf == NULL);
}

static void
test_qualification (void)
{
    char path[1024], err[512];
    jobfile_t *jf = jobfile_load (fx_path (path, sizeof path, "qualification.fio"),
                                  err, sizeof err);
    CHECK_MSG (jf, "%s", err);
    if (!jf)
        return;
    CHECK (jf->nsteps == 4);
    if (jf->nsteps != 4) {
        jobfile_destroy (&jf);
        return;
    }
    static const struct {
        const char *name;
        int line;
        job_rw_t rw;
        uint32_t rwmixread, bs, iodepth, numjobs, size_pct;
        uint64_t runtime_s;
    } want[] = {
        { "randread-qd1",  16, JOB_RW_RANDREAD, 50,   4096,  1, 1,  0, 120 },
        { "randread-qd32", 22, JOB_RW_RANDREAD, 50,   4096, 32, 4,  0, 120 },
        { "randrw-70-30",  29, JOB_RW_RANDRW,   70,   8192, 16, 4,  0, 120 },
        { "seqread-128k",  37, JOB_RW_READ,     50, 131072,  8, 1, 50,  60 },
    };
    for (int i = 0; i < 4; i++) {
        const job_t *j = &jf->steps[i];
        CHECK_MSG (strcmp (j->name, want[i].name) == 0, "step %d is '%s'", i, j->name);
        CHECK_MSG (j->line == want[i].line, "step %d line %d", i, j->line);
        CHECK (j->rw == want[i].rw);
        CHECK (j->rwmixread == want[i].rwmixread);
        CHECK (BS_IS (j, want[i].bs));
        CHECK (j->iodepth == want[i].iodepth);
        CHECK (j->numjobs == want[i].numjobs);
        CHECK (j->size == 0 && j->size_pct == want[i].size_pct);
        CHECK (j->runtime_ns == want[i].runtime_s * NS_PER_S);
        /* Inherited from [global]. */
        CHECK (strcmp (j->ioengine, "libaio") == 0);
        CHECK (j->direct);
        CHECK (strcmp (j->filename, "/dev/nvme0n1") == 0);
        CHECK (j->time_based);
        CHECK (j->ramp_time_ns == 10 * NS_PER_S);
        CHECK (j->group_reporting);
        CHECK (j->stonewall);
    }
    jobfile_destroy (&jf);
}

/* Each broken fixture fails with exactly "PATH:LINE: message". */
static void
test_fixture_errors (void)
{
    static const struct {
        const char *file;
        const char *rest;       /* after "PATH" */
    } cases[] = {
        { "bad-unknown-option.fio", ":6: unknown option 'blocksize_ratio'" },
        { "bad-unsupported-option.fio",
          ":6: fio option 'flow' is not supported by iofleet yet" },
        { "bad-value.fio",
          ":3: bs='4q' is not a size (like 4k or 128k; allowed: 1 byte..64 MiB)" },
        { "bad-range.fio", ":5: iodepth=0 is out of range (allowed: 1..65536)" },
        { "bad-bare-key.fio", ":4: option 'bs' needs a value" },
        { "bad-outside-section.fio", ":3: option 'ioengine' outside of a section" },
        { "bad-no-jobs.fio", ": no job sections (a plan needs at least one [job])" },
        { "bad-time-based.fio", ":2: time_based needs runtime= (job 'job' has none)" },
        { "bad-direct-bs.fio", ":2: bs=1000 is not a multiple of 512, which direct=1 "
                               "(line 8) needs (job 'bad-direct')" },
        { "bad-ioengine.fio", ":2: ioengine 'mmap' is not supported by iofleet yet "
                              "(supported: " JOB_ENGINES ")" },
        { "bad-rw.fio", ":3: rw 'filecreate' is not supported by iofleet yet " RW_ALL ")" },
        { "bad-bssplit.fio",
          ":6: bssplit=4k/50:64k/40: the percentages add up to 90%, not 100%" },
        { "bad-steadystate.fio",
          ":3: steadystate needs ss_dur= (job 'without-duration' has none)" },
        { "bad-direct-bssplit.fio", ":2: bssplit size 1000 (reads) is not a multiple of 512, "
                                    "which direct=1 (line 6) needs (job 'job')" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[1024], want[2048], err[1024];
        fx_path (path, sizeof path, cases[i].file);
        snprintf (want, sizeof want, "%s%s", path, cases[i].rest);
        jobfile_t *jf = jobfile_load (path, err, sizeof err);
        CHECK_MSG (jf == NULL, "%s parsed", cases[i].file);
        CHECK_MSG (strcmp (err, want) == 0, "\n     got: %s\n    want: %s", err, want);
        jobfile_destroy (&jf);
    }
}

static void
test_load_errors (void)
{
    char path[1024], want[2048], err[1024];
    jobfile_t *jf;

    jf = jobfile_load (fx_path (path, sizeof path, "no-such-plan.fio"), err, sizeof err);
    snprintf (want, sizeof want, "cannot read '%s': No such file or directory", path);
    CHECK (jf == NULL);
    CHECK_MSG (strcmp (err, want) == 0, "got '%s'", err);

    jf = jobfile_load (fx_dir, err, sizeof err);
    snprintf (want, sizeof want, "%s: is a directory, not a job file: give the path of a "
              "file (e.g. %s/NAME.fio)", fx_dir, fx_dir);
    CHECK (jf == NULL);
    CHECK_MSG (strcmp (err, want) == 0, "got '%s'", err);

    /* Exactly 1 MiB is accepted, one byte more is not. */
    const char *tmpdir = getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp";
    char tmp[1024];
    snprintf (tmp, sizeof tmp, "%s/test_jobfile.XXXXXX", tmpdir);
    int fd = mkstemp (tmp);
    CHECK_MSG (fd >= 0, "mkstemp %s: %s", tmp, strerror (errno));
    if (fd < 0)
        return;
    size_t size = 1u << 20;
    char *big = malloc (size + 1);
    memset (big, ';', size);
    memcpy (big, "[job]\n", 6);
    for (size_t i = 100; i < size; i += 100)
        big[i] = '\n';
    CHECK (write (fd, big, size) == (ssize_t) size);
    jf = jobfile_load (tmp, err, sizeof err);
    CHECK_MSG (jf && jf->nsteps == 1, "1 MiB file: %s", err);
    jobfile_destroy (&jf);
    CHECK (write (fd, "\n", 1) == 1);
    jf = jobfile_load (tmp, err, sizeof err);
    snprintf (want, sizeof want, "%s: job file is larger than 1048576 bytes (1 MiB, the limit)", tmp);
    CHECK (jf == NULL);
    CHECK_MSG (strcmp (err, want) == 0, "got '%s'", err);

    /* A NUL byte would silently end the text. */
    CHECK (ftruncate (fd, 0) == 0);
    CHECK (pwrite (fd, "[job]\nbs=4k\0\nbs=oops\n", 21, 0) == 21);
    jf = jobfile_load (tmp, err, sizeof err);
    snprintf (want, sizeof want, "%s:2: NUL byte in the file: not a text job file", tmp);
    CHECK (jf == NULL);
    CHECK_MSG (strcmp (err, want) == 0, "got '%s'", err);
    /* The reader the CLI's plan add uses says the same, and so does the
       controller's check of a text that came with its length (a JSON
       string with \u0000 in it). */
    size_t len = 99;
    char *text = jobfile_read (tmp, &len, err, sizeof err);
    CHECK (text == NULL && len == 99);
    CHECK_MSG (strcmp (err, want) == 0, "jobfile_read: got '%s'", err);
    jf = jobfile_parse_n (tmp, "[job]\nbs=4k\0\nbs=oops\n", 21, err, sizeof err);
    CHECK (jf == NULL);
    CHECK_MSG (strcmp (err, want) == 0, "jobfile_parse_n: got '%s'", err);
    jf = jobfile_parse_n (tmp, "[job]\nbs=4k\n", 12, err, sizeof err);
    CHECK_MSG (jf && jf->nsteps == 1, "jobfile_parse_n of a whole text: %s", err);
    jobfile_destroy (&jf);
    CHECK (ftruncate (fd, 0) == 0);
    CHECK (pwrite (fd, "[job]\nbs=4k\n", 12, 0) == 12);
    text = jobfile_read (tmp, &len, err, sizeof err);
    CHECK_MSG (text && len == 12 && strcmp (text, "[job]\nbs=4k\n") == 0, "jobfile_read: %s",
               err);
    free (text);
    text = jobfile_read (fx_dir, &len, err, sizeof err);
    CHECK (text == NULL && strstr (err, "is a directory, not a job file"));
    close (fd);
    unlink (tmp);
    free (big);
}

/* A [global] applies to the jobs below it only; a second one builds on
   the first; a job's own options do not leak into the next job. */
static void
test_globals (void)
{
    jobfile_t *jf = fx_parse (
        "[global]\n"            /* 1 */
        "bs=8k\n"
        "iodepth=4\n"
        "[a]\n"                 /* 4 */
        "numjobs=3\n"
        "[global]\n"            /* 6 */
        "bs=16k\n"
        "direct=1\n"
        "[b]\n"                 /* 9 */
        "[c]\n"                 /* 10 */
        "bs=4k\n"
        "time_based=1\n"
        "runtime=10\n"
        "[global]\n"
        "time_based=0\n"
        "[d]\n");
    CHECK (jf && jf->nsteps == 4);
    if (!jf || jf->nsteps != 4) {
        jobfile_destroy (&jf);
        return;
    }
    const job_t *a = &jf->steps[0], *b = &jf->steps[1];
    const job_t *c = &jf->steps[2], *d = &jf->steps[3];
    CHECK (strcmp (a->name, "a") == 0 && a->line == 4);
    CHECK (BS_IS (a, 8192) && a->iodepth == 4 && !a->direct && a->numjobs == 3);
    CHECK (strcmp (b->name, "b") == 0 && b->line == 9);
    CHECK (BS_IS (b, 16384) && b->iodepth == 4 && b->direct && b->numjobs == 1);
    CHECK (strcmp (c->name, "c") == 0 && c->line == 10);
    CHECK (BS_IS (c, 4096) && c->iodepth == 4 && c->direct && c->time_based);
    CHECK (c->runtime_ns == 10 * NS_PER_S);
    CHECK (BS_IS (d, 16384) && d->direct && !d->time_based && d->runtime_ns == 0);
    jobfile_destroy (&jf);

    /* A job before any [global] gets the defaults, not a later global. */
    jf = fx_parse ("[first]\n[global]\niodepth=8\n[second]\n");
    CHECK (jf && jf->nsteps == 2);
    if (jf && jf->nsteps == 2) {
        CHECK (jf->steps[0].iodepth == 1);
        CHECK (jf->steps[1].iodepth == 8);
    }
    jobfile_destroy (&jf);
}

static void
test_crlf_and_comments (void)
{
    jobfile_t *jf = fx_parse (
        "; comment\r\n"
        "# comment\r\n"
        "\r\n"
        "[global]\r\n"
        "ioengine=libaio\r\n"
        "direct=1\r\n"
        "runtime=60\r\n"
        "time_based\r\n"
        "group_reporting\r\n"
        "[random-4k]\r\n"
        "bs=4k\r\n"
        "iodepth=32\r\n"
        "numjobs=8\r\n"
        "rw=randread\r\n"
        "filename=/dev/sdX\r\n");
    CHECK (jf && jf->nsteps == 1);
    if (jf && jf->nsteps == 1) {
        const job_t *j = &jf->steps[0];
        CHECK (strcmp (j->name, "random-4k") == 0 && j->line == 10);
        CHECK (j->direct && j->time_based && j->group_reporting);
        CHECK (BS_IS (j, 4096) && j->iodepth == 32 && j->numjobs == 8);
        CHECK (j->rw == JOB_RW_RANDREAD);
        CHECK (strcmp (j->filename, "/dev/sdX") == 0);
        CHECK (j->runtime_ns == 60 * NS_PER_S);
    }
    jobfile_destroy (&jf);

    /* Errors count CRLF lines like LF lines. */
    EXPECT_ERR ("[job]\r\nrw=read\r\n\r\niodepth=x\r\n",
                "t.fio:4: iodepth='x' is not a number (allowed: 1..65536)");

    /* Like fio, ';' and '#' start a comment anywhere on a line, and blanks
       around '=' and at both ends are ignored. */
    jf = fx_parse (
        "   ; indented comment\n"
        "\t# tab-indented comment\n"
        "[ job one ]   ; trailing comment on a header\n"
        "  bs = 64k   ; 64 KiB\n"
        "\tiodepth\t=\t8#no blank needed before '#'\n"
        "rw=randwrite;\n"
        "time_based   # bare key with a comment\n"
        "runtime=1m\n"
        "; [not-a-job]\n"
        "#[nor-this]\n");
    CHECK (jf && jf->nsteps == 1);
    if (jf && jf->nsteps == 1) {
        const job_t *j = &jf->steps[0];
        CHECK (strcmp (j->name, "job one") == 0 && j->line == 3);
        CHECK (BS_IS (j, 65536) && j->iodepth == 8 && j->rw == JOB_RW_RANDWRITE);
        CHECK (j->time_based && j->runtime_ns == 60 * NS_PER_S);
    }
    jobfile_destroy (&jf);
}

/* verify and its family: what fio takes, and the jobs iofleet cannot
   read back as fio does, refused naming why. */
static void
test_verify_options (void)
{
    jobfile_t *jf = fx_parse ("[global]\nfilename=x\nsize=1m\n"
                             "[a]\nrw=randwrite\nverify=crc32c-intel\n"
                             "[b]\nrw=write\nverify=md5\ndo_verify=0\nverify_backlog=16\n"
                             "verify_fatal=1\n"
                             "[c]\nrw=write\nverify=crc32c\nverify_only\n"
                             "[d]\nrw=randrw\nverify=0\n");
    CHECK (jf && jf->nsteps == 4);
    if (jf && jf->nsteps == 4) {
        const job_t *a = &jf->steps[0], *b = &jf->steps[1], *c = &jf->steps[2], *d = &jf->steps[3];
        CHECK (a->verify == JOB_VERIFY_CRC32C && a->do_verify && !a->verify_backlog
               && !a->verify_fatal && !a->verify_only);
        CHECK (b->verify == JOB_VERIFY_MD5 && !b->do_verify && b->verify_backlog == 16
               && b->verify_fatal);
        CHECK (c->verify == JOB_VERIFY_CRC32C && c->verify_only);
        CHECK (d->verify == JOB_VERIFY_NONE);
        static jobspec_t js;
        jobspec_from_job (&js, b, NS_PER_S);
        CHECK (js.spec.verify == IOFLEET__VERIFY_KIND__VERIFY_MD5 && js.spec.verify_skip_read_back
               && js.spec.verify_backlog == 16 && js.spec.verify_fatal && !js.spec.verify_only);
        jobspec_from_job (&js, a, NS_PER_S);
        CHECK (!js.spec.verify_skip_read_back);
    }
    jobfile_destroy (&jf);
    EXPECT_ERR ("[a]\nfilename=x\nrw=write\nverify=sha256\n",
                "t.fio:4: verify=sha256 is not supported by iofleet yet (supported: crc32c, "
                "crc32c-intel, md5, 0)");
    EXPECT_ERR ("[a]\nfilename=x\nrw=write\nverify=crc33\n",
                "t.fio:4: verify=crc33 is not an fio verify method (supported: crc32c, "
                "crc32c-intel, md5, 0)");
    EXPECT_ERR ("[a]\nfilename=x\nverify=crc32c\n",
                "t.fio:3: verify=crc32c on job 'a': the job writes nothing to verify "
                "(verify_only=1 on the writing job reads back what an earlier run of it wrote)");
    EXPECT_ERR ("[a]\nfilename=x\nrw=randwrite\nnorandommap\nverify=md5\n",
                "t.fio:5: verify=md5 on job 'a': with norandommap, blockalign or a non-uniform "
                "random_distribution writes overlap, which fio sorts and trims before reading "
                "back and iofleet does not yet");
    EXPECT_ERR ("[a]\nfilename=x\nrw=randwrite\nba=8k\nverify=md5\n",
                "t.fio:5: verify=md5 on job 'a': with norandommap, blockalign or a non-uniform "
                "random_distribution writes overlap, which fio sorts and trims before reading "
                "back and iofleet does not yet");
    EXPECT_ERR ("[a]\nfilename=x\nrw=randrw\nrate_iops=100\nverify=crc32c\n",
                "t.fio:5: verify=crc32c on job 'a': rate_iops on a mixed job decides each I/O's "
                "direction by the clock, so the writes cannot be replayed for reading back");
    EXPECT_ERR ("[a]\nfilename=x\nrw=write\nbssplit=32/50:4k/50\nverify=crc32c\n",
                "t.fio:5: verify=crc32c on job 'a': writes of 32 bytes cannot hold its 48-byte "
                "header");
    EXPECT_ERR ("[a]\nfilename=x\nrw=write\nnumjobs=2\nverify=md5\n",
                "t.fio:5: verify=md5 on job 'a': its numjobs copies write the same blocks of the "
                "same files, so a copy would read back another's data; give offset_increment= "
                "(regions of their own), or no filename= (files of their own)");
    jf = fx_parse ("[a]\nrw=write\nnumjobs=2\nverify=md5\nsize=1m\n"
                  "[b]\nfilename=x\nrw=write\nnumjobs=2\nverify=md5\nsize=1m\n"
                  "offset_increment=1m\n");
    CHECK (jf && jf->nsteps == 2);
    jobfile_destroy (&jf);
    EXPECT_ERR ("[a]\nfilename=x\nrw=write\nverify_only=1\n",
                "t.fio:1: verify_only on job 'a' without verify=: nothing to check (give the "
                "verify= its data was written with)");
    EXPECT_ERR ("[a]\nfilename=x\nrw=write\nverify=md5\nverify_backlog=2m\n",
                "t.fio:5: verify_backlog=2m is out of range (allowed: 0..1048576)");
}

/* exitall is fio's run-wide flag: on one job, it is every job's. */
static void
test_exitall (void)
{
    jobfile_t *jf = fx_parse ("[global]\nfilename=x\n[a]\n[b]\nexitall\n[c]\nstonewall\n");
    CHECK (jf && jf->nsteps == 3);
    if (jf && jf->nsteps == 3)
        CHECK (jf->steps[0].exitall && jf->steps[1].exitall && jf->steps[2].exitall);
    jobfile_destroy (&jf);
    jf = fx_parse ("[a]\nfilename=x\n");
    CHECK (jf && !jf->steps[0].exitall);
    jobfile_destroy (&jf);
}

/* Every error class, with the exact message and line. */
static void
test_errors (void)
{
    /* Structure. */
    EXPECT_ERR ("", "t.fio: no job sections (a plan needs at least one [job])");
    EXPECT_ERR ("[job]\nbs=4k\nfilename=/dev/sd\xff\n",
                "t.fio:3: not valid UTF-8 text (byte 29 of the file)");
    EXPECT_ERR ("[job]\nfilename=caf\xc3\n", "t.fio:2: not valid UTF-8 text (byte 19 of the file)");
    EXPECT_ERR ("; nothing\n\n# at all\n",
                "t.fio: no job sections (a plan needs at least one [job])");
    EXPECT_ERR ("[global]\nbs=4k\n[global]\n",
                "t.fio: no job sections (a plan needs at least one [job])");
    EXPECT_ERR ("\nbs=4k\n[job]\n", "t.fio:2: option 'bs' outside of a section");
    EXPECT_ERR ("time_based\n[job]\n", "t.fio:1: option 'time_based' outside of a section");
    EXPECT_ERR ("[job]\n[]\n", "t.fio:2: empty section name");
    EXPECT_ERR ("[ \t ]\n", "t.fio:1: empty section name");
    EXPECT_ERR ("[job\n", "t.fio:1: section header '[job' does not end with ']'");
    EXPECT_ERR ("[job] x\n", "t.fio:1: section header '[job] x' does not end with ']'");
    EXPECT_ERR ("[a]b]\n",
                "t.fio:1: section name 'a]b' contains a control character or a bracket");
    EXPECT_ERR ("[a\x01]\n",
                "t.fio:1: section name 'a\x01' contains a control character or a bracket");
    EXPECT_ERR ("[global-defaults]\n",
                "t.fio:1: fio would treat [global-defaults] as a [global] section "
                "(every name starting with 'global' is); rename it");
    EXPECT_ERR ("[ global]\nbs=4k\n[job]\n", "t.fio:1: fio would treat this as a job "
                "named ' global', not as [global]; remove the blanks");
    EXPECT_ERR ("[global-defaults ]\n",
                "t.fio:1: fio would treat [global-defaults] as a [global] section "
                "(every name starting with 'global' is); rename it");
    EXPECT_ERR ("[0123456789012345678901234567890123456789012345678901234567890123]\n",
                "t.fio:1: section name '01234567890123456789...' is 64 characters long "
                "(the limit is 63)");
    EXPECT_ERR ("\xEF\xBB\xBF[job]\n", "t.fio:1: file starts with a UTF-8 byte order mark "
                "(fio rejects it too); save it without one");

    /* End-of-job checks point at the option to fix. */
    EXPECT_ERR ("[job]\ntime_based\n", "t.fio:2: time_based needs runtime= (job 'job' has none)");
    EXPECT_ERR ("[job]\nruntime=0\ntime_based=1\n",
                "t.fio:3: time_based needs runtime= (job 'job' has none)");
    EXPECT_ERR ("[global]\ntime_based\n[job]\nruntime=10\n[last]\nruntime=0\n",
                "t.fio:2: time_based needs runtime= (job 'last' has none)");
    EXPECT_ERR ("[job]\ndirect=1\nbs=1000\n", "t.fio:3: bs=1000 is not a multiple of 512, "
                "which direct=1 (line 2) needs (job 'job')");
    EXPECT_ERR ("[job]\nbs=4097\nrw=read\nbuffered=0\n", "t.fio:2: bs=4097 is not a multiple "
                "of 512, which direct=1 (line 4) needs (job 'job')");
}

static void
test_api_edges (void)
{
    /* No error buffer, or a tiny one, is fine. */
    CHECK (jobfile_parse ("t.fio", "bs=4k\n", NULL, 0) == NULL);
    char err[10];
    memset (err, 'x', sizeof err);
    CHECK (jobfile_parse ("t.fio", "bs=4k\n", err, 1) == NULL);
    CHECK (err[0] == '\0' && err[1] == 'x');
    CHECK (jobfile_parse ("t.fio", "bs=4k\n", err, sizeof err) == NULL);
    CHECK (strcmp (err, "t.fio:1: ") == 0);
    CHECK (jobfile_load ("/nonexistent/x.fio", NULL, 0) == NULL);
    char msg[64];
    CHECK (jobfile_load (NULL, msg, sizeof msg) == NULL);
    CHECK (strcmp (msg, "(null): no job file path") == 0);
    /* Trailing blanks are fine: fio also reads "[global ]" as global. */
    jobfile_t *g = jobfile_parse ("t.fio", "[global ]\niodepth=2\n[job]\n", msg, sizeof msg);
    CHECK (g && g->nsteps == 1 && g->steps[0].iodepth == 2);
    jobfile_destroy (&g);

    char big[256];
    CHECK (jobfile_parse ("t.fio", NULL, big, sizeof big) == NULL);
    CHECK (strcmp (big, "t.fio: no job file text") == 0);
    CHECK (jobfile_parse (NULL, "", big, sizeof big) == NULL);
    CHECK (strcmp (big, "(job file): no job sections (a plan needs at least one [job])") == 0);

    /* Success clears the error buffer. */
    strcpy (big, "stale");
    jobfile_t *jf = jobfile_parse ("t.fio", "[job]\n", big, sizeof big);
    CHECK (jf && big[0] == '\0');
    jobfile_destroy (&jf);
    jobfile_destroy (&jf);
    jobfile_destroy (NULL);
}

static void
test_advanced_fixture (void)
{
    char path[1024], err[512];
    jobfile_t *jf = jobfile_load (fx_path (path, sizeof path, "advanced.fio"), err, sizeof err);
    CHECK_MSG (jf, "%s", err);
    if (!jf)
        return;
    CHECK (jf->nsteps == 2);
    if (jf->nsteps != 2) {
        jobfile_destroy (&jf);
        return;
    }
    for (int i = 0; i < 2; i++) {
        /* Inherited from [global]. */
        const job_t *j = &jf->steps[i];
        CHECK (strcmp (j->ioengine, "io_uring") == 0);
        CHECK (j->direct && j->time_based && j->group_reporting);
        CHECK (j->runtime_ns == 600 * NS_PER_S);
        CHECK (j->iodepth == 32);
        CHECK (j->iodepth_batch_submit == 8 && j->iodepth_batch_complete_min == 4);
        CHECK (!j->randrepeat && j->randseed_set && j->randseed == 1234);
        CHECK (j->npercentiles == 4);
        CHECK (j->percentile_list[0] == 50 && j->percentile_list[1] == 99);
        CHECK (j->percentile_list[2] == 99.9 && j->percentile_list[3] == 99.99);
        CHECK (j->percentile_list[4] == 0);
        CHECK (strcmp (j->cpus_allowed, "0-3,8") == 0);
    }
    const job_t *a = &jf->steps[0], *b = &jf->steps[1];
    static const uint32_t reads[][2] = { { 4096, 50 }, { 8192, 25 }, { 65536, 25 } };
    static const uint32_t writes[][2] = { { 16384, 100 } };
    CHECK (strcmp (a->name, "oltp") == 0 && a->line == 19);
    CHECK (a->rw == JOB_RW_RANDRW && a->rwmixread == 70);
    CHECK (BS_IS (a, 4096));
    CHECK (fx_split_is (a, 0, 3, reads));
    CHECK (fx_split_is (a, 1, 1, writes));
    CHECK (a->bsrange_min[0] == 0 && a->bsrange_max[1] == 0);
    CHECK (a->rate_iops[0] == 5000 && a->rate_iops[1] == 2000);
    CHECK (a->thinktime_ns == 250 * 1000);
    CHECK (a->dist.kind == JOB_DIST_ZIPF && a->dist.param == 1.2);
    CHECK (a->norandommap && !a->new_group);
    CHECK (a->ss == JOB_SS_NONE && a->ss_dur_ns == 0 && a->startdelay_ns == 0);
    CHECK (a->buffer_compress_percentage == 0 && !a->zero_buffers);

    CHECK (strcmp (b->name, "precondition") == 0 && b->line == 29);
    CHECK (b->new_group && b->rw == JOB_RW_RANDWRITE);
    CHECK (BS_IS (b, 131072));
    CHECK (b->bsrange_min[0] == 4096 && b->bsrange_max[0] == 1048576);
    CHECK (b->bsrange_min[1] == 4096 && b->bsrange_max[1] == 1048576);
    CHECK (b->nbssplit[0] == 0 && b->nbssplit[1] == 0);
    CHECK (b->rate_iops[0] == 0 && b->rate_iops[1] == 0 && b->thinktime_ns == 0);
    CHECK (b->dist.kind == JOB_DIST_RANDOM && !b->norandommap);
    CHECK (b->startdelay_ns == 5 * NS_PER_S);
    CHECK (b->ss == JOB_SS_IOPS_SLOPE && b->ss_pct && fx_near (b->ss_limit, 0.001));
    CHECK (b->ss_dur_ns == 60 * NS_PER_S && b->ss_ramp_ns == 10 * NS_PER_S);
    CHECK (b->buffer_compress_percentage == 50 && !b->zero_buffers);
    jobfile_destroy (&jf);
}

static void
test_batch (void)
{
    job_t j;
    if (CHECK_OK (fx_one_job ("[job]\niodepth=16\niodepth_batch_submit=8\n"
                             "iodepth_batch_complete_min=4\n", &j)))
        CHECK (j.iodepth_batch_submit == 8 && j.iodepth_batch_complete_min == 4);
    if (CHECK_OK (fx_one_job ("[job]\niodepth=16\niodepth_batch=16\n"
                             "iodepth_batch_complete=0\n", &j)))
        /* fio's 0 (poll) is taken as 1, here and nowhere else. */
        CHECK (j.iodepth_batch_submit == 16 && j.iodepth_batch_complete_min == 1);
    /* HOWTO: "If it is set to 0 the iodepth value will be used". */
    if (CHECK_OK (fx_one_job ("[job]\niodepth_batch_submit=0\niodepth=32\n", &j)))
        CHECK (j.iodepth_batch_submit == 32);
    jobfile_t *jf = fx_parse ("[global]\niodepth_batch=0\n[a]\niodepth=8\n[b]\n");
    CHECK (jf && jf->nsteps == 2);
    if (jf && jf->nsteps == 2) {
        CHECK (jf->steps[0].iodepth_batch_submit == 8);
        CHECK (jf->steps[1].iodepth_batch_submit == 1);
    }
    jobfile_destroy (&jf);
    /* iodepth may come after the batch size, or from [global]. */
    if (CHECK_OK (fx_one_job ("[global]\niodepth=64\n[job]\niodepth_batch=64\n"
                             "iodepth_batch_complete_min=64\n", &j)))
        CHECK (j.iodepth_batch_submit == 64 && j.iodepth_batch_complete_min == 64);

    EXPECT_ERR ("[job]\niodepth=32\niodepth_batch_submit=64\n",
                "t.fio:3: iodepth_batch_submit=64 is larger than iodepth=32 (job 'job')");
    EXPECT_ERR ("[job]\niodepth_batch=2\n",
                "t.fio:2: iodepth_batch=2 is larger than iodepth=1 (job 'job')");
    EXPECT_ERR ("[job]\niodepth_batch_complete=2\n",
                "t.fio:2: iodepth_batch_complete=2 is larger than iodepth=1 (job 'job')");
    EXPECT_ERR ("[job]\niodepth=8\niodepth_batch_complete_min=9\n",
                "t.fio:3: iodepth_batch_complete_min=9 is larger than iodepth=8 (job 'job')");
    EXPECT_ERR ("[global]\niodepth_batch=16\n[a]\niodepth=16\n[b]\n",
                "t.fio:2: iodepth_batch=16 is larger than iodepth=1 (job 'b')");
    EXPECT_ERR ("[job]\niodepth_batch_submit=70000\n",
                "t.fio:2: iodepth_batch_submit=70000 is out of range (allowed: 0..65536)");
    EXPECT_ERR ("[job]\niodepth_batch_complete_min=-1\n",
                "t.fio:2: iodepth_batch_complete_min='-1' is not a number (allowed: 0..65536)");
}

/* With direct=1, every block size a job can issue must be a multiple of
   512: both directions of bs, both bounds of bsrange, all bssplit sizes. */
static void
test_direct_alignment (void)
{
    job_t j;
    if (CHECK_OK (fx_one_job ("[job]\ndirect=1\nbs=4k,8k\nbsrange=512-64k\n"
                             "bssplit=512/10:4k/90,1m\n", &j)))
        CHECK (j.direct && j.bs[1] == 8192 && j.nbssplit[1] == 1);
    /* Buffered I/O takes any size. */
    if (CHECK_OK (fx_one_job ("[job]\nbs=1000,1001\nbsrange=1000-5000\nbssplit=1000/100\n", &j)))
        CHECK (!j.direct && j.bs[0] == 1000 && j.bsrange_max[0] == 5000);

    EXPECT_ERR ("[job]\nbs=4k,1000\ndirect=1\n", "t.fio:2: bs=1000 (writes) is not a "
                "multiple of 512, which direct=1 (line 3) needs (job 'job')");
    EXPECT_ERR ("[job]\nbs=1000,4k\ndirect=1\n", "t.fio:2: bs=1000 (reads) is not a "
                "multiple of 512, which direct=1 (line 3) needs (job 'job')");
    EXPECT_ERR ("[global]\nbs=4k\ndirect=1\n[job]\nbs=,1000\n", "t.fio:5: bs=1000 (writes) "
                "is not a multiple of 512, which direct=1 (line 3) needs (job 'job')");
    EXPECT_ERR ("[global]\nbs=1000\n[job]\nbs=,4k\nbuffered=0\n", "t.fio:2: bs=1000 (reads) "
                "is not a multiple of 512, which direct=1 (line 5) needs (job 'job')");
    EXPECT_ERR ("[job]\ndirect=1\nbsrange=1k-5000\n", "t.fio:3: bsrange bound 5000 is not "
                "a multiple of 512, which direct=1 (line 2) needs (job 'job')");
    EXPECT_ERR ("[job]\ndirect=1\nbsrange=1000-4k\n", "t.fio:3: bsrange bound 1000 is not "
                "a multiple of 512, which direct=1 (line 2) needs (job 'job')");
    EXPECT_ERR ("[job]\ndirect=1\nbsrange=1k-4k,1000-8k\n", "t.fio:3: bsrange bound 1000 "
                "(writes) is not a multiple of 512, which direct=1 (line 2) needs (job 'job')");
    EXPECT_ERR ("[job]\ndirect=1\nbssplit=4k/50:1000/50\n", "t.fio:3: bssplit size 1000 is "
                "not a multiple of 512, which direct=1 (line 2) needs (job 'job')");
    EXPECT_ERR ("[job]\ndirect=1\nbssplit=4k/100,4k/50:1000/50\n", "t.fio:3: bssplit size "
                "1000 (writes) is not a multiple of 512, which direct=1 (line 2) needs (job 'job')");
    /* The check runs per job, after [global] and the job's own lines. */
    EXPECT_ERR ("[global]\nbsrange=1000-2000\n[ok]\n[bad]\ndirect=1\n", "t.fio:2: bsrange "
                "bound 1000 is not a multiple of 512, which direct=1 (line 5) needs (job 'bad')");
}

static void
test_group (void)
{
    int first[JOB_MAX_STEPS + 1];
    /* No stonewall: all jobs in one step. */
    jobfile_t *jf = fx_parse ("[a]\nsize=1m\n[b]\nsize=1m\n[c]\nsize=1m\n");
    CHECK (jf && jobfile_group (jf, first) == 1 && first[0] == 0 && first[1] == 3);
    jobfile_destroy (&jf);
    /* stonewall on b: a | b c. */
    jf = fx_parse ("[a]\nsize=1m\n[b]\nstonewall\nsize=1m\n[c]\nsize=1m\n");
    CHECK (jf && jobfile_group (jf, first) == 2 && first[1] == 1 && first[2] == 3);
    jobfile_destroy (&jf);
    /* stonewall in [global]: one step per job. */
    jf = fx_parse ("[global]\nstonewall\nsize=1m\n[a]\n[b]\n[c]\n");
    CHECK (jf && jobfile_group (jf, first) == 3 && first[3] == 3);
    jobfile_destroy (&jf);
    /* A sweep's steps are steps of their own, and so is the job after it. */
    jf = fx_parse ("[p]\nsize=1m\n[q]\nsize=1m\niodepth=1,2\n[r]\nsize=1m\n[s]\nsize=1m\n");
    int n = jf ? jobfile_group (jf, first) : -1;
    CHECK_MSG (n == 4 && first[0] == 0 && first[1] == 1 && first[2] == 2 && first[3] == 3
               && first[4] == 5, "sweep grouping: %d steps", n);
    jobfile_destroy (&jf);
}

int
main (int argc, char **argv)
{
    test_group ();
    if (fx_dir_arg (argc, argv))
        return 2;
    test_summary ();
    test_qualification ();
    test_fixture_errors ();
    test_load_errors ();
    test_globals ();
    test_crlf_and_comments ();
    test_verify_options ();
    test_exitall ();
    test_errors ();
    test_api_edges ();
    test_advanced_fixture ();
    test_batch ();
    test_direct_alignment ();
    {
        /* A plan sent to the controller is held to jobfile_load's size. */
        size_t n = (1u << 20) + 2;
        char *huge = malloc (n);
        memset (huge, ';', n - 1);
        huge[n - 1] = '\0';
        char err[256];
        CHECK (huge && !jobfile_parse ("t.fio", huge, err, sizeof err));
        CHECK_MSG (strcmp (err, "t.fio: 1048577 bytes (the limit is 1048576)") == 0, "%s", err);
        free (huge);
    }
    /* Found by the fuzzer: plans the parser took but no agent would run. */
    EXPECT_ERR ("[job]\nfilename=a\tb\n", "t.fio:2: filename holds control character 0x09 at byte 2");
    EXPECT_ERR ("[job]\nfilename=::\n", "t.fio:2: filename=:: names no file");
    {
        static char big[JOB_MAX_LINE + 64];
        memset (big, 'x', sizeof big - 1);
        memcpy (big, "[job]\n; ", 8);
        big[sizeof big - 1] = '\0';
        char err[256];
        jobfile_t *jl = jobfile_parse ("t.fio", big, err, sizeof err);
        CHECK (!jl);
        CHECK_MSG (strstr (err, "t.fio:2: line of") && strstr (err, "(the limit is 8192)"), "%s", err);
        jobfile_destroy (&jl);
    }
    return TEST_DONE ();
}
