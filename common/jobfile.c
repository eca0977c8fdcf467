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
      - only fio's "set" options (time_based, group_reporting, stonewall)
        may be written bare: fio rejects a bare `direct` with "Option
        direct requires an argument", and so do we;
      - fio takes any section whose untrimmed name starts with "global"
        as a [global]; we take "[global]" (trailing blanks allowed) and
        refuse the names where the two rules disagree ("[global-x]",
        "[ global]") rather than read them differently from fio.
    One deliberate difference: with its default kb_base=1024, fio reads the
    IEC suffixes backwards (4k = 4096 but 4KiB = 4000).  iofleet reads every
    suffix as a power of 1024, so 4k = 4kB = 4KiB = 4096; see
    job_parse_size.

    Integer options (iodepth, numjobs, rwmix*) go through the size parser
    like they do in fio, so iodepth=0x20 and numjobs=1k are accepted.
*/
#include "jobfile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define JOBFILE_MAX_BYTES   (1u << 20)      /* jobfile_load refuses more */
#define SHOW                80              /* value bytes quoted in messages */

/* Real fio options (from fio's HOWTO, including aliases and engine
   options) that iofleet does not implement yet.  Sorted with strcmp for
   bsearch; the options iofleet does implement are not listed. */
static const char *const s_fio_only[] = {
    "allow_file_create", "allow_mounted_write", "allrandrepeat", "arguments",
    "ba", "bindname", "block_error_percentiles", "blockalign",
    "blocksize_range", "blocksize_unaligned", "bs_is_seq_rand",
    "bs_unaligned", "bsrange", "bssplit", "buffer_compress_chunk",
    "buffer_compress_percentage", "buffer_pattern", "busy_poll",
    "busy_wait_polling", "bwavgtime", "cgroup", "cgroup_nodelete",
    "cgroup_weight", "chunk_size", "clat_percentiles", "clientname",
    "clocksource", "clustername", "cmd_type", "cmdprio", "cmdprio_bssplit",
    "cmdprio_class", "cmdprio_percentage", "conf", "cont",
    "continue_on_error", "cpuchunks", "cpuload", "cpumask", "cpumode",
    "cpus_allowed", "cpus_allowed_policy", "create_fsync", "create_on_open",
    "create_only", "create_serialize", "cuda_io", "dedupe_global",
    "dedupe_mode", "dedupe_percentage", "dedupe_working_set_percentage",
    "description", "direct_write_to_pmem", "directory", "disable_bw",
    "disable_bw_measurement", "disable_clat", "disable_lat", "disable_slat",
    "disk_util", "do_verify", "donorname", "end_fsync", "error_dump",
    "exec_postrun", "exec_prerun", "exit_on_io_done", "exit_what", "exitall",
    "exitall_on_error", "experimental_verify", "fadvise_hint", "fallocate",
    "fdatasync", "fdp", "fdp_pli", "file_append", "file_service_type",
    "filename_format", "filesize", "fill_device", "fill_fs", "fixedbufs",
    "flow", "flow_id", "flow_sleep", "force_async", "fsync", "fsync_on_close",
    "gid", "gpu_dev_ids", "grace_time", "gtod_cpu", "gtod_reduce",
    "hdfsdirectory", "hipri", "hipri_percentage", "hostname", "http_host",
    "http_mode", "http_pass", "http_s3_key", "http_s3_keyid",
    "http_s3_region", "http_s3_sse_customer_algorithm",
    "http_s3_sse_customer_key", "http_s3_storage_class",
    "http_swift_auth_token", "http_user", "http_verbose", "https",
    "hugepage-size", "ignore_error", "ignore_zone_limits", "inplace",
    "interface", "invalidate", "io_limit", "io_size", "io_submit_mode",
    "iodepth_batch", "iodepth_batch_complete", "iodepth_batch_complete_max",
    "iodepth_batch_complete_min", "iodepth_batch_submit", "iodepth_low",
    "iomem", "iomem_align", "iopsavgtime", "ioscheduler",
    "job_max_open_zones", "kb_base", "lat_percentiles", "latency_percentile",
    "latency_run", "latency_target", "latency_window", "libblkio_driver",
    "libblkio_force_enable_completion_eventfd", "libblkio_num_entries",
    "libblkio_path", "libblkio_pre_connect_props", "libblkio_pre_start_props",
    "libblkio_queue_size", "libblkio_vectored", "libblkio_wait_mode",
    "libblkio_write_zeroes_on_trim", "listen", "lockfile", "lockmem",
    "log_alternate_epoch", "log_alternate_epoch_clock_id", "log_avg_msec",
    "log_compression", "log_compression_cpus", "log_entries",
    "log_hist_coarseness", "log_hist_msec", "log_max_value", "log_offset",
    "log_prio", "log_store_compressed", "log_unix_epoch", "loops",
    "max_latency", "max_open_zones", "mem", "mem_align",
    "merge_blktrace_file", "merge_blktrace_iters", "merge_blktrace_scalars",
    "mss", "namenode", "new_group", "nfs_url", "nice", "nodelay",
    "nonvectored", "norandommap", "nowait", "nrfiles", "numa_cpu_nodes",
    "numa_mem_policy", "number_ios", "object_class", "offset_align",
    "offset_increment", "opendir", "openfiles", "overwrite", "per_job_logs",
    "percentage_random", "percentile_list", "pingpong", "pool", "port",
    "pre_read", "prio", "prioclass", "profile", "program", "proto",
    "protocol", "random_distribution", "random_generator", "randrepeat",
    "randseed", "rate", "rate_cycle", "rate_ignore_thinktime", "rate_iops",
    "rate_iops_min", "rate_min", "rate_process", "rbdname", "read_beyond_wp",
    "read_iolog", "read_iolog_chunked", "readfua", "refill_buffers",
    "registerfiles", "replay_align", "replay_no_stall", "replay_redirect",
    "replay_scale", "replay_skip", "replay_time_scale", "rw_sequencer",
    "rwmixcycle", "scramble_buffers", "serialize_overlap", "serverip",
    "sg_write_mode", "significant_figures", "skip_bad", "slat_percentiles",
    "softrandommap", "sqthread_poll", "sqthread_poll_cpu", "ss", "ss_dur",
    "ss_ramp", "startdelay", "stat_type", "stats", "std_redirect",
    "steadystate", "steadystate_duration", "steadystate_ramp_time",
    "stream_id", "sync", "sync_file_range", "thinktime", "thinktime_blocks",
    "thinktime_blocks_type", "thinktime_iotime", "thinktime_spin", "thread",
    "touch_objects", "trim_backlog", "trim_backlog_batch", "trim_percentage",
    "trim_verify_zero", "ttl", "uid", "unified_rw_reporting",
    "unique_filename", "unit_base", "unlink", "unlink_each_loop", "uri",
    "userspace_reap", "verb", "verify", "verify_async", "verify_async_cpus",
    "verify_backlog", "verify_backlog_batch", "verify_dump", "verify_fatal",
    "verify_interval", "verify_offset", "verify_only", "verify_pattern",
    "verify_state_load", "verify_state_save", "wait_for", "window_size",
    "write_barrier", "write_bw_log", "write_hint", "write_hist_log",
    "write_iolog", "write_iops_log", "write_lat_log", "writefua",
    "xnvme_admin", "xnvme_async", "xnvme_dev_nsid", "xnvme_dev_subnqn",
    "xnvme_iovec", "xnvme_mem", "xnvme_sync", "zero_buffers",
    "zone_reset_frequency", "zone_reset_threshold", "zonecapacity",
    "zonemode", "zonerange", "zonesize", "zoneskip",
};

/* fio's I/O engines other than libaio, to tell "not yet" from "no such". */
static const char *const s_fio_engines[] = {
    "binject", "cpuio", "dev-dax", "dfs", "e4defrag", "exec", "falloc",
    "filecreate", "filedelete", "filestat", "ftruncate", "gfapi",
    "gfapi_async", "guasi", "http", "ime_aio", "ime_psync", "ime_psyncv",
    "io_uring", "io_uring_cmd", "libblkio", "libcufile", "libhdfs",
    "libiscsi", "libpmem", "librpma_apm_client", "librpma_apm_server",
    "librpma_gpspm_client", "librpma_gpspm_server", "libzbc", "mmap", "mtd",
    "nbd", "net", "netsplice", "nfs", "null", "pmemblk", "posixaio", "psync",
    "pvsync", "pvsync2", "rados", "rbd", "rdma", "sg", "solarisaio",
    "splice", "sync", "syslet-rw", "vsync", "windowsaio", "xnvme",
};

/* fio's rw modes that iofleet does not run yet. */
static const char *const s_fio_rw_only[] = {
    "trim", "randtrim", "trimwrite", "randtrimwrite",
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
};
#define RW_SUPPORTED "read, write, randread, randwrite, rw, readwrite, randrw"

typedef enum {
    OPT_IOENGINE, OPT_DIRECT, OPT_BUFFERED, OPT_RW, OPT_RWMIXREAD,
    OPT_RWMIXWRITE, OPT_BS, OPT_IODEPTH, OPT_NUMJOBS, OPT_SIZE, OPT_OFFSET,
    OPT_FILENAME, OPT_RUNTIME, OPT_TIME_BASED, OPT_RAMP_TIME,
    OPT_GROUP_REPORTING, OPT_STONEWALL, OPT_NAME,
} opt_id_t;

/* The options iofleet implements.  `bare` marks fio's "set" options, the
   only ones fio lets you write without '='. */
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
    { "iodepth", OPT_IODEPTH, false },
    { "numjobs", OPT_NUMJOBS, false },
    { "size", OPT_SIZE, false },
    { "offset", OPT_OFFSET, false },
    { "filename", OPT_FILENAME, false },
    { "runtime", OPT_RUNTIME, false },
    { "time_based", OPT_TIME_BASED, true },
    { "ramp_time", OPT_RAMP_TIME, false },
    { "group_reporting", OPT_GROUP_REPORTING, true },
    { "stonewall", OPT_STONEWALL, true },
    { "wait_for_previous", OPT_STONEWALL, true },
    { "name", OPT_NAME, false },
};

#define NELEM(a) (sizeof (a) / sizeof ((a)[0]))

/* A job's options plus where the ones that the end-of-section checks
   complain about were set, so the message can point at that line (which
   may be in a [global] section above the job). */
typedef struct {
    job_t job;
    int bs_line;
    int direct_line;
    int time_based_line;
} opts_t;

typedef struct {
    const char *name;       /* file name for messages */
    char *err;
    size_t errlen;
} parser_t;


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
static bool
s_in_list (const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp (s, list[i]) == 0)
            return true;
    return false;
}

/* The defaults of a job with no options: fio's, except that the engine is
   libaio, the only one iofleet has.  Can't fail. */
static void
s_opts_default (opts_t *o)
{
    memset (o, 0, sizeof (*o));
    strcpy (o->job.ioengine, "libaio");
    o->job.direct = false;
    o->job.rw = JOB_RW_READ;
    o->job.rwmixread = 50;
    o->job.bs = 4096;
    o->job.iodepth = 1;
    o->job.numjobs = 1;
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
s_parse_duration (parser_t *p, int line, const char *key, const char *value,
                  uint64_t *out_ns)
{
    uint64_t ns;
    int rc = job_parse_time (value, &ns);
    if (rc == -EINVAL) {
        s_error (p, line, "%s='%.*s' is not a time (like 60, 30s, 500ms, 5m, 1h)",
                 key, SHOW, value);
        return -1;
    }
    if (rc != 0 || ns > (uint64_t) JOB_MAX_RUNTIME_S * 1000000000u) {
        s_error (p, line, "%s=%.*s is out of range (allowed: up to %ds, 7 days)",
                 key, SHOW, value, JOB_MAX_RUNTIME_S);
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

/* Applies one supported option to o.  value is NULL for a bare key.
   Returns 0, or -1 with the error set. */
static int
s_apply (parser_t *p, int line, bool in_global, opts_t *o, int idx,
         const char *key, const char *value)
{
    job_t *job = &o->job;
    uint64_t v;
    bool b;
    int rc;

    if (!value) {
        /* Only fio's "set" options get here (checked by the caller). */
        value = "1";
    }
    switch (s_options[idx].id) {
    case OPT_IOENGINE:
        if (strcmp (value, "libaio") == 0) {
            strcpy (job->ioengine, "libaio");
            return 0;
        }
        if (s_in_list (value, s_fio_engines, NELEM (s_fio_engines))
        ||  strncmp (value, "external:", 9) == 0 || strchr (value, '/'))
            s_error (p, line, "ioengine '%.*s' is not supported by iofleet yet (supported: libaio)",
                     SHOW, value);
        else
            s_error (p, line, "ioengine '%.*s' is not an fio ioengine (supported: libaio)",
                     SHOW, value);
        return -1;

    case OPT_DIRECT:
    case OPT_BUFFERED:
        if (s_parse_bool (p, line, key, value, &b))
            return -1;
        job->direct = s_options[idx].id == OPT_DIRECT ? b : !b;
        o->direct_line = line;
        return 0;

    case OPT_RW: {
        /* fio's "rw=randread:8" offset modifier follows a ':'. */
        const char *colon = strchr (value, ':');
        size_t baselen = colon ? (size_t) (colon - value) : strlen (value);
        char base[16];
        if (baselen < sizeof (base)) {
            memcpy (base, value, baselen);
            base[baselen] = '\0';
        }
        else
            base[0] = '\0';
        for (size_t i = 0; i < NELEM (s_rw_modes); i++) {
            if (strcmp (base, s_rw_modes[i].name) != 0)
                continue;
            if (colon) {
                s_error (p, line, "%s=%.*s: fio's ':N' offset modifier is not supported by iofleet yet",
                         key, SHOW, value);
                return -1;
            }
            job->rw = s_rw_modes[i].mode;
            return 0;
        }
        if (s_in_list (base, s_fio_rw_only, NELEM (s_fio_rw_only)))
            s_error (p, line, "%s '%s' is not supported by iofleet yet (supported: "
                     RW_SUPPORTED ")", key, base);
        else
            s_error (p, line, "%s='%.*s' is not an fio I/O pattern (supported: "
                     RW_SUPPORTED ")", key, SHOW, value);
        return -1;
    }

    case OPT_RWMIXREAD:
    case OPT_RWMIXWRITE:
        if (s_parse_uint (p, line, key, value, 0, 100, &v))
            return -1;
        /* fio: when both are given, the later one wins. */
        job->rwmixread = s_options[idx].id == OPT_RWMIXREAD
                       ? (uint32_t) v : (uint32_t) (100 - v);
        return 0;

    case OPT_BS:
        /* fio reads "bs=4k,8k" (and ':' or '-' in place of ',') as
           separate read and write sizes. */
        if (strpbrk (value, ",:") || (value[0] && strchr (value + 1, '-'))) {
            s_error (p, line, "%s=%.*s: separate read/write block sizes are not supported by iofleet yet",
                     key, SHOW, value);
            return -1;
        }
        rc = job_parse_size (value, &v);
        if (rc == -EINVAL) {
            s_error (p, line, "%s='%.*s' is not a size (like 4k or 128k; allowed: 1 byte..64 MiB)",
                     key, SHOW, value);
            return -1;
        }
        if (rc != 0 || v < 1 || v > JOB_MAX_BS) {
            s_error (p, line, "%s=%.*s is out of range (allowed: 1 byte..64 MiB)",
                     key, SHOW, value);
            return -1;
        }
        job->bs = (uint32_t) v;
        o->bs_line = line;
        return 0;

    case OPT_IODEPTH:
        if (s_parse_uint (p, line, key, value, 1, JOB_MAX_IODEPTH, &v))
            return -1;
        job->iodepth = (uint32_t) v;
        return 0;

    case OPT_NUMJOBS:
        if (s_parse_uint (p, line, key, value, 1, JOB_MAX_NUMJOBS, &v))
            return -1;
        job->numjobs = (uint32_t) v;
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
        memcpy (job->filename, value, len + 1);
        return 0;
    }

    case OPT_RUNTIME:
        return s_parse_duration (p, line, key, value, &job->runtime_ns);

    case OPT_RAMP_TIME:
        return s_parse_duration (p, line, key, value, &job->ramp_time_ns);

    case OPT_TIME_BASED:
        if (s_parse_bool (p, line, key, value, &job->time_based))
            return -1;
        o->time_based_line = line;
        return 0;

    case OPT_GROUP_REPORTING:
        return s_parse_bool (p, line, key, value, &job->group_reporting);

    case OPT_STONEWALL:
        return s_parse_bool (p, line, key, value, &job->stonewall);

    case OPT_NAME:
        /* Every job section names its job, so name= in [global] could
           only be overridden or give all jobs one name. */
        if (in_global) {
            s_error (p, line, "name= belongs in a job section, not in [global]");
            return -1;
        }
        if (s_check_name (p, line, "job name", value))
            return -1;
        strcpy (job->name, value);
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

/* The checks that need a job's final options (direct may come after bs,
   and either may come from a [global]).  Returns 0, or -1 with the error
   set at the line of the option to fix. */
static int
s_check_job (parser_t *p, const opts_t *o)
{
    const job_t *job = &o->job;
    if (job->time_based && job->runtime_ns == 0) {
        s_error (p, o->time_based_line, "time_based needs runtime= (job '%s' has none)",
                 job->name);
        return -1;
    }
    if (job->direct && job->bs % 512 != 0) {
        s_error (p, o->bs_line, "bs=%u is not a multiple of 512, which direct=1 "
                 "(line %d) needs (job '%s')", job->bs, o->direct_line, job->name);
        return -1;
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
    /* Plans are stored and reported as JSON text: UTF-8 only. */
    long bad = utf8_invalid_at (text, strlen (text));
    if (bad >= 0) {
        int bad_line = 1;
        for (long i = 0; i < bad; i++)
            bad_line += text[i] == '\n';
        s_error (&p, bad_line, "not valid UTF-8 text (byte %ld of the file)", bad + 1);
        return NULL;
    }
    char *copy = strdup (text);
    jobfile_t *jf = calloc (1, sizeof (jobfile_t));
    opts_t *global = malloc (sizeof (opts_t));
    opts_t *cur = malloc (sizeof (opts_t));
    if (!copy || !jf || !global || !cur) {
        s_error (&p, 0, "out of memory");
        goto fail;
    }
    s_opts_default (global);

    enum { NONE, GLOBAL, JOB } section = NONE;
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
                if (s_check_job (&p, cur) || s_append (&p, &jf, &cap, cur))
                    goto fail;
            }
            if (is_global) {
                /* Later [global]s change the defaults of the jobs below
                   them only, building on the earlier ones, like fio. */
                section = GLOBAL;
                continue;
            }
            if (jf->nsteps >= JOB_MAX_STEPS) {
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
        if (s_option_line (&p, line, section == GLOBAL,
                           section == GLOBAL ? global : cur, s))
            goto fail;
    }
    if (section == JOB) {
        if (s_check_job (&p, cur) || s_append (&p, &jf, &cap, cur))
            goto fail;
    }
    if (jf->nsteps == 0) {
        s_error (&p, 0, "no job sections (a plan needs at least one [job])");
        goto fail;
    }
    free (copy);
    free (global);
    free (cur);
    return jf;

fail:
    free (copy);
    free (global);
    free (cur);
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
    }
    return "?";
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

/* Parses a time into ns (see jobfile.h); units are case-insensitive like
   fio's.  Returns 0, -EINVAL or -ERANGE. */
int
job_parse_time (const char *s, uint64_t *out_ns)
{
    static const struct {
        const char *unit;
        uint64_t ns;
    } units[] = {
        { "", 1000000000ull },      /* fio: a bare number is seconds */
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
    for (size_t i = 0; i < NELEM (units); i++) {
        if (strcmp (unit, units[i].unit) != 0)
            continue;
        if (rc == -ERANGE || v > UINT64_MAX / units[i].ns)
            return -ERANGE;
        *out_ns = v * units[i].ns;
        return 0;
    }
    return -EINVAL;
}
