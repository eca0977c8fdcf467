/*  test_job_opts.c: unit tests for a job's options as its section's lines
    set them (common/job_opts.c) and their names (common/option_table.c):
    fio's defaults, aliases, what [global] passes down, every option iofleet
    takes, and the names it refuses.  On the fixture of the job-file tests
    (jobfile_fx.c).
*/
#include "jobfile_fx.h"
#include "jobspec.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
test_defaults (void)
{
    jobfile_t *jf = fx_parse ("[only]\n");
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

/* fio's aliases (the .alias of its option table) mean their option. */
static void
test_aliases (void)
{
    jobfile_t *jf = fx_parse ("[a]\nfileoffset=8k\ntimeout=7\nallrandrepeat=0\nsize=1m\n"
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

/* Options of fio's that iofleet now runs as fio does (the I/O itself is
   checked against fio in tests/conformance), and the ones that change no
   I/O. */
static void
test_amount_options (void)
{
    jobfile_t *jf = fx_parse ("[global]\nname=ignored\ndescription=qualify r12\nthread\nthreads=1\n"
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
    jf = fx_parse ("[a]\nfilename=x\nrw=randread\nnorandommap\nrandom_generator=lfsr\n"
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
    jf = fx_parse ("[a]\nfilename=x\nrate=1m\n[b]\nfilename=x\nrate=,500k\nrate_iops=10\n");
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
    jf = fx_parse ("[a]\nfilename=x\nwrite_iolog=logs/a.iolog\n");
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
    jf = fx_parse ("[a]\nfilename=x\nrw=write:8k\n[b]\nfilename=x\nrw=read:0\nbs=64k\n");
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

static void
test_options (void)
{
    jobfile_t *jf = fx_parse (
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
    jf = fx_parse (text);
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
    jf = fx_parse (many);
    CHECK (jf && jf->nsteps == JOB_MAX_STEPS);
    if (jf && jf->nsteps == JOB_MAX_STEPS)
        CHECK (strcmp (jf->steps[JOB_MAX_STEPS - 1].name, "j255") == 0
            && jf->steps[JOB_MAX_STEPS - 1].line == JOB_MAX_STEPS);
    jobfile_destroy (&jf);
    snprintf (many + len, cap - len, "bs=8k\n[one-too-many]\n");
    EXPECT_ERR (many, "t.fio:258: more than 256 job sections (the limit is 256)");
    free (many);
}

/* Option names: unknown, fio's own not run yet, and case. */
static void
test_key_errors (void)
{
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

}

/* randrepeat, randseed, norandommap. */
static void
test_random_seed_options (void)
{
    job_t j;
    if (CHECK_OK (fx_one_job ("[job]\nrandrepeat=0\n", &j)))
        CHECK (!j.randrepeat && !j.randseed_set);
    if (CHECK_OK (fx_one_job ("[job]\nrandrepeat=0\nrandrepeat=1\n", &j)))
        CHECK (j.randrepeat);
    EXPECT_ERR ("[job]\nrandrepeat\n", "t.fio:2: option 'randrepeat' needs a value");
    EXPECT_ERR ("[job]\nrandrepeat=2\n",
                "t.fio:2: randrepeat='2' is not a boolean (allowed: 0 or 1)");

    if (CHECK_OK (fx_one_job ("[job]\nrandseed=42\n", &j)))
        CHECK (j.randseed_set && j.randseed == 42 && j.randrepeat);
    if (CHECK_OK (fx_one_job ("[job]\nrandseed=0\n", &j)))
        CHECK (j.randseed_set && j.randseed == 0);
    if (CHECK_OK (fx_one_job ("[job]\nrandseed=0x89\n", &j)))
        CHECK (j.randseed == 0x89);
    if (CHECK_OK (fx_one_job ("[job]\nrandseed=18446744073709551615\n", &j)))
        CHECK (j.randseed == UINT64_MAX);
    EXPECT_ERR ("[job]\nrandseed=-1\n",
                "t.fio:2: randseed='-1' is not a number (allowed: 0..18446744073709551615)");
    EXPECT_ERR ("[job]\nrandseed=18446744073709551616\n", "t.fio:2: "
                "randseed=18446744073709551616 is out of range (allowed: 0..18446744073709551615)");

    /* norandommap is one of fio's "set" options: bare is fine. */
    if (CHECK_OK (fx_one_job ("[job]\nnorandommap\n", &j)))
        CHECK (j.norandommap);
    if (CHECK_OK (fx_one_job ("[global]\nnorandommap\n[job]\nnorandommap=0\n", &j)))
        CHECK (!j.norandommap);
    EXPECT_ERR ("[job]\nnorandommap=yes\n",
                "t.fio:2: norandommap='yes' is not a boolean (allowed: 0 or 1)");
}

/* blockalign, rate_process, gtod_reduce, trims. */
static void
test_align_rate_trim_options (void)
{
    job_t j;
    /* blockalign (ba): per direction as bs, 1 byte..64 MiB. */
    if (CHECK_OK (fx_one_job ("[job]\nblockalign=4k\n", &j)))
        CHECK (j.blockalign[0] == 4096 && j.blockalign[1] == 4096);
    if (CHECK_OK (fx_one_job ("[job]\nba=512,16k\n", &j)))
        CHECK (j.blockalign[0] == 512 && j.blockalign[1] == 16384);
    if (CHECK_OK (fx_one_job ("[job]\n", &j)))
        CHECK (j.blockalign[0] == 0 && j.blockalign[1] == 0);
    EXPECT_ERR ("[job]\nblockalign=0\n", "t.fio:2: blockalign=0 is out of range (allowed: 1 "
                "byte..64 MiB)");
    EXPECT_ERR ("[job]\nba=4k:8k\n", "t.fio:2: ba=4k:8k: use ',' between the read and write "
                "values (fio would also split at ':' or '-')");
    if (CHECK_OK (fx_one_job ("[job]\nrate_iops=100\nrate_process=poisson\n", &j)))
        CHECK (j.rate_poisson);
    if (CHECK_OK (fx_one_job ("[global]\nrate_process=poisson\n[job]\nrate_process=linear\n", &j)))
        CHECK (!j.rate_poisson);
    EXPECT_ERR ("[job]\nrate_process=gauss\n", "t.fio:2: rate_process=gauss is not an fio rate "
                "process (fio's: linear, poisson)");
    /* gtod_reduce is taken and changes no I/O; fio wants its value. */
    CHECK_OK (fx_one_job ("[job]\ngtod_reduce=1\n", &j));
    EXPECT_ERR ("[job]\ngtod_reduce\n", "t.fio:2: option 'gtod_reduce' needs a value");
    CHECK_OK (fx_one_job ("[job]\ngtod_reduce=0\n", &j));
    EXPECT_ERR ("[job]\ngtod_reduce=2\n", "t.fio:2: gtod_reduce='2' is not a boolean (allowed: "
                "0 or 1)");
    /* Trims: fio's four modes; verify= refused with them. */
    if (CHECK_OK (fx_one_job ("[job]\nrw=randtrim\nbs=4k,8k\n", &j)))
        CHECK (j.rw == JOB_RW_RANDTRIM && job_rw_trims (j.rw) && !job_rw_reads (j.rw));
    if (CHECK_OK (fx_one_job ("[job]\nreadwrite=trimwrite\n", &j)))
        CHECK (j.rw == JOB_RW_TRIMWRITE && strcmp (job_rw_name (j.rw), "trimwrite") == 0);
    EXPECT_ERR ("[a]\nfilename=x\nrw=trimwrite\nverify=md5\n", "t.fio:4: verify=md5 on job "
                "'a': reading back what trims left (fio's trim_verify_zero, trim_backlog) is "
                "not supported by iofleet yet");
}

/* read_iolog and its replay options, exitall, io_submit_mode. */
static void
test_replay_exit_options (void)
{
    job_t j;
    /* read_iolog and its replay options. */
    if (CHECK_OK (fx_one_job ("[job]\nread_iolog=r.log\nreplay_no_stall=1\nreplay_time_scale=200\n"
                             "replay_align=4k\nreplay_scale=2\n", &j)))
        CHECK (strcmp (j.read_iolog, "r.log") == 0 && j.replay_no_stall
               && j.replay_time_scale == 200 && j.replay_align == 4096 && j.replay_scale == 2
               && job_fleet_refusal (&j) != NULL);
    if (CHECK_OK (fx_one_job ("[job]\nread_iolog=r.log\nreplay_redirect=/dev/sdb\n"
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
    if (CHECK_OK (fx_one_job ("[job]\nexitall\nexit_what=all\ncreate_serialize=0\n", &j)))
        CHECK (j.exit_what_all && j.exitall && job_fleet_refusal (&j) != NULL);
    if (CHECK_OK (fx_one_job ("[job]\nexitall\nexit_what=stonewall\n", &j)))
        CHECK (!j.exit_what_all && job_fleet_refusal (&j) == NULL);
    EXPECT_ERR ("[job]\nexit_what=some\n", "t.fio:2: exit_what=some is not one of fio's: "
                "group, stonewall, all");
    CHECK_OK (fx_one_job ("[job]\nio_submit_mode=inline\n", &j));
    EXPECT_ERR ("[job]\nio_submit_mode=offload\n", "t.fio:2: io_submit_mode=offload: offloaded "
                "submission is not supported by iofleet yet (inline is)");
}

/* latency_target, logs, rw:N, caching, percentage_random, rate floors,
   the sync engines. */
static void
test_latency_log_options (void)
{
    job_t j;
    /* latency_target: fio's units (bare = microseconds), a window needed. */
    if (CHECK_OK (fx_one_job ("[job]\nlatency_target=2200\nlatency_window=200ms\n"
                             "latency_percentile=99.5\nlatency_run=1\n", &j)))
        CHECK (j.latency_target_ns == 2200000 && j.latency_window_ns == 200000000
               && j.latency_percentile == 99.5 && j.latency_run);
    if (CHECK_OK (fx_one_job ("[job]\n", &j)))
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
    if (CHECK_OK (fx_one_job ("[job]\nwrite_lat_log=l\nlog_offset=1\n", &j)))
        CHECK (j.log_offset);
    if (CHECK_OK (fx_one_job ("[job]\nrw=randread:8\n", &j)))
        CHECK (j.rw == JOB_RW_RANDREAD && j.rw_seq_nr == 8 && j.rw_skip == 0);
    if (CHECK_OK (fx_one_job ("[job]\nrw=read:8k\n", &j)))
        CHECK (j.rw_seq_nr == 0 && j.rw_skip == 8192);
    if (CHECK_OK (fx_one_job ("[job]\nwrite_bw_log=b\nwrite_iops_log=logs/i\n", &j)))
        CHECK (strcmp (j.write_bw_log, "b") == 0 && strcmp (j.write_iops_log, "logs/i") == 0);
    if (CHECK_OK (fx_one_job ("[job]\ninvalidate=0\nfadvise_hint=sequential\n", &j)))
        CHECK (j.no_invalidate && j.fadvise == JOB_FADV_SEQUENTIAL);
    if (CHECK_OK (fx_one_job ("[job]\n", &j)))
        CHECK (!j.no_invalidate && j.fadvise == JOB_FADV_BY_RW);
    EXPECT_ERR ("[job]\nfadvise_hint=normal\n", "t.fio:2: fadvise_hint=normal is not one of "
                "fio's: 0, 1, sequential, random");
    if (CHECK_OK (fx_one_job ("[job]\nrw=randrw\npercentage_random=30,70\n", &j)))
        CHECK (j.perc_random[0] == 30 && j.perc_random[1] == 70);
    if (CHECK_OK (fx_one_job ("[job]\nrw=randread\n", &j)))
        CHECK (j.perc_random[0] == 100 && j.perc_random[1] == 100);
    EXPECT_ERR ("[job]\npercentage_random=101\n", "t.fio:2: percentage_random=101 is not a "
                "percent (allowed: 0..100)");
    if (CHECK_OK (fx_one_job ("[job]\nbsrange=1k-9k\nbs_unaligned\n", &j)))
        CHECK (j.bs_unaligned);
    EXPECT_ERR ("[job]\ndirect=1\nbsrange=1k-9k\nblocksize_unaligned=1\n", "t.fio:2: "
                "blocksize_unaligned with direct=1 (job 'job'): O_DIRECT takes only multiples of "
                "the device's logical block size; give direct=0");
    if (CHECK_OK (fx_one_job ("[job]\nrw=randrw\nratemin=1m,2m\nrate_iops_min=100\nratecycle=500\n",
                             &j)))
        CHECK (j.rate_min[0] == 1048576 && j.rate_min[1] == 2097152 && j.rate_iops_min[0] == 100
               && j.rate_iops_min[1] == 100 && j.rate_cycle_ms == 500);
    /* fio's sync family: each name is taken. */
    static const char *const syncs[] = { "sync", "vsync", "pvsync", "pvsync2" };
    for (size_t k = 0; k < sizeof syncs / sizeof syncs[0]; k++) {
        char text[64];
        snprintf (text, sizeof text, "[job]\nioengine=%s\n", syncs[k]);
        if (CHECK_OK (fx_one_job (text, &j)))
            CHECK (strcmp (j.ioengine, syncs[k]) == 0);
    }
}

/* random_distribution: zipf, pareto, normal, zoned. */
static void
test_distribution_options (void)
{
    job_t j;
    if (CHECK_OK (fx_one_job ("[job]\nrandom_distribution=zipf:1.2\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_ZIPF && j.dist.param == 1.2);
    if (CHECK_OK (fx_one_job ("[job]\nrandom_distribution=zipf\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_ZIPF && j.dist.param == 1.1);
    if (CHECK_OK (fx_one_job ("[job]\nrandom_distribution=zipf:0.8\n", &j)))
        CHECK (j.dist.param == 0.8);
    if (CHECK_OK (fx_one_job ("[job]\nrandom_distribution=zipf:2\n", &j)))
        CHECK (j.dist.param == 2.0);
    if (CHECK_OK (fx_one_job ("[job]\nrandom_distribution=random\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_RANDOM && j.dist.param == 0);
    if (CHECK_OK (fx_one_job ("[global]\nrandom_distribution=zipf:1.5\n[job]\n"
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
    if (CHECK_OK (fx_one_job ("[job]\nrandom_distribution=zipf:1.2:0.25\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_ZIPF && j.dist.param == 1.2 && j.dist.centered
               && j.dist.center == 0.25);
    if (CHECK_OK (fx_one_job ("[job]\nrandom_distribution=pareto\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_PARETO && j.dist.param == 0.2 && !j.dist.centered);
    if (CHECK_OK (fx_one_job ("[job]\nrandom_distribution=pareto:0.9\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_PARETO && j.dist.param == 0.9);
    if (CHECK_OK (fx_one_job ("[job]\nrandom_distribution=normal\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_NORMAL && j.dist.param == 0);
    if (CHECK_OK (fx_one_job ("[job]\nrandom_distribution=normal:10:0.2\n", &j)))
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
    if (CHECK_OK (fx_one_job ("[job]\nrandom_distribution=zoned:60/10:30/20:10/70\n", &j)))
        CHECK (j.dist.kind == JOB_DIST_ZONED && j.dist.nzones == 3
               && j.dist.zones[0].access_pct == 60 && j.dist.zones[0].size == 10
               && j.dist.zones[2].access_pct == 10 && j.dist.zones[2].size == 70);
    if (CHECK_OK (fx_one_job ("[job]\nrandom_distribution=zoned:50/10:25:25\n", &j)))
        CHECK (j.dist.nzones == 3 && j.dist.zones[1].size == 45 && j.dist.zones[2].size == 45);
    if (CHECK_OK (fx_one_job ("[job]\nrandom_distribution=zoned_abs:60/8m:40/16m\n", &j)))
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
test_random_options (void)
{
    test_random_seed_options ();
    test_align_rate_trim_options ();
    test_replay_exit_options ();
    test_latency_log_options ();
    test_distribution_options ();
}

static void
test_buffers_and_groups (void)
{
    job_t j;
    if (CHECK_OK (fx_one_job ("[job]\nbuffer_compress_percentage=50\n", &j)))
        CHECK (j.buffer_compress_percentage == 50);
    if (CHECK_OK (fx_one_job ("[job]\nbuffer_compress_percentage=100\n", &j)))
        CHECK (j.buffer_compress_percentage == 100 && !j.zero_buffers);
    EXPECT_ERR ("[job]\nbuffer_compress_percentage=101\n",
                "t.fio:2: buffer_compress_percentage=101 is out of range (allowed: 0..100)");
    EXPECT_ERR ("[job]\nbuffer_compress_percentage=50%\n",
                "t.fio:2: buffer_compress_percentage='50%' is not a number (allowed: 0..100)");
    if (CHECK_OK (fx_one_job ("[job]\nzero_buffers\n", &j)))
        CHECK (j.zero_buffers);
    if (CHECK_OK (fx_one_job ("[global]\nzero_buffers=1\n[job]\nzero_buffers=0\n", &j)))
        CHECK (!j.zero_buffers);
    EXPECT_ERR ("[job]\nzero_buffers=2\n",
                "t.fio:2: zero_buffers='2' is not a boolean (allowed: 0 or 1)");
    EXPECT_ERR ("[job]\nzero_buffers=\n", "t.fio:2: option 'zero_buffers' needs a value");

    jobfile_t *jf = fx_parse ("[a]\n[b]\nnew_group\n[c]\nnew_group=1\nnew_group=0\n"
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
        if (CHECK_OK (fx_one_job (text, &j)))
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
    if (CHECK_OK (fx_one_job ("[job]\nsize=1m\n", &j)))
        CHECK (j.write_lat_log[0] == '\0' && j.thread_number == 1);
    if (CHECK_OK (fx_one_job ("[job]\nwrite_lat_log=raw\n", &j)))
        CHECK (strcmp (j.write_lat_log, "raw") == 0 && j.thread_number == 1);
    if (CHECK_OK (fx_one_job ("[global]\nwrite_lat_log=/var/log/fio/../run1\n[job]\n", &j)))
        CHECK (strcmp (j.write_lat_log, "/var/log/fio/../run1") == 0);
    /* '..' inside a name is not a component. */
    if (CHECK_OK (fx_one_job ("[job]\nwrite_lat_log=logs/a..b/..raw\n", &j)))
        CHECK (strcmp (j.write_lat_log, "logs/a..b/..raw") == 0);
    EXPECT_ERR ("[job]\nwrite_lat_log=\n", "t.fio:2: option 'write_lat_log' needs a value");
    /* Given alone, as fio: the prefix is the job's name (each job's, when
       it comes from [global]); per_job_logs=0 drops the index. */
    if (CHECK_OK (fx_one_job ("[job]\nwrite_lat_log\n", &j)))
        CHECK (strcmp (j.write_lat_log, "job") == 0 && !j.shared_logs);
    jobfile_t *bare = fx_parse ("[global]\nwrite_bw_log\nper_job_logs=0\n[a]\n[b]\n"
                                "write_iops_log\n");
    CHECK (bare && bare->nsteps == 2);
    if (bare && bare->nsteps == 2) {
        CHECK (strcmp (bare->steps[0].write_bw_log, "a") == 0);
        CHECK (strcmp (bare->steps[1].write_bw_log, "b") == 0);
        CHECK (strcmp (bare->steps[1].write_iops_log, "b") == 0);
        CHECK (bare->steps[0].write_iops_log[0] == '\0');
        CHECK (bare->steps[0].shared_logs && bare->steps[1].shared_logs);
    }
    jobfile_destroy (&bare);
    EXPECT_ERR ("[job]\nwrite_lat_log=../raw\n",
                "t.fio:2: write_lat_log=../raw: a relative prefix may not contain '..' (agents "
                "write the logs inside their --workdir); use an absolute path");
    EXPECT_ERR ("[global]\nwrite_lat_log=logs/..\n[job]\n",
                "t.fio:2: write_lat_log=logs/..: a relative prefix may not contain '..' (agents "
                "write the logs inside their --workdir); use an absolute path");
    static char text[JOB_LATLOG_MAX + 64];
    snprintf (text, sizeof text, "[job]\nwrite_lat_log=%0*d\n", JOB_LATLOG_MAX - 1, 7);
    if (CHECK_OK (fx_one_job (text, &j)))
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
    jobfile_t *jf = fx_parse ("[global]\nwrite_lat_log=raw\n[a]\nnumjobs=2\n[b]\nnumjobs=3\n"
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

/* Every new option set in [global] reaches the jobs below it, and a
   job's own setting does not leak into the next job. */
static void
test_new_options_inherit (void)
{
    jobfile_t *jf = fx_parse (
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
        CHECK (fx_split_is (j, 0, 2, split) && fx_split_is (j, 1, 2, split));
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
    CHECK (fx_split_is (b, 0, 2, split) && fx_split_is (b, 1, 1, split64));
    CHECK (b->rate_iops[0] == 0 && b->rate_iops[1] == 0);
    CHECK (b->dist.kind == JOB_DIST_RANDOM && !b->norandommap);
    CHECK (b->npercentiles == 1 && b->percentile_list[0] == 50);
    CHECK (strcmp (b->cpus_allowed, "0") == 0);
    CHECK (b->ss == JOB_SS_IOPS && b->ss_pct && fx_near (b->ss_limit, 0.01));
    CHECK (b->ss_dur_ns == 3 * NS_PER_S && b->ss_ramp_ns == 2 * NS_PER_S);
    CHECK (b->new_group && b->zero_buffers && b->iodepth_batch_submit == 2);
    jobfile_destroy (&jf);
}

int
main (void)
{
    test_defaults ();
    test_options ();
    test_aliases ();
    test_amount_options ();
    test_key_errors ();
    test_random_options ();
    test_buffers_and_groups ();
    test_lat_log ();
    test_new_options_inherit ();
    return TEST_DONE ();
}
