/*  iofleet-agent: runs the I/O a controller asks for, on the targets its own
    command line allows, and streams latency histograms back.

    The main thread owns the socket (its link to the controller, link.h,
    driving the workload, workload.h); worker threads (agent/job.c) own the
    I/O.  The options are options.c's; --simulate is simulate.c, run
    JOBFILE local.c.
*/
#define _GNU_SOURCE
#include "config.h"
#include "instance.h"
#include "link.h"
#include "local.h"
#include "log.h"
#include "options.h"
#include "simulate.h"
#include "spool.h"
#include "stall.h"
#include "util.h"
#include "workload.h"

#include <czmq.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#define WAIT_MAX_MS     200     /* the loop's longest sleep */

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

/* Opens the spool (--spool-dir, or the default), takes this agent's
   instance id from it and says what an earlier run of this agent left in
   it.  Returns it, or NULL with err filled. */
static spool_t *
open_spool (agent_options_t *o, char instance[INSTANCE_ID_LEN + 1], char *err, size_t errlen)
{
    if (!o->spool_dir) {
        const char *dflt = options_spool_dir_default (o);
        o->spool_dir = dflt;
        int rc = mkdir_parents (dflt);
        if (rc) {
            snprintf (err, errlen, "cannot create the spool directory '%s': %s (run as root, "
                      "or pass --spool-dir DIR)", dflt, strerror (-rc));
            return NULL;
        }
    }
    spool_t *spool = spool_new (o->spool_dir, o->spool_max ? o->spool_max : SPOOL_MAX_DEFAULT,
                                false, err, errlen);
    if (!spool)
        return NULL;
    if (instance_load (o->spool_dir, instance, err, errlen) != 0) {
        spool_destroy (&spool);
        return NULL;
    }
    spool_stats_t st;
    spool_stats (spool, &st);
    if (st.recovered)
        log_info ("spool %s: %llu message(s) an earlier run of this agent had not delivered; "
                  "sending them once the controller welcomes us", o->spool_dir,
                  (unsigned long long) st.recovered);
    return spool;
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

/* Connects to the controller and serves it until SIGINT or SIGTERM, or
   its REJECT.  Returns the exit status. */
static int
serve (agent_options_t *o)
{
    zsys_init ();
    zsys_set_logstream (NULL);
    if (options_check_curve (o) != 0)
        return 2;
    if (o->sim_agents) {
        sim_config_t cfg = { .endpoint = o->endpoint, .cert = o->cert,
                             .controller_key = o->controller_key,
                             .prefix = o->name_given ? o->name : "sim",
                             .nagents = o->sim_agents, .ntargets = o->sim_targets };
        if (o->sim_media) {
            char err[256];
            cfg.nmedia = sim_media_parse (o->sim_media, cfg.media, err, sizeof err);
            IOF_ASSERT (cfg.nmedia > 0);    /* checked with the options */
        }
        if (o->sim_health) {
            char err[256];
            int rc = sim_health_parse (o->sim_health, &cfg.health, err, sizeof err);
            IOF_ASSERT (rc == 0);           /* checked with the options */
        }
        return sim_run (&cfg);      /* --spool-dir is accepted and ignored */
    }
    char err[1024];
    char instance[INSTANCE_ID_LEN + 1];
    spool_t *spool = open_spool (o, instance, err, sizeof err);
    if (!spool) {
        fprintf (stderr, "iofleet-agent: %s\n", err);
        return 2;
    }
    workload_t *work = workload_new (&o->policy, o->sysfs_root, o->procfs_root, o->etc_root);
    link_config_t cfg = { .endpoint = o->endpoint, .cert = o->cert,
                          .controller_key = o->controller_key, .name = o->name,
                          .release = o->release, .instance = instance,
                          .labels = o->label_ptrs, .nlabels = o->nlabels,
                          .clock_shift = o->clock_shift };
    log_info ("agent '%s' connecting to %s; %d allow glob(s)%s%s", o->name, o->endpoint,
              o->policy.nallow, o->policy.workdir ? ", workdir " : "",
              o->policy.workdir ? o->policy.workdir : "");
    link_t *link = work ? link_new (&cfg, &workload_ops, work, spool, err, sizeof err) : NULL;
    if (!link) {
        fprintf (stderr, "iofleet-agent: %s\n", work ? err : "out of memory");
        workload_destroy (&work);
        spool_destroy (&spool);
        return 2;
    }
    /* Ready: configured, spool open, dialing (ZeroMQ keeps redialing a
       controller that is not up yet). */
    sd_notifyf (0, "READY=1\nSTATUS=agent '%s', controller %s", o->name, o->endpoint);
    if (stall_init () != 0)
        log_warn ("cannot watch for SIGCONT: a stopped agent's intervals will not say so");
    while (!zsys_interrupted && !link_rejected (link)) {
        uint64_t now = clock_mono_ns ();
        if (stall_alive (now))
            log_warn ("this process was stopped and continued: the intervals it missed are "
                      "marked stalled");
        uint64_t next = link_tick (link, now);
        uint64_t now2 = clock_mono_ns ();
        long timeout = next > now2 ? (long) ((next - now2) / NS_PER_MS) + 1 : 0;
        if (timeout > WAIT_MAX_MS)
            timeout = WAIT_MAX_MS;
        zmq_pollitem_t item = { .socket = link_handle (link), .events = ZMQ_POLLIN };
        int nready = zmq_poll (&item, 1, timeout);
        if (nready < 0 && zmq_errno () == ETERM)
            break;
        if (nready > 0)
            link_recv (link, 64);
    }
    sd_notify (0, "STOPPING=1");
    spool_stats_t sst;
    spool_stats (spool, &sst);
    log_info ("agent '%s' stopping; spool holds %llu unacknowledged message(s), %llu dropped "
              "by overflow since start", o->name, (unsigned long long) sst.unacked,
              (unsigned long long) sst.dropped);
    int rc = link_rejected (link) ? 2 : 0;
    link_destroy (&link);
    workload_destroy (&work);
    spool_destroy (&spool);
    return rc;
}

int
main (int argc, char **argv)
{
    if (argc >= 2 && strcmp (argv[1], "run") == 0)
        return local_run (argc - 1, argv + 1);
    if (argc >= 2 && strcmp (argv[1], "spool") == 0)
        return spool_command (argc - 1, argv + 1);
    static agent_options_t options;
    config_t *cfg = options_config_new ();
    if (!cfg) {
        fprintf (stderr, "iofleet-agent: out of memory\n");
        return 1;
    }
    int rc = options_parse (&options, cfg, argc, argv);
    if (!rc)
        rc = config_check_only (cfg) ? options_check (&options, cfg) : serve (&options);
    config_destroy (&cfg);
    return rc;
}
