/*  test_jobfile.c: unit tests for the fio job file parser.

    Usage: test_jobfile FIXTURES_DIR   (tests/fixtures/jobs)

    The fixtures are the plans users will actually write (summary.fio,
    qualification.fio) and one broken file per error class; messages are
    compared exactly, because "FILE:LINE: what" is the user interface.
*/
#include "jobfile.h"
#include "jobspec.h"
#include "testutil.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NS_PER_S 1000000000ull

/* Both directions of a job have block size n. */
#define BS_IS(j, n) ((j)->bs[0] == (n) && (j)->bs[1] == (n))

/* The rw modes the parser names in its errors. */
#define RW_ALL "(supported: read, write, randread, randwrite, rw, readwrite, randrw, trim, " \
               "randtrim, trimwrite, randtrimwrite"

static const char *s_dir;

/* Fills buf with "DIR/file".  Can't fail (truncates). */
static const char *
s_path (char *buf, size_t size, const char *file)
{
    snprintf (buf, size, "%s/%s", s_dir, file);
    return buf;
}

/* Parses text as "t.fio"; on failure prints the error.  Returns the
   jobfile or NULL. */
static jobfile_t *
s_parse (const char *text)
{
    char err[512];
    jobfile_t *jf = jobfile_parse ("t.fio", text, err, sizeof err);
    if (!jf)
        fprintf (stderr, "  parse error: %s\n", err);
    return jf;
}

/* Parses text as "t.fio" expecting failure; leaves the message in err.
   Returns true if the parse failed. */
static bool
s_parse_fails (const char *text, char *err, size_t errlen)
{
    jobfile_t *jf = jobfile_parse ("t.fio", text, err, errlen);
    bool failed = jf == NULL;
    jobfile_destroy (&jf);
    return failed;
}

/* Counts one check of ok (like CHECK) and returns it, for "if
   (CHECK_OK (parsed)) CHECK (fields)". */
static bool
s_checked (bool ok, const char *expr, int line)
{
    test_checks++;
    if (!ok) {
        fprintf (stderr, "%s:%d: CHECK failed: %s\n", __FILE__, line, expr);
        test_failures++;
    }
    return ok;
}
#define CHECK_OK(cond) s_checked ((cond), #cond, __LINE__)

/* The parse of text must fail with exactly the message want. */
#define EXPECT_ERR(text, want) do {                                         \
    char e_[1024];                                                          \
    bool f_ = s_parse_fails ((text), e_, sizeof e_);                        \
    CHECK_MSG (f_, "parsed, but should fail with: %s", (want));             \
    CHECK_MSG (!f_ || strcmp (e_, (want)) == 0,                             \
               "\n     got: %s\n    want: %s", e_, (want));                 \
} while (0)


static void
test_summary (void)
{
    char path[1024], err[512];
    jobfile_t *jf = jobfile_load (s_path (path, sizeof path, "summary.fio"),
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
    jobfile_t *jf = jobfile_load (s_path (path, sizeof path, "qualification.fio"),
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
        s_path (path, sizeof path, cases[i].file);
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

    jf = jobfile_load (s_path (path, sizeof path, "no-such-plan.fio"), err, sizeof err);
    snprintf (want, sizeof want, "cannot read %s: No such file or directory", path);
    CHECK (jf == NULL);
    CHECK_MSG (strcmp (err, want) == 0, "got '%s'", err);

    jf = jobfile_load (s_dir, err, sizeof err);
    snprintf (want, sizeof want, "cannot read %s: Is a directory", s_dir);
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
    close (fd);
    unlink (tmp);
    free (big);
}

static void
test_defaults (void)
{
    jobfile_t *jf = s_parse ("[only]\n");
    CHECK (jf && jf->nsteps == 1);
    if (!jf)
        return;
    const job_t *j = &jf->steps[0];
    CHECK (strcmp (j->name, "only") == 0);
    CHECK (j->line == 1);
    CHECK (strcmp (j->ioengine, "psync") == 0);     /* fio's default engine */
    CHECK (!j->direct);
    CHECK (j->rw == JOB_RW_READ);
    CHECK (j->rwmixread == 50);
    CHECK (BS_IS (j, 4096));
    CHECK (j->iodepth == 1);
    CHECK (j->numjobs == 1);
    CHECK (j->size == 0 && j->size_pct == 0 && j->offset == 0 && j->offset_pct == 0);
    CHECK (j->filename[0] == '\0');
    CHECK (j->runtime_ns == 0 && j->ramp_time_ns == 0);
    CHECK (!j->time_based && !j->group_reporting && !j->stonewall);
    /* The options added with per-direction block sizes. */
    for (int d = 0; d < 2; d++) {
        CHECK (j->bsrange_min[d] == 0 && j->bsrange_max[d] == 0);
        CHECK (j->nbssplit[d] == 0);
        CHECK (j->rate_iops[d] == 0);
    }
    CHECK (j->iodepth_batch_submit == 1 && j->iodepth_batch_complete_min == 1);
    CHECK (j->startdelay_ns == 0 && j->thinktime_ns == 0);
    CHECK (j->randrepeat && !j->randseed_set && j->randseed == 0);
    CHECK (!j->norandommap);
    CHECK (j->dist.kind == JOB_DIST_RANDOM && j->dist.param == 0);
    CHECK (j->npercentiles == 0);
    CHECK (j->cpus_allowed[0] == '\0');
    CHECK (!j->new_group);
    CHECK (j->ss == JOB_SS_NONE && j->ss_limit == 0 && !j->ss_pct);
    CHECK (j->ss_dur_ns == 0 && j->ss_ramp_ns == 0);
    CHECK (j->buffer_compress_percentage == 0 && !j->zero_buffers);
    jobfile_destroy (&jf);
}

/* A [global] applies to the jobs below it only; a second one builds on
   the first; a job's own options do not leak into the next job. */
static void
test_globals (void)
{
    jobfile_t *jf = s_parse (
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
    jf = s_parse ("[first]\n[global]\niodepth=8\n[second]\n");
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
    jobfile_t *jf = s_parse (
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
    jf = s_parse (
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

/* fio's aliases (the .alias of its option table) mean their option. */
static void
test_aliases (void)
{
    jobfile_t *jf = s_parse ("[a]\nfileoffset=8k\ntimeout=7\nallrandrepeat=0\nsize=1m\n"
                             "filename=x\n"
                             "[b]\noffset=8k\nruntime=7\nrandrepeat=0\nsize=1m\nfilename=x\n");
    CHECK (jf && jf->nsteps == 2);
    if (jf && jf->nsteps == 2) {
        const job_t *a = &jf->steps[0], *b = &jf->steps[1];
        CHECK (a->offset == 8192 && a->offset == b->offset);
        CHECK (a->runtime_ns == 7 * 1000000000ull && a->runtime_ns == b->runtime_ns);
        CHECK (!a->randrepeat && a->randrepeat == b->randrepeat);
    }
    jobfile_destroy (&jf);
}

/* Without filename= each job copy gets files of its own, as fio names
   them ($jobname.$jobnum.$filenum), in directory= when given; a sweep's
   steps share their section's. */
static void
test_own_files (void)
{
    jobfile_t *jf = s_parse ("[w]\nnumjobs=3\nsize=1m\n"
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
    jf = s_parse ("[w]\nnumjobs=256\nsize=1m\n");
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

/* Options of fio's that iofleet now runs as fio does (the I/O itself is
   checked against fio in tests/conformance), and the ones that change no
   I/O. */
static void
test_amount_options (void)
{
    jobfile_t *jf = s_parse ("[global]\nname=ignored\ndescription=qualify r12\nthread\nthreads=1\n"
                             "log_avg_msec=0\n"
                             "[a]\nfilename=x\nsize=1m\nio_size=3m\nnumber_ios=10\n"
                             "offset_increment=2m\nnumjobs=2\n"
                             "[b]\nfilename=x\nsize=1m\nloops=4\nio_limit=1k\nio_size=0x800\n"
                             "loops=1\n");
    CHECK (jf && jf->nsteps == 2);
    if (jf && jf->nsteps == 2) {
        const job_t *a = &jf->steps[0], *b = &jf->steps[1];
        /* fio: a section names its job whatever [global]'s name= says. */
        CHECK (strcmp (a->name, "a") == 0 && strcmp (b->name, "b") == 0);
        CHECK (a->io_size == 3u << 20 && a->number_ios == 10 && a->loops == 1);
        CHECK (a->offset_increment == 2u << 20);
        CHECK (b->io_size == 2048 && b->loops == 1 && b->number_ios == 0);
        static jobspec_t js;
        jobspec_from_job (&js, a, NS_PER_S);
        CHECK (js.spec.io_size == 3u << 20 && js.spec.number_ios == 10 && js.spec.loops == 1
               && js.spec.offset_increment == 2u << 20);
    }
    jobfile_destroy (&jf);
    EXPECT_ERR ("[a]\nfilename=x\nlog_avg_msec=500\n",
                "t.fio:3: log_avg_msec=500: averaged latency logs are not supported by iofleet "
                "yet (0, fio's default, logs every I/O)");
    EXPECT_ERR ("[a]\nfilename=x\nloops=0\n",
                "t.fio:3: loops=0 is out of range (allowed: 1..1000000)");
    EXPECT_ERR ("[a]\nfilename=x\nio_size=10%\n",
                "t.fio:3: io_size=10%: a percentage is not supported by iofleet yet; give bytes");
    EXPECT_ERR ("[a]\nfilename=x\noffset_increment=5%\n",
                "t.fio:3: offset_increment=5%: a percentage is not supported by iofleet yet; "
                "give bytes");
    EXPECT_ERR ("[global]\nloops=2\n[a]\nfilename=x\nio_size=1m\n",
                "t.fio:2: loops=2 with io_size=: fio's result for the two together matches "
                "neither (job 'a'); use one of them");
    jf = s_parse ("[a]\nfilename=x\nrw=randread\nnorandommap\nrandom_generator=lfsr\n"
                  "[b]\nfilename=x\nrw=randread\nnorandommap\nrandom_generator=tausworthe64\n");
    CHECK (jf && jf->nsteps == 2);
    if (jf && jf->nsteps == 2) {
        CHECK (jf->steps[0].lfsr && !jf->steps[0].norandommap);
        CHECK (!jf->steps[1].lfsr && jf->steps[1].norandommap);
    }
    jobfile_destroy (&jf);
    EXPECT_ERR ("[a]\nfilename=x\nrandom_generator=mt19937\n",
                "t.fio:3: random_generator=mt19937 is not an fio random generator (fio's: "
                "tausworthe, lfsr, tausworthe64)");
    jf = s_parse ("[a]\nfilename=x\nrate=1m\n[b]\nfilename=x\nrate=,500k\nrate_iops=10\n");
    CHECK (jf && jf->nsteps == 2);
    if (jf && jf->nsteps == 2) {
        CHECK (jf->steps[0].rate[0] == 1u << 20 && jf->steps[0].rate[1] == 1u << 20);
        CHECK (jf->steps[1].rate[0] == 0 && jf->steps[1].rate[1] == 500u << 10
               && jf->steps[1].rate_iops[0] == 10);
        static jobspec_t js;
        jobspec_from_job (&js, &jf->steps[1], NS_PER_S);
        CHECK (js.spec.rate_bytes_read == 0 && js.spec.rate_bytes_write == 500u << 10);
    }
    jobfile_destroy (&jf);
    EXPECT_ERR ("[a]\nfilename=x\nrate=2t\n",
                "t.fio:3: rate=2t is out of range (allowed: up to 1t)");
    EXPECT_ERR ("[a]\nfilename=x\nrate=fast\n",
                "t.fio:3: rate='fast' is not a rate (bytes a second, like 500k or 100m)");
    jf = s_parse ("[a]\nfilename=x\nwrite_iolog=logs/a.iolog\n");
    CHECK (jf && strcmp (jf->steps[0].write_iolog, "logs/a.iolog") == 0);
    if (jf) {
        static jobspec_t js;
        jobspec_from_job (&js, &jf->steps[0], NS_PER_S);
        CHECK (strcmp (js.spec.write_iolog, "logs/a.iolog") == 0);
    }
    jobfile_destroy (&jf);
    EXPECT_ERR ("[a]\nfilename=x\nnumjobs=2\nwrite_iolog=a.log\n",
                "t.fio:4: write_iolog with numjobs=2 (job 'a'): fio's copies write the one log "
                "over each other; give each its own job section, or numjobs=1");
    EXPECT_ERR ("[a]\nfilename=x\nwrite_iolog=../a.log\n",
                "t.fio:3: write_iolog=../a.log: a relative path may not contain '..' (agents "
                "write it inside their --workdir); use an absolute path");
    jf = s_parse ("[a]\nfilename=x\nrw=write:8k\n[b]\nfilename=x\nrw=read:0\nbs=64k\n");
    CHECK (jf && jf->steps[0].rw == JOB_RW_WRITE && jf->steps[0].rw_skip == 8192
           && jf->steps[1].rw == JOB_RW_READ && jf->steps[1].rw_skip == 0);
    jobfile_destroy (&jf);
    EXPECT_ERR ("[a]\nfilename=x\nrw=rw:4k\n",
                "t.fio:3: rw=rw:4k: fio's ':N' offset modifier is not supported by iofleet yet "
                "on mixed sequential I/O (read:SIZE and write:SIZE are)");
    EXPECT_ERR ("[a]\nfilename=x\nrw=write:6k\n",
                "t.fio:3: rw=write:6144 (job 'a'): iofleet skips whole blocks of one size: give "
                "bs= alone (no bssplit, bsrange or per-direction sizes) and a skip that is a "
                "multiple of it");
    EXPECT_ERR ("[a]\nfilename=x\nrw=read:4k,write\n",
                "t.fio:3: rw=read:4k,write: fio's ':N' offset modifier is not supported by "
                "iofleet yet in a sweep");
    EXPECT_ERR ("[a]\nfilename=x\nthread=2\n",
                "t.fio:3: thread='2' is not a boolean (allowed: 0 or 1)");
}

/* verify and its family: what fio takes, and the jobs iofleet cannot
   read back as fio does, refused naming why. */
static void
test_verify_options (void)
{
    jobfile_t *jf = s_parse ("[global]\nfilename=x\nsize=1m\n"
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
    jf = s_parse ("[a]\nrw=write\nnumjobs=2\nverify=md5\nsize=1m\n"
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

/* Which release runs a job: the options of 0.3.0 are named, so a
   controller can leave an older agent out instead of letting it skip them. */
/* exitall is fio's run-wide flag: on one job, it is every job's. */
static void
test_exitall (void)
{
    jobfile_t *jf = s_parse ("[global]\nfilename=x\n[a]\n[b]\nexitall\n[c]\nstonewall\n");
    CHECK (jf && jf->nsteps == 3);
    if (jf && jf->nsteps == 3)
        CHECK (jf->steps[0].exitall && jf->steps[1].exitall && jf->steps[2].exitall);
    jobfile_destroy (&jf);
    jf = s_parse ("[a]\nfilename=x\n");
    CHECK (jf && !jf->steps[0].exitall);
    jobfile_destroy (&jf);
}

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
    jobfile_t *jf = s_parse ("[a]\nfilename=x\nrw=randread\n"
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

static void
test_options (void)
{
    jobfile_t *jf = s_parse (
        "[global]\n"
        "buffered=0\n"              /* = direct=1 */
        "[a]\n"
        "rw=randrw\n"
        "rwmixwrite=30\n"
        "size=10g\n"
        "offset=4k\n"
        "[b]\n"
        "buffered=1\n"
        "readwrite=rw\n"
        "rwmixread=10\n"
        "rwmixwrite=20\n"           /* the later one wins, like fio */
        "size=10g\n"
        "size=50%\n"                /* and replaces size=10g */
        "offset=25%\n"
        "blocksize=1k\n"
        "name=renamed\n"
        "wait_for_previous\n"
        "iodepth=0x20\n"
        "numjobs=1k\n"
        "ramp_time=500ms\n"
        "runtime=1h\n"
        "filename=/dev/sda:/dev/sdb\n"
        "[c]\n"
        "size=50%\n"
        "size=1g\n"
        "bs=4608\n"                 /* 9 * 512: fine with direct=1 */
        "ioengine=libaio\n"
        "group_reporting=0\n"
        "stonewall=1\n"
        "time_based=0\n");
    CHECK (jf && jf->nsteps == 3);
    if (jf && jf->nsteps == 3) {
        const job_t *a = &jf->steps[0], *b = &jf->steps[1], *c = &jf->steps[2];
        CHECK (a->direct && a->rw == JOB_RW_RANDRW && a->rwmixread == 70);
        CHECK (a->size == 10ull << 30 && a->size_pct == 0);
        CHECK (a->offset == 4096 && a->offset_pct == 0);
        CHECK (!b->direct && b->rw == JOB_RW_RW && b->rwmixread == 80);
        CHECK (b->size == 0 && b->size_pct == 50);
        CHECK (b->offset == 0 && b->offset_pct == 25);
        CHECK (BS_IS (b, 1024));
        CHECK (strcmp (b->name, "renamed") == 0 && b->line == 8);
        CHECK (b->stonewall);
        CHECK (b->iodepth == 32 && b->numjobs == 1024);
        CHECK (b->ramp_time_ns == 500000000ull && b->runtime_ns == 3600 * NS_PER_S);
        CHECK (strcmp (b->filename, "/dev/sda:/dev/sdb") == 0);
        CHECK (c->size == 1ull << 30 && c->size_pct == 0);
        CHECK (BS_IS (c, 4608) && c->direct);
        CHECK (!c->group_reporting && c->stonewall && !c->time_based);
        CHECK (strcmp (job_rw_name (c->rw), "read") == 0);
    }
    jobfile_destroy (&jf);

    /* The limits themselves are accepted. */
    char text[4096];
    char name63[JOB_NAME_MAX], fname[JOB_FILENAME_MAX];
    memset (name63, 'n', JOB_NAME_MAX - 1);
    name63[JOB_NAME_MAX - 1] = '\0';
    memset (fname, 'f', JOB_FILENAME_MAX - 1);
    fname[JOB_FILENAME_MAX - 1] = '\0';
    snprintf (text, sizeof text,
              "[%s]\nbs=64m\niodepth=65536\nnumjobs=1024\nrwmixread=0\n"
              "runtime=7d\nramp_time=3600s\nsize=100%%\noffset=99%%\n"
              "filename=%s\n", name63, fname);
    jf = s_parse (text);
    CHECK (jf && jf->nsteps == 1);
    if (jf && jf->nsteps == 1) {
        const job_t *j = &jf->steps[0];
        CHECK (strcmp (j->name, name63) == 0);
        CHECK (strcmp (j->filename, fname) == 0);
        CHECK (BS_IS (j, JOB_MAX_BS) && j->iodepth == JOB_MAX_IODEPTH);
        CHECK (j->numjobs == JOB_MAX_NUMJOBS && j->rwmixread == 0);
        CHECK (j->runtime_ns == (uint64_t) JOB_MAX_RUNTIME_S * NS_PER_S);
        CHECK (j->ramp_time_ns == (uint64_t) JOB_MAX_DELAY_S * NS_PER_S);
        CHECK (j->size_pct == 100 && j->offset_pct == 99);
    }
    jobfile_destroy (&jf);

    /* JOB_MAX_STEPS jobs are fine, one more is not. */
    size_t cap = 16 * (JOB_MAX_STEPS + 2);
    char *many = malloc (cap);
    size_t len = 0;
    for (int i = 0; i < JOB_MAX_STEPS; i++)
        len += (size_t) snprintf (many + len, cap - len, "[j%d]\n", i);
    jf = s_parse (many);
    CHECK (jf && jf->nsteps == JOB_MAX_STEPS);
    if (jf && jf->nsteps == JOB_MAX_STEPS)
        CHECK (strcmp (jf->steps[JOB_MAX_STEPS - 1].name, "j255") == 0
            && jf->steps[JOB_MAX_STEPS - 1].line == JOB_MAX_STEPS);
    jobfile_destroy (&jf);
    snprintf (many + len, cap - len, "bs=8k\n[one-too-many]\n");
    EXPECT_ERR (many, "t.fio:258: more than 256 job sections (the limit is 256)");
    free (many);
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

    /* Keys. */
    EXPECT_ERR ("[job]\nbogus=1\n", "t.fio:2: unknown option 'bogus'");
    EXPECT_ERR ("[job]\nrw=read\nbogus\n", "t.fio:3: unknown option 'bogus'");
    EXPECT_ERR ("[job]\ntime based\n", "t.fio:2: unknown option 'time based'");
    EXPECT_ERR ("[job]\nBS=4k\n",
                "t.fio:2: unknown option 'BS' (fio option names are case-sensitive: 'bs')");
    EXPECT_ERR ("[job]\nNoRandomMap\n", "t.fio:2: unknown option 'NoRandomMap' "
                "(fio option names are case-sensitive: 'norandommap')");
    EXPECT_ERR ("[job]\n=4k\n", "t.fio:2: '=4k' has no option name");
    EXPECT_ERR ("[job]\nwait_for=a\n",
                "t.fio:2: fio option 'wait_for' is not supported by iofleet yet");
    EXPECT_ERR ("[global]\nprio=1\n[job]\n",
                "t.fio:2: fio option 'prio' is not supported by iofleet yet");
    EXPECT_ERR ("[job]\niodepth_batch_complete_max=8\n",
                "t.fio:2: fio option 'iodepth_batch_complete_max' is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nthinktime_spin=10\n",
                "t.fio:2: fio option 'thinktime_spin' is not supported by iofleet yet");
    EXPECT_ERR ("[job]\ncpus_allowed_policy=split\n",
                "t.fio:2: fio option 'cpus_allowed_policy' is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nrate_ignore_thinktime=1\n",
                "t.fio:2: fio option 'rate_ignore_thinktime' is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nStartDelay=1\n", "t.fio:2: unknown option 'StartDelay' "
                "(fio option names are case-sensitive: 'startdelay')");
    EXPECT_ERR ("[job]\nhugepage-size=2m\n",
                "t.fio:2: fio option 'hugepage-size' is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nzonemode=zbd\n",
                "t.fio:2: fio option 'zonemode' is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nverify_pattern=0xff\n",
                "t.fio:2: fio option 'verify_pattern' is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nallow_file_create=0\n",
                "t.fio:2: fio option 'allow_file_create' is not supported by iofleet yet");
    EXPECT_ERR ("[job]\ninclude common.fio\n",
                "t.fio:2: fio's 'include' directive is not supported by iofleet yet");

    /* Bare keys and empty values. */
    EXPECT_ERR ("[job]\niodepth\n", "t.fio:2: option 'iodepth' needs a value");
    EXPECT_ERR ("[job]\nfilename\n", "t.fio:2: option 'filename' needs a value");
    EXPECT_ERR ("[job]\ndirect\n", "t.fio:2: option 'direct' needs a value");
    EXPECT_ERR ("[job]\nbuffered\n", "t.fio:2: option 'buffered' needs a value");
    EXPECT_ERR ("[job]\nfilename=\n", "t.fio:2: option 'filename' needs a value");
    EXPECT_ERR ("[job]\ntime_based=\n", "t.fio:2: option 'time_based' needs a value");
    EXPECT_ERR ("[job]\nbs = ; 4k\n", "t.fio:2: option 'bs' needs a value");

    /* Values and ranges. */
    EXPECT_ERR ("[job]\niodepth=0\n", "t.fio:2: iodepth=0 is out of range (allowed: 1..65536)");
    EXPECT_ERR ("[job]\niodepth=70000\n",
                "t.fio:2: iodepth=70000 is out of range (allowed: 1..65536)");
    EXPECT_ERR ("[job]\niodepth=-1\n",
                "t.fio:2: iodepth='-1' is not a number (allowed: 1..65536)");
    EXPECT_ERR ("[job]\niodepth=99999999999999999999\n",
                "t.fio:2: iodepth=99999999999999999999 is out of range (allowed: 1..65536)");
    EXPECT_ERR ("[job]\nrwmixread=101\n",
                "t.fio:2: rwmixread=101 is out of range (allowed: 0..100)");
    EXPECT_ERR ("[job]\nrwmixwrite=101\n",
                "t.fio:2: rwmixwrite=101 is out of range (allowed: 0..100)");
    EXPECT_ERR ("[job]\nrwmixread=50%\n",
                "t.fio:2: rwmixread='50%' is not a number (allowed: 0..100)");
    EXPECT_ERR ("[job]\nnumjobs=0\n", "t.fio:2: numjobs=0 is out of range (allowed: 1..1024)");
    EXPECT_ERR ("[job]\nnumjobs=1025\n",
                "t.fio:2: numjobs=1025 is out of range (allowed: 1..1024)");
    EXPECT_ERR ("[job]\nbs=0\n", "t.fio:2: bs=0 is out of range (allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbs=65m\n", "t.fio:2: bs=65m is out of range (allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbs=4.5k\n",
                "t.fio:2: bs='4.5k' is not a size (like 4k or 128k; allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbs=4k:8k\n", "t.fio:2: bs=4k:8k: use ',' between the read and "
                "write values (fio would also split at ':' or '-'; bsrange= gives a range of sizes)");
    EXPECT_ERR ("[job]\nbs=4k-8k\n", "t.fio:2: bs=4k-8k: use ',' between the read and "
                "write values (fio would also split at ':' or '-'; bsrange= gives a range of sizes)");
    EXPECT_ERR ("[job]\nbs=-1\n",
                "t.fio:2: bs='-1' is not a size (like 4k or 128k; allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\ndirect=2\n", "t.fio:2: direct='2' is not a boolean (allowed: 0 or 1)");
    EXPECT_ERR ("[job]\ndirect=yes\n", "t.fio:2: direct='yes' is not a boolean (allowed: 0 or 1)");
    EXPECT_ERR ("[job]\ntime_based=true\n",
                "t.fio:2: time_based='true' is not a boolean (allowed: 0 or 1)");
    EXPECT_ERR ("[job]\nsize=0%\n", "t.fio:2: size=0% is out of range (allowed: 1%..100%)");
    EXPECT_ERR ("[job]\nsize=101%\n", "t.fio:2: size=101% is out of range (allowed: 1%..100%)");
    EXPECT_ERR ("[job]\nsize=99999999999999999999999%\n",
                "t.fio:2: size=99999999999999999999999% is out of range (allowed: 1%..100%)");
    EXPECT_ERR ("[job]\nsize=%\n", "t.fio:2: size='%' is not a percentage (allowed: 1%..100%)");
    EXPECT_ERR ("[job]\nsize=1.5%\n",
                "t.fio:2: size='1.5%' is not a percentage (allowed: 1%..100%)");
    EXPECT_ERR ("[job]\nsize=lots\n", "t.fio:2: size='lots' is not a size (like 10g or 512m) "
                "or a percentage (like 50%)");
    EXPECT_ERR ("[job]\nsize=16384p\n",
                "t.fio:2: size=16384p is out of range (allowed: below 16 EiB)");
    EXPECT_ERR ("[job]\noffset=100%\n", "t.fio:2: offset=100% is out of range (allowed: 0%..99%)");
    EXPECT_ERR ("[job]\nruntime=8d\n",
                "t.fio:2: runtime=8d is out of range (allowed: up to 604800s, 7 days)");
    EXPECT_ERR ("[job]\nramp_time=3601\n",
                "t.fio:2: ramp_time=3601 is out of range (allowed: up to 3600s, 1 hour)");
    EXPECT_ERR ("[job]\nruntime=soon\n",
                "t.fio:2: runtime='soon' is not a time (like 60, 30s, 500ms, 5m, 1h)");
    EXPECT_ERR ("[job]\nruntime=1.5s\n",
                "t.fio:2: runtime='1.5s' is not a time (like 60, 30s, 500ms, 5m, 1h)");
    EXPECT_ERR ("[job]\nname=\x7f\n",
                "t.fio:2: job name '\x7f' contains a control character or a bracket");
    EXPECT_ERR ("[global]\nname=\x7f\n[job]\n",
                "t.fio:2: job name '\x7f' contains a control character or a bracket");
    EXPECT_ERR ("[job]\nsize=${SIZE}\n",
                "t.fio:2: size=${SIZE}: fio's $ substitutions are not supported by iofleet yet");
    EXPECT_ERR ("[job]\nnumjobs=$ncpus\n",
                "t.fio:2: numjobs=$ncpus: fio's $ substitutions are not supported by iofleet yet");
    EXPECT_ERR ("[job]\nsize=(2*1g)\n", "t.fio:2: size=(2*1g): fio's arithmetic expressions "
                "are not supported by iofleet yet");
    {
        char text[JOB_FILENAME_MAX + 64];
        int n = snprintf (text, sizeof text, "[job]\nfilename=");
        memset (text + n, 'f', JOB_FILENAME_MAX);
        strcpy (text + n + JOB_FILENAME_MAX, "\n");
        EXPECT_ERR (text, "t.fio:2: filename is 1024 bytes long (the limit is 1023)");
    }

    /* Engines and patterns. */
    EXPECT_ERR ("[job]\nioengine=mmap\n", "t.fio:2: ioengine 'mmap' is not supported by "
                "iofleet yet (supported: " JOB_ENGINES ")");
    EXPECT_ERR ("[job]\nioengine=io_uring_cmd\n", "t.fio:2: ioengine 'io_uring_cmd' is not "
                "supported by iofleet yet (supported: " JOB_ENGINES ")");
    EXPECT_ERR ("[job]\nioengine=external:/opt/spdk_nvme\n", "t.fio:2: ioengine "
                "'external:/opt/spdk_nvme' is not supported by iofleet yet (supported: " JOB_ENGINES ")");
    EXPECT_ERR ("[job]\nioengine=aio\n", "t.fio:2: ioengine 'aio' is not an fio ioengine "
                "(supported: " JOB_ENGINES ")");
    EXPECT_ERR ("[job]\nioengine=LIBAIO\n", "t.fio:2: ioengine 'LIBAIO' is not an fio "
                "ioengine (supported: " JOB_ENGINES ")");
    EXPECT_ERR ("[job]\nioengine=io_uring \"x\"\n", "t.fio:2: ioengine 'io_uring \"x\"' is "
                "not an fio ioengine (supported: " JOB_ENGINES ")");
    EXPECT_ERR ("[job]\nrw=filestat\n", "t.fio:2: rw 'filestat' is not supported by iofleet "
                "yet " RW_ALL ")");
    EXPECT_ERR ("[job]\nrw=random\n", "t.fio:2: rw='random' is not an fio I/O pattern "
                RW_ALL ")");
    EXPECT_ERR ("[job]\nrw=randread:0\n", "t.fio:2: rw=randread:0: '0' after ':' is not a "
                "count of I/Os per random offset (allowed: 1..1000000)");
    EXPECT_ERR ("[job]\nrw=randtrim:4\n", "t.fio:2: rw=randtrim:4: fio's ':N' offset modifier "
                "is not supported by iofleet yet on trims");

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

    CHECK (strcmp (job_rw_name (JOB_RW_READ), "read") == 0);
    CHECK (strcmp (job_rw_name (JOB_RW_WRITE), "write") == 0);
    CHECK (strcmp (job_rw_name (JOB_RW_RANDREAD), "randread") == 0);
    CHECK (strcmp (job_rw_name (JOB_RW_RANDWRITE), "randwrite") == 0);
    CHECK (strcmp (job_rw_name (JOB_RW_RW), "rw") == 0);
    CHECK (strcmp (job_rw_name (JOB_RW_RANDRW), "randrw") == 0);
    CHECK (strcmp (job_rw_name ((job_rw_t) 42), "?") == 0);
}


/* Parses text expecting exactly one job; copies it to *out.  Returns true
   on success (prints the error otherwise). */
static bool
s_one_job (const char *text, job_t *out)
{
    jobfile_t *jf = s_parse (text);
    bool ok = jf && jf->nsteps == 1;
    if (ok)
        *out = jf->steps[0];
    else if (jf)
        fprintf (stderr, "  %d jobs, wanted 1\n", jf->nsteps);
    jobfile_destroy (&jf);
    return ok;
}

/* True if a and b are within 1e-12 of each other (decimal fractions such
   as 0.1/100 need not be the nearest double to 0.001). */
static bool
s_near (double a, double b)
{
    return fabs (a - b) < 1e-12;
}

/* The bssplit of direction d of job j is the n (size, percent) pairs in
   want, in file order. */
static bool
s_split_is (const job_t *j, int d, int n, const uint32_t want[][2])
{
    if (j->nbssplit[d] != n) {
        fprintf (stderr, "  bssplit[%d] has %d entries, want %d\n", d, j->nbssplit[d], n);
        return false;
    }
    for (int i = 0; i < n; i++) {
        if (j->bssplit[d][i].bs != want[i][0] || j->bssplit[d][i].pct != want[i][1]) {
            fprintf (stderr, "  bssplit[%d][%d] = %u/%u, want %u/%u\n", d, i,
                     j->bssplit[d][i].bs, j->bssplit[d][i].pct, want[i][0], want[i][1]);
            return false;
        }
    }
    return true;
}

static void
test_advanced_fixture (void)
{
    char path[1024], err[512];
    jobfile_t *jf = jobfile_load (s_path (path, sizeof path, "advanced.fio"), err, sizeof err);
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
    CHECK (s_split_is (a, 0, 3, reads));
    CHECK (s_split_is (a, 1, 1, writes));
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
    CHECK (b->ss == JOB_SS_IOPS_SLOPE && b->ss_pct && s_near (b->ss_limit, 0.001));
    CHECK (b->ss_dur_ns == 60 * NS_PER_S && b->ss_ramp_ns == 10 * NS_PER_S);
    CHECK (b->buffer_compress_percentage == 50 && !b->zero_buffers);
    jobfile_destroy (&jf);
}

/* bs, bsrange and rate_iops in fio's READS,WRITES form. */
static void
test_per_direction (void)
{
    job_t j;
    if (CHECK_OK (s_one_job ("[job]\nbs=4k,8k\n", &j)))
        CHECK (j.bs[0] == 4096 && j.bs[1] == 8192);
    if (CHECK_OK (s_one_job ("[job]\nblocksize=1k,2k\n", &j)))
        CHECK (j.bs[0] == 1024 && j.bs[1] == 2048);
    if (CHECK_OK (s_one_job ("[job]\nbs=64k\n", &j)))
        CHECK (BS_IS (&j, 65536));
    /* An empty part leaves that direction as it was; a trailing comma
       keeps the last value from spreading to the next direction. */
    if (CHECK_OK (s_one_job ("[job]\nbs=,8k\n", &j)))
        CHECK (j.bs[0] == 4096 && j.bs[1] == 8192);
    if (CHECK_OK (s_one_job ("[global]\nbs=16k\n[job]\nbs=,8k\n", &j)))
        CHECK (j.bs[0] == 16384 && j.bs[1] == 8192);
    if (CHECK_OK (s_one_job ("[global]\nbs=16k\n[job]\nbs=2k,\n", &j)))
        CHECK (j.bs[0] == 2048 && j.bs[1] == 16384);
    if (CHECK_OK (s_one_job ("[job]\nbs=8k,32k,\n", &j)))
        CHECK (j.bs[0] == 8192 && j.bs[1] == 32768);
    if (CHECK_OK (s_one_job ("[job]\nbs=,8k,\n", &j)))
        CHECK (j.bs[0] == 4096 && j.bs[1] == 8192);
    if (CHECK_OK (s_one_job ("[job]\nbs=4k,8k\nbs=2k\n", &j)))
        CHECK (BS_IS (&j, 2048));
    if (CHECK_OK (s_one_job ("[job]\nbs=0x200,64m\n", &j)))
        CHECK (j.bs[0] == 512 && j.bs[1] == JOB_MAX_BS);

    EXPECT_ERR ("[job]\nbs=,\n", "t.fio:2: bs=, gives no value for reads or writes");
    EXPECT_ERR ("[job]\nbs=,,\n", "t.fio:2: bs=,, gives no value for reads or writes");
    /* Three or more non-empty sizes are a sweep (test_sweeps); with two,
       a third part is fio's trim size. */
    EXPECT_ERR ("[job]\nbs=4k,,16k\n",
                "t.fio:2: bs=4k,,16k: a third value (for trims) is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nbs=4k,8k,,\n", "t.fio:2: bs=4k,8k,, has more than three "
                "comma-separated values (fio takes reads,writes,trims)");
    EXPECT_ERR ("[job]\nbs=4k,0\n",
                "t.fio:2: bs=4k,0: 0 is out of range (allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbs=65m,4k\n",
                "t.fio:2: bs=65m,4k: 65m is out of range (allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbs=4k,4q\n", "t.fio:2: bs=4k,4q: '4q' is not a size (like 4k or "
                "128k; allowed: 1 byte..64 MiB)");
    /* fio would read " 8k" as 8 bytes. */
    EXPECT_ERR ("[job]\nbs=4k, 8k\n", "t.fio:2: bs=4k, 8k: ' 8k' is not a size (like 4k or "
                "128k; allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nblocksize=4k,8k:16k\n", "t.fio:2: blocksize=4k,8k:16k: use ',' between "
                "the read and write values (fio would also split at ':' or '-'; bsrange= gives "
                "a range of sizes)");

    /* bsrange: MIN-MAX (or fio's MIN:MAX), bounds swapped like fio. */
    if (CHECK_OK (s_one_job ("[job]\nbsrange=1k-16k\n", &j))) {
        CHECK (j.bsrange_min[0] == 1024 && j.bsrange_max[0] == 16384);
        CHECK (j.bsrange_min[1] == 1024 && j.bsrange_max[1] == 16384);
        CHECK (BS_IS (&j, 4096));
    }
    if (CHECK_OK (s_one_job ("[job]\nbsrange=1k-4k,2k-8k\n", &j))) {
        CHECK (j.bsrange_min[0] == 1024 && j.bsrange_max[0] == 4096);
        CHECK (j.bsrange_min[1] == 2048 && j.bsrange_max[1] == 8192);
    }
    if (CHECK_OK (s_one_job ("[job]\nblocksize_range=16k-1k\n", &j)))
        CHECK (j.bsrange_min[1] == 1024 && j.bsrange_max[1] == 16384);
    if (CHECK_OK (s_one_job ("[job]\nbsrange=512:4k\n", &j)))
        CHECK (j.bsrange_min[0] == 512 && j.bsrange_max[0] == 4096);
    if (CHECK_OK (s_one_job ("[job]\nbsrange=4k-4k\n", &j)))
        CHECK (j.bsrange_min[0] == 4096 && j.bsrange_max[0] == 4096);
    if (CHECK_OK (s_one_job ("[global]\nbsrange=1k-2k\n[job]\nbsrange=,4k-8k\n", &j))) {
        CHECK (j.bsrange_min[0] == 1024 && j.bsrange_max[0] == 2048);
        CHECK (j.bsrange_min[1] == 4096 && j.bsrange_max[1] == 8192);
    }
    if (CHECK_OK (s_one_job ("[job]\nbsrange=1k-2k,\n", &j))) {
        CHECK (j.bsrange_min[0] == 1024 && j.bsrange_max[0] == 2048);
        CHECK (j.bsrange_min[1] == 0 && j.bsrange_max[1] == 0);
    }
    EXPECT_ERR ("[job]\nbsrange=4k\n",
                "t.fio:2: bsrange='4k' is not a range of sizes (like 1k-16k)");
    EXPECT_ERR ("[job]\nbsrange=1k-4k,8k\n",
                "t.fio:2: bsrange=1k-4k,8k: '8k' is not a range of sizes (like 1k-16k)");
    EXPECT_ERR ("[job]\nbsrange=0-4k\n",
                "t.fio:2: bsrange=0-4k: 0 is out of range (allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbsrange=1k-65m\n",
                "t.fio:2: bsrange=1k-65m: 65m is out of range (allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbsrange=1k-x\n", "t.fio:2: bsrange=1k-x: 'x' is not a size (like 4k "
                "or 128k; allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbsrange=1k-4k-8k\n", "t.fio:2: bsrange=1k-4k-8k: '4k-8k' is not a "
                "size (like 4k or 128k; allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbsrange=1k-2k,2k-4k,4k-8k\n", "t.fio:2: bsrange=1k-2k,2k-4k,4k-8k: a "
                "third value (for trims) is not supported by iofleet yet");

    /* rate_iops: 0 is unlimited. */
    if (CHECK_OK (s_one_job ("[job]\nrate_iops=500\n", &j)))
        CHECK (j.rate_iops[0] == 500 && j.rate_iops[1] == 500);
    if (CHECK_OK (s_one_job ("[job]\nrate_iops=500,200\n", &j)))
        CHECK (j.rate_iops[0] == 500 && j.rate_iops[1] == 200);
    if (CHECK_OK (s_one_job ("[job]\nrate_iops=,200\n", &j)))
        CHECK (j.rate_iops[0] == 0 && j.rate_iops[1] == 200);
    if (CHECK_OK (s_one_job ("[job]\nrate_iops=500,\n", &j)))
        CHECK (j.rate_iops[0] == 500 && j.rate_iops[1] == 0);
    if (CHECK_OK (s_one_job ("[job]\nrate_iops=1k,100000000\n", &j)))
        CHECK (j.rate_iops[0] == 1024 && j.rate_iops[1] == JOB_MAX_RATE_IOPS);
    if (CHECK_OK (s_one_job ("[global]\nrate_iops=100,300\n[job]\nrate_iops=,0\n", &j)))
        CHECK (j.rate_iops[0] == 100 && j.rate_iops[1] == 0);
    EXPECT_ERR ("[job]\nrate_iops=500:200\n", "t.fio:2: rate_iops=500:200: use ',' between "
                "the read and write values (fio would also split at ':' or '-')");
    EXPECT_ERR ("[job]\nrate_iops=500-200\n", "t.fio:2: rate_iops=500-200: use ',' between "
                "the read and write values (fio would also split at ':' or '-')");
    EXPECT_ERR ("[job]\nrate_iops=x\n",
                "t.fio:2: rate_iops='x' is not a number (allowed: 0..100000000)");
    EXPECT_ERR ("[job]\nrate_iops=1,100000001\n",
                "t.fio:2: rate_iops=1,100000001: 100000001 is out of range (allowed: 0..100000000)");
    EXPECT_ERR ("[job]\nrate_iops=1,2,3\n",
                "t.fio:2: rate_iops=1,2,3: a third value (for trims) is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nrate_iops=\n", "t.fio:2: option 'rate_iops' needs a value");
}

static void
test_bssplit (void)
{
    job_t j;
    static const uint32_t howto1[][2] = { { 4096, 10 }, { 65536, 50 }, { 32768, 40 } };
    if (CHECK_OK (s_one_job ("[job]\nbssplit=4k/10:64k/50:32k/40\n", &j))) {
        CHECK (s_split_is (&j, 0, 3, howto1));
        CHECK (s_split_is (&j, 1, 3, howto1));
        CHECK (BS_IS (&j, 4096));
    }
    /* HOWTO: "4k/50:1k/:32k/ would have 50% 4k ios, and 25% 1k and 32k". */
    static const uint32_t howto2[][2] = { { 4096, 50 }, { 1024, 25 }, { 32768, 25 } };
    if (CHECK_OK (s_one_job ("[job]\nbssplit=4k/50:1k/:32k/\n", &j)))
        CHECK (s_split_is (&j, 0, 3, howto2) && s_split_is (&j, 1, 3, howto2));
    /* No '/' at all is the same as an empty percentage. */
    if (CHECK_OK (s_one_job ("[job]\nbssplit=4k/50:1k:32k\n", &j)))
        CHECK (s_split_is (&j, 0, 3, howto2));
    /* fio's integer division leaves a percent over; it goes to the
       largest share (the last of equals), so the shares sum to 100. */
    static const uint32_t thirds[][2] = { { 4096, 33 }, { 8192, 33 }, { 16384, 34 } };
    if (CHECK_OK (s_one_job ("[job]\nbssplit=4k:8k:16k\n", &j)))
        CHECK (s_split_is (&j, 0, 3, thirds));
    static const uint32_t left[][2] = {
        { 4096, 52 }, { 8192, 16 }, { 16384, 16 }, { 32768, 16 },
    };
    if (CHECK_OK (s_one_job ("[job]\nbssplit=4k/50:8k:16k:32k\n", &j)))
        CHECK (s_split_is (&j, 0, 4, left));
    static const uint32_t one[][2] = { { 4096, 100 } };
    if (CHECK_OK (s_one_job ("[job]\nbssplit=4k\n", &j)))
        CHECK (s_split_is (&j, 0, 1, one) && s_split_is (&j, 1, 1, one));
    /* fio reads a 0 percentage as "not given". */
    static const uint32_t zero[][2] = { { 4096, 0 }, { 8192, 100 } };
    if (CHECK_OK (s_one_job ("[job]\nbssplit=4k/0:8k/100\n", &j)))
        CHECK (s_split_is (&j, 0, 2, zero));
    static const uint32_t zero_share[][2] = { { 4096, 50 }, { 8192, 50 } };
    if (CHECK_OK (s_one_job ("[job]\nbssplit=4k/0:8k/50\n", &j)))
        CHECK (s_split_is (&j, 0, 2, zero_share));
    /* HOWTO: separate reads and writes. */
    static const uint32_t r[][2] = { { 2048, 50 }, { 4096, 50 } };
    static const uint32_t w[][2] = { { 4096, 90 }, { 8192, 10 } };
    if (CHECK_OK (s_one_job ("[job]\nbssplit=2k/50:4k/50,4k/90:8k/10\n", &j)))
        CHECK (s_split_is (&j, 0, 2, r) && s_split_is (&j, 1, 2, w));
    if (CHECK_OK (s_one_job ("[global]\nbssplit=2k/50:4k/50\n[job]\nbssplit=,4k/90:8k/10\n", &j)))
        CHECK (s_split_is (&j, 0, 2, r) && s_split_is (&j, 1, 2, w));
    if (CHECK_OK (s_one_job ("[job]\nbssplit=2k/50:4k/50,\n", &j)))
        CHECK (s_split_is (&j, 0, 2, r) && j.nbssplit[1] == 0);

    /* fio's limit of 64 sizes per direction. */
    char text[2048];
    size_t len = (size_t) snprintf (text, sizeof text, "[job]\nbssplit=");
    for (int i = 1; i <= JOB_BSSPLIT_MAX; i++)
        len += (size_t) snprintf (text + len, sizeof text - len, "%s%dk",
                                  i > 1 ? ":" : "", i);
    snprintf (text + len, sizeof text - len, "\n");
    if (CHECK_OK (s_one_job (text, &j))) {
        CHECK (j.nbssplit[0] == JOB_BSSPLIT_MAX && j.nbssplit[1] == JOB_BSSPLIT_MAX);
        uint32_t sum = 0;
        for (int i = 0; i < j.nbssplit[0]; i++)
            sum += j.bssplit[0][i].pct;
        CHECK (sum == 100);
        CHECK (j.bssplit[0][0].pct == 1 && j.bssplit[0][JOB_BSSPLIT_MAX - 1].pct == 37);
        CHECK (j.bssplit[0][JOB_BSSPLIT_MAX - 1].bs == JOB_BSSPLIT_MAX * 1024);
    }
    snprintf (text + len, sizeof text - len, ":65k\n");
    {
        char want[2048];
        snprintf (want, sizeof want, "t.fio:2: bssplit=%.80s has more than 64 block sizes "
                  "in one direction (fio's limit)", text + 14);
        EXPECT_ERR (text, want);
    }

    EXPECT_ERR ("[job]\nbssplit=4k/50:64k/40\n",
                "t.fio:2: bssplit=4k/50:64k/40: the percentages add up to 90%, not 100%");
    EXPECT_ERR ("[job]\nbssplit=4k/60:8k/50\n",
                "t.fio:2: bssplit=4k/60:8k/50: the percentages add up to 110%, more than 100%");
    EXPECT_ERR ("[job]\nbssplit=4k/60:8k/50:16k\n",
                "t.fio:2: bssplit=4k/60:8k/50:16k: the percentages add up to 110%, more than 100%");
    EXPECT_ERR ("[job]\nbssplit=4k/100,8k/50\n",
                "t.fio:2: bssplit=4k/100,8k/50: the percentages add up to 50%, not 100%");
    EXPECT_ERR ("[job]\nbssplit=4k/101\n", "t.fio:2: bssplit=4k/101: 101% is more than 100%");
    EXPECT_ERR ("[job]\nbssplit=4k/x\n",
                "t.fio:2: bssplit=4k/x: 'x' is not a percentage (like 4k/25)");
    EXPECT_ERR ("[job]\nbssplit=4k/50%:8k/50\n",
                "t.fio:2: bssplit=4k/50%:8k/50: '50%' is not a percentage (like 4k/25)");
    EXPECT_ERR ("[job]\nbssplit=4k/50::8k/50\n", "t.fio:2: bssplit=4k/50::8k/50 has an empty "
                "entry (entries are SIZE/PERCENT, separated by ':')");
    EXPECT_ERR ("[job]\nbssplit=4k/100:\n", "t.fio:2: bssplit=4k/100: has an empty entry "
                "(entries are SIZE/PERCENT, separated by ':')");
    EXPECT_ERR ("[job]\nbssplit=q/100\n", "t.fio:2: bssplit=q/100: 'q' is not a size (like 4k "
                "or 128k; allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbssplit=0/100\n",
                "t.fio:2: bssplit=0/100: 0 is out of range (allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbssplit=/100\n", "t.fio:2: bssplit=/100: '' is not a size (like 4k "
                "or 128k; allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbssplit=4k/50:8k/50,4k/50:8k/50,4k/100\n", "t.fio:2: "
                "bssplit=4k/50:8k/50,4k/50:8k/50,4k/100: a third value (for trims) is not "
                "supported by iofleet yet");
}

/* thinktime counts bare numbers in microseconds, startdelay in seconds. */
static void
test_times (void)
{
    static const struct {
        const char *value;
        uint64_t ns;
    } think[] = {
        { "250", 250000 },              { "0", 0 },
        { "250us", 250000 },            { "250usec", 250000 },
        { "5ms", 5000000 },             { "5MS", 5000000 },
        { "2s", 2 * NS_PER_S },         { "1m", 60 * NS_PER_S },
        { "3600000000", 3600 * NS_PER_S },
        { "3600s", 3600 * NS_PER_S },
    };
    for (size_t i = 0; i < sizeof think / sizeof think[0]; i++) {
        char text[128];
        job_t j;
        snprintf (text, sizeof text, "[job]\nthinktime=%s\n", think[i].value);
        if (CHECK_OK (s_one_job (text, &j)))
            CHECK_MSG (j.thinktime_ns == think[i].ns, "thinktime=%s gave %llu ns",
                       think[i].value, (unsigned long long) j.thinktime_ns);
    }
    EXPECT_ERR ("[job]\nthinktime=3601s\n", "t.fio:2: thinktime=3601s is out of range "
                "(allowed: up to 1 hour)");
    EXPECT_ERR ("[job]\nthinktime=3600000001\n", "t.fio:2: thinktime=3600000001 is out of "
                "range (allowed: up to 1 hour)");
    EXPECT_ERR ("[job]\nthinktime=1.5ms\n", "t.fio:2: thinktime='1.5ms' is not a time (like "
                "100 (microseconds), 100us, 5ms, 1s)");
    EXPECT_ERR ("[job]\nthinktime=10ns\n", "t.fio:2: thinktime='10ns' is not a time (like "
                "100 (microseconds), 100us, 5ms, 1s)");
    EXPECT_ERR ("[job]\nthinktime=99999999999999999999\n", "t.fio:2: "
                "thinktime=99999999999999999999 is out of range (allowed: up to 1 hour)");

    job_t j;
    if (CHECK_OK (s_one_job ("[job]\nstartdelay=5\n", &j)))
        CHECK (j.startdelay_ns == 5 * NS_PER_S);
    if (CHECK_OK (s_one_job ("[job]\nstartdelay=500ms\n", &j)))
        CHECK (j.startdelay_ns == 500 * 1000000ull);
    if (CHECK_OK (s_one_job ("[job]\nstartdelay=1h\n", &j)))
        CHECK (j.startdelay_ns == (uint64_t) JOB_MAX_DELAY_S * NS_PER_S);
    EXPECT_ERR ("[job]\nstartdelay=5-10\n", "t.fio:2: startdelay=5-10: fio's random start "
                "delay range is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nstartdelay=5:10\n", "t.fio:2: startdelay=5:10: fio's random start "
                "delay range is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nstartdelay=8d\n",
                "t.fio:2: startdelay=8d is out of range (allowed: up to 3600s, 1 hour)");
    EXPECT_ERR ("[job]\nstartdelay=-1\n",
                "t.fio:2: startdelay='-1' is not a time (like 60, 30s, 500ms, 5m, 1h)");
    EXPECT_ERR ("[job]\nstartdelay=soon\n",
                "t.fio:2: startdelay='soon' is not a time (like 60, 30s, 500ms, 5m, 1h)");
}

static void
test_random_options (void)
{
    job_t j;
    if (CHECK_OK (s_one_job ("[job]\nrandrepeat=0\n", &j)))
        CHECK (!j.randrepeat && !j.randseed_set);
    if (CHECK_OK (s_one_job ("[job]\nrandrepeat=0\nrandrepeat=1\n", &j)))
        CHECK (j.randrepeat);
    EXPECT_ERR ("[job]\nrandrepeat\n", "t.fio:2: option 'randrepeat' needs a value");
    EXPECT_ERR ("[job]\nrandrepeat=2\n",
                "t.fio:2: randrepeat='2' is not a boolean (allowed: 0 or 1)");

    if (CHECK_OK (s_one_job ("[job]\nrandseed=42\n", &j)))
        CHECK (j.randseed_set && j.randseed == 42 && j.randrepeat);
    if (CHECK_OK (s_one_job ("[job]\nrandseed=0\n", &j)))
        CHECK (j.randseed_set && j.randseed == 0);
    if (CHECK_OK (s_one_job ("[job]\nrandseed=0x89\n", &j)))
        CHECK (j.randseed == 0x89);
    if (CHECK_OK (s_one_job ("[job]\nrandseed=18446744073709551615\n", &j)))
        CHECK (j.randseed == UINT64_MAX);
    EXPECT_ERR ("[job]\nrandseed=-1\n",
                "t.fio:2: randseed='-1' is not a number (allowed: 0..18446744073709551615)");
    EXPECT_ERR ("[job]\nrandseed=18446744073709551616\n", "t.fio:2: "
                "randseed=18446744073709551616 is out of range (allowed: 0..18446744073709551615)");

    /* norandommap is one of fio's "set" options: bare is fine. */
    if (CHECK_OK (s_one_job ("[job]\nnorandommap\n", &j)))
        CHECK (j.norandommap);
    if (CHECK_OK (s_one_job ("[global]\nnorandommap\n[job]\nnorandommap=0\n", &j)))
        CHECK (!j.norandommap);
    EXPECT_ERR ("[job]\nnorandommap=yes\n",
                "t.fio:2: norandommap='yes' is not a boolean (allowed: 0 or 1)");

    /* blockalign (ba): per direction as bs, 1 byte..64 MiB. */
    if (CHECK_OK (s_one_job ("[job]\nblockalign=4k\n", &j)))
        CHECK (j.blockalign[0] == 4096 && j.blockalign[1] == 4096);
    if (CHECK_OK (s_one_job ("[job]\nba=512,16k\n", &j)))
        CHECK (j.blockalign[0] == 512 && j.blockalign[1] == 16384);
    if (CHECK_OK (s_one_job ("[job]\n", &j)))
        CHECK (j.blockalign[0] == 0 && j.blockalign[1] == 0);
    EXPECT_ERR ("[job]\nblockalign=0\n", "t.fio:2: blockalign=0 is out of range (allowed: 1 "
                "byte..64 MiB)");
    EXPECT_ERR ("[job]\nba=4k:8k\n", "t.fio:2: ba=4k:8k: use ',' between the read and write "
                "values (fio would also split at ':' or '-')");
    if (CHECK_OK (s_one_job ("[job]\nrate_iops=100\nrate_process=poisson\n", &j)))
        CHECK (j.rate_poisson);
    if (CHECK_OK (s_one_job ("[global]\nrate_process=poisson\n[job]\nrate_process=linear\n", &j)))
        CHECK (!j.rate_poisson);
    EXPECT_ERR ("[job]\nrate_process=gauss\n", "t.fio:2: rate_process=gauss is not an fio rate "
                "process (fio's: linear, poisson)");
    /* gtod_reduce is taken and changes no I/O; fio wants its value. */
    CHECK_OK (s_one_job ("[job]\ngtod_reduce=1\n", &j));
    EXPECT_ERR ("[job]\ngtod_reduce\n", "t.fio:2: option 'gtod_reduce' needs a value");
    CHECK_OK (s_one_job ("[job]\ngtod_reduce=0\n", &j));
    EXPECT_ERR ("[job]\ngtod_reduce=2\n", "t.fio:2: gtod_reduce='2' is not a boolean (allowed: "
                "0 or 1)");
    /* Trims: fio's four modes; verify= refused with them. */
    if (CHECK_OK (s_one_job ("[job]\nrw=randtrim\nbs=4k,8k\n", &j)))
        CHECK (j.rw == JOB_RW_RANDTRIM && job_rw_trims (j.rw) && !job_rw_reads (j.rw));
    if (CHECK_OK (s_one_job ("[job]\nreadwrite=trimwrite\n", &j)))
        CHECK (j.rw == JOB_RW_TRIMWRITE && strcmp (job_rw_name (j.rw), "trimwrite") == 0);
    EXPECT_ERR ("[a]\nfilename=x\nrw=trimwrite\nverify=md5\n", "t.fio:4: verify=md5 on job "
                "'a': reading back what trims left (fio's trim_verify_zero, trim_backlog) is "
                "not supported by iofleet yet");
    /* read_iolog and its replay options. */
    if (CHECK_OK (s_one_job ("[job]\nread_iolog=r.log\nreplay_no_stall=1\nreplay_time_scale=200\n"
                             "replay_align=4k\nreplay_scale=2\n", &j)))
        CHECK (strcmp (j.read_iolog, "r.log") == 0 && j.replay_no_stall
               && j.replay_time_scale == 200 && j.replay_align == 4096 && j.replay_scale == 2
               && job_fleet_refusal (&j) != NULL);
    if (CHECK_OK (s_one_job ("[job]\nread_iolog=r.log\nreplay_redirect=/dev/sdb\n"
                             "filename=/dev/sdb\n", &j)))
        CHECK (strcmp (j.replay_redirect, "/dev/sdb") == 0 && j.replay_time_scale == 100
               && job_fleet_refusal (&j) == NULL);
    EXPECT_ERR ("[job]\nfilename=/dev/sdb\nread_iolog=r.log\n", "t.fio:3: read_iolog=r.log "
                "(job 'job'): it replays on the files the log names, and fio ignores filename=: "
                "remove filename=, or give replay_redirect=PATH to send the whole log to PATH");
    EXPECT_ERR ("[job]\nread_iolog=r.log\nnumjobs=2\n", "t.fio:2: read_iolog=r.log (job "
                "'job'): each numjobs copy would replay the whole log again; give numjobs=1");
    EXPECT_ERR ("[job]\nreplay_align=3k\n", "t.fio:2: replay_align=3k is not a power of 2 "
                "(fio masks offsets with it)");
    EXPECT_ERR ("[job]\nread_iolog=../r.log\n", "t.fio:2: read_iolog=../r.log: a relative "
                "path may not contain '..' (agents write it inside their --workdir); use an "
                "absolute path");
    if (CHECK_OK (s_one_job ("[job]\nexitall\nexit_what=all\ncreate_serialize=0\n", &j)))
        CHECK (j.exit_what_all && j.exitall && job_fleet_refusal (&j) != NULL);
    if (CHECK_OK (s_one_job ("[job]\nexitall\nexit_what=stonewall\n", &j)))
        CHECK (!j.exit_what_all && job_fleet_refusal (&j) == NULL);
    EXPECT_ERR ("[job]\nexit_what=some\n", "t.fio:2: exit_what=some is not one of fio's: "
                "group, stonewall, all");
    CHECK_OK (s_one_job ("[job]\nio_submit_mode=inline\n", &j));
    EXPECT_ERR ("[job]\nio_submit_mode=offload\n", "t.fio:2: io_submit_mode=offload: offloaded "
                "submission is not supported by iofleet yet (inline is)");
    /* latency_target: fio's units (bare = microseconds), a window needed. */
    if (CHECK_OK (s_one_job ("[job]\nlatency_target=2200\nlatency_window=200ms\n"
                             "latency_percentile=99.5\nlatency_run=1\n", &j)))
        CHECK (j.latency_target_ns == 2200000 && j.latency_window_ns == 200000000
               && j.latency_percentile == 99.5 && j.latency_run);
    if (CHECK_OK (s_one_job ("[job]\n", &j)))
        CHECK (j.latency_target_ns == 0 && j.latency_percentile == 100 && !j.latency_run);
    EXPECT_ERR ("[job]\nlatency_target=1ms\n", "t.fio:1: latency_target (job 'job'): without "
                "latency_window every loop of fio's is a window of one I/O; give "
                "latency_window= (like 200ms)");
    EXPECT_ERR ("[job]\nlatency_target=1ms\nlatency_window=1s\nnumjobs=2\n", "t.fio:1: "
                "latency_target (job 'job'): each numjobs copy would search a depth of its own "
                "(and fio 3.33 scales the target of copies after the first by 1000 again); "
                "give numjobs=1");
    EXPECT_ERR ("[job]\nlatency_percentile=101\n", "t.fio:2: latency_percentile=101 is not a "
                "percentage 0..100");
    if (CHECK_OK (s_one_job ("[job]\nwrite_lat_log=l\nlog_offset=1\n", &j)))
        CHECK (j.log_offset);
    if (CHECK_OK (s_one_job ("[job]\nrw=randread:8\n", &j)))
        CHECK (j.rw == JOB_RW_RANDREAD && j.rw_seq_nr == 8 && j.rw_skip == 0);
    if (CHECK_OK (s_one_job ("[job]\nrw=read:8k\n", &j)))
        CHECK (j.rw_seq_nr == 0 && j.rw_skip == 8192);
    if (CHECK_OK (s_one_job ("[job]\nwrite_bw_log=b\nwrite_iops_log=logs/i\n", &j)))
        CHECK (strcmp (j.write_bw_log, "b") == 0 && strcmp (j.write_iops_log, "logs/i") == 0);
    if (CHECK_OK (s_one_job ("[job]\ninvalidate=0\nfadvise_hint=sequential\n", &j)))
        CHECK (j.no_invalidate && j.fadvise == JOB_FADV_SEQUENTIAL);
    if (CHECK_OK (s_one_job ("[job]\n", &j)))
        CHECK (!j.no_invalidate && j.fadvise == JOB_FADV_BY_RW);
    EXPECT_ERR ("[job]\nfadvise_hint=normal\n", "t.fio:2: fadvise_hint=normal is not one of "
                "fio's: 0, 1, sequential, random");
    if (CHECK_OK (s_one_job ("[job]\nrw=randrw\npercentage_random=30,70\n", &j)))
        CHECK (j.perc_random[0] == 30 && j.perc_random[1] == 70);
    if (CHECK_OK (s_one_job ("[job]\nrw=randread\n", &j)))
        CHECK (j.perc_random[0] == 100 && j.perc_random[1] == 100);
    EXPECT_ERR ("[job]\npercentage_random=101\n", "t.fio:2: percentage_random=101 is not a "
                "percent (allowed: 0..100)");
    if (CHECK_OK (s_one_job ("[job]\nbsrange=1k-9k\nbs_unaligned\n", &j)))
        CHECK (j.bs_unaligned);
    EXPECT_ERR ("[job]\ndirect=1\nbsrange=1k-9k\nblocksize_unaligned=1\n", "t.fio:2: "
                "blocksize_unaligned with direct=1 (job 'job'): O_DIRECT takes only multiples of "
                "the device's logical block size; give direct=0");
    if (CHECK_OK (s_one_job ("[job]\nrw=randrw\nratemin=1m,2m\nrate_iops_min=100\nratecycle=500\n",
                             &j)))
        CHECK (j.rate_min[0] == 1048576 && j.rate_min[1] == 2097152 && j.rate_iops_min[0] == 100
               && j.rate_iops_min[1] == 100 && j.rate_cycle_ms == 500);
    /* fio's sync family: each name is taken. */
    static const char *const syncs[] = { "sync", "vsync", "pvsync", "pvsync2" };
    for (size_t k = 0; k < sizeof syncs / sizeof syncs[0]; k++) {
        char text[64];
        snprintf (text, sizeof text, "[job]\nioengine=%s\n", syncs[k]);
        if (CHECK_OK (s_one_job (text, &j)))
            CHECK (strcmp (j.ioengine, syncs[k]) == 0);
    }
    if (CHECK_OK (s_one_job ("[job]\nrandom_distribution=zipf:1.2\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_ZIPF && j.dist.param == 1.2);
    if (CHECK_OK (s_one_job ("[job]\nrandom_distribution=zipf\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_ZIPF && j.dist.param == 1.1);
    if (CHECK_OK (s_one_job ("[job]\nrandom_distribution=zipf:0.8\n", &j)))
        CHECK (j.dist.param == 0.8);
    if (CHECK_OK (s_one_job ("[job]\nrandom_distribution=zipf:2\n", &j)))
        CHECK (j.dist.param == 2.0);
    if (CHECK_OK (s_one_job ("[job]\nrandom_distribution=random\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_RANDOM && j.dist.param == 0);
    if (CHECK_OK (s_one_job ("[global]\nrandom_distribution=zipf:1.5\n[job]\n"
                             "random_distribution=random\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_RANDOM && j.dist.param == 0);
    EXPECT_ERR ("[job]\nrandom_distribution=zipf:1\n", "t.fio:2: "
                "random_distribution=zipf:1: the zipf theta 1 must be above 0, below 100 and not 1");
    EXPECT_ERR ("[job]\nrandom_distribution=zipf:1.000\n", "t.fio:2: "
                "random_distribution=zipf:1.000: the zipf theta 1 must be above 0, below 100 "
                "and not 1");
    EXPECT_ERR ("[job]\nrandom_distribution=zipf:0\n", "t.fio:2: "
                "random_distribution=zipf:0: the zipf theta 0 must be above 0, below 100 and not 1");
    EXPECT_ERR ("[job]\nrandom_distribution=zipf:-1\n",
                "t.fio:2: random_distribution=zipf:-1: '-1' is not a number (like zipf:0.9)");
    EXPECT_ERR ("[job]\nrandom_distribution=zipf:\n",
                "t.fio:2: random_distribution=zipf:: '' is not a number (like zipf:0.9)");
    EXPECT_ERR ("[job]\nrandom_distribution=zipf:1e2\n",
                "t.fio:2: random_distribution=zipf:1e2: '1e2' is not a number (like zipf:0.9)");
    /* fio 3.33's defaults, centers and ranges (options.c). */
    if (CHECK_OK (s_one_job ("[job]\nrandom_distribution=zipf:1.2:0.25\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_ZIPF && j.dist.param == 1.2 && j.dist.centered
               && j.dist.center == 0.25);
    if (CHECK_OK (s_one_job ("[job]\nrandom_distribution=pareto\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_PARETO && j.dist.param == 0.2 && !j.dist.centered);
    if (CHECK_OK (s_one_job ("[job]\nrandom_distribution=pareto:0.9\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_PARETO && j.dist.param == 0.9);
    if (CHECK_OK (s_one_job ("[job]\nrandom_distribution=normal\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_NORMAL && j.dist.param == 0);
    if (CHECK_OK (s_one_job ("[job]\nrandom_distribution=normal:10:0.2\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_NORMAL && j.dist.param == 10 && j.dist.center == 0.2);
    EXPECT_ERR ("[job]\nrandom_distribution=pareto:1\n", "t.fio:2: random_distribution="
                "pareto:1: the pareto value 1 must be above 0 and below 1 (fio's range)");
    EXPECT_ERR ("[job]\nrandom_distribution=normal:100\n", "t.fio:2: random_distribution="
                "normal:100: the normal deviation 100 must be 0 or more and below 100 (percent "
                "of the region)");
    EXPECT_ERR ("[job]\nrandom_distribution=pareto:0.5:2\n", "t.fio:2: random_distribution="
                "pareto:0.5:2: the center 2 must be within 0..1 (fio's range)");
    EXPECT_ERR ("[job]\nrandom_distribution=pareto:0.5:x\n", "t.fio:2: random_distribution="
                "pareto:0.5:x: the center 'x' is not a number 0..1");
    /* zoned: a missing size shares what the others leave (fio's zone parser). */
    if (CHECK_OK (s_one_job ("[job]\nrandom_distribution=zoned:60/10:30/20:10/70\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_ZONED && j.dist.nzones == 3
               && j.dist.zones[0].access_pct == 60 && j.dist.zones[0].size == 10
               && j.dist.zones[2].access_pct == 10 && j.dist.zones[2].size == 70);
    if (CHECK_OK (s_one_job ("[job]\nrandom_distribution=zoned:50/10:25:25\n", &j)))
        CHECK (j.dist.nzones == 3 && j.dist.zones[1].size == 45 && j.dist.zones[2].size == 45);
    if (CHECK_OK (s_one_job ("[job]\nrandom_distribution=zoned_abs:60/8m:40/16m\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_ZONED_ABS && j.dist.nzones == 2
               && j.dist.zones[0].size == 8ull << 20 && j.dist.zones[1].size == 16ull << 20);
    EXPECT_ERR ("[job]\nrandom_distribution=zoned:60/10:30/20\n", "t.fio:2: random_distribution="
                "zoned:60/10:30/20: the zones' access percentages add up to 90, not 100 (as fio "
                "requires)");
    EXPECT_ERR ("[job]\nrandom_distribution=zoned:60/80:40/30\n", "t.fio:2: random_distribution="
                "zoned:60/80:40/30: the zones' sizes add up to 110% of the region, over 100");
    EXPECT_ERR ("[job]\nrandom_distribution=zoned:60/x:40/30\n", "t.fio:2: random_distribution="
                "zoned:60/x:40/30: zone 1's size 'x' is not a percent 0..100");
    EXPECT_ERR ("[job]\nrandom_distribution=zoned\n", "t.fio:2: random_distribution=zoned: "
                "zoned needs its zones (like zoned:60/10:40/90)");
    EXPECT_ERR ("[job]\nrandom_distribution=zoned:60/10::40/90\n", "t.fio:2: random_distribution="
                "zoned:60/10::40/90: zone 2 is empty or too long (like 60/10)");
    EXPECT_ERR ("[job]\nrandom_distribution=zoned_abs:60/1q:40/1m\n", "t.fio:2: "
                "random_distribution=zoned_abs:60/1q:40/1m: zone 1's size '1q' is not a size "
                "(like 20g)");
    EXPECT_ERR ("[job]\nrandom_distribution=gauss:5\n", "t.fio:2: "
                "random_distribution='gauss:5' is not an fio random distribution (random, zipf, "
                "pareto, normal, zoned, zoned_abs)");
    EXPECT_ERR ("[job]\nrandom_distribution=Zipf:1.2\n", "t.fio:2: "
                "random_distribution='Zipf:1.2' is not an fio random distribution (random, zipf, "
                "pareto, normal, zoned, zoned_abs)");
    EXPECT_ERR ("[job]\nrandom_distribution=random:5\n",
                "t.fio:2: random_distribution=random:5: 'random' takes no parameter");
    EXPECT_ERR ("[job]\nrandom_distribution=zipf:1.2,zipf:1.1\n", "t.fio:2: "
                "random_distribution=zipf:1.2,zipf:1.1: separate read/write distributions are "
                "not supported (fio 3.33 refuses them too: its parser cuts the name at the ',')");
}

static void
test_percentiles (void)
{
    job_t j;
    if (CHECK_OK (s_one_job ("[job]\npercentile_list=99:99.9:99.99\n", &j))) {
        CHECK (j.npercentiles == 3);
        CHECK (j.percentile_list[0] == 99 && j.percentile_list[1] == 99.9);
        CHECK (j.percentile_list[2] == 99.99 && j.percentile_list[3] == 0);
    }
    /* Sorted, like fio reports them. */
    if (CHECK_OK (s_one_job ("[job]\npercentile_list=99.99:50:1:100:.5\n", &j))) {
        CHECK (j.npercentiles == 5);
        CHECK (j.percentile_list[0] == 0.5 && j.percentile_list[1] == 1);
        CHECK (j.percentile_list[2] == 50 && j.percentile_list[3] == 99.99);
        CHECK (j.percentile_list[4] == 100);
    }
    if (CHECK_OK (s_one_job ("[global]\npercentile_list=1:2:3\n[job]\npercentile_list=50\n", &j)))
        CHECK (j.npercentiles == 1 && j.percentile_list[0] == 50 && j.percentile_list[1] == 0);
    /* fio's limit is 20 entries. */
    const char *twenty = "1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20";
    char text[256];
    snprintf (text, sizeof text, "[job]\npercentile_list=%s\n", twenty);
    if (CHECK_OK (s_one_job (text, &j)))
        CHECK (j.npercentiles == 20 && j.percentile_list[19] == 20);
    snprintf (text, sizeof text, "[job]\npercentile_list=%s:21\n", twenty);
    EXPECT_ERR (text, "t.fio:2: percentile_list=1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:"
                "19:20:21 has more than 20 percentiles (fio's limit)");
    EXPECT_ERR ("[job]\npercentile_list=0\n",
                "t.fio:2: percentile_list=0: 0 is out of range (allowed: above 0, up to 100)");
    EXPECT_ERR ("[job]\npercentile_list=50:100.1\n", "t.fio:2: percentile_list=50:100.1: "
                "100.1 is out of range (allowed: above 0, up to 100)");
    EXPECT_ERR ("[job]\npercentile_list=99::99.9\n",
                "t.fio:2: percentile_list=99::99.9: '' is not a number (like 99.9)");
    EXPECT_ERR ("[job]\npercentile_list=99:\n",
                "t.fio:2: percentile_list=99:: '' is not a number (like 99.9)");
    EXPECT_ERR ("[job]\npercentile_list=99,99.9\n",
                "t.fio:2: percentile_list=99,99.9: '99,99.9' is not a number (like 99.9)");
    EXPECT_ERR ("[job]\npercentile_list=1e2\n",
                "t.fio:2: percentile_list=1e2: '1e2' is not a number (like 99.9)");
    EXPECT_ERR ("[job]\npercentile_list=-5\n",
                "t.fio:2: percentile_list=-5: '-5' is not a number (like 99.9)");
    EXPECT_ERR ("[job]\npercentile_list=9.9.9\n",
                "t.fio:2: percentile_list=9.9.9: '9.9.9' is not a number (like 99.9)");
}

static void
test_cpus (void)
{
    static const struct {
        const char *text;
        int rc;
        uint64_t w[JOB_CPUS_MAX / 64];      /* the mask, CPU 0 in bit 0 of w[0] */
    } cases[] = {
        { "0", 0, { 0x1, 0, 0, 0 } },
        { "0-3,8,10-11", 0, { 0xd0f, 0, 0, 0 } },
        { "0,5,8-15", 0, { 0xff21, 0, 0, 0 } },
        { "3-3", 0, { 0x8, 0, 0, 0 } },
        { "007", 0, { 0x80, 0, 0, 0 } },
        { "63,64", 0, { 1ull << 63, 1, 0, 0 } },
        { "100-131", 0, { 0, 0xfffffff000000000ull, 0xf, 0 } },
        { "255", 0, { 0, 0, 0, 1ull << 63 } },
        { "192-255", 0, { 0, 0, 0, UINT64_MAX } },
        { "0-255", 0, { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX } },
        { "8,0", 0, { 0x101, 0, 0, 0 } },
        { "1,1,1-2", 0, { 0x6, 0, 0, 0 } },
        { "", -EINVAL, { 0 } },         { ",", -EINVAL, { 0 } },
        { "0,", -EINVAL, { 0 } },       { ",0", -EINVAL, { 0 } },
        { "0,,1", -EINVAL, { 0 } },     { "a", -EINVAL, { 0 } },
        { "0-", -EINVAL, { 0 } },       { "-1", -EINVAL, { 0 } },
        { " 0", -EINVAL, { 0 } },       { "0 ", -EINVAL, { 0 } },
        { "0, 1", -EINVAL, { 0 } },     { "1-2-3", -EINVAL, { 0 } },
        { "0x1", -EINVAL, { 0 } },      { "3-1", -EINVAL, { 0 } },
        { "1:2", -EINVAL, { 0 } },      { "^1", -EINVAL, { 0 } },
        { "256", -ERANGE, { 0 } },      { "0-256", -ERANGE, { 0 } },
        { "300-2", -ERANGE, { 0 } },    { "99999999999999999999999", -ERANGE, { 0 } },
        { "1,2-99999999999999999999999", -ERANGE, { 0 } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t mask[JOB_CPUS_MAX / 64];
        memset (mask, 0xa5, sizeof mask);
        int rc = job_parse_cpus (cases[i].text, mask);
        CHECK_MSG (rc == cases[i].rc, "cpus '%s': rc %d, want %d", cases[i].text, rc, cases[i].rc);
        if (cases[i].rc == 0 && rc == 0)
            CHECK_MSG (memcmp (mask, cases[i].w, sizeof mask) == 0,
                       "cpus '%s' = %016llx %016llx %016llx %016llx", cases[i].text,
                       (unsigned long long) mask[0], (unsigned long long) mask[1],
                       (unsigned long long) mask[2], (unsigned long long) mask[3]);
        else
            CHECK_MSG (mask[0] == 0xa5a5a5a5a5a5a5a5ull && mask[3] == 0xa5a5a5a5a5a5a5a5ull,
                       "cpus '%s' wrote its output on error", cases[i].text);
    }
    uint64_t mask[JOB_CPUS_MAX / 64];
    CHECK (job_parse_cpus (NULL, mask) == -EINVAL);
    CHECK (job_parse_cpus ("0", NULL) == -EINVAL);

    job_t j;
    if (CHECK_OK (s_one_job ("[job]\ncpus_allowed=0-3,8\n", &j)))
        CHECK (strcmp (j.cpus_allowed, "0-3,8") == 0);
    if (CHECK_OK (s_one_job ("[global]\ncpus_allowed=1\n[job]\ncpus_allowed=0-255\n", &j)))
        CHECK (strcmp (j.cpus_allowed, "0-255") == 0);
    EXPECT_ERR ("[job]\ncpus_allowed=0-300\n",
                "t.fio:2: cpus_allowed=0-300: CPU 300 is out of range (allowed: 0..255)");
    EXPECT_ERR ("[job]\ncpus_allowed=4,256-260\n",
                "t.fio:2: cpus_allowed=4,256-260: CPU 256 is out of range (allowed: 0..255)");
    EXPECT_ERR ("[job]\ncpus_allowed=99999999999999999999999\n", "t.fio:2: "
                "cpus_allowed=99999999999999999999999: CPU 99999999999999999999999 is out of "
                "range (allowed: 0..255)");
    EXPECT_ERR ("[job]\ncpus_allowed=0,3-1\n",
                "t.fio:2: cpus_allowed=0,3-1: the CPU range 3-1 goes backwards");
    EXPECT_ERR ("[job]\ncpus_allowed=0,,1\n",
                "t.fio:2: cpus_allowed='0,,1' is not a list of CPUs (like 0-3,8,10-11)");
    EXPECT_ERR ("[job]\ncpus_allowed=all\n",
                "t.fio:2: cpus_allowed='all' is not a list of CPUs (like 0-3,8,10-11)");
    {
        char text[512];
        int n = snprintf (text, sizeof text, "[job]\ncpus_allowed=");
        for (int i = 0; i < 150; i++)
            n += snprintf (text + n, sizeof text - (size_t) n, "1,");
        snprintf (text + n, sizeof text - (size_t) n, "1\n");
        EXPECT_ERR (text, "t.fio:2: cpus_allowed is 301 bytes long (the limit is 255)");
    }
}

static void
test_steadystate (void)
{
    static const struct {
        const char *value;
        job_ss_t ss;
        double limit;
        bool pct;
    } cases[] = {
        { "iops:5%", JOB_SS_IOPS, 0.05, true },
        { "iops_slope:0.1%", JOB_SS_IOPS_SLOPE, 0.001, true },
        { "iops_slope:0.01%", JOB_SS_IOPS_SLOPE, 0.0001, true },
        { "iops:500", JOB_SS_IOPS, 500, false },
        { "iops:2.5", JOB_SS_IOPS, 2.5, false },
        { "iops_slope:0.5", JOB_SS_IOPS_SLOPE, 0.5, false },
        { "bw:2m", JOB_SS_BW, 2097152, false },
        { "bw:10%", JOB_SS_BW, 0.1, true },
        { "bw_slope:1k", JOB_SS_BW_SLOPE, 1024, false },
        { "bw_slope:0.5%", JOB_SS_BW_SLOPE, 0.005, true },
        { "bw:0", JOB_SS_BW, 0, false },
        { "iops:100%", JOB_SS_IOPS, 1, true },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[128];
        job_t j;
        snprintf (text, sizeof text, "[job]\n%s=%s\nss_dur=60\n",
                  i % 2 ? "ss" : "steadystate", cases[i].value);
        if (CHECK_OK (s_one_job (text, &j)))
            CHECK_MSG (j.ss == cases[i].ss && j.ss_pct == cases[i].pct
                    && s_near (j.ss_limit, cases[i].limit) && j.ss_dur_ns == 60 * NS_PER_S,
                       "%s: ss %d limit %g pct %d", cases[i].value, (int) j.ss, j.ss_limit,
                       (int) j.ss_pct);
    }
    job_t j;
    if (CHECK_OK (s_one_job ("[job]\nsteadystate=bw:5%\nsteadystate_duration=2m\n"
                             "steadystate_ramp_time=30\n", &j))) {
        CHECK (j.ss == JOB_SS_BW && j.ss_dur_ns == 120 * NS_PER_S);
        CHECK (j.ss_ramp_ns == 30 * NS_PER_S);
    }
    /* ss_dur= alone turns on fio's default, iops_slope:0.01%. */
    if (CHECK_OK (s_one_job ("[job]\nss_dur=30s\nss_ramp=1m\n", &j))) {
        CHECK (j.ss == JOB_SS_IOPS_SLOPE && j.ss_pct && s_near (j.ss_limit, 0.0001));
        CHECK (j.ss_dur_ns == 30 * NS_PER_S && j.ss_ramp_ns == 60 * NS_PER_S);
    }
    /* Inherited pieces: criterion in [global], duration per job. */
    jobfile_t *jf = s_parse ("[global]\nss=iops:2%\n[a]\nss_dur=10\n[b]\nss_dur=20\n"
                             "ss=bw_slope:1m\n");
    CHECK (jf && jf->nsteps == 2);
    if (jf && jf->nsteps == 2) {
        CHECK (jf->steps[0].ss == JOB_SS_IOPS && s_near (jf->steps[0].ss_limit, 0.02));
        CHECK (jf->steps[0].ss_dur_ns == 10 * NS_PER_S);
        CHECK (jf->steps[1].ss == JOB_SS_BW_SLOPE && !jf->steps[1].ss_pct);
        CHECK (jf->steps[1].ss_limit == 1048576 && jf->steps[1].ss_dur_ns == 20 * NS_PER_S);
    }
    jobfile_destroy (&jf);

    EXPECT_ERR ("[job]\nsteadystate=iops:5%\n",
                "t.fio:2: steadystate needs ss_dur= (job 'job' has none)");
    EXPECT_ERR ("[job]\nrw=read\nss=iops:5%\nss_dur=0\n",
                "t.fio:3: ss needs ss_dur= (job 'job' has none)");
    EXPECT_ERR ("[job]\nss=iops\n", "t.fio:2: ss=iops needs a limit after the criterion "
                "(like iops_slope:0.1% or iops:5%)");
    EXPECT_ERR ("[job]\nss=iops:\n", "t.fio:2: ss=iops: needs a limit after the criterion "
                "(like iops_slope:0.1% or iops:5%)");
    EXPECT_ERR ("[job]\nss=lat:5%\n", "t.fio:2: ss criterion 'lat' is not supported by "
                "iofleet yet (supported: iops, iops_slope, bw, bw_slope)");
    EXPECT_ERR ("[job]\nsteadystate=lat_slope:5%\n", "t.fio:2: steadystate criterion "
                "'lat_slope' is not supported by iofleet yet (supported: iops, iops_slope, bw, "
                "bw_slope)");
    EXPECT_ERR ("[job]\nss=foo:1\n", "t.fio:2: ss='foo:1' is not an fio steady state "
                "criterion (supported: iops, iops_slope, bw, bw_slope)");
    EXPECT_ERR ("[job]\nss=IOPS:5%\n", "t.fio:2: ss='IOPS:5%' is not an fio steady state "
                "criterion (supported: iops, iops_slope, bw, bw_slope)");
    EXPECT_ERR ("[job]\nss=iops:x%\n",
                "t.fio:2: ss=iops:x%: 'x%' is not a percentage (like 0.1%)");
    EXPECT_ERR ("[job]\nss=iops:%\n",
                "t.fio:2: ss=iops:%: '%' is not a percentage (like 0.1%)");
    EXPECT_ERR ("[job]\nss=iops:101%\n",
                "t.fio:2: ss=iops:101%: 101% is out of range (allowed: 0%..100%)");
    EXPECT_ERR ("[job]\nss=iops:1k\n", "t.fio:2: ss=iops:1k: '1k' is not a number of IOPS "
                "(like 500) or a percentage (like 5%)");
    EXPECT_ERR ("[job]\nss=bw:1.5m\n", "t.fio:2: ss=bw:1.5m: '1.5m' is not a rate in "
                "bytes/s (like 10m) or a percentage (like 5%)");
    EXPECT_ERR ("[job]\nss=bw:16384p\n",
                "t.fio:2: ss=bw:16384p: 16384p is out of range (allowed: below 16 EiB/s)");
    EXPECT_ERR ("[job]\nss=iops:5%\nss_dur=1500ms\n", "t.fio:3: ss_dur=1500ms is not a whole "
                "number of seconds (steady state takes one sample a second)");
    EXPECT_ERR ("[job]\nss=iops:5%\nss_dur=1\n", "t.fio:3: ss_dur=1 is too short (allowed: 0 "
                "(off), or from 2s: a slope needs two samples)");
    EXPECT_ERR ("[job]\nss_dur=8d\n",
                "t.fio:2: ss_dur=8d is out of range (allowed: up to 86400s, 24 hours)");
    EXPECT_ERR ("[job]\nss=iops:10000000000000000000\nss_dur=10\n",
                "t.fio:2: ss=iops:10000000000000000000: 10000000000000000000 is out of range "
                "(allowed: below 1e18)");
    EXPECT_ERR ("[job]\nss_ramp=500ms\n", "t.fio:2: ss_ramp=500ms is not a whole number of "
                "seconds (steady state takes one sample a second)");
    EXPECT_ERR ("[job]\nsteadystate_ramp_time=x\n", "t.fio:2: steadystate_ramp_time='x' is "
                "not a time (like 60, 30s, 500ms, 5m, 1h)");
}

static void
test_batch (void)
{
    job_t j;
    if (CHECK_OK (s_one_job ("[job]\niodepth=16\niodepth_batch_submit=8\n"
                             "iodepth_batch_complete_min=4\n", &j)))
        CHECK (j.iodepth_batch_submit == 8 && j.iodepth_batch_complete_min == 4);
    if (CHECK_OK (s_one_job ("[job]\niodepth=16\niodepth_batch=16\n"
                             "iodepth_batch_complete=0\n", &j)))
        /* fio's 0 (poll) is taken as 1, here and nowhere else. */
        CHECK (j.iodepth_batch_submit == 16 && j.iodepth_batch_complete_min == 1);
    /* HOWTO: "If it is set to 0 the iodepth value will be used". */
    if (CHECK_OK (s_one_job ("[job]\niodepth_batch_submit=0\niodepth=32\n", &j)))
        CHECK (j.iodepth_batch_submit == 32);
    jobfile_t *jf = s_parse ("[global]\niodepth_batch=0\n[a]\niodepth=8\n[b]\n");
    CHECK (jf && jf->nsteps == 2);
    if (jf && jf->nsteps == 2) {
        CHECK (jf->steps[0].iodepth_batch_submit == 8);
        CHECK (jf->steps[1].iodepth_batch_submit == 1);
    }
    jobfile_destroy (&jf);
    /* iodepth may come after the batch size, or from [global]. */
    if (CHECK_OK (s_one_job ("[global]\niodepth=64\n[job]\niodepth_batch=64\n"
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

static void
test_buffers_and_groups (void)
{
    job_t j;
    if (CHECK_OK (s_one_job ("[job]\nbuffer_compress_percentage=50\n", &j)))
        CHECK (j.buffer_compress_percentage == 50);
    if (CHECK_OK (s_one_job ("[job]\nbuffer_compress_percentage=100\n", &j)))
        CHECK (j.buffer_compress_percentage == 100 && !j.zero_buffers);
    EXPECT_ERR ("[job]\nbuffer_compress_percentage=101\n",
                "t.fio:2: buffer_compress_percentage=101 is out of range (allowed: 0..100)");
    EXPECT_ERR ("[job]\nbuffer_compress_percentage=50%\n",
                "t.fio:2: buffer_compress_percentage='50%' is not a number (allowed: 0..100)");
    if (CHECK_OK (s_one_job ("[job]\nzero_buffers\n", &j)))
        CHECK (j.zero_buffers);
    if (CHECK_OK (s_one_job ("[global]\nzero_buffers=1\n[job]\nzero_buffers=0\n", &j)))
        CHECK (!j.zero_buffers);
    EXPECT_ERR ("[job]\nzero_buffers=2\n",
                "t.fio:2: zero_buffers='2' is not a boolean (allowed: 0 or 1)");
    EXPECT_ERR ("[job]\nzero_buffers=\n", "t.fio:2: option 'zero_buffers' needs a value");

    jobfile_t *jf = s_parse ("[a]\n[b]\nnew_group\n[c]\nnew_group=1\nnew_group=0\n"
                             "group_reporting\nstonewall\n");
    CHECK (jf && jf->nsteps == 3);
    if (jf && jf->nsteps == 3) {
        CHECK (!jf->steps[0].new_group && jf->steps[1].new_group && !jf->steps[2].new_group);
        CHECK (jf->steps[2].group_reporting && jf->steps[2].stonewall);
    }
    jobfile_destroy (&jf);
    EXPECT_ERR ("[job]\nnew_group=true\n",
                "t.fio:2: new_group='true' is not a boolean (allowed: 0 or 1)");

    /* The newly supported engines. */
    static const char *const engines[] = { "libaio", "io_uring", "psync", "null" };
    for (size_t i = 0; i < 4; i++) {
        char text[64];
        snprintf (text, sizeof text, "[job]\nioengine=%s\n", engines[i]);
        if (CHECK_OK (s_one_job (text, &j)))
            CHECK (strcmp (j.ioengine, engines[i]) == 0);
    }
}

/* write_lat_log=PREFIX: fio's per-I/O latency logs.  The N of a job's log
   files is fio's thread number: its workers are numbered on from the
   workers of every job before it in the file. */
static void
test_lat_log (void)
{
    job_t j;
    if (CHECK_OK (s_one_job ("[job]\nsize=1m\n", &j)))
        CHECK (j.write_lat_log[0] == '\0' && j.thread_number == 1);
    if (CHECK_OK (s_one_job ("[job]\nwrite_lat_log=raw\n", &j)))
        CHECK (strcmp (j.write_lat_log, "raw") == 0 && j.thread_number == 1);
    if (CHECK_OK (s_one_job ("[global]\nwrite_lat_log=/var/log/fio/../run1\n[job]\n", &j)))
        CHECK (strcmp (j.write_lat_log, "/var/log/fio/../run1") == 0);
    /* '..' inside a name is not a component. */
    if (CHECK_OK (s_one_job ("[job]\nwrite_lat_log=logs/a..b/..raw\n", &j)))
        CHECK (strcmp (j.write_lat_log, "logs/a..b/..raw") == 0);
    EXPECT_ERR ("[job]\nwrite_lat_log=\n", "t.fio:2: option 'write_lat_log' needs a value");
    EXPECT_ERR ("[job]\nwrite_lat_log\n", "t.fio:2: option 'write_lat_log' needs a value");
    EXPECT_ERR ("[job]\nwrite_lat_log=../raw\n",
                "t.fio:2: write_lat_log=../raw: a relative prefix may not contain '..' (agents "
                "write the logs inside their --workdir); use an absolute path");
    EXPECT_ERR ("[global]\nwrite_lat_log=logs/..\n[job]\n",
                "t.fio:2: write_lat_log=logs/..: a relative prefix may not contain '..' (agents "
                "write the logs inside their --workdir); use an absolute path");
    static char text[JOB_LATLOG_MAX + 64];
    snprintf (text, sizeof text, "[job]\nwrite_lat_log=%0*d\n", JOB_LATLOG_MAX - 1, 7);
    if (CHECK_OK (s_one_job (text, &j)))
        CHECK (strlen (j.write_lat_log) == JOB_LATLOG_MAX - 1);
    snprintf (text, sizeof text, "[job]\nwrite_lat_log=%0*d\n", JOB_LATLOG_MAX, 7);
    EXPECT_ERR (text, "t.fio:2: write_lat_log is 1024 bytes long (the limit is 1023)");
    /* Only the default, one line per I/O: the other log options stay out. */
    EXPECT_ERR ("[job]\nwrite_lat_log=raw\nlog_avg_msec=1000\n",
                "t.fio:3: log_avg_msec=1000: averaged latency logs are not supported by iofleet "
                "yet (0, fio's default, logs every I/O)");
    EXPECT_ERR ("[job]\nlog_hist_msec=1000\n",
                "t.fio:2: fio option 'log_hist_msec' is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nwrite_hist_log=h\n",
                "t.fio:2: fio option 'write_hist_log' is not supported by iofleet yet");

    /* Thread numbers: a 1-2, b 3-5, then each sweep step its own. */
    jobfile_t *jf = s_parse ("[global]\nwrite_lat_log=raw\n[a]\nnumjobs=2\n[b]\nnumjobs=3\n"
                             "write_lat_log=b\n[c]\nstonewall\niodepth=1,2\n");
    CHECK (jf && jf->nsteps == 4);
    if (jf && jf->nsteps == 4) {
        CHECK (jf->steps[0].thread_number == 1 && jf->steps[1].thread_number == 3);
        CHECK (jf->steps[2].thread_number == 6 && jf->steps[3].thread_number == 7);
        CHECK (strcmp (jf->steps[0].write_lat_log, "raw") == 0
               && strcmp (jf->steps[1].write_lat_log, "b") == 0
               && strcmp (jf->steps[3].write_lat_log, "raw") == 0);
    }
    jobfile_destroy (&jf);
}

/* With direct=1, every block size a job can issue must be a multiple of
   512: both directions of bs, both bounds of bsrange, all bssplit sizes. */
static void
test_direct_alignment (void)
{
    job_t j;
    if (CHECK_OK (s_one_job ("[job]\ndirect=1\nbs=4k,8k\nbsrange=512-64k\n"
                             "bssplit=512/10:4k/90,1m\n", &j)))
        CHECK (j.direct && j.bs[1] == 8192 && j.nbssplit[1] == 1);
    /* Buffered I/O takes any size. */
    if (CHECK_OK (s_one_job ("[job]\nbs=1000,1001\nbsrange=1000-5000\nbssplit=1000/100\n", &j)))
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

/* Every new option set in [global] reaches the jobs below it, and a
   job's own setting does not leak into the next job. */
static void
test_new_options_inherit (void)
{
    jobfile_t *jf = s_parse (
        "[global]\n"
        "ioengine=null\n"
        "bs=4k,16k\n"
        "bsrange=1k-8k\n"
        "bssplit=4k/25:8k/75\n"
        "iodepth=4\n"
        "iodepth_batch=2\n"
        "iodepth_batch_complete=3\n"
        "startdelay=1m\n"
        "rate_iops=10,20\n"
        "thinktime=3ms\n"
        "randrepeat=0\n"
        "randseed=7\n"
        "norandommap\n"
        "random_distribution=zipf:3\n"
        "percentile_list=90:10\n"
        "cpus_allowed=1-2\n"
        "new_group\n"
        "ss=bw:1m\n"
        "ss_dur=5\n"
        "ss_ramp=2\n"
        "buffer_compress_percentage=25\n"
        "zero_buffers\n"
        "[a]\n"
        "[b]\n"
        "bs=8k\n"
        "bssplit=,64k\n"
        "rate_iops=0\n"
        "random_distribution=random\n"
        "norandommap=0\n"
        "percentile_list=50\n"
        "cpus_allowed=0\n"
        "ss_dur=0\n"
        "ss=iops:1%\n"
        "ss_dur=3\n"
        "[c]\n");
    CHECK (jf && jf->nsteps == 3);
    if (!jf || jf->nsteps != 3) {
        jobfile_destroy (&jf);
        return;
    }
    static const uint32_t split[][2] = { { 4096, 25 }, { 8192, 75 } };
    static const uint32_t split64[][2] = { { 65536, 100 } };
    for (int i = 0; i < 3; i += 2) {
        const job_t *j = &jf->steps[i];
        CHECK (strcmp (j->ioengine, "null") == 0);
        CHECK (j->bs[0] == 4096 && j->bs[1] == 16384);
        CHECK (j->bsrange_min[1] == 1024 && j->bsrange_max[1] == 8192);
        CHECK (s_split_is (j, 0, 2, split) && s_split_is (j, 1, 2, split));
        CHECK (j->iodepth_batch_submit == 2 && j->iodepth_batch_complete_min == 3);
        CHECK (j->startdelay_ns == 60 * NS_PER_S);
        CHECK (j->rate_iops[0] == 10 && j->rate_iops[1] == 20);
        CHECK (j->thinktime_ns == 3000000);
        CHECK (!j->randrepeat && j->randseed_set && j->randseed == 7);
        CHECK (j->norandommap);
        CHECK (j->dist.kind == JOB_DIST_ZIPF && j->dist.param == 3);
        CHECK (j->npercentiles == 2 && j->percentile_list[0] == 10 && j->percentile_list[1] == 90);
        CHECK (strcmp (j->cpus_allowed, "1-2") == 0);
        CHECK (j->new_group);
        CHECK (j->ss == JOB_SS_BW && !j->ss_pct && j->ss_limit == 1048576);
        CHECK (j->ss_dur_ns == 5 * NS_PER_S && j->ss_ramp_ns == 2 * NS_PER_S);
        CHECK (j->buffer_compress_percentage == 25 && j->zero_buffers);
    }
    const job_t *b = &jf->steps[1];
    CHECK (BS_IS (b, 8192));
    CHECK (s_split_is (b, 0, 2, split) && s_split_is (b, 1, 1, split64));
    CHECK (b->rate_iops[0] == 0 && b->rate_iops[1] == 0);
    CHECK (b->dist.kind == JOB_DIST_RANDOM && !b->norandommap);
    CHECK (b->npercentiles == 1 && b->percentile_list[0] == 50);
    CHECK (strcmp (b->cpus_allowed, "0") == 0);
    CHECK (b->ss == JOB_SS_IOPS && b->ss_pct && s_near (b->ss_limit, 0.01));
    CHECK (b->ss_dur_ns == 3 * NS_PER_S && b->ss_ramp_ns == 2 * NS_PER_S);
    CHECK (b->new_group && b->zero_buffers && b->iodepth_batch_submit == 2);
    jobfile_destroy (&jf);
}

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

/* Sweeps: rw=, bs= (3+ sizes) and iodepth= lists expand a section. */
static void
test_sweeps (void)
{
    /* 1-D. */
    jobfile_t *jf = s_parse ("[q]\niodepth=1,32\n");
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
    jf = s_parse ("[randread-4k]\nrw=randread\nbs=4k\niodepth=1,32\n");
    static const char *const rr[] = { "randread-4k-qd1", "randread-4k-qd32" };
    if (CHECK_OK (s_names_are (jf, 2, rr)))
        CHECK (jf->steps[1].rw == JOB_RW_RANDREAD && jf->steps[1].iodepth == 32);
    jobfile_destroy (&jf);
    jf = s_parse ("[m]\nrw=read,write,randrw\nrwmixread=70\n");
    static const char *const modes[] = { "m-read", "m-write", "m-randrw" };
    if (CHECK_OK (s_names_are (jf, 3, modes))) {
        CHECK (jf->steps[0].rw == JOB_RW_READ && jf->steps[1].rw == JOB_RW_WRITE);
        CHECK (jf->steps[2].rw == JOB_RW_RANDRW && jf->steps[2].rwmixread == 70);
        CHECK (jf->steps[2].sweep == JOB_SWEEP_RW);
    }
    jobfile_destroy (&jf);
    /* readwrite is named rw, fio's name. */
    jf = s_parse ("[m]\nreadwrite=readwrite,randread\n");
    static const char *const rwnames[] = { "m-rw", "m-randread" };
    CHECK (s_names_are (jf, 2, rwnames));
    jobfile_destroy (&jf);

    /* bs: two sizes are reads,writes; three or more a sweep. */
    job_t j;
    if (CHECK_OK (s_one_job ("[job]\nbs=4k,8k\n", &j))) {
        CHECK (j.bs[0] == 4096 && j.bs[1] == 8192);
        CHECK (j.sweep == 0 && j.sweep_of[0] == '\0' && strcmp (j.name, "job") == 0);
    }
    if (CHECK_OK (s_one_job ("[job]\nbs=4k,8k,\n", &j)))
        CHECK (j.bs[0] == 4096 && j.bs[1] == 8192 && j.sweep == 0);
    jf = s_parse ("[b]\nbs=4k,8k,16k\n");
    static const char *const b3[] = { "b-4k", "b-8k", "b-16k" };
    if (CHECK_OK (s_names_are (jf, 3, b3))) {
        CHECK (BS_IS (&jf->steps[0], 4096) && BS_IS (&jf->steps[1], 8192));
        CHECK (BS_IS (&jf->steps[2], 16384) && jf->steps[2].sweep == JOB_SWEEP_BS);
    }
    jobfile_destroy (&jf);
    /* Compact sizes: k, m, or bytes; as written, not sorted. */
    jf = s_parse ("[b]\nblocksize=64m,512,1536,2048k,0x1000\n");
    static const char *const bsz[] = { "b-64m", "b-512", "b-1536", "b-2m", "b-4k" };
    if (CHECK_OK (s_names_are (jf, 5, bsz)))
        CHECK (BS_IS (&jf->steps[0], JOB_MAX_BS) && BS_IS (&jf->steps[2], 1536));
    jobfile_destroy (&jf);

    /* 2-D: the README's example, then a 3x2 sweep (iodepth fastest). */
    jf = s_parse ("[q]\nrw=randread,randwrite\niodepth=1,32\n");
    static const char *const q4[] = { "q-randread-qd1", "q-randread-qd32",
                                      "q-randwrite-qd1", "q-randwrite-qd32" };
    if (CHECK_OK (s_names_are (jf, 4, q4))) {
        CHECK (jf->steps[2].rw == JOB_RW_RANDWRITE && jf->steps[2].iodepth == 1);
        CHECK (jf->steps[3].sweep == (JOB_SWEEP_RW | JOB_SWEEP_IODEPTH));
    }
    jobfile_destroy (&jf);
    /* The order written in the file does not change the order of steps. */
    jf = s_parse ("[s]\niodepth=1,32\nbs=4k,64k,1m\n");
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
    jf = s_parse ("[first]\n[c]\nrw=randwrite,read\nbs=128k,4k,8k\niodepth=2,1\n"
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
    jf = s_parse ("[q]\nname=lat\niodepth=1,2\n");
    static const char *const named[] = { "lat-qd1", "lat-qd2" };
    if (CHECK_OK (s_names_are (jf, 2, named)))
        CHECK (strcmp (jf->steps[0].sweep_of, "lat") == 0);
    jobfile_destroy (&jf);

    /* Inherited from [global]: each job below expands. */
    jf = s_parse ("[global]\nrw=randread,randwrite\ndirect=1\n[a]\n[b]\niodepth=1,2\n");
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
    jf = s_parse ("[a]\n[global]\nbs=4k,8k,16k\n[b]\n");
    static const char *const g2[] = { "a", "b-4k", "b-8k", "b-16k" };
    CHECK (s_names_are (jf, 4, g2));
    jobfile_destroy (&jf);
    /* A single value replaces a list: in the job, or later in a section. */
    if (CHECK_OK (s_one_job ("[global]\niodepth=1,2\nrw=read,write\n[a]\niodepth=8\nrw=write\n",
                             &j)))
        CHECK (j.iodepth == 8 && j.rw == JOB_RW_WRITE && j.sweep == 0
            && strcmp (j.name, "a") == 0);
    if (CHECK_OK (s_one_job ("[a]\niodepth=1,2\niodepth=4\n", &j)))
        CHECK (j.iodepth == 4 && j.sweep == 0);
    if (CHECK_OK (s_one_job ("[global]\nbs=4k,8k,16k\n[a]\nbs=4k,64k\n", &j)))
        CHECK (j.bs[0] == 4096 && j.bs[1] == 65536 && j.sweep == 0);
    if (CHECK_OK (s_one_job ("[global]\nbs=4k,8k,16k\n[a]\nbs=2k\n", &j)))
        CHECK (BS_IS (&j, 2048) && j.sweep == 0);
    /* ... and a list replaces an earlier list. */
    jf = s_parse ("[global]\niodepth=1,2\n[a]\niodepth=4,8,16\n");
    static const char *const g3[] = { "a-qd4", "a-qd8", "a-qd16" };
    CHECK (s_names_are (jf, 3, g3));
    jobfile_destroy (&jf);
    EXPECT_ERR ("[global]\nbs=4k,8k,16k\n[a]\nbs=,8k\n", "t.fio:4: bs=,8k sets only writes, "
                "but the bs sweep of line 2 sets both directions (give both, bs=READS,WRITES, "
                "to replace the sweep)");
    EXPECT_ERR ("[a]\nbs=4k,8k,16k\nbs=2k,\n", "t.fio:3: bs=2k, sets only reads, but the bs "
                "sweep of line 2 sets both directions (give both, bs=READS,WRITES, to replace "
                "the sweep)");

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
    jf = s_parse ("[q]\niodepth_batch_submit=0\niodepth=4,8\n");
    if (CHECK_OK (jf && jf->nsteps == 2))
        CHECK (jf->steps[0].iodepth_batch_submit == 4 && jf->steps[1].iodepth_batch_submit == 8);
    jobfile_destroy (&jf);

    /* Too many steps: 16 x 16 is the limit, 17 x 16 is not. */
    char text[2048];
    const char *bs16 = "bs=1k,2k,3k,4k,5k,6k,7k,8k,9k,10k,11k,12k,13k,14k,15k,16k\n";
    snprintf (text, sizeof text, "[q]\n%siodepth=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n", bs16);
    jf = s_parse (text);
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
    CHECK (s_parse_fails (big, e, sizeof e));
    CHECK_MSG (strncmp (e, "t.fio:2: iodepth=1,2,3,4,", 25) == 0, "got: %s", e);
    CHECK_MSG (strstr (e, ": a sweep has more than 256 values"), "got: %s", e);
    free (big);

    /* Too long names: 63 characters is fine, 64 is not. */
    char name[64];
    memset (name, 'n', sizeof name);
    name[JOB_NAME_MAX - 1 - 12] = '\0';     /* 51 + "-randread-qd" + 1 digit... */
    snprintf (text, sizeof text, "[%s]\nrw=randread\niodepth=1,2\n", name);
    jf = s_parse (text);
    CHECK (jf && jf->nsteps == 2);
    jobfile_destroy (&jf);
    name[JOB_NAME_MAX - 1 - 12] = 'n';
    name[JOB_NAME_MAX - 1 - 4] = '\0';      /* 59 + "-qd1" = 63 */
    snprintf (text, sizeof text, "[%s]\niodepth=1,2\n", name);
    jf = s_parse (text);
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

/* tests/fixtures/jobs/sweep.fio: a QD x bs sweep. */
static void
test_sweep_fixture (void)
{
    char path[1024], err[512];
    jobfile_t *jf = jobfile_load (s_path (path, sizeof path, "sweep.fio"), err, sizeof err);
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

/* xorshift64*: deterministic, so a fuzz failure can be replayed. */
static uint64_t s_rng = 0x9E3779B97F4A7C15ull;

static uint64_t
s_rand (void)
{
    s_rng ^= s_rng >> 12;
    s_rng ^= s_rng << 25;
    s_rng ^= s_rng >> 27;
    return s_rng * 2685821657736338717ull;
}

static size_t
s_below (size_t n)
{
    return n ? (size_t) (s_rand () % n) : 0;
}

/* True if size is a block size a job may issue: 1..JOB_MAX_BS, and a
   multiple of 512 with direct=1. */
static bool
s_bs_sane (const job_t *j, uint32_t size)
{
    return size >= 1 && size <= JOB_MAX_BS && (!j->direct || size % 512 == 0);
}

/* True if the per-direction block size fields of j are sane. */
static bool
s_sizes_sane (const job_t *j)
{
    for (int d = 0; d < 2; d++) {
        if (!s_bs_sane (j, j->bs[d]))
            return false;
        if (j->bsrange_min[d] || j->bsrange_max[d]) {
            if (!s_bs_sane (j, j->bsrange_min[d]) || !s_bs_sane (j, j->bsrange_max[d])
            ||  j->bsrange_min[d] > j->bsrange_max[d])
                return false;
        }
        if (j->nbssplit[d] < 0 || j->nbssplit[d] > JOB_BSSPLIT_MAX)
            return false;
        uint32_t sum = 0;
        for (int i = 0; i < j->nbssplit[d]; i++) {
            if (!s_bs_sane (j, j->bssplit[d][i].bs) || j->bssplit[d][i].pct > 100)
                return false;
            sum += j->bssplit[d][i].pct;
        }
        if (j->nbssplit[d] && sum != 100)
            return false;
    }
    return true;
}

/* True if the percentile list, CPU list and steady state fields of j are
   sane. */
static bool
s_extras_sane (const job_t *j)
{
    if (j->npercentiles < 0 || j->npercentiles > 20)
        return false;
    for (int i = 0; i < j->npercentiles; i++)
        if (!(j->percentile_list[i] > 0 && j->percentile_list[i] <= 100)
        ||  (i > 0 && j->percentile_list[i] < j->percentile_list[i - 1]))
            return false;
    uint64_t mask[JOB_CPUS_MAX / 64];
    if (!memchr (j->cpus_allowed, '\0', sizeof j->cpus_allowed)
    ||  (j->cpus_allowed[0] && job_parse_cpus (j->cpus_allowed, mask) != 0))
        return false;
    if ((j->ss == JOB_SS_NONE) != (j->ss_dur_ns == 0)
    ||  (unsigned) j->ss > JOB_SS_BW_SLOPE
    ||  j->ss_dur_ns % NS_PER_S || j->ss_ramp_ns % NS_PER_S
    ||  (j->ss_dur_ns && j->ss_dur_ns < 2 * NS_PER_S)
    ||  j->ss_dur_ns > (uint64_t) JOB_MAX_RUNTIME_S * NS_PER_S
    ||  j->ss_ramp_ns > (uint64_t) JOB_MAX_RUNTIME_S * NS_PER_S
    ||  !(j->ss_limit >= 0 && isfinite (j->ss_limit))
    ||  (j->ss_pct && j->ss_limit > 1))
        return false;
    char why[160];
    return dist_check (&j->dist, why, sizeof why) == 0
        && (j->dist.kind != JOB_DIST_RANDOM || j->dist.param == 0);
}

/* True if a parsed job respects every documented invariant. */
static bool
s_job_sane (const job_t *j)
{
    return memchr (j->name, '\0', sizeof j->name) && j->name[0]
        && memchr (j->sweep_of, '\0', sizeof j->sweep_of)
        && (j->sweep == 0) == (j->sweep_of[0] == '\0')
        && j->sweep <= (JOB_SWEEP_RW | JOB_SWEEP_BS | JOB_SWEEP_IODEPTH)
        && memchr (j->filename, '\0', sizeof j->filename)
        && job_engine_known (j->ioengine)
        && j->line >= 1
        && (unsigned) j->rw <= JOB_RW_RANDRW
        && j->rwmixread <= 100
        && s_sizes_sane (j)
        && j->iodepth >= 1 && j->iodepth <= JOB_MAX_IODEPTH
        && j->iodepth_batch_submit >= 1 && j->iodepth_batch_submit <= j->iodepth
        && j->iodepth_batch_complete_min <= j->iodepth
        && j->numjobs >= 1 && j->numjobs <= JOB_MAX_NUMJOBS
        && j->size_pct <= 100 && j->offset_pct <= 99
        && !(j->size && j->size_pct) && !(j->offset && j->offset_pct)
        && j->runtime_ns <= (uint64_t) JOB_MAX_RUNTIME_S * NS_PER_S
        && j->ramp_time_ns <= (uint64_t) JOB_MAX_RUNTIME_S * NS_PER_S
        && j->startdelay_ns <= (uint64_t) JOB_MAX_RUNTIME_S * NS_PER_S
        && j->thinktime_ns <= 4294967295000ull
        && (!j->time_based || j->runtime_ns > 0)
        && (j->randseed_set || j->randseed == 0)
        && j->buffer_compress_percentage <= 100
        && s_extras_sane (j);
}

static void
test_fuzz (void)
{
    static const char *const tokens[] = {
        "[", "]", "[global]", "[job]", "[global]\n", "\n[j]\n", "=", "\n", "\r\n",
        ";", "#", " ", "\t", "bs", "bs=", "4k", "0x", "%", "99%", "100%",
        "time_based", "runtime=", "60", "8d", "ms", "direct=1\n", "buffered=",
        "iodepth=", "65536", "65537", "numjobs=", "rw=", "randrw", "trim",
        "rwmixread=", "rwmixwrite=", "size=", "offset=", "filename=", "name=",
        "ioengine=", "libaio", "io_uring", "18446744073709551616", "16384p",
        "${X}", "$ncpus", "(1+1)", "include x", "stonewall", "group_reporting",
        "ramp_time=", "blocksize=", "readwrite=", ":8", ",", "-", "\xEF\xBB\xBF",
        "\x7f", "\xff", "global", "norandommap",
        "bs=4k,8k\n", "bsrange=", "1k-16k", "bssplit=", "4k/50:8k/50", "/", "4k:8k:16k",
        "rate_iops=", "500,200", "thinktime=", "250", "startdelay=", "randrepeat=",
        "randseed=", "random_distribution=", "zipf:1.2", "zipf", "percentile_list=",
        "99.9:50", ".", "cpus_allowed=", "0-3,8", "255", "steadystate=", "ss=",
        "iops_slope:0.1%", "bw:2m", "ss_dur=", "ss_ramp=", "iodepth_batch=",
        "iodepth_batch_complete=", "buffer_compress_percentage=", "zero_buffers",
        "new_group", "ioengine=io_uring\n", "psync", "1000", "direct=1\nbs=", ":",
        "rw=randread,randwrite\n", "iodepth=1,2,4,8\n", "bs=4k,8k,16k\n", ",1m", ",qd",
        "read,write", "1,32", "4k,64k,1m,4k",
    };
    const char *seeds[5];
    char *seed_buf[3] = { NULL, NULL, NULL };
    const char *seed_files[3] = { "summary.fio", "qualification.fio", "advanced.fio" };
    for (int i = 0; i < 3; i++) {
        char path[1024];
        FILE *f = fopen (s_path (path, sizeof path, seed_files[i]), "rb");
        if (f) {
            seed_buf[i] = calloc (1, 65536);
            size_t n = fread (seed_buf[i], 1, 65535, f);
            seed_buf[i][n] = '\0';
            fclose (f);
        }
        seeds[i] = seed_buf[i] ? seed_buf[i] : "[job]\n";
    }
    seeds[3] = "[global]\nbs=4k\ndirect=1\n[a]\nrw=randrw\nrwmixread=70\nsize=10%\n"
               "offset=1g\nruntime=1m\ntime_based\n[b]\nname=x\n";
    seeds[4] = "[global]\ndirect=1\nrw=randread,randwrite\n[qd]\nbs=4k,64k,1m\n"
               "iodepth=1,4,32\niodepth_batch_submit=1\n[b]\niodepth=8\n";

    enum { ITERATIONS = 20000, MAX = 8192 };
    char *buf = malloc (MAX + 1);
    int bad = 0, parsed = 0;
    for (int it = 0; it < ITERATIONS; it++) {
        size_t len = 0;
        int mode = it % 3;
        if (mode == 0) {
            /* Random bytes, biased toward the syntax characters. */
            size_t n = s_below (512);
            static const char syntax[] = "[]=;#\n\r \t%kKmM0123456789abcdefgx";
            for (size_t i = 0; i < n; i++)
                buf[len++] = s_below (4) ? syntax[s_below (sizeof syntax - 1)]
                                         : (char) (1 + s_below (255));
        }
        else if (mode == 1) {
            /* Token soup. */
            size_t n = s_below (120);
            for (size_t i = 0; i < n; i++) {
                const char *t = tokens[s_below (sizeof tokens / sizeof tokens[0])];
                size_t tl = strlen (t);
                if (len + tl > MAX)
                    break;
                memcpy (buf + len, t, tl);
                len += tl;
            }
        }
        else {
            /* Mutated valid plan. */
            const char *seed = seeds[s_below (5)];
            len = strlen (seed);
            if (len > MAX / 2)
                len = MAX / 2;
            memcpy (buf, seed, len);
            int muts = 1 + (int) s_below (4);
            for (int m = 0; m < muts; m++) {
                size_t at = s_below (len + 1);
                switch (s_below (4)) {
                case 0:     /* flip a byte */
                    if (len)
                        buf[s_below (len)] = (char) (1 + s_below (255));
                    break;
                case 1: {   /* delete a run */
                    size_t del = s_below (16);
                    if (at + del > len)
                        del = len - at;
                    memmove (buf + at, buf + at + del, len - at - del);
                    len -= del;
                    break;
                }
                case 2: {   /* insert a token */
                    const char *t = tokens[s_below (sizeof tokens / sizeof tokens[0])];
                    size_t tl = strlen (t);
                    if (len + tl <= MAX) {
                        memmove (buf + at + tl, buf + at, len - at);
                        memcpy (buf + at, t, tl);
                        len += tl;
                    }
                    break;
                }
                default: {  /* duplicate a run */
                    size_t dup = s_below (64);
                    if (at + dup > len)
                        dup = len - at;
                    if (len + dup <= MAX) {
                        memmove (buf + at + dup, buf + at, len - at);
                        len += dup;
                    }
                    break;
                }
                }
            }
        }
        buf[len] = '\0';
        char err[256];
        err[0] = 'x';
        jobfile_t *jf = jobfile_parse ("fz.fio", buf, err, sizeof err);
        if (jf) {
            parsed++;
            bool ok = jf->nsteps >= 1 && jf->nsteps <= JOB_MAX_STEPS;
            for (int i = 0; ok && i < jf->nsteps; i++)
                ok = s_job_sane (&jf->steps[i]);
            if (!ok && bad++ < 5)
                fprintf (stderr, "  fuzz %d: insane result for:\n%s\n", it, buf);
            jobfile_destroy (&jf);
        }
        else if (strncmp (err, "fz.fio:", 7) != 0 || strchr (err, '\n')
              || strlen (err) < 10) {
            if (bad++ < 5)
                fprintf (stderr, "  fuzz %d: bad message '%s'\n", it, err);
        }
    }
    fprintf (stderr, "  fuzz: %d inputs, %d parsed, %d misbehaved\n", ITERATIONS, parsed, bad);
    CHECK_MSG (bad == 0, "%d of %d fuzz inputs misbehaved", bad, ITERATIONS);
    /* The mutated plans must keep some valid ones, or the fuzzer only
       ever exercises the first error. */
    CHECK_MSG (parsed > ITERATIONS / 50, "only %d fuzz inputs parsed", parsed);
    free (buf);
    free (seed_buf[0]);
    free (seed_buf[1]);
    free (seed_buf[2]);
}

static void
test_group (void)
{
    int first[JOB_MAX_STEPS + 1];
    /* No stonewall: all jobs in one step. */
    jobfile_t *jf = s_parse ("[a]\nsize=1m\n[b]\nsize=1m\n[c]\nsize=1m\n");
    CHECK (jf && jobfile_group (jf, first) == 1 && first[0] == 0 && first[1] == 3);
    jobfile_destroy (&jf);
    /* stonewall on b: a | b c. */
    jf = s_parse ("[a]\nsize=1m\n[b]\nstonewall\nsize=1m\n[c]\nsize=1m\n");
    CHECK (jf && jobfile_group (jf, first) == 2 && first[1] == 1 && first[2] == 3);
    jobfile_destroy (&jf);
    /* stonewall in [global]: one step per job. */
    jf = s_parse ("[global]\nstonewall\nsize=1m\n[a]\n[b]\n[c]\n");
    CHECK (jf && jobfile_group (jf, first) == 3 && first[3] == 3);
    jobfile_destroy (&jf);
    /* A sweep's steps are steps of their own, and so is the job after it. */
    jf = s_parse ("[p]\nsize=1m\n[q]\nsize=1m\niodepth=1,2\n[r]\nsize=1m\n[s]\nsize=1m\n");
    int n = jf ? jobfile_group (jf, first) : -1;
    CHECK_MSG (n == 4 && first[0] == 0 && first[1] == 1 && first[2] == 2 && first[3] == 3
               && first[4] == 5, "sweep grouping: %d steps", n);
    jobfile_destroy (&jf);
}

int
main (int argc, char **argv)
{
    test_group ();
    if (argc != 2) {
        fprintf (stderr, "usage: %s FIXTURES_DIR (tests/fixtures/jobs)\n", argv[0]);
        return 2;
    }
    s_dir = argv[1];
    test_summary ();
    test_qualification ();
    test_fixture_errors ();
    test_load_errors ();
    test_defaults ();
    test_globals ();
    test_crlf_and_comments ();
    test_options ();
    test_aliases ();
    test_own_files ();
    test_amount_options ();
    test_verify_options ();
    test_release_needed ();
    test_exitall ();
    test_errors ();
    test_api_edges ();
    test_advanced_fixture ();
    test_per_direction ();
    test_bssplit ();
    test_times ();
    test_random_options ();
    test_percentiles ();
    test_cpus ();
    test_steadystate ();
    test_batch ();
    test_buffers_and_groups ();
    test_lat_log ();
    test_direct_alignment ();
    test_new_options_inherit ();
    test_sweeps ();
    test_sweep_fixture ();
    test_fuzz ();
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
