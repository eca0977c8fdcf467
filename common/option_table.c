/*  option_table.c: the fio options iofleet implements, each with fio's
    alias and its handler (see option_table.h).
*/
#include "option_table.h"
#include "job_opts.h"
#include "opt_dirs.h"
#include "opt_field.h"
#include "opt_io.h"
#include "opt_run.h"
#include "util.h"

#include <string.h>

#define NELEM(a) (sizeof (a) / sizeof ((a)[0]))

/* offsetof the job_t field f, which must be of type T (a compile error
   otherwise: a family's handler writes the field as a T). */
#define JOB_FIELD(f, T) \
    (offsetof (job_t, f) + 0 * sizeof (_Generic (&((job_t *) 0)->f, T: 1)))
#define BOOL_FIELD(f)   JOB_FIELD (f, bool *)
#define LOG_FIELD(f)    JOB_FIELD (f, char (*)[JOB_LATLOG_MAX])
#define NS_FIELD(f)     JOB_FIELD (f, uint64_t *)

/* The options iofleet implements: name, fio's alias, whether fio lets it
   be written bare, its handler and, for a family's handler, its field. */
static const option_t s_options[] = {
    { "ioengine", NULL, false, opt_io_ioengine, 0 },
    { "direct", NULL, false, opt_io_direct, 0 },
    { "buffered", NULL, false, opt_io_buffered, 0 },
    { "rw", "readwrite", false, opt_io_rw, 0 },
    { "rwmixread", NULL, false, opt_io_rwmixread, 0 },
    { "rwmixwrite", NULL, false, opt_io_rwmixwrite, 0 },
    { "bs", "blocksize", false, opt_dirs_bs, 0 },
    { "blockalign", "ba", false, opt_dirs_blockalign, 0 },
    { "bsrange", "blocksize_range", false, opt_dirs_bsrange, 0 },
    { "bssplit", NULL, false, opt_dirs_bssplit, 0 },
    { "iodepth", NULL, false, opt_io_iodepth, 0 },
    { "iodepth_batch_submit", "iodepth_batch", false, opt_io_batch_submit, 0 },
    { "iodepth_batch_complete_min", "iodepth_batch_complete", false,
      opt_io_batch_complete, 0 },
    { "numjobs", NULL, false, opt_io_numjobs, 0 },
    { "size", NULL, false, opt_io_size, 0 },
    { "offset", "fileoffset", false, opt_io_offset, 0 },
    { "filename", NULL, false, opt_io_filename, 0 },
    { "runtime", "timeout", false, opt_run_runtime, 0 },
    { "time_based", NULL, true, opt_run_time_based, 0 },
    { "ramp_time", NULL, false, opt_run_ramp_time, 0 },
    { "startdelay", NULL, false, opt_run_startdelay, 0 },
    { "rate_iops", NULL, false, opt_dirs_rate_iops, 0 },
    { "thinktime", NULL, false, opt_field_usec, NS_FIELD (thinktime_ns) },
    { "randrepeat", "allrandrepeat", false, opt_field_bool, BOOL_FIELD (randrepeat) },
    { "randseed", NULL, false, opt_run_randseed, 0 },
    { "iofleet_sla", NULL, false, opt_run_sla, 0 },
    { "norandommap", NULL, true, opt_field_bool, BOOL_FIELD (norandommap) },
    { "random_distribution", NULL, false, opt_run_random_distribution, 0 },
    { "percentile_list", NULL, false, opt_run_percentiles, 0 },
    { "cpus_allowed", NULL, false, opt_io_cpus, 0 },
    { "group_reporting", NULL, true, opt_field_bool, BOOL_FIELD (group_reporting) },
    { "stonewall", "wait_for_previous", true, opt_field_bool, BOOL_FIELD (stonewall) },
    { "new_group", NULL, true, opt_field_bool, BOOL_FIELD (new_group) },
    { "steadystate", "ss", false, opt_run_steadystate, 0 },
    { "steadystate_duration", "ss_dur", false, opt_run_ss_dur, 0 },
    { "steadystate_ramp_time", "ss_ramp", false, opt_run_ss_ramp, 0 },
    { "buffer_compress_percentage", NULL, false, opt_io_compress, 0 },
    { "zero_buffers", NULL, true, opt_field_bool, BOOL_FIELD (zero_buffers) },
    { "name", NULL, false, opt_run_name, 0 },
    { "write_lat_log", NULL, true, opt_field_log, LOG_FIELD (write_lat_log) },
    { "write_bw_log", NULL, true, opt_field_log, LOG_FIELD (write_bw_log) },
    { "write_iops_log", NULL, true, opt_field_log, LOG_FIELD (write_iops_log) },
    { "invalidate", NULL, false, opt_io_invalidate, 0 },
    { "per_job_logs", NULL, false, opt_io_per_job_logs, 0 },
    { "percentage_random", NULL, false, opt_dirs_perc_random, 0 },
    { "rate_min", "ratemin", false, opt_dirs_rate_min, 0 },
    { "rate_iops_min", NULL, false, opt_dirs_rate_iops_min, 0 },
    { "rate_cycle", "ratecycle", false, opt_run_rate_cycle, 0 },
    { "blocksize_unaligned", "bs_unaligned", true, opt_field_bool, BOOL_FIELD (bs_unaligned) },
    { "fadvise_hint", NULL, false, opt_io_fadvise, 0 },
    /* fio prints it; it changes no I/O. */
    { "description", NULL, false, opt_field_ignored, 0 },
    /* fio's threads instead of processes: iofleet's workers are always
       threads, and the I/O is the same.  fio 3.33 takes "threads" too. */
    { "thread", "threads", true, opt_field_checked, 0 },
    /* fio stops timing each I/O (its latency figures read 0) to save
       clock calls; iofleet always times them, as its histograms, outliers
       and SLAs are built from latency, and the I/O issued is the same
       (docs/conformance.md). */
    { "gtod_reduce", NULL, false, opt_field_checked, 0 },
    { "log_avg_msec", NULL, false, opt_run_log_avg, 0 },
    { "log_offset", NULL, false, opt_field_bool, BOOL_FIELD (log_offset) },
    { "io_size", "io_limit", false, opt_io_io_size, 0 },
    { "number_ios", NULL, false, opt_io_number_ios, 0 },
    { "loops", NULL, false, opt_io_loops, 0 },
    { "offset_increment", NULL, false, opt_io_offset_increment, 0 },
    { "verify", NULL, false, opt_run_verify, 0 },
    { "do_verify", NULL, false, opt_field_bool, BOOL_FIELD (do_verify) },
    { "verify_backlog", NULL, false, opt_run_verify_backlog, 0 },
    { "verify_fatal", NULL, false, opt_field_bool, BOOL_FIELD (verify_fatal) },
    { "verify_only", NULL, true, opt_field_bool, BOOL_FIELD (verify_only) },
    { "random_generator", NULL, false, opt_run_random_generator, 0 },
    { "rate_process", NULL, false, opt_run_rate_process, 0 },
    { "nrfiles", "nr_files", false, opt_io_nrfiles, 0 },
    { "filesize", NULL, false, opt_io_filesize, 0 },
    { "directory", NULL, false, opt_io_directory, 0 },
    { "rate", NULL, false, opt_dirs_rate, 0 },
    { "write_iolog", NULL, false, opt_run_write_iolog, 0 },
    { "read_iolog", NULL, false, opt_run_read_iolog, 0 },
    { "replay_no_stall", NULL, false, opt_field_bool, BOOL_FIELD (replay_no_stall) },
    { "replay_redirect", NULL, false, opt_run_replay_redirect, 0 },
    { "replay_time_scale", NULL, false, opt_run_replay_time_scale, 0 },
    { "replay_align", NULL, false, opt_run_replay_align, 0 },
    { "replay_scale", NULL, false, opt_run_replay_scale, 0 },
    { "refill_buffers", NULL, true, opt_field_bool, BOOL_FIELD (refill_buffers) },
    { "scramble_buffers", NULL, false, opt_field_bool, BOOL_FIELD (scramble_buffers) },
    { "exitall", NULL, true, opt_field_bool, BOOL_FIELD (exitall) },
    { "exit_what", NULL, false, opt_run_exit_what, 0 },
    /* fio lays files out one at a time (1, its default) or together: the
       same files and I/O either way, and iofleet lays them out one at a
       time. */
    { "create_serialize", NULL, false, opt_field_checked, 0 },
    { "io_submit_mode", NULL, false, opt_io_submit_mode, 0 },
    { "latency_target", NULL, false, opt_field_usec, NS_FIELD (latency_target_ns) },
    { "latency_window", NULL, false, opt_field_usec, NS_FIELD (latency_window_ns) },
    { "latency_percentile", NULL, false, opt_run_latency_percentile, 0 },
    { "latency_run", NULL, false, opt_field_bool, BOOL_FIELD (latency_run) },
};

/* The iofleet option called name, or NULL.  Can't fail. */
const option_t *
option_find (const char *name, const char **spelling)
{
    for (size_t i = 0; i < NELEM (s_options); i++) {
        const option_t *opt = &s_options[i];
        IOF_ASSERT (opt->apply);
        const char *hit = strcmp (opt->name, name) == 0 ? opt->name
                        : opt->alias && strcmp (opt->alias, name) == 0 ? opt->alias : NULL;
        if (hit) {
            if (spelling)
                *spelling = hit;
            return opt;
        }
    }
    return NULL;
}
