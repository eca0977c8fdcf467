/*  job.c: see job.h. */
#define _GNU_SOURCE
#include "job.h"
#include "engine.h"
#include "log.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Longest a worker blocks in getevents, so it notices stop requests and
   interval ends even when I/O is slow. */
#define REAP_TIMEOUT_MAX_NS (50 * NS_PER_MS)

typedef struct {
    job_t *job;
    int id;
    pthread_t thread;
    bool thread_started;
    engine_t engine;
    bool engine_ready;
    io_unit_t *units;
    unsigned depth;
    uint64_t rng[4];
    uint64_t *seqpos;               /* next sequential offset per target */
    uint32_t next_target;
    uint64_t bytes_done;
    dir_stats_t *slot[2];           /* ntargets * 2 each */
    _Atomic uint32_t published;     /* intervals 0..published-1 are published */
    _Atomic uint32_t consumed;      /* intervals 0..consumed-1 were collected */
    _Atomic bool finished;
    _Atomic uint64_t wake_mono;
    uint64_t end_mono;              /* when it stopped measuring */
    char error[256];
} worker_t;

struct job {
    uint64_t run;
    uint32_t step;
    char name[64];
    const engine_ops_t *ops;
    Iofleet__Rw rw;
    uint32_t rwmixread;
    uint32_t bs;
    uint32_t iodepth;
    bool direct;
    bool time_based;
    uint64_t runtime_ns;
    uint64_t ramp_ns;
    uint64_t interval_ns;
    uint64_t io_limit;              /* bytes per worker when not time based */
    int ntargets;
    target_t *targets;
    uint64_t *region_start;         /* per target */
    uint64_t *region_blocks;        /* per target, in units of bs */
    int nworkers;
    worker_t *workers;
    uint64_t mono_start;
    uint64_t measure_start;
    uint64_t measure_end;           /* UINT64_MAX when size-limited */
    uint32_t next_collect;
    _Atomic bool stop;
};

/* xoshiro256**: fast, good enough for offsets and read/write choice. */
static inline uint64_t
rotl (uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t
rng_next (uint64_t *s)
{
    uint64_t r = rotl (s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl (s[3], 45);
    return r;
}

static void
rng_seed (uint64_t *s, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        seed += 0x9e3779b97f4a7c15ull;
        uint64_t z = seed;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        s[i] = z ^ (z >> 31);
    }
}

static bool
rw_is_random (Iofleet__Rw rw)
{
    return rw == IOFLEET__RW__RW_RANDREAD || rw == IOFLEET__RW__RW_RANDWRITE
        || rw == IOFLEET__RW__RW_RANDRW;
}

static bool
rw_writes (Iofleet__Rw rw, uint32_t rwmixread)
{
    switch (rw) {
    case IOFLEET__RW__RW_WRITE:
    case IOFLEET__RW__RW_RANDWRITE:
        return true;
    case IOFLEET__RW__RW_RW:
    case IOFLEET__RW__RW_RANDRW:
        return rwmixread < 100;
    default:
        return false;
    }
}

/* Fills u with the next I/O of worker w.  Can't fail. */
static void
prep_unit (worker_t *w, io_unit_t *u)
{
    job_t *j = w->job;
    uint32_t t = w->next_target;
    w->next_target = (t + 1) % (uint32_t) j->ntargets;
    io_dir_t dir;
    switch (j->rw) {
    case IOFLEET__RW__RW_READ:
    case IOFLEET__RW__RW_RANDREAD:
        dir = IO_READ;
        break;
    case IOFLEET__RW__RW_WRITE:
    case IOFLEET__RW__RW_RANDWRITE:
        dir = IO_WRITE;
        break;
    default:
        dir = (rng_next (w->rng) % 100) < j->rwmixread ? IO_READ : IO_WRITE;
        break;
    }
    uint64_t block;
    if (rw_is_random (j->rw))
        block = rng_next (w->rng) % j->region_blocks[t];
    else {
        block = w->seqpos[t];
        w->seqpos[t] = (block + 1) % j->region_blocks[t];
    }
    u->fd = j->targets[t].fd;
    u->target = t;
    u->dir = dir;
    u->len = j->bs;
    u->offset = j->region_start[t] + block * j->bs;
}

static inline uint64_t
interval_end (const job_t *j, uint32_t k)
{
    uint64_t e = j->measure_start + (uint64_t) (k + 1) * j->interval_ns;
    return e < j->measure_end ? e : j->measure_end;
}

/* Publishes the worker's current interval k and moves to k+1, waiting (rarely)
   for the main thread to have collected k-1 so slot (k+1)%2 is free. */
static void
publish (worker_t *w, uint32_t *k)
{
    atomic_store_explicit (&w->published, *k + 1, memory_order_release);
    (*k)++;
    while (atomic_load_explicit (&w->consumed, memory_order_acquire) + 1 < *k
           && !atomic_load_explicit (&w->job->stop, memory_order_relaxed))
        sleep_ns (100000);
}

static void *
worker_main (void *arg)
{
    worker_t *w = arg;
    job_t *j = w->job;
    struct timespec ts = { .tv_sec = (time_t) (j->mono_start / NS_PER_SEC),
                           .tv_nsec = (long) (j->mono_start % NS_PER_SEC) };
    while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
    w->wake_mono = clock_mono_ns ();

    uint32_t k = 0;                 /* current interval */
    bool measuring = false;
    bool stopping = false;
    unsigned inflight = 0;

    for (unsigned i = 0; i < w->depth; i++) {
        prep_unit (w, &w->units[i]);
        if (j->ops->queue (&w->engine, &w->units[i]) == 0)
            inflight++;
    }
    uint64_t now = clock_mono_ns ();
    for (unsigned i = 0; i < inflight; i++)
        w->units[i].t_submit = now;
    int rc = j->ops->commit (&w->engine);
    if (rc < 0) {
        snprintf (w->error, sizeof w->error, "%s: submit failed: %s", j->ops->name,
                  strerror (-rc));
        inflight = 0;
        stopping = true;
    }

    io_unit_t **requeue = calloc (w->depth, sizeof *requeue);
    if (!requeue) {
        snprintf (w->error, sizeof w->error, "out of memory");
        stopping = true;
    }
    while (inflight > 0 && requeue) {
        uint64_t timeout = REAP_TIMEOUT_MAX_NS;
        now = clock_mono_ns ();
        if (measuring) {
            uint64_t b = interval_end (j, k);
            timeout = b > now ? b - now : 0;
            if (timeout > REAP_TIMEOUT_MAX_NS)
                timeout = REAP_TIMEOUT_MAX_NS;
        } else if (j->measure_start > now && j->measure_start - now < timeout)
            timeout = j->measure_start - now;
        int n = j->ops->getevents (&w->engine, 1, w->depth, timeout);
        if (n < 0) {
            snprintf (w->error, sizeof w->error, "%s: reaping completions failed: %s",
                      j->ops->name, strerror (-n));
            break;
        }
        now = clock_mono_ns ();
        if (!measuring && now >= j->measure_start)
            measuring = true;
        /* Close the intervals this moment has passed, before filing the
           completions reaped now into the interval they belong to. */
        while (measuring && now >= interval_end (j, k) && interval_end (j, k) < j->measure_end)
            publish (w, &k);

        bool counted = measuring && now < j->measure_end;
        dir_stats_t *slot = w->slot[k % 2];
        unsigned nreq = 0;
        for (int i = 0; i < n; i++) {
            io_unit_t *u = j->ops->event (&w->engine, (unsigned) i);
            inflight--;
            dir_stats_t *d = &slot[u->target * 2 + u->dir];
            if (u->res != (int64_t) u->len) {
                if (counted)
                    d->errors++;
                if (!w->error[0])
                    snprintf (w->error, sizeof w->error, "%s of %u bytes at offset %llu of '%s' "
                              "failed: %s", u->dir == IO_READ ? "read" : "write", u->len,
                              (unsigned long long) u->offset, j->targets[u->target].path,
                              u->res < 0 ? strerror ((int) -u->res) : "short transfer");
                stopping = true;
                continue;
            }
            if (counted) {
                d->ops++;
                d->bytes += u->len;
                histogram_record (&d->hist, now - u->t_submit);
            }
            if (now >= j->measure_start)
                w->bytes_done += u->len;
            requeue[nreq++] = u;
        }
        if (now >= j->measure_end || atomic_load_explicit (&j->stop, memory_order_relaxed))
            stopping = true;
        if (!j->time_based && j->io_limit && w->bytes_done >= j->io_limit)
            stopping = true;
        if (stopping || nreq == 0)
            continue;
        /* One io_submit per I/O, as fio does by default (iodepth_batch_submit=1):
           measured here, batching the resubmits cost ~15% IOPS at QD32 on
           virtio with mq-deadline, since the block layer held the batch. */
        for (unsigned i = 0; i < nreq; i++) {
            prep_unit (w, requeue[i]);
            rc = j->ops->queue (&w->engine, requeue[i]);
            if (rc == 0) {
                requeue[i]->t_submit = clock_mono_ns ();
                rc = j->ops->commit (&w->engine);
            }
            if (rc < 0) {
                snprintf (w->error, sizeof w->error, "%s: submit failed: %s", j->ops->name,
                          strerror (-rc));
                stopping = true;
                break;
            }
            inflight++;
        }
    }
    free (requeue);

    now = clock_mono_ns ();
    w->end_mono = now < j->measure_end ? now : j->measure_end;
    /* The last, possibly partial, interval. */
    if (measuring && w->end_mono > j->measure_start + (uint64_t) k * j->interval_ns)
        atomic_store_explicit (&w->published, k + 1, memory_order_release);
    atomic_store_explicit (&w->finished, true, memory_order_release);
    return NULL;
}

static Iofleet__Rw
spec_rw (const Iofleet__JobSpec *s)
{
    return s->rw;
}

/* Splits a target into the region this job works on, as fio does with
   size= and offset= (bytes or percent), the size shared over the files. */
static int
plan_region (job_t *j, const Iofleet__JobSpec *spec, int t, char *err, size_t errlen)
{
    uint64_t tsize = j->targets[t].size;
    uint64_t off = spec->offset_pct ? tsize / 100 * spec->offset_pct : spec->offset;
    uint64_t len;
    if (spec->size_pct)
        len = tsize / 100 * spec->size_pct;
    else if (spec->size)
        len = spec->size / (uint64_t) j->ntargets;
    else
        len = tsize > off ? tsize - off : 0;
    off -= off % j->bs;
    if (off + len > tsize)
        len = tsize > off ? tsize - off : 0;
    j->region_start[t] = off;
    j->region_blocks[t] = len / j->bs;
    if (j->region_blocks[t] == 0) {
        snprintf (err, errlen, "'%s' is %llu bytes: no room for one %u-byte block at offset %llu",
                  j->targets[t].path, (unsigned long long) tsize, j->bs,
                  (unsigned long long) off);
        return -EINVAL;
    }
    return 0;
}

job_t *
job_new (const Iofleet__JobSpec *spec, uint64_t run, uint32_t step, const target_policy_t *pol,
         char *err, size_t errlen)
{
    job_t *j = calloc (1, sizeof *j);
    if (!j) {
        snprintf (err, errlen, "out of memory");
        return NULL;
    }
    j->run = run;
    j->step = step;
    str_copy (j->name, sizeof j->name, spec->name);
    j->ops = engine_find (spec->ioengine);
    if (!j->ops) {
        snprintf (err, errlen, "ioengine '%s' is not built into this agent (it has: %s)",
                  spec->ioengine, engine_names ());
        free (j);
        return NULL;
    }
    j->rw = spec_rw (spec);
    j->rwmixread = spec->rwmixread;
    j->bs = spec->bs;
    j->iodepth = spec->iodepth;
    j->direct = spec->direct;
    j->time_based = spec->time_based;
    j->runtime_ns = spec->runtime_ns;
    j->ramp_ns = spec->ramp_time_ns;
    j->interval_ns = spec->interval_ns;
    if (j->direct && j->bs % 512) {
        snprintf (err, errlen, "bs=%u is not a multiple of 512, which direct=1 needs", j->bs);
        free (j);
        return NULL;
    }
    j->ntargets = (int) spec->n_filenames;
    j->targets = calloc ((size_t) j->ntargets, sizeof *j->targets);
    j->region_start = calloc ((size_t) j->ntargets, sizeof *j->region_start);
    j->region_blocks = calloc ((size_t) j->ntargets, sizeof *j->region_blocks);
    j->nworkers = (int) spec->numjobs;
    j->workers = calloc ((size_t) j->nworkers, sizeof *j->workers);
    if (!j->targets || !j->region_start || !j->region_blocks || !j->workers) {
        snprintf (err, errlen, "out of memory");
        job_destroy (&j);
        return NULL;
    }
    for (int t = 0; t < j->ntargets; t++)
        j->targets[t].fd = -1;

    bool writes = rw_writes (j->rw, j->rwmixread);
    uint64_t need_each = 0;
    if (spec->size && !spec->size_pct)
        need_each = spec->offset + spec->size / (uint64_t) j->ntargets;
    for (int t = 0; t < j->ntargets; t++) {
        if (target_resolve (pol, spec->filenames[t], &j->targets[t], err, errlen)
            || target_open (&j->targets[t], j->direct, writes, need_each, err, errlen)
            || plan_region (j, spec, t, err, errlen)) {
            job_destroy (&j);
            return NULL;
        }
    }
    if (!j->time_based) {
        uint64_t total = 0;
        for (int t = 0; t < j->ntargets; t++)
            total += j->region_blocks[t] * j->bs;
        j->io_limit = spec->size && !spec->size_pct ? spec->size : total;
    }

    /* Buffers and engine contexts now, so START has nothing left to allocate. */
    for (int i = 0; i < j->nworkers; i++) {
        worker_t *w = &j->workers[i];
        w->job = j;
        w->id = i;
        w->depth = j->iodepth;
        rng_seed (w->rng, run * 1000003u + step * 131u + (uint64_t) i);
        w->seqpos = calloc ((size_t) j->ntargets, sizeof *w->seqpos);
        w->units = calloc (w->depth, sizeof *w->units);
        for (int s = 0; s < 2; s++)
            w->slot[s] = calloc ((size_t) j->ntargets * 2, sizeof (dir_stats_t));
        if (!w->seqpos || !w->units || !w->slot[0] || !w->slot[1]) {
            snprintf (err, errlen, "out of memory for worker %d", i);
            job_destroy (&j);
            return NULL;
        }
        for (int s = 0; s < 2; s++)
            for (int d = 0; d < j->ntargets * 2; d++)
                histogram_reset (&w->slot[s][d].hist);
        for (unsigned u = 0; u < w->depth; u++) {
            if (posix_memalign (&w->units[u].buf, 4096, j->bs)) {
                snprintf (err, errlen, "out of memory: %u buffers of %u bytes", w->depth, j->bs);
                job_destroy (&j);
                return NULL;
            }
            uint64_t *p = w->units[u].buf;
            for (size_t b = 0; b < j->bs / 8; b++)
                p[b] = rng_next (w->rng);
        }
        w->engine.ops = j->ops;
        int rc = j->ops->init (&w->engine, w->depth);
        if (rc < 0) {
            snprintf (err, errlen, "%s: cannot set up %u I/Os in flight for worker %d: %s%s",
                      j->ops->name, w->depth, i, strerror (-rc),
                      rc == -EAGAIN ? " (raise fs.aio-max-nr)" : "");
            job_destroy (&j);
            return NULL;
        }
        w->engine_ready = true;
    }
    return j;
}

void
job_destroy (job_t **self_p)
{
    job_t *j = *self_p;
    if (!j)
        return;
    job_stop (j);
    for (int i = 0; i < j->nworkers && j->workers; i++) {
        worker_t *w = &j->workers[i];
        if (w->thread_started)
            pthread_join (w->thread, NULL);
        if (w->engine_ready)
            j->ops->cleanup (&w->engine);
        for (unsigned u = 0; w->units && u < w->depth; u++) {
            free (w->units[u].buf);
            free (w->units[u].engine_data);
        }
        free (w->units);
        free (w->seqpos);
        free (w->slot[0]);
        free (w->slot[1]);
    }
    for (int t = 0; t < j->ntargets && j->targets; t++)
        target_close (&j->targets[t]);
    free (j->workers);
    free (j->targets);
    free (j->region_start);
    free (j->region_blocks);
    free (j);
    *self_p = NULL;
}

uint64_t job_run (const job_t *self) { return self->run; }
uint32_t job_step (const job_t *self) { return self->step; }
int job_ntargets (const job_t *self) { return self->ntargets; }
const char *job_target_path (const job_t *self, int i) { return self->targets[i].path; }

int
job_start (job_t *self, uint64_t mono_start)
{
    self->mono_start = mono_start;
    self->measure_start = mono_start + self->ramp_ns;
    self->measure_end = self->runtime_ns ? self->measure_start + self->runtime_ns : UINT64_MAX;
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
job_stop (job_t *self)
{
    atomic_store (&self->stop, true);
}

int
job_collect (job_t *self, dir_stats_t *out, uint32_t *seq, uint64_t *t_start, uint64_t *t_end)
{
    uint32_t k = self->next_collect;
    int ncontrib = 0;
    uint64_t last_end = 0;
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
        if (w->end_mono > last_end)
            last_end = w->end_mono;
    }
    if (ncontrib == 0)
        return -1;
    for (int i = 0; i < self->nworkers; i++)
        if (!atomic_load_explicit (&self->workers[i].finished, memory_order_acquire))
            all_finished = false;

    int nd = self->ntargets * 2;
    for (int d = 0; d < nd; d++) {
        out[d].ops = out[d].bytes = out[d].errors = 0;
        histogram_reset (&out[d].hist);
    }
    uint64_t wend = 0;
    for (int i = 0; i < self->nworkers; i++) {
        worker_t *w = &self->workers[i];
        if (atomic_load_explicit (&w->published, memory_order_acquire) <= k)
            continue;
        dir_stats_t *slot = w->slot[k % 2];
        for (int d = 0; d < nd; d++) {
            out[d].ops += slot[d].ops;
            out[d].bytes += slot[d].bytes;
            out[d].errors += slot[d].errors;
            histogram_merge (&out[d].hist, &slot[d].hist);
            slot[d].ops = slot[d].bytes = slot[d].errors = 0;
            histogram_reset (&slot[d].hist);
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
    return 1;
}

uint64_t
job_actual_start (const job_t *self)
{
    uint64_t first = 0;
    for (int i = 0; i < self->nworkers; i++) {
        uint64_t t = self->workers[i].wake_mono;
        if (t && (first == 0 || t < first))
            first = t;
    }
    return first;
}

const char *
job_error (const job_t *self)
{
    for (int i = 0; i < self->nworkers; i++)
        if (atomic_load_explicit (&self->workers[i].finished, memory_order_acquire)
            && self->workers[i].error[0])
            return self->workers[i].error;
    return "";
}
