/*  option_table.h: the fio options iofleet implements, with fio's aliases
    (fio's own options that iofleet does not run yet are in fio_names.c).
*/
#ifndef IOF_OPTION_TABLE_H
#define IOF_OPTION_TABLE_H

#include <stdbool.h>

typedef enum {
    OPT_IOENGINE, OPT_DIRECT, OPT_BUFFERED, OPT_RW, OPT_RWMIXREAD,
    OPT_RWMIXWRITE, OPT_BS, OPT_BLOCKALIGN, OPT_BSRANGE, OPT_BSSPLIT, OPT_IODEPTH,
    OPT_BATCH_SUBMIT, OPT_BATCH_COMPLETE, OPT_NUMJOBS, OPT_SIZE, OPT_OFFSET,
    OPT_FILENAME, OPT_RUNTIME, OPT_TIME_BASED, OPT_RAMP_TIME, OPT_STARTDELAY,
    OPT_RATE_IOPS, OPT_THINKTIME, OPT_RANDREPEAT, OPT_RANDSEED,
    OPT_NORANDOMMAP, OPT_RANDOM_DIST, OPT_PERCENTILES, OPT_CPUS,
    OPT_GROUP_REPORTING, OPT_STONEWALL, OPT_NEW_GROUP, OPT_SS, OPT_SS_DUR,
    OPT_SS_RAMP, OPT_COMPRESS, OPT_ZERO_BUFFERS, OPT_NAME, OPT_SLA, OPT_LAT_LOG,
    OPT_DESCRIPTION, OPT_THREAD, OPT_GTOD_REDUCE, OPT_LOG_AVG, OPT_LOG_OFFSET, OPT_BW_LOG,
    OPT_IOPS_LOG, OPT_INVALIDATE, OPT_FADVISE, OPT_PERC_RANDOM, OPT_BS_UNALIGNED, OPT_RATE_MIN,
    OPT_RATE_IOPS_MIN, OPT_RATE_CYCLE, OPT_IO_SIZE, OPT_NUMBER_IOS, OPT_LOOPS,
    OPT_OFFSET_INC, OPT_VERIFY, OPT_DO_VERIFY, OPT_VERIFY_BACKLOG, OPT_VERIFY_FATAL,
    OPT_VERIFY_ONLY, OPT_RANDOM_GEN, OPT_RATE_PROCESS, OPT_NRFILES, OPT_FILESIZE, OPT_DIRECTORY,
    OPT_RATE,
    OPT_WRITE_IOLOG, OPT_READ_IOLOG, OPT_REPLAY_NO_STALL, OPT_REPLAY_REDIRECT,
    OPT_REPLAY_TIME_SCALE, OPT_REPLAY_ALIGN, OPT_REPLAY_SCALE, OPT_REFILL, OPT_SCRAMBLE,
    OPT_EXITALL,
    OPT_EXIT_WHAT, OPT_CREATE_SERIALIZE, OPT_SUBMIT_MODE, OPT_LAT_TARGET, OPT_LAT_WINDOW,
    OPT_LAT_PCT, OPT_LAT_RUN,
} opt_id_t;

/* One option.  `bare` marks fio's "set" options, the only ones fio lets
   you write without '='. */
typedef struct {
    const char *name;
    opt_id_t id;
    bool bare;
} option_t;

/* Index of the iofleet option called name (case-sensitive, as fio), or
   -1.  Can't fail. */
int option_find (const char *name);

/* The option at index idx, from option_find.  Can't fail (asserts the
   index). */
const option_t *option_at (int idx);

#endif
