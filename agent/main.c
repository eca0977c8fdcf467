/*  iofleet-agent: runs the I/O a controller asks for, on the targets its own
    command line allows, and streams latency histograms back.

    The main thread owns the socket; worker threads (agent/job.c) own the I/O.
*/
#define _GNU_SOURCE
#include "clock_sync.h"
#include "histogram.h"
#include "instance.h"
#include "inventory.h"
#include "jobfile.h"
#include "job.h"
#include "link.h"
#include "selector.h"
#include "spool.h"
#include "simulate.h"
#include "step.h"
#include "local.h"
#include "config.h"
#include "curve.h"
#include "log.h"
#include "message.h"
#include "targets.h"
#include "util.h"
#include "direction.h"

#include <assert.h>
#include <czmq.h>
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <sys/utsname.h>
#include <unistd.h>

#define DEFAULT_CONFIG      "/etc/iofleet/agent.conf"
#define SILENT_WARN_NS      (10 * NS_PER_SEC)    /* nothing heard: say what to check */

typedef struct {
    /* configuration */
    const char *endpoint;
    const char *cert;               /* --cert NAME.cert_secret (CURVE) */
    uint64_t opened_at;             /* when the socket was (re)opened, mono ns */
    uint64_t reopen_logged_at;
    const char *controller_key;     /* --controller-key controller.cert */
    char name[MSG_NAME_MAX + 1];
    Iofleet__Label labels[MSG_LABELS_MAX];
    Iofleet__Label *label_ptrs[MSG_LABELS_MAX];
    char label_text[MSG_LABELS_MAX][MSG_NAME_MAX + MSG_LABEL_VALUE_MAX + 2];   /* KEY\0VALUE */
    int nlabels;
    target_policy_t policy;
    const char *sysfs_root, *procfs_root, *etc_root;
    const char *release;            /* what HELLO says this agent runs */

    /* connection */
    zsock_t *sock;
    bool welcomed;
    bool rejected;                  /* the controller refused us: stop, status 2 */
    char instance[INSTANCE_ID_LEN + 1];  /* which agent this is (instance.h) */
    uint64_t last_frame;            /* anything at all from the controller, mono ns */
    uint64_t silent_logged_at;
    uint64_t agent_id;
    uint64_t last_hello, last_ping, last_heard;
    uint64_t bad_messages;
    uint64_t bad_logged_at;

    /* clock: controller time = local realtime + offset */
    clock_sync_t sync;
    int64_t offset;
    uint64_t delay;
    int64_t clock_shift;                    /* test only: --clock-shift-ms */

    /* A PREPARE being set up (its files laid out): the layout asks
       prepare_stop now and then, which serves the socket meanwhile. */
    bool preparing;
    uint64_t prep_run;
    uint32_t prep_step;
    char prep_stop[MSG_TEXT_MAX + 1];       /* why the layout is to stop; "" = go on */
    target_hooks_t hooks;

    /* the step in hand */
    step_t *job;                            /* the step in hand: its jobs */
    bool running;
    uint64_t mono_ref, real_ref;            /* one instant on both clocks */
    dir_stats_t *totals;                    /* ntargets * DIR_COUNT */
    dir_stats_t *interval;                  /* ntargets * DIR_COUNT */
    /* Scratch for packing snapshots, sized at PREPARE: nothing is
       allocated per interval but the packed message itself. */
    Iofleet__TargetSample *samples;         /* ntargets */
    Iofleet__TargetSample **sample_ptrs;    /* ntargets */
    Iofleet__DirStats *dirs;                /* ntargets * DIR_COUNT */
    uint8_t *hist_bufs;                     /* ntargets * DIR_COUNT * 3 * HIST_WIRE_MAX */
    uint32_t nsnapshots;
    spool_t *spool;                         /* unacknowledged, on disk */
    const char *spool_dir;
    uint64_t spool_max;
    uint64_t hello_backoff;                 /* ns between HELLOs until welcomed */
} agent_t;

/* --simulate N --targets K: N virtual agents in this process (simulate.h). */
static int sim_agents, sim_targets = 4;
static bool name_given;

static void
usage (FILE *f)
{
    fprintf (f,
"usage: iofleet-agent --controller tcp://HOST:PORT [options]\n"
"       iofleet-agent run JOBFILE [--output-format text|json|json+]\n"
"       iofleet-agent spool DIR [--json]\n"
"\n"
"Runs fio-style workloads that an iofleet controller sends, on this host's\n"
"targets, and streams latency histograms back.  The agent connects out; it\n"
"needs no inbound port.  It only ever touches paths its own --allow globs or\n"
"--workdir cover, and writes outside --workdir only where --allow-write says,\n"
"whatever the controller asks.\n"
"\n"
"options (each is also a key of the configuration file: 'controller = ...';\n"
"repeatable ones may repeat there too):\n"
"  --config FILE          read options from FILE (INI, keys = the long options\n"
"                         below; default " DEFAULT_CONFIG " when it exists);\n"
"                         flags given here override the file (a repeatable one\n"
"                         given here replaces the file's list)\n"
"  --no-config            read no configuration file\n"
"  --check-config         check the file and flags, print the settings in force\n"
"                         and where each came from, and exit (0: it would start)\n"
"  --controller ENDPOINT  controller's agent endpoint (required), e.g.\n"
"                         tcp://ctl.example:5570\n"
"  --cert FILE           CURVE: this agent's secret certificate (NAME.cert_secret\n"
"                         of 'iofleet keys agent NAME DIR'); its NAME.cert goes in\n"
"                         the controller's KEYDIR/agents/ to admit it\n"
"  --controller-key FILE  CURVE: the controller's public certificate to pin\n"
"                         (KEYDIR/controller.cert); with --cert, required for\n"
"                         any controller not on this host\n"
"  --name NAME            agent name, unique in the fleet (default: hostname)\n"
"  --label KEY=VALUE      label for selecting agents (repeatable), e.g. rack=r12\n"
"  --allow GLOB           allow targets whose resolved path matches GLOB\n"
"                         (fnmatch, repeatable), e.g. '/dev/nvme*n1'\n"
"  --workdir DIR          relative filenames of a plan resolve inside DIR, and\n"
"                         DIR is allowed (files there are created as needed)\n"
"  --allow-write GLOB     also let plans write targets outside --workdir whose\n"
"                         resolved path matches GLOB (repeatable; --allow must\n"
"                         match too); laying a file out to size= is a write.\n"
"                         A block device is written only when it is unused: not\n"
"                         mounted (nor a partition of it), not swap, not the\n"
"                         root or boot disk, nothing stacked on it (dm, md,\n"
"                         LVM), and blank: no partition table or file-system,\n"
"                         RAID or LVM signature (libblkid)\n"
"  --allow-write-formatted GLOB\n"
"                         write such a device although it carries a partition\n"
"                         table or signature (lifts only that rule)\n"
"  --spool-dir DIR        keep what the controller has not acknowledged in DIR\n"
"                         (default: $STATE_DIRECTORY, else\n"
"                         /var/lib/iofleet-agent/NAME); one agent per DIR.  Put it\n"
"                         on the system disk, not on a drive under test\n"
"  --spool-max SIZE       bound of the spool (default 256m, at least 64k): when\n"
"                         the controller stays away longer than that holds, the\n"
"                         oldest unacknowledged snapshots are dropped and counted\n"
"  --simulate N           (load testing) run N virtual agents in this process,\n"
"                         each with its own connection, named NAME-00001..\n"
"                         (--name, default sim); no I/O: synthetic snapshots\n"
"  --targets K            virtual NVMe drives per simulated agent (default 4)\n"
"  --verbose              log debug messages\n"
"  --sysfs-root DIR       read the hardware inventory from DIR instead of /sys\n"
"  --procfs-root DIR      ... and DIR instead of /proc (with --etc-root DIR)\n"
"  --clock-shift-ms MS    (tests only) pretend this host's clock is off by MS\n"
"  --test-protocol N      (tests only) speak wire protocol N, as another release\n"
"  --test-release VER     (tests only) say in HELLO that this agent runs VER\n"
"  --help, --version\n"
"\n"
"An agent whose name another connected agent has is refused by the\n"
"controller (it keeps the first); a restart of the same agent (the same\n"
"--spool-dir, where its instance id is kept) is not.\n"
"\n"
"exit status: 0 stopped by SIGTERM or SIGINT; 2 bad configuration or flags,\n"
"a spool directory in use, or refused by the controller (its name taken, ...):\n"
"restarting will not help, the message says what will.\n"
"\n"
"iofleet-agent run JOBFILE runs a job file on this host alone, with no\n"
"controller, and prints fio-like text or fio-compatible JSON (see\n"
"iofleet-agent run --help).  iofleet-agent spool DIR lists what a spool\n"
"directory holds (also while its agent runs).\n");
}

/* This host's realtime clock, as the agent sees it: shifted only when a
   test asks (--clock-shift-ms) to play a host whose clock is off. */
static uint64_t
local_real (const agent_t *a)
{
    return (uint64_t) ((int64_t) clock_real_ns () + a->clock_shift);
}

/* Sends one envelope.  Returns 0 or -1 (logged). */
static int
send_env (agent_t *a, envelope_t *env)
{
    size_t len;
    uint8_t *buf = message_pack (env, &len);
    if (!buf)
        return -1;
    zframe_t *f = zframe_new (buf, len);
    free (buf);
    int rc = zframe_send (&f, a->sock, ZFRAME_DONTWAIT);
    if (rc != 0) {
        zframe_destroy (&f);
        log_debug ("send %s failed: %s", message_kind (env), zmq_strerror (zmq_errno ()));
    }
    return rc;
}

static int
send_raw (agent_t *a, const uint8_t *buf, size_t len)
{
    zframe_t *f = zframe_new (buf, len);
    int rc = zframe_send (&f, a->sock, ZFRAME_DONTWAIT);
    if (rc != 0)
        zframe_destroy (&f);
    return rc;
}

/* The inventory as JSON text (free()), or NULL when out of memory. */
static char *
inventory_text (const agent_t *a)
{
    json_t *inv = inventory_collect (a->sysfs_root, a->procfs_root, a->etc_root);
    char *text = inv ? json_dumps (inv, JSON_COMPACT) : NULL;
    json_decref (inv);
    if (text && strlen (text) > MSG_INVENTORY_MAX) {
        log_warn ("inventory is %zu bytes, over the limit of %u: not sent", strlen (text),
                  MSG_INVENTORY_MAX);
        free (text);
        return NULL;
    }
    return text;
}

static void
send_hello (agent_t *a)
{
    struct utsname u;
    uname (&u);
    char host[256] = "";
    gethostname (host, sizeof host - 1);
    Iofleet__Hello h = IOFLEET__HELLO__INIT;
    h.name = a->name;
    h.hostname = host;
    h.kernel = u.release;
    h.agent_version = (char *) (a->release ? a->release : IOF_VERSION);
    h.labels = a->label_ptrs;
    h.n_labels = (size_t) a->nlabels;
    h.pid = (uint64_t) getpid ();
    h.instance = a->instance;
    char *inv = inventory_text (a);
    h.inventory_json = inv ? inv : "";
    /* What this process holds, so a controller can tell a reconnect from
       a restart (then the workload it was waiting for is gone). */
    uint64_t run;
    uint32_t step;
    if (a->job) {
        h.job_run = step_run (a->job);
        h.job_step = step_step (a->job);
        h.job_state = IOFLEET__JOB_STATE__JOB_ACTIVE;
    } else if (a->preparing) {
        h.job_run = a->prep_run;
        h.job_step = a->prep_step;
        h.job_state = IOFLEET__JOB_STATE__JOB_ACTIVE;
    } else if (a->spool && spool_last_done (a->spool, &run, &step)) {
        h.job_run = run;
        h.job_step = step;
        h.job_state = IOFLEET__JOB_STATE__JOB_FINISHED;
    }
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    send_env (a, &env);
    free (inv);
    a->last_hello = clock_mono_ns ();
}

static void
send_ping (agent_t *a)
{
    Iofleet__Ping p = IOFLEET__PING__INIT;
    p.t0 = local_real (a);
    p.offset_ns = a->offset;
    p.delay_ns = a->delay;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_PING;
    env.ping = &p;
    send_env (a, &env);
    a->last_ping = clock_mono_ns ();
}

static void
on_pong (agent_t *a, const Iofleet__Pong *p)
{
    if (clock_sync_add (&a->sync, p->t0, p->t1, p->t2, local_real (a)) != 0)
        return;     /* impossible timestamps: not a sample */
    a->offset = clock_sync_offset (&a->sync);
    a->delay = clock_sync_delay (&a->sync);
}

/* Keeps a packed message until the controller acknowledges it, then sends
   it.  Can't fail: a message the spool cannot hold is still sent once. */
static void
send_spooled (agent_t *a, uint64_t run, uint32_t step, uint32_t seq, uint8_t *buf, size_t len)
{
    if (spool_put (a->spool, run, step, seq, buf, len) != 0)
        log_err ("run %llu step %u: cannot spool message %u (out of memory); sent once, "
                 "unprotected", (unsigned long long) run, step, seq);
    send_raw (a, buf, len);
    free (buf);
}

static int
resend_one (void *arg, const uint8_t *buf, size_t len)
{
    return send_raw (arg, buf, len);
}

static void
send_refused (agent_t *a, uint64_t run, uint32_t step, const char *reason)
{
    /* A reason cut to its buffer may end inside a UTF-8 sequence, and the
       controller drops a REFUSED whose reason is not UTF-8 (the step would
       then wait out --prepare-timeout instead of showing why). */
    char text[MSG_TEXT_MAX + 1];
    str_copy (text, sizeof text, reason);
    long bad = utf8_invalid_at (text, strlen (text));
    if (bad >= 0)
        text[bad] = '\0';
    Iofleet__Refused r = IOFLEET__REFUSED__INIT;
    r.run = run;
    r.step = step;
    r.reason = text[0] ? text : "refused (reason not valid UTF-8)";
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_REFUSED;
    env.refused = &r;
    send_env (a, &env);
}

static void on_message (agent_t *a, zframe_t *frame);

/* target_hooks_t's stop, asked every TARGET_POLL_NS during a layout, which
   holds the main loop: serves the socket meanwhile (an ABORT of the run
   sets prep_stop; pings keep the link and the clock alive).  Returns why
   the layout is to stop, or NULL. */
static const char *
prepare_stop (void *arg)
{
    agent_t *a = arg;
    for (int i = 0; i < 256 && !a->prep_stop[0] && !zsys_interrupted; i++) {
        if (!(zsock_events (a->sock) & ZMQ_POLLIN))
            break;
        zframe_t *f = zframe_recv (a->sock);
        if (!f)
            break;
        on_message (a, f);
        zframe_destroy (&f);
    }
    if (a->welcomed && clock_mono_ns () - a->last_ping > LINK_PING_NS)
        send_ping (a);
    if (zsys_interrupted)
        return "the agent is stopping (SIGINT or SIGTERM)";
    return a->prep_stop[0] ? a->prep_stop : NULL;
}

static void
drop_job (agent_t *a)
{
    step_destroy (&a->job);
    free (a->totals);
    free (a->interval);
    free (a->samples);
    free (a->sample_ptrs);
    free (a->dirs);
    free (a->hist_bufs);
    a->totals = a->interval = NULL;
    a->samples = NULL;
    a->sample_ptrs = NULL;
    a->dirs = NULL;
    a->hist_bufs = NULL;
    a->running = false;
}

static void
on_prepare (agent_t *a, const Iofleet__Prepare *p)
{
    /* A PREPARE that arrives while one is being set up (prepare_stop
       serves the socket during a layout). */
    if (a->preparing) {
        if (a->prep_run == p->run && a->prep_step == p->step)
            return;         /* duplicate */
        char why[128];
        snprintf (why, sizeof why, "agent is busy preparing run %llu step %u",
                  (unsigned long long) a->prep_run, a->prep_step);
        send_refused (a, p->run, p->step, why);
        return;
    }
    if (a->job) {
        if (step_run (a->job) == p->run && step_step (a->job) == p->step)
            return;         /* duplicate */
        char why[128];
        snprintf (why, sizeof why, "agent is busy with run %llu step %u",
                  (unsigned long long) step_run (a->job), step_step (a->job));
        send_refused (a, p->run, p->step, why);
        return;
    }
    char err[1024] = "";
    log_info ("run %llu step %u (%s%s): preparing %zu job(s)", (unsigned long long) p->run,
              p->step, p->job->name, p->n_more_jobs ? ", ..." : "", p->n_more_jobs + 1);
    /* The inventory now: for drive selectors, and for READY. */
    json_t *inv = inventory_collect (a->sysfs_root, a->procfs_root, a->etc_root);
    Iofleet__Prepare prep = *p;
    Iofleet__JobSpec *more[MSG_JOBS_MAX];
    Iofleet__JobSpec copies[MSG_JOBS_MAX];
    char **lists[MSG_JOBS_MAX] = { NULL };
    int nlists[MSG_JOBS_MAX] = { 0 };
    int njobs = (int) p->n_more_jobs + 1;
    bool refused = false;
    for (int i = 0; i < njobs && !refused; i++) {
        const Iofleet__JobSpec *spec = i ? p->more_jobs[i - 1] : p->job;
        bool any = false;
        for (size_t k = 0; k < spec->n_filenames; k++)
            any |= selector_is (spec->filenames[k]);
        if (i)
            more[i - 1] = (Iofleet__JobSpec *) spec;
        if (!any)
            continue;
        /* Expand selectors into this agent's drives. */
        copies[i] = *spec;
        lists[i] = calloc (MSG_TARGETS_MAX, sizeof *lists[i]);
        for (size_t k = 0; k < spec->n_filenames && lists[i] && !refused; k++) {
            if (!selector_is (spec->filenames[k])) {
                if (nlists[i] < MSG_TARGETS_MAX)
                    lists[i][nlists[i]++] = strdup (spec->filenames[k]);
                continue;
            }
            if (selector_expand (spec->filenames[k], inv, &a->policy, lists[i], &nlists[i],
                                 MSG_TARGETS_MAX, err, sizeof err) <= 0)
                refused = true;
        }
        if (!lists[i]) {
            snprintf (err, sizeof err, "agent out of memory");
            refused = true;
        }
        copies[i].filenames = lists[i];
        copies[i].n_filenames = (size_t) nlists[i];
        if (i)
            more[i - 1] = &copies[i];
        else
            prep.job = &copies[0];
    }
    prep.more_jobs = more;
    if (!refused) {
        a->preparing = true;
        a->prep_run = p->run;
        a->prep_step = p->step;
        a->prep_stop[0] = '\0';
        a->job = step_new (&prep, &a->policy, err, sizeof err);
        a->preparing = false;
    }
    for (int i = 0; i < njobs; i++) {
        for (int k = 0; k < nlists[i]; k++)
            free (lists[i][k]);
        free (lists[i]);
    }
    char *inv_text = inv ? json_dumps (inv, JSON_COMPACT) : NULL;
    json_decref (inv);
    if (!a->job) {
        free (inv_text);
        log_warn ("run %llu step %u refused: %s", (unsigned long long) p->run, p->step, err);
        send_refused (a, p->run, p->step, err);
        return;
    }
    int nt = step_ntargets (a->job);
    a->totals = calloc ((size_t) nt * DIR_COUNT, sizeof *a->totals);
    a->interval = calloc ((size_t) nt * DIR_COUNT, sizeof *a->interval);
    a->samples = calloc ((size_t) nt, sizeof *a->samples);
    a->sample_ptrs = calloc ((size_t) nt, sizeof *a->sample_ptrs);
    a->dirs = calloc ((size_t) nt * DIR_COUNT, sizeof *a->dirs);
    a->hist_bufs = malloc ((size_t) nt * DIR_COUNT * 3 * HIST_WIRE_MAX);
    if (!a->totals || !a->interval || !a->samples || !a->sample_ptrs || !a->dirs
        || !a->hist_bufs) {
        free (inv_text);
        drop_job (a);
        send_refused (a, p->run, p->step, "agent out of memory");
        return;
    }
    a->nsnapshots = 0;
    /* The controller has moved on (or prepares this step afresh): what
       is still unacknowledged it no longer takes. */
    uint64_t gone = spool_keep_only (a->spool, 0, 0);     /* runs start at 1: all of it */
    if (gone)
        log_warn ("spool: %llu unacknowledged message(s) of earlier steps let go: the controller "
                  "is at run %llu step %u", (unsigned long long) gone,
                  (unsigned long long) p->run, p->step);

    const char *paths[MSG_TARGETS_MAX];
    for (int i = 0; i < nt; i++)
        paths[i] = step_target_path (a->job, i);
    Iofleet__Ready r = IOFLEET__READY__INIT;
    r.run = p->run;
    r.step = p->step;
    r.targets = (char **) paths;
    r.n_targets = (size_t) nt;
    r.clock_offset_ns = a->offset;
    r.clock_delay_ns = a->delay;
    /* Refreshed now: a firmware upgrade since HELLO shows in this run. */
    r.inventory_json = inv_text && strlen (inv_text) <= MSG_INVENTORY_MAX ? inv_text : "";
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_READY;
    env.ready = &r;
    send_env (a, &env);
    free (inv_text);
}

static void
on_start (agent_t *a, const Iofleet__Start *s)
{
    if (!a->job || step_run (a->job) != s->run || step_step (a->job) != s->step || a->running)
        return;
    a->mono_ref = clock_mono_ns ();
    a->real_ref = local_real (a);
    int64_t local_start = (int64_t) s->start_at - a->offset;
    int64_t wait = local_start - (int64_t) a->real_ref;
    if (wait < 0) {
        log_warn ("run %llu step %u: start time already passed by %.3f ms; starting now "
                  "(clock offset %+.3f ms)", (unsigned long long) s->run, s->step,
                  (double) -wait / 1e6, (double) a->offset / 1e6);
        wait = 0;
    }
    int rc = step_start (a->job, a->mono_ref + (uint64_t) wait);
    if (rc) {
        log_err ("run %llu step %u: cannot start workers: %s", (unsigned long long) s->run,
                 s->step, strerror (-rc));
        a->running = true;  /* workers that did start end by themselves */
        return;
    }
    a->running = true;
}

static uint64_t
mono_to_ctrl (const agent_t *a, uint64_t mono)
{
    return (uint64_t) ((int64_t) (mono - a->mono_ref + a->real_ref) + a->offset);
}

/* Packs per-target stats into the agent's scratch; histograms only when
   with_hist.  Can't fail. */
static void
fill_samples (agent_t *a, dir_stats_t *st, int nt, bool with_hist)
{
    for (int t = 0; t < nt; t++) {
        Iofleet__TargetSample *sample = &a->samples[t];
        iofleet__target_sample__init (sample);
        sample->target = (uint32_t) t;
        for (int d = 0; d < DIR_COUNT; d++) {
            int i = t * DIR_COUNT + d;
            Iofleet__DirStats *ds = &a->dirs[i];
            iofleet__dir_stats__init (ds);
            ds->ops = st[i].ops;
            ds->bytes = st[i].bytes;
            ds->errors = st[i].errors;
            if (with_hist) {
                const histogram_t *h[3] = { &st[i].clat, &st[i].slat, &st[i].lat };
                ProtobufCBinaryData *b[3] = { &ds->histogram, &ds->slat_histogram,
                                              &ds->lat_histogram };
                for (int k = 0; k < 3; k++) {
                    uint8_t *buf = a->hist_bufs + ((size_t) i * 3 + (size_t) k) * HIST_WIRE_MAX;
                    int n = histogram_encode (h[k], buf, HIST_WIRE_MAX);
                    b[k]->data = buf;
                    b[k]->len = n > 0 ? (size_t) n : 0;
                }
            }
        }
        sample->read = &a->dirs[t * DIR_COUNT + DIR_READ];
        sample->write = &a->dirs[t * DIR_COUNT + DIR_WRITE];
        /* Trims only from a step that trims (absent otherwise, as from
           agents before them). */
        const dir_stats_t *tr = &st[t * DIR_COUNT + DIR_TRIM];
        if (tr->ops || tr->errors)
            sample->trim = &a->dirs[t * DIR_COUNT + DIR_TRIM];
        a->sample_ptrs[t] = sample;
    }
}

/* Collects every interval the workers have published and sends it. */
static void
pump_snapshots (agent_t *a)
{
    if (!a->running)
        return;
    int nt = step_ntargets (a->job);
    for (;;) {
        uint32_t seq;
        uint64_t t0, t1;
        int rc = step_collect (a->job, a->interval, &seq, &t0, &t1);
        if (rc == 0)
            break;
        if (rc < 0) {
            /* Every interval is out: totals (= sum of snapshots) in DONE. */
            fill_samples (a, a->totals, nt, false);
            Iofleet__Done d = IOFLEET__DONE__INIT;
            d.run = step_run (a->job);
            d.step = step_step (a->job);
            d.snapshots = a->nsnapshots;
            uint64_t started = step_actual_start (a->job);
            d.actual_start = started ? mono_to_ctrl (a, started) : 0;
            d.totals = a->sample_ptrs;
            d.n_totals = (size_t) nt;
            d.error = (char *) step_error (a->job);
            d.spool_dropped = spool_dropped (a->spool, d.run, d.step);
            uint32_t depths[MSG_JOBS_MAX];
            d.n_latency_depth = (size_t) step_latency_depths (a->job, depths);
            d.latency_depth = depths;
            envelope_t env = IOFLEET__ENVELOPE__INIT;
            env.body_case = IOFLEET__ENVELOPE__BODY_DONE;
            env.done = &d;
            size_t len;
            uint8_t *buf = message_pack (&env, &len);
            if (buf)
                send_spooled (a, d.run, d.step, SPOOL_SEQ_DONE, buf, len);
            else
                log_err ("run %llu step %u: out of memory packing DONE; the controller will "
                         "time the step out", (unsigned long long) d.run, d.step);
            log_info ("run %llu step %u done: %u snapshots%s%s", (unsigned long long) d.run,
                      d.step, d.snapshots, d.error[0] ? ", error: " : "", d.error);
            drop_job (a);
            break;
        }
        for (int i = 0; i < nt * DIR_COUNT; i++) {
            a->totals[i].ops += a->interval[i].ops;
            a->totals[i].bytes += a->interval[i].bytes;
            a->totals[i].errors += a->interval[i].errors;
        }
        fill_samples (a, a->interval, nt, true);
        Iofleet__Snapshot s = IOFLEET__SNAPSHOT__INIT;
        s.run = step_run (a->job);
        s.step = step_step (a->job);
        s.seq = seq;
        s.t_start = mono_to_ctrl (a, t0);
        s.t_end = mono_to_ctrl (a, t1);
        s.targets = a->sample_ptrs;
        s.n_targets = (size_t) nt;
        s.spool_dropped = spool_dropped (a->spool, s.run, s.step);
        envelope_t env = IOFLEET__ENVELOPE__INIT;
        env.body_case = IOFLEET__ENVELOPE__BODY_SNAPSHOT;
        env.snapshot = &s;
        size_t len;
        uint8_t *buf = message_pack (&env, &len);
        if (!buf) {
            log_err ("out of memory packing snapshot %u; it is lost", seq);
            continue;
        }
        send_spooled (a, s.run, s.step, seq, buf, len);
        a->nsnapshots++;
    }
}

/* A message of another protocol version: the controller runs another
   iofleet release.  Its REJECT names both releases; whatever it is, the
   agent says so and keeps saying hello (slowly), so that it joins once one
   side is upgraded, rather than exiting into a restart loop. */
static void
on_other_protocol (agent_t *a, const envelope_t *env)
{
    a->bad_messages++;
    a->welcomed = false;
    a->hello_backoff = LINK_HELLO_RETRY_MAX_NS;
    if (!log_ratelimit (&a->bad_logged_at, 60 * NS_PER_SEC))
        return;
    if (env->body_case == IOFLEET__ENVELOPE__BODY_REJECT && env->reject->reason)
        log_err ("the controller refuses this agent: %.400s; retrying every %.0f s",
                 env->reject->reason, (double) LINK_HELLO_RETRY_MAX_NS / 1e9);
    else
        log_err ("the controller speaks protocol %u%s%s; this agent runs iofleet %s (protocol "
                 "%u): upgrade the older side; retrying every %.0f s", env->version,
                 env->body_case == IOFLEET__ENVELOPE__BODY_WELCOME
                 && env->welcome->controller_version && *env->welcome->controller_version
                 ? ", iofleet " : "",
                 env->body_case == IOFLEET__ENVELOPE__BODY_WELCOME
                 && env->welcome->controller_version ? env->welcome->controller_version : "",
                 IOF_VERSION, message_protocol (), (double) LINK_HELLO_RETRY_MAX_NS / 1e9);
}

static void
on_message (agent_t *a, zframe_t *frame)
{
    char err[256];
    int mismatch;
    envelope_t *env = message_unpack (zframe_data (frame), zframe_size (frame), &mismatch,
                                      err, sizeof err);
    if (env && mismatch) {
        on_other_protocol (a, env);
        message_free (env);
        return;
    }
    if (!env) {
        a->bad_messages++;
        if (log_ratelimit (&a->bad_logged_at, 60 * NS_PER_SEC))
            log_warn ("dropped a bad message from the controller (%llu so far): %s",
                      (unsigned long long) a->bad_messages, err);
        return;
    }
    a->last_heard = clock_mono_ns ();
    switch (env->body_case) {
    case IOFLEET__ENVELOPE__BODY_WELCOME:
        if (!a->welcomed)
            log_info ("connected to %s as '%s' (agent id %llu); controller iofleet %s, agent "
                      "iofleet %s, protocol %u", a->endpoint, a->name,
                      (unsigned long long) env->welcome->agent_id,
                      *env->welcome->controller_version ? env->welcome->controller_version
                                                        : "before 0.2.0",
                      IOF_VERSION, message_protocol ());
        a->welcomed = true;
        a->hello_backoff = LINK_HELLO_RETRY_NS;
        a->agent_id = env->welcome->agent_id;
        send_ping (a);
        /* A new connection, maybe a new controller: everything it has not
           acknowledged goes again now. */
        spool_unsend (a->spool);
        break;
    case IOFLEET__ENVELOPE__BODY_REJECT:
        /* Not retried: an agent refused for its name would take it from
           the agent that has it at every retry. */
        log_err ("the controller at %s refused agent '%s': %s.  Not retrying: fix that, then "
                 "start this agent again", a->endpoint, a->name, env->reject->reason);
        a->rejected = true;
        zsys_interrupted = 1;
        break;
    case IOFLEET__ENVELOPE__BODY_PONG:
        on_pong (a, env->pong);
        break;
    case IOFLEET__ENVELOPE__BODY_PREPARE:
        on_prepare (a, env->prepare);
        break;
    case IOFLEET__ENVELOPE__BODY_START:
        on_start (a, env->start);
        break;
    case IOFLEET__ENVELOPE__BODY_ACK:
        /* upto counts (seq < upto); the spool's bound is inclusive. */
        if (env->ack->upto == UINT32_MAX)
            spool_ack (a->spool, env->ack->run, env->ack->step, UINT32_MAX);
        else if (env->ack->upto > 0)
            spool_ack (a->spool, env->ack->run, env->ack->step, env->ack->upto - 1);
        spool_ack_seqs (a->spool, env->ack->run, env->ack->step, env->ack->seqs,
                        env->ack->n_seqs);
        /* The controller lost what it had not acknowledged: again, now. */
        if (env->ack->resend) {
            log_info ("the controller asks for every unacknowledged message again (its "
                      "database works again)");
            spool_unsend (a->spool);
        }
        break;
    case IOFLEET__ENVELOPE__BODY_ABORT:
        if (a->preparing && a->prep_run == env->abort->run) {
            /* Inside a layout (prepare_stop): it stops at its next look. */
            log_warn ("run %llu aborted by the controller while preparing: %s; stopping",
                      (unsigned long long) env->abort->run, env->abort->reason);
            snprintf (a->prep_stop, sizeof a->prep_stop, "the controller aborted run %llu: %s",
                      (unsigned long long) env->abort->run, env->abort->reason);
        } else if (a->job && step_run (a->job) == env->abort->run) {
            uint64_t t0 = clock_mono_ns ();
            log_warn ("run %llu aborted by the controller: %s",
                      (unsigned long long) env->abort->run, env->abort->reason);
            drop_job (a);       /* stops the workers and waits for them */
            spool_keep_only (a->spool, 0, 0);     /* runs start at 1: all of it */
            log_info ("run %llu: workers stopped %.0f ms after the abort",
                      (unsigned long long) env->abort->run,
                      (double) (clock_mono_ns () - t0) / 1e6);
        }
        break;
    case IOFLEET__ENVELOPE__BODY_ERROR:
        /* The controller does not know us (it restarted): introduce again.
           It answers every message of ours it had queued so; one hello
           (and one line) for the lot. */
        if (a->welcomed || clock_mono_ns () - a->last_hello >= LINK_HELLO_RETRY_NS) {
            log_warn ("controller: %s", env->error->message);
            a->welcomed = false;
            send_hello (a);
        }
        break;
    default:
        a->bad_messages++;
        if (log_ratelimit (&a->bad_logged_at, 60 * NS_PER_SEC))
            log_warn ("unexpected %s message from the controller, dropped",
                      message_kind (env));
        break;
    }
    message_free (env);
}

/* The agent's options; each is also a key of its configuration file. */
static const struct option agent_opts[] = {
    { "controller", required_argument, NULL, 'c' },
    { "cert", required_argument, NULL, 1001 },
    { "controller-key", required_argument, NULL, 1002 },
    { "name", required_argument, NULL, 'n' },
    { "label", required_argument, NULL, 'l' },
    { "allow", required_argument, NULL, 'a' },
    { "workdir", required_argument, NULL, 'w' },
    { "allow-write", required_argument, NULL, 1101 },
    { "allow-write-formatted", required_argument, NULL, 1102 },
    { "spool-dir", required_argument, NULL, 1201 },
    { "spool-max", required_argument, NULL, 1202 },
    { "simulate", required_argument, NULL, 1301 },
    { "targets", required_argument, NULL, 1302 },
    { "verbose", no_argument, NULL, 'v' },
    { "clock-shift-ms", required_argument, NULL, 'S' },
    { "sysfs-root", required_argument, NULL, 'Y' },
    { "procfs-root", required_argument, NULL, 'P' },
    { "etc-root", required_argument, NULL, 'E' },
    { "test-protocol", required_argument, NULL, 1401 },
    { "test-release", required_argument, NULL, 1402 },
    CONFIG_OPTIONS,
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
};
static const char *const agent_repeatable[] = {
    "label", "allow", "allow-write", "allow-write-formatted", NULL
};
static bool verbose;

/* A glob of --allow, --allow-write or --allow-write-formatted into list
   (n of TARGET_ALLOW_MAX).  Returns 0 or 2 (printed). */
static int
add_glob (const char **list, int *n, const char *where, const char *v)
{
    if (*n == TARGET_ALLOW_MAX || v[0] != '/') {
        fprintf (stderr, "iofleet-agent: %s '%s': globs are absolute paths, at most %d of "
                 "them\n", where, v, TARGET_ALLOW_MAX);
        return 2;
    }
    list[(*n)++] = v;
    return 0;
}

/* config_apply_fn: one option, from the file or the command line. */
static int
apply_option (void *arg, int c, const char *v, const char *where, bool from_cli)
{
    agent_t *a = arg;
    /* A repeatable option on the command line replaces the file's list. */
    static bool cli_seen[4];
    int list = c == 'l' ? 0 : c == 'a' ? 1 : c == 1101 ? 2 : c == 1102 ? 3 : -1;
    if (list >= 0 && from_cli && !cli_seen[list]) {
        cli_seen[list] = true;
        if (list == 0)
            a->nlabels = 0;
        else if (list == 1)
            a->policy.nallow = 0;
        else if (list == 2)
            a->policy.nallow_write = 0;
        else
            a->policy.nallow_formatted = 0;
    }
    switch (c) {
    case 'c': {
        char err[600];
        if (endpoint_check (v, false, err, sizeof err) != 0) {
            fprintf (stderr, "iofleet-agent: %s %s\n", where, err);
            return 2;
        }
        a->endpoint = v;
        break;
    }
    case 1001: a->cert = v; break;
    case 1002: a->controller_key = v; break;
    case 'n':
        if (strlen (v) == 0 || strlen (v) > MSG_NAME_MAX) {
            fprintf (stderr, "iofleet-agent: %s '%s': 1..%d characters\n", where, v,
                     MSG_NAME_MAX);
            return 2;
        }
        str_copy (a->name, sizeof a->name, v);
        name_given = true;
        break;
    case 'l': {
        const char *eq = strchr (v, '=');
        if (!eq || eq == v || a->nlabels == MSG_LABELS_MAX || eq - v > MSG_NAME_MAX
            || strlen (eq + 1) > MSG_LABEL_VALUE_MAX) {
            fprintf (stderr, "iofleet-agent: %s '%s': expected KEY=VALUE (key up to %d "
                     "characters, value up to %d, at most %d labels)\n", where, v,
                     MSG_NAME_MAX, MSG_LABEL_VALUE_MAX, MSG_LABELS_MAX);
            return 2;
        }
        char *key = a->label_text[a->nlabels];
        str_copy (key, sizeof a->label_text[0], v);
        key[eq - v] = '\0';
        iofleet__label__init (&a->labels[a->nlabels]);
        a->labels[a->nlabels].key = key;
        a->labels[a->nlabels].value = key + (eq - v) + 1;
        a->label_ptrs[a->nlabels] = &a->labels[a->nlabels];
        a->nlabels++;
        break;
    }
    case 'a': return add_glob (a->policy.allow, &a->policy.nallow, where, v);
    case 'w': a->policy.workdir = v; break;
    case 1101: return add_glob (a->policy.allow_write, &a->policy.nallow_write, where, v);
    case 1102: return add_glob (a->policy.allow_formatted, &a->policy.nallow_formatted, where, v);
    case 1201: a->spool_dir = v; break;
    case 1202:
        if (job_parse_size (v, &a->spool_max) != 0 || a->spool_max < SPOOL_MAX_MIN) {
            fprintf (stderr, "iofleet-agent: %s '%s': a size of at least %lluk, e.g. 256m or "
                     "2g\n", where, v, SPOOL_MAX_MIN >> 10);
            return 2;
        }
        break;
    case 1301:
    case 1302: {
        char *end;
        long n = strtol (v, &end, 10);
        long max = c == 1301 ? 100000 : MSG_TARGETS_MAX;
        if (*end || n < 1 || n > max) {
            fprintf (stderr, "iofleet-agent: %s '%s': a number, 1..%ld\n", where, v, max);
            return 2;
        }
        if (c == 1301)
            sim_agents = (int) n;
        else
            sim_targets = (int) n;
        break;
    }
    case 'v': verbose = true; break;
    case 'S': {
        char *end;
        long ms = strtol (v, &end, 10);
        if (*end || ms < -3600000 || ms > 3600000) {
            fprintf (stderr, "iofleet-agent: %s '%s': milliseconds, -3600000..3600000\n", where,
                     v);
            return 2;
        }
        a->clock_shift = (int64_t) ms * (int64_t) NS_PER_MS;
        break;
    }
    case 1401: {
        uint64_t n;
        if (parse_u64 (v, 1, 1000, &n) != 0) {
            fprintf (stderr, "iofleet-agent: %s '%s': a protocol version, 1..1000\n", where, v);
            return 2;
        }
        message_set_protocol ((uint32_t) n);
        break;
    }
    case 1402:
        a->release = v;
        break;
    case 'Y': a->sysfs_root = v; break;
    case 'P': a->procfs_root = v; break;
    case 'E': a->etc_root = v; break;
    case 'h': usage (stdout); exit (0);
    case 'V': printf ("iofleet-agent %s (protocol %d)\n", IOF_VERSION, IOF_PROTOCOL_VERSION);
        exit (0);
    default: usage (stderr); return 2;
    }
    return 0;
}

/* Reads the configuration file and the command line into a.  Returns 0 or
   the exit status (2), the error printed. */
static int
parse_args (agent_t *a, config_t *cfg, int argc, char **argv)
{
    int rc = config_parse (cfg, argc, argv, DEFAULT_CONFIG, apply_option, a);
    if (rc)
        return rc;
    if (!a->endpoint) {
        fprintf (stderr, "iofleet-agent: no controller: pass --controller ENDPOINT, or set "
                 "'controller = ENDPOINT' in %s, e.g. tcp://ctl.example:5570 (see --help)\n",
                 config_file (cfg)[0] ? config_file (cfg) : DEFAULT_CONFIG);
        return 2;
    }
    if (a->policy.workdir) {
        if (access (a->policy.workdir, W_OK | X_OK) != 0) {
            fprintf (stderr, "iofleet-agent: workdir '%s': %s (create it, or point at a "
                     "writable directory)\n", a->policy.workdir, strerror (errno));
            return 2;
        }
    }
    if (!a->sysfs_root)
        a->sysfs_root = "/sys";
    if (!a->procfs_root)
        a->procfs_root = "/proc";
    if (!a->etc_root)
        a->etc_root = "/etc";
    /* The write guard reads mounts, swaps and holders where the inventory does. */
    a->policy.sysfs_root = a->sysfs_root;
    a->policy.procfs_root = a->procfs_root;
    if (!a->name[0]) {
        char host[256] = "agent";
        gethostname (host, sizeof host - 1);
        host[MSG_NAME_MAX] = '\0';
        str_copy (a->name, sizeof a->name, host);
    }
    log_init ("iofleet-agent", verbose ? LL_DEBUG : LL_INFO);
    return 0;
}

/* The DEALER to the controller, with CURVE when configured, connecting.
   NULL with err filled. */
static zsock_t *
open_socket (agent_t *a, char *err, size_t errlen)
{
    zsock_t *s = link_open (a->endpoint, a->cert, a->controller_key, err, errlen);
    if (s)
        a->opened_at = clock_mono_ns ();
    return s;
}

/* Creates dir and its missing parents (0700).  Returns 0 or -errno. */
static int
mkdir_parents (const char *dir)
{
    char path[4096];
    if (str_copy (path, sizeof path, dir) != 0)
        return -ENAMETOOLONG;
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir (path, 0700) != 0 && errno != EEXIST)
                return -errno;
            *p = '/';
        }
    return mkdir (path, 0700) != 0 && errno != EEXIST ? -errno : 0;
}

/* The spool directory when --spool-dir is not given: $STATE_DIRECTORY/spool
   under systemd (StateDirectory=), else /var/lib/iofleet-agent/NAME.  Can't
   fail. */
static const char *
spool_dir_default (const agent_t *a)
{
    static char dflt[4096];
    const char *state = getenv ("STATE_DIRECTORY");
    if (state && *state)
        snprintf (dflt, sizeof dflt, "%s/spool", state);
    else
        snprintf (dflt, sizeof dflt, "/var/lib/iofleet-agent/%s", a->name);
    return dflt;
}

/* Opens the spool (--spool-dir, or the default), takes this agent's
   instance id from it and says what an earlier run of this agent left in
   it.  Returns 0 or -1 with err filled. */
static int
open_spool (agent_t *a, char *err, size_t errlen)
{
    if (!a->spool_dir) {
        const char *dflt = spool_dir_default (a);
        a->spool_dir = dflt;
        int rc = mkdir_parents (dflt);
        if (rc) {
            snprintf (err, errlen, "cannot create the spool directory '%s': %s (run as root, "
                      "or pass --spool-dir DIR)", dflt, strerror (-rc));
            return -1;
        }
    }
    a->spool = spool_new (a->spool_dir, a->spool_max ? a->spool_max : SPOOL_MAX_DEFAULT, false,
                          err, errlen);
    if (!a->spool)
        return -1;
    if (instance_load (a->spool_dir, a->instance, err, errlen) != 0) {
        spool_destroy (&a->spool);
        return -1;
    }
    spool_stats_t st;
    spool_stats (a->spool, &st);
    if (st.recovered)
        log_info ("spool %s: %llu message(s) an earlier run of this agent had not delivered; "
                  "sending them once the controller welcomes us", a->spool_dir,
                  (unsigned long long) st.recovered);
    return 0;
}

/* iofleet-agent spool DIR [--json]: what a spool directory holds. */
static int
spool_command (int argc, char **argv)
{
    bool json = false;
    const char *dir = NULL;
    if (args_want_help (argc, argv, 1)) {
        printf ("usage: iofleet-agent spool DIR [--json]\n\nLists the steps whose messages a "
                "spool directory (--spool-dir) holds: records, how many the controller has\n"
                "not acknowledged, the interval numbers, whether the step's DONE is there,\n"
                "and how many the spool dropped when it overflowed.  Read-only: safe while\n"
                "the agent runs (acknowledgements are not on disk, so records of a running\n"
                "agent count as unacknowledged until their segment is reclaimed).\n");
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp (argv[i], "--json") == 0)
            json = true;
        else if (!dir)
            dir = argv[i];
        else {
            fprintf (stderr, "iofleet-agent spool: unexpected argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!dir) {
        fprintf (stderr, "usage: iofleet-agent spool DIR [--json]\n");
        return 2;
    }
    log_init ("iofleet-agent", LL_WARN);
    char err[1024];
    spool_t *sp = spool_new (dir, SPOOL_MAX_DEFAULT, true, err, sizeof err);
    if (!sp) {
        fprintf (stderr, "iofleet-agent spool: %s\n", err);
        return 1;
    }
    json_t *steps = spool_steps_json (sp);
    spool_stats_t st;
    spool_stats (sp, &st);
    spool_destroy (&sp);
    if (!steps) {
        fprintf (stderr, "iofleet-agent spool: out of memory\n");
        return 1;
    }
    if (json) {
        json_t *o = json_pack ("{s:s, s:I, s:I, s:I, s:o}", "dir", dir, "records",
                               (json_int_t) st.records, "bytes", (json_int_t) st.bytes,
                               "torn_bytes", (json_int_t) st.torn_bytes, "steps", steps);
        json_dumpf (o, stdout, JSON_INDENT (2));
        putchar ('\n');
        json_decref (o);
        return 0;
    }
    printf ("%s: %llu record(s), %llu bytes in %llu segment(s)%s\n", dir,
            (unsigned long long) st.records, (unsigned long long) st.bytes,
            (unsigned long long) st.segments, st.torn_bytes ? ", a torn tail at the end" : "");
    size_t i;
    json_t *o;
    json_array_foreach (steps, i, o) {
        json_t *first = json_object_get (o, "first_seq");
        printf ("  run %lld step %lld: %lld record(s)", (long long) json_integer_value (json_object_get (o, "run")),
                (long long) json_integer_value (json_object_get (o, "step")) + 1,
                (long long) json_integer_value (json_object_get (o, "records")));
        if (first)
            printf (", intervals %lld-%lld", (long long) json_integer_value (first),
                    (long long) json_integer_value (json_object_get (o, "last_seq")));
        printf ("%s\n", json_is_true (json_object_get (o, "done")) ? ", DONE" : ", no DONE");
    }
    json_decref (steps);
    return 0;
}

/* Unauthenticated, anyone on the path could pose as the controller and
   order I/O on this host's drives: off this host, CURVE it is (both
   certificates; curve_client_apply says which is missing).  Returns 0, or
   -1 after saying why. */
static int
check_curve (const agent_t *a)
{
    if (a->cert || a->controller_key || endpoint_is_local (a->endpoint))
        return 0;
    fprintf (stderr, "iofleet-agent: refusing to connect to '%s' without CURVE: set cert = "
             "NAME.cert_secret and controller-key = controller.cert (--cert, --controller-key; "
             "iofleet keys), or use a controller on this host\n", a->endpoint);
    return -1;
}

/* config_value_fn: the value in force of an option left at its default. */
static void
value_of (void *arg, int code, char *buf, size_t len)
{
    const agent_t *a = arg;
    switch (code) {
    case 'c': snprintf (buf, len, "%s", a->endpoint ? a->endpoint : ""); break;
    case 1001: snprintf (buf, len, "%s", a->cert ? a->cert : ""); break;
    case 1002: snprintf (buf, len, "%s", a->controller_key ? a->controller_key : ""); break;
    case 'n': snprintf (buf, len, "%s", sim_agents ? "sim" : a->name); break;
    case 'w': snprintf (buf, len, "%s", a->policy.workdir ? a->policy.workdir : ""); break;
    case 'l': case 'a': case 1101: case 1102: break;   /* lists: none */
    case 1201:
        snprintf (buf, len, "%s", sim_agents ? "" : a->spool_dir ? a->spool_dir
                                                                : spool_dir_default (a));
        break;
    case 1202: snprintf (buf, len, "%llum", (unsigned long long) (SPOOL_MAX_DEFAULT >> 20));
        break;
    case 1301: break;                                   /* none: a real agent */
    case 1302: snprintf (buf, len, "%d", sim_targets); break;
    case 'v': snprintf (buf, len, "%s", verbose ? "yes" : "no"); break;
    case 'S': snprintf (buf, len, "%lld", (long long) (a->clock_shift / (int64_t) NS_PER_MS));
        break;
    case 'Y': snprintf (buf, len, "%s", a->sysfs_root); break;
    case 'P': snprintf (buf, len, "%s", a->procfs_root); break;
    case 'E': snprintf (buf, len, "%s", a->etc_root); break;
    case 1401: snprintf (buf, len, "%u", message_protocol ()); break;
    case 1402: snprintf (buf, len, "%s", a->release ? a->release : IOF_VERSION); break;
    default: assert (!"an option without a value_of case"); break;
    }
}

/* --check-config: what would stop this configuration from working, found
   without connecting.  Returns the exit status (0: it would start). */
static int
check_config (agent_t *a, const config_t *cfg)
{
    int bad = check_curve (a) != 0;
    /* The certificates load as they would for the connection (which is
       not opened). */
    char err[1024];
    zsock_t *s = zsock_new (ZMQ_DEALER);
    if ((a->cert || a->controller_key)
        && (!s || curve_client_apply (s, a->cert, a->controller_key, err, sizeof err))) {
        fprintf (stderr, "iofleet-agent: %s\n", s ? err : "cannot create a socket");
        bad++;
    }
    zsock_destroy (&s);
    for (int i = 0; i < a->policy.nallow + a->policy.nallow_write; i++) {
        const char *g = i < a->policy.nallow ? a->policy.allow[i]
                                             : a->policy.allow_write[i - a->policy.nallow];
        glob_t gl;
        if (glob (g, GLOB_NOSORT, NULL, &gl) != 0)
            printf ("# note: %s matches nothing on this host now\n", g);
        else
            globfree (&gl);
    }
    /* Simulated agents keep no spool. */
    const char *spool = a->spool_dir ? a->spool_dir : spool_dir_default (a);
    if (!sim_agents && access (spool, F_OK) == 0) {
        char msg[1024];
        if (access (spool, W_OK | X_OK)) {
            fprintf (stderr, "iofleet-agent: spool-dir '%s': %s\n", spool, strerror (errno));
            bad++;
        } else {
            lockfile_info_t holder;
            bool held = spool_check_lock (spool, &holder, msg, sizeof msg) != 0;
            if (held && lockfile_held_by_mainpid (&holder))
                printf ("# note: %s (MAINPID: the unit's running agent, which a restart stops "
                        "first)\n", msg);
            else if (held) {
                fprintf (stderr, "iofleet-agent: %s: another agent runs with it; stop that "
                         "one, or give this one another --spool-dir\n", msg);
                bad++;
            }
        }
    }
    return config_verdict (cfg, bad, value_of, a, stdout);
}

/* Connects to the controller and serves it until SIGINT or SIGTERM.
   Returns the exit status. */
static int
serve (agent_t *a)
{
    zsys_init ();
    zsys_set_logstream (NULL);
    if (check_curve (a) != 0)
        return 2;
    if (sim_agents) {
        if (name_given && strlen (a->name) > MSG_NAME_MAX - 6) {
            fprintf (stderr, "iofleet-agent: --name prefix for --simulate: at most %d "
                     "characters\n", MSG_NAME_MAX - 6);
            return 2;
        }
        sim_config_t cfg = { .endpoint = a->endpoint, .cert = a->cert,
                             .controller_key = a->controller_key,
                             .prefix = name_given ? a->name : "sim",
                             .nagents = sim_agents, .ntargets = sim_targets };
        return sim_run (&cfg);      /* --spool-dir is accepted and ignored */
    }
    char err[1024];
    if (open_spool (a, err, sizeof err)) {
        fprintf (stderr, "iofleet-agent: %s\n", err);
        return 2;
    }
    a->hello_backoff = LINK_HELLO_RETRY_NS;
    a->hooks = (target_hooks_t) { .stop = prepare_stop, .arg = a };
    a->policy.hooks = &a->hooks;
    a->sock = open_socket (a, err, sizeof err);
    if (!a->sock) {
        fprintf (stderr, "iofleet-agent: %s\n", err);
        spool_destroy (&a->spool);
        return 2;
    }
    a->last_frame = clock_mono_ns ();
    log_info ("agent '%s' connecting to %s; %d allow glob(s)%s%s", a->name, a->endpoint,
              a->policy.nallow, a->policy.workdir ? ", workdir " : "",
              a->policy.workdir ? a->policy.workdir : "");
    send_hello (a);
    /* Ready: configured, spool open, dialing (ZeroMQ keeps redialing a
       controller that is not up yet). */
    sd_notifyf (0, "READY=1\nSTATUS=agent '%s', controller %s", a->name, a->endpoint);
    zpoller_t *poller = zpoller_new (a->sock, NULL);
    while (!zsys_interrupted) {
        int timeout_ms = a->running ? 10 : 200;
        void *which = zpoller_wait (poller, timeout_ms);
        if (which == a->sock) {
            zframe_t *f = zframe_recv (a->sock);
            if (f) {
                a->last_frame = clock_mono_ns ();
                a->silent_logged_at = 0;
                on_message (a, f);
                zframe_destroy (&f);
            }
        } else if (zpoller_terminated (poller))
            break;
        uint64_t now = clock_mono_ns ();
        /* A CURVE handshake the controller refused (key not allowed yet,
           or a controller with another key) is not retried by ZeroMQ: open
           a new connection now and then until it welcomes us. */
        if (!a->welcomed && (a->cert || a->controller_key)
            && now - a->opened_at > LINK_CURVE_REOPEN_NS) {
            if (log_ratelimit (&a->reopen_logged_at, 60 * NS_PER_SEC))
                log_warn ("no welcome from %s over CURVE after %.0f s: is this agent's key "
                          "(%s) in the controller's KEYDIR/agents/, and --controller-key its "
                          "controller.cert? retrying", a->endpoint,
                          (double) (now - a->opened_at) / 1e9, a->cert);
            zsock_t *fresh = open_socket (a, err, sizeof err);
            if (fresh) {
                zpoller_remove (poller, a->sock);
                zsock_destroy (&a->sock);
                a->sock = fresh;
                zpoller_add (poller, a->sock);
                send_hello (a);
            } else
                a->opened_at = now;
        }
        /* Not a word from the controller (ZeroMQ redials in silence: a
           wrong port looks just like a controller not started yet). */
        if (now - a->last_frame >= SILENT_WARN_NS
            && log_ratelimit (&a->silent_logged_at, 60 * NS_PER_SEC))
            log_warn ("nothing heard from the controller at %s for %.0f s: wrong host or port? "
                      "a firewall between? is the controller running?%s (still trying)",
                      a->endpoint, (double) (now - a->last_frame) / 1e9,
                      a->cert || a->controller_key ? " the CURVE keys?" : "");
        if (!a->welcomed && now - a->last_hello > a->hello_backoff) {
            send_hello (a);
            a->hello_backoff = a->hello_backoff * 2 > LINK_HELLO_RETRY_MAX_NS ? LINK_HELLO_RETRY_MAX_NS
                                                                         : a->hello_backoff * 2;
        }
        /* Ping fast until the clock estimate has samples to choose from. */
        uint64_t period = a->sync.nsamples < CLOCK_SYNC_N / 2 ? LINK_PING_NS / 10
                                                              : LINK_PING_NS;
        if (a->welcomed && now - a->last_ping > period)
            send_ping (a);
        if (a->welcomed && a->last_heard && now - a->last_heard > LINK_SILENCE_NS) {
            log_warn ("no answer from the controller for %.0f s; saying hello again",
                      (double) (now - a->last_heard) / 1e9);
            a->welcomed = false;
            a->last_heard = now;
            a->hello_backoff = LINK_HELLO_RETRY_NS;
            send_hello (a);
        }
        pump_snapshots (a);
        if (a->welcomed)
            spool_resend (a->spool, now, LINK_RESEND_NS, resend_one, a);
    }
    sd_notify (0, "STOPPING=1");
    spool_stats_t sst;
    spool_stats (a->spool, &sst);
    log_info ("agent '%s' stopping; spool holds %llu unacknowledged message(s), %llu dropped "
              "by overflow since start", a->name, (unsigned long long) sst.unacked,
              (unsigned long long) sst.dropped);
    drop_job (a);
    spool_destroy (&a->spool);
    zpoller_destroy (&poller);
    zsock_destroy (&a->sock);
    return a->rejected ? 2 : 0;
}

int
main (int argc, char **argv)
{
    if (argc >= 2 && strcmp (argv[1], "run") == 0)
        return local_run (argc - 1, argv + 1);
    if (argc >= 2 && strcmp (argv[1], "spool") == 0)
        return spool_command (argc - 1, argv + 1);
    static agent_t agent;
    config_t *cfg = config_new ("iofleet-agent", "agent", "c:n:l:a:w:vh", agent_opts, agent_repeatable);
    if (!cfg) {
        fprintf (stderr, "iofleet-agent: out of memory\n");
        return 1;
    }
    int rc = parse_args (&agent, cfg, argc, argv);
    if (!rc)
        rc = config_check_only (cfg) ? check_config (&agent, cfg) : serve (&agent);
    config_destroy (&cfg);
    return rc;
}
