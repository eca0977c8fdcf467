/*  jobfile.c: parser for fio job files, the plan format of iofleet.

    The aim is to read a job file exactly as fio would, and to refuse, with
    the file and line, anything iofleet would run differently: options it
    does not implement, values it cannot honour, and fio features it does
    not expand (include, ${VAR}, $ncpus, (arithmetic)).  A plan that parses
    here must mean the same thing to fio.

    Where fio's parser and its HOWTO disagree, the parser wins, because
    that is what users' job files were tested against:
      - ';' and '#' start a comment anywhere on a line (fio's
        strip_blank_end() cuts every line at the first of them; the HOWTO
        only mentions whole-line comments);
      - option names are case-sensitive (fio matches them with strcmp);
      - only fio's "set" options (time_based, group_reporting, stonewall,
        norandommap, new_group, zero_buffers) may be written bare: fio
        rejects a bare `direct` or `randrepeat` with "Option direct
        requires an argument", and so do we;
      - fio takes any section whose untrimmed name starts with "global"
        as a [global]; we take "[global]" (trailing blanks allowed) and
        refuse the names where the two rules disagree ("[global-x]",
        "[ global]") rather than read them differently from fio.
    One deliberate difference: with its default kb_base=1024, fio reads the
    IEC suffixes backwards (4k = 4096 but 4KiB = 4000).  iofleet reads every
    suffix as a power of 1024, so 4k = 4kB = 4KiB = 4096; see
    job_parse_size.

    Integer options (iodepth, numjobs, rwmix*, rate_iops, randseed, ...) go
    through the size parser like they do in fio, so iodepth=0x20 and
    numjobs=1k are accepted.

    Per-direction options (bs, bsrange, bssplit, rate_iops) take fio's
    "READS,WRITES[,TRIMS]" form: an empty part leaves that direction as it
    was (bs=,8k sets writes only), and the last part, when no comma follows
    it, also applies to the directions after it (bs=4k sets both, bs=4k,
    reads only).  A trim value is refused, as iofleet does not trim.  fio
    also splits bs= and rate_iops= at ':' and '-' (bs=4k-8k is reads 4k,
    writes 8k, not a range); we refuse those spellings as too easy to
    misread.

    Where fio would silently change or drop what the file says (bssplit's
    64-entry cap, an empty bssplit entry ending the list, a percentage over
    100 clamped, garbage after a number), we refuse instead.  Where the
    file leaves something to fio's defaults, the job gets fio's value:
    iodepth_batch_submit=0 is the iodepth (fio's HOWTO: "If it is set to 0
    the iodepth value will be used"), and ss_dur= without steadystate=
    gets fio's default criterion iops_slope:0.01%.

    Sweeps are iofleet's one extension to the syntax: a comma-separated
    list in rw= or iodepth= (fio takes neither with a comma), or in bs=
    with three or more non-empty sizes (bs=R,W and bs=R,W, keep fio's
    per-direction meaning, so a sweep of exactly two sizes is written as
    two sections).  Each value is checked like a single one, at the line
    of the list; the section then expands, when it ends, into one step per
    combination (rw outermost, then bs, then iodepth, each in the order
    written), named SECTION-RW-BS-qdN with only the swept parts, and each
    step gets the end-of-section checks of its own values.  A later single
    value replaces the list (in a job, a [global] sweep too).

    The other extension is the [iofleet] section, for settings of the plan
    rather than of a job.  It takes sla=CONDITIONS (common/sla.h), the
    service level of every job that does not set its own iofleet_sla=,
    wherever the section stands in the file.  fio would read [iofleet] as a
    job, so a plan that uses it is an iofleet plan, as with iofleet_sla=.
*/
#include "jobfile.h"
#include "sla.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define JOBFILE_MAX_BYTES   (1u << 20)      /* jobfile_load refuses more */
#define SHOW                80              /* value bytes quoted in messages */
#define FIO_PCT_LIST_MAX    20              /* fio's FIO_IO_U_LIST_MAX_LEN */

/* Real fio options (from fio's HOWTO, including aliases and engine
   options) that iofleet does not implement yet.  Sorted with strcmp for
   bsearch (jobfile_parse checks); the options iofleet does implement are
   not listed. */
static const char *const s_fio_only[] = {
    "allow_file_create", "allow_mounted_write", "arguments",
    "bindname", "block_error_percentiles",
    "bs_is_seq_rand",
    "buffer_compress_chunk", "buffer_pattern", "busy_poll",
    "busy_wait_polling", "bwavgtime", "cgroup", "cgroup_nodelete",
    "cgroup_weight", "chunk_size", "clat_percentiles", "clientname",
    "clocksource", "clustername", "cmd_type", "cmdprio", "cmdprio_bssplit",
    "cmdprio_class", "cmdprio_percentage", "conf", "cont",
    "continue_on_error", "cpuchunks", "cpuload", "cpumask", "cpumode",
    "cpus_allowed_policy", "create_fsync", "create_on_open", "create_only",
    "cuda_io", "dedupe_global", "dedupe_mode",
    "dedupe_percentage", "dedupe_working_set_percentage", "direct_write_to_pmem", "disable_bw",
    "disable_bw_measurement", "disable_clat", "disable_lat", "disable_slat",
    "disk_util", "donorname", "end_fsync", "error_dump",
    "exec_postrun", "exec_prerun", "exit_on_io_done", "exitall_on_error", "experimental_verify", "fallocate",
    "fdatasync", "fdp", "fdp_pli", "file_append", "file_service_type",
    "filename_format", "fill_device", "fill_fs", "fixedbufs",
    "flow", "flow_id", "flow_sleep", "force_async", "fsync", "fsync_on_close",
    "gid", "gpu_dev_ids", "grace_time", "gtod_cpu",
    "hdfsdirectory", "hipri", "hipri_percentage", "hostname", "http_host",
    "http_mode", "http_pass", "http_s3_key", "http_s3_keyid",
    "http_s3_region", "http_s3_sse_customer_algorithm",
    "http_s3_sse_customer_key", "http_s3_storage_class",
    "http_swift_auth_token", "http_user", "http_verbose", "https",
    "hugepage-size", "ignore_error", "ignore_zone_limits", "inplace",
    "interface",
    "iodepth_batch_complete_max", "iodepth_low", "iomem", "iomem_align",
    "iopsavgtime", "ioscheduler", "job_max_open_zones", "kb_base",
    "lat_percentiles", "libblkio_driver",
    "libblkio_force_enable_completion_eventfd", "libblkio_num_entries",
    "libblkio_path", "libblkio_pre_connect_props", "libblkio_pre_start_props",
    "libblkio_queue_size", "libblkio_vectored", "libblkio_wait_mode",
    "libblkio_write_zeroes_on_trim", "listen", "lockfile", "lockmem",
    "log_alternate_epoch", "log_alternate_epoch_clock_id", "log_compression", "log_compression_cpus", "log_entries",
    "log_hist_coarseness", "log_hist_msec", "log_max_value",
    "log_prio", "log_store_compressed", "log_unix_epoch", "max_latency", "max_open_zones", "mem", "mem_align",
    "merge_blktrace_file", "merge_blktrace_iters", "merge_blktrace_scalars",
    "mss", "namenode", "nfs_url", "nice", "nodelay", "nonvectored", "nowait",
    "numa_cpu_nodes", "numa_mem_policy", "object_class", "offset_align", "opendir",
    "openfiles", "overwrite", "per_job_logs", "pingpong",
    "pool", "port", "pre_read", "prio", "prioclass", "profile", "program",
    "proto", "protocol",
    "rate_ignore_thinktime",
    "rbdname", "read_beyond_wp", "read_iolog_chunked",
    "readfua", "registerfiles", "replay_skip", "rw_sequencer", "rwmixcycle", "serialize_overlap", "serverip", "sg_write_mode", "significant_figures",
    "skip_bad", "slat_percentiles", "softrandommap", "sqthread_poll",
    "sqthread_poll_cpu", "stat_type", "stats", "std_redirect", "stream_id",
    "sync", "sync_file_range", "thinktime_blocks", "thinktime_blocks_type",
    "thinktime_iotime", "thinktime_spin", "touch_objects",
    "trim_backlog", "trim_backlog_batch", "trim_percentage",
    "trim_verify_zero", "ttl", "uid", "unified_rw_reporting",
    "unique_filename", "unit_base", "unlink", "unlink_each_loop", "uri",
    "userspace_reap", "verb", "verify_async", "verify_async_cpus",
    "verify_backlog_batch", "verify_dump", "verify_interval", "verify_offset", "verify_pattern",
    "verify_state_load", "verify_state_save", "wait_for", "window_size",
    "write_barrier", "write_hint", "write_hist_log", "writefua",
    "xnvme_admin", "xnvme_async", "xnvme_dev_nsid", "xnvme_dev_subnqn",
    "xnvme_iovec", "xnvme_mem", "xnvme_sync", "zone_reset_frequency",
    "zone_reset_threshold", "zonecapacity", "zonemode", "zonerange",
    "zonesize", "zoneskip",
};


/* fio's other I/O engines, to tell "not yet" from "no such". */
static const char *const s_fio_engines[] = {
    "binject", "cpuio", "dev-dax", "dfs", "e4defrag", "exec", "falloc",
    "filecreate", "filedelete", "filestat", "ftruncate", "gfapi",
    "gfapi_async", "guasi", "http", "ime_aio", "ime_psync", "ime_psyncv",
    "io_uring_cmd", "libblkio", "libcufile", "libhdfs",
    "libiscsi", "libpmem", "librpma_apm_client", "librpma_apm_server",
    "librpma_gpspm_client", "librpma_gpspm_server", "libzbc", "mmap", "mtd",
    "nbd", "net", "netsplice", "nfs", "pmemblk",
    "rados", "rbd", "rdma", "sg", "solarisaio",
    "splice", "syslet-rw", "windowsaio", "xnvme",
};

/* fio's rw modes that iofleet does not run yet. */
static const char *const s_fio_rw_only[] = {
    "filecreate", "filestat", "filedelete",
};

static const struct {
    const char *name;
    job_rw_t mode;
} s_rw_modes[] = {
    { "read", JOB_RW_READ },            { "write", JOB_RW_WRITE },
    { "randread", JOB_RW_RANDREAD },    { "randwrite", JOB_RW_RANDWRITE },
    { "rw", JOB_RW_RW },                { "readwrite", JOB_RW_RW },
    { "randrw", JOB_RW_RANDRW },
    { "trim", JOB_RW_TRIM },            { "randtrim", JOB_RW_RANDTRIM },
    { "trimwrite", JOB_RW_TRIMWRITE },  { "randtrimwrite", JOB_RW_RANDTRIMWRITE },
};
#define RW_SUPPORTED "read, write, randread, randwrite, rw, readwrite, randrw, trim, randtrim, " \
                     "trimwrite, randtrimwrite"

static const struct {
    const char *name;
    job_ss_t mode;
} s_ss_modes[] = {
    { "iops", JOB_SS_IOPS },    { "iops_slope", JOB_SS_IOPS_SLOPE },
    { "bw", JOB_SS_BW },        { "bw_slope", JOB_SS_BW_SLOPE },
};
#define SS_SUPPORTED "iops, iops_slope, bw, bw_slope"

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
    OPT_VERIFY_ONLY, OPT_RANDOM_GEN, OPT_RATE_PROCESS, OPT_NRFILES, OPT_FILESIZE, OPT_DIRECTORY, OPT_RATE,
    OPT_WRITE_IOLOG, OPT_READ_IOLOG, OPT_REPLAY_NO_STALL, OPT_REPLAY_REDIRECT,
    OPT_REPLAY_TIME_SCALE, OPT_REPLAY_ALIGN, OPT_REPLAY_SCALE, OPT_REFILL, OPT_SCRAMBLE, OPT_EXITALL,
    OPT_EXIT_WHAT, OPT_CREATE_SERIALIZE, OPT_SUBMIT_MODE, OPT_LAT_TARGET, OPT_LAT_WINDOW,
    OPT_LAT_PCT, OPT_LAT_RUN,
} opt_id_t;

/* The options iofleet implements, with fio's aliases.  `bare` marks
   fio's "set" options, the only ones fio lets you write without '='. */
static const struct {
    const char *name;
    opt_id_t id;
    bool bare;
} s_options[] = {
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

#define NELEM(a) (sizeof (a) / sizeof ((a)[0]))

/* A job's options plus where the ones that the end-of-section checks
   complain about were set, so the message can point at that line (which
   may be in a [global] section above the job).  Index 0 is reads, 1
   writes; a line of 0 means "never set" (the default). */
/* One swept option: its values in the order written (job_rw_t for rw,
   bytes for bs, the depth for iodepth) and the line of the list.  n == 0:
   the option is not swept. */
typedef struct {
    int n;
    int line;
    uint32_t v[JOB_MAX_STEPS];
} sweep_t;

typedef enum { SWEEP_RW, SWEEP_BS, SWEEP_IODEPTH } sweep_kind_t;

typedef struct {
    job_t job;
    sweep_t sweep_rw;           /* rw=MODE,MODE[,..] */
    sweep_t sweep_bs;           /* bs=SIZE,SIZE,SIZE[,..] (both directions) */
    sweep_t sweep_iodepth;      /* iodepth=N,N[,..] */
    int bs_line[2];
    int bsrange_line[2];
    int bssplit_line[2];
    int direct_line;
    int numjobs_line;
    int nrfiles_line;
    int iolog_line;
    int read_iolog_line;
    int rw_line;
    int loops_line;
    int verify_line;
    int time_based_line;
    int batch_submit_line;
    const char *batch_submit_key;   /* the name used (iodepth_batch, ...) */
    int batch_complete_line;
    const char *batch_complete_key;
    int ss_line;
    const char *ss_key;
} opts_t;

typedef struct {
    const char *name;       /* file name for messages */
    char *err;
    size_t errlen;
} parser_t;

static const char *const s_dir_name[2] = { "reads", "writes" };


/* Writes "NAME:LINE: message" (or "NAME: message" when line is 0) into
   the caller's buffer, truncating if needed.  Can't fail. */
static void s_error (parser_t *p, int line, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

static void
s_error (parser_t *p, int line, const char *fmt, ...)
{
    if (!p->err || p->errlen == 0)
        return;
    int n = line > 0
          ? snprintf (p->err, p->errlen, "%s:%d: ", p->name, line)
          : snprintf (p->err, p->errlen, "%s: ", p->name);
    if (n < 0 || (size_t) n >= p->errlen)
        return;
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (p->err + n, p->errlen - (size_t) n, fmt, ap);
    va_end (ap);
}

/* True for the ASCII blanks; ctype's isspace depends on the locale and
   on the sign of char.  Can't fail. */
static bool
s_is_blank (char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n'
        || c == '\v' || c == '\f';
}

/* ASCII lower case, locale-independent.  Can't fail. */
static char
s_lower (char c)
{
    return (c >= 'A' && c <= 'Z') ? (char) (c - 'A' + 'a') : c;
}

/* Removes blanks at both ends of s in place; returns the new start.
   Can't fail. */
static char *
s_trim (char *s)
{
    while (s_is_blank (*s))
        s++;
    size_t len = strlen (s);
    while (len > 0 && s_is_blank (s[len - 1]))
        s[--len] = '\0';
    return s;
}

/* Compares for bsearch over an array of strings.  Can't fail. */
static int
s_cmp_name (const void *key, const void *elem)
{
    return strcmp ((const char *) key, *(const char *const *) elem);
}

/* True if name is a real fio option that iofleet does not implement.
   Can't fail. */
static bool
s_is_fio_only (const char *name)
{
    return bsearch (name, s_fio_only, NELEM (s_fio_only),
                    sizeof (s_fio_only[0]), s_cmp_name) != NULL;
}

/* True if s_fio_only is strictly sorted, as bsearch needs.  Can't fail. */
static bool
s_fio_only_sorted (void)
{
    for (size_t i = 1; i < NELEM (s_fio_only); i++)
        if (strcmp (s_fio_only[i - 1], s_fio_only[i]) >= 0)
            return false;
    return true;
}

/* Index of the iofleet option called name, or -1.  Can't fail. */
static int
s_find_option (const char *name)
{
    for (size_t i = 0; i < NELEM (s_options); i++)
        if (strcmp (s_options[i].name, name) == 0)
            return (int) i;
    return -1;
}

/* True if s is one of the n strings in list.  Can't fail. */
bool
job_engine_known (const char *name)
{
    size_t n = strlen (name);
    for (const char *c = JOB_ENGINES; *c; ) {
        size_t len = strcspn (c, ",");
        if (len == n && strncmp (c, name, n) == 0)
            return true;
        c += len;
        c += strspn (c, ", ");
    }
    return false;
}

static bool
s_in_list (const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp (s, list[i]) == 0)
            return true;
    return false;
}

/* Value of hex or decimal digit c in base, or -1.  Can't fail. */
static int
s_digit (char c, unsigned base)
{
    int d = -1;
    if (c >= '0' && c <= '9')
        d = c - '0';
    else if (base == 16 && s_lower (c) >= 'a' && s_lower (c) <= 'f')
        d = s_lower (c) - 'a' + 10;
    return d >= 0 && (unsigned) d < base ? d : -1;
}

/* Reads the leading digits of *s in base into *v and advances *s.
   Returns 0, -EINVAL if there is no digit, -ERANGE if the number does not
   fit in 64 bits (the digits are still consumed). */
static int
s_digits (const char **s, unsigned base, uint64_t *v)
{
    const char *c = *s;
    uint64_t n = 0;
    bool overflow = false;
    int d;
    if (s_digit (*c, base) < 0)
        return -EINVAL;
    for (; (d = s_digit (*c, base)) >= 0; c++) {
        if (n > (UINT64_MAX - (uint64_t) d) / base)
            overflow = true;
        else
            n = n * base + (uint64_t) d;
    }
    *s = c;
    *v = n;
    return overflow ? -ERANGE : 0;
}

/* Parses a plain decimal fraction ("99.9", "1", ".5", "2.") into *out:
   no sign, exponent, blanks, hex, inf or nan.  Returns 0 or -EINVAL. */
static int
s_parse_decimal (const char *s, double *out)
{
    size_t digits = 0, dots = 0, len = 0;
    for (const char *c = s; *c; c++, len++) {
        if (*c >= '0' && *c <= '9')
            digits++;
        else if (*c == '.')
            dots++;
        else
            return -EINVAL;
    }
    if (digits == 0 || dots > 1 || len > 64)
        return -EINVAL;
    /* The syntax is checked, so strtod can only stop early in a locale
       whose decimal point is not '.'; the end check catches that. */
    char *end;
    double v = strtod (s, &end);
    if (*end != '\0' || !isfinite (v))
        return -EINVAL;
    *out = v;
    return 0;
}

/* Parses a time ("60", "60s", "2m", "500ms", "1h", "10us") into ns, a bare
   number counting bare_ns each (fio: seconds for most options,
   microseconds for thinktime); units are case-insensitive like fio's.
   Returns 0, -EINVAL or -ERANGE. */
static int
s_parse_time_unit (const char *s, uint64_t bare_ns, uint64_t *out_ns)
{
    static const struct {
        const char *unit;
        uint64_t ns;
    } units[] = {
        { "s", 1000000000ull },     { "sec", 1000000000ull },
        { "us", 1000ull },          { "usec", 1000ull },
        { "ms", 1000000ull },       { "msec", 1000000ull },
        { "m", 60000000000ull },    { "min", 60000000000ull },
        { "h", 3600000000000ull },  { "d", 86400000000000ull },
    };
    if (!s || !out_ns)
        return -EINVAL;
    uint64_t v;
    int rc = s_digits (&s, 10, &v);
    if (rc == -EINVAL)
        return rc;
    char unit[8];
    size_t len = strlen (s);
    if (len >= sizeof (unit))
        return -EINVAL;
    for (size_t i = 0; i <= len; i++)
        unit[i] = s_lower (s[i]);
    uint64_t mult = 0;
    if (len == 0)
        mult = bare_ns;
    for (size_t i = 0; i < NELEM (units) && !mult; i++)
        if (strcmp (unit, units[i].unit) == 0)
            mult = units[i].ns;
    if (!mult)
        return -EINVAL;
    if (rc == -ERANGE || v > UINT64_MAX / mult)
        return -ERANGE;
    *out_ns = v * mult;
    return 0;
}

/* The defaults of a job with no options: fio's (ioengine=psync, its HOWTO's
   "default on all supported operating systems except for Windows", so an
   iodepth without ioengine= runs one I/O at a time there too).  Can't fail. */
static void
s_opts_default (opts_t *o)
{
    memset (o, 0, sizeof (*o));
    strcpy (o->job.ioengine, "psync");
    o->job.direct = false;
    o->job.rw = JOB_RW_READ;
    o->job.rwmixread = 50;
    o->job.bs[0] = o->job.bs[1] = 4096;
    o->job.iodepth = 1;
    o->job.iodepth_batch_submit = 1;
    o->job.iodepth_batch_complete_min = 1;
    o->job.numjobs = 1;
    o->job.nrfiles = 1;
    o->job.scramble_buffers = true;
    o->job.loops = 1;
    o->job.replay_time_scale = 100;
    o->job.perc_random[0] = o->job.perc_random[1] = 100;
    o->job.latency_percentile = 100;
    o->job.replay_scale = 1;
    o->job.do_verify = true;
    o->job.randrepeat = true;
    o->job.dist.kind = JOB_DIST_RANDOM;
    o->job.ss = JOB_SS_NONE;
    o->batch_submit_key = "iodepth_batch_submit";
    o->batch_complete_key = "iodepth_batch_complete_min";
    o->ss_key = "steadystate";
}

/* Checks a job or section name: it ends up in reports and on the wire,
   so no brackets and no control bytes.  Returns 0, or -1 with the error
   set. */
static int
s_check_name (parser_t *p, int line, const char *what, const char *name)
{
    size_t len = strlen (name);
    if (len == 0) {
        s_error (p, line, "empty %s", what);
        return -1;
    }
    if (len > JOB_NAME_MAX - 1) {
        s_error (p, line, "%s '%.*s...' is %zu characters long (the limit is %d)",
                 what, 20, name, len, JOB_NAME_MAX - 1);
        return -1;
    }
    for (const char *c = name; *c; c++) {
        unsigned char u = (unsigned char) *c;
        if (u < 0x20 || u == 0x7f || u == '[' || u == ']') {
            s_error (p, line, "%s '%s' contains a control character or a bracket",
                     what, name);
            return -1;
        }
    }
    return 0;
}

/* Parses key=value as an unsigned integer within lo..hi (fio parses its
   integer options with the size parser, suffixes included).  Returns 0,
   or -1 with the error set. */
static int
s_parse_uint (parser_t *p, int line, const char *key, const char *value,
              uint64_t lo, uint64_t hi, uint64_t *out)
{
    uint64_t v;
    int rc = job_parse_size (value, &v);
    if (rc == -EINVAL) {
        s_error (p, line, "%s='%.*s' is not a number (allowed: %llu..%llu)",
                 key, SHOW, value, (unsigned long long) lo, (unsigned long long) hi);
        return -1;
    }
    if (rc != 0 || v < lo || v > hi) {
        s_error (p, line, "%s=%.*s is out of range (allowed: %llu..%llu)",
                 key, SHOW, value, (unsigned long long) lo, (unsigned long long) hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* Parses key=value as bytes within lo..hi, where fio would also take a
   percentage (io_size, offset_increment), which iofleet does not yet.
   Returns 0, or -1 with the error set. */
static int
s_parse_bytes (parser_t *p, int line, const char *key, const char *value,
               uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (strchr (value, '%')) {
        s_error (p, line, "%s=%.*s: a percentage is not supported by iofleet yet; give bytes",
                 key, SHOW, value);
        return -1;
    }
    return s_parse_uint (p, line, key, value, lo, hi, out);
}

/* Parses a 0/1 value (fio's bool and "set" options accept nothing else).
   Returns 0, or -1 with the error set. */
static int
s_parse_bool (parser_t *p, int line, const char *key, const char *value, bool *out)
{
    if (strcmp (value, "0") == 0 || strcmp (value, "1") == 0) {
        *out = value[0] == '1';
        return 0;
    }
    s_error (p, line, "%s='%.*s' is not a boolean (allowed: 0 or 1)", key, SHOW, value);
    return -1;
}

/* Parses a time of at most JOB_MAX_RUNTIME_S.  Returns 0, or -1 with the
   error set. */
static int
s_parse_duration_upto (parser_t *p, int line, const char *key, const char *value,
                       uint64_t max_s, const char *max_text, uint64_t *out_ns)
{
    uint64_t ns;
    int rc = job_parse_time (value, &ns);
    if (rc == -EINVAL) {
        s_error (p, line, "%s='%.*s' is not a time (like 60, 30s, 500ms, 5m, 1h)",
                 key, SHOW, value);
        return -1;
    }
    if (rc != 0 || ns > max_s * 1000000000u) {
        s_error (p, line, "%s=%.*s is out of range (allowed: up to %llus, %s)",
                 key, SHOW, value, (unsigned long long) max_s, max_text);
        return -1;
    }
    *out_ns = ns;
    return 0;
}

static int
s_parse_duration (parser_t *p, int line, const char *key, const char *value,
                  uint64_t *out_ns)
{
    return s_parse_duration_upto (p, line, key, value, JOB_MAX_RUNTIME_S, "7 days", out_ns);
}

/* Parses a time of at most an hour that fio reads in microseconds when it
   has no unit (thinktime, latency_target, latency_window), unlike runtime.
   Returns 0, or -1 with the error set. */
static int
s_parse_usec_time (parser_t *p, int line, const char *key, const char *value, uint64_t *out_ns)
{
    uint64_t ns;
    int rc = s_parse_time_unit (value, 1000, &ns);
    if (rc == -EINVAL) {
        s_error (p, line, "%s='%.*s' is not a time (like 100 (microseconds), 100us, 5ms, 1s)",
                 key, SHOW, value);
        return -1;
    }
    if (rc != 0 || ns > (uint64_t) JOB_MAX_DELAY_S * 1000000000u) {
        s_error (p, line, "%s=%.*s is out of range (allowed: up to 1 hour)", key, SHOW, value);
        return -1;
    }
    *out_ns = ns;
    return 0;
}

/* Parses ss_dur= or ss_ramp=: a duration in whole seconds, as fio's
   steady state takes one sample a second.  Returns 0, or -1 with the
   error set. */
static int
s_parse_seconds (parser_t *p, int line, const char *key, const char *value,
                 uint64_t *out_ns)
{
    uint64_t ns;
    if (s_parse_duration_upto (p, line, key, value, JOB_MAX_SS_S, "24 hours", &ns))
        return -1;
    if (ns % 1000000000u != 0) {
        s_error (p, line, "%s=%.*s is not a whole number of seconds (steady state "
                 "takes one sample a second)", key, SHOW, value);
        return -1;
    }
    *out_ns = ns;
    return 0;
}

/* Parses size= or offset=: bytes, or N% of the target with N in
   pct_lo..pct_hi.  Sets one of *bytes / *pct and clears the other, so the
   later of size=1g and size=50% wins.  Returns 0, or -1 with the error
   set. */
static int
s_parse_size_or_pct (parser_t *p, int line, const char *key, const char *value,
                     uint32_t pct_lo, uint32_t pct_hi,
                     uint64_t *bytes, uint32_t *pct)
{
    size_t len = strlen (value);
    if (len > 0 && value[len - 1] == '%') {
        /* Saturating, so a long run of digits is "out of range", not
           a wrapped-around small number. */
        uint64_t v = 0;
        bool digits = len > 1;
        for (size_t i = 0; i + 1 < len && digits; i++) {
            digits = value[i] >= '0' && value[i] <= '9';
            if (digits && v <= 1000)
                v = v * 10 + (uint64_t) (value[i] - '0');
        }
        if (!digits) {
            s_error (p, line, "%s='%.*s' is not a percentage (allowed: %u%%..%u%%)",
                     key, SHOW, value, pct_lo, pct_hi);
            return -1;
        }
        if (v < pct_lo || v > pct_hi) {
            s_error (p, line, "%s=%.*s is out of range (allowed: %u%%..%u%%)",
                     key, SHOW, value, pct_lo, pct_hi);
            return -1;
        }
        *pct = (uint32_t) v;
        *bytes = 0;
        return 0;
    }
    uint64_t v;
    int rc = job_parse_size (value, &v);
    if (rc == -EINVAL) {
        s_error (p, line, "%s='%.*s' is not a size (like 10g or 512m) or a percentage (like 50%%)",
                 key, SHOW, value);
        return -1;
    }
    if (rc != 0) {
        s_error (p, line, "%s=%.*s is out of range (allowed: below 16 EiB)", key, SHOW, value);
        return -1;
    }
    *bytes = v;
    *pct = 0;
    return 0;
}

/* Reports that part of value is "not a ..." (quoted) or "out of range"
   (unquoted): "KEY='PART' what" when the part is the whole value, else
   "KEY=VALUE: 'PART' what".  Can't fail. */
static void
s_part_error (parser_t *p, int line, const char *key, const char *value,
              const char *part, bool quote, const char *what)
{
    const char *q = quote ? "'" : "";
    if (strcmp (part, value) == 0)
        s_error (p, line, "%s=%s%.*s%s %s", key, q, SHOW, value, q, what);
    else
        s_error (p, line, "%s=%.*s: %s%.*s%s %s", key, SHOW, value, q, SHOW, part, q, what);
}

/* Splits buf (a copy of value) in place into fio's per-direction parts,
   "READS,WRITES[,TRIMS]" (see the top of this file), and points part[d]
   at the text for each direction d that gets a value, NULL for the
   others.  Returns 0, or -1 with the error set. */
static int
s_split_dirs (parser_t *p, int line, const char *key, const char *value,
              char *buf, char *part[2])
{
    char *parts[3];
    int n = 0;
    for (char *c = buf;;) {
        if (n == 3) {
            s_error (p, line, "%s=%.*s has more than three comma-separated values "
                     "(fio takes reads,writes,trims)", key, SHOW, value);
            return -1;
        }
        parts[n++] = c;
        char *comma = strchr (c, ',');
        if (!comma)
            break;
        *comma = '\0';
        c = comma + 1;
    }
    if (n == 3 && *parts[2]) {
        s_error (p, line, "%s=%.*s: a third value (for trims) is not supported by iofleet yet",
                 key, SHOW, value);
        return -1;
    }
    part[0] = *parts[0] ? parts[0] : NULL;
    part[1] = n > 1 ? (*parts[1] ? parts[1] : NULL) : part[0];
    if (!part[0] && !part[1]) {
        s_error (p, line, "%s=%.*s gives no value for reads or writes", key, SHOW, value);
        return -1;
    }
    return 0;
}

/* Parses one block size of key=value (part is the text for one
   direction, or one bound or entry).  Returns 0, or -1 with the error
   set. */
static int
s_parse_bs_part (parser_t *p, int line, const char *key, const char *value,
                 const char *part, uint32_t *out)
{
    uint64_t v;
    int rc = job_parse_size (part, &v);
    if (rc == -EINVAL) {
        s_part_error (p, line, key, value, part, true,
                      "is not a size (like 4k or 128k; allowed: 1 byte..64 MiB)");
        return -1;
    }
    if (rc != 0 || v < 1 || v > JOB_MAX_BS) {
        s_part_error (p, line, key, value, part, false,
                      "is out of range (allowed: 1 byte..64 MiB)");
        return -1;
    }
    *out = (uint32_t) v;
    return 0;
}

/* Refuses fio's other separators of per-direction integer values, ':'
   and '-' (a leading '-' is a minus sign, and not a number anyway).
   Returns 0, or -1 with the error set. */
static int
s_refuse_colon_dash (parser_t *p, int line, const char *key, const char *value,
                     const char *hint)
{
    if (strchr (value, ':') || (value[0] && strchr (value + 1, '-'))) {
        s_error (p, line, "%s=%.*s: use ',' between the read and write values "
                 "(fio would also split at ':' or '-'%s)", key, SHOW, value, hint);
        return -1;
    }
    return 0;
}

/* Parses bsrange's "MIN-MAX" (or fio's "MIN:MAX"), swapping the bounds
   when MIN is the larger like fio does.  part is modified.  Returns 0, or
   -1 with the error set. */
static int
s_parse_range_part (parser_t *p, int line, const char *key, const char *value,
                    char *part, uint32_t *min, uint32_t *max)
{
    char *sep = strchr (part, '-');
    if (!sep)
        sep = strchr (part, ':');
    if (!sep) {
        s_part_error (p, line, key, value, part, true,
                      "is not a range of sizes (like 1k-16k)");
        return -1;
    }
    *sep = '\0';
    uint32_t a, b;
    if (s_parse_bs_part (p, line, key, value, part, &a)
    ||  s_parse_bs_part (p, line, key, value, sep + 1, &b))
        return -1;
    *min = a < b ? a : b;
    *max = a < b ? b : a;
    return 0;
}

/* Parses one direction of bssplit, "SIZE/PCT:SIZE/PCT...", part modified.
   As in fio, an entry with no percentage (or 0) gets an equal share of
   what the others leave; fio's integer division can leave a percent or
   two unassigned, which fio's I/O loop ends up giving to the entry with
   the largest share, so that is where it goes here (the last of equals),
   and the shares always sum to 100.  Returns 0, or -1 with the error set. */
static int
s_parse_bssplit_part (parser_t *p, int line, const char *key, const char *value,
                      char *part, job_bssplit_t *out, int *nout)
{
    job_bssplit_t e[JOB_BSSPLIT_MAX];
    bool missing[JOB_BSSPLIT_MAX];
    int n = 0, nmissing = 0;
    uint32_t sum = 0;
    for (char *c = part;;) {
        char *colon = strchr (c, ':');
        if (colon)
            *colon = '\0';
        if (*c == '\0') {
            s_error (p, line, "%s=%.*s has an empty entry (entries are SIZE/PERCENT, "
                     "separated by ':')", key, SHOW, value);
            return -1;
        }
        if (n == JOB_BSSPLIT_MAX) {
            s_error (p, line, "%s=%.*s has more than %d block sizes in one direction "
                     "(fio's limit)", key, SHOW, value, JOB_BSSPLIT_MAX);
            return -1;
        }
        char *slash = strchr (c, '/');
        if (slash)
            *slash = '\0';
        if (s_parse_bs_part (p, line, key, value, c, &e[n].bs))
            return -1;
        uint32_t pct = 0;
        if (slash && slash[1]) {
            const char *d = slash + 1;
            for (; *d >= '0' && *d <= '9'; d++)
                if (pct <= 1000)
                    pct = pct * 10 + (uint32_t) (*d - '0');
            if (*d) {
                s_error (p, line, "%s=%.*s: '%.*s' is not a percentage (like 4k/25)",
                         key, SHOW, value, SHOW, slash + 1);
                return -1;
            }
            if (pct > 100) {
                s_error (p, line, "%s=%.*s: %.*s%% is more than 100%%",
                         key, SHOW, value, SHOW, slash + 1);
                return -1;
            }
        }
        e[n].pct = pct;
        missing[n] = pct == 0;      /* fio: "4k/0" is "4k/" */
        nmissing += missing[n];
        sum += pct;
        n++;
        if (!colon)
            break;
        c = colon + 1;
    }
    if (sum > 100) {
        s_error (p, line, "%s=%.*s: the percentages add up to %u%%, more than 100%%",
                 key, SHOW, value, sum);
        return -1;
    }
    if (nmissing == 0 && sum != 100) {
        s_error (p, line, "%s=%.*s: the percentages add up to %u%%, not 100%%",
                 key, SHOW, value, sum);
        return -1;
    }
    if (nmissing > 0) {
        uint32_t share = (100 - sum) / (uint32_t) nmissing;
        uint32_t left = (100 - sum) % (uint32_t) nmissing;
        int largest = 0;
        for (int i = 0; i < n; i++) {
            if (missing[i])
                e[i].pct = share;
            if (e[i].pct >= e[largest].pct)
                largest = i;
        }
        e[largest].pct += left;
    }
    memcpy (out, e, (size_t) n * sizeof (e[0]));
    *nout = n;
    return 0;
}

/* Parses one direction of rate_iops.  Returns 0, or -1 with the error
   set. */
static int
s_parse_rate_part (parser_t *p, int line, const char *key, const char *value,
                   const char *part, uint32_t *out)
{
    uint64_t v;
    int rc = job_parse_size (part, &v);
    if (rc == -EINVAL) {
        s_part_error (p, line, key, value, part, true,
                      "is not a number (allowed: 0..100000000)");
        return -1;
    }
    if (rc != 0 || v > JOB_MAX_RATE_IOPS) {
        s_part_error (p, line, key, value, part, false,
                      "is out of range (allowed: 0..100000000)");
        return -1;
    }
    *out = (uint32_t) v;
    return 0;
}

/* Parses one direction's part of percentage_random=: 0..100.  Returns 0,
   or -1 with the error set. */
static int
s_parse_pct_part (parser_t *p, int line, const char *key, const char *value,
                  const char *part, uint32_t *out)
{
    uint64_t v;
    if (parse_u64 (part, 0, 100, &v) != 0) {
        s_part_error (p, line, key, value, part, false, "is not a percent (allowed: 0..100)");
        return -1;
    }
    *out = (uint32_t) v;
    return 0;
}

/* Parses one direction's part of rate=: bytes a second, fio's suffixes
   (500k, 100m).  Returns 0, or -1 with the error set. */
static int
s_parse_bytes_rate_part (parser_t *p, int line, const char *key, const char *value,
                         const char *part, uint64_t *out)
{
    uint64_t v;
    int rc = job_parse_size (part, &v);
    if (rc == -EINVAL) {
        s_part_error (p, line, key, value, part, true,
                      "is not a rate (bytes a second, like 500k or 100m)");
        return -1;
    }
    if (rc != 0 || v > JOB_MAX_RATE_BYTES) {
        s_part_error (p, line, key, value, part, false, "is out of range (allowed: up to 1t)");
        return -1;
    }
    *out = v;
    return 0;
}

/* Parses one rw mode, part of key=value (the whole value, or one entry
   of a sweep list).  A sequential mode may carry fio's ':SIZE', bytes
   skipped after each I/O (rw=write:8k), into *skip when skip is not NULL
   (a sweep's entries take none).  Returns 0, or -1 with the error set. */
static int
s_parse_rw_mode (parser_t *p, int line, const char *key, const char *value,
                 const char *part, job_rw_t *out, uint64_t *skip)
{
    /* fio's "rw=randread:8" offset modifier follows a ':'. */
    const char *colon = strchr (part, ':');
    size_t baselen = colon ? (size_t) (colon - part) : strlen (part);
    char base[16];
    if (baselen < sizeof (base)) {
        memcpy (base, part, baselen);
        base[baselen] = '\0';
    }
    else
        base[0] = '\0';
    for (size_t i = 0; i < NELEM (s_rw_modes); i++) {
        if (strcmp (base, s_rw_modes[i].name) != 0)
            continue;
        job_rw_t m = s_rw_modes[i].mode;
        /* rw=rw:SIZE: fio 3.33 ran 61 16k I/Os over 1 MiB with 16k holes,
           its two directions' passes ending apart; not modelled yet. */
        bool seq = m == JOB_RW_READ || m == JOB_RW_WRITE;
        bool rnd = m == JOB_RW_RANDREAD || m == JOB_RW_RANDWRITE || m == JOB_RW_RANDRW;
        if (colon && (!(seq || rnd) || !skip)) {
            s_error (p, line, "%s=%.*s: fio's ':N' offset modifier is not supported by iofleet "
                     "yet%s", key, SHOW, value,
                     m == JOB_RW_RW ? " on mixed sequential I/O (read:SIZE and write:SIZE are)"
                     : !skip ? " in a sweep" : " on trims");
            return -1;
        }
        if (colon && rnd) {
            /* fio's ddir_seq_nr: a new random offset every N I/Os, those
               between going on sequentially. */
            uint64_t n;
            if (parse_u64 (colon + 1, 1, JOB_MAX_SEQ_NR, &n) != 0) {
                s_error (p, line, "%s=%.*s: '%s' after ':' is not a count of I/Os per random "
                         "offset (allowed: 1..%u)", key, SHOW, value, colon + 1, JOB_MAX_SEQ_NR);
                return -1;
            }
            *skip = n;
        }
        else if (colon) {
            uint64_t v;
            if (job_parse_size (colon + 1, &v) != 0 || v > JOB_MAX_RW_SKIP) {
                s_error (p, line, "%s=%.*s: '%s' after ':' is not a size to skip (allowed: "
                         "0..1g)", key, SHOW, value, colon + 1);
                return -1;
            }
            *skip = v;
        } else if (skip)
            *skip = 0;
        *out = m;
        return 0;
    }
    if (s_in_list (base, s_fio_rw_only, NELEM (s_fio_rw_only)))
        s_error (p, line, "%s '%s' is not supported by iofleet yet (supported: "
                 RW_SUPPORTED ")", key, base);
    else
        s_part_error (p, line, key, value, part, true,
                      "is not an fio I/O pattern (supported: " RW_SUPPORTED ")");
    return -1;
}

/* Parses one entry of an integer sweep list as a number within lo..hi.
   Returns 0, or -1 with the error set. */
static int
s_parse_uint_part (parser_t *p, int line, const char *key, const char *value,
                   const char *part, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char what[96];
    uint64_t v;
    int rc = job_parse_size (part, &v);
    if (rc == -EINVAL) {
        snprintf (what, sizeof what, "is not a number (allowed: %llu..%llu)",
                  (unsigned long long) lo, (unsigned long long) hi);
        s_part_error (p, line, key, value, part, true, what);
        return -1;
    }
    if (rc != 0 || v < lo || v > hi) {
        snprintf (what, sizeof what, "is out of range (allowed: %llu..%llu)",
                  (unsigned long long) lo, (unsigned long long) hi);
        s_part_error (p, line, key, value, part, false, what);
        return -1;
    }
    *out = v;
    return 0;
}

/* Parses a sweep list, key=V1,V2[,..], checking every value like a single
   one and refusing empty entries and repeats.  *out is written only on
   success.  Returns 0, or -1 with the error set. */
static int
s_parse_sweep (parser_t *p, int line, const char *key, const char *value,
               sweep_kind_t kind, sweep_t *out)
{
    char *buf = strdup (value);
    sweep_t *sw = malloc (sizeof (*sw));
    if (!buf || !sw) {
        free (buf);
        free (sw);
        s_error (p, line, "out of memory");
        return -1;
    }
    int n = 0, rc = 0;
    for (char *c = buf; rc == 0;) {
        char *comma = strchr (c, ',');
        if (comma)
            *comma = '\0';
        if (*c == '\0') {
            s_error (p, line, "%s=%.*s has an empty value (a sweep lists its values "
                     "separated by ',')", key, SHOW, value);
            rc = -1;
            break;
        }
        if (n == JOB_MAX_STEPS) {
            s_error (p, line, "%s=%.*s: a sweep has more than %d values", key, SHOW, value,
                     JOB_MAX_STEPS);
            rc = -1;
            break;
        }
        uint32_t v = 0;
        if (kind == SWEEP_RW) {
            job_rw_t m = JOB_RW_READ;
            rc = s_parse_rw_mode (p, line, key, value, c, &m, NULL);
            v = (uint32_t) m;
        }
        else if (kind == SWEEP_BS)
            rc = s_parse_bs_part (p, line, key, value, c, &v);
        else {
            uint64_t x = 0;
            rc = s_parse_uint_part (p, line, key, value, c, 1, JOB_MAX_IODEPTH, &x);
            v = (uint32_t) x;
        }
        if (rc)
            break;
        for (int i = 0; i < n; i++) {
            if (sw->v[i] == v) {
                s_error (p, line, "%s=%.*s: '%.*s' repeats an earlier value (the values of "
                         "a sweep must all differ)", key, SHOW, value, SHOW, c);
                rc = -1;
                break;
            }
        }
        if (rc)
            break;
        sw->v[n++] = v;
        if (!comma)
            break;
        c = comma + 1;
    }
    if (rc == 0 && n < 2) {
        s_error (p, line, "%s=%.*s: a sweep needs two or more values", key, SHOW, value);
        rc = -1;
    }
    if (rc == 0) {
        sw->n = n;
        sw->line = line;
        *out = *sw;
    }
    free (buf);
    free (sw);
    return rc;
}

/* Number of non-empty comma-separated parts of value.  Can't fail. */
static int
s_nonempty_parts (const char *value)
{
    int n = 0;
    for (const char *c = value;;) {
        const char *comma = strchr (c, ',');
        size_t len = comma ? (size_t) (comma - c) : strlen (c);
        n += len > 0;
        if (!comma)
            return n;
        c = comma + 1;
    }
}

/* Parses one of the per-direction options (bs, bsrange, bssplit,
   rate_iops) into o, and notes the line of each direction it sets.
   Nothing changes on error.  Returns 0, or -1 with the error set. */
static int
s_parse_per_dir (parser_t *p, int line, opts_t *o, opt_id_t id, const char *key,
                 const char *value)
{
    if (id == OPT_BS && s_nonempty_parts (value) >= 3) {
        /* A sweep: fio's bs takes at most reads,writes,trims, and a trim
           size is refused anyway, so three sizes or more are a list. */
        if (s_parse_sweep (p, line, key, value, SWEEP_BS, &o->sweep_bs))
            return -1;
        o->job.bs[0] = o->job.bs[1] = o->sweep_bs.v[0];
        o->bs_line[0] = o->bs_line[1] = line;
        return 0;
    }
    if (id == OPT_BS
    &&  s_refuse_colon_dash (p, line, key, value, "; bsrange= gives a range of sizes"))
        return -1;
    if ((id == OPT_BLOCKALIGN || id == OPT_PERC_RANDOM || id == OPT_RATE_MIN
         || id == OPT_RATE_IOPS_MIN)
        && s_refuse_colon_dash (p, line, key, value, ""))
        return -1;
    if ((id == OPT_RATE_IOPS || id == OPT_RATE) && s_refuse_colon_dash (p, line, key, value, ""))
        return -1;
    char *buf = strdup (value);
    if (!buf) {
        s_error (p, line, "out of memory");
        return -1;
    }
    job_t *job = &o->job;
    job_t next = *job;
    char *part[2];
    int rc = s_split_dirs (p, line, key, value, buf, part);
    for (int d = 0; d < 2 && rc == 0; d++) {
        if (!part[d])
            continue;
        if (d == 1 && part[1] == part[0]
            && (id == OPT_BSRANGE || id == OPT_BSSPLIT)) {
            /* One value for both: bsrange and bssplit cut their text up
               as they parse it, so the writes copy the reads'.  A single
               number is simply parsed again. */
            if (id == OPT_BSRANGE) {
                next.bsrange_min[1] = next.bsrange_min[0];
                next.bsrange_max[1] = next.bsrange_max[0];
            }
            else {
                memcpy (next.bssplit[1], next.bssplit[0], sizeof (next.bssplit[0]));
                next.nbssplit[1] = next.nbssplit[0];
            }
            continue;
        }
        switch (id) {
        case OPT_BS:
            rc = s_parse_bs_part (p, line, key, value, part[d], &next.bs[d]);
            break;
        case OPT_BLOCKALIGN:
            rc = s_parse_bs_part (p, line, key, value, part[d], &next.blockalign[d]);
            break;
        case OPT_PERC_RANDOM:
            rc = s_parse_pct_part (p, line, key, value, part[d], &next.perc_random[d]);
            break;
        case OPT_RATE_MIN:
            rc = s_parse_bytes_rate_part (p, line, key, value, part[d], &next.rate_min[d]);
            break;
        case OPT_RATE_IOPS_MIN:
            rc = s_parse_rate_part (p, line, key, value, part[d], &next.rate_iops_min[d]);
            break;
        case OPT_BSRANGE:
            rc = s_parse_range_part (p, line, key, value, part[d],
                                     &next.bsrange_min[d], &next.bsrange_max[d]);
            break;
        case OPT_BSSPLIT:
            rc = s_parse_bssplit_part (p, line, key, value, part[d],
                                       next.bssplit[d], &next.nbssplit[d]);
            break;
        case OPT_RATE:
            rc = s_parse_bytes_rate_part (p, line, key, value, part[d], &next.rate[d]);
            break;
        default:
            rc = s_parse_rate_part (p, line, key, value, part[d], &next.rate_iops[d]);
            break;
        }
    }
    free (buf);
    if (rc)
        return -1;
    if (id == OPT_BS && o->sweep_bs.n) {
        /* A bs sweep sets both directions; a later bs= replaces it only
           when it does too. */
        if (!part[0] || !part[1]) {
            s_error (p, line, "%s=%.*s sets only %s, but the bs sweep of line %d sets both "
                     "directions (give both, bs=READS,WRITES, to replace the sweep)",
                     key, SHOW, value, part[0] ? "reads" : "writes", o->sweep_bs.line);
            return -1;
        }
        o->sweep_bs.n = 0;
    }
    *job = next;
    for (int d = 0; d < 2; d++) {
        if (!part[d])
            continue;
        if (id == OPT_BS)
            o->bs_line[d] = line;
        else if (id == OPT_BSRANGE)
            o->bsrange_line[d] = line;
        else if (id == OPT_BSSPLIT)
            o->bssplit_line[d] = line;
    }
    return 0;
}

/* Parses the zones of zoned:A/S:... or zoned_abs:A/SIZE:... (text is what
   follows the first ':') into d, as fio's zone parser: a zoned size given as
   0 or left out takes an equal share of the percent the others leave.
   Returns 0, or -1 with the error set. */
static int
s_parse_zones (parser_t *p, int line, const char *key, const char *value, const char *text,
               dist_t *d)
{
    d->nzones = 0;
    int missing = 0;
    uint64_t given = 0;
    while (*text) {
        const char *end = strchr (text, ':');
        size_t len = end ? (size_t) (end - text) : strlen (text);
        char part[64], *slash;
        if (d->nzones == DIST_ZONES_MAX) {
            s_error (p, line, "%s=%.*s: more than %d zones (fio's limit)", key, SHOW, value,
                     DIST_ZONES_MAX);
            return -1;
        }
        if (len == 0 || len >= sizeof part) {
            s_error (p, line, "%s=%.*s: zone %d is empty or too long (like 60/10)", key, SHOW,
                     value, d->nzones + 1);
            return -1;
        }
        memcpy (part, text, len);
        part[len] = '\0';
        slash = strchr (part, '/');
        if (slash)
            *slash = '\0';
        dist_zone_t *z = &d->zones[d->nzones++];
        uint64_t v;
        if (parse_u64 (part, 0, 100, &v) != 0) {
            s_error (p, line, "%s=%.*s: zone %d's access '%s' is not a percent 0..100 (like "
                     "60/10)", key, SHOW, value, d->nzones, part);
            return -1;
        }
        z->access_pct = (uint32_t) v;
        z->size = 0;
        const char *sz = slash ? slash + 1 : "";
        if (d->kind == JOB_DIST_ZONED) {
            if (*sz && parse_u64 (sz, 0, 100, &z->size) != 0) {
                s_error (p, line, "%s=%.*s: zone %d's size '%s' is not a percent 0..100",
                         key, SHOW, value, d->nzones, sz);
                return -1;
            }
            given += z->size;
            missing += z->size == 0;
        }
        else if (*sz && job_parse_size (sz, &z->size) != 0) {
            s_error (p, line, "%s=%.*s: zone %d's size '%s' is not a size (like 20g)", key,
                     SHOW, value, d->nzones, sz);
            return -1;
        }
        text += len + (end != NULL);
    }
    if (missing && given < 100)
        for (int i = 0; i < d->nzones; i++)
            if (d->zones[i].size == 0)
                d->zones[i].size = (100 - given) / (uint64_t) missing;
    return 0;
}

/* Parses random_distribution=: random, zipf|pareto|normal[:VALUE[:CENTER]],
   zoned:A/S:..., zoned_abs:A/SIZE:... (distribution.h); dist_check holds
   the limits.  Returns 0, or -1 with the error set. */
static int
s_parse_distribution (parser_t *p, int line, const char *key, const char *value,
                      job_t *job)
{
    if (strchr (value, ',')) {
        s_error (p, line, "%s=%.*s: separate read/write distributions are not supported "
                 "(fio 3.33 refuses them too: its parser cuts the name at the ',')",
                 key, SHOW, value);
        return -1;
    }
    const char *colon = strchr (value, ':');
    size_t baselen = colon ? (size_t) (colon - value) : strlen (value);
    dist_t d;
    memset (&d, 0, sizeof d);
    d.kind = JOB_DIST_LAST + 1;
    for (int k = 0; k <= JOB_DIST_LAST; k++)
        if (strlen (dist_name ((job_dist_t) k)) == baselen
            && strncmp (value, dist_name ((job_dist_t) k), baselen) == 0)
            d.kind = (job_dist_t) k;
    if ((unsigned) d.kind > JOB_DIST_LAST) {
        s_error (p, line, "%s='%.*s' is not an fio random distribution (random, zipf, pareto, "
                 "normal, zoned, zoned_abs)", key, SHOW, value);
        return -1;
    }
    const char *arg = colon ? colon + 1 : NULL;
    switch (d.kind) {
    case JOB_DIST_RANDOM:
        if (arg) {
            s_error (p, line, "%s=%.*s: 'random' takes no parameter", key, SHOW, value);
            return -1;
        }
        break;
    case JOB_DIST_ZONED:
    case JOB_DIST_ZONED_ABS:
        if (!arg || !*arg) {
            s_error (p, line, "%s=%.*s: %s needs its zones (like %s:60/10:40/90)", key, SHOW,
                     value, dist_name (d.kind), dist_name (d.kind));
            return -1;
        }
        if (s_parse_zones (p, line, key, value, arg, &d))
            return -1;
        break;
    default: {
        /* fio's defaults: FIO_DEF_ZIPF 1.1, FIO_DEF_PARETO 0.2, normal 0. */
        d.param = d.kind == JOB_DIST_ZIPF ? 1.1 : d.kind == JOB_DIST_PARETO ? 0.2 : 0;
        if (!arg)
            break;
        char num[72];
        const char *c2 = strchr (arg, ':');
        size_t n = c2 ? (size_t) (c2 - arg) : strlen (arg);
        bool ok = n < sizeof num;
        if (ok) {
            memcpy (num, arg, n);
            num[n] = '\0';
            ok = s_parse_decimal (num, &d.param) == 0;
        }
        if (!ok) {
            s_error (p, line, "%s=%.*s: '%.*s' is not a number (like %s:0.9)", key, SHOW,
                     value, (int) n, arg, dist_name (d.kind));
            return -1;
        }
        if (c2) {
            d.centered = true;
            if (s_parse_decimal (c2 + 1, &d.center)) {
                s_error (p, line, "%s=%.*s: the center '%s' is not a number 0..1", key, SHOW,
                         value, c2 + 1);
                return -1;
            }
        }
        break;
    }
    }
    char why[160];
    if (dist_check (&d, why, sizeof why)) {
        s_error (p, line, "%s=%.*s: %s", key, SHOW, value, why);
        return -1;
    }
    job->dist = d;
    return 0;
}

/* Compares doubles for qsort.  Can't fail. */
static int
s_cmp_double (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* Parses percentile_list=P:P:...: each in (0,100], at most fio's 20,
   stored sorted.  Returns 0, or -1 with the error set. */
static int
s_parse_percentiles (parser_t *p, int line, const char *key, const char *value,
                     job_t *job)
{
    double list[FIO_PCT_LIST_MAX];
    int n = 0;
    const char *c = value;
    for (;;) {
        const char *colon = strchr (c, ':');
        size_t len = colon ? (size_t) (colon - c) : strlen (c);
        char num[72];
        double v = 0;
        if (n == FIO_PCT_LIST_MAX || n == JOB_PCT_MAX) {
            s_error (p, line, "%s=%.*s has more than %d percentiles (fio's limit)",
                     key, SHOW, value, n);
            return -1;
        }
        bool ok = len < sizeof (num);
        if (ok) {
            memcpy (num, c, len);
            num[len] = '\0';
            ok = s_parse_decimal (num, &v) == 0;
        }
        if (!ok) {
            s_error (p, line, "%s=%.*s: '%.*s' is not a number (like 99.9)",
                     key, SHOW, value, (int) (len < SHOW ? len : SHOW), c);
            return -1;
        }
        if (v <= 0 || v > 100) {
            s_error (p, line, "%s=%.*s: %s is out of range (allowed: above 0, up to 100)",
                     key, SHOW, value, num);
            return -1;
        }
        list[n++] = v;
        if (!colon)
            break;
        c = colon + 1;
    }
    qsort (list, (size_t) n, sizeof (list[0]), s_cmp_double);
    memset (job->percentile_list, 0, sizeof (job->percentile_list));
    memcpy (job->percentile_list, list, (size_t) n * sizeof (list[0]));
    job->npercentiles = n;
    return 0;
}

/* Parses the cpus_allowed list s into a local mask; on error points *bad
   at the offending text (*badlen bytes).  Returns 0, -EINVAL (syntax),
   -ERANGE (a CPU >= JOB_CPUS_MAX) or -EDOM (a backwards range). */
static int
s_cpus_parse (const char *s, uint64_t *out, const char **bad, size_t *badlen)
{
    uint64_t mask[JOB_CPUS_MAX / 64] = { 0 };
    const char *c = s;
    *bad = s;
    *badlen = 0;
    for (;;) {
        const char *start = c;
        uint64_t lo, hi;
        int rc = s_digits (&c, 10, &lo);
        if (rc == -EINVAL) {
            *bad = c;
            return -EINVAL;
        }
        bool lo_over = rc == -ERANGE || lo >= JOB_CPUS_MAX;
        const char *lo_end = c, *hi_start = start;
        hi = lo;
        bool hi_over = lo_over;
        if (*c == '-') {
            hi_start = ++c;
            rc = s_digits (&c, 10, &hi);
            if (rc == -EINVAL) {
                *bad = c;
                return -EINVAL;
            }
            hi_over = rc == -ERANGE || hi >= JOB_CPUS_MAX;
        }
        if (lo_over || hi_over) {
            *bad = lo_over ? start : hi_start;
            *badlen = (size_t) ((lo_over ? lo_end : c) - *bad);
            return -ERANGE;
        }
        if (lo > hi) {
            *bad = start;
            *badlen = (size_t) (c - start);
            return -EDOM;
        }
        for (uint64_t cpu = lo; cpu <= hi; cpu++)
            mask[cpu / 64] |= 1ull << (cpu % 64);
        if (*c == '\0')
            break;
        if (*c != ',') {
            *bad = c;
            return -EINVAL;
        }
        c++;
    }
    memcpy (out, mask, sizeof (mask));
    return 0;
}

/* Parses steadystate=CRITERION:LIMIT, fio's syntax: the limit is a
   percentage of the mean ("5%", stored as the fraction 0.05), or an
   absolute value: IOPS for iops and iops_slope (a decimal), bytes per
   second for bw and bw_slope (a size, like 10m).  Returns 0, or -1 with
   the error set. */
static int
s_parse_steadystate (parser_t *p, int line, const char *key, const char *value,
                     job_t *job)
{
    const char *colon = strchr (value, ':');
    size_t clen = colon ? (size_t) (colon - value) : strlen (value);
    int mode = -1;
    for (size_t i = 0; i < NELEM (s_ss_modes); i++)
        if (strlen (s_ss_modes[i].name) == clen
        &&  strncmp (s_ss_modes[i].name, value, clen) == 0)
            mode = (int) i;
    if (mode < 0) {
        if ((clen == 3 && strncmp (value, "lat", 3) == 0)
        ||  (clen == 9 && strncmp (value, "lat_slope", 9) == 0))
            s_error (p, line, "%s criterion '%.*s' is not supported by iofleet yet "
                     "(supported: " SS_SUPPORTED ")", key, (int) clen, value);
        else
            s_error (p, line, "%s='%.*s' is not an fio steady state criterion "
                     "(supported: " SS_SUPPORTED ")", key, SHOW, value);
        return -1;
    }
    if (!colon || colon[1] == '\0') {
        s_error (p, line, "%s=%.*s needs a limit after the criterion (like "
                 "iops_slope:0.1%% or iops:5%%)", key, SHOW, value);
        return -1;
    }
    job_ss_t ss = s_ss_modes[mode].mode;
    const char *limit = colon + 1;
    size_t len = strlen (limit);
    double v;
    bool pct = limit[len - 1] == '%';
    if (pct) {
        char num[72];
        bool ok = len - 1 < sizeof (num);
        if (ok) {
            memcpy (num, limit, len - 1);
            num[len - 1] = '\0';
            ok = s_parse_decimal (num, &v) == 0;
        }
        if (!ok) {
            s_error (p, line, "%s=%.*s: '%.*s' is not a percentage (like 0.1%%)",
                     key, SHOW, value, SHOW, limit);
            return -1;
        }
        if (v > 100) {
            s_error (p, line, "%s=%.*s: %.*s is out of range (allowed: 0%%..100%%)",
                     key, SHOW, value, SHOW, limit);
            return -1;
        }
        v /= 100;
    }
    else if (ss == JOB_SS_IOPS || ss == JOB_SS_IOPS_SLOPE) {
        if (s_parse_decimal (limit, &v)) {
            s_error (p, line, "%s=%.*s: '%.*s' is not a number of IOPS (like 500) or a "
                     "percentage (like 5%%)", key, SHOW, value, SHOW, limit);
            return -1;
        }
    }
    else {
        uint64_t bytes;
        int rc = job_parse_size (limit, &bytes);
        if (rc == -EINVAL) {
            s_error (p, line, "%s=%.*s: '%.*s' is not a rate in bytes/s (like 10m) or a "
                     "percentage (like 5%%)", key, SHOW, value, SHOW, limit);
            return -1;
        }
        if (rc != 0) {
            s_error (p, line, "%s=%.*s: %.*s is out of range (allowed: below 16 EiB/s)",
                     key, SHOW, value, SHOW, limit);
            return -1;
        }
        v = (double) bytes;
    }
    if (!(v < JOB_MAX_SS_LIMIT)) {
        s_error (p, line, "%s=%.*s: %.*s is out of range (allowed: below 1e18)",
                 key, SHOW, value, SHOW, limit);
        return -1;
    }
    job->ss = ss;
    job->ss_limit = v;
    job->ss_pct = pct;
    return 0;
}

/* Paths go to the agents in PREPARE, whose validation refuses control
   characters (message.c); refuse them here, where the line is known.
   Returns 0, or -1 with the error set. */
static int
s_check_path_text (parser_t *p, int line, const char *key, const char *value)
{
    for (const char *c = value; *c; c++)
        if ((unsigned char) *c < 0x20 || *c == 0x7f) {
            s_error (p, line, "%s holds control character 0x%02x at byte %zu", key,
                     (unsigned char) *c, (size_t) (c - value) + 1);
            return -1;
        }
    return 0;
}

/* True when path has a ".." component.  Can't fail. */
static bool
s_has_dotdot (const char *path)
{
    for (const char *c = path;; ) {
        size_t n = strcspn (c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.')
            return true;
        if (c[n] == '\0')
            return false;
        c += n + 1;
    }
}

/* Parses the path (or prefix) of a log an agent writes (write_lat_log,
   write_iolog) into out, JOB_LATLOG_MAX bytes.  A relative one is written
   inside the agent's --workdir: one that climbs out with '..' could only be
   refused there, at run time, so it is refused here.  Returns 0, or -1 with
   the error set. */
static int
s_parse_log_path (parser_t *p, int line, const char *key, const char *value, const char *noun,
                  const char *what, char *out)
{
    size_t len = strlen (value);
    if (len > JOB_LATLOG_MAX - 1) {
        s_error (p, line, "%s is %zu bytes long (the limit is %d)", key, len, JOB_LATLOG_MAX - 1);
        return -1;
    }
    if (s_check_path_text (p, line, key, value))
        return -1;
    if (value[0] != '/' && s_has_dotdot (value)) {
        s_error (p, line, "%s=%.*s: a relative %s may not contain '..' (agents write %s "
                 "inside their --workdir); use an absolute path", key, SHOW, value, noun, what);
        return -1;
    }
    memcpy (out, value, len + 1);
    return 0;
}

/* Applies one supported option to o.  value is NULL for a bare key.
   Returns 0, or -1 with the error set. */
static int
s_apply (parser_t *p, int line, bool in_global, opts_t *o, int idx,
         const char *key, const char *value)
{
    job_t *job = &o->job;
    uint64_t v;
    bool b;

    if (!value) {
        /* Only fio's "set" options get here (checked by the caller). */
        value = "1";
    }
    opt_id_t id = s_options[idx].id;
    switch (id) {
    case OPT_IOENGINE:
        if (job_engine_known (value)) {
            strcpy (job->ioengine, value);
            return 0;
        }
        if (s_in_list (value, s_fio_engines, NELEM (s_fio_engines))
        ||  strncmp (value, "external:", 9) == 0 || strchr (value, '/'))
            s_error (p, line, "ioengine '%.*s' is not supported by iofleet yet (supported: "
                     JOB_ENGINES ")", SHOW, value);
        else
            s_error (p, line, "ioengine '%.*s' is not an fio ioengine (supported: "
                     JOB_ENGINES ")", SHOW, value);
        return -1;

    case OPT_DIRECT:
    case OPT_BUFFERED:
        if (s_parse_bool (p, line, key, value, &b))
            return -1;
        job->direct = id == OPT_DIRECT ? b : !b;
        o->direct_line = line;
        return 0;

    case OPT_RW: {
        /* fio has no ',' in rw: a list is a sweep. */
        if (strchr (value, ',')) {
            if (s_parse_sweep (p, line, key, value, SWEEP_RW, &o->sweep_rw))
                return -1;
            job->rw = (job_rw_t) o->sweep_rw.v[0];
            return 0;
        }
        job_rw_t m;
        uint64_t mod;
        if (s_parse_rw_mode (p, line, key, value, value, &m, &mod))
            return -1;
        job->rw = m;
        /* ':SIZE' skips on sequential modes; ':N' counts on random ones. */
        bool random = m == JOB_RW_RANDREAD || m == JOB_RW_RANDWRITE || m == JOB_RW_RANDRW;
        job->rw_skip = random ? 0 : mod;
        job->rw_seq_nr = random ? (uint32_t) mod : 0;
        o->sweep_rw.n = 0;
        o->rw_line = line;
        return 0;
    }

    case OPT_RWMIXREAD:
    case OPT_RWMIXWRITE:
        if (s_parse_uint (p, line, key, value, 0, 100, &v))
            return -1;
        /* fio: when both are given, the later one wins. */
        job->rwmixread = id == OPT_RWMIXREAD ? (uint32_t) v : (uint32_t) (100 - v);
        return 0;

    case OPT_BS:
    case OPT_BLOCKALIGN:
    case OPT_PERC_RANDOM:
    case OPT_RATE_MIN:
    case OPT_RATE_IOPS_MIN:
    case OPT_BSRANGE:
    case OPT_BSSPLIT:
    case OPT_RATE_IOPS:
    case OPT_RATE:
        return s_parse_per_dir (p, line, o, id, key, value);

    case OPT_IODEPTH:
        if (strchr (value, ',')) {
            if (s_parse_sweep (p, line, key, value, SWEEP_IODEPTH, &o->sweep_iodepth))
                return -1;
            job->iodepth = o->sweep_iodepth.v[0];
            return 0;
        }
        if (s_parse_uint (p, line, key, value, 1, JOB_MAX_IODEPTH, &v))
            return -1;
        job->iodepth = (uint32_t) v;
        o->sweep_iodepth.n = 0;
        return 0;

    case OPT_BATCH_SUBMIT:
        /* 0 is fio's "the iodepth", resolved at the end of the job. */
        if (s_parse_uint (p, line, key, value, 0, JOB_MAX_IODEPTH, &v))
            return -1;
        job->iodepth_batch_submit = (uint32_t) v;
        o->batch_submit_line = line;
        o->batch_submit_key = s_options[idx].name;
        return 0;

    case OPT_BATCH_COMPLETE:
        /* 0 is fio's "poll: do not wait for a completion". */
        if (s_parse_uint (p, line, key, value, 0, JOB_MAX_IODEPTH, &v))
            return -1;
        job->iodepth_batch_complete_min = (uint32_t) v;
        o->batch_complete_line = line;
        o->batch_complete_key = s_options[idx].name;
        return 0;

    case OPT_SLA: {
        /* iofleet's own option: service-level conditions (common/sla.h). */
        sla_t sla;
        char why[256];
        if (strlen (value) >= sizeof job->sla || sla_parse (value, &sla, why, sizeof why)) {
            s_error (p, line, "iofleet_sla: %s", strlen (value) >= sizeof job->sla
                     ? "longer than 511 characters" : why);
            return -1;
        }
        memcpy (job->sla, value, strlen (value) + 1);
        return 0;
    }

    case OPT_NUMJOBS:
        if (s_parse_uint (p, line, key, value, 1, JOB_MAX_NUMJOBS, &v))
            return -1;
        job->numjobs = (uint32_t) v;
        o->numjobs_line = line;
        return 0;

    case OPT_SIZE:
        return s_parse_size_or_pct (p, line, key, value, 1, 100,
                                    &job->size, &job->size_pct);

    case OPT_OFFSET:
        return s_parse_size_or_pct (p, line, key, value, 0, 99,
                                    &job->offset, &job->offset_pct);

    case OPT_FILENAME: {
        size_t len = strlen (value);
        if (len > JOB_FILENAME_MAX - 1) {
            s_error (p, line, "%s is %zu bytes long (the limit is %d)",
                     key, len, JOB_FILENAME_MAX - 1);
            return -1;
        }
        if (s_check_path_text (p, line, key, value))
            return -1;
        /* Empty names between ':'s are skipped; a list of nothing else
           would leave the job without a target. */
        if (len && strspn (value, ":") == len) {
            s_error (p, line, "%s=%.*s names no file", key, SHOW, value);
            return -1;
        }
        memcpy (job->filename, value, len + 1);
        return 0;
    }

    case OPT_EXITALL:
        return s_parse_bool (p, line, key, value, &job->exitall);

    case OPT_EXIT_WHAT:
        /* Measured on fio 3.33 with exitall, [a] 1 s, [b] 3 s, then [c]
           after a stonewall: group and stonewall stop b when a ends and
           still run c; all runs nothing more (c 0 I/Os). */
        if (strcmp (value, "group") && strcmp (value, "stonewall") && strcmp (value, "all")) {
            s_error (p, line, "exit_what=%.*s is not one of fio's: group, stonewall, all", SHOW,
                     value);
            return -1;
        }
        job->exit_what_all = strcmp (value, "all") == 0;
        return 0;

    case OPT_SUBMIT_MODE:
        /* inline (fio's default) is how iofleet submits; offload hands
           submission to a pool of fio threads. */
        if (strcmp (value, "inline") == 0)
            return 0;
        s_error (p, line, "io_submit_mode=%.*s: %s", SHOW, value, strcmp (value, "offload") == 0
                 ? "offloaded submission is not supported by iofleet yet (inline is)"
                 : "not one of fio's: inline, offload");
        return -1;

    case OPT_CREATE_SERIALIZE:
        /* fio lays files out one at a time (1, its default) or together:
           the same files and I/O either way, and iofleet lays them out
           one at a time. */
        return s_parse_bool (p, line, key, value, &b);

    case OPT_REFILL:
        return s_parse_bool (p, line, key, value, &job->refill_buffers);

    case OPT_SCRAMBLE:
        return s_parse_bool (p, line, key, value, &job->scramble_buffers);

    case OPT_WRITE_IOLOG:
        if (s_parse_log_path (p, line, key, value, "path", "it", job->write_iolog))
            return -1;
        o->iolog_line = line;
        return 0;

    case OPT_READ_IOLOG:
        if (s_parse_log_path (p, line, key, value, "path", "it", job->read_iolog))
            return -1;
        o->read_iolog_line = line;
        return 0;

    case OPT_REPLAY_NO_STALL:
        return s_parse_bool (p, line, key, value, &job->replay_no_stall);

    case OPT_REPLAY_REDIRECT:
        return s_parse_log_path (p, line, key, value, "path", "the replay",
                                 job->replay_redirect);

    case OPT_REPLAY_TIME_SCALE:
        /* fio: percent of the logged pace (200 replays twice as fast). */
        if (s_parse_uint (p, line, key, value, 1, 1000000, &v))
            return -1;
        job->replay_time_scale = (uint32_t) v;
        return 0;

    case OPT_REPLAY_ALIGN:
        if (s_parse_uint (p, line, key, value, 1, JOB_MAX_BS, &v))
            return -1;
        if (v & (v - 1)) {
            s_error (p, line, "%s=%.*s is not a power of 2 (fio masks offsets with it)", key,
                     SHOW, value);
            return -1;
        }
        job->replay_align = (uint32_t) v;
        return 0;

    case OPT_REPLAY_SCALE:
        if (s_parse_uint (p, line, key, value, 1, UINT32_MAX, &v))
            return -1;
        job->replay_scale = (uint32_t) v;
        return 0;

    case OPT_LAT_LOG:
        return s_parse_log_path (p, line, key, value, "prefix", "the logs", job->write_lat_log);

    case OPT_RATE_CYCLE:
        if (s_parse_uint (p, line, key, value, 1, 3600000, &v))
            return -1;
        job->rate_cycle_ms = (uint32_t) v;
        return 0;

    case OPT_BS_UNALIGNED:
        return s_parse_bool (p, line, key, value, &job->bs_unaligned);

    case OPT_INVALIDATE:
        if (s_parse_bool (p, line, key, value, &b))
            return -1;
        job->no_invalidate = !b;
        return 0;

    case OPT_FADVISE: {
        /* fio's values: 0 none, 1 by the job's pattern (default), or one. */
        static const char *const hints[] = { "1", "0", "sequential", "random" };
        for (int k = 0; k < 4; k++)
            if (strcmp (value, hints[k]) == 0) {
                job->fadvise = (job_fadvise_t) k;
                return 0;
            }
        s_error (p, line, "fadvise_hint=%.*s is not one of fio's: 0, 1, sequential, random", SHOW,
                 value);
        return -1;
    }

    case OPT_BW_LOG:
        return s_parse_log_path (p, line, key, value, "prefix", "the logs", job->write_bw_log);

    case OPT_IOPS_LOG:
        return s_parse_log_path (p, line, key, value, "prefix", "the logs", job->write_iops_log);

    case OPT_RUNTIME:
        return s_parse_duration (p, line, key, value, &job->runtime_ns);

    case OPT_RAMP_TIME:
        return s_parse_duration_upto (p, line, key, value, JOB_MAX_DELAY_S, "1 hour",
                                      &job->ramp_time_ns);

    case OPT_STARTDELAY:
        /* fio reads "startdelay=10-20" (or 10:20, 10,20) as a range to
           pick a random delay from. */
        if (strpbrk (value, ",:") || (value[0] && strchr (value + 1, '-'))) {
            s_error (p, line, "%s=%.*s: fio's random start delay range is not supported "
                     "by iofleet yet", key, SHOW, value);
            return -1;
        }
        return s_parse_duration_upto (p, line, key, value, JOB_MAX_DELAY_S, "1 hour",
                                      &job->startdelay_ns);

    case OPT_LAT_TARGET:
        return s_parse_usec_time (p, line, key, value, &job->latency_target_ns);

    case OPT_LAT_WINDOW:
        return s_parse_usec_time (p, line, key, value, &job->latency_window_ns);

    case OPT_LAT_PCT: {
        double v;
        if (s_parse_decimal (value, &v) || v > 100) {
            s_error (p, line, "%s=%.*s is not a percentage 0..100", key, SHOW, value);
            return -1;
        }
        job->latency_percentile = v;
        return 0;
    }

    case OPT_LAT_RUN:
        return s_parse_bool (p, line, key, value, &job->latency_run);

    case OPT_THINKTIME:
        return s_parse_usec_time (p, line, key, value, &job->thinktime_ns);

    case OPT_RANDREPEAT:
        return s_parse_bool (p, line, key, value, &job->randrepeat);

    case OPT_RANDSEED:
        if (s_parse_uint (p, line, key, value, 0, UINT64_MAX, &v))
            return -1;
        job->randseed = v;
        job->randseed_set = true;
        return 0;

    case OPT_NORANDOMMAP:
        return s_parse_bool (p, line, key, value, &job->norandommap);

    case OPT_RANDOM_DIST:
        return s_parse_distribution (p, line, key, value, job);

    case OPT_PERCENTILES:
        return s_parse_percentiles (p, line, key, value, job);

    case OPT_CPUS: {
        size_t len = strlen (value);
        if (len > JOB_CPUS_MAX - 1) {
            s_error (p, line, "%s is %zu bytes long (the limit is %d)",
                     key, len, JOB_CPUS_MAX - 1);
            return -1;
        }
        uint64_t mask[JOB_CPUS_MAX / 64];
        const char *bad;
        size_t badlen;
        int rc = s_cpus_parse (value, mask, &bad, &badlen);
        if (rc == -ERANGE) {
            s_error (p, line, "%s=%.*s: CPU %.*s is out of range (allowed: 0..%d)",
                     key, SHOW, value, (int) (badlen < 24 ? badlen : 24), bad, JOB_CPUS_MAX - 1);
            return -1;
        }
        if (rc == -EDOM) {
            s_error (p, line, "%s=%.*s: the CPU range %.*s goes backwards",
                     key, SHOW, value, (int) (badlen < 48 ? badlen : 48), bad);
            return -1;
        }
        if (rc != 0) {
            s_error (p, line, "%s='%.*s' is not a list of CPUs (like 0-3,8,10-11)",
                     key, SHOW, value);
            return -1;
        }
        memcpy (job->cpus_allowed, value, len + 1);
        return 0;
    }

    case OPT_TIME_BASED:
        if (s_parse_bool (p, line, key, value, &job->time_based))
            return -1;
        o->time_based_line = line;
        return 0;

    case OPT_GROUP_REPORTING:
        return s_parse_bool (p, line, key, value, &job->group_reporting);

    case OPT_STONEWALL:
        return s_parse_bool (p, line, key, value, &job->stonewall);

    case OPT_NEW_GROUP:
        return s_parse_bool (p, line, key, value, &job->new_group);

    case OPT_SS:
        if (s_parse_steadystate (p, line, key, value, job))
            return -1;
        o->ss_line = line;
        o->ss_key = s_options[idx].name;
        return 0;

    case OPT_SS_DUR: {
        uint64_t ns;
        if (s_parse_seconds (p, line, key, value, &ns))
            return -1;
        if (ns == 1000000000u) {
            s_error (p, line, "%s=%.*s is too short (allowed: 0 (off), or from 2s: a slope "
                     "needs two samples)", key, SHOW, value);
            return -1;
        }
        job->ss_dur_ns = ns;
        return 0;
    }

    case OPT_SS_RAMP:
        return s_parse_seconds (p, line, key, value, &job->ss_ramp_ns);

    case OPT_COMPRESS:
        if (s_parse_uint (p, line, key, value, 0, 100, &v))
            return -1;
        job->buffer_compress_percentage = (uint32_t) v;
        return 0;

    case OPT_ZERO_BUFFERS:
        return s_parse_bool (p, line, key, value, &job->zero_buffers);

    case OPT_NAME:
        /* fio: every job section names its job, so a name= in [global] is
           overridden by each section's (its JSON shows the section names). */
        if (s_check_name (p, line, "job name", value))
            return -1;
        if (in_global)
            return 0;
        strcpy (job->name, value);
        return 0;

    case OPT_DESCRIPTION:
        /* fio prints it; it changes no I/O. */
        return 0;

    case OPT_THREAD:
        /* fio's threads instead of processes: iofleet's workers are always
           threads, and the I/O is the same. */
        return s_parse_bool (p, line, key, value, &b);

    case OPT_GTOD_REDUCE:
        /* fio stops timing each I/O (its latency figures read 0) to save
           clock calls; iofleet always times them, as its histograms,
           outliers and SLAs are built from latency, and the I/O issued is
           the same (docs/conformance.md). */
        return s_parse_bool (p, line, key, value, &b);

    case OPT_LOG_OFFSET:
        return s_parse_bool (p, line, key, value, &job->log_offset);

    case OPT_LOG_AVG:
        /* 0, fio's default, logs every I/O, as write_lat_log does here. */
        if (s_parse_uint (p, line, key, value, 0, UINT32_MAX, &v))
            return -1;
        if (v != 0) {
            s_error (p, line, "%s=%.*s: averaged latency logs are not supported by iofleet yet "
                     "(0, fio's default, logs every I/O)", key, SHOW, value);
            return -1;
        }
        return 0;

    case OPT_IO_SIZE:
        return s_parse_bytes (p, line, key, value, 1, UINT64_MAX >> 1, &job->io_size);

    case OPT_NUMBER_IOS:
        return s_parse_uint (p, line, key, value, 0, UINT64_MAX >> 1, &job->number_ios);

    case OPT_LOOPS:
        if (s_parse_uint (p, line, key, value, 1, JOB_MAX_LOOPS, &v))
            return -1;
        job->loops = (uint32_t) v;
        o->loops_line = line;
        return 0;

    case OPT_OFFSET_INC:
        return s_parse_bytes (p, line, key, value, 0, JOB_MAX_OFFSET_INC, &job->offset_increment);

    case OPT_VERIFY: {
        static const struct { const char *name; job_verify_t kind; } kinds[] = {
            { "0", JOB_VERIFY_NONE }, { "crc32c", JOB_VERIFY_CRC32C },
            { "crc32c-intel", JOB_VERIFY_CRC32C }, { "md5", JOB_VERIFY_MD5 },
        };
        static const char *const fio_kinds[] = {
            "crc16", "crc32", "crc64", "crc7", "meta", "null", "pattern", "sha1", "sha256",
            "sha3-224", "sha3-256", "sha3-384", "sha3-512", "sha512", "xxhash",
        };
        for (size_t i = 0; i < NELEM (kinds); i++)
            if (strcmp (value, kinds[i].name) == 0) {
                job->verify = kinds[i].kind;
                o->verify_line = line;
                return 0;
            }
        s_error (p, line, "verify=%.*s %s (supported: crc32c, crc32c-intel, md5, 0)", SHOW, value,
                 s_in_list (value, fio_kinds, NELEM (fio_kinds))
                     ? "is not supported by iofleet yet" : "is not an fio verify method");
        return -1;
    }

    case OPT_DO_VERIFY:
        return s_parse_bool (p, line, key, value, &job->do_verify);

    case OPT_VERIFY_BACKLOG:
        if (s_parse_uint (p, line, key, value, 0, JOB_MAX_VERIFY_BACKLOG, &v))
            return -1;
        job->verify_backlog = (uint32_t) v;
        return 0;

    case OPT_VERIFY_FATAL:
        return s_parse_bool (p, line, key, value, &job->verify_fatal);

    case OPT_VERIFY_ONLY:
        return s_parse_bool (p, line, key, value, &job->verify_only);

    case OPT_NRFILES:
        if (s_parse_uint (p, line, key, value, 1, JOB_MAX_OWN_FILES, &v))
            return -1;
        job->nrfiles = (uint32_t) v;
        o->nrfiles_line = line;
        return 0;

    case OPT_FILESIZE:
        if (strchr (value + 1, '-') || strchr (value, ':') || strchr (value, '%')) {
            s_error (p, line, "%s=%.*s: a range or percentage is not supported by iofleet yet; "
                     "give one size", key, SHOW, value);
            return -1;
        }
        return s_parse_uint (p, line, key, value, 1, UINT64_MAX >> 1, &job->filesize);

    case OPT_DIRECTORY: {
        size_t len = strlen (value);
        if (len > JOB_DIRECTORY_MAX - 1) {
            s_error (p, line, "%s is %zu bytes long (the limit is %d)", key, len,
                     JOB_DIRECTORY_MAX - 1);
            return -1;
        }
        if (s_check_path_text (p, line, key, value))
            return -1;
        if (strchr (value, ':')) {
            s_error (p, line, "%s=%.*s: fio's list of directories is not supported by iofleet "
                     "yet; give one", key, SHOW, value);
            return -1;
        }
        memcpy (job->directory, value, len + 1);
        /* One trailing '/' is the directory itself. */
        if (len > 1 && job->directory[len - 1] == '/')
            job->directory[len - 1] = '\0';
        return 0;
    }

    case OPT_RANDOM_GEN:
        /* iofleet's order is its own generator's whichever fio names (the
           conformance suite compares coverage, not order); what lfsr
           changes is that no block repeats in a pass, norandommap or not. */
        if (strcmp (value, "tausworthe") && strcmp (value, "tausworthe64")
            && strcmp (value, "lfsr")) {
            s_error (p, line, "random_generator=%.*s is not an fio random generator (fio's: "
                     "tausworthe, lfsr, tausworthe64)", SHOW, value);
            return -1;
        }
        job->lfsr = strcmp (value, "lfsr") == 0;
        return 0;

    case OPT_RATE_PROCESS:
        if (strcmp (value, "linear") && strcmp (value, "poisson")) {
            s_error (p, line, "rate_process=%.*s is not an fio rate process (fio's: linear, "
                     "poisson)", SHOW, value);
            return -1;
        }
        job->rate_poisson = strcmp (value, "poisson") == 0;
        return 0;
    }
    s_error (p, line, "internal error: option '%s' has no handler", key);
    return -1;
}

/* Handles one "key=value" or bare "key" line of a section.  Returns 0, or
   -1 with the error set. */
static int
s_option_line (parser_t *p, int line, bool in_global, opts_t *o, char *s)
{
    char *value = NULL;
    char *eq = strchr (s, '=');
    if (eq) {
        *eq = '\0';
        value = s_trim (eq + 1);
    }
    char *key = s_trim (s);
    if (*key == '\0') {
        s_error (p, line, "'=%.*s' has no option name", SHOW, value);
        return -1;
    }
    if (strncmp (key, "include", 7) == 0 && (key[7] == '\0' || s_is_blank (key[7]))) {
        s_error (p, line, "fio's 'include' directive is not supported by iofleet yet");
        return -1;
    }
    int idx = s_find_option (key);
    if (idx < 0) {
        if (s_is_fio_only (key)) {
            s_error (p, line, "fio option '%s' is not supported by iofleet yet", key);
            return -1;
        }
        char lower[64];
        size_t len = strlen (key);
        if (len < sizeof (lower)) {
            for (size_t i = 0; i <= len; i++)
                lower[i] = s_lower (key[i]);
            if (strcmp (lower, key) != 0
            && (s_find_option (lower) >= 0 || s_is_fio_only (lower))) {
                s_error (p, line, "unknown option '%s' (fio option names are case-sensitive: '%s')",
                         key, lower);
                return -1;
            }
        }
        s_error (p, line, "unknown option '%.*s'", SHOW, key);
        return -1;
    }
    if (!value && !s_options[idx].bare) {
        s_error (p, line, "option '%s' needs a value", key);
        return -1;
    }
    if (value && *value == '\0') {
        s_error (p, line, "option '%s' needs a value", key);
        return -1;
    }
    if (value && (strstr (value, "${") || strstr (value, "$pagesize")
              ||  strstr (value, "$mb_memory") || strstr (value, "$ncpus"))) {
        s_error (p, line, "%s=%.*s: fio's $ substitutions are not supported by iofleet yet",
                 key, SHOW, value);
        return -1;
    }
    if (value && value[0] == '(') {
        s_error (p, line, "%s=%.*s: fio's arithmetic expressions are not supported by iofleet yet",
                 key, SHOW, value);
        return -1;
    }
    return s_apply (p, line, in_global, o, idx, key, value);
}


/* Reports a block size that direct=1 cannot issue: "WHAT SIZE[ (DIR)] is
   not a multiple of 512, ...", naming the direction only when the two
   directions differ.  Can't fail. */
static void
s_align_error (parser_t *p, int line, const opts_t *o, const char *what,
               uint32_t size, int dir, bool dirs_differ)
{
    s_error (p, line, "%s%u%s%s%s is not a multiple of 512, which direct=1 (line %d) "
             "needs (job '%s')", what, size, dirs_differ ? " (" : "",
             dirs_differ ? s_dir_name[dir] : "", dirs_differ ? ")" : "",
             o->direct_line, o->job.name);
}

/* With direct=1, every block size the job can issue must be a multiple
   of 512: bs, both bounds of bsrange and every bssplit size, in both
   directions.  Returns 0, or -1 with the error set at the line of the
   option to fix. */
static int
s_check_alignment (parser_t *p, const opts_t *o)
{
    const job_t *job = &o->job;
    if (!job->direct)
        return 0;
    bool bs_differ = job->bs[0] != job->bs[1];
    bool range_differ = job->bsrange_min[0] != job->bsrange_min[1]
                     || job->bsrange_max[0] != job->bsrange_max[1];
    bool split_differ = job->nbssplit[0] != job->nbssplit[1]
                     || memcmp (job->bssplit[0], job->bssplit[1],
                                (size_t) job->nbssplit[0] * sizeof (job_bssplit_t)) != 0;
    for (int d = 0; d < 2; d++) {
        if (job->bs[d] % 512 != 0) {
            s_align_error (p, o->bs_line[d], o, "bs=", job->bs[d], d, bs_differ);
            return -1;
        }
    }
    for (int d = 0; d < 2; d++) {
        uint32_t bound = job->bsrange_min[d] % 512 ? job->bsrange_min[d]
                       : job->bsrange_max[d] % 512 ? job->bsrange_max[d] : 0;
        if (bound) {
            s_align_error (p, o->bsrange_line[d], o, "bsrange bound ", bound, d,
                           range_differ);
            return -1;
        }
    }
    for (int d = 0; d < 2; d++) {
        for (int i = 0; i < job->nbssplit[d]; i++) {
            if (job->bssplit[d][i].bs % 512 != 0) {
                s_align_error (p, o->bssplit_line[d], o, "bssplit size ",
                               job->bssplit[d][i].bs, d, split_differ);
                return -1;
            }
        }
    }
    return 0;
}

/* verify= on a job iofleet cannot verify as fio does: one that writes
   nothing, or whose writes may overlap (fio sorts and trims those before it
   reads them back), or whose directions a rate decides.  Returns 0, or -1
   with the error set at the verify= line. */
static int
s_verify_refused (parser_t *p, const opts_t *o)
{
    const job_t *job = &o->job;
    const char *why = NULL;
    if (job_rw_trims (job->rw))
        why = "reading back what trims left (fio's trim_verify_zero, trim_backlog) is not "
              "supported by iofleet yet";
    else if (job->rw == JOB_RW_READ || job->rw == JOB_RW_RANDREAD
        || ((job->rw == JOB_RW_RW || job->rw == JOB_RW_RANDRW) && job->rwmixread == 100))
        why = "the job writes nothing to verify (verify_only=1 on the writing job reads back "
              "what an earlier run of it wrote)";
    else if ((job->rw == JOB_RW_RANDWRITE || job->rw == JOB_RW_RANDRW)
             && (job->norandommap || job->dist.kind != JOB_DIST_RANDOM || job->blockalign[1]
                 || job->rw_seq_nr > 1 || job->perc_random[1] < 100))
        why = "with norandommap, blockalign or a non-uniform random_distribution writes overlap, "
              "which fio "
              "sorts and trims before reading back and iofleet does not yet";
    else if ((job->rw == JOB_RW_RW || job->rw == JOB_RW_RANDRW)
             && (job->rate_iops[0] || job->rate_iops[1] || job->rate[0] || job->rate[1]))
        why = "rate_iops on a mixed job decides each I/O's direction by the clock, so the "
              "writes cannot be replayed for reading back";
    if (!why && job->numjobs > 1 && job->filename[0] && !job->offset_increment)
        why = "its numjobs copies write the same blocks of the same files, so a copy would "
              "read back another's data; give offset_increment= (regions of their own), or "
              "no filename= (files of their own)";
    /* The header (agent/verify.h) must fit in the smallest write. */
    uint32_t least = job->bs[1];
    if (job->bsrange_min[1] && job->bsrange_min[1] < least)
        least = job->bsrange_min[1];
    for (int i = 0; i < job->nbssplit[1]; i++)
        if (job->bssplit[1][i].bs < least)
            least = job->bssplit[1][i].bs;
    char small[96];
    if (!why && least < JOB_VERIFY_HEADER) {
        snprintf (small, sizeof small, "writes of %u bytes cannot hold its %d-byte header",
                  least, JOB_VERIFY_HEADER);
        why = small;
    }
    if (!why)
        return 0;
    s_error (p, o->verify_line, "verify=%s on job '%s': %s",
             job->verify == JOB_VERIFY_MD5 ? "md5" : "crc32c", job->name, why);
    return -1;
}

/* The checks and fio defaults that need a job's final options (direct
   may come after bs, iodepth after iodepth_batch, and any of them from a
   [global]).  Returns 0, or -1 with the error set at the line of the
   option to fix. */
static int
s_finish_job (parser_t *p, opts_t *o)
{
    job_t *job = &o->job;
    if (job->time_based && job->runtime_ns == 0) {
        s_error (p, o->time_based_line, "time_based needs runtime= (job '%s' has none)",
                 job->name);
        return -1;
    }
    if (s_check_alignment (p, o))
        return -1;
    /* Without filename= the target is named after the job (jobspec.c), and
       a name of nothing but ':'s names no file. */
    const char *dflt = job->sweep_of[0] ? job->sweep_of : job->name;
    if (!job->filename[0] && strspn (dflt, ":") == strlen (dflt)) {
        s_error (p, job->line, "job '%s' has no filename= and its name names no file; "
                 "add filename=", dflt);
        return -1;
    }
    /* Without filename= each worker gets a file of its own (jobspec.c), and
       a job's files go to an agent as its targets. */
    uint64_t nown = (uint64_t) job->numjobs * job->nrfiles;
    if (!job->filename[0] && nown > JOB_MAX_OWN_FILES) {
        s_error (p, job->nrfiles > 1 && o->nrfiles_line > o->numjobs_line ? o->nrfiles_line
                                                                          : o->numjobs_line,
                 "numjobs=%u with nrfiles=%u without filename= makes %llu files, as fio does "
                 "(%s.0.0, %s.0.1, ...); the limit is %d: give filename=", job->numjobs,
                 job->nrfiles, (unsigned long long) nown, dflt, dflt, JOB_MAX_OWN_FILES);
        return -1;
    }
    /* fio 3.33 with both: loops=2 io_size=384k size=256k issued 8 64k reads,
       neither 2 x 6 (io_size a loop) nor 6 (io_size in all). */
    if (job->loops > 1 && job->io_size) {
        s_error (p, o->loops_line, "loops=%u with io_size=: fio's result for the two together "
                 "matches neither (job '%s'); use one of them", job->loops, job->name);
        return -1;
    }
    /* latency_target: fio's search, one per job copy. */
    if (job->latency_target_ns) {
        const char *why = NULL;
        if (job->numjobs > 1)
            why = "each numjobs copy would search a depth of its own (and fio 3.33 scales the "
                  "target of copies after the first by 1000 again); give numjobs=1";
        else if (!job->latency_window_ns)
            why = "without latency_window every loop of fio's is a window of one I/O; give "
                  "latency_window= (like 200ms)";
        else if (job->verify != JOB_VERIFY_NONE || job->read_iolog[0])
            why = "a search of depths with verify= or read_iolog= is not supported";
        if (why) {
            s_error (p, job->line, "latency_target (job '%s'): %s", job->name, why);
            return -1;
        }
    }
    /* read_iolog: the log says where and what; fio ignores filename= and
       rw=, and each numjobs copy would replay all of it again. */
    if (job->read_iolog[0]) {
        const char *why = NULL;
        if (job->filename[0] && !job->replay_redirect[0])
            why = "it replays on the files the log names, and fio ignores filename=: remove "
                  "filename=, or give replay_redirect=PATH to send the whole log to PATH";
        else if (job->numjobs > 1)
            why = "each numjobs copy would replay the whole log again; give numjobs=1";
        else if (job->verify != JOB_VERIFY_NONE)
            why = "verify= reads back a job's own writes, and a replay writes the log's";
        else if (job->write_iolog[0] && strcmp (job->write_iolog, job->read_iolog) == 0)
            why = "write_iolog names the same file: the replay would append to the log it reads";
        if (why) {
            s_error (p, o->read_iolog_line, "read_iolog=%s (job '%s'): %s", job->read_iolog,
                     job->name, why);
            return -1;
        }
    }
    /* fio 3.33's copies write one iolog over each other (seen: a truncated
       log); one log names one worker's I/O. */
    if (job->write_iolog[0] && job->numjobs > 1) {
        s_error (p, o->iolog_line, "write_iolog with numjobs=%u (job '%s'): fio's copies "
                 "write the one log over each other; give each its own job section, or "
                 "numjobs=1", job->numjobs, job->name);
        return -1;
    }
    /* fio: "This typically won't work with direct I/O"; here it is refused. */
    if (job->bs_unaligned && job->direct) {
        s_error (p, o->direct_line ? o->direct_line : job->line, "blocksize_unaligned with "
                 "direct=1 (job '%s'): O_DIRECT takes only multiples of the device's logical "
                 "block size; give direct=0", job->name);
        return -1;
    }
    /* rw=write:SIZE: holes that keep every I/O on a block of the job's one
       size, so a pass's length is known (and O_DIRECT stays aligned). */
    if (job->rw_skip) {
        bool one = job->nbssplit[0] == 0 && job->nbssplit[1] == 0 && !job->bsrange_min[0]
                && !job->bsrange_min[1] && job->bs[0] == job->bs[1];
        if (!one || job->rw_skip % job->bs[0]) {
            s_error (p, o->rw_line, "rw=%s:%llu (job '%s'): iofleet skips whole blocks of one "
                     "size: give bs= alone (no bssplit, bsrange or per-direction sizes) and a "
                     "skip that is a multiple of it", job_rw_name (job->rw),
                     (unsigned long long) job->rw_skip, job->name);
            return -1;
        }
    }
    /* fio's LFSR visits every block once a pass without a random map. */
    if (job->lfsr)
        job->norandommap = false;
    if (job->verify != JOB_VERIFY_NONE && s_verify_refused (p, o))
        return -1;
    if (job->verify_only && job->verify == JOB_VERIFY_NONE) {
        s_error (p, job->line, "verify_only on job '%s' without verify=: nothing to check "
                 "(give the verify= its data was written with)", job->name);
        return -1;
    }
    /* fio's HOWTO: "If it is set to 0 the iodepth value will be used." */
    if (job->iodepth_batch_submit == 0)
        job->iodepth_batch_submit = job->iodepth;
    /* fio's 0 polls; iofleet never busy-polls and waits for one (README).
       Both defaults are set here only; jobspec.c and job.c assert them. */
    if (job->iodepth_batch_complete_min == 0)
        job->iodepth_batch_complete_min = 1;
    /* fio would quietly lower these to the iodepth. */
    if (job->iodepth_batch_submit > job->iodepth) {
        s_error (p, o->batch_submit_line, "%s=%u is larger than iodepth=%u (job '%s')",
                 o->batch_submit_key, job->iodepth_batch_submit, job->iodepth, job->name);
        return -1;
    }
    if (job->iodepth_batch_complete_min > job->iodepth) {
        s_error (p, o->batch_complete_line, "%s=%u is larger than iodepth=%u (job '%s')",
                 o->batch_complete_key, job->iodepth_batch_complete_min, job->iodepth,
                 job->name);
        return -1;
    }
    if (job->ss != JOB_SS_NONE && job->ss_dur_ns == 0) {
        s_error (p, o->ss_line, "%s needs ss_dur= (job '%s' has none)", o->ss_key, job->name);
        return -1;
    }
    if (job->ss == JOB_SS_NONE && job->ss_dur_ns != 0) {
        /* ss_dur= alone turns steady state on with fio's default
           criterion, steadystate=iops_slope:0.01%. */
        job->ss = JOB_SS_IOPS_SLOPE;
        job->ss_limit = 0.0001;
        job->ss_pct = true;
    }
    return 0;
}

/* Appends a finished job to *jf, growing it.  Returns 0, or -1 with the
   error set. */
static int
s_append (parser_t *p, jobfile_t **jf, int *cap, const opts_t *o)
{
    if ((*jf)->nsteps == *cap) {
        int ncap = *cap ? *cap * 2 : 8;
        if (ncap > JOB_MAX_STEPS)
            ncap = JOB_MAX_STEPS;
        jobfile_t *bigger = realloc (*jf, sizeof (jobfile_t)
                                        + (size_t) ncap * sizeof (job_t));
        if (!bigger) {
            s_error (p, 0, "out of memory");
            return -1;
        }
        *jf = bigger;
        *cap = ncap;
    }
    (*jf)->steps[(*jf)->nsteps++] = o->job;
    return 0;
}

/* Appends bs, compactly (4k, 64k, 1m; bytes when not a multiple of 1k),
   to the name being built in buf.  Can't fail (truncates). */
static void
s_name_bs (char *buf, size_t size, uint32_t bs)
{
    size_t len = strlen (buf);
    if (bs % (1u << 20) == 0)
        snprintf (buf + len, size - len, "-%um", bs >> 20);
    else if (bs % 1024 == 0)
        snprintf (buf + len, size - len, "-%uk", bs >> 10);
    else
        snprintf (buf + len, size - len, "-%u", bs);
}

/* Ends a job section: checks it and appends it to *jf, or, when it
   sweeps, appends one checked step per combination (rw outermost, then
   bs, then iodepth, in the order written).  scratch is working space.
   Returns 0, or -1 with the error set. */
static int
s_emit (parser_t *p, jobfile_t **jf, int *cap, opts_t *o, opts_t *scratch)
{
    const sweep_t *sr = &o->sweep_rw, *sb = &o->sweep_bs, *sq = &o->sweep_iodepth;
    if (!sr->n && !sb->n && !sq->n)
        return s_finish_job (p, o) || s_append (p, jf, cap, o) ? -1 : 0;
    const char *base = o->job.name;
    int nr = sr->n ? sr->n : 1, nb = sb->n ? sb->n : 1, nq = sq->n ? sq->n : 1;
    uint64_t total = (uint64_t) nr * (uint64_t) nb * (uint64_t) nq;
    int before = (*jf)->nsteps;
    if ((uint64_t) before + total > JOB_MAX_STEPS) {
        if (before == 0)
            s_error (p, o->job.line, "section '%s' would expand to %llu steps by its sweeps, "
                     "more than the limit of %d", base, (unsigned long long) total,
                     JOB_MAX_STEPS);
        else
            s_error (p, o->job.line, "section '%s' would expand to %llu steps by its sweeps, "
                     "%llu with the %d steps before it, more than the limit of %d", base,
                     (unsigned long long) total, (unsigned long long) total + (uint64_t) before,
                     before, JOB_MAX_STEPS);
        return -1;
    }
    unsigned bits = (sr->n ? JOB_SWEEP_RW : 0u) | (sb->n ? JOB_SWEEP_BS : 0u)
                  | (sq->n ? JOB_SWEEP_IODEPTH : 0u);
    for (int r = 0; r < nr; r++) {
        for (int b = 0; b < nb; b++) {
            for (int q = 0; q < nq; q++) {
                *scratch = *o;
                job_t *j = &scratch->job;
                char name[JOB_NAME_MAX + 96];
                snprintf (name, sizeof name, "%s", base);
                size_t len = strlen (name);
                if (sr->n) {
                    j->rw = (job_rw_t) sr->v[r];
                    snprintf (name + len, sizeof name - len, "-%s", job_rw_name (j->rw));
                }
                if (sb->n) {
                    j->bs[0] = j->bs[1] = sb->v[b];
                    s_name_bs (name, sizeof name, sb->v[b]);
                }
                if (sq->n) {
                    j->iodepth = sq->v[q];
                    len = strlen (name);
                    snprintf (name + len, sizeof name - len, "-qd%u", j->iodepth);
                }
                len = strlen (name);
                if (len > JOB_NAME_MAX - 1) {
                    s_error (p, o->job.line, "section '%s': the sweep step name '%s' is %zu "
                             "characters long (the limit is %d); shorten the section name",
                             base, name, len, JOB_NAME_MAX - 1);
                    return -1;
                }
                memcpy (j->name, name, len + 1);
                snprintf (j->sweep_of, sizeof j->sweep_of, "%s", base);
                j->sweep = bits;
                if (s_finish_job (p, scratch) || s_append (p, jf, cap, scratch))
                    return -1;
            }
        }
    }
    return 0;
}

/* One line of the [iofleet] section: sla=CONDITIONS. */
static int
s_iofleet_line (parser_t *p, int line, char *s, char *sla, size_t cap)
{
    char *eq = strchr (s, '=');
    if (!eq) {
        s_error (p, line, "'%.*s' in [iofleet] needs a value (sla=CONDITIONS)", SHOW, s);
        return -1;
    }
    *eq = '\0';
    char *key = s_trim (s), *value = s_trim (eq + 1);
    if (strcmp (key, "sla") != 0) {
        s_error (p, line, "unknown setting '%.*s' in [iofleet] (it takes sla=CONDITIONS; "
                 "fio options belong in [global] or a job)", SHOW, key);
        return -1;
    }
    sla_t parsed;
    char why[256];
    if (strlen (value) >= cap) {
        s_error (p, line, "[iofleet] sla: longer than %zu characters", cap - 1);
        return -1;
    }
    if (sla_parse (value, &parsed, why, sizeof why)) {
        s_error (p, line, "[iofleet] sla: %s", why);
        return -1;
    }
    memcpy (sla, value, strlen (value) + 1);
    return 0;
}

/* Parses the text (see jobfile.h).  Returns NULL with err set on error. */
jobfile_t *
jobfile_parse (const char *name, const char *text, char *err, size_t errlen)
{
    parser_t p = { name ? name : "(job file)", err, errlen };
    if (err && errlen)
        err[0] = '\0';
    if (!text) {
        s_error (&p, 0, "no job file text");
        return NULL;
    }
    if (strlen (text) > JOBFILE_MAX_BYTES) {
        s_error (&p, 0, "%zu bytes (the limit is %u)", strlen (text), JOBFILE_MAX_BYTES);
        return NULL;
    }
    /* Plans are stored and reported as JSON text: UTF-8 only. */
    long bad = utf8_invalid_at (text, strlen (text));
    if (bad >= 0) {
        int bad_line = 1;
        for (long i = 0; i < bad; i++)
            bad_line += text[i] == '\n';
        s_error (&p, bad_line, "not valid UTF-8 text (byte %ld of the file)", bad + 1);
        return NULL;
    }
    if (!s_fio_only_sorted ()) {
        s_error (&p, 0, "internal error: the table of fio options is not sorted");
        return NULL;
    }
    char *copy = strdup (text);
    jobfile_t *jf = calloc (1, sizeof (jobfile_t));
    opts_t *global = malloc (sizeof (opts_t));
    opts_t *cur = malloc (sizeof (opts_t));
    opts_t *scratch = malloc (sizeof (opts_t));
    if (!copy || !jf || !global || !cur || !scratch) {
        s_error (&p, 0, "out of memory");
        goto fail;
    }
    s_opts_default (global);

    enum { NONE, GLOBAL, JOB, IOFLEET } section = NONE;
    char plan_sla[sizeof jf->steps[0].sla] = "";
    int iofleet_line = 0;
    int cap = 0;
    int line = 0;
    char *next = copy;
    while (next) {
        char *s = next;
        char *nl = strchr (s, '\n');
        next = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        if (line < INT32_MAX)
            line++;
        if (strlen (s) > JOB_MAX_LINE) {
            s_error (&p, line, "line of %zu bytes (the limit is %d)", strlen (s), JOB_MAX_LINE);
            goto fail;
        }

        if (line == 1 && strncmp (s, "\xEF\xBB\xBF", 3) == 0) {
            s_error (&p, line, "file starts with a UTF-8 byte order mark (fio rejects it too); "
                     "save it without one");
            goto fail;
        }
        /* fio cuts every line at the first ';' or '#'. */
        s[strcspn (s, ";#")] = '\0';
        s = s_trim (s);
        if (*s == '\0')
            continue;

        if (*s == '[') {
            size_t len = strlen (s);
            if (s[len - 1] != ']') {
                s_error (&p, line, "section header '%.*s' does not end with ']'", SHOW, s);
                goto fail;
            }
            s[len - 1] = '\0';
            /* fio does not trim the name, and takes any name starting
               with "global" as a [global]; refuse every name where that
               rule and ours (exactly "global" once trimmed) disagree. */
            bool fio_global = strncmp (s + 1, "global", 6) == 0;
            char *sname = s_trim (s + 1);
            if (s_check_name (&p, line, "section name", sname))
                goto fail;
            bool is_global = strcmp (sname, "global") == 0;
            if (fio_global && !is_global) {
                s_error (&p, line, "fio would treat [%s] as a [global] section "
                         "(every name starting with 'global' is); rename it", sname);
                goto fail;
            }
            if (is_global && !fio_global) {
                s_error (&p, line, "fio would treat this as a job named '%s', not as "
                         "[global]; remove the blanks", s + 1);
                goto fail;
            }
            if (section == JOB) {
                if (s_emit (&p, &jf, &cap, cur, scratch))
                    goto fail;
            }
            if (strcmp (sname, "iofleet") == 0) {
                if (iofleet_line) {
                    s_error (&p, line, "a second [iofleet] section (the first is at line %d); "
                             "merge them", iofleet_line);
                    goto fail;
                }
                iofleet_line = line;
                section = IOFLEET;
                continue;
            }
            if (is_global) {
                /* Later [global]s change the defaults of the jobs below
                   them only, building on the earlier ones, like fio. */
                section = GLOBAL;
                continue;
            }
            if (jf->nsteps >= JOB_MAX_STEPS) {
                bool swept = false;
                for (int i = 0; i < jf->nsteps; i++)
                    swept = swept || jf->steps[i].sweep_of[0];
                if (swept)
                    s_error (&p, line, "more than %d steps (the limit is %d; each step of "
                             "a sweep counts)", JOB_MAX_STEPS, JOB_MAX_STEPS);
                else
                    s_error (&p, line, "more than %d job sections (the limit is %d)",
                             JOB_MAX_STEPS, JOB_MAX_STEPS);
                goto fail;
            }
            *cur = *global;
            strcpy (cur->job.name, sname);
            cur->job.line = line;
            section = JOB;
            continue;
        }
        if (section == NONE) {
            char *eq = strchr (s, '=');
            if (eq)
                *eq = '\0';
            s_error (&p, line, "option '%.*s' outside of a section", SHOW, s_trim (s));
            goto fail;
        }
        if (section == IOFLEET) {
            if (s_iofleet_line (&p, line, s, plan_sla, sizeof plan_sla))
                goto fail;
            continue;
        }
        if (s_option_line (&p, line, section == GLOBAL,
                           section == GLOBAL ? global : cur, s))
            goto fail;
    }
    if (section == JOB) {
        if (s_emit (&p, &jf, &cap, cur, scratch))
            goto fail;
    }
    if (jf->nsteps == 0) {
        s_error (&p, 0, "no job sections (a plan needs at least one [job])");
        goto fail;
    }
    for (int i = 0; i < jf->nsteps; i++)
        if (!jf->steps[i].sla[0])
            memcpy (jf->steps[i].sla, plan_sla, sizeof plan_sla);
    /* fio's exitall is one flag for the whole run (fio 3.33: set on the
       job that ends last, it still stops the others when the first one
       ends): any job's is every job's. */
    bool exitall = false;
    for (int i = 0; i < jf->nsteps; i++)
        exitall |= jf->steps[i].exitall;
    for (int i = 0; i < jf->nsteps; i++)
        jf->steps[i].exitall = exitall;
    /* fio numbers the workers of a file 1, 2, ... over all its jobs, so
       jobs that share a write_lat_log prefix never share a log file. */
    uint32_t thread_number = 1;
    for (int i = 0; i < jf->nsteps; i++) {
        jf->steps[i].thread_number = thread_number;
        thread_number += jf->steps[i].numjobs;
    }
    free (copy);
    free (global);
    free (cur);
    free (scratch);
    return jf;

fail:
    free (copy);
    free (global);
    free (cur);
    free (scratch);
    free (jf);
    return NULL;
}

/* Reads and parses a file (see jobfile.h).  Returns NULL with err set on
   error. */
jobfile_t *
jobfile_load (const char *path, char *err, size_t errlen)
{
    parser_t p = { path ? path : "(null)", err, errlen };
    if (err && errlen)
        err[0] = '\0';
    if (!path) {
        s_error (&p, 0, "no job file path");
        return NULL;
    }
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (err && errlen)
            snprintf (err, errlen, "cannot read %s: %s", path, strerror (errno));
        return NULL;
    }
    /* One byte over the limit tells "too big" from "exactly the limit";
       st_size is not trusted, so pipes and /proc files work too. */
    size_t cap = JOBFILE_MAX_BYTES + 1;
    char *buf = malloc (cap + 1);
    if (!buf) {
        close (fd);
        s_error (&p, 0, "out of memory");
        return NULL;
    }
    size_t len = 0;
    while (len < cap) {
        ssize_t n = read (fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            if (err && errlen)
                snprintf (err, errlen, "cannot read %s: %s", path, strerror (errno));
            close (fd);
            free (buf);
            return NULL;
        }
        if (n == 0)
            break;
        len += (size_t) n;
    }
    close (fd);
    if (len > JOBFILE_MAX_BYTES) {
        s_error (&p, 0, "job file is larger than %u bytes (1 MiB, the limit)",
                 JOBFILE_MAX_BYTES);
        free (buf);
        return NULL;
    }
    buf[len] = '\0';
    /* A NUL would silently end the text early. */
    const char *nul = memchr (buf, '\0', len);
    if (nul) {
        int line = 1;
        for (const char *c = buf; c < nul; c++)
            line += *c == '\n';
        s_error (&p, line, "NUL byte in the file: not a text job file");
        free (buf);
        return NULL;
    }
    jobfile_t *jf = jobfile_parse (path, buf, err, errlen);
    free (buf);
    return jf;
}

/* Frees the jobfile and NULLs the pointer.  Can't fail. */
int
jobfile_group (const jobfile_t *jf, int *first)
{
    int n = 0;
    for (int i = 0; i < jf->nsteps; i++) {
        const job_t *j = &jf->steps[i];
        bool starts = i == 0 || j->stonewall || j->sweep_of[0] || jf->steps[i - 1].sweep_of[0];
        if (starts)
            first[n++] = i;
    }
    first[n] = jf->nsteps;
    return n;
}

void
jobfile_destroy (jobfile_t **self_p)
{
    if (self_p && *self_p) {
        free (*self_p);
        *self_p = NULL;
    }
}

/* fio's name for an rw mode; "?" for a value outside the enum.
   Can't fail. */
bool
job_rw_reads (job_rw_t m)
{
    return m == JOB_RW_READ || m == JOB_RW_RANDREAD || m == JOB_RW_RW || m == JOB_RW_RANDRW;
}

const char *
job_fleet_refusal (const job_t *j)
{
    if (j->exitall && j->exit_what_all)
        return "exit_what=all with exitall: the steps after the first job's end would not "
               "run, which a controller does not do yet; use exit_what=group (fio's default)";
    if (j->read_iolog[0] && !j->replay_redirect[0])
        return "read_iolog without replay_redirect=PATH: the log names the files of the "
               "machine it was recorded on; give replay_redirect= the target each agent "
               "replays it on";
    return NULL;
}

bool
job_rw_trims (job_rw_t m)
{
    return m == JOB_RW_TRIM || m == JOB_RW_RANDTRIM || m == JOB_RW_TRIMWRITE
        || m == JOB_RW_RANDTRIMWRITE;
}

const char *
job_rw_name (job_rw_t m)
{
    switch (m) {
    case JOB_RW_READ:       return "read";
    case JOB_RW_WRITE:      return "write";
    case JOB_RW_RANDREAD:   return "randread";
    case JOB_RW_RANDWRITE:  return "randwrite";
    case JOB_RW_RW:         return "rw";
    case JOB_RW_RANDRW:     return "randrw";
    case JOB_RW_TRIM:       return "trim";
    case JOB_RW_RANDTRIM:   return "randtrim";
    case JOB_RW_TRIMWRITE:  return "trimwrite";
    case JOB_RW_RANDTRIMWRITE: return "randtrimwrite";
    }
    return "?";
}


/* Parses a size (see jobfile.h).  Every suffix is a power of 1024 (see
   the top of this file for how fio differs on KiB).  Returns 0, -EINVAL
   or -ERANGE. */
int
job_parse_size (const char *s, uint64_t *out)
{
    if (!s || !out)
        return -EINVAL;
    unsigned base = 10;
    if (s[0] == '0' && s_lower (s[1]) == 'x') {
        base = 16;
        s += 2;
    }
    uint64_t v;
    int rc = s_digits (&s, base, &v);
    if (rc == -EINVAL)
        return rc;

    unsigned shift = 0;
    switch (s_lower (*s)) {
    case 'k': shift = 10; break;
    case 'm': shift = 20; break;
    case 'g': shift = 30; break;
    case 't': shift = 40; break;
    case 'p': shift = 50; break;
    default: break;
    }
    if (shift) {
        s++;
        if (s_lower (*s) == 'i')
            s++;
    }
    if (s_lower (*s) == 'b')
        s++;
    if (*s != '\0')
        return -EINVAL;
    if (rc == -ERANGE || (shift && v > (UINT64_MAX >> shift)))
        return -ERANGE;
    *out = v << shift;
    return 0;
}


/* Parses a time into ns (see jobfile.h); a bare number is seconds.
   Returns 0, -EINVAL or -ERANGE. */
int
job_parse_time (const char *s, uint64_t *out_ns)
{
    return s_parse_time_unit (s, 1000000000ull, out_ns);
}

/* Parses fio's cpus_allowed syntax (see jobfile.h); out is not written on
   error.  Returns 0, -EINVAL or -ERANGE. */
int
job_parse_cpus (const char *s, uint64_t *out)
{
    if (!s || !out)
        return -EINVAL;
    const char *bad;
    size_t badlen;
    int rc = s_cpus_parse (s, out, &bad, &badlen);
    return rc == -EDOM ? -EINVAL : rc;
}
