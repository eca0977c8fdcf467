/*  test_jobfile.c: unit tests for the fio job file parser.

    Usage: test_jobfile FIXTURES_DIR   (tests/fixtures/jobs)

    The fixtures are the plans users will actually write (summary.fio,
    qualification.fio) and one broken file per error class; messages are
    compared exactly, because "FILE:LINE: what" is the user interface.
*/
#include "jobfile.h"
#include "testutil.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NS_PER_S 1000000000ull

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
    CHECK (j->bs == 4096);
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
        CHECK (j->bs == want[i].bs);
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
          ":6: fio option 'rate_iops' is not supported by iofleet yet" },
        { "bad-value.fio",
          ":3: bs='4q' is not a size (like 4k or 128k; allowed: 1 byte..64 MiB)" },
        { "bad-range.fio", ":5: iodepth=0 is out of range (allowed: 1..65536)" },
        { "bad-bare-key.fio", ":4: option 'bs' needs a value" },
        { "bad-outside-section.fio", ":3: option 'ioengine' outside of a section" },
        { "bad-no-jobs.fio", ": no job sections (a plan needs at least one [job])" },
        { "bad-time-based.fio", ":2: time_based needs runtime= (job 'job' has none)" },
        { "bad-direct-bs.fio", ":2: bs=1000 is not a multiple of 512, which direct=1 "
                               "(line 8) needs (job 'bad-direct')" },
        { "bad-ioengine.fio",
          ":2: ioengine 'io_uring' is not supported by iofleet yet (supported: libaio)" },
        { "bad-rw.fio", ":3: rw 'trim' is not supported by iofleet yet (supported: "
                        "read, write, randread, randwrite, rw, readwrite, randrw)" },
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
    CHECK (strcmp (j->ioengine, "libaio") == 0);
    CHECK (!j->direct);
    CHECK (j->rw == JOB_RW_READ);
    CHECK (j->rwmixread == 50);
    CHECK (j->bs == 4096);
    CHECK (j->iodepth == 1);
    CHECK (j->numjobs == 1);
    CHECK (j->size == 0 && j->size_pct == 0 && j->offset == 0 && j->offset_pct == 0);
    CHECK (j->filename[0] == '\0');
    CHECK (j->runtime_ns == 0 && j->ramp_time_ns == 0);
    CHECK (!j->time_based && !j->group_reporting && !j->stonewall);
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
    CHECK (a->bs == 8192 && a->iodepth == 4 && !a->direct && a->numjobs == 3);
    CHECK (strcmp (b->name, "b") == 0 && b->line == 9);
    CHECK (b->bs == 16384 && b->iodepth == 4 && b->direct && b->numjobs == 1);
    CHECK (strcmp (c->name, "c") == 0 && c->line == 10);
    CHECK (c->bs == 4096 && c->iodepth == 4 && c->direct && c->time_based);
    CHECK (c->runtime_ns == 10 * NS_PER_S);
    CHECK (d->bs == 16384 && d->direct && !d->time_based && d->runtime_ns == 0);
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
        CHECK (j->bs == 4096 && j->iodepth == 32 && j->numjobs == 8);
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
        CHECK (j->bs == 65536 && j->iodepth == 8 && j->rw == JOB_RW_RANDWRITE);
        CHECK (j->time_based && j->runtime_ns == 60 * NS_PER_S);
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
        CHECK (b->bs == 1024);
        CHECK (strcmp (b->name, "renamed") == 0 && b->line == 8);
        CHECK (b->stonewall);
        CHECK (b->iodepth == 32 && b->numjobs == 1024);
        CHECK (b->ramp_time_ns == 500000000ull && b->runtime_ns == 3600 * NS_PER_S);
        CHECK (strcmp (b->filename, "/dev/sda:/dev/sdb") == 0);
        CHECK (c->size == 1ull << 30 && c->size_pct == 0);
        CHECK (c->bs == 4608 && c->direct);
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
              "runtime=7d\nramp_time=604800s\nsize=100%%\noffset=99%%\n"
              "filename=%s\n", name63, fname);
    jf = s_parse (text);
    CHECK (jf && jf->nsteps == 1);
    if (jf && jf->nsteps == 1) {
        const job_t *j = &jf->steps[0];
        CHECK (strcmp (j->name, name63) == 0);
        CHECK (strcmp (j->filename, fname) == 0);
        CHECK (j->bs == JOB_MAX_BS && j->iodepth == JOB_MAX_IODEPTH);
        CHECK (j->numjobs == JOB_MAX_NUMJOBS && j->rwmixread == 0);
        CHECK (j->runtime_ns == (uint64_t) JOB_MAX_RUNTIME_S * NS_PER_S);
        CHECK (j->ramp_time_ns == (uint64_t) JOB_MAX_RUNTIME_S * NS_PER_S);
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
    EXPECT_ERR ("[job]\nnorandommap\n",
                "t.fio:2: fio option 'norandommap' is not supported by iofleet yet");
    EXPECT_ERR ("[global]\nthread\n[job]\n",
                "t.fio:2: fio option 'thread' is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nnew_group\n",
                "t.fio:2: fio option 'new_group' is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nbssplit=4k/50:64k/50\n",
                "t.fio:2: fio option 'bssplit' is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nhugepage-size=2m\n",
                "t.fio:2: fio option 'hugepage-size' is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nzonemode=zbd\n",
                "t.fio:2: fio option 'zonemode' is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nverify=crc32c\n",
                "t.fio:2: fio option 'verify' is not supported by iofleet yet");
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
    EXPECT_ERR ("[job]\nbs=4k,8k\n",
                "t.fio:2: bs=4k,8k: separate read/write block sizes are not supported by iofleet yet");
    EXPECT_ERR ("[job]\nbs=4k:8k\n",
                "t.fio:2: bs=4k:8k: separate read/write block sizes are not supported by iofleet yet");
    EXPECT_ERR ("[job]\nblocksize=,8k\n", "t.fio:2: blocksize=,8k: separate read/write "
                "block sizes are not supported by iofleet yet");
    EXPECT_ERR ("[job]\nbs=4k-8k\n",
                "t.fio:2: bs=4k-8k: separate read/write block sizes are not supported by iofleet yet");
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
    EXPECT_ERR ("[job]\nramp_time=604801\n",
                "t.fio:2: ramp_time=604801 is out of range (allowed: up to 604800s, 7 days)");
    EXPECT_ERR ("[job]\nruntime=soon\n",
                "t.fio:2: runtime='soon' is not a time (like 60, 30s, 500ms, 5m, 1h)");
    EXPECT_ERR ("[job]\nruntime=1.5s\n",
                "t.fio:2: runtime='1.5s' is not a time (like 60, 30s, 500ms, 5m, 1h)");
    EXPECT_ERR ("[job]\nname=\x7f\n",
                "t.fio:2: job name '\x7f' contains a control character or a bracket");
    EXPECT_ERR ("[global]\nname=x\n[job]\n",
                "t.fio:2: name= belongs in a job section, not in [global]");
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
    EXPECT_ERR ("[job]\nioengine=psync\n",
                "t.fio:2: ioengine 'psync' is not supported by iofleet yet (supported: libaio)");
    EXPECT_ERR ("[job]\nioengine=null\n",
                "t.fio:2: ioengine 'null' is not supported by iofleet yet (supported: libaio)");
    EXPECT_ERR ("[job]\nioengine=external:/opt/spdk_nvme\n", "t.fio:2: ioengine "
                "'external:/opt/spdk_nvme' is not supported by iofleet yet (supported: libaio)");
    EXPECT_ERR ("[job]\nioengine=aio\n",
                "t.fio:2: ioengine 'aio' is not an fio ioengine (supported: libaio)");
    EXPECT_ERR ("[job]\nioengine=LIBAIO\n",
                "t.fio:2: ioengine 'LIBAIO' is not an fio ioengine (supported: libaio)");
    EXPECT_ERR ("[job]\nrw=randtrim\n", "t.fio:2: rw 'randtrim' is not supported by iofleet "
                "yet (supported: read, write, randread, randwrite, rw, readwrite, randrw)");
    EXPECT_ERR ("[job]\nreadwrite=trimwrite\n", "t.fio:2: readwrite 'trimwrite' is not "
                "supported by iofleet yet (supported: read, write, randread, randwrite, rw, "
                "readwrite, randrw)");
    EXPECT_ERR ("[job]\nrw=random\n", "t.fio:2: rw='random' is not an fio I/O pattern "
                "(supported: read, write, randread, randwrite, rw, readwrite, randrw)");
    EXPECT_ERR ("[job]\nrw=randread:8\n",
                "t.fio:2: rw=randread:8: fio's ':N' offset modifier is not supported by iofleet yet");

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

typedef struct {
    const char *text;
    int rc;
    uint64_t value;
} parse_case_t;

static void
test_parse_size (void)
{
    static const parse_case_t cases[] = {
        { "0", 0, 0 },                  { "512", 0, 512 },
        { "4096b", 0, 4096 },           { "4096B", 0, 4096 },
        { "4k", 0, 4096 },              { "4K", 0, 4096 },
        { "4kb", 0, 4096 },             { "4kB", 0, 4096 },
        { "4KB", 0, 4096 },             { "4ki", 0, 4096 },
        { "4KiB", 0, 4096 },            { "4kib", 0, 4096 },
        { "128k", 0, 131072 },          { "1m", 0, 1048576 },
        { "1M", 0, 1048576 },           { "1MiB", 0, 1048576 },
        { "1g", 0, 1ull << 30 },        { "10G", 0, 10ull << 30 },
        { "1t", 0, 1ull << 40 },        { "2T", 0, 2ull << 40 },
        { "1p", 0, 1ull << 50 },        { "1PiB", 0, 1ull << 50 },
        { "0x10", 0, 16 },              { "0X1f", 0, 31 },
        { "0x10k", 0, 16384 },          { "0x1b", 0, 27 },
        { "007", 0, 7 },
        { "18446744073709551615", 0, UINT64_MAX },
        { "16383p", 0, 16383ull << 50 },
        { "", -EINVAL, 0 },             { "k", -EINVAL, 0 },
        { "b", -EINVAL, 0 },            { "-1", -EINVAL, 0 },
        { "+1", -EINVAL, 0 },           { " 4k", -EINVAL, 0 },
        { "4k ", -EINVAL, 0 },          { "4 k", -EINVAL, 0 },
        { "4q", -EINVAL, 0 },           { "4kk", -EINVAL, 0 },
        { "4kbb", -EINVAL, 0 },         { "4ib", -EINVAL, 0 },
        { "4i", -EINVAL, 0 },           { "1.5k", -EINVAL, 0 },
        { "0x", -EINVAL, 0 },           { "0xg", -EINVAL, 0 },
        { "4e", -EINVAL, 0 },           { "1e3", -EINVAL, 0 },
        { "50%", -EINVAL, 0 },          { "4k,8k", -EINVAL, 0 },
        { "18446744073709551616", -ERANGE, 0 },
        { "16384p", -ERANGE, 0 },       { "17179869184g", -ERANGE, 0 },
        { "0x10000000000000000", -ERANGE, 0 },
        { "99999999999999999999999k", -ERANGE, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t v = 12345;
        int rc = job_parse_size (cases[i].text, &v);
        CHECK_MSG (rc == cases[i].rc, "size '%s': rc %d, want %d", cases[i].text, rc, cases[i].rc);
        if (cases[i].rc == 0)
            CHECK_MSG (v == cases[i].value, "size '%s' = %llu, want %llu", cases[i].text,
                       (unsigned long long) v, (unsigned long long) cases[i].value);
        else
            CHECK_MSG (v == 12345, "size '%s' wrote its output on error", cases[i].text);
    }
    uint64_t v;
    CHECK (job_parse_size (NULL, &v) == -EINVAL);
    CHECK (job_parse_size ("4k", NULL) == -EINVAL);
}

static void
test_parse_time (void)
{
    static const parse_case_t cases[] = {
        { "0", 0, 0 },                  { "60", 0, 60 * NS_PER_S },
        { "60s", 0, 60 * NS_PER_S },    { "60S", 0, 60 * NS_PER_S },
        { "60sec", 0, 60 * NS_PER_S },  { "500ms", 0, 500000000ull },
        { "500MS", 0, 500000000ull },   { "500msec", 0, 500000000ull },
        { "10us", 0, 10000 },           { "10usec", 0, 10000 },
        { "2m", 0, 120 * NS_PER_S },    { "2M", 0, 120 * NS_PER_S },
        { "2min", 0, 120 * NS_PER_S },  { "1h", 0, 3600 * NS_PER_S },
        { "1H", 0, 3600 * NS_PER_S },   { "1d", 0, 86400 * NS_PER_S },
        { "7D", 0, 7 * 86400 * NS_PER_S },
        { "213503d", 0, 213503ull * 86400 * NS_PER_S },
        { "18446744073709551us", 0, 18446744073709551000ull },
        { "", -EINVAL, 0 },             { "s", -EINVAL, 0 },
        { "ms", -EINVAL, 0 },           { "-1", -EINVAL, 0 },
        { "+1", -EINVAL, 0 },           { "1.5s", -EINVAL, 0 },
        { "1x", -EINVAL, 0 },           { "1 s", -EINVAL, 0 },
        { "1s ", -EINVAL, 0 },          { "1hr", -EINVAL, 0 },
        { "1ns", -EINVAL, 0 },          { "1h30m", -EINVAL, 0 },
        { "1seconds", -EINVAL, 0 },     { "0x10", -EINVAL, 0 },
        { "213504d", -ERANGE, 0 },      { "18446744073709552us", -ERANGE, 0 },
        { "18446744073709551616us", -ERANGE, 0 },
        { "99999999999999999999", -ERANGE, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t v = 12345;
        int rc = job_parse_time (cases[i].text, &v);
        CHECK_MSG (rc == cases[i].rc, "time '%s': rc %d, want %d", cases[i].text, rc, cases[i].rc);
        if (cases[i].rc == 0)
            CHECK_MSG (v == cases[i].value, "time '%s' = %llu, want %llu", cases[i].text,
                       (unsigned long long) v, (unsigned long long) cases[i].value);
        else
            CHECK_MSG (v == 12345, "time '%s' wrote its output on error", cases[i].text);
    }
    uint64_t v;
    CHECK (job_parse_time (NULL, &v) == -EINVAL);
    CHECK (job_parse_time ("1s", NULL) == -EINVAL);
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

/* True if a parsed job respects every documented invariant. */
static bool
s_job_sane (const job_t *j)
{
    return memchr (j->name, '\0', sizeof j->name) && j->name[0]
        && memchr (j->filename, '\0', sizeof j->filename)
        && strcmp (j->ioengine, "libaio") == 0
        && j->line >= 1
        && (unsigned) j->rw <= JOB_RW_RANDRW
        && j->rwmixread <= 100
        && j->bs >= 1 && j->bs <= JOB_MAX_BS
        && (!j->direct || j->bs % 512 == 0)
        && j->iodepth >= 1 && j->iodepth <= JOB_MAX_IODEPTH
        && j->numjobs >= 1 && j->numjobs <= JOB_MAX_NUMJOBS
        && j->size_pct <= 100 && j->offset_pct <= 99
        && !(j->size && j->size_pct) && !(j->offset && j->offset_pct)
        && j->runtime_ns <= (uint64_t) JOB_MAX_RUNTIME_S * NS_PER_S
        && j->ramp_time_ns <= (uint64_t) JOB_MAX_RUNTIME_S * NS_PER_S
        && (!j->time_based || j->runtime_ns > 0);
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
    };
    const char *seeds[3];
    char *seed_buf[2] = { NULL, NULL };
    const char *seed_files[2] = { "summary.fio", "qualification.fio" };
    for (int i = 0; i < 2; i++) {
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
    seeds[2] = "[global]\nbs=4k\ndirect=1\n[a]\nrw=randrw\nrwmixread=70\nsize=10%\n"
               "offset=1g\nruntime=1m\ntime_based\n[b]\nname=x\n";

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
            const char *seed = seeds[s_below (3)];
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
}

int
main (int argc, char **argv)
{
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
    test_errors ();
    test_parse_size ();
    test_parse_time ();
    test_api_edges ();
    test_fuzz ();
    return TEST_DONE ();
}
