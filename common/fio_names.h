/*  fio_names.h: fio's names, one home.

    The rw modes and steady-state criteria iofleet runs, with fio's names
    for them; the I/O engines every agent has (JOB_ENGINES: the parser takes
    these names, and agent/engines/engine.c asserts that its ops tables are
    exactly these, in this order); and the options, engines, rw modes and
    verify methods fio has that iofleet does not run yet, so that a job
    file using one is told "not supported by iofleet yet" rather than "no
    such".
*/
#ifndef IOF_FIO_NAMES_H
#define IOF_FIO_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* The I/O engines iofleet runs, one home: the parser takes these names
   (common/ cannot link the agent's engines), and the agent builds its list
   from its ops tables and asserts, when it first looks one up, that it is
   this one, in this order (agent/engines/engine.c).  fio_names.c's table
   of engines, which holds each one's properties (job_engine_since), is
   this list too (fio_engines_listed). */
#define JOB_ENGINES "libaio, io_uring, psync, pvsync, pvsync2, sync, vsync, posixaio, null"

typedef enum {
    JOB_RW_READ = 0,        /* rw=read */
    JOB_RW_WRITE,           /* rw=write */
    JOB_RW_RANDREAD,        /* rw=randread */
    JOB_RW_RANDWRITE,       /* rw=randwrite */
    JOB_RW_RW,              /* rw=rw or rw=readwrite: sequential mixed */
    JOB_RW_RANDRW,          /* rw=randrw */
    JOB_RW_TRIM,            /* rw=trim: sequential trims (BLKDISCARD) */
    JOB_RW_RANDTRIM,        /* rw=randtrim */
    JOB_RW_TRIMWRITE,       /* rw=trimwrite: a trim, then writes over it */
    JOB_RW_RANDTRIMWRITE,   /* rw=randtrimwrite: a random trim, then a write of it */
} job_rw_t;

#define FIO_RW_SUPPORTED "read, write, randread, randwrite, rw, readwrite, randrw, trim, " \
                         "randtrim, trimwrite, randtrimwrite"

typedef enum {
    JOB_SS_NONE = 0,
    JOB_SS_IOPS,                    /* steadystate=iops:LIMIT */
    JOB_SS_IOPS_SLOPE,              /* steadystate=iops_slope:LIMIT */
    JOB_SS_BW,                      /* steadystate=bw:LIMIT */
    JOB_SS_BW_SLOPE,                /* steadystate=bw_slope:LIMIT */
} job_ss_t;

#define FIO_SS_SUPPORTED "iops, iops_slope, bw, bw_slope"

/* fio's name for rw mode m ("randread", ...).  Can't fail. */
const char *job_rw_name (job_rw_t m);

/* True when rw= has reads in it (fio's td_read): every mode but write and
   randwrite, whatever rwmixread says.  Can't fail. */
bool job_rw_reads (job_rw_t m);

/* True when rw= trims (trim, randtrim, trimwrite, randtrimwrite).  Can't
   fail. */
bool job_rw_trims (job_rw_t m);

/* True if name is one of JOB_ENGINES.  Can't fail. */
bool job_engine_known (const char *name);

/* The release that first ran engine name ("0.3.0"), which an agent needs
   to run it; NULL when every release of protocol 2 runs it (or name is
   none of JOB_ENGINES).  Can't fail. */
const char *job_engine_since (const char *name);

/* True if the table of engines behind job_engine_known and
   job_engine_since is JOB_ENGINES, name for name, in its order (the agent
   asserts it, agent/engines/engine.c).  Can't fail. */
bool fio_engines_listed (void);

/* The rw mode fio calls name ("readwrite" is rw).  Returns 0, or -1 when
   it is none of FIO_RW_SUPPORTED. */
int fio_rw_find (const char *name, job_rw_t *out);

/* The steady-state criterion of the len bytes at name.  Returns 0, or -1
   when it is none of FIO_SS_SUPPORTED. */
int fio_ss_find (const char *name, size_t len, job_ss_t *out);

/* True if name is a real fio option that iofleet does not implement yet.
   Can't fail. */
bool fio_option_unsupported (const char *name);

/* True if the table of those options is sorted, as its search needs
   (jobfile_parse refuses to run otherwise).  Can't fail. */
bool fio_options_sorted (void);

/* True if name is one of fio's other I/O engines.  Can't fail. */
bool fio_engine_unsupported (const char *name);

/* True if name is an rw mode of fio's that iofleet does not run yet.
   Can't fail. */
bool fio_rw_unsupported (const char *name);

/* True if name is a verify method of fio's that iofleet does not compute
   yet.  Can't fail. */
bool fio_verify_unsupported (const char *name);

#endif
