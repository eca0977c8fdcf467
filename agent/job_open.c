/*  job_open.c: opening a planned job: its targets laid out and opened,
    its workers' buffers, engine contexts, offset generators and logs (see
    job.h, job_open).
*/
#define _GNU_SOURCE
#include "job_open.h"
#include "iogen.h"
#include "io_logs.h"
#include "interval.h"
#include "log.h"
#include "job_state.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

/* True for rw=trimwrite and randtrimwrite.  Can't fail. */
bool
job_trimwrite_of (const iojob_t *j)
{
    return j->rw == IOFLEET__RW__RW_TRIMWRITE || j->rw == IOFLEET__RW__RW_RANDTRIMWRITE;
}

/* A queue deeper than the blocks a worker's region holds runs without a
   word otherwise: say so, naming both (the log, or the policy's note hook:
   iofleet-agent run prints it as fio prints its notes).  Can't fail. */
static void
iodepth_note (const iojob_t *j, const target_policy_t *pol)
{
    if (j->replay || j->iodepth <= 1 || !j->unit)
        return;
    /* Worker 0's files: all of them, or its own (files_per_worker). */
    uint64_t blocks = 0;
    int nfiles = j->files_per_worker ? (int) j->files_per_worker : j->ntargets;
    for (int t = 0; t < nfiles && t < j->ntargets; t++)
        blocks += j->region_units[t];
    if (blocks >= j->iodepth)
        return;
    char a[32], line[PATH_MAX + 512];
    snprintf (line, sizeof line, "job '%s': iodepth=%u is more than the %llu block(s) of %u "
              "bytes in %s region (%s of %s%s): at most %llu I/O(s) can be on distinct blocks "
              "at once; lower iodepth= or raise size=", j->name, j->iodepth,
              (unsigned long long) blocks, j->unit, j->nworkers > 1 ? "each worker's" : "its",
              fmt_size (blocks * j->unit, a, sizeof a), j->targets[0].path,
              nfiles > 1 ? " and the other files" : "", (unsigned long long) blocks);
    const target_hooks_t *h = pol ? pol->hooks : NULL;
    if (h && h->note)
        h->note (h->arg, line);
    else
        log_warn ("%s", line);
}

/* Each file's region in bytes when the job says it: filesize=, or size=
   shared over the files (a worker's own, or all of them); 0 when it comes
   from each target's size (size=N%, or no size).  Can't fail. */
uint64_t
job_file_share (const iojob_t *j, const Iofleet__JobSpec *spec)
{
    if (spec->filesize)
        return spec->filesize;
    if (!spec->size || spec->size_pct)
        return 0;
    return spec->size / (j->files_per_worker ? j->files_per_worker : (uint64_t) j->ntargets);
}

/* Splits a target into the region this job works on, as fio does with
   size= and offset= (bytes or percent), the size shared over the files. */
static int
plan_region (iojob_t *j, const Iofleet__JobSpec *spec, int t, char *err, size_t errlen)
{
    uint64_t tsize = j->targets[t].size;
    uint64_t off = spec->offset_pct ? tsize / 100 * spec->offset_pct : spec->offset;
    uint64_t len = job_file_share (j, spec);
    if (spec->size_pct)
        len = tsize / 100 * spec->size_pct;
    else if (!len)
        len = tsize > off ? tsize - off : 0;
    off -= off % j->unit;
    if (off + len > tsize)
        len = tsize > off ? tsize - off : 0;
    j->region_start[t] = off;
    j->region_units[t] = len / j->unit;
    j->region_bytes[t] = len;
    if (len < j->max_bs) {
        snprintf (err, errlen, "'%s' is %llu bytes: no room for one %u-byte block at offset %llu",
                  j->targets[t].path, (unsigned long long) tsize, j->max_bs,
                  (unsigned long long) off);
        return -EINVAL;
    }
    return 0;
}

int
job_open (iojob_t *j, const Iofleet__JobSpec *spec, const target_policy_t *pol, char *err,
          size_t errlen)
{
    IOF_ASSERT (j && j->names);
    char *const *names = j->names;
    bool trims = j->issues[IO_TRIM];
    bool trimwrite = job_trimwrite_of (j);
    for (int t = 0; t < j->ntargets; t++) {
        if (!j->diskless
            && target_open (&j->targets[t], j->direct, j->writes, j->need_each, err, errlen))
            return -1;
        /* A replay goes where its log says: no region. */
        if (!j->replay && plan_region (j, spec, t, err, errlen))
            return -1;
        /* fio's td_io_open_file: drop the cached region (invalidate=1, its
           default) and advise the pattern (fadvise_hint=1), neither fatal. */
        if (!j->diskless) {
            int advice = spec->fadvise == JOB_FADV_NONE ? -1
                       : spec->fadvise == JOB_FADV_SEQUENTIAL ? POSIX_FADV_SEQUENTIAL
                       : spec->fadvise == JOB_FADV_RANDOM || iogen_rw_is_random (j->rw)
                           ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL;
            char why[1024];
            if (target_prepare_cache (&j->targets[t], !spec->no_invalidate, advice,
                                      j->region_start[t], j->region_units[t] * j->unit, why,
                                      sizeof why))
                log_warn ("job '%s': %s", j->name, why);
        }
    }
    if (spec->write_iolog && spec->write_iolog[0]
        && iolog_open (j, spec, (const char *const *) names, pol, err, errlen))
        return -1;
    /* A size-bound worker issues size= bytes (fio: per job), or else its
       whole region: every target's, or with a file of its own, that one's. */
    uint64_t total = 0;
    j->io_size_set = spec->io_size != 0;
    for (int t = 0; t < j->ntargets; t++)
        total += j->region_units[t] * j->unit;

    /* Buffers, offsets and engine contexts now, so START has nothing left
       to allocate. */
    for (int i = 0; i < j->nworkers; i++) {
        worker_t *w = &j->workers[i];
        w->job = j;
        w->id = i;
        w->depth = j->iodepth;
        w->next_target = (uint32_t) i * j->files_per_worker;
        w->read_back = j->verify_only;
        if (j->verify != VERIFY_NONE && j->verify_backlog && !j->verify_only) {
            w->vlog_cap = j->verify_backlog + w->depth;
            w->vlog = calloc (w->vlog_cap, sizeof *w->vlog);
            if (!w->vlog) {
                snprintf (err, errlen, "out of memory for verify_backlog=%u of worker %d",
                          j->verify_backlog, i);
                return -1;
            }
        }
        if (!j->time_based) {
            uint64_t own = total;
            if (j->files_per_worker) {
                own = 0;
                for (uint32_t f = 0; f < j->files_per_worker; f++)
                    own += j->region_units[w->next_target + f] * j->unit;
            }
            /* size= caps what filesize= files hold (fio: size=64k over two
               16k files does 32k). */
            w->io_limit = spec->io_size ? spec->io_size
                        : spec->size && !spec->size_pct
                            ? (spec->filesize && own < spec->size ? own : spec->size)
                        : own;
            /* rw=write:SIZE: a pass ends where its next I/O would pass the
               region's end (fio's sequential "file done"), before size=. */
            if (spec->rw_skip && !spec->io_size) {
                uint64_t step = 1 + spec->rw_skip / j->unit, pass = 0;
                for (int t = 0; t < j->ntargets; t++)
                    if (!j->files_per_worker || (uint32_t) t / j->files_per_worker == (uint32_t) i)
                        pass += j->region_units[t] ? ((j->region_units[t] - 1) / step + 1) * j->unit
                                                   : 0;
                w->io_limit = pass;
            }
        }
        /* fio's trimwrite issues size= of trims and size= of writes. */
        if (trimwrite)
            w->io_limit *= 2;
        iogen_rng_seed (w->rng, j->seed + (uint64_t) i * 0x100000001b3ull);
        w->offsets = calloc ((size_t) j->ntargets * DIR_COUNT, sizeof *w->offsets);
        w->units = calloc (w->depth, sizeof *w->units);
        for (int s = 0; s < 2; s++)
            w->slot[s] = calloc ((size_t) j->ntargets * DIR_COUNT, sizeof (dir_stats_t));
        if (trims)
            w->trimmed = calloc (w->depth, sizeof *w->trimmed);
        if (!w->offsets || !w->units || !w->slot[0] || !w->slot[1] || (trims && !w->trimmed)) {
            snprintf (err, errlen, "out of memory for worker %d", i);
            return -1;
        }
        if (j->seq_mix) {
            w->seq_left = 1;            /* fio: the first I/O is random */
            iogen_rng_seed (w->srng, j->seed ^ 0x5e9ull ^ ((uint64_t) i << 32));
            w->last_end = calloc ((size_t) j->ntargets * DIR_COUNT, sizeof *w->last_end);
            if (!w->last_end) {
                snprintf (err, errlen, "out of memory for worker %d", i);
                return -1;
            }
            /* fio's last_pos starts at the file's offset. */
            for (int g = 0; g < j->ntargets * DIR_COUNT; g++)
                w->last_end[g] = iogen_region_start (j, i, (uint32_t) (g / DIR_COUNT));
        }
        /* A replay's offsets come from its log. */
        for (int g = 0; !j->replay && g < j->ntargets * DIR_COUNT; g++) {
            int t = g / DIR_COUNT, d = g % DIR_COUNT;
            /* A generator per direction issued, or one at [t][0] that all
               share (random, one alignment). */
            if (j->offsets_per_dir ? !j->min_bs[d] : d != 0)
                continue;
            if (j->files_per_worker && (uint32_t) t / j->files_per_worker != (uint32_t) i)
                continue;
            uint32_t unit = j->offsets_per_dir ? j->align[d] : j->shared_unit;
            uint64_t start = iogen_region_start (j, i, (uint32_t) t);
            if (start + j->region_units[t] * j->unit > j->targets[t].size) {
                snprintf (err, errlen, "worker %d's region %llu..%llu is past the end of '%s' "
                          "(%llu bytes): offset_increment=%llu with numjobs=%d needs %llu",
                          i, (unsigned long long) start,
                          (unsigned long long) (start + j->region_units[t] * j->unit),
                          j->targets[t].path, (unsigned long long) j->targets[t].size,
                          (unsigned long long) j->offset_increment, j->nworkers,
                          (unsigned long long) (j->region_start[t]
                              + (uint64_t) (j->nworkers - 1) * j->offset_increment
                              + j->region_units[t] * j->unit));
                return -1;
            }
            uint64_t zones_end = j->off_mode == OFF_SKEWED ? offsets_zones_end (&j->dist) : 0;
            if (zones_end > j->region_units[t] * j->unit) {
                snprintf (err, errlen, "random_distribution=zoned_abs: the zones end at %llu "
                          "bytes, past the %llu bytes of the region of '%s' (fio 3.33 stops "
                          "with 'zoned_abs sizes exceed file size'): make the zones smaller "
                          "or the region larger", (unsigned long long) zones_end,
                          (unsigned long long) (j->region_units[t] * j->unit), j->targets[t].path);
                return -1;
            }
            w->offsets[g] = offsets_new (j->off_mode, start,
                                         j->region_units[t] * j->unit / unit, unit, &j->dist);
            if (w->offsets[g] && spec->rw_skip)
                offsets_set_skip (w->offsets[g], spec->rw_skip / unit);
            if (w->offsets[g])
                offsets_set_size (w->offsets[g], j->region_bytes[t]);
            if (!w->offsets[g]) {
                snprintf (err, errlen, "out of memory for the random map of '%s' (%llu blocks; "
                          "norandommap=1 needs none)", j->targets[t].path,
                          (unsigned long long) j->region_units[t]);
                return -1;
            }
        }
        for (int s = 0; s < 2; s++)
            for (int d = 0; d < j->ntargets * DIR_COUNT; d++)
                dir_stats_reset (&w->slot[s][d]);
        /* One region for all of a worker's buffers, as fio allocates them. */
        if (posix_memalign (&w->bufmem, 4096, (size_t) w->depth * j->max_bs)) {
            snprintf (err, errlen, "out of memory: %u buffers of %u bytes", w->depth, j->max_bs);
            return -1;
        }
        for (unsigned u = 0; u < w->depth; u++) {
            w->units[u].buf = (uint8_t *) w->bufmem + (size_t) u * j->max_bs;
            iogen_fill_buffer (j, w->rng, w->units[u].buf, j->max_bs);
        }
        memcpy (w->rng_loop, w->rng, sizeof w->rng);
        iogen_rng_seed (w->drng, j->seed ^ 0xda7a5eedull ^ ((uint64_t) i << 32));
        iogen_rng_seed (w->prng, j->seed ^ 0x9015503eull ^ ((uint64_t) i << 32));
        w->engine.ops = j->ops;
        int rc = j->ops->init (&w->engine, w->depth);
        if (rc < 0) {
            /* An engine off on this host says why, in its ops table. */
            const char *hint = rc == -EAGAIN ? "raise fs.aio-max-nr"
                             : rc == -EPERM || rc == -ENOSYS ? j->ops->unavailable_hint : NULL;
            snprintf (err, errlen, "%s: cannot set up %u I/Os in flight for worker %d: %s%s%s%s",
                      j->ops->name, w->depth, i, strerror (-rc), hint ? " (" : "",
                      hint ? hint : "", hint ? ")" : "");
            return -1;
        }
        w->engine_ready = true;
        bool logs = (spec->write_lat_log && spec->write_lat_log[0])
                 || (spec->write_bw_log && spec->write_bw_log[0])
                 || (spec->write_iops_log && spec->write_iops_log[0]);
        if (logs && lat_log_open (j, w, spec, pol, err, errlen))
            return -1;
    }
    iodepth_note (j, pol);
    return 0;
}
