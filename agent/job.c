/*  job.c: see job.h. */
#define _GNU_SOURCE
#include "job.h"
#include "engine.h"
#include "log.h"
#include "offsets.h"
#include "replay.h"
#include "verify.h"
#include "steadystate.h"
#include "util.h"
#include "direction.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <math.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Longest a worker blocks in getevents, so it notices stop requests and
   interval ends even when I/O is slow. */
#define REAP_TIMEOUT_MAX_NS (50 * NS_PER_MS)
/* Write buffers get a fresh stamp in every chunk of this size, so a
   deduplicating drive never sees two equal chunks. */
#define STAMP_CHUNK 4096
/* write_lat_log: stdio buffer per log file, so the I/O path only copies a
   line, and a write(2) comes every few thousand I/Os.  Many workers share
   a budget rather than each taking the maximum. */
#define LAT_LOG_BUF_MAX     (1u << 20)
#define LAT_LOG_BUF_MIN     (64u << 10)
#define LAT_LOG_BUF_BUDGET  (96u << 20)     /* over all of a job's log files */

/* fio's latency logs, one file per kind and worker. */
/* fio's per-I/O logs: three of write_lat_log's prefix, and the bandwidth
   and IOPS logs of write_bw_log's and write_iops_log's. */
enum { LOG_CLAT = 0, LOG_SLAT, LOG_LAT, LOG_BW, LOG_IOPS, LOG_KINDS };
static const char *const s_log_kind[LOG_KINDS] = { "clat", "slat", "lat", "bw", "iops" };
static const char *const s_log_option[LOG_KINDS] = { "write_lat_log", "write_lat_log",
                                                     "write_lat_log", "write_bw_log",
                                                     "write_iops_log" };

typedef struct {
    FILE *f[LOG_KINDS];
    char *buf[LOG_KINDS];           /* f's stdio buffer (setvbuf) */
    char path[LOG_KINDS][PATH_MAX]; /* resolved, for messages */
    bool failed;                    /* a write failed: nothing more is written */
} lat_log_t;

typedef struct {
    iojob_t *job;
    int id;
    pthread_t thread;
    bool thread_started;
    engine_t engine;
    bool engine_ready;
    io_unit_t *units;
    void *bufmem;                   /* every unit's buffer, in one region */
    unsigned depth;
    uint64_t rng[4];
    uint64_t rng_loop[4];           /* rng as the first I/O found it: each loop's start */
    uint64_t drng[4];               /* refill_buffers' data, apart from rng so
                                       the offsets a read-back replays stay */
    uint64_t prng[4];               /* rate_process=poisson's gaps (fio's
                                       poisson_state, apart from the offsets') */
    offsets_t **offsets;            /* per target and direction: [t * DIR_COUNT + dir] */
    uint32_t next_target;
    uint64_t io_limit;              /* bytes to issue when not time based */
    uint64_t bytes_issued;          /* toward io_limit, in this loop */
    uint64_t ios_issued;            /* toward number_ios, in this loop */
    uint32_t loop;                  /* loops= done, from 0 */
    /* verify=: the writes of a pass are read back at its end by replaying
       its generator (read_back), or every verify_backlog completed writes
       from a ring of them (vlog), in the order written, as fio's. */
    bool read_back;                 /* replaying the pass: its writes go as reads */
    bool read_back_done;            /* this pass was read back */
    uint64_t wseq;                  /* writes stamped, for their headers */
    struct vlog_entry { uint64_t offset; uint32_t len, target; } *vlog;
    uint32_t vlog_cap;              /* verify_backlog + iodepth: the writes in
                                       flight while the ring drains fit too */
    uint32_t vlog_n, vlog_head;     /* entries held, the oldest one */
    bool vlog_drain;                /* reading the ring back until it is empty */
    bool timing;                    /* in a read-back phase at a pass's end
                                       (fio times those as the reads' runtime) */
    uint64_t verify_errors;         /* read-backs that did not match */
    uint64_t read_back_start;       /* when the current read-back began */
    uint64_t read_back_ns;          /* time spent in read-backs */
    uint64_t stamp;                 /* write-buffer stamp counter */
    /* Pacing, as fio's rate_ddir/usec_for_io/handle_thinktime: the next
       issue per direction is a quota counted from rate_epoch (fio's
       td->epoch, restarted when the ramp ends), so a stall is caught up. */
    uint64_t rate_epoch;
    uint64_t rate_bytes[DIR_COUNT]; /* issued since rate_epoch */
    uint64_t rate_next[DIR_COUNT];  /* ns after rate_epoch; 0 = now */
    uint64_t completed;             /* I/Os reaped, for thinktime */
    uint64_t think_last;            /* `completed` at the last think */
    /* The I/O loop's state, shared by reap, quiesce and fill. */
    io_unit_t **free_units;         /* a stack of idle units */
    io_unit_t **batch;              /* units being submitted together */
    unsigned nfree, inflight;
    uint32_t k;                     /* current interval */
    bool measuring, stopping;
    uint64_t now;                   /* the latest clock read */
    dir_stats_t *slot[2];           /* ntargets * DIR_COUNT each */
    /* Trims, done inline at submit (fio's engines issue BLKDISCARD
       synchronously), wait here for the next reap. */
    io_unit_t **trimmed;
    unsigned ntrimmed;
    /* rw=trimwrite: where each target's last trim and write started
       ([t * DIR_COUNT + dir], UINT64_MAX before the first), as fio's
       f->last_start; randtrimwrite: the trim the next write repeats. */
    uint64_t *last_start;
    io_unit_t last_trim;
    /* rw=randread:N: I/Os left before the next random offset, and where
       each target's last I/O of each direction ended ([t * DIR_COUNT + dir]). */
    uint32_t seq_left;
    uint64_t *last_end;
    bool seq_done;                  /* a size-bound pass's I/O going on from the
                                       last would start past the region: it ended */
    uint64_t srng[4];               /* percentage_random's draws (fio's seq_rand_state) */
    /* rate_min: bytes and I/Os completed (counted) per direction, and
       those at the last check, when it was. */
    uint64_t done_bytes[2], done_ios[2];
    uint64_t mr_bytes[2], mr_ios[2], mr_time[2];
    /* read_iolog: the next entry, the previous line's time (version 3),
       the last issue and the carried oversleep (fio's iolog_delay), and
       when the worker started (version 2 waits count from it). */
    size_t replay_next;
    uint64_t replay_prev_usec, replay_last_issue, replay_offset_ns, replay_t0;
    /* latency_target: fio's search (io_u.c lat_target_*): the depth and
       its bounds, the window's start and the completions and failures
       counted since the search began. */
    uint32_t lat_qd, lat_low, lat_high, lat_stable;
    uint64_t lat_ts, lat_ios, lat_done, lat_failed;
    bool lat_started, lat_end_run, lat_fail_now;
    _Atomic uint32_t published;     /* intervals 0..published-1 are published */
    _Atomic uint32_t consumed;      /* intervals 0..consumed-1 were collected */
    _Atomic bool finished;
    _Atomic uint64_t wake_mono;
    uint64_t end_mono;              /* when it stopped measuring */
    lat_log_t *lat_log;             /* write_lat_log; NULL without it */
    char error[1024];               /* DONE carries up to MSG_TEXT_MAX bytes */
} worker_t;

struct job {
    uint64_t run;
    uint32_t step;
    char name[64];
    const engine_ops_t *ops;
    bool null_engine;
    Iofleet__Rw rw;
    uint32_t rwmixread;
    uint32_t bs[DIR_COUNT];         /* trims: the writes' (fio's carry-over) */
    uint32_t bsr_min[DIR_COUNT], bsr_max[DIR_COUNT];
    uint32_t split_bs[DIR_COUNT][JOB_BSSPLIT_MAX];
    uint32_t split_cum[DIR_COUNT][JOB_BSSPLIT_MAX];   /* cumulative percent */
    int nsplit[DIR_COUNT];
    uint32_t unit;                  /* smallest block size the job issues */
    uint32_t max_bs;
    uint32_t iodepth, batch_submit, batch_complete;
    bool direct;
    bool time_based;
    bool histograms;
    bool per_worker;                /* job_collect keeps workers apart */
    bool exitall;
    FILE *iolog;                    /* write_iolog (numjobs 1: worker 0's); or NULL */
    char iolog_path[PATH_MAX];
    char **iolog_names;             /* each target as the job names it */
    bool iolog_failed;
    int iolog_errno;
    uint64_t runtime_ns, ramp_ns, startdelay_ns, interval_ns, thinktime_ns;
    uint32_t min_bs[DIR_COUNT];     /* per direction its smallest block size; 0 = not issued */
    bool offsets_per_dir;           /* each direction has its own offset generator */
    uint32_t align[DIR_COUNT];      /* per direction the unit of its offsets (blockalign) */
    uint32_t shared_unit;           /* the unit of a generator the directions share */
    bool issues[DIR_COUNT];         /* the directions it issues (rw=, or the log's) */
    replay_log_t *replay;           /* read_iolog=: the log replayed, or NULL */
    bool replay_redirect;           /* every file of the log is target 0 */
    bool replay_no_stall;
    uint32_t replay_time_scale;     /* percent, 100 = the logged pace */
    uint32_t replay_align, replay_scale;
    uint64_t lat_target_ns, lat_window_ns;  /* latency_target; 0 = none */
    bool log_offset;                /* latency logs hold each I/O's offset */
    uint32_t seq_nr;                /* rw=randread:N; 0 = every I/O random */
    bool bs_unaligned;              /* blocksize_unaligned: bsrange sizes to the byte */
    uint64_t rate_min[2];           /* rate_min: bytes a second, per direction */
    uint32_t rate_iops_min[2];      /* rate_iops_min */
    uint64_t rate_cycle_ns;         /* their window */
    uint32_t perc_random[DIR_COUNT];/* percentage_random per direction (100: all) */
    bool seq_mix;                   /* seq_nr or a percentage below 100: some
                                       I/Os of the random job go on sequentially */
    double lat_pct;
    bool lat_run;
    uint64_t search_start;          /* when the search begins (the ramp's end); without
                                       latency_run, measuring waits for its end */
    uint64_t rate_bps[DIR_COUNT];   /* fio's td->rate_bps: rate_iops x min bs; 0 = no cap */
    uint64_t rate_period[DIR_COUNT];/* rate_iops with bssplit: ns per I/O (fio's last_usec) */
    uint64_t poisson_us[DIR_COUNT]; /* rate_process=poisson: the mean gap, whole µs as fio's */
    bool paced;                     /* rate_iops or thinktime: I/Os are issued one by one */
    uint64_t seed;
    off_mode_t off_mode;
    dist_t dist;                    /* OFF_SKEWED's random_distribution */
    bool have_cpus;
    cpu_set_t cpus;
    uint32_t compress_pct;
    bool zero_buffers;
    bool refill;                    /* refill_buffers */
    bool scramble;                  /* stamp every write (scramble_buffers) */
    uint32_t files_per_worker;      /* K: worker i does its I/O on targets
                                       i*K .. i*K+K-1 only; 0 = on all */
    uint64_t number_ios;            /* a size-bound worker's cap per loop; 0 = none */
    uint32_t loops;                 /* a size-bound job's passes, at least 1 */
    uint64_t offset_increment;      /* worker i's region starts i x this later */
    verify_kind_t verify;           /* VERIFY_NONE: no headers, no read-back */
    bool verify_read_back;          /* do_verify: read a pass's writes back at its end */
    uint32_t verify_backlog;        /* read back every this many writes; 0 = at the end */
    bool verify_fatal;
    bool verify_only;               /* no writes: each pass is read back only */
    int ntargets;
    target_t *targets;
    char *const *names;             /* each target as the job names it (the spec's,
                                       or the replayed log's) */
    bool writes;                    /* writes or trims: targets open read-write */
    uint64_t need_each;             /* bytes each file is laid out to; 0 = as it is */
    char need_what[128];            /* the options that ask for them ("size=10t") */
    uint64_t *region_start;         /* per target */
    uint64_t *region_units;         /* per target, in units of `unit` */
    int nworkers;
    worker_t *workers;
    uint64_t mono_start;
    uint64_t measure_start;
    uint64_t measure_end;           /* UINT64_MAX when size-limited */
    uint32_t next_collect;
    steadystate_t *ss;
    bool steady;
    _Atomic bool stop;
};

void
dir_stats_reset (dir_stats_t *d)
{
    d->ops = d->bytes = d->errors = 0;
    histogram_reset (&d->slat);
    histogram_reset (&d->clat);
    histogram_reset (&d->lat);
}

void
dir_stats_merge (dir_stats_t *dst, const dir_stats_t *src)
{
    dst->ops += src->ops;
    dst->bytes += src->bytes;
    dst->errors += src->errors;
    histogram_merge (&dst->slat, &src->slat);
    histogram_merge (&dst->clat, &src->clat);
    histogram_merge (&dst->lat, &src->lat);
}

/* xoshiro256**: fast, good enough for offsets, sizes and directions. */
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
    for (int i = 0; i < 4; i++)
        s[i] = splitmix64 (&seed);
}

static bool
rw_is_random (Iofleet__Rw rw)
{
    return rw == IOFLEET__RW__RW_RANDREAD || rw == IOFLEET__RW__RW_RANDWRITE
        || rw == IOFLEET__RW__RW_RANDRW || rw == IOFLEET__RW__RW_RANDTRIM
        || rw == IOFLEET__RW__RW_RANDTRIMWRITE;
}

static bool
rw_has (Iofleet__Rw rw, uint32_t rwmixread, io_dir_t dir)
{
    switch (rw) {
    case IOFLEET__RW__RW_READ:
    case IOFLEET__RW__RW_RANDREAD:
        return dir == IO_READ;
    case IOFLEET__RW__RW_WRITE:
    case IOFLEET__RW__RW_RANDWRITE:
        return dir == IO_WRITE;
    case IOFLEET__RW__RW_TRIM:
    case IOFLEET__RW__RW_RANDTRIM:
        return dir == IO_TRIM;
    case IOFLEET__RW__RW_TRIMWRITE:
    case IOFLEET__RW__RW_RANDTRIMWRITE:
        return dir == IO_TRIM || dir == IO_WRITE;
    default:
        return dir == IO_READ ? rwmixread > 0 : dir == IO_WRITE && rwmixread < 100;
    }
}

static uint32_t
pick_bs (worker_t *w, io_dir_t d)
{
    iojob_t *j = w->job;
    if (j->nsplit[d]) {
        uint32_t r = (uint32_t) (rng_next (w->rng) % 100);
        for (int i = 0; i < j->nsplit[d]; i++)
            if (r < j->split_cum[d][i])
                return j->split_bs[d][i];
        return j->split_bs[d][j->nsplit[d] - 1];
    }
    if (j->bsr_min[d] && j->bsr_min[d] != j->bsr_max[d]) {
        /* fio's get_next_buflen: min + max x u, u in [0, 1), cut down to a
           multiple of min (unless blocksize_unaligned), and no more than
           max: with a max that is a multiple of min, the multiples are
           equally likely; with another, max itself is one of the sizes. */
        uint64_t min = j->bsr_min[d], max = j->bsr_max[d];
        uint64_t len = min + (uint64_t) ((double) max * ((double) (rng_next (w->rng) >> 11)
                                                         * 0x1p-53));
        if (!j->bs_unaligned)
            len -= len % min;
        return (uint32_t) (len < max ? len : max);
    }
    return j->bs[d];
}

/* Marks a write buffer so no two written chunks are equal.  Can't fail. */
static inline void
stamp_buffer (worker_t *w, io_unit_t *u)
{
    if (w->job->zero_buffers)
        return;
    uint8_t *p = u->buf;
    for (uint32_t off = 0; off < u->len; off += STAMP_CHUNK) {
        uint64_t v = ++w->stamp ^ ((uint64_t) w->id << 48);
        memcpy (p + off, &v, sizeof v);
    }
}

/* The direction of worker w's next I/O by rw and rwmixread.  Can't fail. */
static io_dir_t
pick_dir (worker_t *w)
{
    iojob_t *j = w->job;
    switch (j->rw) {
    case IOFLEET__RW__RW_READ:
    case IOFLEET__RW__RW_RANDREAD:
        return IO_READ;
    case IOFLEET__RW__RW_WRITE:
    case IOFLEET__RW__RW_RANDWRITE:
        return IO_WRITE;
    case IOFLEET__RW__RW_TRIM:
    case IOFLEET__RW__RW_RANDTRIM:
        return IO_TRIM;
    case IOFLEET__RW__RW_TRIMWRITE: {
        /* fio's set_rw_ddir: a trim when the file's last write started
           where its last trim did, else a write; so trim, write, trim...
           and, with a larger trim, writes until they catch up. */
        const uint64_t *ls = w->last_start + (size_t) w->next_target * DIR_COUNT;
        return ls[IO_WRITE] == ls[IO_TRIM] ? IO_TRIM : IO_WRITE;
    }
    case IOFLEET__RW__RW_RANDTRIMWRITE:
        /* A random trim, then a write of exactly what it trimmed. */
        return w->last_trim.len ? IO_WRITE : IO_TRIM;
    default:
        return (rng_next (w->rng) % 100) < j->rwmixread ? IO_READ : IO_WRITE;
    }
}

static void fill_buffer (iojob_t *j, uint64_t *rng, uint8_t *buf, uint32_t len);

/* Where worker id's region of target t starts: offset_increment puts each
   worker's id x it further on.  Can't fail. */
static inline uint64_t
region_start_of (const iojob_t *j, int id, uint32_t t)
{
    return j->region_start[t] + (uint64_t) id * j->offset_increment;
}

/* A write's data: fresh (refill_buffers), stamped unique (scramble_buffers)
   and carrying its verify header.  Can't fail. */
static void
write_data (worker_t *w, io_unit_t *u)
{
    iojob_t *j = w->job;
    if (j->refill)
        fill_buffer (j, w->drng, u->buf, u->len);
    if (j->scramble)
        stamp_buffer (w, u);
    if (j->verify != VERIFY_NONE)
        verify_stamp (j->verify, u->buf, u->len, u->offset, ++w->wseq, (uint32_t) w->id);
}

/* Fills u with the place and size of worker w's next I/O, of direction
   dir, and counts it toward the pass's limits.  Returns false, with u not
   filled, when the pass ended instead (a size-bound job whose I/O going
   on from the last would start past its region, as fio's). */
static bool
gen_unit (worker_t *w, io_unit_t *u, io_dir_t dir)
{
    iojob_t *j = w->job;
    if (j->rw == IOFLEET__RW__RW_RANDTRIMWRITE && dir == IO_WRITE && w->last_trim.len) {
        /* fio's get_next_block/get_next_buflen for randtrimwrite: the
           write goes where the trim went, with its length. */
        u->len = w->last_trim.len;
        u->offset = w->last_trim.offset;
        u->target = w->last_trim.target;
        u->fd = j->targets[u->target].fd;
        u->dir = dir;
        u->verify = false;
        w->last_trim.len = 0;
        w->bytes_issued += u->len;
        w->ios_issued++;
        return true;
    }
    uint32_t t = w->next_target;
    /* fio's file_service_type=roundrobin: the next of its files each I/O. */
    if (!j->files_per_worker)
        w->next_target = (t + 1) % (uint32_t) j->ntargets;
    else {
        uint32_t first = (uint32_t) w->id * j->files_per_worker;
        w->next_target = first + (t - first + 1) % j->files_per_worker;
    }
    u->len = pick_bs (w, dir);
    offsets_t *o = w->offsets[t * DIR_COUNT + (j->offsets_per_dir ? dir : 0)];
    /* rw=randread:N and percentage_random, as fio's get_next_offset and
       get_next_block: a random offset on the first I/O and every N-th
       after it, each then at random with the direction's percentage; the
       others go on from where the direction's last I/O on the file ended,
       without marking the random map, unless that would pass the region's
       end. */
    uint64_t seq = UINT64_MAX;
    if (j->seq_mix) {
        bool hit = true;
        if (j->seq_nr && --w->seq_left == 0)
            w->seq_left = j->seq_nr;
        else if (j->seq_nr)
            hit = false;
        if (hit && j->perc_random[dir] < 100)
            hit = 1 + rng_next (w->srng) % 100 <= j->perc_random[dir];
        if (!hit) {
            /* fio's get_next_seq_offset: a time-based job goes back to the
               region's start; a size-bound one ends there (get_next_offset
               fails, and fio's job is done). */
            seq = w->last_end[t * DIR_COUNT + dir];
            uint64_t start = region_start_of (j, w->id, t);
            uint64_t end = start + j->region_units[t] * j->unit;
            if (seq + u->len > end && j->time_based)
                seq = start;
            else if (seq + u->len > end) {
                w->seq_done = true;
                return false;
            }
        }
    }
    u->offset = seq != UINT64_MAX ? seq : offsets_next (o, &u->len, rng_next (w->rng));
    if (j->seq_mix)
        w->last_end[t * DIR_COUNT + dir] = u->offset + u->len;
    w->bytes_issued += u->len;
    w->ios_issued++;
    u->fd = j->targets[t].fd;
    u->target = t;
    u->dir = dir;
    u->verify = false;
    if (w->last_start)
        w->last_start[t * DIR_COUNT + dir] = u->offset;
    if (dir == IO_TRIM && j->rw == IOFLEET__RW__RW_RANDTRIMWRITE)
        w->last_trim = *u;
    return true;
}

/* Fills u with worker w's next I/O, of direction dir, a write's data
   stamped (and its verify header written).  Returns false when the pass
   ended instead (gen_unit). */
static bool
prep_unit (worker_t *w, io_unit_t *u, io_dir_t dir)
{
    if (!gen_unit (w, u, dir))
        return false;
    if (dir == IO_WRITE)
        write_data (w, u);
    return true;
}

/* True when a size-limited job has issued all it may.  Can't fail. */
static inline bool
limit_reached (const worker_t *w)
{
    const iojob_t *j = w->job;
    if (j->replay)
        return w->replay_next >= j->replay->n;  /* fio replays a log once */
    if (w->seq_done)
        return true;
    return !j->time_based && ((w->io_limit && w->bytes_issued >= w->io_limit)
                              || (j->number_ios && w->ios_issued >= j->number_ios));
}

static inline uint64_t
interval_end (const iojob_t *j, uint32_t k)
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

static void
sleep_until (uint64_t mono)
{
    struct timespec ts = { .tv_sec = (time_t) (mono / NS_PER_SEC),
                           .tv_nsec = (long) (mono % NS_PER_SEC) };
    while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* How late a 1 us nanosleep wakes on this host, at worst of 10 (fio's
   ns_granularity in fio_time_init). */
static uint64_t s_sleep_granularity;
static pthread_once_t s_granularity_once = PTHREAD_ONCE_INIT;

static void
measure_granularity (void)
{
    for (int i = 0; i < 10; i++) {
        uint64_t t0 = clock_mono_ns ();
        struct timespec ts = { 0, 1000 };
        nanosleep (&ts, NULL);
        uint64_t dt = clock_mono_ns () - t0;
        if (dt > s_sleep_granularity)
            s_sleep_granularity = dt;
    }
}

/* Sleeps until the clock `mono` and spins the last stretch a sleep would
   overshoot, as fio's usec_sleep does, so rate and thinktime waits end when
   they should and not a timer slack later.  Can't fail. */
static void
sleep_precise_until (uint64_t mono)
{
    pthread_once (&s_granularity_once, measure_granularity);
    uint64_t now = clock_mono_ns ();
    if (mono > now + s_sleep_granularity)
        sleep_until (mono - s_sleep_granularity);
    while (clock_mono_ns () < mono)
        ;
}

/* Appends v in decimal at p and returns the new end.  Can't fail. */
static inline char *
put_u64 (char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char) ('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* Writes one completed I/O to the worker's three latency logs in fio's
   format for its defaults (log_avg_msec=0, log_offset=0): "time, value,
   ddir, bs, prio" with time in ms since the measurement started, value in
   ns, ddir 0 read / 1 write / 2 trim, bs in bytes, prio 0 (with log_offset,
   "time, value, ddir, bs, offset, prio"); a trim, and an I/O of an engine
   that completes at commit (psync, the sync engines, null), has no slat
   line (fio records no submission latency for those).  Returns 0, or
   -1 with the worker's error set; the logs are then left alone. */
static int
lat_log_add (worker_t *w, const io_unit_t *u, uint64_t now)
{
    lat_log_t *l = w->lat_log;
    if (l->failed)
        return -1;
    uint64_t clat = now - u->t_issue;
    const uint64_t v[LOG_KINDS] = {
        [LOG_CLAT] = clat,
        [LOG_SLAT] = u->t_issue - u->t_start,
        [LOG_LAT] = now - u->t_start,
        /* fio's add_bw_sample: bytes * 1000000 / clat in ns (0 for none). */
        [LOG_BW] = clat ? (uint64_t) u->len * 1000000u / clat : 0,
        [LOG_IOPS] = 1,
    };
    char head[24], tail[64];
    char *h = put_u64 (head, (now - w->job->measure_start) / NS_PER_MS);
    *h++ = ',';
    *h++ = ' ';
    char *t = tail;
    memcpy (t, u->dir == IO_TRIM ? ", 2, " : u->dir == IO_WRITE ? ", 1, " : ", 0, ", 5);
    t = put_u64 (t + 5, u->len);
    if (w->job->log_offset) {
        memcpy (t, ", ", 2);
        t = put_u64 (t + 2, u->offset);
    }
    memcpy (t, ", 0\n", 4);
    t += 4;
    for (int k = 0; k < LOG_KINDS; k++) {
        if (!l->f[k] || (k == LOG_SLAT && (u->dir == IO_TRIM || w->job->ops->completes_at_commit)))
            continue;
        char line[128];
        char *p = line;
        memcpy (p, head, (size_t) (h - head));
        p = put_u64 (p + (h - head), v[k]);
        memcpy (p, tail, (size_t) (t - tail));
        p += t - tail;
        size_t n = (size_t) (p - line);
        /* Only this worker touches its files: no stdio locking needed. */
        if (fwrite_unlocked (line, 1, n, l->f[k]) != n) {
            int e = errno;
            l->failed = true;
            if (!w->error[0])
                snprintf (w->error, sizeof w->error, "%s: writing '%s': %s", s_log_option[k],
                          l->path[k], strerror (e));
            return -1;
        }
    }
    return 0;
}

/* Flushes and closes a worker's latency logs and frees them.  Returns 0,
   or -1 when a buffered write failed now (the worker's error is then set,
   unless it already held one).  Safe when the worker has none. */
static int
lat_log_close (worker_t *w)
{
    lat_log_t *l = w->lat_log;
    if (!l)
        return 0;
    int rc = 0;
    for (int k = 0; k < LOG_KINDS; k++) {
        /* fclose flushes what is buffered: a full disk shows here. */
        if (l->f[k] && fclose (l->f[k]) != 0 && !l->failed) {
            int e = errno;
            l->failed = true;
            rc = -1;
            if (!w->error[0])
                snprintf (w->error, sizeof w->error, "%s: writing '%s': %s", s_log_option[k],
                          l->path[k], strerror (e));
        }
        free (l->buf[k]);
    }
    free (l);
    w->lat_log = NULL;
    return rc;
}

/* Keeps the first failure of a write to the iolog (rc < 0), for the
   worker's error once the log is closed.  Can't fail. */
static void
iolog_check (iojob_t *j, int rc)
{
    if (rc < 0 && !j->iolog_failed) {
        j->iolog_failed = true;
        j->iolog_errno = errno;
    }
}

/* write_iolog: one line of fio's version 3 iolog, "USEC NAME ACTION[ OFFSET
   LEN]", the time in microseconds since the worker began and the file as
   the job names it, as fio's log_io_u and log_file print them.  A failed
   write is the worker's error once the log is closed.  Can't fail. */
static void
iolog_line (worker_t *w, uint64_t at, uint32_t t, const char *action, const io_unit_t *u)
{
    iojob_t *j = w->job;
    unsigned long long us = (at > w->wake_mono ? at - w->wake_mono : 0) / 1000;
    iolog_check (j, u ? fprintf (j->iolog, "%llu %s %s %llu %u\n", us, j->iolog_names[t],
                                 action, (unsigned long long) u->offset, u->len)
                      : fprintf (j->iolog, "%llu %s %s\n", us, j->iolog_names[t], action));
}

static void
iolog_io (worker_t *w, const io_unit_t *u)
{
    iolog_line (w, u->t_start, u->target, dir_name ((int) u->dir), u);
}

/* The log's head (its version, and each file added and opened), or its
   tail (each file closed, and the log flushed and closed).  Returns 0, or
   -1 with the worker's error set when the log could not be written.  */
static int
iolog_edge (worker_t *w, bool head)
{
    iojob_t *j = w->job;
    if (!j->iolog)
        return 0;
    uint64_t now = head ? w->wake_mono : clock_mono_ns ();
    if (head)
        iolog_check (j, fprintf (j->iolog, "fio version 3 iolog\n"));
    for (int t = 0; t < j->ntargets; t++) {
        if (head)
            iolog_line (w, now, (uint32_t) t, "add", NULL);
        iolog_line (w, now, (uint32_t) t, head ? "open" : "close", NULL);
    }
    if (head)
        return 0;
    iolog_check (j, fclose (j->iolog) == 0 ? 0 : -1);
    j->iolog = NULL;
    if (!j->iolog_failed)
        return 0;
    if (!w->error[0])
        snprintf (w->error, sizeof w->error, "write_iolog: writing '%s': %s", j->iolog_path,
                  strerror (j->iolog_errno));
    return -1;
}

/* Commits the *queued units of batch, stamping their issue time (*now,
   read again), and counts them in flight.  Returns 0, or -1 with the
   worker's error set and the worker stopping. */
static int
commit_batch (worker_t *w, io_unit_t **batch, unsigned *queued, uint64_t *now)
{
    iojob_t *j = w->job;
    int rc = j->ops->commit (&w->engine);
    *now = w->now = clock_mono_ns ();
    if (rc < 0) {
        snprintf (w->error, sizeof w->error, "%s: submit failed: %s", j->ops->name,
                  strerror (-rc));
        w->stopping = true;
        return -1;
    }
    /* A synchronous engine stamped each unit around its call (t_done);
       the null engine does no call. */
    for (unsigned k = 0; k < *queued; k++)
        if (!batch[k]->t_done)
            batch[k]->t_issue = *now;
    w->inflight += *queued;
    *queued = 0;
    return 0;
}

/* Trims u's range now, as fio's os_trim: ioctl BLKDISCARD on the block
   device (a job that trims has only block devices: job_new checks), timed
   from start; u waits in the trimmed list for the next reap, in flight
   until then.  Can't fail (a failed trim is u's res, -errno). */
static void
trim_one (worker_t *w, io_unit_t *u, uint64_t start)
{
    uint64_t range[2] = { u->offset, u->len };
    u->t_start = u->t_issue = start;
    int rc = 0;
    /* fio's null engine completes a trim as anything else. */
    while (!w->job->null_engine && (rc = ioctl (u->fd, BLKDISCARD, range)) < 0 && errno == EINTR)
        ;
    u->res = rc < 0 ? -(int64_t) errno : (int64_t) u->len;
    u->t_done = clock_mono_ns ();
    w->trimmed[w->ntrimmed++] = u;
    w->inflight++;
}

/* Queues units[0..n) (already prepared) with the job's submit batching,
   stamping start and issue times, and counts them in flight.  Returns 0,
   or -errno with the worker's error set and the worker stopping. */
static int
submit (worker_t *w, io_unit_t **units, unsigned n)
{
    iojob_t *j = w->job;
    unsigned queued = 0;
    io_unit_t *batch[64];
    uint64_t now = w->now;
    for (unsigned i = 0; i < n; i++) {
        io_unit_t *u = units[i];
        /* slat starts here.  The clock read that ended the previous submit
           is reused when nothing waited in between: the difference is the
           few ns of preparing this unit, and it halves clock reads. */
        u->t_start = now;
        u->t_done = 0;
        if (j->iolog)
            iolog_io (w, u);
        if (u->dir == IO_TRIM) {
            /* As fio's engines: what is queued goes out first, then the
               trim is done inline (BLKDISCARD), one at a time. */
            if (queued && commit_batch (w, batch, &queued, &now) < 0)
                return -1;
            trim_one (w, u, now);
            now = w->now = u->t_done;
            continue;
        }
        int rc = j->ops->queue (&w->engine, u);
        if (rc < 0) {
            snprintf (w->error, sizeof w->error, "%s: queueing an I/O failed: %s",
                      j->ops->name, strerror (-rc));
            w->stopping = true;
            return rc;
        }
        batch[queued++] = u;
        if ((queued == j->batch_submit || queued == 64 || i + 1 == n)
            && commit_batch (w, batch, &queued, &now) < 0)
            return -1;
    }
    if (queued && commit_batch (w, batch, &queued, &now) < 0)
        return -1;
    return 0;
}

/* Moves the worker's measurement on to the clock `now`: starts measuring at
   measure_start (restarting the rate quota there when a ramp ran, as fio's
   reset_all_stats does) and publishes the intervals `now` has passed.
   Can't fail. */
static void
advance (worker_t *w, uint64_t now)
{
    iojob_t *j = w->job;
    if (!w->measuring && now >= j->measure_start) {
        w->measuring = true;
        if (j->ramp_ns) {
            w->rate_epoch = now;
            memset (w->rate_bytes, 0, sizeof w->rate_bytes);
            memset (w->rate_next, 0, sizeof w->rate_next);
            w->think_last = w->think_last > w->completed ? w->think_last - w->completed : 0;
            w->completed = 0;
        }
    }
    while (w->measuring && now >= interval_end (j, w->k) && interval_end (j, w->k) < j->measure_end)
        publish (w, &w->k);
}

/* Checks a read back of a write (verify=): a mismatch is an error of the
   read's direction, named with the place and what differs; the worker goes
   on unless verify_fatal (fio's default: check everything, then fail).
   Can't fail. */
static void
check_read_back (worker_t *w, io_unit_t *u, dir_stats_t *d)
{
    iojob_t *j = w->job;
    char why[512];
    if (verify_check (j->verify, u->buf, u->len, u->offset, why, sizeof why) == 0)
        return;
    w->verify_errors++;
    if (d)
        d->errors++;
    if (!w->error[0])
        snprintf (w->error, sizeof w->error, JOB_VERIFY_ERROR "%u bytes at offset %llu of '%s': %s",
                  u->len, (unsigned long long) u->offset, j->targets[u->target].path, why);
    if (j->verify_fatal)
        w->stopping = true;
}

/* Remembers a completed write for verify_backlog, and starts reading the
   ring back once it holds verify_backlog writes.  Can't fail (vlog_cap). */
static void
vlog_add (worker_t *w, const io_unit_t *u)
{
    iojob_t *j = w->job;
    assert (w->vlog_n < w->vlog_cap);
    w->vlog[(w->vlog_head + w->vlog_n) % w->vlog_cap] =
        (struct vlog_entry) { .offset = u->offset, .len = u->len, .target = u->target };
    /* The last writes' batch waits for the pass's end, as fio's (it reads
       them back in its verify phase, which it times as reads). */
    if (++w->vlog_n >= j->verify_backlog && !limit_reached (w))
        w->vlog_drain = true;
}

/* Reaps between min and max completions, waiting at most timeout ns, and
   files them into the interval they completed in; their units go back to
   the free stack.  An I/O that completes after the end of a time-based run
   still counts, as in fio, which drains and counts what it issued.
   Trims done inline are filed first, and while any wait the engine is not
   waited on.  Returns the number reaped, or -1 with the worker's error set
   (it then stops at once). */
static int
reap (worker_t *w, unsigned min, unsigned max, uint64_t timeout)
{
    iojob_t *j = w->job;
    unsigned nt = w->ntrimmed;
    int n = 0;
    if (w->inflight > nt)
        n = j->ops->getevents (&w->engine, nt >= min ? 0 : min - nt, max,
                               nt ? 0 : timeout);
    if (n < 0) {
        snprintf (w->error, sizeof w->error, "%s: reaping completions failed: %s",
                  j->ops->name, strerror (-n));
        w->stopping = true;
        return -1;
    }
    uint64_t now = w->now = clock_mono_ns ();
    /* Close the intervals this moment has passed, before filing the
       completions reaped now into the interval they belong to. */
    advance (w, now);
    const bool counted = w->measuring;
    const bool hist = j->histograms;
    dir_stats_t *slot = w->slot[w->k % 2];
    w->ntrimmed = 0;
    for (unsigned i = 0; i < nt + (unsigned) n; i++) {
        io_unit_t *u = i < nt ? w->trimmed[i] : j->ops->event (&w->engine, i - nt);
        assert (w->inflight > 0 && w->nfree < w->depth);
        w->inflight--;
        w->completed++;
        w->free_units[w->nfree++] = u;
        dir_stats_t *d = &slot[u->target * DIR_COUNT + u->dir];
        /* A trim ended when its ioctl returned. */
        uint64_t done = u->t_done ? u->t_done : now;
        if (u->res != (int64_t) u->len) {
            if (counted)
                d->errors++;
            if (!w->error[0])
                snprintf (w->error, sizeof w->error, "%s of %u bytes at offset %llu of '%s' "
                          "failed: %s", dir_name ((int) u->dir), u->len,
                          (unsigned long long) u->offset, j->targets[u->target].path,
                          u->res < 0 ? strerror ((int) -u->res) : "short transfer");
            w->stopping = true;
            continue;
        }
        if (j->lat_target_ns && w->lat_started) {
            /* fio counts total latency, after the ramp. */
            w->lat_done++;
            if (done - u->t_start > j->lat_target_ns) {
                if (j->lat_pct < 100)
                    w->lat_failed++;
                else if (w->lat_qd > 1)
                    w->lat_fail_now = true;
                else if (!w->stopping) {
                    /* fio's lat_fatal: at depth 1 nothing is left to try. */
                    if (!w->error[0])
                        snprintf (w->error, sizeof w->error, "latency_target: a latency of "
                                  "%llu ns at depth 1 exceeds the target of %llu ns (%s of %u "
                                  "bytes at offset %llu of '%s')",
                                  (unsigned long long) (done - u->t_start),
                                  (unsigned long long) j->lat_target_ns, dir_name ((int) u->dir),
                                  u->len, (unsigned long long) u->offset,
                                  j->targets[u->target].path);
                    w->stopping = true;
                }
            }
        }
        if (u->verify)
            check_read_back (w, u, counted ? d : NULL);
        else if (u->dir == IO_WRITE && w->vlog)
            vlog_add (w, u);
        if (counted) {
            d->ops++;
            d->bytes += u->len;
            if (u->dir <= IO_WRITE) {
                w->done_bytes[u->dir] += u->len;
                w->done_ios[u->dir]++;
            }
            if (hist) {
                /* fio records no submission latency for a trim, nor for
                   an I/O that completed as it was submitted (its sync
                   engines, null: slat N 0). */
                if (u->dir != IO_TRIM && !j->ops->completes_at_commit)
                    histogram_record (&d->slat, u->t_issue - u->t_start);
                histogram_record (&d->clat, done - u->t_issue);
                histogram_record (&d->lat, done - u->t_start);
            }
            /* Logged exactly when counted: the log holds the I/Os of
               the reported figures, no ramp. */
            if (w->lat_log && lat_log_add (w, u, done) < 0)
                w->stopping = true;
        }
    }
    if (now >= j->measure_end || atomic_load_explicit (&j->stop, memory_order_relaxed))
        w->stopping = true;
    return (int) nt + n;
}

/* The most completions one reap takes: fio's iodepth_batch_complete_max,
   which defaults to iodepth_batch_complete_min; an engine that completes at
   commit has them all at once.  Can't fail. */
static inline unsigned
reap_max (const worker_t *w)
{
    return w->job->ops->completes_at_commit ? w->depth : w->job->batch_complete;
}

/* Waits for every I/O in flight and files it, as fio's io_u_quiesce does
   before a rate or thinktime sleep, so no completion waits out the sleep
   unreaped and the latency measured is the device's.  Returns 0, or -1 when
   reaping failed (the worker's error is set). */
static int
quiesce (worker_t *w)
{
    while (w->inflight > 0)
        if (reap (w, w->inflight, w->depth, REAP_TIMEOUT_MAX_NS) < 0)
            return -1;
    return 0;
}

/* Sleeps until the clock `until`, waking at each interval's end to publish
   it and at least every REAP_TIMEOUT_MAX_NS to notice a stop.  Returns early
   with the worker stopping when the run ends or is stopped.  Can't fail. */
static void
pace_sleep (worker_t *w, uint64_t until)
{
    iojob_t *j = w->job;
    while (w->now < until) {
        uint64_t t = until;
        if (t - w->now > REAP_TIMEOUT_MAX_NS)
            t = w->now + REAP_TIMEOUT_MAX_NS;
        if (w->measuring && interval_end (j, w->k) < t)
            t = interval_end (j, w->k);
        else if (!w->measuring && j->measure_start > w->now && j->measure_start < t)
            t = j->measure_start;
        if (t == until)
            sleep_precise_until (t);
        else
            sleep_until (t);
        w->now = clock_mono_ns ();
        advance (w, w->now);
        if (w->now >= j->measure_end || atomic_load_explicit (&j->stop, memory_order_relaxed)) {
            w->stopping = true;
            return;
        }
    }
}

/* fio's rate_ddir: the direction to issue next, given that d was drawn.
   A direction behind its quota goes now; when d is ahead, the other one
   goes if it is behind; when both are ahead, the worker quiesces and
   sleeps until the earlier is due and issues that one.  Can't fail (a
   failed reap leaves the worker stopping). */
static io_dir_t
rate_dir (worker_t *w, io_dir_t d)
{
    iojob_t *j = w->job;
    uint64_t t = w->now - w->rate_epoch;
    if (w->rate_next[d] <= t)
        return d;
    io_dir_t o = d == IO_READ ? IO_WRITE : IO_READ;
    uint64_t due = w->rate_next[d];
    if (j->rw == IOFLEET__RW__RW_RW || j->rw == IOFLEET__RW__RW_RANDRW) {
        if (rw_has (j->rw, j->rwmixread, o)) {
            if (w->rate_next[o] <= t)
                return o;
            if (w->rate_next[o] < due) {
                due = w->rate_next[o];
                d = o;
            }
        }
    }
    if (quiesce (w) == 0)
        pace_sleep (w, w->rate_epoch + due);
    return d;
}

/* Counts an issued I/O of len bytes toward direction d's quota (fio's
   usec_for_io: issued bytes over rate_iops x min bs, or one period per I/O
   when the direction has a bssplit).  Can't fail. */
static void
rate_account (worker_t *w, io_dir_t d, uint32_t len)
{
    iojob_t *j = w->job;
    if (!j->rate_bps[d])
        return;
    if (j->poisson_us[d]) {
        /* fio: (int64_t) (1000000 / iops) * -logf (uniform (0, 1]), in
           whole microseconds, added to the direction's schedule. */
        double u = (double) ((rng_next (w->prng) >> 11) + 1) * 0x1p-53;
        w->rate_next[d] += (uint64_t) ((double) j->poisson_us[d] * -log (u)) * 1000;
        return;
    }
    if (j->rate_period[d]) {
        w->rate_next[d] += j->rate_period[d];
        return;
    }
    w->rate_bytes[d] += len;
    uint64_t secs = w->rate_bytes[d] / j->rate_bps[d];
    uint64_t rem = w->rate_bytes[d] % j->rate_bps[d];
    w->rate_next[d] = secs * NS_PER_SEC + (uint64_t) ((unsigned __int128) rem * NS_PER_SEC
                                                      / j->rate_bps[d]);
}

/* fio's handle_thinktime with thinktime_blocks=1 counted at completion:
   once an I/O completed since the last think, quiesce and sleep thinktime.
   Can't fail (a failed reap leaves the worker stopping). */
static void
think (worker_t *w)
{
    iojob_t *j = w->job;
    if (w->completed < w->think_last + 1)
        return;
    uint64_t b = w->completed;
    if (quiesce (w) == 0)
        pace_sleep (w, w->now + j->thinktime_ns);
    w->think_last = b;
}

/* Read-backs into the idle units, unpaced, with the job's submit batching:
   the ring's oldest writes (verify_backlog), or the pass's writes replayed
   as reads, its reads drawn and skipped so the generator goes as it went.
   Can't fail (errors leave the worker stopping). */
static void
fill_read_back (worker_t *w)
{
    iojob_t *j = w->job;
    unsigned n = 0;
    while (w->nfree > 0) {
        io_unit_t *u = w->free_units[w->nfree - 1];
        if (w->vlog_drain) {
            if (w->vlog_n == 0) {
                w->vlog_drain = false;
                break;
            }
            struct vlog_entry *e = &w->vlog[w->vlog_head];
            w->vlog_head = (w->vlog_head + 1) % w->vlog_cap;
            w->vlog_n--;
            u->offset = e->offset;
            u->len = e->len;
            u->target = e->target;
            u->fd = j->targets[e->target].fd;
        } else {
            if (limit_reached (w))
                break;
            io_dir_t d = pick_dir (w);
            if (!gen_unit (w, u, d))
                break;
            if (d == IO_READ)
                continue;
        }
        u->dir = IO_READ;
        u->verify = true;
        w->nfree--;
        w->batch[n++] = u;
    }
    if (n)
        submit (w, w->batch, n);
}

/* fio's iolog_delay: waits delay_ns after the last issue, less the time
   since it and what the last wait overslept (which is carried on only when
   a wait overslept its whole delay).  Can't fail. */
static void
replay_delay (worker_t *w, uint64_t delay_ns)
{
    uint64_t orig = delay_ns, since = w->now - w->replay_last_issue;
    if (delay_ns < w->replay_offset_ns) {
        w->replay_offset_ns = 0;
        return;
    }
    delay_ns -= w->replay_offset_ns;
    if (delay_ns < since)
        return;
    delay_ns -= since;
    uint64_t t0 = w->now;
    pace_sleep (w, t0 + delay_ns);
    uint64_t slept = w->now - t0;
    w->replay_offset_ns = slept > orig ? slept - orig : 0;
}

/* read_iolog: issues the log's next entries into the idle units, one at a
   time, each after its wait (version 3: the logged gap to the line before,
   scaled by replay_time_scale; version 2: until its "wait" time), as fio
   replays them: I/O in flight is not reaped first.  Syncs are done inline
   and file actions only take their time.  Can't fail (errors leave the
   worker stopping). */
static void
replay_fill (worker_t *w)
{
    iojob_t *j = w->job;
    const replay_log_t *log = j->replay;
    while (w->nfree > 0 && !w->stopping && w->replay_next < log->n) {
        const replay_entry_t *e = &log->entries[w->replay_next];
        w->now = clock_mono_ns ();
        if (log->version == 3) {
            /* fio: no wait after a line at time 0, nor when time goes back. */
            uint64_t prev = w->replay_prev_usec;
            w->replay_prev_usec = e->usec;
            if (!j->replay_no_stall && prev && e->usec > prev)
                replay_delay (w, (e->usec - prev) * 1000 * 100 / j->replay_time_scale);
        } else if (e->kind == REPLAY_WAIT && !j->replay_no_stall) {
            uint64_t due = w->replay_t0 + e->offset * NS_PER_MS;
            if (due > w->now)
                pace_sleep (w, due);
        }
        if (w->stopping)
            break;
        w->replay_next++;
        if (e->kind == REPLAY_FILE || e->kind == REPLAY_WAIT)
            continue;
        uint32_t t = j->replay_redirect ? 0 : e->file;
        if (e->kind == REPLAY_SYNC || e->kind == REPLAY_DATASYNC) {
            int rc = e->kind == REPLAY_SYNC ? fsync (j->targets[t].fd)
                                            : fdatasync (j->targets[t].fd);
            if (rc < 0 && !w->error[0]) {
                snprintf (w->error, sizeof w->error, "read_iolog: %s of '%s' failed: %s",
                          e->kind == REPLAY_SYNC ? "sync" : "datasync", j->targets[t].path,
                          strerror (errno));
                w->stopping = true;
            }
            continue;
        }
        io_unit_t *u = w->free_units[--w->nfree];
        u->dir = (io_dir_t) e->kind;
        u->len = e->len;
        u->target = t;
        u->fd = j->targets[t].fd;
        u->offset = e->offset / j->replay_scale;
        if (j->replay_align)
            u->offset &= ~((uint64_t) j->replay_align - 1);
        u->verify = false;
        if (u->dir == IO_WRITE)
            write_data (w, u);
        w->bytes_issued += u->len;
        w->ios_issued++;
        if (submit (w, &u, 1) < 0)
            break;
        w->replay_last_issue = u->t_start;
    }
}

/* Issues I/Os into the idle units.  Unpaced, all at once with the job's
   submit batching; paced (rate_iops, thinktime), one at a time as fio's
   inline submission does: a rate wait or think quiesces first, and a full
   queue is reaped before the think, as fio's do_io loop does.  Can't fail
   (errors leave the worker stopping). */
static void
fill (worker_t *w)
{
    iojob_t *j = w->job;
    if (j->replay) {
        replay_fill (w);
        return;
    }
    if (w->vlog_drain || w->read_back) {
        fill_read_back (w);
        if (w->vlog_drain || w->read_back || w->nfree == 0)
            return;
    }
    /* latency_target: fio's queue_full caps what is in flight at the
       search's depth. */
    unsigned cap = j->lat_target_ns ? w->lat_qd : w->depth;
    if (!j->paced) {
        unsigned n = 0;
        while (w->nfree > 0 && !limit_reached (w) && w->inflight + n < cap) {
            io_unit_t *u = w->free_units[w->nfree - 1];
            if (!prep_unit (w, u, pick_dir (w)))
                break;
            w->nfree--;
            w->batch[n++] = u;
        }
        if (n)
            submit (w, w->batch, n);
        return;
    }
    while (w->nfree > 0 && !w->stopping && !limit_reached (w) && w->inflight < cap) {
        io_dir_t d = pick_dir (w);
        if (j->rate_bps[0] || j->rate_bps[1]) {
            d = rate_dir (w, d);
            if (w->stopping || w->nfree == 0)
                break;
        }
        io_unit_t *u = w->free_units[w->nfree - 1];
        if (!prep_unit (w, u, d))
            break;
        w->nfree--;
        if (submit (w, &u, 1) < 0)
            break;
        rate_account (w, d, u->len);
        if (w->nfree == 0 && reap (w, j->batch_complete, reap_max (w), REAP_TIMEOUT_MAX_NS) < 0)
            break;
        if (j->thinktime_ns)
            think (w);
    }
}

/* Starts pass w's generator over as at the job's start: positions,
   random map and random numbers (fio 3.33 repeats a randread loop's
   offsets exactly, and reads a pass's writes back in the order written).
   Can't fail. */
static void
rewind_pass (worker_t *w)
{
    iojob_t *j = w->job;
    w->bytes_issued = w->ios_issued = 0;
    for (int g = 0; g < j->ntargets * DIR_COUNT; g++)
        if (w->offsets[g])
            offsets_rewind (w->offsets[g]);
    memcpy (w->rng, w->rng_loop, sizeof w->rng);
    w->seq_done = false;
    w->seq_left = 1;
    for (int g = 0; w->last_end && g < j->ntargets * DIR_COUNT; g++)
        w->last_end[g] = region_start_of (j, w->id, (uint32_t) (g / DIR_COUNT));
}

/* After a size-bound pass drained at its limit: what comes next, as fio
   does it.  The writes still in the backlog ring are read back; or, with
   verify= and do_verify, the pass's writes are (replayed in the order
   written); then, with loops=N, the next loop starts as the first did.
   Returns true when there is more to issue.  Can't fail. */
static bool
next_phase (worker_t *w)
{
    iojob_t *j = w->job;
    if (w->stopping || j->time_based || !limit_reached (w)
        || atomic_load_explicit (&j->stop, memory_order_relaxed))
        return false;
    uint64_t now = clock_mono_ns ();
    if (w->timing) {
        w->read_back_ns += now - w->read_back_start;
        w->timing = false;
    }
    if (w->vlog_n > 0) {
        w->vlog_drain = true;
        w->read_back = false;
    } else if (w->read_back) {
        w->read_back = false;
        w->read_back_done = true;
    } else if (j->verify != VERIFY_NONE && j->verify_read_back && !j->verify_backlog
               && !w->read_back_done) {
        rewind_pass (w);
        w->read_back = true;
    }
    if (!w->vlog_drain && !w->read_back) {
        if (w->loop + 1 >= j->loops)
            return false;
        w->loop++;
        rewind_pass (w);
        w->read_back = j->verify_only;
        w->read_back_done = false;
    }
    w->timing = w->vlog_drain || w->read_back;
    w->read_back_start = now;
    return true;
}

/* fio's check_min_rate, once a loop after the ramp: 2 s after the start,
   each direction that has done I/O and has a minimum is held to it over
   each rate_cycle (the first check only takes its baseline); one below it
   fails the job, naming both figures.  Can't fail. */
static void
min_rate_check (worker_t *w)
{
    iojob_t *j = w->job;
    if (!w->measuring || w->stopping || w->now - w->wake_mono < 2 * NS_PER_SEC)
        return;
    for (int d = 0; d < 2; d++) {
        if ((!j->rate_min[d] && !j->rate_iops_min[d]) || !w->done_bytes[d])
            continue;
        if (w->mr_bytes[d] || w->mr_ios[d]) {
            uint64_t spent_ms = (w->now - w->mr_time[d]) / NS_PER_MS;
            if (spent_ms == 0 || spent_ms * NS_PER_MS < j->rate_cycle_ns)
                continue;
            uint64_t bytes = (w->done_bytes[d] - w->mr_bytes[d]) * 1000 / spent_ms;
            uint64_t iops = (w->done_ios[d] - w->mr_ios[d]) * 1000 / spent_ms;
            if (j->rate_min[d] ? bytes < j->rate_min[d] : iops < j->rate_iops_min[d]) {
                if (!w->error[0]) {
                    if (j->rate_min[d])
                        snprintf (w->error, sizeof w->error, "rate_min=%lluB/s not met by "
                                  "%s, got %lluB/s", (unsigned long long) j->rate_min[d],
                                  d ? "writes" : "reads", (unsigned long long) bytes);
                    else
                        snprintf (w->error, sizeof w->error, "rate_iops_min=%u not met by %s, "
                                  "got %llu IOPS", j->rate_iops_min[d], d ? "writes" : "reads",
                                  (unsigned long long) iops);
                }
                w->stopping = true;
                return;
            }
        }
        w->mr_bytes[d] = w->done_bytes[d];
        w->mr_ios[d] = w->done_ios[d];
        w->mr_time[d] = w->now;
    }
}

/* latency_target: a window starts now (fio's lat_new_cycle).  Can't fail. */
static void
lat_new_cycle (worker_t *w)
{
    w->lat_ts = w->now;
    w->lat_ios = w->lat_done;
    w->lat_failed = 0;
}

/* Measuring starts now: the search has settled (or, stuck at depth 1, will
   not move), as fio resets its statistics then.  Can't fail. */
static void
lat_measure_from_now (worker_t *w)
{
    iojob_t *j = w->job;
    if (j->measure_start == UINT64_MAX)
        j->measure_start = w->now;
}

/* fio's __lat_target_failed: halve the way down to the lower bound, after
   the I/O in flight completes.  At depth 1 fio changes nothing and keeps
   checking the window it is in.  Can't fail. */
static void
lat_failed (worker_t *w)
{
    if (w->lat_qd == 1) {
        lat_measure_from_now (w);
        return;
    }
    w->lat_high = w->lat_qd;
    if (w->lat_qd == w->lat_low)
        w->lat_low--;
    w->lat_qd = (w->lat_qd + w->lat_low) / 2;
    w->lat_stable = 0;
    quiesce (w);
    lat_new_cycle (w);
}

/* fio's lat_target_success: double while below the job's iodepth bound,
   else halve the way up; a depth that stays is the answer: measure one more
   window at it (fio resets its figures for it), and end when that one
   passes too, unless latency_run.  Can't fail. */
static void
lat_success (worker_t *w)
{
    iojob_t *j = w->job;
    uint32_t old = w->lat_qd;
    w->lat_low = w->lat_qd;
    if (w->lat_qd + 1 == w->lat_high && ++w->lat_stable >= 3) {
        w->lat_high++;
        w->lat_stable = 0;
    }
    w->lat_qd = w->lat_high != w->depth ? (w->lat_qd + w->lat_high) / 2 : w->lat_qd * 2;
    if (w->lat_qd > w->depth)
        w->lat_qd = w->depth;
    if (!j->lat_run && w->lat_qd == old) {
        if (w->lat_end_run)
            w->stopping = true;
        else {
            quiesce (w);
            w->lat_end_run = true;
            lat_measure_from_now (w);
        }
    }
    lat_new_cycle (w);
}

/* fio's lat_target_check, once a loop: when the window is over, the share
   of its completions within the target against latency_percentile.
   Can't fail. */
static void
lat_check (worker_t *w)
{
    iojob_t *j = w->job;
    if (!j->lat_target_ns || w->stopping)
        return;
    if (!w->lat_started) {
        if (w->now < j->search_start)
            return;
        /* fio's lat_target_init, at the ramp's end. */
        w->lat_started = true;
        w->lat_qd = w->lat_low = 1;
        w->lat_high = w->depth;
        lat_new_cycle (w);
        return;
    }
    if (w->lat_fail_now) {
        w->lat_fail_now = false;
        lat_failed (w);
        return;
    }
    if (w->lat_done == 0 || w->now - w->lat_ts < j->lat_window_ns)
        return;
    uint64_t ios = w->lat_done - w->lat_ios;
    bool ok = ios > 0 && 100.0 * (double) (ios - w->lat_failed) / (double) ios >= j->lat_pct;
    if (ok)
        lat_success (w);
    else
        lat_failed (w);
}

static void *
worker_main (void *arg)
{
    worker_t *w = arg;
    iojob_t *j = w->job;
    /* A sleep of a paced worker (rate, thinktime) ends when it should, not
       up to the default 50 us timer slack later: the stretch spun at its
       end (sleep_precise_until) shrinks from ~60 us to a few, and with it
       the CPU a paced I/O costs.  A difference from fio kept on purpose
       (docs/conformance.md): the I/O and its timing are the same. */
    (void) prctl (PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    if (j->have_cpus) {
        int rc = pthread_setaffinity_np (pthread_self (), sizeof j->cpus, &j->cpus);
        if (rc)
            log_warn ("worker %d: cpus_allowed not applied: %s", w->id, strerror (rc));
    }
    /* The start (and a startdelay of hours) is waited for in slices, so a
       stop ends the wait too. */
    for (uint64_t now = clock_mono_ns ();
         now < j->mono_start && !atomic_load_explicit (&j->stop, memory_order_relaxed);
         now = clock_mono_ns ())
        sleep_until (j->mono_start - now > REAP_TIMEOUT_MAX_NS ? now + REAP_TIMEOUT_MAX_NS
                                                                : j->mono_start);
    w->stopping = atomic_load_explicit (&j->stop, memory_order_relaxed);
    w->now = w->rate_epoch = clock_mono_ns ();
    w->wake_mono = w->now;
    iolog_edge (w, true);
    w->read_back_start = w->now;
    w->timing = w->read_back;       /* verify_only: the pass is a read-back */
    w->replay_t0 = w->replay_last_issue = w->now;

    w->free_units = calloc (w->depth, sizeof *w->free_units);
    w->batch = calloc (w->depth, sizeof *w->batch);
    if (!w->free_units || !w->batch) {
        snprintf (w->error, sizeof w->error, "out of memory");
        w->stopping = true;
    } else {
        /* Unit 0 on top: the first I/O goes out in the first unit. */
        for (unsigned i = 0; i < w->depth; i++)
            w->free_units[w->nfree++] = &w->units[w->depth - 1 - i];
        /* latency_target: the ramp runs at full depth (fio searches from
           its end). */
        w->lat_qd = w->depth;
        lat_check (w);
        fill (w);
        while (w->inflight == 0 && next_phase (w))
            fill (w);
    }
    while (w->inflight > 0) {
        uint64_t timeout = REAP_TIMEOUT_MAX_NS;
        uint64_t now = clock_mono_ns ();
        if (w->measuring) {
            uint64_t b = interval_end (j, w->k);
            timeout = b > now ? b - now : 0;
            if (timeout > REAP_TIMEOUT_MAX_NS)
                timeout = REAP_TIMEOUT_MAX_NS;
        } else if (j->measure_start > now && j->measure_start - now < timeout)
            timeout = j->measure_start - now;
        /* One completion, one new I/O by default, as fio's. */
        unsigned min = j->batch_complete < w->inflight ? j->batch_complete : w->inflight;
        if (reap (w, min, reap_max (w), timeout) < 0)
            break;
        lat_check (w);
        min_rate_check (w);
        /* A size-limited job issues exactly its size, as fio's: the units
           beyond it just stay idle while the last I/Os drain. */
        if (!w->stopping)
            fill (w);
        /* Drained at its limit: a read-back or the next loop, if any. */
        while (w->inflight == 0 && next_phase (w))
            fill (w);
    }
    free (w->free_units);
    free (w->batch);
    w->free_units = w->batch = NULL;

    uint64_t now = clock_mono_ns ();
    w->end_mono = now < j->measure_end ? now : j->measure_end;
    /* The last, possibly partial, interval. */
    if (w->measuring && w->end_mono > j->measure_start + (uint64_t) w->k * j->interval_ns)
        atomic_store_explicit (&w->published, w->k + 1, memory_order_release);
    /* The logs are complete before the worker counts as finished, so a
       failure to write their end is in the step's error. */
    lat_log_close (w);
    iolog_edge (w, false);
    if (w->verify_errors > 1) {
        size_t n = strlen (w->error);
        snprintf (w->error + n, sizeof w->error - n, " (the first of %llu mismatches)",
                  (unsigned long long) w->verify_errors);
    }
    /* A message cut to the buffer may end inside a UTF-8 sequence, and the
       controller refuses a DONE whose error is not UTF-8. */
    long bad = utf8_invalid_at (w->error, strlen (w->error));
    if (bad >= 0)
        w->error[bad] = '\0';
    atomic_store_explicit (&w->finished, true, memory_order_release);
    return NULL;
}

/* Refuses a trim job's target that is not a block device, before anything
   is opened or laid out: BLKDISCARD takes only those (fio 3.33 tries, and
   its first trim fails with ENOTTY).  Returns 0, or -1 with err set. */
static int
trim_target_check (const iojob_t *j, const target_t *t, char *err, size_t errlen)
{
    struct stat st;
    if (stat (t->path, &st) == 0 && S_ISBLK (st.st_mode))
        return 0;
    char what[64];
    snprintf (what, sizeof what, j->replay ? "the read_iolog log" : "rw=%s",
              job_rw_name ((job_rw_t) j->rw));
    snprintf (err, errlen, "%s trims (BLKDISCARD), which only a block device takes: '%s' "
              "is %s (fio 3.33 fails its first trim with ENOTTY); name a block device, or a "
              "loop device over the file (losetup)", what, t->path,
              stat (t->path, &st) != 0 ? "not there" : "not a block device");
    return -1;
}

static bool
trimwrite_of (const iojob_t *j)
{
    return j->rw == IOFLEET__RW__RW_TRIMWRITE || j->rw == IOFLEET__RW__RW_RANDTRIMWRITE;
}

/* A queue deeper than the blocks a worker's region holds runs without a
   word otherwise: say so, naming both (the log; stderr in local mode).
   Can't fail. */
static void
iodepth_note (const iojob_t *j)
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
    char a[32];
    log_warn ("job '%s': iodepth=%u is more than the %llu block(s) of %u bytes in %s region "
              "(%s of %s%s): at most %llu I/O(s) can be on distinct blocks at once; lower "
              "iodepth= or raise size=", j->name, j->iodepth, (unsigned long long) blocks,
              j->unit, j->nworkers > 1 ? "each worker's" : "its",
              fmt_size (blocks * j->unit, a, sizeof a), j->targets[0].path,
              nfiles > 1 ? " and the other files" : "", (unsigned long long) blocks);
}

/* Each file's region in bytes when the job says it: filesize=, or size=
   shared over the files (a worker's own, or all of them); 0 when it comes
   from each target's size (size=N%, or no size).  Can't fail. */
static uint64_t
file_share (const iojob_t *j, const Iofleet__JobSpec *spec)
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
    uint64_t len = file_share (j, spec);
    if (spec->size_pct)
        len = tsize / 100 * spec->size_pct;
    else if (!len)
        len = tsize > off ? tsize - off : 0;
    off -= off % j->unit;
    if (off + len > tsize)
        len = tsize > off ? tsize - off : 0;
    j->region_start[t] = off;
    j->region_units[t] = len / j->unit;
    if (len < j->max_bs) {
        snprintf (err, errlen, "'%s' is %llu bytes: no room for one %u-byte block at offset %llu",
                  j->targets[t].path, (unsigned long long) tsize, j->max_bs,
                  (unsigned long long) off);
        return -EINVAL;
    }
    return 0;
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
    j->offsets_per_dir = !rw_is_random (j->rw);
    for (int d = 0; d < DIR_COUNT; d++) {
        j->align[d] = rw_is_random (j->rw) && ba[d] ? ba[d] : j->min_bs[d];
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

/* Resolves name, a log the job writes, as a target's path is resolved
   (the agent's --allow, relative in its --workdir), and refuses one of the
   job's targets.  Returns 0, or -1 with err naming the option.  */
static int
log_resolve (const iojob_t *j, const target_policy_t *pol, const char *name, const char *option,
             const char *noun, target_t *t, char *err, size_t errlen)
{
    char why[1024];
    if (target_resolve (pol, name, t, why, sizeof why)) {
        snprintf (err, errlen, "%s: %s", option, why);
        return -1;
    }
    for (int i = 0; i < j->ntargets; i++)
        if (strcmp (t->path, j->targets[i].path) == 0) {
            snprintf (err, errlen, "%s: the log '%s' is a target of the job; choose another %s",
                      option, t->path, noun);
            return -1;
        }
    return 0;
}

/* Opens worker w's per-I/O logs, those whose option gives a prefix:
   PREFIX_KIND.N.log, N its fio thread number, each resolved against the
   policy like a target (a relative prefix in the workdir) and refused
   unless the agent may write there.  Returns 0, or -1 with the REFUSED
   reason in err. */
static int
lat_log_open (iojob_t *j, worker_t *w, const Iofleet__JobSpec *spec, const target_policy_t *pol,
              char *err, size_t errlen)
{
    lat_log_t *l = calloc (1, sizeof *l);
    if (!l) {
        snprintf (err, errlen, "out of memory for the latency logs of worker %d", w->id);
        return -1;
    }
    w->lat_log = l;
    uint32_t n = (spec->thread_number ? spec->thread_number : 1) + (uint32_t) w->id;
    const char *prefix[LOG_KINDS] = { spec->write_lat_log, spec->write_lat_log,
                                      spec->write_lat_log, spec->write_bw_log,
                                      spec->write_iops_log };
    size_t bufsize = LAT_LOG_BUF_BUDGET / ((size_t) j->nworkers * LOG_KINDS);
    bufsize = bufsize > LAT_LOG_BUF_MAX ? LAT_LOG_BUF_MAX
            : bufsize < LAT_LOG_BUF_MIN ? LAT_LOG_BUF_MIN : bufsize;
    for (int k = 0; k < LOG_KINDS; k++) {
        if (!prefix[k] || !prefix[k][0])
            continue;
        char name[JOB_LATLOG_MAX + 32], why[1024];
        snprintf (name, sizeof name, "%s_%s.%u.log", prefix[k], s_log_kind[k], n);
        target_t t;
        if (log_resolve (j, pol, name, s_log_option[k], "prefix", &t, err, errlen))
            return -1;
        str_copy (l->path[k], sizeof l->path[k], t.path);
        int fd = target_open_log (&t, false, why, sizeof why);
        if (fd < 0) {
            snprintf (err, errlen, "%s: %s", s_log_option[k], why);
            return -1;
        }
        l->f[k] = fdopen (fd, "w");
        l->buf[k] = malloc (bufsize);
        if (!l->f[k] || !l->buf[k]) {
            if (!l->f[k])
                close (fd);
            snprintf (err, errlen, "%s: out of memory for '%s'", s_log_option[k], t.path);
            return -1;
        }
        setvbuf (l->f[k], l->buf[k], _IOFBF, bufsize);
    }
    return 0;
}

/* Opens write_iolog's file (its path resolved as a target's, never one of
   the job's targets) and keeps each target's name as the job gives it,
   which is how fio names files in its log.  Returns 0, or -1 with err set. */
static int
iolog_open (iojob_t *j, const Iofleet__JobSpec *spec, const char *const *names,
            const target_policy_t *pol, char *err, size_t errlen)
{
    char why[1024];
    target_t t;
    if (log_resolve (j, pol, spec->write_iolog, "write_iolog", "path", &t, err, errlen))
        return -1;
    assert (j->ntargets > 0);
    j->iolog_names = calloc ((size_t) (unsigned) j->ntargets, sizeof *j->iolog_names);
    if (!j->iolog_names) {
        snprintf (err, errlen, "write_iolog: out of memory");
        return -1;
    }
    for (int i = 0; i < j->ntargets; i++)
        if (!(j->iolog_names[i] = strdup (names[i]))) {
            snprintf (err, errlen, "write_iolog: out of memory");
            return -1;
        }
    str_copy (j->iolog_path, sizeof j->iolog_path, t.path);
    /* fio appends a run's log to what the file holds (seen on fio 3.33:
       two runs, two logs one after the other). */
    int fd = target_open_log (&t, true, why, sizeof why);
    if (fd < 0) {
        snprintf (err, errlen, "write_iolog: %s", why);
        return -1;
    }
    if (!(j->iolog = fdopen (fd, "w"))) {
        close (fd);
        snprintf (err, errlen, "write_iolog: out of memory for '%s'", t.path);
        return -1;
    }
    return 0;
}

/* Write buffers: random data, with buffer_compress_percentage of each
   chunk zeroed so the data compresses about that much; or all zeros. */
static void
fill_buffer (iojob_t *j, uint64_t *rng, uint8_t *buf, uint32_t len)
{
    if (j->zero_buffers) {
        memset (buf, 0, len);
        return;
    }
    for (uint32_t off = 0; off + 8 <= len; off += 8) {
        uint64_t v = rng_next (rng);
        memcpy (buf + off, &v, 8);
    }
    if (j->compress_pct) {
        uint32_t zero = STAMP_CHUNK * j->compress_pct / 100;
        for (uint32_t off = 0; off < len; off += STAMP_CHUNK) {
            uint32_t n = len - off < STAMP_CHUNK ? len - off : STAMP_CHUNK;
            uint32_t z = zero < n ? zero : n;
            /* Zeros at the chunk's end: the stamp at its start stays. */
            memset (buf + off + n - z, 0, z);
        }
    }
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
    j->ops = engine_find (spec->ioengine);
    if (!j->ops) {
        snprintf (err, errlen, "ioengine '%s' is not built into this agent (it has: %s)",
                  spec->ioengine, engine_names ());
        free (j);
        return NULL;
    }
    j->null_engine = j->ops->diskless;
    j->rw = spec->rw;
    j->rwmixread = spec->rwmixread;
    j->iodepth = spec->iodepth;
    /* A synchronous engine has one I/O in flight whatever iodepth says
       (fio behaves so too); deeper would only serialize the queue. */
    if (j->ops->one_at_a_time)
        j->iodepth = 1;
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
    /* fio: randrepeat=1 (default) gives the same sequence every run. */
    j->seed = spec->randseed_set ? spec->randseed
            : spec->randrepeat ? 0x89ull : clock_real_ns () ^ ((uint64_t) getpid () << 32);
    if (!rw_is_random (j->rw))
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
    if (spec->cpus_allowed && spec->cpus_allowed[0]) {
        uint64_t bits[JOB_CPUS_MAX / 64];
        if (job_parse_cpus (spec->cpus_allowed, bits) != 0) {
            snprintf (err, errlen, "cpus_allowed '%s' is not a CPU list", spec->cpus_allowed);
            free (j);
            return NULL;
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
    /* read_iolog: the log decides what is issued, and where. */
    if (spec->read_iolog && spec->read_iolog[0]) {
        target_t lt;
        char why[1024];
        if (target_resolve (pol, spec->read_iolog, &lt, why, sizeof why)) {
            snprintf (err, errlen, "read_iolog: %s", why);
            free (j);
            return NULL;
        }
        if (!(j->replay = replay_load (lt.path, err, errlen))) {
            free (j);
            return NULL;
        }
        j->replay_redirect = spec->replay_redirect && spec->replay_redirect[0];
        j->replay_no_stall = spec->replay_no_stall;
        j->replay_time_scale = spec->replay_time_scale ? spec->replay_time_scale : 100;
        j->replay_align = spec->replay_align;
        j->replay_scale = spec->replay_scale ? spec->replay_scale : 1;
        for (int d = 0; d < DIR_COUNT; d++)
            j->issues[d] = j->replay->max_len[d] > 0;
    }
    else
        for (int d = 0; d < DIR_COUNT; d++)
            j->issues[d] = rw_has (j->rw, j->rwmixread, (io_dir_t) d);
    if (plan_sizes (j, spec, err, errlen)) {
        job_destroy (&j);
        return NULL;
    }
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
            job_destroy (&j);
            return NULL;
        }
        j->poisson_us[d] = 1000000 / iops;
    }
    j->paced = j->rate_bps[0] || j->rate_bps[1] || j->thinktime_ns;
    j->log_offset = spec->log_offset;
    j->seq_nr = rw_is_random (j->rw) && spec->rw_seq_nr > 1 ? spec->rw_seq_nr : 0;
    j->bs_unaligned = spec->bs_unaligned;
    j->rate_min[0] = spec->rate_min_read;
    j->rate_min[1] = spec->rate_min_write;
    j->rate_iops_min[0] = spec->rate_iops_min_read;
    j->rate_iops_min[1] = spec->rate_iops_min_write;
    j->rate_cycle_ns = (uint64_t) (spec->rate_cycle_ms ? spec->rate_cycle_ms : 1000) * NS_PER_MS;
    j->perc_random[IO_READ] = 100 - (spec->perc_seq_read <= 100 ? spec->perc_seq_read : 0);
    j->perc_random[IO_WRITE] = 100 - (spec->perc_seq_write <= 100 ? spec->perc_seq_write : 0);
    j->perc_random[IO_TRIM] = j->perc_random[IO_WRITE];
    j->seq_mix = rw_is_random (j->rw)
              && (j->seq_nr || j->perc_random[IO_READ] < 100 || j->perc_random[IO_WRITE] < 100);
    j->lat_target_ns = spec->latency_target_ns;
    j->lat_window_ns = spec->latency_window_ns;
    j->lat_pct = spec->latency_percentile > 0 ? spec->latency_percentile : 100;
    j->lat_run = spec->latency_run;
    if (spec->ss != IOFLEET__STEADY_STATE__SS_NONE) {
        uint32_t nsamples = (uint32_t) (spec->ss_dur_ns / spec->interval_ns);
        uint32_t nramp = (uint32_t) (spec->ss_ramp_ns / spec->interval_ns);
        j->ss = steadystate_new ((job_ss_t) spec->ss, spec->ss_limit, spec->ss_pct, nsamples,
                                 nramp);
        if (!j->ss) {
            snprintf (err, errlen, "steadystate: ss_dur must cover at least 2 intervals");
            job_destroy (&j);
            return NULL;
        }
    }
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
        job_destroy (&j);
        return NULL;
    }
    j->targets = calloc ((size_t) j->ntargets, sizeof *j->targets);
    j->region_start = calloc ((size_t) j->ntargets, sizeof *j->region_start);
    j->region_units = calloc ((size_t) j->ntargets, sizeof *j->region_units);
    j->number_ios = spec->number_ios;
    j->loops = spec->loops ? spec->loops : 1;
    j->offset_increment = spec->offset_increment;
    j->exitall = spec->exitall;
    _Static_assert ((int) VERIFY_MD5 == (int) IOFLEET__VERIFY_KIND__VERIFY_MD5
                    && (int) VERIFY_CRC32C == (int) IOFLEET__VERIFY_KIND__VERIFY_CRC32C,
                    "verify kinds numbered as the JobSpec's");
    j->verify = (verify_kind_t) spec->verify;
    j->verify_read_back = !spec->verify_skip_read_back;
    j->verify_backlog = spec->verify_backlog;
    j->verify_fatal = spec->verify_fatal;
    j->verify_only = spec->verify_only && j->verify != VERIFY_NONE;
    j->workers = calloc ((size_t) j->nworkers, sizeof *j->workers);
    if (!j->targets || !j->region_start || !j->region_units || !j->workers) {
        snprintf (err, errlen, "out of memory");
        job_destroy (&j);
        return NULL;
    }
    for (int t = 0; t < j->ntargets; t++)
        j->targets[t].fd = -1;

    /* A trim destroys data as a write does: the write guard judges both. */
    bool trims = j->issues[IO_TRIM];
    j->writes = j->issues[IO_WRITE] || trims;
    if (trimwrite_of (j) && j->number_ios)
        j->number_ios *= 2;         /* fio counts the trims and the writes */
    uint64_t share = file_share (j, spec);
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
    j->names = names;
    for (int t = 0; t < j->ntargets; t++) {
        if (j->null_engine) {
            /* fio's null engine touches nothing: the "target" is a name. */
            str_copy (j->targets[t].path, sizeof j->targets[t].path, names[t]);
            j->targets[t].size = j->need_each;
            if (!j->need_each) {
                snprintf (err, errlen, "ioengine=null needs size= (there is no file to size it)");
                job_destroy (&j);
                return NULL;
            }
        } else if (target_resolve (pol, names[t], &j->targets[t], err, errlen)
                   || (trims && trim_target_check (j, &j->targets[t], err, errlen))) {
            job_destroy (&j);
            return NULL;
        }
    }
    return j;
}

/* The job's targets and the bytes each is laid out to, into out (max
   entries).  Returns how many.  Can't fail. */
static int
job_space_needs (const iojob_t *self, target_need_t *out, int max)
{
    int n = 0;
    for (int t = 0; !self->null_engine && t < self->ntargets && n < max; t++)
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

int
job_open (iojob_t *j, const Iofleet__JobSpec *spec, const target_policy_t *pol, char *err,
          size_t errlen)
{
    assert (j && j->names);
    char *const *names = j->names;
    bool trims = j->issues[IO_TRIM];
    bool trimwrite = trimwrite_of (j);
    for (int t = 0; t < j->ntargets; t++) {
        if (!j->null_engine
            && target_open (&j->targets[t], j->direct, j->writes, j->need_each, err, errlen))
            return -1;
        /* A replay goes where its log says: no region. */
        if (!j->replay && plan_region (j, spec, t, err, errlen))
            return -1;
        /* fio's td_io_open_file: drop the cached region (invalidate=1, its
           default) and advise the pattern (fadvise_hint=1), neither fatal. */
        if (!j->null_engine) {
            int advice = spec->fadvise == JOB_FADV_NONE ? -1
                       : spec->fadvise == JOB_FADV_SEQUENTIAL ? POSIX_FADV_SEQUENTIAL
                       : spec->fadvise == JOB_FADV_RANDOM || rw_is_random (j->rw)
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
        rng_seed (w->rng, j->seed + (uint64_t) i * 0x100000001b3ull);
        w->offsets = calloc ((size_t) j->ntargets * DIR_COUNT, sizeof *w->offsets);
        w->units = calloc (w->depth, sizeof *w->units);
        for (int s = 0; s < 2; s++)
            w->slot[s] = calloc ((size_t) j->ntargets * DIR_COUNT, sizeof (dir_stats_t));
        if (trims) {
            w->trimmed = calloc (w->depth, sizeof *w->trimmed);
            w->last_start = malloc ((size_t) j->ntargets * DIR_COUNT * sizeof *w->last_start);
        }
        if (!w->offsets || !w->units || !w->slot[0] || !w->slot[1]
            || (trims && (!w->trimmed || !w->last_start))) {
            snprintf (err, errlen, "out of memory for worker %d", i);
            return -1;
        }
        for (int g = 0; trims && g < j->ntargets * DIR_COUNT; g++)
            w->last_start[g] = UINT64_MAX;
        if (j->seq_mix) {
            w->seq_left = 1;            /* fio: the first I/O is random */
            rng_seed (w->srng, j->seed ^ 0x5e9ull ^ ((uint64_t) i << 32));
            w->last_end = calloc ((size_t) j->ntargets * DIR_COUNT, sizeof *w->last_end);
            if (!w->last_end) {
                snprintf (err, errlen, "out of memory for worker %d", i);
                return -1;
            }
            /* fio's last_pos starts at the file's offset. */
            for (int g = 0; g < j->ntargets * DIR_COUNT; g++)
                w->last_end[g] = region_start_of (j, i, (uint32_t) (g / DIR_COUNT));
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
            uint64_t start = region_start_of (j, i, (uint32_t) t);
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
            fill_buffer (j, w->rng, w->units[u].buf, j->max_bs);
        }
        memcpy (w->rng_loop, w->rng, sizeof w->rng);
        rng_seed (w->drng, j->seed ^ 0xda7a5eedull ^ ((uint64_t) i << 32));
        rng_seed (w->prng, j->seed ^ 0x9015503eull ^ ((uint64_t) i << 32));
        w->engine.ops = j->ops;
        int rc = j->ops->init (&w->engine, w->depth);
        if (rc < 0) {
            snprintf (err, errlen, "%s: cannot set up %u I/Os in flight for worker %d: %s%s",
                      j->ops->name, w->depth, i, strerror (-rc),
                      rc == -EAGAIN ? " (raise fs.aio-max-nr)"
                      : rc == -EPERM || rc == -ENOSYS
                          ? " (io_uring is off on this host: kernel.io_uring_disabled or a "
                            "seccomp filter; use ioengine=libaio)" : "");
            return -1;
        }
        w->engine_ready = true;
        bool logs = (spec->write_lat_log && spec->write_lat_log[0])
                 || (spec->write_bw_log && spec->write_bw_log[0])
                 || (spec->write_iops_log && spec->write_iops_log[0]);
        if (logs && lat_log_open (j, w, spec, pol, err, errlen))
            return -1;
    }
    iodepth_note (j);
    return 0;
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
        free (w->last_start);
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
    free (j);
    *self_p = NULL;
}

uint64_t job_run (const iojob_t *self) { return self->run; }
uint32_t job_step (const iojob_t *self) { return self->step; }
int job_ntargets (const iojob_t *self) { return self->ntargets; }
const char *job_target_path (const iojob_t *self, int i) { return self->targets[i].path; }
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
