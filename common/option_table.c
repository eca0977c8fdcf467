/*  option_table.c: the fio options iofleet implements, with fio's
    aliases (see option_table.h).
*/
#include "option_table.h"
#include "util.h"

#include <string.h>

#define NELEM(a) (sizeof (a) / sizeof ((a)[0]))

/* The options iofleet implements, with fio's aliases.  `bare` marks
   fio's "set" options, the only ones fio lets you write without '='. */
static const option_t s_options[] = {
    { "ioengine", OPT_IOENGINE, false },
    { "direct", OPT_DIRECT, false },
    { "buffered", OPT_BUFFERED, false },
    { "rw", OPT_RW, false },
    { "readwrite", OPT_RW, false },
    { "rwmixread", OPT_RWMIXREAD, false },
    { "rwmixwrite", OPT_RWMIXWRITE, false },
    { "bs", OPT_BS, false },
    { "blocksize", OPT_BS, false },
    { "blockalign", OPT_BLOCKALIGN, false },
    { "ba", OPT_BLOCKALIGN, false },
    { "bsrange", OPT_BSRANGE, false },
    { "blocksize_range", OPT_BSRANGE, false },
    { "bssplit", OPT_BSSPLIT, false },
    { "iodepth", OPT_IODEPTH, false },
    { "iodepth_batch_submit", OPT_BATCH_SUBMIT, false },
    { "iodepth_batch", OPT_BATCH_SUBMIT, false },
    { "iodepth_batch_complete_min", OPT_BATCH_COMPLETE, false },
    { "iodepth_batch_complete", OPT_BATCH_COMPLETE, false },
    { "numjobs", OPT_NUMJOBS, false },
    { "size", OPT_SIZE, false },
    { "offset", OPT_OFFSET, false },
    { "fileoffset", OPT_OFFSET, false },         /* fio's alias */
    { "filename", OPT_FILENAME, false },
    { "runtime", OPT_RUNTIME, false },
    { "timeout", OPT_RUNTIME, false },           /* fio's alias */
    { "time_based", OPT_TIME_BASED, true },
    { "ramp_time", OPT_RAMP_TIME, false },
    { "startdelay", OPT_STARTDELAY, false },
    { "rate_iops", OPT_RATE_IOPS, false },
    { "thinktime", OPT_THINKTIME, false },
    { "randrepeat", OPT_RANDREPEAT, false },
    { "allrandrepeat", OPT_RANDREPEAT, false },  /* fio's alias */
    { "randseed", OPT_RANDSEED, false },
    { "iofleet_sla", OPT_SLA, false },
    { "norandommap", OPT_NORANDOMMAP, true },
    { "random_distribution", OPT_RANDOM_DIST, false },
    { "percentile_list", OPT_PERCENTILES, false },
    { "cpus_allowed", OPT_CPUS, false },
    { "group_reporting", OPT_GROUP_REPORTING, true },
    { "stonewall", OPT_STONEWALL, true },
    { "wait_for_previous", OPT_STONEWALL, true },
    { "new_group", OPT_NEW_GROUP, true },
    { "steadystate", OPT_SS, false },
    { "ss", OPT_SS, false },
    { "steadystate_duration", OPT_SS_DUR, false },
    { "ss_dur", OPT_SS_DUR, false },
    { "steadystate_ramp_time", OPT_SS_RAMP, false },
    { "ss_ramp", OPT_SS_RAMP, false },
    { "buffer_compress_percentage", OPT_COMPRESS, false },
    { "zero_buffers", OPT_ZERO_BUFFERS, true },
    { "name", OPT_NAME, false },
    { "write_lat_log", OPT_LAT_LOG, false },
    { "write_bw_log", OPT_BW_LOG, false },
    { "write_iops_log", OPT_IOPS_LOG, false },
    { "invalidate", OPT_INVALIDATE, false },
    { "percentage_random", OPT_PERC_RANDOM, false },
    { "rate_min", OPT_RATE_MIN, false },
    { "ratemin", OPT_RATE_MIN, false },
    { "rate_iops_min", OPT_RATE_IOPS_MIN, false },
    { "rate_cycle", OPT_RATE_CYCLE, false },
    { "ratecycle", OPT_RATE_CYCLE, false },
    { "blocksize_unaligned", OPT_BS_UNALIGNED, true },
    { "bs_unaligned", OPT_BS_UNALIGNED, true },
    { "fadvise_hint", OPT_FADVISE, false },
    { "description", OPT_DESCRIPTION, false },
    { "thread", OPT_THREAD, true },
    { "threads", OPT_THREAD, true },             /* fio 3.33 takes it too */
    { "gtod_reduce", OPT_GTOD_REDUCE, false },
    { "log_avg_msec", OPT_LOG_AVG, false },
    { "log_offset", OPT_LOG_OFFSET, false },
    { "io_size", OPT_IO_SIZE, false },
    { "io_limit", OPT_IO_SIZE, false },          /* fio's alias */
    { "number_ios", OPT_NUMBER_IOS, false },
    { "loops", OPT_LOOPS, false },
    { "offset_increment", OPT_OFFSET_INC, false },
    { "verify", OPT_VERIFY, false },
    { "do_verify", OPT_DO_VERIFY, false },
    { "verify_backlog", OPT_VERIFY_BACKLOG, false },
    { "verify_fatal", OPT_VERIFY_FATAL, false },
    { "verify_only", OPT_VERIFY_ONLY, true },
    { "random_generator", OPT_RANDOM_GEN, false },
    { "rate_process", OPT_RATE_PROCESS, false },
    { "nrfiles", OPT_NRFILES, false },
    { "nr_files", OPT_NRFILES, false },          /* fio's alias */
    { "filesize", OPT_FILESIZE, false },
    { "directory", OPT_DIRECTORY, false },
    { "rate", OPT_RATE, false },
    { "write_iolog", OPT_WRITE_IOLOG, false },
    { "read_iolog", OPT_READ_IOLOG, false },
    { "replay_no_stall", OPT_REPLAY_NO_STALL, false },
    { "replay_redirect", OPT_REPLAY_REDIRECT, false },
    { "replay_time_scale", OPT_REPLAY_TIME_SCALE, false },
    { "replay_align", OPT_REPLAY_ALIGN, false },
    { "replay_scale", OPT_REPLAY_SCALE, false },
    { "refill_buffers", OPT_REFILL, true },
    { "scramble_buffers", OPT_SCRAMBLE, false },
    { "exitall", OPT_EXITALL, true },
    { "exit_what", OPT_EXIT_WHAT, false },
    { "create_serialize", OPT_CREATE_SERIALIZE, false },
    { "io_submit_mode", OPT_SUBMIT_MODE, false },
    { "latency_target", OPT_LAT_TARGET, false },
    { "latency_window", OPT_LAT_WINDOW, false },
    { "latency_percentile", OPT_LAT_PCT, false },
    { "latency_run", OPT_LAT_RUN, false },
};
/* Index of the iofleet option called name, or -1.  Can't fail. */
int
option_find (const char *name)
{
    for (size_t i = 0; i < NELEM (s_options); i++)
        if (strcmp (s_options[i].name, name) == 0)
            return (int) i;
    return -1;
}

/* The option at index idx, from option_find.  Can't fail. */
const option_t *
option_at (int idx)
{
    IOF_ASSERT (idx >= 0 && (size_t) idx < NELEM (s_options));
    return &s_options[idx];
}
