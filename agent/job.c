/*  job.c: one step running on an agent (see job.h): planning a job from
    its JobSpec, its life (new, start, stop, destroy) and the collection of
    its workers' intervals.  Opening it is job_open.c; its worker threads
    are worker.c; their state is job_state.h.
*/
#define _GNU_SOURCE
#include "job.h"
#include "jobfile.h"
#include "job_open.h"
#include "job_state.h"
#include "interval.h"
#include "io_logs.h"
#include "iogen.h"
#include "worker.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

/* Refuses a trim job's target that is not a block device, before anything
   is opened or laid out: BLKDISCARD takes only those (fio 3.33 tries, and
   its first trim fails with ENOTTY).  Returns 0, or -1 with err set. */
static int
trim_target_check (const iojob_t *j, bool purge, const target_t *t, char *err, size_t errlen)
{
    struct stat st;
    if (stat (t->path, &st) == 0 && S_ISBLK (st.st_mode))
        return 0;
    char what[64];
    if (purge)
        snprintf (what, sizeof what, "the purge step");
    else
        snprintf (what, sizeof what, j->replay ? "the read_iolog log" : "rw=%s",
                  job_rw_name ((job_rw_t) j->rw));
    snprintf (err, errlen, "%s trims (BLKDISCARD), which only a block device takes: '%s' "
              "is %s (fio 3.33 fails its first trim with ENOTTY); name a block device, or a "
              "loop device over the file (losetup)", what, t->path,
              stat (t->path, &st) != 0 ? "not there" : "not a block device");
    return -1;
}

/* Block sizes, the offset unit, and the direct=1 alignment check. */
static int
plan_sizes (iojob_t *j, const Iofleet__JobSpec *spec, char *err, size_t errlen)
{
    j->bs[0] = spec->bs;
    j->bs[1] = spec->bs_write;
    j->bsr_min[0] = spec->bsrange_min_read;
    j->bsr_max[0] = spec->bsrange_max_read;
    j->bsr_min[1] = spec->bsrange_min_write;
    j->bsr_max[1] = spec->bsrange_max_write;
    /* Trims take the writes' sizes: fio's bs=R,W carries W over to trims
       (the parser takes no third value). */
    j->bs[IO_TRIM] = j->bs[IO_WRITE];
    j->bsr_min[IO_TRIM] = j->bsr_min[IO_WRITE];
    j->bsr_max[IO_TRIM] = j->bsr_max[IO_WRITE];
    size_t nsplit[DIR_COUNT] = { spec->n_bssplit_read, spec->n_bssplit_write,
                                 spec->n_bssplit_write };
    Iofleet__BsSplit **split[DIR_COUNT] = { spec->bssplit_read, spec->bssplit_write,
                                            spec->bssplit_write };
    j->unit = UINT32_MAX;
    j->max_bs = 0;
    for (int d = 0; d < DIR_COUNT; d++) {
        if (!j->issues[d])
            continue;
        uint32_t cum = 0, lo, hi;
        if (j->replay) {
            /* A replay's sizes are the log's (fio raises max_bs to its
               largest I/O). */
            j->min_bs[d] = j->replay->min_len[d];
            j->unit = j->min_bs[d] < j->unit ? j->min_bs[d] : j->unit;
            if (j->replay->max_len[d] > j->max_bs)
                j->max_bs = j->replay->max_len[d];
            continue;
        }
        j->nsplit[d] = (int) nsplit[d];
        for (size_t i = 0; i < nsplit[d]; i++) {
            j->split_bs[d][i] = split[d][i]->bs;
            cum += split[d][i]->pct;
            j->split_cum[d][i] = cum;
        }
        if (j->nsplit[d]) {
            lo = UINT32_MAX, hi = 0;
            for (int i = 0; i < j->nsplit[d]; i++) {
                lo = j->split_bs[d][i] < lo ? j->split_bs[d][i] : lo;
                hi = j->split_bs[d][i] > hi ? j->split_bs[d][i] : hi;
            }
        } else if (j->bsr_min[d]) {
            lo = j->bsr_min[d];
            hi = j->bsr_max[d];
        } else
            lo = hi = j->bs[d];
        j->min_bs[d] = lo;
        j->unit = lo < j->unit ? lo : j->unit;
        j->max_bs = hi > j->max_bs ? hi : j->max_bs;
    }
    /* fio keeps a sequential position per direction (f->last_pos[ddir]), and
       aligns each direction to its own smallest block size (blockalign's
       default).  Directions of different smallest sizes therefore get a
       generator each, in their own size; otherwise one random map per file
       serves them all, as fio's. */
    /* blockalign: random offsets on its boundary instead; fio ignores it
       for sequential jobs, and turns the random map off ("Any use of
       blockalign= turns off randommap") where it is not the block size. */
    uint32_t ba[DIR_COUNT] = { spec->blockalign_read, spec->blockalign_write,
                               spec->blockalign_write };
    bool unmapped = false;
    j->shared_unit = 0;
    j->offsets_per_dir = !iogen_rw_is_random (j->rw);
    for (int d = 0; d < DIR_COUNT; d++) {
        j->align[d] = iogen_rw_is_random (j->rw) && ba[d] ? ba[d] : j->min_bs[d];
        unmapped |= j->min_bs[d] && j->align[d] != j->min_bs[d];
        if (!j->min_bs[d])
            continue;
        if (j->shared_unit && j->align[d] != j->shared_unit)
            j->offsets_per_dir = true;
        if (!j->shared_unit)
            j->shared_unit = j->align[d];
    }
    if (unmapped && j->off_mode == OFF_RANDOM)
        j->off_mode = OFF_RANDOM_NOMAP;
    if (j->direct) {
        uint32_t sizes[DIR_COUNT * JOB_BSSPLIT_MAX + DIR_COUNT + 2];
        int n = 0;
        sizes[n++] = j->unit;
        sizes[n++] = j->max_bs;
        for (int d = 0; d < DIR_COUNT; d++)
            if (j->min_bs[d])
                sizes[n++] = j->align[d];
        for (int d = 0; d < DIR_COUNT; d++)
            for (int i = 0; i < j->nsplit[d]; i++)
                sizes[n++] = j->split_bs[d][i];
        for (int i = 0; i < n; i++)
            if (sizes[i] % 512) {
                snprintf (err, errlen, "block size %u is not a multiple of 512, which direct=1 "
                          "(O_DIRECT) needs; use a multiple of the device's logical block size",
                          sizes[i]);
                return -EINVAL;
            }
    }
    return 0;
}

/* The engine and how it issues: depth, batches, direct, timing.  Returns
   -1 (err filled) when the engine is not built in. */
static int
s_plan_engine (iojob_t *j, const Iofleet__JobSpec *spec, char *err, size_t errlen)
{
    j->ops = engine_find (spec->ioengine);
    if (!j->ops) {
        snprintf (err, errlen, "ioengine '%s' is not built into this agent (it has: %s)",
                  spec->ioengine, engine_names ());
        return -1;
    }
    j->diskless = j->ops->diskless;
    j->rw = spec->rw;
    j->rwmixread = spec->rwmixread;
    j->iodepth = spec->iodepth;
    /* A synchronous engine has one I/O in flight whatever iodepth says
       (fio behaves so too); deeper would only serialize the queue. */
    if (j->ops->one_at_a_time)
        j->iodepth = 1;
    j->slat = !j->ops->completes_at_commit
              || (j->ops->queued_above_depth_1 && j->iodepth > 1);
    /* 1..iodepth, checked on the wire (message.c) and defaulted by the
       parser; a synchronous engine's depth of 1 lowers them with it. */
    IOF_ASSERT (spec->iodepth_batch_submit >= 1 && spec->iodepth_batch_complete_min >= 1);
    j->batch_submit = spec->iodepth_batch_submit;
    j->batch_complete = spec->iodepth_batch_complete_min;
    if (j->batch_submit > j->iodepth)
        j->batch_submit = j->iodepth;
    if (j->batch_complete > j->iodepth)
        j->batch_complete = j->iodepth;
    j->direct = spec->direct;
    j->time_based = spec->time_based;
    j->runtime_ns = spec->runtime_ns;
    j->ramp_ns = spec->ramp_time_ns;
    j->startdelay_ns = spec->startdelay_ns;
    j->interval_ns = spec->interval_ns;
    j->thinktime_ns = spec->thinktime_ns;
    return 0;
}

/* Where and what it writes: the seed, offsets' mode and distribution, and
   the buffers' contents.  Can't fail. */
static void
s_plan_pattern (iojob_t *j, const Iofleet__JobSpec *spec)
{
    /* fio: randrepeat=1 (default) gives the same sequence every run. */
    j->seed = spec->randseed_set ? spec->randseed
            : spec->randrepeat ? 0x89ull : clock_real_ns () ^ ((uint64_t) getpid () << 32);
    if (!iogen_rw_is_random (j->rw))
        j->off_mode = OFF_SEQ;
    else if (spec->random_distribution != IOFLEET__DISTRIBUTION__DIST_RANDOM)
        j->off_mode = OFF_SKEWED;
    else
        j->off_mode = spec->norandommap ? OFF_RANDOM_NOMAP : OFF_RANDOM;
    /* message.c checked it against dist_check's rules. */
    j->dist.kind = (job_dist_t) spec->random_distribution;
    j->dist.param = spec->dist_param;
    j->dist.centered = spec->dist_centered;
    j->dist.center = spec->dist_center;
    j->dist.nzones = (int) spec->n_zones;
    for (size_t z = 0; z < spec->n_zones; z++) {
        j->dist.zones[z].access_pct = spec->zones[z]->access_pct;
        j->dist.zones[z].size = spec->zones[z]->size;
    }
    j->compress_pct = spec->buffer_compress_percentage;
    j->zero_buffers = spec->zero_buffers;
    j->refill = spec->refill_buffers && !j->zero_buffers;
    j->scramble = !spec->no_scramble;
}

/* cpus_allowed into j->cpus.  Returns -1 (err filled) on a bad list. */
static int
s_plan_cpus (iojob_t *j, const Iofleet__JobSpec *spec, char *err, size_t errlen)
{
    if (spec->cpus_allowed && spec->cpus_allowed[0]) {
        uint64_t bits[JOB_CPUS_MAX / 64];
        if (job_parse_cpus (spec->cpus_allowed, bits) != 0) {
            snprintf (err, errlen, "cpus_allowed '%s' is not a CPU list", spec->cpus_allowed);
            return -1;
        }
        CPU_ZERO (&j->cpus);
        int ncpu = 0;
        for (int c = 0; c < JOB_CPUS_MAX && c < CPU_SETSIZE; c++)
            if (bits[c / 64] >> (c % 64) & 1) {
                CPU_SET (c, &j->cpus);
                ncpu++;
            }
        j->have_cpus = ncpu > 0;
    }
    return 0;
}

/* read_iolog: the log decides what is issued, and where; else rw does.
   Returns -1 (err filled) when the log cannot be had. */
static int
s_plan_replay (iojob_t *j, const Iofleet__JobSpec *spec, const target_policy_t *pol, char *err,
               size_t errlen)
{
    if (spec->read_iolog && spec->read_iolog[0]) {
        target_t lt;
        char why[1024];
        if (target_resolve (pol, spec->read_iolog, &lt, why, sizeof why)) {
            snprintf (err, errlen, "read_iolog: %s", why);
            return -1;
        }
        if (!(j->replay = replay_load (lt.path, err, errlen)))
            return -1;
        j->replay_redirect = spec->replay_redirect && spec->replay_redirect[0];
        j->replay_no_stall = spec->replay_no_stall;
        j->replay_time_scale = spec->replay_time_scale ? spec->replay_time_scale
                                                       : JOB_DEFAULT_REPLAY_TIME_SCALE;
        j->replay_align = spec->replay_align;
        j->replay_scale = spec->replay_scale ? spec->replay_scale : JOB_DEFAULT_REPLAY_SCALE;
        for (int d = 0; d < DIR_COUNT; d++)
            j->issues[d] = j->replay->max_len[d] > 0;
    }
    else
        for (int d = 0; d < DIR_COUNT; d++)
            j->issues[d] = iogen_rw_has (j->rw, j->rwmixread, (io_dir_t) d);
    return 0;
}

/* Rates, their floors and the mix of sequential runs.  Returns -1 (err
   filled) for a poisson rate under one I/O a second. */
static int
s_plan_rates (iojob_t *j, const Iofleet__JobSpec *spec, char *err, size_t errlen)
{
    /* fio's __setup_rate: rate= in bytes a second, or else rate_iops x the
       direction's smallest block size; with a bssplit, rate_iops is a
       period per I/O instead. */
    uint32_t rate[2] = { spec->rate_iops_read, spec->rate_iops_write };
    uint64_t rate_bytes[2] = { spec->rate_bytes_read, spec->rate_bytes_write };
    for (int d = 0; d < 2; d++) {
        if (rate_bytes[d]) {
            j->rate_bps[d] = rate_bytes[d];
            j->rate_period[d] = 0;
            continue;
        }
        j->rate_bps[d] = (uint64_t) rate[d] * j->min_bs[d];
        j->rate_period[d] = rate[d] && j->nsplit[d] ? NS_PER_SEC / rate[d] : 0;
    }
    /* fio's poisson process: iops = bps / min bs, a mean gap of 1000000 /
       iops whole µs.  Under 1 I/O a second fio 3.33 divides by zero
       (SIGFPE); iofleet refuses it. */
    for (int d = 0; spec->rate_poisson && d < DIR_COUNT; d++) {
        if (!j->rate_bps[d] || !j->min_bs[d])
            continue;
        uint64_t iops = j->rate_bps[d] / j->min_bs[d];
        if (iops == 0) {
            snprintf (err, errlen, "rate_process=poisson with %s at %llu bytes a second, under "
                      "one %u-byte I/O a second (fio 3.33 stops with SIGFPE): raise the rate",
                      d ? "writes" : "reads", (unsigned long long) j->rate_bps[d], j->min_bs[d]);
            return -1;
        }
        j->poisson_us[d] = 1000000 / iops;
    }
    j->paced = j->rate_bps[0] || j->rate_bps[1] || j->thinktime_ns;
    j->log_offset = spec->log_offset;
    j->seq_nr = iogen_rw_is_random (j->rw) && spec->rw_seq_nr > 1 ? spec->rw_seq_nr : 0;
    j->bs_unaligned = spec->bs_unaligned;
    j->rate_min[0] = spec->rate_min_read;
    j->rate_min[1] = spec->rate_min_write;
    j->rate_iops_min[0] = spec->rate_iops_min_read;
    j->rate_iops_min[1] = spec->rate_iops_min_write;
    j->rate_cycle_ns = (uint64_t) (spec->rate_cycle_ms ? spec->rate_cycle_ms
                                                           : JOB_DEFAULT_RATE_CYCLE_MS) * NS_PER_MS;
    j->perc_random[IO_READ] = 100 - (spec->perc_seq_read <= 100 ? spec->perc_seq_read : 0);
    j->perc_random[IO_WRITE] = 100 - (spec->perc_seq_write <= 100 ? spec->perc_seq_write : 0);
    j->perc_random[IO_TRIM] = j->perc_random[IO_WRITE];
    j->seq_mix = iogen_rw_is_random (j->rw)
              && (j->seq_nr || j->perc_random[IO_READ] < 100 || j->perc_random[IO_WRITE] < 100);
    return 0;
}

/* Latency targets and steady state.  Returns -1 (err filled) when
   ss_dur covers fewer than 2 intervals. */
static int
s_plan_latency (iojob_t *j, const Iofleet__JobSpec *spec, char *err, size_t errlen)
{
    j->lat_target_ns = spec->latency_target_ns;
    j->lat_window_ns = spec->latency_window_ns;
    j->lat_pct = spec->latency_percentile > 0 ? spec->latency_percentile
                                              : JOB_DEFAULT_LAT_PERCENTILE;
    j->lat_run = spec->latency_run;
    if (spec->ss != IOFLEET__STEADY_STATE__SS_NONE) {
        uint32_t nsamples = (uint32_t) (spec->ss_dur_ns / spec->interval_ns);
        uint32_t nramp = (uint32_t) (spec->ss_ramp_ns / spec->interval_ns);
        j->ss = steadystate_new ((job_ss_t) spec->ss, spec->ss_limit, spec->ss_pct, nsamples,
                                 nramp);
        if (!j->ss) {
            snprintf (err, errlen, "steadystate: ss_dur must cover at least 2 intervals");
            return -1;
        }
    }
    return 0;
}

/* Targets and workers: how many, their arrays, loops, verify.  Returns -1
   (err filled) when files_per_worker does not divide, or out of memory. */
static int
s_plan_workers (iojob_t *j, const Iofleet__JobSpec *spec, char *err, size_t errlen)
{
    j->ntargets = (int) spec->n_filenames;
    j->nworkers = (int) spec->numjobs;
    j->files_per_worker = spec->files_per_worker;
    /* Without replay_redirect a replay's targets are the files its log
       names (the spec holds the log's path in their place). */
    char *const *names = spec->filenames;
    if (j->replay && !j->replay_redirect) {
        j->ntargets = j->replay->nfiles;
        names = j->replay->files;
        j->files_per_worker = 0;
    }
    if (j->files_per_worker
        && (uint64_t) j->ntargets != (uint64_t) j->nworkers * j->files_per_worker) {
        snprintf (err, errlen, "files_per_worker %u with %d files for %d workers",
                  j->files_per_worker, j->ntargets, j->nworkers);
        return -1;
    }
    j->targets = calloc ((size_t) j->ntargets, sizeof *j->targets);
    j->region_start = calloc ((size_t) j->ntargets, sizeof *j->region_start);
    j->region_units = calloc ((size_t) j->ntargets, sizeof *j->region_units);
    j->region_bytes = calloc ((size_t) j->ntargets, sizeof *j->region_bytes);
    j->number_ios = spec->number_ios;
    j->loops = spec->loops ? spec->loops : JOB_DEFAULT_LOOPS;
    j->offset_increment = spec->offset_increment;
    j->exitall = spec->exitall;
    j->purge_format = spec->purge_format;
    _Static_assert ((int) VERIFY_MD5 == (int) IOFLEET__VERIFY_KIND__VERIFY_MD5
                    && (int) VERIFY_CRC32C == (int) IOFLEET__VERIFY_KIND__VERIFY_CRC32C,
                    "verify kinds numbered as the JobSpec's");
    j->verify = (verify_kind_t) spec->verify;
    j->verify_read_back = !spec->verify_skip_read_back;
    j->verify_backlog = spec->verify_backlog;
    j->verify_fatal = spec->verify_fatal;
    j->verify_only = spec->verify_only && j->verify != VERIFY_NONE;
    j->workers = calloc ((size_t) j->nworkers, sizeof *j->workers);
    if (!j->targets || !j->region_start || !j->region_units || !j->region_bytes || !j->workers) {
        snprintf (err, errlen, "out of memory");
        return -1;
    }
    for (int t = 0; t < j->ntargets; t++)
        j->targets[t].fd = -1;
    j->names = names;
    return 0;
}

/* What each target must hold (need_each) and the options that ask for it
   (need_what), as the job file says them.  Can't fail. */
static void
s_plan_need (iojob_t *j, const Iofleet__JobSpec *spec)
{
    uint64_t share = job_file_share (j, spec);
    if (share)
        j->need_each = spec->offset + (uint64_t) (j->nworkers - 1) * j->offset_increment + share;
    /* What asks for need_each, as the job file says it. */
    char v[32];
    size_t nw = (size_t) snprintf (j->need_what, sizeof j->need_what, "%s=%s",
                                   spec->filesize ? "filesize" : "size",
                                   fmt_size_option (spec->filesize ? spec->filesize : spec->size,
                                                    v, sizeof v));
    if (spec->offset && nw < sizeof j->need_what)
        nw += (size_t) snprintf (j->need_what + nw, sizeof j->need_what - nw, ", offset=%s",
                                 fmt_size_option (spec->offset, v, sizeof v));
    if (j->offset_increment && j->nworkers > 1 && nw < sizeof j->need_what)
        snprintf (j->need_what + nw, sizeof j->need_what - nw, ", offset_increment=%s, numjobs=%d",
                  fmt_size_option (j->offset_increment, v, sizeof v), j->nworkers);
}

/* Resolves each target (a diskless engine's is a name) and checks it
   against trims and purges.  Returns -1 (err filled) on the first that
   fails. */
static int
s_plan_targets (iojob_t *j, const Iofleet__JobSpec *spec, const target_policy_t *pol, char *err,
                size_t errlen)
{
    bool trims = j->issues[IO_TRIM];
    for (int t = 0; t < j->ntargets; t++) {
        if (j->diskless) {
            /* A diskless engine (fio's null) touches nothing: the "target" is a name. */
            str_copy (j->targets[t].path, sizeof j->targets[t].path, j->names[t]);
            j->targets[t].size = j->need_each;
            if (!j->need_each) {
                snprintf (err, errlen, "ioengine=%s needs size= (there is no file to size it)",
                          j->ops->name);
                return -1;
            }
        } else if (target_resolve (pol, j->names[t], &j->targets[t], err, errlen)
                   || (trims && trim_target_check (j, spec->purge, &j->targets[t], err,
                                                   errlen))
                   || (spec->purge && target_check_purge (&j->targets[t], err, errlen))) {
            return -1;
        }
    }
    return 0;
}

iojob_t *
job_plan (const Iofleet__JobSpec *spec, uint64_t run, uint32_t step, const target_policy_t *pol,
          char *err, size_t errlen)
{
    iojob_t *j = calloc (1, sizeof *j);
    if (!j) {
        snprintf (err, errlen, "out of memory");
        return NULL;
    }
    j->run = run;
    j->step = step;
    j->histograms = true;
    str_copy (j->name, sizeof j->name, spec->name);
    if (s_plan_engine (j, spec, err, errlen)) {
        free (j);
        return NULL;
    }
    s_plan_pattern (j, spec);
    /* Nothing is owned yet (a failed replay_load leaves j->replay NULL):
       a plain free undoes these. */
    if (s_plan_cpus (j, spec, err, errlen) || s_plan_replay (j, spec, pol, err, errlen)) {
        free (j);
        return NULL;
    }
    if (plan_sizes (j, spec, err, errlen) || s_plan_rates (j, spec, err, errlen)
        || s_plan_latency (j, spec, err, errlen) || s_plan_workers (j, spec, err, errlen)) {
        job_destroy (&j);
        return NULL;
    }
    /* A trim destroys data as a write does: the write guard judges both. */
    j->writes = j->issues[IO_WRITE] || j->issues[IO_TRIM];
    if (job_trimwrite_of (j) && j->number_ios)
        j->number_ios *= 2;         /* fio counts the trims and the writes */
    s_plan_need (j, spec);
    if (s_plan_targets (j, spec, pol, err, errlen)) {
        job_destroy (&j);
        return NULL;
    }
    return j;
}

/* The job's targets and the bytes each is laid out to, into out (max
   entries).  Returns how many.  Can't fail. */
static int
job_space_needs (const iojob_t *self, target_need_t *out, int max)
{
    int n = 0;
    for (int t = 0; !self->diskless && t < self->ntargets && n < max; t++)
        out[n++] = (target_need_t) { &self->targets[t], self->need_each, self->need_what };
    return n;
}

int
job_check_space (iojob_t *const *jobs, int njobs, char *err, size_t errlen)
{
    int max = 0;
    for (int i = 0; i < njobs; i++)
        max += jobs[i]->ntargets;
    target_need_t *needs = calloc ((size_t) (max > 0 ? max : 1), sizeof *needs);
    if (!needs) {
        snprintf (err, errlen, "out of memory checking free space");
        return -ENOMEM;
    }
    int n = 0;
    for (int i = 0; i < njobs; i++)
        n += job_space_needs (jobs[i], needs + n, max - n);
    int rc = target_space_check (needs, n, err, errlen);
    free (needs);
    return rc;
}

iojob_t *
job_new (const Iofleet__JobSpec *spec, uint64_t run, uint32_t step, const target_policy_t *pol,
         char *err, size_t errlen)
{
    iojob_t *j = job_plan (spec, run, step, pol, err, errlen);
    if (j && (job_check_space (&j, 1, err, errlen) || job_open (j, spec, pol, err, errlen)))
        job_destroy (&j);
    return j;
}

void
job_destroy (iojob_t **self_p)
{
    iojob_t *j = *self_p;
    if (!j)
        return;
    job_stop (j);
    for (int i = 0; i < j->nworkers && j->workers; i++) {
        worker_t *w = &j->workers[i];
        if (w->thread_started)
            pthread_join (w->thread, NULL);
        if (w->engine_ready)
            j->ops->cleanup (&w->engine);
        lat_log_close (w);
        for (unsigned u = 0; w->units && u < w->depth; u++)
            free (w->units[u].engine_data);
        free (w->bufmem);
        for (int g = 0; w->offsets && g < j->ntargets * DIR_COUNT; g++)
            offsets_destroy (&w->offsets[g]);
        free (w->offsets);
        free (w->units);
        free (w->vlog);
        free (w->slot[0]);
        free (w->slot[1]);
        free (w->trimmed);
        free (w->last_end);
    }
    for (int t = 0; t < j->ntargets && j->targets; t++)
        target_close (&j->targets[t]);
    if (j->iolog)
        fclose (j->iolog);
    for (int t = 0; t < j->ntargets && j->iolog_names; t++)
        free (j->iolog_names[t]);
    free (j->iolog_names);
    replay_free (&j->replay);
    steadystate_destroy (&j->ss);
    free (j->workers);
    free (j->targets);
    free (j->region_start);
    free (j->region_units);
    free (j->region_bytes);
    free (j);
    *self_p = NULL;
}

uint64_t job_run (const iojob_t *self) { return self->run; }

uint32_t job_step (const iojob_t *self) { return self->step; }

int job_ntargets (const iojob_t *self) { return self->ntargets; }

const char *job_target_path (const iojob_t *self, int i) { return self->targets[i].path; }

uint64_t
job_planned_bytes (const iojob_t *self, int i)
{
    if (self->time_based || self->number_ios || !self->workers)
        return 0;
    uint64_t sum = 0;
    for (int w = 0; w < self->nworkers; w++) {
        /* The targets worker w goes round: its own K files, or all. */
        int first = self->files_per_worker ? w * (int) self->files_per_worker : 0;
        int n = self->files_per_worker ? (int) self->files_per_worker : self->ntargets;
        if (i >= first && i < first + n && n > 0)
            sum += self->workers[w].io_limit / (uint64_t) n * self->loops;
    }
    return sum;
}

bool job_steady (const iojob_t *self) { return self->steady; }

void job_set_histograms (iojob_t *self, bool on) { self->histograms = on; }

void job_set_per_worker (iojob_t *self, bool on) { self->per_worker = on; }

bool job_exitall (const iojob_t *self) { return self->exitall; }

int job_nworkers (const iojob_t *self) { return self->nworkers; }

int
job_start (iojob_t *self, uint64_t mono_start)
{
    self->mono_start = mono_start + self->startdelay_ns;
    self->measure_start = self->mono_start + self->ramp_ns;
    self->measure_end = self->runtime_ns ? self->measure_start + self->runtime_ns : UINT64_MAX;
    /* latency_target without latency_run: fio reports the depth it settled
       on, its figures reset then; measuring starts there (lat_success). */
    self->search_start = self->measure_start;
    if (self->lat_target_ns && !self->lat_run)
        self->measure_start = UINT64_MAX;
    for (int i = 0; i < self->nworkers; i++) {
        worker_t *w = &self->workers[i];
        int rc = pthread_create (&w->thread, NULL, worker_main, w);
        if (rc) {
            job_stop (self);
            return -rc;
        }
        w->thread_started = true;
    }
    return 0;
}

void
job_stop (iojob_t *self)
{
    atomic_store (&self->stop, true);
}

int
job_collect (iojob_t *self, dir_stats_t *out, uint32_t *seq, uint64_t *t_start, uint64_t *t_end)
{
    uint32_t k = self->next_collect;
    int ncontrib = 0;
    bool all_finished = true;
    for (int i = 0; i < self->nworkers; i++) {
        worker_t *w = &self->workers[i];
        if (atomic_load_explicit (&w->published, memory_order_acquire) > k) {
            ncontrib++;
            continue;
        }
        /* finished is stored after the last publish, so re-read published. */
        if (!atomic_load_explicit (&w->finished, memory_order_acquire))
            return 0;
        if (atomic_load_explicit (&w->published, memory_order_acquire) > k)
            ncontrib++;
    }
    if (ncontrib == 0)
        return -1;
    for (int i = 0; i < self->nworkers; i++)
        if (!atomic_load_explicit (&self->workers[i].finished, memory_order_acquire))
            all_finished = false;

    int nd = self->ntargets * DIR_COUNT, nout = nd * (self->per_worker ? self->nworkers : 1);
    for (int d = 0; d < nout; d++)
        dir_stats_reset (&out[d]);
    uint64_t wend = 0;
    for (int i = 0; i < self->nworkers; i++) {
        worker_t *w = &self->workers[i];
        if (atomic_load_explicit (&w->published, memory_order_acquire) <= k)
            continue;
        dir_stats_t *slot = w->slot[k % 2];
        dir_stats_t *to = out + (self->per_worker ? i * nd : 0);
        for (int d = 0; d < nd; d++) {
            dir_stats_merge (&to[d], &slot[d]);
            dir_stats_reset (&slot[d]);
        }
        if (w->end_mono > wend)
            wend = w->end_mono;
        atomic_store_explicit (&w->consumed, k + 1, memory_order_release);
    }
    *seq = k;
    *t_start = self->measure_start + (uint64_t) k * self->interval_ns;
    *t_end = interval_end (self, k);
    /* A size-limited job's last interval ends when its workers stopped. */
    if (all_finished && wend && wend < *t_end)
        *t_end = wend > *t_start ? wend : *t_start;
    self->next_collect = k + 1;

    if (self->ss && !self->steady && *t_end > *t_start) {
        uint64_t ops = 0, bytes = 0;
        for (int d = 0; d < nout; d++) {
            ops += out[d].ops;
            bytes += out[d].bytes;
        }
        double secs = (double) (*t_end - *t_start) / 1e9;
        if (steadystate_add (self->ss, (double) ops / secs, (double) bytes / secs)) {
            self->steady = true;
            log_info ("job '%s': steady state reached (criterion %g); stopping", self->name,
                      steadystate_criterion (self->ss));
            job_stop (self);
        }
    }
    return 1;
}

uint64_t
job_actual_start (const iojob_t *self)
{
    uint64_t first = 0;
    for (int i = 0; i < self->nworkers; i++) {
        uint64_t t = self->workers[i].wake_mono;
        if (t && (first == 0 || t < first))
            first = t;
    }
    return first;
}

uint64_t
job_elapsed (const iojob_t *self)
{
    uint64_t last = 0;
    for (int i = 0; i < self->nworkers; i++) {
        if (!atomic_load_explicit (&self->workers[i].finished, memory_order_acquire))
            return 0;
        if (self->workers[i].end_mono > last)
            last = self->workers[i].end_mono;
    }
    uint64_t first = job_actual_start (self);
    /* latency_target: fio resets its figures, job_runtime included, when
       the search settles; the job's time counts from there. */
    if (self->lat_target_ns && !self->lat_run && self->measure_start != UINT64_MAX
        && self->measure_start > first)
        first = self->measure_start;
    return last > first ? last - first : 0;
}

uint32_t
job_latency_depth (const iojob_t *self)
{
    return self->lat_target_ns && self->nworkers ? self->workers[0].lat_qd : 0;
}

uint64_t
job_read_back_ns (const iojob_t *self)
{
    uint64_t most = 0;
    for (int i = 0; i < self->nworkers; i++)
        if (self->workers[i].read_back_ns > most)
            most = self->workers[i].read_back_ns;
    return most;
}

const char *
job_worker_error (const iojob_t *self, int i)
{
    const worker_t *w = &self->workers[i];
    return atomic_load_explicit (&w->finished, memory_order_acquire) ? w->error : "";
}

const char *
job_error (const iojob_t *self)
{
    for (int i = 0; i < self->nworkers; i++)
        if (atomic_load_explicit (&self->workers[i].finished, memory_order_acquire)
            && self->workers[i].error[0])
            return self->workers[i].error;
    return "";
}
