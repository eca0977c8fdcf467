/*  jobfile.h: parser for fio job files, the plan format of iofleet.

    A job file is a [global] section and job sections of key=value lines,
    bare keys (time_based), ';' and '#' comments, size suffixes (4k, 1m, 1g,
    4KiB, ...; fio's default kb_base=1024, so k = KiB) and time suffixes
    (60, 60s, 2m, 500ms, 1h; a bare number is seconds).  Each job section,
    with [global] applied beneath it, becomes one step.

    Options not handled by iofleet are never ignored: an unknown key is
    "FILE:LINE: unknown option 'X'", a real fio option that iofleet does not
    support yet is "FILE:LINE: fio option 'X' is not supported by iofleet yet".
*/
#ifndef IOF_JOBFILE_H
#define IOF_JOBFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JOB_NAME_MAX      64
#define JOB_FILENAME_MAX  1024      /* the whole ':'-separated list */
#define JOB_MAX_STEPS     256
#define JOB_MAX_IODEPTH   65536
#define JOB_MAX_NUMJOBS   1024
#define JOB_MAX_BS        (64u << 20)
#define JOB_MAX_RUNTIME_S (7 * 24 * 3600)

typedef enum {
    JOB_RW_READ = 0,        /* rw=read */
    JOB_RW_WRITE,           /* rw=write */
    JOB_RW_RANDREAD,        /* rw=randread */
    JOB_RW_RANDWRITE,       /* rw=randwrite */
    JOB_RW_RW,              /* rw=rw or rw=readwrite: sequential mixed */
    JOB_RW_RANDRW,          /* rw=randrw */
} job_rw_t;

typedef struct {
    char name[JOB_NAME_MAX];        /* section name */
    int line;                       /* line of the section header */
    char ioengine[16];              /* "libaio" (only one supported now) */
    bool direct;                    /* direct=1 (buffered=0) */
    job_rw_t rw;
    uint32_t rwmixread;             /* percent of reads for rw/randrw, 0..100 */
    uint32_t bs;                    /* bytes, > 0, <= JOB_MAX_BS, default 4096 */
    uint32_t iodepth;               /* 1..JOB_MAX_IODEPTH, default 1 */
    uint32_t numjobs;               /* 1..JOB_MAX_NUMJOBS, default 1 */
    uint64_t size;                  /* bytes; 0 = not given (whole file/device) */
    uint32_t size_pct;              /* size=N%: percent of the target, 0 = not given */
    uint64_t offset;                /* bytes */
    uint32_t offset_pct;            /* offset=N%, 0 = not given */
    char filename[JOB_FILENAME_MAX];/* ':'-separated list as written; may be "" */
    uint64_t runtime_ns;            /* 0 = not given */
    bool time_based;
    uint64_t ramp_time_ns;
    bool group_reporting;
    bool stonewall;
} job_t;

typedef struct {
    int nsteps;
    job_t steps[];                  /* nsteps entries, in file order */
} jobfile_t;

/* Parses the job file text (name is used in messages).  Returns a new
   jobfile_t (free with jobfile_destroy), or NULL with a one-line message
   "NAME:LINE: what is wrong" in err (capacity errlen). */
jobfile_t *jobfile_parse (const char *name, const char *text, char *err, size_t errlen);

/* Reads and parses a file; a missing or unreadable file is an error
   naming the path.  Returns NULL with err filled on error. */
jobfile_t *jobfile_load (const char *path, char *err, size_t errlen);

/* Frees the jobfile and NULLs the pointer.  Safe on NULL. */
void jobfile_destroy (jobfile_t **self_p);

/* fio's name for rw mode m ("randread", ...).  Can't fail. */
const char *job_rw_name (job_rw_t m);

/* Parses a size ("4k", "1m", "4KiB", "512") into bytes.  Returns 0 or
   -EINVAL (not a size) / -ERANGE (too large). */
int job_parse_size (const char *s, uint64_t *out);

/* Parses a time ("60", "60s", "2m", "500ms", "1h", "10us") into ns; a bare
   number is seconds.  Returns 0 or -EINVAL / -ERANGE. */
int job_parse_time (const char *s, uint64_t *out_ns);

#endif
