/*  job_opts.c: a job's options as its section's lines set them, each
    line applied as fio would read it (see job_opts.h).

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
*/
#include "job_opts.h"
#include "sla.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NELEM(a) (sizeof (a) / sizeof ((a)[0]))

/* The defaults of a job with no options: fio's (ioengine=psync, its HOWTO's
   "default on all supported operating systems except for Windows", so an
   iodepth without ioengine= runs one I/O at a time there too).  Can't fail. */
void
job_opts_default (job_opts_t *o)
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
    o->job.loops = JOB_DEFAULT_LOOPS;
    o->job.replay_time_scale = JOB_DEFAULT_REPLAY_TIME_SCALE;
    o->job.perc_random[0] = o->job.perc_random[1] = 100;
    o->job.latency_percentile = JOB_DEFAULT_LAT_PERCENTILE;
    o->job.replay_scale = JOB_DEFAULT_REPLAY_SCALE;
    o->job.do_verify = true;
    o->job.randrepeat = true;
    o->job.dist.kind = JOB_DIST_RANDOM;
    o->job.ss = JOB_SS_NONE;
    o->batch_submit_key = "iodepth_batch_submit";
    o->batch_complete_key = "iodepth_batch_complete_min";
    o->ss_key = "steadystate";
}

/* Parses one of the per-direction options (bs, bsrange, bssplit,
   rate_iops) into o, and notes the line of each direction it sets.
   Nothing changes on error.  Returns 0, or -1 with the error set. */
static int
s_parse_per_dir (parser_t *p, int line, job_opts_t *o, opt_id_t id, const char *key,
                 const char *value)
{
    if (id == OPT_BS && sweep_count_parts (value) >= 3) {
        /* A sweep: fio's bs takes at most reads,writes,trims, and a trim
           size is refused anyway, so three sizes or more are a list. */
        if (sweep_parse (p, line, key, value, SWEEP_BS, &o->sweep_bs))
            return -1;
        o->job.bs[0] = o->job.bs[1] = o->sweep_bs.v[0];
        o->bs_line[0] = o->bs_line[1] = line;
        return 0;
    }
    if (id == OPT_BS
    &&  optval_refuse_colon_dash (p, line, key, value, "; bsrange= gives a range of sizes"))
        return -1;
    if ((id == OPT_BLOCKALIGN || id == OPT_PERC_RANDOM || id == OPT_RATE_MIN
         || id == OPT_RATE_IOPS_MIN)
        && optval_refuse_colon_dash (p, line, key, value, ""))
        return -1;
    if ((id == OPT_RATE_IOPS || id == OPT_RATE)
        && optval_refuse_colon_dash (p, line, key, value, ""))
        return -1;
    char *buf = strdup (value);
    if (!buf) {
        optval_error (p, line, "out of memory");
        return -1;
    }
    job_t *job = &o->job;
    job_t next = *job;
    char *part[2];
    int rc = optval_split_dirs (p, line, key, value, buf, part);
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
            rc = optval_bs_part (p, line, key, value, part[d], &next.bs[d]);
            break;
        case OPT_BLOCKALIGN:
            rc = optval_bs_part (p, line, key, value, part[d], &next.blockalign[d]);
            break;
        case OPT_PERC_RANDOM:
            rc = optval_pct_part (p, line, key, value, part[d], &next.perc_random[d]);
            break;
        case OPT_RATE_MIN:
            rc = optval_bytes_rate_part (p, line, key, value, part[d], &next.rate_min[d]);
            break;
        case OPT_RATE_IOPS_MIN:
            rc = optval_rate_part (p, line, key, value, part[d], &next.rate_iops_min[d]);
            break;
        case OPT_BSRANGE:
            rc = optval_range_part (p, line, key, value, part[d],
                                    &next.bsrange_min[d], &next.bsrange_max[d]);
            break;
        case OPT_BSSPLIT:
            rc = optval_bssplit_part (p, line, key, value, part[d],
                                      next.bssplit[d], &next.nbssplit[d]);
            break;
        case OPT_RATE:
            rc = optval_bytes_rate_part (p, line, key, value, part[d], &next.rate[d]);
            break;
        default:
            rc = optval_rate_part (p, line, key, value, part[d], &next.rate_iops[d]);
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
            optval_error (p, line, "%s=%.*s sets only %s, but the bs sweep of line %d sets both "
                          "directions (give both, bs=READS,WRITES, to replace the sweep)",
                          key, OPTVAL_SHOW, value, part[0] ? "reads" : "writes", o->sweep_bs.line);
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

/* Applies one supported option to o.  value is NULL for a bare key.
   Returns 0, or -1 with the error set. */
static int
s_apply (parser_t *p, int line, bool in_global, job_opts_t *o, int idx,
         const char *key, const char *value)
{
    job_t *job = &o->job;
    uint64_t v;
    bool b;

    if (!value) {
        /* Only fio's "set" options get here (checked by the caller). */
        value = "1";
    }
    opt_id_t id = option_at (idx)->id;
    switch (id) {
    case OPT_IOENGINE:
        if (job_engine_known (value)) {
            strcpy (job->ioengine, value);
            return 0;
        }
        if (fio_engine_unsupported (value)
        ||  strncmp (value, "external:", 9) == 0 || strchr (value, '/'))
            optval_error (p, line, "ioengine '%.*s' is not supported by iofleet yet (supported: "
                          JOB_ENGINES ")", OPTVAL_SHOW, value);
        else
            optval_error (p, line, "ioengine '%.*s' is not an fio ioengine (supported: "
                          JOB_ENGINES ")", OPTVAL_SHOW, value);
        return -1;

    case OPT_DIRECT:
    case OPT_BUFFERED:
        if (optval_bool (p, line, key, value, &b))
            return -1;
        job->direct = id == OPT_DIRECT ? b : !b;
        o->direct_line = line;
        return 0;

    case OPT_RW: {
        /* fio has no ',' in rw: a list is a sweep. */
        if (strchr (value, ',')) {
            if (sweep_parse (p, line, key, value, SWEEP_RW, &o->sweep_rw))
                return -1;
            job->rw = (job_rw_t) o->sweep_rw.v[0];
            return 0;
        }
        job_rw_t m;
        uint64_t mod;
        if (optval_rw_mode (p, line, key, value, value, &m, &mod))
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
        if (optval_uint (p, line, key, value, 0, 100, &v))
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
            if (sweep_parse (p, line, key, value, SWEEP_IODEPTH, &o->sweep_iodepth))
                return -1;
            job->iodepth = o->sweep_iodepth.v[0];
            return 0;
        }
        if (optval_uint (p, line, key, value, 1, JOB_MAX_IODEPTH, &v))
            return -1;
        job->iodepth = (uint32_t) v;
        o->sweep_iodepth.n = 0;
        return 0;

    case OPT_BATCH_SUBMIT:
        /* 0 is fio's "the iodepth", resolved at the end of the job. */
        if (optval_uint (p, line, key, value, 0, JOB_MAX_IODEPTH, &v))
            return -1;
        job->iodepth_batch_submit = (uint32_t) v;
        o->batch_submit_line = line;
        o->batch_submit_key = option_at (idx)->name;
        return 0;

    case OPT_BATCH_COMPLETE:
        /* 0 is fio's "poll: do not wait for a completion". */
        if (optval_uint (p, line, key, value, 0, JOB_MAX_IODEPTH, &v))
            return -1;
        job->iodepth_batch_complete_min = (uint32_t) v;
        o->batch_complete_line = line;
        o->batch_complete_key = option_at (idx)->name;
        return 0;

    case OPT_SLA: {
        /* iofleet's own option: service-level conditions (common/sla.h). */
        sla_t sla;
        char why[256];
        if (strlen (value) >= sizeof job->sla || sla_parse (value, &sla, why, sizeof why)) {
            optval_error (p, line, "iofleet_sla: %s", strlen (value) >= sizeof job->sla
                          ? "longer than 511 characters" : why);
            return -1;
        }
        memcpy (job->sla, value, strlen (value) + 1);
        return 0;
    }

    case OPT_NUMJOBS:
        if (optval_uint (p, line, key, value, 1, JOB_MAX_NUMJOBS, &v))
            return -1;
        job->numjobs = (uint32_t) v;
        o->numjobs_line = line;
        return 0;

    case OPT_SIZE:
        return optval_size_or_pct (p, line, key, value, 1, 100,
                                   &job->size, &job->size_pct);

    case OPT_OFFSET:
        return optval_size_or_pct (p, line, key, value, 0, 99,
                                   &job->offset, &job->offset_pct);

    case OPT_FILENAME: {
        size_t len = strlen (value);
        if (len > JOB_FILENAME_MAX - 1) {
            optval_error (p, line, "%s is %zu bytes long (the limit is %d)",
                          key, len, JOB_FILENAME_MAX - 1);
            return -1;
        }
        if (optval_path_text (p, line, key, value))
            return -1;
        /* Empty names between ':'s are skipped; a list of nothing else
           would leave the job without a target. */
        if (len && strspn (value, ":") == len) {
            optval_error (p, line, "%s=%.*s names no file", key, OPTVAL_SHOW, value);
            return -1;
        }
        memcpy (job->filename, value, len + 1);
        return 0;
    }

    case OPT_EXITALL:
        return optval_bool (p, line, key, value, &job->exitall);

    case OPT_EXIT_WHAT:
        /* Measured on fio 3.33 with exitall, [a] 1 s, [b] 3 s, then [c]
           after a stonewall: group and stonewall stop b when a ends and
           still run c; all runs nothing more (c 0 I/Os). */
        if (strcmp (value, "group") && strcmp (value, "stonewall") && strcmp (value, "all")) {
            optval_error (p, line, "exit_what=%.*s is not one of fio's: group, stonewall, all",
                          OPTVAL_SHOW, value);
            return -1;
        }
        job->exit_what_all = strcmp (value, "all") == 0;
        return 0;

    case OPT_SUBMIT_MODE:
        /* inline (fio's default) is how iofleet submits; offload hands
           submission to a pool of fio threads. */
        if (strcmp (value, "inline") == 0)
            return 0;
        optval_error (p, line, "io_submit_mode=%.*s: %s", OPTVAL_SHOW, value,
                      strcmp (value, "offload") == 0
                      ? "offloaded submission is not supported by iofleet yet (inline is)"
                      : "not one of fio's: inline, offload");
        return -1;

    case OPT_CREATE_SERIALIZE:
        /* fio lays files out one at a time (1, its default) or together:
           the same files and I/O either way, and iofleet lays them out
           one at a time. */
        return optval_bool (p, line, key, value, &b);

    case OPT_REFILL:
        return optval_bool (p, line, key, value, &job->refill_buffers);

    case OPT_SCRAMBLE:
        return optval_bool (p, line, key, value, &job->scramble_buffers);

    case OPT_WRITE_IOLOG:
        if (optval_log_path (p, line, key, value, "path", "it", job->write_iolog))
            return -1;
        o->iolog_line = line;
        return 0;

    case OPT_READ_IOLOG:
        if (optval_log_path (p, line, key, value, "path", "it", job->read_iolog))
            return -1;
        o->read_iolog_line = line;
        return 0;

    case OPT_REPLAY_NO_STALL:
        return optval_bool (p, line, key, value, &job->replay_no_stall);

    case OPT_REPLAY_REDIRECT:
        return optval_log_path (p, line, key, value, "path", "the replay",
                                job->replay_redirect);

    case OPT_REPLAY_TIME_SCALE:
        /* fio: percent of the logged pace (200 replays twice as fast). */
        if (optval_uint (p, line, key, value, 1, 1000000, &v))
            return -1;
        job->replay_time_scale = (uint32_t) v;
        return 0;

    case OPT_REPLAY_ALIGN:
        if (optval_uint (p, line, key, value, 1, JOB_MAX_BS, &v))
            return -1;
        if (v & (v - 1)) {
            optval_error (p, line, "%s=%.*s is not a power of 2 (fio masks offsets with it)", key,
                          OPTVAL_SHOW, value);
            return -1;
        }
        job->replay_align = (uint32_t) v;
        return 0;

    case OPT_REPLAY_SCALE:
        if (optval_uint (p, line, key, value, 1, UINT32_MAX, &v))
            return -1;
        job->replay_scale = (uint32_t) v;
        return 0;

    case OPT_LAT_LOG:
        return optval_log_path (p, line, key, value, "prefix", "the logs", job->write_lat_log);

    case OPT_RATE_CYCLE:
        if (optval_uint (p, line, key, value, 1, 3600000, &v))
            return -1;
        job->rate_cycle_ms = (uint32_t) v;
        return 0;

    case OPT_BS_UNALIGNED:
        return optval_bool (p, line, key, value, &job->bs_unaligned);

    case OPT_INVALIDATE:
        if (optval_bool (p, line, key, value, &b))
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
        optval_error (p, line, "fadvise_hint=%.*s is not one of fio's: 0, 1, sequential, random",
                      OPTVAL_SHOW, value);
        return -1;
    }

    case OPT_BW_LOG:
        return optval_log_path (p, line, key, value, "prefix", "the logs", job->write_bw_log);

    case OPT_IOPS_LOG:
        return optval_log_path (p, line, key, value, "prefix", "the logs", job->write_iops_log);

    case OPT_RUNTIME:
        return optval_duration (p, line, key, value, &job->runtime_ns);

    case OPT_RAMP_TIME:
        return optval_duration_upto (p, line, key, value, JOB_MAX_DELAY_S, "1 hour",
                                     &job->ramp_time_ns);

    case OPT_STARTDELAY:
        /* fio reads "startdelay=10-20" (or 10:20, 10,20) as a range to
           pick a random delay from. */
        if (strpbrk (value, ",:") || (value[0] && strchr (value + 1, '-'))) {
            optval_error (p, line, "%s=%.*s: fio's random start delay range is not supported "
                          "by iofleet yet", key, OPTVAL_SHOW, value);
            return -1;
        }
        return optval_duration_upto (p, line, key, value, JOB_MAX_DELAY_S, "1 hour",
                                     &job->startdelay_ns);

    case OPT_LAT_TARGET:
        return optval_usec_time (p, line, key, value, &job->latency_target_ns);

    case OPT_LAT_WINDOW:
        return optval_usec_time (p, line, key, value, &job->latency_window_ns);

    case OPT_LAT_PCT: {
        double v;
        if (units_parse_decimal (value, &v) || v > 100) {
            optval_error (p, line, "%s=%.*s is not a percentage 0..100", key, OPTVAL_SHOW, value);
            return -1;
        }
        job->latency_percentile = v;
        return 0;
    }

    case OPT_LAT_RUN:
        return optval_bool (p, line, key, value, &job->latency_run);

    case OPT_THINKTIME:
        return optval_usec_time (p, line, key, value, &job->thinktime_ns);

    case OPT_RANDREPEAT:
        return optval_bool (p, line, key, value, &job->randrepeat);

    case OPT_RANDSEED:
        if (optval_uint (p, line, key, value, 0, UINT64_MAX, &v))
            return -1;
        job->randseed = v;
        job->randseed_set = true;
        return 0;

    case OPT_NORANDOMMAP:
        return optval_bool (p, line, key, value, &job->norandommap);

    case OPT_RANDOM_DIST:
        return optval_distribution (p, line, key, value, job);

    case OPT_PERCENTILES:
        return optval_percentiles (p, line, key, value, job);

    case OPT_CPUS: {
        size_t len = strlen (value);
        if (len > JOB_CPUS_MAX - 1) {
            optval_error (p, line, "%s is %zu bytes long (the limit is %d)",
                          key, len, JOB_CPUS_MAX - 1);
            return -1;
        }
        uint64_t mask[JOB_CPUS_MAX / 64];
        const char *bad;
        size_t badlen;
        int rc = units_parse_cpus (value, mask, &bad, &badlen);
        if (rc == -ERANGE) {
            optval_error (p, line, "%s=%.*s: CPU %.*s is out of range (allowed: 0..%d)",
                          key, OPTVAL_SHOW, value, (int) (badlen < 24 ? badlen : 24), bad,
                          JOB_CPUS_MAX - 1);
            return -1;
        }
        if (rc == -EDOM) {
            optval_error (p, line, "%s=%.*s: the CPU range %.*s goes backwards",
                          key, OPTVAL_SHOW, value, (int) (badlen < 48 ? badlen : 48), bad);
            return -1;
        }
        if (rc != 0) {
            optval_error (p, line, "%s='%.*s' is not a list of CPUs (like 0-3,8,10-11)",
                          key, OPTVAL_SHOW, value);
            return -1;
        }
        memcpy (job->cpus_allowed, value, len + 1);
        return 0;
    }

    case OPT_TIME_BASED:
        if (optval_bool (p, line, key, value, &job->time_based))
            return -1;
        o->time_based_line = line;
        return 0;

    case OPT_GROUP_REPORTING:
        return optval_bool (p, line, key, value, &job->group_reporting);

    case OPT_STONEWALL:
        return optval_bool (p, line, key, value, &job->stonewall);

    case OPT_NEW_GROUP:
        return optval_bool (p, line, key, value, &job->new_group);

    case OPT_SS:
        if (optval_steadystate (p, line, key, value, job))
            return -1;
        o->ss_line = line;
        o->ss_key = option_at (idx)->name;
        return 0;

    case OPT_SS_DUR: {
        uint64_t ns;
        if (optval_seconds (p, line, key, value, &ns))
            return -1;
        if (ns == 1000000000u) {
            optval_error (p, line, "%s=%.*s is too short (allowed: 0 (off), or from 2s: a slope "
                          "needs two samples)", key, OPTVAL_SHOW, value);
            return -1;
        }
        job->ss_dur_ns = ns;
        return 0;
    }

    case OPT_SS_RAMP:
        return optval_seconds (p, line, key, value, &job->ss_ramp_ns);

    case OPT_COMPRESS:
        if (optval_uint (p, line, key, value, 0, 100, &v))
            return -1;
        job->buffer_compress_percentage = (uint32_t) v;
        return 0;

    case OPT_ZERO_BUFFERS:
        return optval_bool (p, line, key, value, &job->zero_buffers);

    case OPT_NAME:
        /* fio: every job section names its job, so a name= in [global] is
           overridden by each section's (its JSON shows the section names). */
        if (optval_name (p, line, "job name", value))
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
        return optval_bool (p, line, key, value, &b);

    case OPT_GTOD_REDUCE:
        /* fio stops timing each I/O (its latency figures read 0) to save
           clock calls; iofleet always times them, as its histograms,
           outliers and SLAs are built from latency, and the I/O issued is
           the same (docs/conformance.md). */
        return optval_bool (p, line, key, value, &b);

    case OPT_LOG_OFFSET:
        return optval_bool (p, line, key, value, &job->log_offset);

    case OPT_LOG_AVG:
        /* 0, fio's default, logs every I/O, as write_lat_log does here. */
        if (optval_uint (p, line, key, value, 0, UINT32_MAX, &v))
            return -1;
        if (v != 0) {
            optval_error (p, line,
                          "%s=%.*s: averaged latency logs are not supported by iofleet yet "
                          "(0, fio's default, logs every I/O)", key, OPTVAL_SHOW, value);
            return -1;
        }
        return 0;

    case OPT_IO_SIZE:
        return optval_bytes (p, line, key, value, 1, UINT64_MAX >> 1, &job->io_size);

    case OPT_NUMBER_IOS:
        return optval_uint (p, line, key, value, 0, UINT64_MAX >> 1, &job->number_ios);

    case OPT_LOOPS:
        if (optval_uint (p, line, key, value, 1, JOB_MAX_LOOPS, &v))
            return -1;
        job->loops = (uint32_t) v;
        o->loops_line = line;
        return 0;

    case OPT_OFFSET_INC:
        return optval_bytes (p, line, key, value, 0, JOB_MAX_OFFSET_INC, &job->offset_increment);

    case OPT_VERIFY: {
        static const struct { const char *name; job_verify_t kind; } kinds[] = {
            { "0", JOB_VERIFY_NONE }, { "crc32c", JOB_VERIFY_CRC32C },
            { "crc32c-intel", JOB_VERIFY_CRC32C }, { "md5", JOB_VERIFY_MD5 },
        };
        for (size_t i = 0; i < NELEM (kinds); i++)
            if (strcmp (value, kinds[i].name) == 0) {
                job->verify = kinds[i].kind;
                o->verify_line = line;
                return 0;
            }
        optval_error (p, line, "verify=%.*s %s (supported: crc32c, crc32c-intel, md5, 0)",
                      OPTVAL_SHOW, value, fio_verify_unsupported (value)
                          ? "is not supported by iofleet yet" : "is not an fio verify method");
        return -1;
    }

    case OPT_DO_VERIFY:
        return optval_bool (p, line, key, value, &job->do_verify);

    case OPT_VERIFY_BACKLOG:
        if (optval_uint (p, line, key, value, 0, JOB_MAX_VERIFY_BACKLOG, &v))
            return -1;
        job->verify_backlog = (uint32_t) v;
        return 0;

    case OPT_VERIFY_FATAL:
        return optval_bool (p, line, key, value, &job->verify_fatal);

    case OPT_VERIFY_ONLY:
        return optval_bool (p, line, key, value, &job->verify_only);

    case OPT_NRFILES:
        if (optval_uint (p, line, key, value, 1, JOB_MAX_OWN_FILES, &v))
            return -1;
        job->nrfiles = (uint32_t) v;
        o->nrfiles_line = line;
        return 0;

    case OPT_FILESIZE:
        if (strchr (value + 1, '-') || strchr (value, ':') || strchr (value, '%')) {
            optval_error (p, line,
                          "%s=%.*s: a range or percentage is not supported by iofleet yet; "
                          "give one size", key, OPTVAL_SHOW, value);
            return -1;
        }
        return optval_uint (p, line, key, value, 1, UINT64_MAX >> 1, &job->filesize);

    case OPT_DIRECTORY: {
        size_t len = strlen (value);
        if (len > JOB_DIRECTORY_MAX - 1) {
            optval_error (p, line, "%s is %zu bytes long (the limit is %d)", key, len,
                          JOB_DIRECTORY_MAX - 1);
            return -1;
        }
        if (optval_path_text (p, line, key, value))
            return -1;
        if (strchr (value, ':')) {
            optval_error (p, line, "%s=%.*s: fio's list of directories is not supported by iofleet "
                          "yet; give one", key, OPTVAL_SHOW, value);
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
            optval_error (p, line, "random_generator=%.*s is not an fio random generator (fio's: "
                          "tausworthe, lfsr, tausworthe64)", OPTVAL_SHOW, value);
            return -1;
        }
        job->lfsr = strcmp (value, "lfsr") == 0;
        return 0;

    case OPT_RATE_PROCESS:
        if (strcmp (value, "linear") && strcmp (value, "poisson")) {
            optval_error (p, line, "rate_process=%.*s is not an fio rate process (fio's: linear, "
                          "poisson)", OPTVAL_SHOW, value);
            return -1;
        }
        job->rate_poisson = strcmp (value, "poisson") == 0;
        return 0;
    }
    optval_error (p, line, "internal error: option '%s' has no handler", key);
    return -1;
}

/* Handles one "key=value" or bare "key" line of a section.  Returns 0, or
   -1 with the error set. */
int
job_opts_line (parser_t *p, int line, bool in_global, job_opts_t *o, char *s)
{
    char *value = NULL;
    char *eq = strchr (s, '=');
    if (eq) {
        *eq = '\0';
        value = optval_trim (eq + 1);
    }
    char *key = optval_trim (s);
    if (*key == '\0') {
        optval_error (p, line, "'=%.*s' has no option name", OPTVAL_SHOW, value);
        return -1;
    }
    if (strncmp (key, "include", 7) == 0 && (key[7] == '\0' || optval_is_blank (key[7]))) {
        optval_error (p, line, "fio's 'include' directive is not supported by iofleet yet");
        return -1;
    }
    int idx = option_find (key);
    if (idx < 0) {
        if (fio_option_unsupported (key)) {
            optval_error (p, line, "fio option '%s' is not supported by iofleet yet", key);
            return -1;
        }
        char lower[64];
        size_t len = strlen (key);
        if (len < sizeof (lower)) {
            for (size_t i = 0; i <= len; i++)
                lower[i] = units_lower (key[i]);
            if (strcmp (lower, key) != 0
            && (option_find (lower) >= 0 || fio_option_unsupported (lower))) {
                optval_error (p, line,
                              "unknown option '%s' (fio option names are case-sensitive: '%s')",
                              key, lower);
                return -1;
            }
        }
        optval_error (p, line, "unknown option '%.*s'", OPTVAL_SHOW, key);
        return -1;
    }
    if (!value && !option_at (idx)->bare) {
        optval_error (p, line, "option '%s' needs a value", key);
        return -1;
    }
    if (value && *value == '\0') {
        optval_error (p, line, "option '%s' needs a value", key);
        return -1;
    }
    if (value && (strstr (value, "${") || strstr (value, "$pagesize")
              ||  strstr (value, "$mb_memory") || strstr (value, "$ncpus"))) {
        optval_error (p, line, "%s=%.*s: fio's $ substitutions are not supported by iofleet yet",
                      key, OPTVAL_SHOW, value);
        return -1;
    }
    if (value && value[0] == '(') {
        optval_error (p, line,
                      "%s=%.*s: fio's arithmetic expressions are not supported by iofleet yet",
                      key, OPTVAL_SHOW, value);
        return -1;
    }
    return s_apply (p, line, in_global, o, idx, key, value);
}

int
job_opts_text (parser_t *p, int line, job_opts_t *o, const char *text)
{
    char buf[128];
    snprintf (buf, sizeof buf, "%s", text);
    return job_opts_line (p, line, false, o, buf);
}
