/*  test_jobfile_fuzz.c: random and mutated plans against the job-file
    parser (common/jobfile.c and what it calls): each is refused with a
    one-line "NAME:LINE: what", or parsed into jobs that keep every
    invariant jobfile.h documents.

    Usage: test_jobfile_fuzz FIXTURES_DIR   (tests/fixtures/jobs: its plans
    seed the mutations)

    On the fixture of the job-file tests (jobfile_fx.c).
*/
#include "jobfile_fx.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        FILE *f = fopen (fx_path (path, sizeof path, seed_files[i]), "rb");
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

int
main (int argc, char **argv)
{
    if (fx_dir_arg (argc, argv))
        return 2;
    test_fuzz ();
    return TEST_DONE ();
}
