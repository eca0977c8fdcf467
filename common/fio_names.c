/*  fio_names.c: fio's names, one home: the rw modes, the steady-state
    criteria, iofleet's I/O engines, and the options, engines, rw modes and
    verify methods of fio's that iofleet does not run yet, so the parser can
    tell "not yet" from "no such" (see fio_names.h).
*/
#include "fio_names.h"

#include <stdlib.h>
#include <string.h>

#define NELEM(a) (sizeof (a) / sizeof ((a)[0]))

/* Real fio options (from fio's HOWTO, including aliases and engine
   options) that iofleet does not implement yet.  Sorted with strcmp for
   bsearch (jobfile_parse checks it with fio_options_sorted); the options
   iofleet does implement are not listed (option_table.c). */
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
    "openfiles", "overwrite", "pingpong",
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

/* The I/O engines iofleet runs, JOB_ENGINES name for name and in its
   order (fio_engines_listed), and the release that first ran each: an
   agent of an older release would not run it, so the controller leaves
   such an agent out of the step (jobspec_needs).  NULL: every release of
   protocol 2 runs it. */
static const struct {
    const char *name;
    const char *since;
} s_engines[] = {
    { "libaio", NULL },         { "io_uring", NULL },       { "psync", NULL },
    { "pvsync", "0.3.0" },      { "pvsync2", "0.3.0" },     { "sync", "0.3.0" },
    { "vsync", "0.3.0" },       { "posixaio", "0.3.0" },    { "null", NULL },
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

static const struct {
    const char *name;
    job_ss_t mode;
} s_ss_modes[] = {
    { "iops", JOB_SS_IOPS },    { "iops_slope", JOB_SS_IOPS_SLOPE },
    { "bw", JOB_SS_BW },        { "bw_slope", JOB_SS_BW_SLOPE },
};

/* fio's verify methods that iofleet does not compute yet. */
static const char *const s_fio_verify_only[] = {
    "crc16", "crc32", "crc64", "crc7", "meta", "null", "pattern", "sha1", "sha256",
    "sha3-224", "sha3-256", "sha3-384", "sha3-512", "sha512", "xxhash",
};

/* Compares for bsearch over an array of strings.  Can't fail. */
static int
s_cmp_name (const void *key, const void *elem)
{
    return strcmp ((const char *) key, *(const char *const *) elem);
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

/* True if name is a real fio option that iofleet does not implement.
   Can't fail. */
bool
fio_option_unsupported (const char *name)
{
    return bsearch (name, s_fio_only, NELEM (s_fio_only),
                    sizeof (s_fio_only[0]), s_cmp_name) != NULL;
}

/* True if s_fio_only is strictly sorted, as bsearch needs.  Can't fail. */
bool
fio_options_sorted (void)
{
    for (size_t i = 1; i < NELEM (s_fio_only); i++)
        if (strcmp (s_fio_only[i - 1], s_fio_only[i]) >= 0)
            return false;
    return true;
}

/* The row of s_engines called name, or -1.  Can't fail. */
static int
s_engine_find (const char *name)
{
    for (size_t i = 0; i < NELEM (s_engines); i++)
        if (strcmp (name, s_engines[i].name) == 0)
            return (int) i;
    return -1;
}

/* True if name is one of JOB_ENGINES.  Can't fail. */
bool
job_engine_known (const char *name)
{
    return s_engine_find (name) >= 0;
}

/* The release that first ran engine name; NULL when every release of
   protocol 2 does, or name is no engine of iofleet's.  Can't fail. */
const char *
job_engine_since (const char *name)
{
    int i = s_engine_find (name);
    return i < 0 ? NULL : s_engines[i].since;
}

/* True if the engines' table names JOB_ENGINES, in its order.  Can't
   fail. */
bool
fio_engines_listed (void)
{
    const char *c = JOB_ENGINES;
    for (size_t i = 0; i < NELEM (s_engines); i++) {
        size_t n = strlen (s_engines[i].name);
        if (strncmp (c, s_engines[i].name, n) != 0)
            return false;
        c += n;
        if (i + 1 < NELEM (s_engines)) {
            if (strncmp (c, ", ", 2) != 0)
                return false;
            c += 2;
        }
    }
    return *c == '\0';
}

/* True if name is another of fio's engines.  Can't fail. */
bool
fio_engine_unsupported (const char *name)
{
    return s_in_list (name, s_fio_engines, NELEM (s_fio_engines));
}

/* True if name is one of fio's rw modes that iofleet does not run.
   Can't fail. */
bool
fio_rw_unsupported (const char *name)
{
    return s_in_list (name, s_fio_rw_only, NELEM (s_fio_rw_only));
}

/* True if name is one of fio's verify methods that iofleet does not
   compute.  Can't fail. */
bool
fio_verify_unsupported (const char *name)
{
    return s_in_list (name, s_fio_verify_only, NELEM (s_fio_verify_only));
}

/* The rw mode fio calls name (both of its names for rw).  Returns 0, or
   -1 when fio has no such mode in FIO_RW_SUPPORTED. */
int
fio_rw_find (const char *name, job_rw_t *out)
{
    for (size_t i = 0; i < NELEM (s_rw_modes); i++)
        if (strcmp (name, s_rw_modes[i].name) == 0) {
            *out = s_rw_modes[i].mode;
            return 0;
        }
    return -1;
}

/* The criterion of the len bytes at name.  Returns 0, or -1 when it is
   none of FIO_SS_SUPPORTED. */
int
fio_ss_find (const char *name, size_t len, job_ss_t *out)
{
    for (size_t i = 0; i < NELEM (s_ss_modes); i++)
        if (strlen (s_ss_modes[i].name) == len && strncmp (s_ss_modes[i].name, name, len) == 0) {
            *out = s_ss_modes[i].mode;
            return 0;
        }
    return -1;
}

/* True when rw= has reads in it (see fio_names.h).  Can't fail. */
bool
job_rw_reads (job_rw_t m)
{
    return m == JOB_RW_READ || m == JOB_RW_RANDREAD || m == JOB_RW_RW || m == JOB_RW_RANDRW;
}

/* True when rw= trims.  Can't fail. */
bool
job_rw_trims (job_rw_t m)
{
    return m == JOB_RW_TRIM || m == JOB_RW_RANDTRIM || m == JOB_RW_TRIMWRITE
        || m == JOB_RW_RANDTRIMWRITE;
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
    case JOB_RW_TRIM:       return "trim";
    case JOB_RW_RANDTRIM:   return "randtrim";
    case JOB_RW_TRIMWRITE:  return "trimwrite";
    case JOB_RW_RANDTRIMWRITE: return "randtrimwrite";
    }
    return "?";
}
