/*  jobfile.h: parser for fio job files, the plan format of iofleet.

    A job file is a [global] section and job sections of key=value lines,
    bare keys (time_based), ';' and '#' comments, size suffixes (4k, 1m, 1g,
    4KiB, ...; fio's default kb_base=1024, so k = KiB) and time suffixes
    (60, 60s, 2m, 500ms, 1h; a bare number is seconds).  Each job section,
    with [global] applied beneath it, becomes one step.

    Sweeps (an iofleet extension; see docs/guide/02-plans.md, "Sweeps"): a list in rw=
    (rw=randread,randwrite), iodepth= (iodepth=1,4,32) or bs= with three or
    more sizes (bs=4k,64k,1m; bs=R,W keeps fio's reads,writes meaning)
    expands the section into one step per combination: rw outermost, then
    bs, then iodepth, each in the order written.  A step is named
    SECTION-RW-BS-qdN with only the swept parts (q-randread-qd32).

    Options not handled by iofleet are never ignored: an unknown key is
    "FILE:LINE: unknown option 'X'", a real fio option that iofleet does not
    support yet is "FILE:LINE: fio option 'X' is not supported by iofleet yet".
*/
#ifndef IOF_JOBFILE_H
#define IOF_JOBFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "distribution.h"
#include "rounds.h"
#include "fio_names.h"
#include "units.h"

#define JOB_NAME_MAX      64
#define JOB_FILENAME_MAX  1024      /* the whole ':'-separated list */
#define JOB_MAX_STEPS     256
#define JOB_MAX_IODEPTH   65536
#define JOB_MAX_NUMJOBS   1024
#define JOB_MAX_LOOPS     1000000
#define JOB_DIRECTORY_MAX 256       /* directory=, with its NUL */
#define JOB_MAX_RW_SKIP   (1ull << 30)      /* rw=write:SIZE */
#define JOB_MAX_SEQ_NR    1000000u          /* rw=randread:N */
#define JOB_MAX_VERIFY_BACKLOG (1u << 20)   /* writes a worker remembers */
#define JOB_VERIFY_HEADER 48        /* bytes of a write verify= takes (agent/verify.h) */
/* offset_increment x (numjobs - 1) stays below 2^62 bytes */
#define JOB_MAX_OFFSET_INC ((UINT64_MAX >> 2) / JOB_MAX_NUMJOBS)
#define JOB_MAX_OWN_FILES 256       /* numjobs without filename= (one file
                                       each; MSG_TARGETS_MAX) */
#define JOB_MAX_BS        (64u << 20)
#define JOB_MAX_RUNTIME_S (7 * 24 * 3600)
/* Limits the agents hold every PREPARE to (common/message.c); the parser
   refuses beyond them so that a plan that is added can also run. */
#define JOB_MAX_DELAY_S    3600             /* ramp_time, startdelay, thinktime */
#define JOB_MAX_SS_S       (24 * 3600)      /* ss_dur, ss_ramp */
#define JOB_MAX_RATE_IOPS  100000000u       /* rate_iops per direction */
#define JOB_MAX_RATE_BYTES (1ull << 40)     /* rate= per direction, bytes/s */
#define JOB_MAX_SS_LIMIT   1e18             /* steadystate=...:LIMIT, exclusive */
#define JOB_MAX_LINE       8192             /* bytes per line of a job file */
/* fio's defaults of options whose JobSpec field is 0 when the job leaves
   them (proto3 sends no 0): the parser sets them (job_opts.c), jobspec.c
   writes 0 for them where the wire says so, and the agent reads a 0 as
   them (agent/job.c), from a controller of any release. */
#define JOB_DEFAULT_LOOPS             1
#define JOB_DEFAULT_REPLAY_TIME_SCALE 100       /* percent of the logged pace */
#define JOB_DEFAULT_REPLAY_SCALE      1
#define JOB_DEFAULT_LAT_PERCENTILE    100
#define JOB_DEFAULT_RATE_CYCLE_MS     1000      /* rate_cycle_ms 0 in job_t too */

#define JOB_BSSPLIT_MAX   64
#define JOB_PCT_MAX       64        /* percentile_list entries */
#define JOB_LATLOG_MAX    1024      /* write_lat_log prefix, with its NUL */
#define JOB_LOG_JOBNAME   "\x01"    /* a write_*_log given alone: the job's name, later */
/* fio numbers every worker (thread) of a job file from 1 across all its
   jobs; the largest number a plan can reach. */
#define JOB_THREADS_MAX   (JOB_MAX_STEPS * JOB_MAX_NUMJOBS)

typedef struct {
    uint32_t bs;                    /* bytes */
    uint32_t pct;                   /* share in percent; entries sum to 100 */
} job_bssplit_t;

/* Numbered as JobSpec's VerifyKind. */
typedef enum {
    JOB_VERIFY_NONE = 0,            /* verify=0 (fio's default) */
    JOB_VERIFY_CRC32C,              /* verify=crc32c or crc32c-intel */
    JOB_VERIFY_MD5,                 /* verify=md5 */
} job_verify_t;

typedef enum {
    JOB_FADV_BY_RW = 0,             /* fadvise_hint=1 (fio's default): random or sequential */
    JOB_FADV_NONE,                  /* fadvise_hint=0 */
    JOB_FADV_SEQUENTIAL,
    JOB_FADV_RANDOM,
} job_fadvise_t;

/* Index 0 of the per-direction arrays is reads, 1 is writes (fio's
   DDIR_READ and DDIR_WRITE). */
typedef struct {
    char name[JOB_NAME_MAX];        /* section name */
    int line;                       /* line of the section header */
    char ioengine[16];              /* one of JOB_ENGINES (fio_names.h) */
    bool direct;                    /* direct=1 (buffered=0) */
    job_rw_t rw;
    uint32_t rwmixread;             /* percent of reads for rw/randrw, 0..100 */
    uint32_t bs[2];                 /* bytes per direction, default 4096 each;
                                       bs=4k sets both, bs=4k,8k reads,writes */
    uint32_t bsrange_min[2];        /* bsrange=1k-8k[,..]: 0 = not given */
    uint32_t bsrange_max[2];
    job_bssplit_t bssplit[2][JOB_BSSPLIT_MAX];  /* bssplit=4k/50:64k/50[,..] */
    int nbssplit[2];                /* 0 = not given */
    uint32_t iodepth;               /* 1..JOB_MAX_IODEPTH, default 1 */
    uint32_t iodepth_batch_submit;  /* default 1 (fio: 1) */
    uint32_t iodepth_batch_complete_min; /* default 1 */
    uint32_t numjobs;               /* 1..JOB_MAX_NUMJOBS, default 1 */
    uint64_t size;                  /* bytes; 0 = not given (whole file/device) */
    uint32_t size_pct;              /* size=N%: percent of the target, 0 = not given */
    uint64_t offset;                /* bytes */
    uint32_t offset_pct;            /* offset=N%, 0 = not given */
    char filename[JOB_FILENAME_MAX];/* ':'-separated list as written; may be "" */
    uint64_t runtime_ns;            /* 0 = not given */
    bool time_based;
    uint64_t ramp_time_ns;
    uint64_t startdelay_ns;         /* startdelay= */
    uint32_t rate_iops[2];          /* rate_iops=R[,W]: 0 = unlimited */
    bool rate_poisson;              /* rate_process=poisson */
    bool log_offset;                /* log_offset=1: latency logs hold each I/O's offset */
    bool no_invalidate;             /* invalidate=0: the page cache is kept */
    bool shared_logs;               /* per_job_logs=0: PREFIX_bw.log, no job index */
    bool bs_unaligned;              /* blocksize_unaligned: bsrange sizes to the byte */
    uint64_t rate_min[2];           /* rate_min=R[,W] (ratemin): bytes a second the job
                                       must keep, or it fails; 0 = none */
    uint32_t rate_iops_min[2];      /* rate_iops_min=R[,W]: the same in IOPS */
    uint32_t rate_cycle_ms;         /* rate_cycle: their window (0 = fio's default,
                                       JOB_DEFAULT_RATE_CYCLE_MS) */
    job_fadvise_t fadvise;          /* fadvise_hint= */
    char write_bw_log[JOB_LATLOG_MAX];   /* PREFIX_bw.N.log: each I/O's bandwidth */
    char write_iops_log[JOB_LATLOG_MAX]; /* PREFIX_iops.N.log: a 1 per I/O */
    uint32_t perc_random[2];        /* percentage_random=R[,W]: the share of a random
                                       job's I/Os at random offsets, the rest going on
                                       from the last (default 100 each) */
    uint32_t rw_seq_nr;             /* rw=randread:N: a random offset every N I/Os,
                                       sequential between; 0 or 1 = every one */
    uint64_t latency_target_ns;     /* latency_target=: search the deepest queue
                                       keeping it; 0 = none */
    uint64_t latency_window_ns;     /* latency_window= */
    double latency_percentile;      /* latency_percentile= (default 100) */
    bool latency_run;               /* latency_run=1: keep searching */
    bool exit_what_all;             /* exit_what=all: with exitall, a job's end
                                       also cancels the steps after it */
    uint32_t blockalign[2];         /* blockalign=R[,W] (ba): random offsets' boundary;
                                       0 = the direction's smallest block size */
    uint64_t thinktime_ns;          /* thinktime= (fio: microseconds when bare) */
    bool randrepeat;                /* default true */
    bool randseed_set;
    uint64_t randseed;              /* randseed= */
    bool norandommap;
    dist_t dist;                    /* random_distribution= */
    double percentile_list[JOB_PCT_MAX]; /* percentile_list=99:99.9 (sorted) */
    int npercentiles;               /* 0 = fio's default list */
    char cpus_allowed[JOB_CPUS_MAX];/* "0-3,8" as written (validated); "" = any */
    bool group_reporting;
    bool stonewall;
    bool new_group;
    job_ss_t ss;                    /* steadystate= */
    double ss_limit;                /* the limit; a fraction when ss_pct */
    bool ss_pct;                    /* limit was given with '%' */
    uint64_t ss_dur_ns;             /* ss_dur= (required with steadystate) */
    uint64_t ss_ramp_ns;            /* ss_ramp= */
    uint32_t buffer_compress_percentage; /* 0..100 */
    bool zero_buffers;
    /* Sweeps (added last so the layout before them does not change). */
    char sweep_of[JOB_NAME_MAX];    /* the section (job) name this step was
                                       expanded from; "" = not a sweep step.
                                       With filename "", the steps of one
                                       sweep are best given this as their
                                       default target, so they share a file */
    unsigned sweep;                 /* JOB_SWEEP_* bits: what was swept */
    char sla[512];                  /* iofleet_sla= as written (validated; "" = none) */
    char health[256];               /* [iofleet] health= as written (health_rule.h;
                                       validated; "" = none) */
    char write_lat_log[JOB_LATLOG_MAX]; /* write_lat_log=PREFIX ("" = no logs):
                                       each worker writes PREFIX_clat.N.log,
                                       PREFIX_slat.N.log, PREFIX_lat.N.log */
    uint32_t thread_number;         /* fio's number of the job's first worker:
                                       1 + the numjobs of every job before it
                                       in the file (the N of its logs) */
    uint64_t io_size;               /* io_size= (io_limit=): bytes each worker
                                       issues, wrapping over its region; 0 = size */
    uint64_t number_ios;            /* number_ios=: a size-bound worker stops
                                       after this many I/Os per loop; 0 = no cap */
    uint32_t loops;                 /* loops=: a size-bound job's pass, this
                                       many times (default 1) */
    uint64_t offset_increment;      /* offset_increment=: worker i's region
                                       starts at offset + i x this */
    job_verify_t verify;            /* verify= */
    bool do_verify;                 /* do_verify= (default 1): read back at a
                                       size-bound pass's end */
    uint32_t verify_backlog;        /* verify_backlog=N: read back every N
                                       writes instead; 0 = at the end */
    bool verify_fatal;              /* stop at the first mismatch */
    bool verify_only;               /* read back what the job would write */
    bool lfsr;                      /* random_generator=lfsr: no block twice a
                                       pass, so norandommap is cleared */
    uint32_t nrfiles;               /* nrfiles= (nr_files=): files of each job
                                       copy without filename= (default 1) */
    uint64_t filesize;              /* filesize=: each file's size; 0 = a share of size= */
    char directory[JOB_DIRECTORY_MAX]; /* directory=: before relative names; "" = none */
    uint64_t rate[2];               /* rate=R[,W]: bytes a second; 0 = none.
                                       Over rate_iops, as fio's __setup_rate */
    char write_iolog[JOB_LATLOG_MAX]; /* write_iolog=PATH: fio's version 3
                                       iolog of every I/O issued; "" = none */
    char read_iolog[JOB_LATLOG_MAX];  /* read_iolog=PATH: replay this fio iolog
                                       (v2 or v3) instead of rw=; "" = none */
    char replay_redirect[JOB_LATLOG_MAX]; /* every file of the log is this one */
    bool replay_no_stall;           /* no waits between the log's I/Os */
    uint32_t replay_time_scale;     /* percent of the logged pace (default 100) */
    uint32_t replay_align;          /* offsets masked to a multiple (power of 2); 0 */
    uint32_t replay_scale;          /* offsets divided by it (default 1) */
    uint64_t rw_skip;               /* rw=write:SIZE: bytes skipped after each
                                       sequential I/O (a multiple of bs); 0 */
    bool refill_buffers;            /* new random data for every write */
    bool scramble_buffers;          /* fio's default 1: every write's data made
                                       unique (iofleet's stamp per 4 KiB) */
    bool purge;                     /* the purge step's job (purge.h): agents
                                       run it only under --allow-purge */
    bool purge_format;              /* ... and it formats its devices (purge=format)
                                       rather than trim them */
    bool exitall;                   /* when one job running ends, the others
                                       running with it stop (set on all jobs
                                       of the file when any says it) */
} job_t;

#define JOB_SWEEP_RW      1u        /* rw=MODE,MODE[,..] */
#define JOB_SWEEP_BS      2u        /* bs=SIZE,SIZE,SIZE[,..] */
#define JOB_SWEEP_IODEPTH 4u        /* iodepth=N,N[,..] */

typedef struct {
    int nsteps;
    uint32_t precondition;          /* [iofleet] precondition=COUNT (0: none); its
                                       jobs come first (precondition.h) */
    uint32_t purge;                 /* [iofleet] purge= (purge_t; 0: none): its jobs
                                       come first of all (purge.h) */
    uint32_t rounds;                /* [iofleet] rounds=MAX (0: none): the steps
                                       but the precondition's repeat (rounds.h) */
    bool steady;                    /* [iofleet] steady_state= given: rule */
    rounds_rule_t rule;
    job_t steps[];                  /* nsteps entries, in file order (a
                                       sweep's steps in its documented order) */
} jobfile_t;

/* Parses the job file text (name is used in messages).  Returns a new
   jobfile_t (free with jobfile_destroy), or NULL with a one-line message
   "NAME:LINE: what is wrong" in err (capacity errlen). */
jobfile_t *jobfile_parse (const char *name, const char *text, char *err, size_t errlen);

/* jobfile_parse of a text len bytes long that may hold a NUL (a JSON
   string, \u0000): a NUL is refused naming its line, as jobfile_read
   refuses it in a file, for the text would end there.  Returns NULL with
   err filled on error. */
jobfile_t *jobfile_parse_n (const char *name, const char *text, size_t len, char *err,
                            size_t errlen);

/* Reads a job file's text, the one reader of job files (the agent's run
   and the CLI's plan add): a missing or unreadable file, a directory, a
   file over 1 MiB or one holding a NUL byte ("PATH:LINE: NUL byte in the
   file") is an error naming the path.  Returns the text (free()), NUL
   terminated, its length in *len (len may be NULL), or NULL with err
   filled.  The text is not parsed: jobfile_parse checks the rest (UTF-8
   included). */
char *jobfile_read (const char *path, size_t *len, char *err, size_t errlen);

/* jobfile_read and jobfile_parse.  Returns NULL with err filled on
   error. */
jobfile_t *jobfile_load (const char *path, char *err, size_t errlen);

/* Groups the jobs into steps as fio groups them: a job with stonewall
   starts a new step (it waits for everything before it); jobs without it
   run together with the ones before, in one step.  Each job of a sweep is a
   step of its own.  Fills first[i] with the index of step i's first job
   (first has room for jf->nsteps + 1; first[nsteps] = number of jobs) and
   returns the number of steps.  Can't fail. */
int jobfile_group (const jobfile_t *jf, int *first);

/* Frees the jobfile and NULLs the pointer.  Safe on NULL. */
void jobfile_destroy (jobfile_t **self_p);

/* Why job j cannot run on a fleet's agents though it parses (the local
   `iofleet-agent run` can run it), or NULL.  Can't fail. */
const char *job_fleet_refusal (const job_t *j);

#endif
