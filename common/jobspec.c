/*  jobspec.c: see jobspec.h. */
#include "jobspec.h"
#include "fio_names.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

const char *
jobspec_needs (const Iofleet__JobSpec *s, const char **what)
{
    /* The release an engine needs is the engine's property (fio_names.c);
       the label names the engines that 0.3.0 added. */
    static const char engine_label[] = "ioengine=sync|vsync|pvsync|pvsync2|posixaio";
    const char *engine_since = s->ioengine ? job_engine_since (s->ioengine) : NULL;
    const struct { bool used; const char *name; } since_0_3[] = {
        { s->files_per_worker > 0, "numjobs or nrfiles without filename= (files of each job "
                                   "copy's own)" },
        { s->io_size, "io_size=" }, { s->number_ios, "number_ios=" },
        { s->loops > 1, "loops=" }, { s->offset_increment, "offset_increment=" },
        { s->verify != IOFLEET__VERIFY_KIND__VERIFY_NONE, "verify=" },
        { s->filesize, "filesize=" },
        { s->rate_bytes_read || s->rate_bytes_write, "rate=" },
        { s->write_iolog && s->write_iolog[0], "write_iolog=" }, { s->rw_skip, "rw=...:SIZE" },
        { s->refill_buffers, "refill_buffers" }, { s->no_scramble, "scramble_buffers=0" },
        { s->exitall, "exitall" }, { s->purge, "[iofleet] purge=" },
        { s->purge_format, "[iofleet] purge=format" },
        { engine_since != NULL, engine_label },
        { s->blockalign_read || s->blockalign_write, "blockalign=" },
        { s->rate_poisson, "rate_process=poisson" },
        { s->rw >= IOFLEET__RW__RW_TRIM, "rw=trim|randtrim|trimwrite|randtrimwrite" },
        { s->read_iolog && s->read_iolog[0], "read_iolog=" },
        { s->latency_target_ns, "latency_target=" }, { s->log_offset, "log_offset=1" },
        { s->rw_seq_nr > 1, "rw=randread:N" },
        { s->perc_seq_read || s->perc_seq_write, "percentage_random=" },
        { s->bs_unaligned, "blocksize_unaligned" },
        { s->rate_min_read || s->rate_min_write || s->rate_iops_min_read
              || s->rate_iops_min_write, "rate_min= or rate_iops_min=" },
        { (s->write_bw_log && s->write_bw_log[0]) || (s->write_iops_log && s->write_iops_log[0]),
          "write_bw_log= or write_iops_log=" },
        { s->random_distribution > IOFLEET__DISTRIBUTION__DIST_ZIPF || s->dist_centered,
          "random_distribution=pareto|normal|zoned|zoned_abs or a center" },
    };
    for (size_t i = 0; i < sizeof since_0_3 / sizeof since_0_3[0]; i++)
        if (since_0_3[i].used) {
            *what = since_0_3[i].name;
            return since_0_3[i].name == engine_label ? engine_since : "0.3.0";
        }
    return NULL;
}

bool
jobspec_release_older (const char *a, const char *b)
{
    unsigned x[3] = { 0, 0, 0 }, y[3] = { 0, 0, 0 };
    if (!a || sscanf (a, "%u.%u.%u", &x[0], &x[1], &x[2]) < 2)
        return true;
    if (sscanf (b, "%u.%u.%u", &y[0], &y[1], &y[2]) < 2)
        return false;
    for (int i = 0; i < 3; i++)
        if (x[i] != y[i])
            return x[i] < y[i];
    return false;
}

_Static_assert ((int) JOB_DIST_ZONED_ABS == (int) IOFLEET__DISTRIBUTION__DIST_ZONED_ABS
                && (int) JOB_DIST_ZIPF == (int) IOFLEET__DISTRIBUTION__DIST_ZIPF
                && (int) JOB_DIST_PARETO == (int) IOFLEET__DISTRIBUTION__DIST_PARETO
                && (int) JOB_DIST_NORMAL == (int) IOFLEET__DISTRIBUTION__DIST_NORMAL
                && (int) JOB_DIST_ZONED == (int) IOFLEET__DISTRIBUTION__DIST_ZONED,
                "the parser's distributions are the wire's");

_Static_assert ((int) JOB_RW_RANDTRIMWRITE == (int) IOFLEET__RW__RW_RANDTRIMWRITE
                && (int) JOB_RW_TRIM == (int) IOFLEET__RW__RW_TRIM,
                "the parser's rw modes are the wire's");

_Static_assert (JOB_MAX_OWN_FILES == MSG_TARGETS_MAX,
                "a job's own files (numjobs without filename=) are its targets");

/* Appends DIR/NAME (NAME alone when dir is "") to out's file names, its
   text at *used in out->list.  Can't fail (list holds MSG_TARGETS_MAX names
   of a directory and a name each). */
static void
add_name (jobspec_t *out, size_t *used, const char *dir, const char *name)
{
    int len = snprintf (out->list + *used, sizeof out->list - *used, "%s%s%s", dir,
                        dir[0] ? "/" : "", name);
    IOF_ASSERT (len > 0 && (size_t) len < sizeof out->list - *used);
    out->names[out->spec.n_filenames++] = out->list + *used;
    *used += (size_t) len + 1;
}

void
jobspec_from_job (jobspec_t *out, const job_t *j, uint64_t interval_ns)
{
    memset (out, 0, sizeof *out);
    Iofleet__JobSpec *s = &out->spec;
    iofleet__job_spec__init (s);
    s->name = (char *) j->name;
    s->ioengine = (char *) j->ioengine;
    s->direct = j->direct;
    s->rw = (Iofleet__Rw) j->rw;
    s->rwmixread = j->rwmixread;
    s->bs = j->bs[0];
    s->bs_write = j->bs[1];
    s->bsrange_min_read = j->bsrange_min[0];
    s->bsrange_max_read = j->bsrange_max[0];
    s->bsrange_min_write = j->bsrange_min[1];
    s->bsrange_max_write = j->bsrange_max[1];
    for (int d = 0; d < 2; d++) {
        for (int i = 0; i < j->nbssplit[d]; i++) {
            iofleet__bs_split__init (&out->split[d][i]);
            out->split[d][i].bs = j->bssplit[d][i].bs;
            out->split[d][i].pct = j->bssplit[d][i].pct;
            out->split_ptrs[d][i] = &out->split[d][i];
        }
    }
    s->bssplit_read = out->split_ptrs[0];
    s->n_bssplit_read = (size_t) j->nbssplit[0];
    s->bssplit_write = out->split_ptrs[1];
    s->n_bssplit_write = (size_t) j->nbssplit[1];
    s->iodepth = j->iodepth;
    /* Their defaults are the parser's (jobfile.c: batch_submit 0 is the
       iodepth, as fio's HOWTO says; batch_complete_min 1). */
    IOF_ASSERT (j->iodepth_batch_submit >= 1 && j->iodepth_batch_submit <= j->iodepth);
    IOF_ASSERT (j->iodepth_batch_complete_min >= 1
                && j->iodepth_batch_complete_min <= j->iodepth);
    s->iodepth_batch_submit = j->iodepth_batch_submit;
    s->iodepth_batch_complete_min = j->iodepth_batch_complete_min;
    s->numjobs = j->numjobs;
    s->size = j->size;
    s->size_pct = j->size_pct;
    s->offset = j->offset;
    s->offset_pct = j->offset_pct;
    s->runtime_ns = j->runtime_ns;
    s->time_based = j->time_based;
    s->ramp_time_ns = j->ramp_time_ns;
    s->startdelay_ns = j->startdelay_ns;
    s->rate_poisson = j->rate_poisson;
    s->log_offset = j->log_offset;
    s->rw_seq_nr = j->rw_seq_nr;
    s->bs_unaligned = j->bs_unaligned;
    s->rate_min_read = j->rate_min[0];
    s->rate_min_write = j->rate_min[1];
    s->rate_iops_min_read = j->rate_iops_min[0];
    s->rate_iops_min_write = j->rate_iops_min[1];
    s->rate_cycle_ms = j->rate_cycle_ms;
    s->perc_seq_read = 100 - j->perc_random[0];
    s->perc_seq_write = 100 - j->perc_random[1];
    s->latency_target_ns = j->latency_target_ns;
    s->latency_window_ns = j->latency_window_ns;
    s->latency_percentile = j->latency_percentile;
    s->latency_run = j->latency_run;
    s->blockalign_read = j->blockalign[0];
    s->blockalign_write = j->blockalign[1];
    s->rate_iops_read = j->rate_iops[0];
    s->rate_iops_write = j->rate_iops[1];
    s->thinktime_ns = j->thinktime_ns;
    s->randrepeat = j->randrepeat;
    s->randseed_set = j->randseed_set;
    s->randseed = j->randseed;
    s->norandommap = j->norandommap;
    s->random_distribution = (Iofleet__Distribution) j->dist.kind;
    s->dist_param = j->dist.param;
    s->dist_centered = j->dist.centered;
    s->dist_center = j->dist.center;
    for (int z = 0; z < j->dist.nzones; z++) {
        iofleet__zone__init (&out->zones[z]);
        out->zones[z].access_pct = j->dist.zones[z].access_pct;
        out->zones[z].size = j->dist.zones[z].size;
        out->zone_ptrs[z] = &out->zones[z];
    }
    s->n_zones = (size_t) j->dist.nzones;
    s->zones = s->n_zones ? out->zone_ptrs : NULL;
    s->cpus_allowed = (char *) j->cpus_allowed;
    s->ss = (Iofleet__SteadyState) j->ss;
    s->ss_limit = j->ss_limit;
    s->ss_pct = j->ss_pct;
    s->ss_dur_ns = j->ss_dur_ns;
    s->ss_ramp_ns = j->ss_ramp_ns;
    s->buffer_compress_percentage = j->buffer_compress_percentage;
    s->zero_buffers = j->zero_buffers;
    s->write_lat_log = (char *) j->write_lat_log;
    s->no_invalidate = j->no_invalidate;
    s->shared_logs = j->shared_logs;
    s->fadvise = (uint32_t) j->fadvise;
    s->write_bw_log = (char *) j->write_bw_log;
    s->write_iops_log = (char *) j->write_iops_log;
    s->thread_number = j->thread_number;
    s->io_size = j->io_size;
    s->number_ios = j->number_ios;
    s->loops = j->loops;
    s->offset_increment = j->offset_increment;
    s->verify = (Iofleet__VerifyKind) j->verify;
    s->verify_skip_read_back = !j->do_verify;
    s->verify_backlog = j->verify_backlog;
    s->verify_fatal = j->verify_fatal;
    s->verify_only = j->verify_only;
    s->filesize = j->filesize;
    s->rate_bytes_read = j->rate[0];
    s->rate_bytes_write = j->rate[1];
    s->write_iolog = (char *) j->write_iolog;
    s->read_iolog = (char *) j->read_iolog;
    s->replay_redirect = (char *) j->replay_redirect;
    s->replay_no_stall = j->replay_no_stall;
    s->replay_time_scale = j->replay_time_scale == JOB_DEFAULT_REPLAY_TIME_SCALE ? 0
                                                                      : j->replay_time_scale;
    s->replay_align = j->replay_align;
    s->replay_scale = j->replay_scale == JOB_DEFAULT_REPLAY_SCALE ? 0 : j->replay_scale;
    s->rw_skip = j->rw_skip;
    s->refill_buffers = j->refill_buffers;
    s->no_scramble = !j->scramble_buffers;
    s->exitall = j->exitall;
    s->purge = j->purge;
    s->purge_format = j->purge_format;
    s->interval_ns = interval_ns;

    s->filenames = out->names;
    s->n_filenames = 0;
    size_t used = 0;
    /* directory= goes before every relative name, as fio puts it. */
    const char *dir = j->directory;
    if (j->read_iolog[0]) {
        /* A replay's targets are the log's files, which the agent reads
           (the log stands in for them here), or the one redirected to. */
        add_name (out, &used, "", j->replay_redirect[0] ? j->replay_redirect : j->read_iolog);
        return;
    }
    if (!j->filename[0]) {
        /* A sweep's steps share the files fio would have named after the section. */
        const char *base = j->sweep_of[0] ? j->sweep_of : j->name;
        IOF_ASSERT (j->numjobs >= 1 && j->nrfiles >= 1
                && (uint64_t) j->numjobs * j->nrfiles <= MSG_TARGETS_MAX);
        for (uint32_t i = 0; i < j->numjobs; i++)
            for (uint32_t f = 0; f < j->nrfiles; f++) {
                char name[JOB_NAME_MAX + 24];
                snprintf (name, sizeof name, "%s.%u.%u", base, i, f);
                add_name (out, &used, dir, name);
            }
        s->files_per_worker = j->nrfiles;
        return;
    }
    /* filename= names the files; fio then takes no nrfiles=. */
    char names[JOB_FILENAME_MAX];
    str_copy (names, sizeof names, j->filename);
    char *save = NULL;
    for (char *tok = strtok_r (names, ":", &save); tok && s->n_filenames < MSG_TARGETS_MAX;
         tok = strtok_r (NULL, ":", &save))
        add_name (out, &used, tok[0] == '/' ? "" : dir, tok);
}
