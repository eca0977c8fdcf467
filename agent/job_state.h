/*  job_state.h: the state of a job and of its worker threads, private to
    the files of the iojob_t class (job.c, job_open.c, worker.c) and the
    parts its workers call (iogen.c, pacing.c, interval.c, io_logs.c).
    Everything else sees job.h only.
*/
#ifndef IOF_JOB_STATE_H
#define IOF_JOB_STATE_H

#include "job.h"
#include "engine.h"
#include "offsets.h"
#include "replay.h"
#include "verify.h"
#include "steadystate.h"
#include "direction.h"
#include "util.h"

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

/* Longest a worker blocks in getevents, so it notices stop requests and
   interval ends even when I/O is slow. */
#define REAP_TIMEOUT_MAX_NS (50 * NS_PER_MS)

/* fio's per-I/O logs: three of write_lat_log's prefix, and the bandwidth
   and IOPS logs of write_bw_log's and write_iops_log's. */
enum { LOG_CLAT = 0, LOG_SLAT, LOG_LAT, LOG_BW, LOG_IOPS, LOG_KINDS };

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
    /* trimwrite, randtrimwrite: the trim the next write repeats. */
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
    bool diskless;
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
    /* Its reads and writes have a submission latency (slat): fio records
       one for an I/O queued and issued later, none for a synchronous
       engine's (FIO_SYNCIO) nor for a trim. */
    bool slat;
    bool direct;
    bool time_based;
    bool histograms;
    bool per_worker;                /* job_collect keeps workers apart */
    bool exitall;
    bool purge_format;              /* purge=format: each target formatted, no I/O */
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
    uint64_t *region_bytes;         /* per target: size= as given, which a sequential
                                       pass covers to its last byte (fio's io_size) */
    bool io_size_set;               /* io_size=: a pass that is over is followed by
                                       another while the budget lasts */
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

#endif
