/*  message.c: envelope packing and field-by-field validation. */
#include "message.h"
#include "direction.h"
#include "histogram.h"
#include "health.h"
#include "jobfile.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The parser's limit of ramp_time, startdelay, thinktime and
   latency_target / latency_window (an hour), in ns. */
#define DELAY_MAX_NS ((uint64_t) JOB_MAX_DELAY_S * NS_PER_SEC)

static int
fail (char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (err, errlen, fmt, ap);
    va_end (ap);
    return -EINVAL;
}

/* A text field must fit its limit and hold no control characters (they would
   corrupt logs and reports).  Returns 0 or -EINVAL with err filled. */
static int
check_text (const char *field, const char *s, size_t max, bool required,
            char *err, size_t errlen)
{
    if (!s)
        s = "";
    size_t n = strlen (s);
    if (required && n == 0)
        return fail (err, errlen, "%s is empty", field);
    if (n > max)
        return fail (err, errlen, "%s is %zu bytes, limit %zu", field, n, max);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char) s[i] < 0x20 || s[i] == 0x7f)
            return fail (err, errlen, "%s holds control character 0x%02x at byte %zu",
                         field, (unsigned char) s[i], i);
    /* Names and paths end up in JSON reports, which must be UTF-8. */
    long bad = utf8_invalid_at (s, n);
    if (bad >= 0)
        return fail (err, errlen, "%s is not valid UTF-8 (byte %ld)", field, bad);
    return 0;
}

/* Inventory JSON: bounded and UTF-8 here; its structure is the
   controller's to check (it parses it).  Returns 0 or -EINVAL. */
static int
check_inventory (const char *field, const char *s, char *err, size_t errlen)
{
    if (!s)
        return 0;
    size_t n = strlen (s);
    if (n > MSG_INVENTORY_MAX)
        return fail (err, errlen, "%s is %zu bytes, limit %u", field, n, MSG_INVENTORY_MAX);
    long bad = utf8_invalid_at (s, n);
    if (bad >= 0)
        return fail (err, errlen, "%s is not valid UTF-8 (byte %ld)", field, bad);
    return 0;
}

/* Direction dir of sample i of what ("snapshot.targets[3].read" in an
   error); the name is only made for an error (a snapshot of 24 drives is
   checked 72 times; printing each name was 2% of the controller's CPU). */
static int
check_dir (const char *what, size_t i, const char *dir, const Iofleet__DirStats *d, char *err,
           size_t errlen)
{
    if (!d)
        return 0;           /* absent = no I/O in that direction */
    const ProtobufCBinaryData *h[3] = { &d->histogram, &d->slat_histogram, &d->lat_histogram };
    static const char *names[3] = { "histogram", "slat_histogram", "lat_histogram" };
    for (int k = 0; k < 3; k++)
        if (h[k]->len > HIST_WIRE_MAX)
            return fail (err, errlen, "%s.targets[%zu].%s.%s is %zu bytes, limit %zu", what, i,
                         dir, names[k], h[k]->len, (size_t) HIST_WIRE_MAX);
    if (d->bytes < d->ops)
        return fail (err, errlen, "%s.targets[%zu].%s.bytes %llu < ops %llu", what, i, dir,
                     (unsigned long long) d->bytes, (unsigned long long) d->ops);
    return 0;
}

static int
check_samples (const char *what, size_t n, Iofleet__TargetSample **v,
               char *err, size_t errlen)
{
    if (n > MSG_TARGETS_MAX)
        return fail (err, errlen, "%s.targets has %zu entries, limit %d", what, n,
                     MSG_TARGETS_MAX);
    for (size_t i = 0; i < n; i++) {
        if (!v[i])
            return fail (err, errlen, "%s.targets[%zu] missing", what, i);
        if (v[i]->target >= MSG_TARGETS_MAX)
            return fail (err, errlen, "%s.targets[%zu].target %u, limit %d", what, i,
                         v[i]->target, MSG_TARGETS_MAX - 1);
        if (check_dir (what, i, "read", v[i]->read, err, errlen)
            || check_dir (what, i, "write", v[i]->write, err, errlen)
            || check_dir (what, i, "trim", v[i]->trim, err, errlen))
            return -EINVAL;
        if (v[i]->has_temperature
            && (v[i]->temperature_mc < MSG_TEMP_MIN_MC || v[i]->temperature_mc > MSG_TEMP_MAX_MC))
            return fail (err, errlen, "%s.targets[%zu].temperature_mc %d, limit %d..%d", what, i,
                         v[i]->temperature_mc, MSG_TEMP_MIN_MC, MSG_TEMP_MAX_MC);
    }
    return 0;
}

/* A per-target health list (ready.health, done.health): one per target
   or none (an agent of an older release), each bounded and UTF-8 here;
   its fields are the controller's to check (health_from_json).  Returns
   0 or -EINVAL. */
static int
check_health (const char *what, size_t n, char **v, size_t ntargets, char *err, size_t errlen)
{
    if (n && n != ntargets)
        return fail (err, errlen, "%s has %zu entries for %zu targets", what, n, ntargets);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen (v[i]);
        if (len > HEALTH_JSON_MAX)
            return fail (err, errlen, "%s[%zu] is %zu bytes, limit %d", what, i, len,
                         HEALTH_JSON_MAX);
        long bad = utf8_invalid_at (v[i], len);
        if (bad >= 0)
            return fail (err, errlen, "%s[%zu] is not valid UTF-8 (byte %ld)", what, i, bad);
    }
    return 0;
}

static int
check_bssplit (const char *field, size_t n, Iofleet__BsSplit **v, char *err, size_t errlen)
{
    if (n > JOB_BSSPLIT_MAX)
        return fail (err, errlen, "%s has %zu entries, limit %d", field, n, JOB_BSSPLIT_MAX);
    uint32_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!v[i] || v[i]->bs == 0 || v[i]->bs > JOB_MAX_BS || v[i]->pct > 100)
            return fail (err, errlen, "%s[%zu]: bs 1..%u and pct 0..100", field, i, JOB_MAX_BS);
        sum += v[i]->pct;
    }
    if (n && sum != 100)
        return fail (err, errlen, "%s percentages sum to %u, not 100", field, sum);
    return 0;
}

/* A log path (or prefix) the agent writes under; the agent checks the
   files against its policy, this only keeps the text sane.  A relative
   one resolves in the agent's --workdir, so a ".." component could only
   mean leaving it.  Returns 0 or -EINVAL. */
static int
check_log_path (const char *field, const char *s, char *err, size_t errlen)
{
    if (check_text (field, s, JOB_LATLOG_MAX - 1, false, err, errlen))
        return -EINVAL;
    if (!s || !s[0] || s[0] == '/')
        return 0;
    for (const char *c = s;; ) {
        size_t n = strcspn (c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.')
            return fail (err, errlen, "%s '%s' is relative and has a '..' component (relative "
                         "logs stay inside the agent's --workdir)", field, s);
        if (c[n] == '\0')
            return 0;
        c += n + 1;
    }
}

/* write_lat_log and write_iolog: their paths, the one worker an iolog is
   of, and the worker numbers a latency log is named by.  Returns 0 or
   -EINVAL. */
static int
check_logs (const Iofleet__JobSpec *j, char *err, size_t errlen)
{
    if (check_log_path ("job.write_lat_log", j->write_lat_log, err, errlen)
        || check_log_path ("job.write_bw_log", j->write_bw_log, err, errlen)
        || check_log_path ("job.write_iops_log", j->write_iops_log, err, errlen)
        || check_log_path ("job.write_iolog", j->write_iolog, err, errlen)
        || check_log_path ("job.read_iolog", j->read_iolog, err, errlen)
        || check_log_path ("job.replay_redirect", j->replay_redirect, err, errlen))
        return -EINVAL;
    if (j->write_iolog && j->write_iolog[0] && j->numjobs > 1)
        return fail (err, errlen, "job.write_iolog with numjobs %u: one worker's log",
                     j->numjobs);
    if (j->read_iolog && j->read_iolog[0] && j->numjobs > 1)
        return fail (err, errlen, "job.read_iolog with numjobs %u: one worker replays a log",
                     j->numjobs);
    if (j->latency_target_ns && (j->latency_target_ns > DELAY_MAX_NS || !j->latency_window_ns
                                 || j->latency_window_ns > DELAY_MAX_NS || j->numjobs > 1
                                 || !(j->latency_percentile >= 0 && j->latency_percentile <= 100)))
        return fail (err, errlen, "job.latency_target_ns %llu: its window (1 ns .. 1 hour), "
                     "percentile (0..100) or numjobs (1) is out of its limits",
                     (unsigned long long) j->latency_target_ns);
    if (j->rate_min_read > JOB_MAX_RATE_BYTES || j->rate_min_write > JOB_MAX_RATE_BYTES
        || j->rate_iops_min_read > JOB_MAX_RATE_IOPS || j->rate_iops_min_write > JOB_MAX_RATE_IOPS
        || j->rate_cycle_ms > 3600000)
        return fail (err, errlen, "job.rate_min / rate_iops_min / rate_cycle_ms over its limit");
    if (j->perc_seq_read > 100 || j->perc_seq_write > 100)
        return fail (err, errlen, "job.perc_seq_read/write %u/%u, limit 0..100",
                     j->perc_seq_read, j->perc_seq_write);
    if (j->fadvise > JOB_FADV_RANDOM)
        return fail (err, errlen, "job.fadvise %u, limit 0..%d", j->fadvise, JOB_FADV_RANDOM);
    if (j->rw_seq_nr > JOB_MAX_SEQ_NR)
        return fail (err, errlen, "job.rw_seq_nr %u, limit %u", j->rw_seq_nr, JOB_MAX_SEQ_NR);
    if (j->replay_align & (j->replay_align - 1))
        return fail (err, errlen, "job.replay_align %u is not a power of 2", j->replay_align);
    bool logs = (j->write_lat_log && j->write_lat_log[0]) || (j->write_bw_log && j->write_bw_log[0])
             || (j->write_iops_log && j->write_iops_log[0]);
    if (!logs)
        return 0;
    uint32_t first = j->thread_number ? j->thread_number : 1;
    if ((uint64_t) first + j->numjobs - 1 > JOB_THREADS_MAX)
        return fail (err, errlen, "job.thread_number %u with numjobs %u, limit: the last "
                     "worker's number at most %d", j->thread_number, j->numjobs,
                     JOB_THREADS_MAX);
    return 0;
}

/* The options of the engine-parity issue: block size mixes, batching,
   rates, randomness, steady state, buffers.  Returns 0 or -EINVAL. */
static int
check_job_more (const Iofleet__JobSpec *j, char *err, size_t errlen)
{
    if (j->bs_write == 0 || j->bs_write > JOB_MAX_BS)
        return fail (err, errlen, "job.bs_write %u, limit 1..%u", j->bs_write, JOB_MAX_BS);
    uint32_t lo[2] = { j->bsrange_min_read, j->bsrange_min_write };
    uint32_t hi[2] = { j->bsrange_max_read, j->bsrange_max_write };
    for (int d = 0; d < 2; d++)
        if (hi[d] > JOB_MAX_BS || lo[d] > hi[d] || (lo[d] == 0) != (hi[d] == 0))
            return fail (err, errlen, "job.bsrange (%s) %u-%u, limit 1..%u with min <= max",
                         d ? "write" : "read", lo[d], hi[d], JOB_MAX_BS);
    if (check_bssplit ("job.bssplit_read", j->n_bssplit_read, j->bssplit_read, err, errlen)
        || check_bssplit ("job.bssplit_write", j->n_bssplit_write, j->bssplit_write, err, errlen))
        return -EINVAL;
    if (j->iodepth_batch_submit == 0 || j->iodepth_batch_submit > j->iodepth)
        return fail (err, errlen, "job.iodepth_batch_submit %u, limit 1..iodepth (%u)",
                     j->iodepth_batch_submit, j->iodepth);
    if (j->iodepth_batch_complete_min == 0 || j->iodepth_batch_complete_min > j->iodepth)
        return fail (err, errlen, "job.iodepth_batch_complete_min %u, limit 1..iodepth (%u)",
                     j->iodepth_batch_complete_min, j->iodepth);
    if (j->startdelay_ns > DELAY_MAX_NS || j->thinktime_ns > DELAY_MAX_NS)
        return fail (err, errlen, "job.startdelay_ns / thinktime_ns over the limit of 1 hour");
    if (j->blockalign_read > JOB_MAX_BS || j->blockalign_write > JOB_MAX_BS)
        return fail (err, errlen, "job.blockalign over the limit of %u", JOB_MAX_BS);
    if (j->rate_iops_read > JOB_MAX_RATE_IOPS || j->rate_iops_write > JOB_MAX_RATE_IOPS)
        return fail (err, errlen, "job.rate_iops over the limit of %u", JOB_MAX_RATE_IOPS);
    if (j->rate_bytes_read > JOB_MAX_RATE_BYTES || j->rate_bytes_write > JOB_MAX_RATE_BYTES)
        return fail (err, errlen, "job.rate_bytes over the limit of %llu",
                     (unsigned long long) JOB_MAX_RATE_BYTES);
    if (j->n_zones > DIST_ZONES_MAX)
        return fail (err, errlen, "job.zones: %zu zones, limit %d", j->n_zones, DIST_ZONES_MAX);
    dist_t dist = { .kind = (job_dist_t) j->random_distribution, .param = j->dist_param,
                    .centered = j->dist_centered, .center = j->dist_center,
                    .nzones = (int) j->n_zones };
    for (size_t z = 0; z < j->n_zones; z++) {
        if (!j->zones[z])
            return fail (err, errlen, "job.zones[%zu] is empty", z);
        dist.zones[z].access_pct = j->zones[z]->access_pct;
        dist.zones[z].size = j->zones[z]->size;
    }
    char why[160];
    if (dist_check (&dist, why, sizeof why))
        return fail (err, errlen, "job.random_distribution: %s", why);
    if (check_text ("job.cpus_allowed", j->cpus_allowed, JOB_CPUS_MAX - 1, false, err, errlen))
        return -EINVAL;
    uint64_t cpus[JOB_CPUS_MAX / 64];
    if (j->cpus_allowed && j->cpus_allowed[0] && job_parse_cpus (j->cpus_allowed, cpus) != 0)
        return fail (err, errlen, "job.cpus_allowed '%s' is not a CPU list below %d",
                     j->cpus_allowed, JOB_CPUS_MAX);
    if ((unsigned) j->ss > IOFLEET__STEADY_STATE__SS_BW_SLOPE)
        return fail (err, errlen, "job.ss %d, limit 0..4", (int) j->ss);
    if (j->ss != IOFLEET__STEADY_STATE__SS_NONE
        && (!(j->ss_limit >= 0 && j->ss_limit < 1e18) || j->ss_dur_ns < 2 * j->interval_ns
            || j->ss_dur_ns > (uint64_t) JOB_MAX_SS_S * NS_PER_SEC
            || j->ss_ramp_ns > (uint64_t) JOB_MAX_SS_S * NS_PER_SEC))
        return fail (err, errlen, "job.ss: limit >= 0, ss_dur 2 intervals..24 h, ss_ramp <= 24 h");
    if (j->buffer_compress_percentage > 100)
        return fail (err, errlen, "job.buffer_compress_percentage %u, limit 0..100",
                     j->buffer_compress_percentage);
    return 0;
}

static int
check_job (const Iofleet__JobSpec *j, char *err, size_t errlen)
{
    if (!j)
        return fail (err, errlen, "prepare.job missing");
    if (check_text ("job.name", j->name, MSG_NAME_MAX, true, err, errlen)
        || check_text ("job.ioengine", j->ioengine, MSG_NAME_MAX, true, err, errlen))
        return -EINVAL;
    if ((unsigned) j->rw > IOFLEET__RW__RW_RANDTRIMWRITE)
        return fail (err, errlen, "job.rw %d, limit 0..%d", (int) j->rw,
                     IOFLEET__RW__RW_RANDTRIMWRITE);
    if (j->rwmixread > 100)
        return fail (err, errlen, "job.rwmixread %u, limit 0..100", j->rwmixread);
    if (j->bs == 0 || j->bs > (64u << 20))
        return fail (err, errlen, "job.bs %u, limit 1..%u", j->bs, 64u << 20);
    if (j->iodepth == 0 || j->iodepth > 65536)
        return fail (err, errlen, "job.iodepth %u, limit 1..65536", j->iodepth);
    if (j->numjobs == 0 || j->numjobs > 1024)
        return fail (err, errlen, "job.numjobs %u, limit 1..1024", j->numjobs);
    if (j->size_pct > 100)
        return fail (err, errlen, "job.size_pct %u, limit 0..100", j->size_pct);
    if (j->offset_pct > 99)
        return fail (err, errlen, "job.offset_pct %u, limit 0..99", j->offset_pct);
    if (j->n_filenames == 0 || j->n_filenames > MSG_TARGETS_MAX)
        return fail (err, errlen, "job.filenames has %zu entries, limit 1..%d",
                     j->n_filenames, MSG_TARGETS_MAX);
    for (size_t i = 0; i < j->n_filenames; i++) {
        char f[48];
        snprintf (f, sizeof f, "job.filenames[%zu]", i);
        if (check_text (f, j->filenames[i], MSG_PATH_MAX, true, err, errlen))
            return -EINVAL;
    }
    if ((unsigned) j->verify > IOFLEET__VERIFY_KIND__VERIFY_MD5)
        return fail (err, errlen, "job.verify %d, limit 0..%d", (int) j->verify,
                     IOFLEET__VERIFY_KIND__VERIFY_MD5);
    if (j->verify_backlog > JOB_MAX_VERIFY_BACKLOG)
        return fail (err, errlen, "job.verify_backlog %u, limit 0..%u", j->verify_backlog,
                     JOB_MAX_VERIFY_BACKLOG);
    if (j->rw_skip > JOB_MAX_RW_SKIP || (j->rw_skip && j->rw_skip % j->bs))
        return fail (err, errlen, "job.rw_skip %llu, limit 0..%llu, a multiple of job.bs",
                     (unsigned long long) j->rw_skip, (unsigned long long) JOB_MAX_RW_SKIP);
    if (j->loops > JOB_MAX_LOOPS)
        return fail (err, errlen, "job.loops %u, limit 0..%u", j->loops, JOB_MAX_LOOPS);
    if (j->io_size > UINT64_MAX >> 1)
        return fail (err, errlen, "job.io_size %llu, limit %llu", (unsigned long long) j->io_size,
                     (unsigned long long) (UINT64_MAX >> 1));
    if (j->number_ios > UINT64_MAX >> 1)
        return fail (err, errlen, "job.number_ios %llu, limit %llu",
                     (unsigned long long) j->number_ios, (unsigned long long) (UINT64_MAX >> 1));
    /* The last worker's region start must not wrap. */
    if (j->offset_increment > (UINT64_MAX >> 2) / (j->numjobs ? j->numjobs : 1))
        return fail (err, errlen, "job.offset_increment %llu with numjobs %u, limit %llu in all",
                     (unsigned long long) j->offset_increment, j->numjobs,
                     (unsigned long long) (UINT64_MAX >> 2));
    if (j->files_per_worker
        && j->n_filenames != (uint64_t) j->numjobs * j->files_per_worker)
        return fail (err, errlen, "job.files_per_worker %u with %zu filenames for numjobs %u: "
                     "numjobs x files_per_worker", j->files_per_worker, j->n_filenames,
                     j->numjobs);
    if (j->runtime_ns > 7ull * 24 * 3600 * 1000000000ull)
        return fail (err, errlen, "job.runtime_ns %llu, limit 7 days",
                     (unsigned long long) j->runtime_ns);
    if (j->ramp_time_ns > DELAY_MAX_NS)
        return fail (err, errlen, "job.ramp_time_ns %llu, limit 1 hour",
                     (unsigned long long) j->ramp_time_ns);
    if (j->runtime_ns == 0 && j->time_based)
        return fail (err, errlen, "job.time_based without runtime");
    if (check_job_more (j, err, errlen) || check_logs (j, err, errlen))
        return -EINVAL;
    if (j->interval_ns < MSG_INTERVAL_MIN_NS || j->interval_ns > MSG_INTERVAL_MAX_NS)
        return fail (err, errlen, "job.interval_ns %llu, limit %llu..%llu",
                     (unsigned long long) j->interval_ns, MSG_INTERVAL_MIN_NS,
                     MSG_INTERVAL_MAX_NS);
    return 0;
}

/* Validates the body of an envelope whose version matched.
   Returns 0 or -EINVAL with err naming the field and its limit. */
static int
validate (const envelope_t *e, char *err, size_t errlen)
{
    switch (e->body_case) {
    case IOFLEET__ENVELOPE__BODY__NOT_SET:
        return fail (err, errlen, "envelope has no body");
    case IOFLEET__ENVELOPE__BODY_HELLO: {
        const Iofleet__Hello *h = e->hello;
        if (check_text ("hello.name", h->name, MSG_NAME_MAX, true, err, errlen)
            || check_text ("hello.hostname", h->hostname, MSG_TEXT_MAX, false, err, errlen)
            || check_text ("hello.kernel", h->kernel, MSG_TEXT_MAX, false, err, errlen)
            || check_text ("hello.agent_version", h->agent_version, MSG_NAME_MAX, false,
                           err, errlen)
            || check_text ("hello.instance", h->instance, MSG_NAME_MAX, false, err, errlen))
            return -EINVAL;
        if (check_inventory ("hello.inventory_json", h->inventory_json, err, errlen))
            return -EINVAL;
        if (h->job_state != IOFLEET__JOB_STATE__JOB_NONE
            && h->job_state != IOFLEET__JOB_STATE__JOB_ACTIVE
            && h->job_state != IOFLEET__JOB_STATE__JOB_FINISHED)
            return fail (err, errlen, "hello.job_state %d unknown", (int) h->job_state);
        if (h->n_labels > MSG_LABELS_MAX)
            return fail (err, errlen, "hello.labels has %zu entries, limit %d", h->n_labels,
                         MSG_LABELS_MAX);
        for (size_t i = 0; i < h->n_labels; i++) {
            if (!h->labels[i])
                return fail (err, errlen, "hello.labels[%zu] missing", i);
            if (check_text ("hello.labels.key", h->labels[i]->key, MSG_NAME_MAX, true, err,
                            errlen)
                || check_text ("hello.labels.value", h->labels[i]->value,
                               MSG_LABEL_VALUE_MAX, false, err, errlen))
                return -EINVAL;
        }
        return 0;
    }
    case IOFLEET__ENVELOPE__BODY_WELCOME:
        if (e->welcome->interval_ns < MSG_INTERVAL_MIN_NS
            || e->welcome->interval_ns > MSG_INTERVAL_MAX_NS)
            return fail (err, errlen, "welcome.interval_ns %llu out of range",
                         (unsigned long long) e->welcome->interval_ns);
        return check_text ("welcome.controller_version", e->welcome->controller_version,
                           MSG_NAME_MAX, false, err, errlen);      /* empty before 0.2.0 */
    case IOFLEET__ENVELOPE__BODY_REJECT:
        return check_text ("reject.reason", e->reject->reason, MSG_TEXT_MAX, false, err,
                           errlen);
    case IOFLEET__ENVELOPE__BODY_PING:
        if (e->ping->t0 == 0)
            return fail (err, errlen, "ping.t0 is 0");
        return 0;
    case IOFLEET__ENVELOPE__BODY_PONG:
        if (e->pong->t0 == 0 || e->pong->t1 == 0 || e->pong->t2 < e->pong->t1)
            return fail (err, errlen, "pong timestamps inconsistent (t2 < t1 or zero)");
        return 0;
    case IOFLEET__ENVELOPE__BODY_PREPARE: {
        const Iofleet__Prepare *p = e->prepare;
        if (p->run == 0)
            return fail (err, errlen, "prepare.run is 0");
        if (p->n_more_jobs >= MSG_JOBS_MAX)
            return fail (err, errlen, "prepare.more_jobs has %zu entries, limit %d",
                         p->n_more_jobs, MSG_JOBS_MAX - 1);
        if (check_job (p->job, err, errlen))
            return -EINVAL;
        size_t ntargets = p->job->n_filenames;
        for (size_t i = 0; i < p->n_more_jobs; i++) {
            if (check_job (p->more_jobs[i], err, errlen))
                return -EINVAL;
            ntargets += p->more_jobs[i]->n_filenames;
        }
        if (ntargets > MSG_TARGETS_MAX)
            return fail (err, errlen, "prepare names %zu targets over its jobs, limit %d",
                         ntargets, MSG_TARGETS_MAX);
        return 0;
    }
    case IOFLEET__ENVELOPE__BODY_READY:
        if (e->ready->run == 0)
            return fail (err, errlen, "ready.run is 0");
        if (e->ready->n_targets == 0 || e->ready->n_targets > MSG_TARGETS_MAX)
            return fail (err, errlen, "ready.targets has %zu entries, limit 1..%d",
                         e->ready->n_targets, MSG_TARGETS_MAX);
        for (size_t i = 0; i < e->ready->n_targets; i++)
            if (check_text ("ready.targets[]", e->ready->targets[i], MSG_PATH_MAX, true, err,
                            errlen))
                return -EINVAL;
        /* One per target, or none (an agent of an older release). */
        if (e->ready->n_planned_bytes && e->ready->n_planned_bytes != e->ready->n_targets)
            return fail (err, errlen, "ready.planned_bytes has %zu entries for %zu targets",
                         e->ready->n_planned_bytes, e->ready->n_targets);
        if (check_health ("ready.health", e->ready->n_health, e->ready->health,
                          e->ready->n_targets, err, errlen))
            return -EINVAL;
        return check_inventory ("ready.inventory_json", e->ready->inventory_json, err, errlen);
    case IOFLEET__ENVELOPE__BODY_REFUSED:
        return check_text ("refused.reason", e->refused->reason, MSG_TEXT_MAX, true, err,
                           errlen);
    case IOFLEET__ENVELOPE__BODY_START:
        if (e->start->run == 0 || e->start->start_at == 0)
            return fail (err, errlen, "start.run or start.start_at is 0");
        return 0;
    case IOFLEET__ENVELOPE__BODY_SNAPSHOT: {
        const Iofleet__Snapshot *s = e->snapshot;
        if (s->run == 0)
            return fail (err, errlen, "snapshot.run is 0");
        if (s->t_end < s->t_start)
            return fail (err, errlen, "snapshot.t_end < t_start");
        if (s->seq > 100u * 1000 * 1000)
            return fail (err, errlen, "snapshot.seq %u, limit 100000000", s->seq);
        return check_samples ("snapshot", s->n_targets, s->targets, err, errlen);
    }
    case IOFLEET__ENVELOPE__BODY_ACK:
        if (e->ack->n_seqs > MSG_ACK_SEQS_MAX)
            return fail (err, errlen, "ack.seqs has %zu entries, limit %d", e->ack->n_seqs,
                         MSG_ACK_SEQS_MAX);
        return 0;
    case IOFLEET__ENVELOPE__BODY_DONE:
        if (e->done->run == 0)
            return fail (err, errlen, "done.run is 0");
        if (check_text ("done.error", e->done->error, MSG_TEXT_MAX, false, err, errlen))
            return -EINVAL;
        if (e->done->n_latency_depth > MSG_JOBS_MAX)
            return fail (err, errlen, "done.latency_depth has %zu entries, limit %d",
                         e->done->n_latency_depth, MSG_JOBS_MAX);
        for (size_t i = 0; i < e->done->n_latency_depth; i++)
            if (e->done->latency_depth[i] > JOB_MAX_IODEPTH)
                return fail (err, errlen, "done.latency_depth[%zu] %u, limit %d", i,
                             e->done->latency_depth[i], JOB_MAX_IODEPTH);
        if (check_health ("done.health", e->done->n_health, e->done->health,
                          e->done->n_totals, err, errlen))
            return -EINVAL;
        return check_samples ("done", e->done->n_totals, e->done->totals, err, errlen);
    case IOFLEET__ENVELOPE__BODY_ERROR:
        return check_text ("error.message", e->error->message, MSG_TEXT_MAX, false, err,
                           errlen);
    case IOFLEET__ENVELOPE__BODY_ABORT:
        return check_text ("abort.reason", e->abort->reason, MSG_TEXT_MAX, false, err,
                           errlen);
    default:
        return fail (err, errlen, "unknown body case %d", (int) e->body_case);
    }
}

static uint32_t s_protocol = IOF_PROTOCOL_VERSION;

void message_set_protocol (uint32_t version) { s_protocol = version; }
uint32_t message_protocol (void) { return s_protocol; }

uint8_t *
message_pack (envelope_t *env, size_t *len)
{
    env->version = s_protocol;
    size_t n = iofleet__envelope__get_packed_size (env);
    uint8_t *buf = malloc (n ? n : 1);
    if (!buf)
        return NULL;
    *len = iofleet__envelope__pack (env, buf);
    return buf;
}

envelope_t *
message_unpack (const uint8_t *buf, size_t len, int *version_mismatch, char *err,
                size_t errlen)
{
    *version_mismatch = 0;
    if (len == 0) {
        fail (err, errlen, "empty message");
        return NULL;
    }
    if (len > MSG_MAX_BYTES) {
        fail (err, errlen, "message is %zu bytes, limit %u", len, MSG_MAX_BYTES);
        return NULL;
    }
    envelope_t *e = iofleet__envelope__unpack (NULL, len, buf);
    if (!e) {
        fail (err, errlen, "not a valid iofleet envelope (%zu bytes failed to parse)", len);
        return NULL;
    }
    if (e->version != s_protocol) {
        *version_mismatch = 1;
        fail (err, errlen, "protocol version %u, this side speaks %u", e->version, s_protocol);
        return e;
    }
    if (validate (e, err, errlen) != 0) {
        iofleet__envelope__free_unpacked (e, NULL);
        return NULL;
    }
    return e;
}

void
message_free (envelope_t *env)
{
    if (env)
        iofleet__envelope__free_unpacked (env, NULL);
}

/* The body case of buf (see message.h).  Can't fail. */
int
message_body_case (const uint8_t *buf, size_t len)
{
    if (!buf || len == 0 || len > MSG_MAX_BYTES)
        return 0;
    envelope_t *e = iofleet__envelope__unpack (NULL, len, buf);
    if (!e)
        return 0;
    int kind = (int) e->body_case;
    iofleet__envelope__free_unpacked (e, NULL);
    return kind;
}

const char *
message_kind (const envelope_t *e)
{
    static const char *names[] = {
        [10] = "hello", [11] = "welcome", [12] = "reject", [13] = "ping",
        [14] = "pong", [15] = "prepare", [16] = "ready", [17] = "refused",
        [18] = "start", [19] = "snapshot", [20] = "ack", [21] = "done",
        [22] = "error", [23] = "abort",
    };
    int c = (int) e->body_case;
    if (c >= 10 && c <= 23)
        return names[c];
    return "none";
}

const Iofleet__DirStats *
message_sample_dir (const Iofleet__TargetSample *t, int d)
{
    if (!t)
        return NULL;
    return d == DIR_READ ? t->read : d == DIR_WRITE ? t->write : d == DIR_TRIM ? t->trim : NULL;
}
