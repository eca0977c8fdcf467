/*  test_message_bounds.c: unit tests for common/message.c, the bounds.

    Every bound message_unpack() enforces is hit once just inside
    (accepted) and once just outside (refused, with the field named in
    err): text lengths, control characters and UTF-8, counts, ranges and
    the fields that must be set.  The valid message of each kind that a
    case breaks one field of comes from message_fx.c.
*/
#include "message_fx.h"
#include "jobfile.h"
#include "health.h"
#include "testutil.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
expect_reject (const char *what, const char *needle)
{
    size_t len = 0;
    uint8_t *buf = pack_fx (&len);
    int mm = -1;
    char err[512] = "";
    envelope_t *e = unpack_exact (buf, len, &mm, err, sizeof err);
    free (buf);
    CHECK_MSG (e == NULL, "%s: accepted", what);
    CHECK_MSG (mm == 0, "%s: version_mismatch %d", what, mm);
    CHECK_MSG (strstr (err, needle) != NULL, "%s: err '%s' does not name '%s'", what, err,
               needle);
    message_free (e);
}

static void
expect_accept (const char *what)
{
    size_t len = 0;
    uint8_t *buf = pack_fx (&len);
    int mm = -1;
    char err[512] = "";
    envelope_t *e = unpack_exact (buf, len, &mm, err, sizeof err);
    free (buf);
    CHECK_MSG (e != NULL && mm == 0, "%s: refused: %s", what, err);
    message_free (e);
}

//  Build a valid KIND message, apply stmt, expect it refused naming needle /
//  accepted.  stmt must hold no top-level comma.
#define REJECT(build, stmt, needle) \
    do { build (); stmt; expect_reject (#build ": " #stmt, needle); } while (0)
#define ACCEPT(build, stmt) \
    do { build (); stmt; expect_accept (#build ": " #stmt); } while (0)

//  ---------------------------------------------------------------------
//  Every bound: just inside accepted, just outside refused naming the field.

static void
labels_n (size_t n)
{
    fx.hello.n_labels = n;
}

static void
snap_targets_n (size_t n)
{
    fx.snap.n_targets = n;
}

static void
test_bounds_hello (void)
{
    ACCEPT (fx_hello, fx.hello.name = strn (MSG_NAME_MAX, 'n'));
    ACCEPT (fx_hello, fx.hello.instance = "");      // releases before it, simulated agents
    REJECT (fx_hello, fx.hello.instance = strn (MSG_NAME_MAX + 1, 'i'), "hello.instance");
    REJECT (fx_hello, fx.hello.instance = "id\n", "hello.instance");
    REJECT (fx_hello, fx.hello.name = strn (MSG_NAME_MAX + 1, 'n'), "hello.name");
    REJECT (fx_hello, fx.hello.name = strn (MSG_NAME_MAX + 1, 'n'), "limit 64");
    REJECT (fx_hello, fx.hello.name = "", "hello.name");
    REJECT (fx_hello, fx.hello.name = "agent\x01" "01", "hello.name");
    REJECT (fx_hello, fx.hello.name = "agent\x01" "01", "control character 0x01");
    REJECT (fx_hello, fx.hello.name = "agent\x7f", "hello.name");
    REJECT (fx_hello, fx.hello.name = "a\tb", "hello.name");
    REJECT (fx_hello, fx.hello.name = "a\nb", "hello.name");
    ACCEPT (fx_hello, fx.hello.name = "\xc3\xa9t\xc3\xa9 ~!");     // UTF-8, space, ~
    ACCEPT (fx_hello, fx.hello.name = "\xf0\x9f\x92\xbe disk");    // 4-byte UTF-8
    REJECT (fx_hello, fx.hello.name = "\xff\xfe", "not valid UTF-8");
    REJECT (fx_hello, fx.hello.name = "ab\xc3", "hello.name is not valid UTF-8 (byte 2)");
    REJECT (fx_hello, fx.hello.name = "\xc0\xaf", "not valid UTF-8");       // overlong '/'
    REJECT (fx_hello, fx.hello.name = "\xed\xa0\x80", "not valid UTF-8");   // surrogate
    REJECT (fx_hello, fx.hello.name = "\xf4\x90\x80\x80", "not valid UTF-8"); // > U+10FFFF
    REJECT (fx_hello, fx.hello.labels[0]->value = "r\xe9", "hello.labels.value");
    ACCEPT (fx_hello, fx.hello.hostname = "");
    ACCEPT (fx_hello, fx.hello.hostname = strn (MSG_TEXT_MAX, 'h'));
    REJECT (fx_hello, fx.hello.hostname = strn (MSG_TEXT_MAX + 1, 'h'), "hello.hostname");
    REJECT (fx_hello, fx.hello.hostname = "host\r", "hello.hostname");
    ACCEPT (fx_hello, fx.hello.kernel = strn (MSG_TEXT_MAX, 'k'));
    REJECT (fx_hello, fx.hello.kernel = strn (MSG_TEXT_MAX + 1, 'k'), "hello.kernel");
    REJECT (fx_hello, fx.hello.kernel = "6.1\x1b[31m", "hello.kernel");
    ACCEPT (fx_hello, fx.hello.agent_version = strn (MSG_NAME_MAX, '1'));
    REJECT (fx_hello, fx.hello.agent_version = strn (MSG_NAME_MAX + 1, '1'),
            "hello.agent_version");
    REJECT (fx_hello, fx.hello.agent_version = "0.1\x02", "hello.agent_version");
    ACCEPT (fx_hello, labels_n (0));
    ACCEPT (fx_hello, labels_n (MSG_LABELS_MAX));
    REJECT (fx_hello, labels_n (MSG_LABELS_MAX + 1), "hello.labels");
    REJECT (fx_hello, labels_n (MSG_LABELS_MAX + 1), "limit 32");
    REJECT (fx_hello, fx.label[1].key = "", "hello.labels.key");
    ACCEPT (fx_hello, fx.label[1].key = strn (MSG_NAME_MAX, 'k'));
    REJECT (fx_hello, fx.label[1].key = strn (MSG_NAME_MAX + 1, 'k'), "hello.labels.key");
    REJECT (fx_hello, fx.label[1].key = "k\x03", "hello.labels.key");
    ACCEPT (fx_hello, fx.label[2].value = strn (MSG_LABEL_VALUE_MAX, 'v'));
    REJECT (fx_hello, fx.label[2].value = strn (MSG_LABEL_VALUE_MAX + 1, 'v'),
            "hello.labels.value");
    REJECT (fx_hello, fx.label[2].value = "line1\nline2", "hello.labels.value");
}

static void
test_bounds_small (void)
{
    ACCEPT (fx_welcome, fx.welcome.interval_ns = MSG_INTERVAL_MIN_NS);
    ACCEPT (fx_welcome, fx.welcome.interval_ns = MSG_INTERVAL_MAX_NS);
    REJECT (fx_welcome, fx.welcome.interval_ns = MSG_INTERVAL_MIN_NS - 1, "welcome.interval_ns");
    REJECT (fx_welcome, fx.welcome.interval_ns = MSG_INTERVAL_MAX_NS + 1, "welcome.interval_ns");
    REJECT (fx_welcome, fx.welcome.interval_ns = 0, "welcome.interval_ns");
    REJECT (fx_welcome, fx.welcome.interval_ns = UINT64_MAX, "welcome.interval_ns");

    ACCEPT (fx_reject, fx.reject.reason = "");
    ACCEPT (fx_reject, fx.reject.reason = strn (MSG_TEXT_MAX, 'r'));
    REJECT (fx_reject, fx.reject.reason = strn (MSG_TEXT_MAX + 1, 'r'), "reject.reason");
    REJECT (fx_reject, fx.reject.reason = "bad\x05", "reject.reason");

    REJECT (fx_ping, fx.ping.t0 = 0, "ping.t0");
    ACCEPT (fx_ping, fx.ping.offset_ns = INT64_MIN);

    REJECT (fx_pong, fx.pong.t0 = 0, "pong");
    REJECT (fx_pong, fx.pong.t1 = 0, "pong");
    REJECT (fx_pong, fx.pong.t2 = fx.pong.t1 - 1, "pong");
    ACCEPT (fx_pong, fx.pong.t2 = fx.pong.t1);

    REJECT (fx_refused, fx.refused.reason = "", "refused.reason");
    ACCEPT (fx_refused, fx.refused.reason = strn (MSG_TEXT_MAX, 'r'));
    REJECT (fx_refused, fx.refused.reason = strn (MSG_TEXT_MAX + 1, 'r'), "refused.reason");
    REJECT (fx_refused, fx.refused.reason = "x\x1f", "refused.reason");

    REJECT (fx_start, fx.start.run = 0, "start.run");
    REJECT (fx_start, fx.start.start_at = 0, "start.start_at");

    ACCEPT (fx_ack, fx.ack.run = 0);            // ack has no bound

    ACCEPT (fx_error, fx.error.message = strn (MSG_TEXT_MAX, 'e'));
    REJECT (fx_error, fx.error.message = strn (MSG_TEXT_MAX + 1, 'e'), "error.message");
    REJECT (fx_error, fx.error.message = "\x7f", "error.message");

    ACCEPT (fx_abort, fx.abort.reason = strn (MSG_TEXT_MAX, 'a'));
    REJECT (fx_abort, fx.abort.reason = strn (MSG_TEXT_MAX + 1, 'a'), "abort.reason");
    REJECT (fx_abort, fx.abort.reason = "user\x08" "cancel", "abort.reason");
}

static void
job_filenames_n (size_t n)
{
    fx.job.n_filenames = n;
}

static void
test_bounds_prepare (void)
{
    REJECT (fx_prepare, fx.prepare.run = 0, "prepare.run");
    REJECT (fx_prepare, fx.prepare.job = NULL, "prepare.job");
    REJECT (fx_prepare, fx.job.name = "", "job.name");
    ACCEPT (fx_prepare, fx.job.name = strn (MSG_NAME_MAX, 'j'));
    REJECT (fx_prepare, fx.job.name = strn (MSG_NAME_MAX + 1, 'j'), "job.name");
    REJECT (fx_prepare, fx.job.name = "step\x01", "job.name");
    REJECT (fx_prepare, fx.job.ioengine = "", "job.ioengine");
    REJECT (fx_prepare, fx.job.ioengine = strn (MSG_NAME_MAX + 1, 'e'), "job.ioengine");
    REJECT (fx_prepare, fx.job.ioengine = "lib\naio", "job.ioengine");
    ACCEPT (fx_prepare, fx.job.rw = IOFLEET__RW__RW_READ);
    REJECT (fx_prepare, fx.job.rw = (Iofleet__Rw) (IOFLEET__RW__RW_RANDTRIMWRITE + 1), "job.rw");
    ACCEPT (fx_prepare, fx.job.rw = IOFLEET__RW__RW_RANDTRIM);
    ACCEPT (fx_prepare, fx.job.latency_target_ns = 2000000; fx.job.latency_window_ns = 200000000;
            fx.job.latency_percentile = 99; fx.job.numjobs = 1);
    REJECT (fx_prepare, fx.job.latency_target_ns = 2000000, "job.latency_target_ns");
    REJECT (fx_prepare, fx.job.latency_target_ns = 2000000; fx.job.latency_window_ns = 1000;
            fx.job.numjobs = 2, "job.latency_target_ns");
    REJECT (fx_prepare, fx.job.rw = (Iofleet__Rw) -1, "job.rw");
    REJECT (fx_prepare, fx.job.rw = (Iofleet__Rw) INT32_MAX, "job.rw");
    ACCEPT (fx_prepare, fx.job.rwmixread = 0);
    ACCEPT (fx_prepare, fx.job.rwmixread = 100);
    REJECT (fx_prepare, fx.job.rwmixread = 101, "job.rwmixread");
    ACCEPT (fx_prepare, fx.job.bs = 1);
    ACCEPT (fx_prepare, fx.job.bs = 64u << 20);
    REJECT (fx_prepare, fx.job.bs = 0, "job.bs");
    REJECT (fx_prepare, fx.job.bs = (64u << 20) + 1, "job.bs");
    REJECT (fx_prepare, fx.job.bs = UINT32_MAX, "job.bs");
    ACCEPT (fx_prepare, fx.job.iodepth = 65536);
    REJECT (fx_prepare, fx.job.iodepth = 0, "job.iodepth");
    REJECT (fx_prepare, fx.job.iodepth = 65537, "job.iodepth");
    REJECT (fx_prepare, fx.job.bs_write = 0, "job.bs_write");
    REJECT (fx_prepare, fx.job.bs_write = (64u << 20) + 1, "job.bs_write");
    REJECT (fx_prepare, fx.job.iodepth_batch_submit = 17, "job.iodepth_batch_submit");
    REJECT (fx_prepare, fx.job.iodepth_batch_submit = 0, "job.iodepth_batch_submit");
    REJECT (fx_prepare, fx.job.iodepth_batch_complete_min = 17, "job.iodepth_batch_complete_min");
    ACCEPT (fx_prepare, fx.job.iodepth_batch_submit = 16; fx.job.iodepth_batch_complete_min = 16);
    REJECT (fx_prepare, fx.job.bsrange_min_read = 4096, "job.bsrange");
    REJECT (fx_prepare, fx.job.bsrange_min_write = 8192; fx.job.bsrange_max_write = 4096,
            "job.bsrange");
    ACCEPT (fx_prepare, fx.job.bsrange_min_write = 4096; fx.job.bsrange_max_write = 65536);
    REJECT (fx_prepare, fx.job.rate_iops_write = 100000001, "job.rate_iops");
    REJECT (fx_prepare, fx.job.thinktime_ns = 3601ull * 1000000000, "thinktime_ns");
    REJECT (fx_prepare, fx.job.random_distribution = 7, "job.random_distribution");
    REJECT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_ZIPF;
            fx.job.dist_param = 1.0, "the zipf theta 1");
    ACCEPT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_ZIPF;
            fx.job.dist_param = 1.2);
    REJECT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_PARETO;
            fx.job.dist_param = 1.5, "the pareto value 1.5");
    ACCEPT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_NORMAL;
            fx.job.dist_param = 10; fx.job.dist_centered = 1; fx.job.dist_center = 0.3);
    REJECT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_NORMAL;
            fx.job.dist_centered = 1; fx.job.dist_center = -0.5, "the center -0.5");
    {
        Iofleet__Zone z1 = IOFLEET__ZONE__INIT, z2 = IOFLEET__ZONE__INIT;
        Iofleet__Zone *zs[300] = { &z1, &z2 };
        for (int i = 2; i < 300; i++)
            zs[i] = &z2;
        z1.access_pct = 60;
        z1.size = 10;
        z2.access_pct = 40;
        z2.size = 90;
        ACCEPT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_ZONED;
                fx.job.n_zones = 2; fx.job.zones = zs);
        REJECT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_ZONED;
                fx.job.n_zones = 1; fx.job.zones = zs, "add up to 60, not 100");
        REJECT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_PARETO;
                fx.job.dist_param = 0.5; fx.job.n_zones = 2; fx.job.zones = zs,
                "pareto takes no zones");
        REJECT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_ZONED;
                fx.job.n_zones = 300; fx.job.zones = zs, "300 zones, limit");
    }
    REJECT (fx_prepare, fx.job.cpus_allowed = "0-3,x", "job.cpus_allowed");
    REJECT (fx_prepare, fx.job.cpus_allowed = "9999", "job.cpus_allowed");
    ACCEPT (fx_prepare, fx.job.cpus_allowed = "0-3,8");
    REJECT (fx_prepare, fx.job.ss = 9, "job.ss");
    REJECT (fx_prepare, fx.job.ss = IOFLEET__STEADY_STATE__SS_IOPS_SLOPE; fx.job.ss_dur_ns = 0,
            "job.ss");
    ACCEPT (fx_prepare, fx.job.ss = IOFLEET__STEADY_STATE__SS_IOPS_SLOPE;
            fx.job.ss_limit = 0.001; fx.job.ss_pct = 1; fx.job.ss_dur_ns = 30ull * 1000000000);
    REJECT (fx_prepare, fx.job.buffer_compress_percentage = 101, "job.buffer_compress_percentage");
    /* write_lat_log: a bounded path prefix; a relative one may not climb
       out of the agent's workdir (an absolute one is for the agent's
       policy to judge, on the resolved path). */
    ACCEPT (fx_prepare, fx.job.write_lat_log = "logs/raw"; fx.job.thread_number = 3);
    ACCEPT (fx_prepare, fx.job.write_lat_log = "/var/log/iofleet/../raw");
    ACCEPT (fx_prepare, fx.job.write_lat_log = "a..b/..raw/x..");
    ACCEPT (fx_prepare, fx.job.write_lat_log = "\xc3\xa9t\xc3\xa9/raw");
    ACCEPT (fx_prepare, fx.job.write_lat_log = strn (JOB_LATLOG_MAX - 1, 'l'));
    REJECT (fx_prepare, fx.job.write_lat_log = strn (JOB_LATLOG_MAX, 'l'),
            "job.write_lat_log is 1024 bytes, limit 1023");
    REJECT (fx_prepare, fx.job.write_lat_log = "../raw",
            "job.write_lat_log '../raw' is relative and has a '..' component");
    REJECT (fx_prepare, fx.job.write_lat_log = "logs/../../raw", "'..' component");
    REJECT (fx_prepare, fx.job.write_lat_log = "logs/..", "'..' component");
    REJECT (fx_prepare, fx.job.write_lat_log = "..", "'..' component");
    REJECT (fx_prepare, fx.job.write_lat_log = "raw\n", "job.write_lat_log holds control character");
    REJECT (fx_prepare, fx.job.write_lat_log = "r\xe9", "job.write_lat_log is not valid UTF-8");
    /* numjobs is 4: the last worker's number may be JOB_THREADS_MAX. */
    ACCEPT (fx_prepare, fx.job.write_lat_log = "raw"; fx.job.thread_number = JOB_THREADS_MAX - 3);
    REJECT (fx_prepare, fx.job.write_lat_log = "raw"; fx.job.thread_number = JOB_THREADS_MAX - 2,
            "job.thread_number");
    /* Jobs that run together: each checked, their targets counted together. */
    static Iofleet__JobSpec more_job;
    static Iofleet__JobSpec *more_ptrs[MSG_JOBS_MAX];
    for (int i = 0; i < MSG_JOBS_MAX; i++)
        more_ptrs[i] = &more_job;
    ACCEPT (fx_prepare, more_job = fx.job; fx.prepare.more_jobs = more_ptrs;
            fx.prepare.n_more_jobs = 2);
    REJECT (fx_prepare, more_job = fx.job; more_job.bs = 0; fx.prepare.more_jobs = more_ptrs;
            fx.prepare.n_more_jobs = 1, "job.bs");
    REJECT (fx_prepare, more_job = fx.job; fx.prepare.more_jobs = more_ptrs;
            fx.prepare.n_more_jobs = MSG_JOBS_MAX, "prepare.more_jobs");
    static char *five[] = { "/dev/a", "/dev/b", "/dev/c", "/dev/d", "/dev/e" };
    ACCEPT (fx_prepare, more_job = fx.job; more_job.filenames = five; more_job.n_filenames = 5;
            fx.prepare.more_jobs = more_ptrs; fx.prepare.n_more_jobs = 50);  /* 3 + 250 */
    REJECT (fx_prepare, more_job = fx.job; more_job.filenames = five; more_job.n_filenames = 5;
            fx.prepare.more_jobs = more_ptrs; fx.prepare.n_more_jobs = 51,    /* 3 + 255 */
            "targets over its jobs");
    ACCEPT (fx_prepare, fx.job.numjobs = 1024);
    ACCEPT (fx_prepare, fx.job.verify = IOFLEET__VERIFY_KIND__VERIFY_MD5;
            fx.job.verify_backlog = JOB_MAX_VERIFY_BACKLOG);
    REJECT (fx_prepare, fx.job.verify = (Iofleet__VerifyKind) 3, "job.verify 3, limit 0..2");
    REJECT (fx_prepare, fx.job.verify_backlog = JOB_MAX_VERIFY_BACKLOG + 1, "job.verify_backlog");
    ACCEPT (fx_prepare, fx.job.write_iolog = "/var/log/a.iolog"; fx.job.numjobs = 1);
    REJECT (fx_prepare, fx.job.write_iolog = "a.iolog"; fx.job.numjobs = 2,
            "job.write_iolog with numjobs 2");
    REJECT (fx_prepare, fx.job.write_iolog = "x/../../a.iolog"; fx.job.numjobs = 1,
            "job.write_iolog 'x/../../a.iolog' is relative and has a '..' component");
    ACCEPT (fx_prepare, fx.job.loops = JOB_MAX_LOOPS);
    REJECT (fx_prepare, fx.job.loops = JOB_MAX_LOOPS + 1, "job.loops 1000001, limit 0..1000000");
    ACCEPT (fx_prepare, fx.job.io_size = UINT64_MAX >> 1; fx.job.number_ios = UINT64_MAX >> 1);
    REJECT (fx_prepare, fx.job.number_ios = (UINT64_MAX >> 1) + 1, "job.number_ios");
    ACCEPT (fx_prepare, fx.job.offset_increment = (UINT64_MAX >> 2) / 4);
    REJECT (fx_prepare, fx.job.offset_increment = (UINT64_MAX >> 2) / 4 + 1,
            "job.offset_increment");
    /* A file per worker: as many files as workers. */
    ACCEPT (fx_prepare, fx.job.files_per_worker = 1; fx.job.numjobs = NFILES);
    ACCEPT (fx_prepare, fx.job.files_per_worker = NFILES; fx.job.numjobs = 1);
    REJECT (fx_prepare, fx.job.files_per_worker = 1; fx.job.numjobs = NFILES + 1,
            "job.files_per_worker 1 with 3 filenames for numjobs 4");
    REJECT (fx_prepare, fx.job.files_per_worker = 2; fx.job.numjobs = 1,
            "job.files_per_worker 2 with 3 filenames for numjobs 1");
    REJECT (fx_prepare, fx.job.numjobs = 0, "job.numjobs");
    REJECT (fx_prepare, fx.job.numjobs = 1025, "job.numjobs");
    ACCEPT (fx_prepare, fx.job.size_pct = 100);
    REJECT (fx_prepare, fx.job.size_pct = 101, "job.size_pct");
    ACCEPT (fx_prepare, fx.job.offset_pct = 99);
    REJECT (fx_prepare, fx.job.offset_pct = 100, "job.offset_pct");
    REJECT (fx_prepare, job_filenames_n (0), "job.filenames");
    ACCEPT (fx_prepare, job_filenames_n (MSG_TARGETS_MAX));
    REJECT (fx_prepare, job_filenames_n (MSG_TARGETS_MAX + 1), "job.filenames");
    REJECT (fx_prepare, job_filenames_n (MSG_TARGETS_MAX + 1), "limit 1..256");
    REJECT (fx_prepare, fx.files[1] = "", "job.filenames[1]");
    ACCEPT (fx_prepare, fx.files[1] = strn (MSG_PATH_MAX, 'p'));
    REJECT (fx_prepare, fx.files[1] = strn (MSG_PATH_MAX + 1, 'p'), "job.filenames[1]");
    REJECT (fx_prepare, fx.files[2] = "/dev/sd\ta", "job.filenames[2]");
    ACCEPT (fx_prepare, fx.job.runtime_ns = 7ull * 24 * 3600 * 1000000000ull);
    REJECT (fx_prepare, fx.job.runtime_ns = 7ull * 24 * 3600 * 1000000000ull + 1,
            "job.runtime_ns");
    ACCEPT (fx_prepare, fx.job.ramp_time_ns = 3600ull * 1000000000ull);
    REJECT (fx_prepare, fx.job.ramp_time_ns = 3600ull * 1000000000ull + 1, "job.ramp_time_ns");
    REJECT (fx_prepare, fx.job.runtime_ns = 0, "job.time_based");
    ACCEPT (fx_prepare, fx.job.runtime_ns = 0; fx.job.time_based = 0);
    ACCEPT (fx_prepare, fx.job.interval_ns = MSG_INTERVAL_MIN_NS);
    ACCEPT (fx_prepare, fx.job.interval_ns = MSG_INTERVAL_MAX_NS);
    REJECT (fx_prepare, fx.job.interval_ns = MSG_INTERVAL_MIN_NS - 1, "job.interval_ns");
    REJECT (fx_prepare, fx.job.interval_ns = MSG_INTERVAL_MAX_NS + 1, "job.interval_ns");
    REJECT (fx_prepare, fx.job.interval_ns = 0, "job.interval_ns");
}

static void
ready_n (size_t n)
{
    fx.ready.n_targets = n;
}

static void
done_n (size_t n)
{
    fx.done.n_totals = n;
}

static uint32_t done_depths_buf[MSG_JOBS_MAX + 1];

static void
done_depths (size_t n, uint32_t depth)
{
    for (size_t i = 0; i < n; i++)
        done_depths_buf[i] = depth;
    fx.done.latency_depth = done_depths_buf;
    fx.done.n_latency_depth = n;
}

/* ready.health / done.health: n records for the message's 2 targets,
   each `rec`. */
static char *health_buf[MSG_TARGETS_MAX + 1];

static void
ready_health (size_t n, char *rec)
{
    for (size_t i = 0; i < n; i++)
        health_buf[i] = rec;
    fx.ready.health = health_buf;
    fx.ready.n_health = n;
}

static void
done_health (size_t n, char *rec)
{
    for (size_t i = 0; i < n; i++)
        health_buf[i] = rec;
    fx.done.health = health_buf;
    fx.done.n_health = n;
}

static void
test_bounds_ready_snapshot_done (void)
{
    /* Drive health: one record per target (or none, an older agent),
       each bounded and UTF-8; its fields are the controller's to check
       (step_health.c, health_from_json). */
    ACCEPT (fx_ready, ready_health (0, NULL));
    ACCEPT (fx_ready, ready_health (2, "{\"available\":true}"));
    ACCEPT (fx_ready, ready_health (2, strn (HEALTH_JSON_MAX, 'x')));
    REJECT (fx_ready, ready_health (2, strn (HEALTH_JSON_MAX + 1, 'x')), "ready.health[0]");
    REJECT (fx_ready, ready_health (1, "{}"), "ready.health has 1 entries for 2 targets");
    REJECT (fx_ready, ready_health (3, "{}"), "ready.health has 3 entries");
    REJECT (fx_ready, ready_health (2, "{\"reason\":\"\xff\"}"), "ready.health[0] is not valid UTF-8");
    ACCEPT (fx_done, done_health (2, "{\"available\":false,\"reason\":\"loop\"}"));
    REJECT (fx_done, done_health (1, "{}"), "done.health has 1 entries for 2 targets");
    REJECT (fx_done, done_health (2, strn (HEALTH_JSON_MAX + 1, 'x')), "done.health[0]");
    /* A temperature: what a sensor can say. */
    ACCEPT (fx_snapshot, fx.ts[0].has_temperature = true; fx.ts[0].temperature_mc = MSG_TEMP_MIN_MC);
    ACCEPT (fx_snapshot, fx.ts[0].has_temperature = true; fx.ts[0].temperature_mc = MSG_TEMP_MAX_MC);
    REJECT (fx_snapshot, fx.ts[1].has_temperature = true; fx.ts[1].temperature_mc = MSG_TEMP_MAX_MC + 1,
            "snapshot.targets[1].temperature_mc");
    REJECT (fx_snapshot, fx.ts[0].has_temperature = true; fx.ts[0].temperature_mc = MSG_TEMP_MIN_MC - 1,
            "snapshot.targets[0].temperature_mc");
    ACCEPT (fx_snapshot, fx.ts[0].has_temperature = false; fx.ts[0].temperature_mc = INT32_MIN);

    REJECT (fx_ready, fx.ready.run = 0, "ready.run");
    REJECT (fx_ready, ready_n (0), "ready.targets");
    ACCEPT (fx_ready, ready_n (MSG_TARGETS_MAX));
    REJECT (fx_ready, ready_n (MSG_TARGETS_MAX + 1), "ready.targets");
    REJECT (fx_ready, fx.rtargets[1] = "", "ready.targets");
    ACCEPT (fx_ready, fx.rtargets[1] = strn (MSG_PATH_MAX, 't'));
    REJECT (fx_ready, fx.rtargets[1] = strn (MSG_PATH_MAX + 1, 't'), "ready.targets");
    REJECT (fx_ready, fx.rtargets[0] = "/dev/\x1b", "ready.targets");

    REJECT (fx_snapshot, fx.snap.run = 0, "snapshot.run");
    REJECT (fx_snapshot, fx.snap.t_end = fx.snap.t_start - 1, "snapshot.t_end");
    ACCEPT (fx_snapshot, fx.snap.t_end = fx.snap.t_start);
    ACCEPT (fx_snapshot, fx.snap.seq = 100000000);
    REJECT (fx_snapshot, fx.snap.seq = 100000001, "snapshot.seq");
    ACCEPT (fx_snapshot, snap_targets_n (0));
    ACCEPT (fx_snapshot, snap_targets_n (MSG_TARGETS_MAX));
    REJECT (fx_snapshot, snap_targets_n (MSG_TARGETS_MAX + 1), "snapshot.targets");
    REJECT (fx_snapshot, snap_targets_n (MSG_TARGETS_MAX + 1), "limit 256");
    ACCEPT (fx_snapshot, fx.ts[1].target = MSG_TARGETS_MAX - 1);
    REJECT (fx_snapshot, fx.ts[1].target = MSG_TARGETS_MAX, "snapshot.targets[1].target");
    REJECT (fx_snapshot, fx.ts[1].target = UINT32_MAX, "snapshot.targets[1].target");
    ACCEPT (fx_snapshot, fx.rd[0].histogram.len = HIST_WIRE_MAX;
                         fx.rd[0].histogram.data = big_hist);
    REJECT (fx_snapshot, fx.rd[0].histogram.len = HIST_WIRE_MAX + 1;
                         fx.rd[0].histogram.data = big_hist,
            "snapshot.targets[0].read.histogram");
    REJECT (fx_snapshot, fx.wr[1].histogram.len = HIST_WIRE_MAX + 1;
                         fx.wr[1].histogram.data = big_hist,
            "snapshot.targets[1].write.histogram");
    ACCEPT (fx_snapshot, fx.wr[1].bytes = fx.wr[1].ops);
    REJECT (fx_snapshot, fx.wr[1].bytes = fx.wr[1].ops - 1, "snapshot.targets[1].write.bytes");
    REJECT (fx_snapshot, fx.rd[0].bytes = 0, "snapshot.targets[0].read.bytes");
    ACCEPT (fx_snapshot, fx.rd[0].ops = 0; fx.rd[0].bytes = 0);

    REJECT (fx_done, fx.done.run = 0, "done.run");
    ACCEPT (fx_done, fx.done.error = strn (MSG_TEXT_MAX, 'x'));
    REJECT (fx_done, fx.done.error = strn (MSG_TEXT_MAX + 1, 'x'), "done.error");
    REJECT (fx_done, fx.done.error = "io_submit\n", "done.error");
    ACCEPT (fx_done, done_n (MSG_TARGETS_MAX));
    REJECT (fx_done, done_n (MSG_TARGETS_MAX + 1), "done.targets");
    REJECT (fx_done, fx.ts[0].target = MSG_TARGETS_MAX, "done.targets[0].target");
    ACCEPT (fx_done, done_depths (MSG_JOBS_MAX, JOB_MAX_IODEPTH));
    REJECT (fx_done, done_depths (MSG_JOBS_MAX + 1, 1), "done.latency_depth has");
    REJECT (fx_done, done_depths (2, JOB_MAX_IODEPTH + 1), "done.latency_depth[0]");
    REJECT (fx_done, fx.rd[1].bytes = fx.rd[1].ops - 1, "done.targets[1].read.bytes");
    REJECT (fx_done, fx.wr[0].histogram.len = HIST_WIRE_MAX + 1;
                     fx.wr[0].histogram.data = big_hist,
            "done.targets[0].write.histogram");
}

int
main (void)
{
    hist_setup ();          // test_message checks its encodings
    test_bounds_hello ();
    test_bounds_small ();
    test_bounds_prepare ();
    test_bounds_ready_snapshot_done ();
    return TEST_DONE ();
}
