/*  iofleet-controller: stores plans and results, drives runs across the
    fleet.  One event loop around the agent ROUTER socket and the admin
    socket; database writes are committed once per loop tick.  Read-only
    admin requests (reports, history) run on reader threads (admin.h).
*/
#define _GNU_SOURCE
#include "admin.h"
#include "decode_pool.h"
#include "http.h"
#include "metrics.h"
#include "runner.h"
#include "settings.h"
#include "series.h"
#include "controller.h"
#include "config.h"
#include "cron.h"
#include "curve.h"
#include "log.h"
#include "util.h"
#include "acks.h"
#include "auth.h"
#include "history_index.h"
#include "hook.h"
#include "recover.h"
#include "retention.h"
#include "scheduler.h"
#include "snapdict.h"
#include "steps.h"
#include "verdict.h"
#include "fleet.h"
#include "snapshot_prep.h"
#include "store.h"

#include <assert.h>
#include <errno.h>

#define CTL_FDS_WANTED 65536
#include <libgen.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#define TICK_MS         50
#define EXIT_DATABASE   3       /* the database cannot be opened, backed up or
                                   migrated: a restart would not fix it */
#define ADMIN_READERS   2       /* threads answering reads: one long report
                                   leaves one for the rest */
#define MALLOC_ARENAS   2       /* glibc arenas shared by all threads (run) */
#define ADMIN_SLICE     25      /* agent messages between looks at the admin socket */
#define BURST_MAX       250     /* messages handled per tick before committing: a
                                   fleet's synchronized snapshots are stored (and
                                   acknowledged) a quarter-thousand at a time */

/* For ipc:// endpoints: refuse one that a running process serves, and
   create the socket's directory (0700) if needed. */
static int
s_prepare_ipc (const char *what, const char *endpoint)
{
    if (strncmp (endpoint, "ipc://", 6) != 0)
        return 0;
    char msg[600];
    if (settings_ipc_taken (what, endpoint, msg, sizeof msg)) {
        fprintf (stderr, "iofleet-controller: %s\n", msg);
        return -1;
    }
    char path[4096];
    str_copy (path, sizeof path, endpoint + 6);
    char *dir = dirname (path);
    if (mkdir (dir, 0700) != 0 && errno != EEXIST) {
        fprintf (stderr, "iofleet-controller: cannot create '%s' for the admin socket: %s\n",
                 dir, strerror (errno));
        return -1;
    }
    return 0;
}

/* store_progress_fn: a backup or migration at start-up shows in the log
   (every 5 s) and in systemctl status, and keeps a Type=notify unit's
   start timeout from killing it half-way. */
static void
s_on_progress (void *arg, const char *text, uint64_t expect_ns)
{
    static uint64_t logged_at;
    (void) arg;
    if (log_ratelimit (&logged_at, 5 * NS_PER_SEC))
        log_info ("%s", text);
    sd_notifyf (0, "STATUS=%s\nEXTEND_TIMEOUT_USEC=%llu", text,
                (unsigned long long) (expect_ns / 1000));
}

/* runner_end_fn: a scheduled run's verdict against its baseline. */
static void
s_on_run_end (void *arg, int64_t run, const char *status)
{
    ctl_t *ctl = arg;
    verdict_on_run_end (ctl, run, status);
    retention_soon (ctl->retention);
    history_index_soon (ctl->history_index);
    snapdict_soon (ctl->snapdict);
}

/* Who hears what: the parts know nothing of each other; this is the one
   place that connects them.  Can't fail. */
static void
s_wire (ctl_t *ctl)
{
    steps_listen (ctl);
    runner_on_end (ctl->runner, s_on_run_end, ctl);
}

/* A burst is a few hundred ms of ingest: an admin request (stats, or a
   read handed to a reader) waits for a slice of it, not for all of it.
   One handled mid-burst sees the tick's writes so far; a write it makes
   commits them, which only acknowledges them sooner.  Can't fail. */
static void
s_admin_slice (ctl_t *ctl, admin_t *admin_ep, int handled)
{
    if (handled % ADMIN_SLICE == 0 && (zsock_events (ctl->admin) & ZMQ_POLLIN))
        admin_on_request (admin_ep);
}

static void
s_count_message (ctl_t *ctl, zmsg_t *m)
{
    ctl->stats->messages++;
    ctl->stats->bytes += zmsg_content_size (m);
}

/* A burst with decode threads (decode_pool.h): what is queued goes to
   them, kept coming as the loop handles what they decoded, in the order
   it came, up to BURST_MAX a commit.  The loop waits for a message a
   thread has not finished rather than commit with what it has, which
   commits (and fsyncs) every few messages: handled that way, 2,500
   agents stored 40,579 target-snapshots/s, against 60,000 on the loop
   alone (docs/benchmarks.md).  Can't fail. */
static void
s_ingest_burst (ctl_t *ctl, admin_t *admin_ep)
{
    decode_pool_t *pool = ctl->decode;
    for (int handled = 0;;) {
        zmsg_t *m;
        while (decode_pool_room (pool) && (m = zmsg_recv_nowait (ctl->router))) {
            s_count_message (ctl, m);
            decode_pool_push (pool, &m);
        }
        agent_msg_t *am;
        if (handled >= BURST_MAX || !(am = decode_pool_wait (pool)))
            return;
        fleet_handle (ctl->fleet, am);
        decode_pool_release (pool);
        s_admin_slice (ctl, admin_ep, ++handled);
    }
}

/* What run has started, for the loop and the stop. */
typedef struct {
    ctl_t *ctl;
    const settings_t *set;
    http_t *http;               /* --http, or NULL */
    admin_t *admin_ep;
    const char *bound;          /* the agents' endpoint as bound */
    zpoller_t *poller;
} daemon_t;

/* The process's own set-up, before any thread: the log, TZ, malloc's
   arenas.  Returns 0, or -1 after saying why. */
static int
s_process_setup (const settings_t *set)
{
    log_init ("iofleet-controller", set->verbose ? LL_DEBUG : LL_INFO);
    /* Before any thread: the schedules' TZ swaps (cron_next, on this
       thread) must not move the environment under a reader's getenv. */
    if (cron_tz_prepare () != 0) {
        log_err ("out of memory setting TZ");
        return -1;
    }
    /* Before any thread: at most MALLOC_ARENAS malloc arenas.  glibc gives
       each thread its own (up to 8 a core), and each keeps the most its
       thread ever held: ZeroMQ's I/O thread (every agent's pipes and
       buffers), the readers, the finalizer.  Shared, what one frees
       another reuses (docs/benchmarks.md, issue 21: 257 against 276-294
       MiB while reports ran; ingest CPU 65% against 63%). */
    if (mallopt (M_ARENA_MAX, MALLOC_ARENAS) != 1)
        log_warn ("cannot limit malloc's arenas to %d: memory may grow with threads",
                  MALLOC_ARENAS);
    /* The open-file limit to the hard one, as the unit's LimitNOFILE=
       sets it: a socket per agent and --http's pool (sized from it, in
       http_start) need it.  The hook's child gets the old one back. */
    fd_limit_raise (FD_LIMIT_HARD);
    return 0;
}

/* What is refused before anything is touched: the options, a database
   another controller holds, ipc sockets in use; then the --http port,
   certificate and key.  Returns 0, or the exit status after saying why. */
static int
s_preflight (daemon_t *d)
{
    const settings_t *set = d->set;
    if (settings_check_curve (set) != 0 || settings_check_http (set) != 0)
        return 2;
    /* The database, its WAL and the admin socket: for this user only. */
    umask (077);
    /* Before the database: a second controller must not touch it.  Its
       lock first (taken for good by store_open): a second controller on
       the same database and admin socket hears about the database, the
       bigger clash. */
    char err[1200];
    if (store_check_lock (set->db, NULL, err, sizeof err) == 1) {
        fprintf (stderr, "iofleet-controller: %s\n", err);
        return 2;
    }
    if (s_prepare_ipc ("listen", set->listen) || s_prepare_ipc ("admin", set->admin))
        return 1;
    /* Its port, certificate and key, before the database is touched. */
    if (set->http) {
        http_opts_t ho = settings_http_opts (set);
        if (!(d->http = http_start (&ho, err, sizeof err))) {
            fprintf (stderr, "iofleet-controller: %s\n", err);
            return 1;
        }
    }
    return 0;
}

/* The database, locked in the name of the endpoints asked for.  Returns
   0, or the exit status after saying why. */
static int
s_open_store (daemon_t *d)
{
    const settings_t *set = d->set;
    char err[1200];
    lockfile_info_t owner = { 0 };
    lockfile_set (&owner, "admin", set->admin);
    lockfile_set (&owner, "agents", set->listen);
    bool in_use;
    d->ctl->store = store_open (set->db, &owner, strcmp (set->db_sync, "full") == 0,
                                s_on_progress, NULL, &in_use, err, sizeof err);
    if (!d->ctl->store) {
        fprintf (stderr, "iofleet-controller: %s\n", err);
        return in_use ? 2 : EXIT_DATABASE;
    }
    return 0;
}

/* The agents' ROUTER and the admin socket, made and set (CURVE, sizes,
   heartbeats, queues).  Returns 0, or -1 after saying why. */
static int
s_make_sockets (ctl_t *ctl, const settings_t *set)
{
    zsys_init ();
    zsys_set_logstream (NULL);
    if (set->keys) {
        char err[1200];
        ctl->auth = auth_new (set->keys, err, sizeof err);
        if (!ctl->auth) {
            fprintf (stderr, "iofleet-controller: %s\n", err);
            return -1;
        }
    }
    ctl->router = zsock_new (ZMQ_ROUTER);
    /* A ROUTER, not a REP: a request answered by a reader thread does
       not hold up the next client's (the CLI's REQ works unchanged). */
    ctl->admin = zsock_new (ZMQ_ROUTER);
    zsock_set_maxmsgsize (ctl->admin, 64 << 20);
    if (ctl->auth) {
        auth_server (ctl->auth, ctl->router, "agents");
        if (strncmp (set->admin, "tcp://", 6) == 0)
            auth_server (ctl->auth, ctl->admin, "admins");
    }
    zsock_set_maxmsgsize (ctl->router, (int64_t) MSG_MAX_BYTES);
    zsock_set_router_handover (ctl->router, 1);
    /* ZMTP heartbeats (message.h): a dead agent's connection is dropped. */
    zsock_set_heartbeat_ivl (ctl->router, MSG_ZMTP_PING_MS);
    zsock_set_heartbeat_timeout (ctl->router, MSG_ZMTP_CTL_TIMEOUT_MS);
    zsock_set_linger (ctl->router, 0);
    zsock_set_linger (ctl->admin, 0);
    /* A CLI whose host vanished is dropped, its reply with it (util.h). */
    zsock_set_heartbeat_ivl (ctl->admin, ADMIN_PING_MS);
    zsock_set_heartbeat_timeout (ctl->admin, ADMIN_PING_TIMEOUT_MS);
    zsock_set_sndhwm (ctl->router, 100000);
    zsock_set_rcvhwm (ctl->router, 100000);
    return 0;
}

/* The sockets made and bound, and the database's lock told the endpoints
   as bound.  Returns 0, or the exit status after saying why. */
static int
s_bind (daemon_t *d)
{
    ctl_t *ctl = d->ctl;
    const char *listen = d->set->listen, *admin = d->set->admin;
    /* A socket per connected agent, plus the database's files (the limit
       was raised to the hard one at start). */
    long fds = fd_limit_raise (CTL_FDS_WANTED);
    if (fds < 4096)
        log_warn ("open-file limit %ld (hard limit): about %ld agents can connect; raise it "
                  "(LimitNOFILE= in the unit, ulimit -n) for a larger fleet", fds, fds - 64);
    if (s_make_sockets (ctl, d->set) != 0)
        return 1;
    int port = zsock_bind (ctl->router, "%s", listen);
    if (port < 0) {
        fprintf (stderr, "iofleet-controller: cannot listen on '%s': %s (is another controller "
                 "running there? choose another --listen)\n", listen, zmq_strerror (zmq_errno ()));
        return 1;
    }
    if (zsock_bind (ctl->admin, "%s", admin) < 0) {
        fprintf (stderr, "iofleet-controller: cannot open the admin endpoint '%s': %s (another "
                 "controller running? choose another --admin)\n", admin,
                 zmq_strerror (zmq_errno ()));
        return 1;
    }
    if (strncmp (admin, "ipc://", 6) == 0)
        chmod (admin + 6, 0600);
    d->bound = zsock_endpoint (ctl->router);
    /* The lock names the endpoints as bound (a port of '*' chosen now). */
    lockfile_info_t owner = { 0 };
    lockfile_set (&owner, "admin", zsock_endpoint (ctl->admin) ? zsock_endpoint (ctl->admin)
                                                                : admin);
    lockfile_set (&owner, "agents", d->bound);
    store_describe_owner (ctl->store, &owner);
    return 0;
}

/* The loop's parts: its counters, the fleet, the runner, the scheduler,
   retention, the history index, the dictionary, the admin socket's
   readers, the decode threads; wired, then the run in hand recovered.
   Returns 0, or -1 after saying why. */
static int
s_make_parts (daemon_t *d)
{
    ctl_t *ctl = d->ctl;
    const settings_t *set = d->set;
    ctl->stats = calloc (1, sizeof *ctl->stats);
    if (!ctl->stats) {
        fprintf (stderr, "iofleet-controller: out of memory\n");
        return -1;
    }
    ctl->stats->started = clock_mono_ns ();
    histogram_reset (&ctl->stats->lag);
    histogram_reset (&ctl->stats->commit);
    ctl->fleet = fleet_new (ctl);
    ctl->runner = runner_new (ctl);
    ctl->on_regression = set->hook;
    ctl->sched = scheduler_new (set->hook, set->test_clock);
    ctl->retention = retention_new (set->retain_s, set->retain_runs);
    ctl->history_index = history_index_new ();
    ctl->snapdict = snapdict_new ();
    if (!ctl->fleet || !ctl->runner || !ctl->sched || !ctl->history_index || !ctl->snapdict
        || (!ctl->retention && (set->retain_s >= 0 || set->retain_runs >= 0))) {
        fprintf (stderr, "iofleet-controller: out of memory\n");
        return -1;
    }
    s_wire (ctl);
    hook_interrupted (ctl->store);
    char err[1200];
    d->admin_ep = admin_new (ctl, set->db, ADMIN_READERS, set->test_clock != 0, err,
                             sizeof err);
    if (!d->admin_ep) {
        fprintf (stderr, "iofleet-controller: %s\n", err);
        return -1;
    }
    if (set->decode_threads > 0) {
        ctl->decode = decode_pool_new (set->db, set->decode_threads, err, sizeof err);
        if (!ctl->decode) {
            fprintf (stderr, "iofleet-controller: cannot start %d decode threads: %s "
                     "(--decode-threads 0 decodes on the loop)\n", set->decode_threads, err);
            return -1;
        }
    }
    recover_run (ctl);
    return 0;
}

/* The controller says it is up: in its log, in --port-file, and to
   systemd.  Returns 0, or -1 after saying why. */
static int
s_announce (daemon_t *d)
{
    ctl_t *ctl = d->ctl;
    const settings_t *set = d->set;
    const char *bound = d->bound;
    if (d->http) {
        series_keep_total (ctl->runner->series, set->http_targets != METRICS_TARGETS_OFF);
        char url[300];
        log_info ("metrics on %s", http_url (d->http, url, sizeof url));
    }
    log_info ("iofleet-controller %s: database %s (schema %d), agents on %s, admin on %s",
              IOF_VERSION, set->db, store_schema_version (ctl->store), bound,
              zsock_endpoint (ctl->admin) ? zsock_endpoint (ctl->admin) : set->admin);
    if (ctl->auth)
        log_info ("CURVE on: public key %s; agents admitted from %s/agents/",
                  auth_public_key (ctl->auth), set->keys);
    else
        log_warn ("NO AUTHENTICATION: agents connect without CURVE on %s (allowed only because "
                  "it stays on this host); use --keys DIR for a real fleet", bound);

    /* Written once the controller is up and has said so in its log, as
       READY=1 below: what waits on the file finds both. */
    const char *port_file = set->port_file;
    if (port_file) {
        char tmp[4096];
        snprintf (tmp, sizeof tmp, "%s.tmp", port_file);
        FILE *f = fopen (tmp, "w");
        if (!f || fprintf (f, "%s\n", bound) < 0 || fclose (f) != 0 || rename (tmp, port_file)) {
            fprintf (stderr, "iofleet-controller: cannot write --port-file '%s': %s\n", port_file,
                     strerror (errno));
            return -1;
        }
    }
    /* Type=notify units start what depends on the controller now. */
    sd_notifyf (0, "READY=1\nSTATUS=agents on %s, database schema %d", bound,
                store_schema_version (ctl->store));
    return 0;
}

/* One tick's messages: the admin socket, ZAP handshakes, then what the
   agents queued, drained up to BURST_MAX.  Can't fail. */
static void
s_drain (daemon_t *d, void *which)
{
    ctl_t *ctl = d->ctl;
    /* The agents' socket comes first in the poller: under load it is
       always ready, so the admin socket is asked for itself. */
    if (which == ctl->admin || (zsock_events (ctl->admin) & ZMQ_POLLIN))
        admin_on_request (d->admin_ep);
    admin_on_replies (d->admin_ep);
    /* Handshakes wait on these answers: serve every one queued. */
    while (ctl->auth && (zsock_events (auth_socket (ctl->auth)) & ZMQ_POLLIN))
        auth_on_zap (ctl);
    /* Drain what is queued, then commit once. */
    if (ctl->decode)
        s_ingest_burst (ctl, d->admin_ep);
    else
        for (int n = 0; n < BURST_MAX; n++) {
            zmsg_t *m = zmsg_recv_nowait (ctl->router);
            if (!m)
                break;
            s_count_message (ctl, m);
            fleet_dispatch (ctl->fleet, &m);
            s_admin_slice (ctl, d->admin_ep, n + 1);
        }
}

/* The end of a tick: every part's timers, the commit and what waited on
   it, and the HTTP thread's figures and questions.  Can't fail. */
static void
s_tick (daemon_t *d)
{
    ctl_t *ctl = d->ctl;
    fleet_tick (ctl->fleet);
    steps_tick (ctl);
    scheduler_tick (ctl);
    retention_tick (ctl);
    history_index_tick (ctl);
    if (snapdict_tick (ctl))
        decode_pool_reload (ctl->decode);
    if (store_in_tx (ctl->store)) {
        uint64_t t0 = clock_mono_ns ();
        store_commit (ctl->store);
        histogram_record (&ctl->stats->commit, clock_mono_ns () - t0);
        ctl->stats->commits++;
    }
    acks_after_commit (ctl);
    http_t *http = d->http;
    /* /metrics: the figures copied here, where they live, for a
       scrape that waits; written out on its thread. */
    if (http && http_wanted (http))
        http_publish (http, metrics_collect (ctl, d->set->http_targets));
    /* A page's question only the loop can answer (agents, a run's
       status, the schedules): answered here, rendered there. */
    json_t *ask = http ? http_asked (http) : NULL;
    if (ask) {
        size_t len = 0;
        bool failed = false;
        char *text = admin_loop_read (ctl, ask, &len, &failed);
        json_decref (ask);
        http_answer (http, text, len, failed);
    }
}

/* The event loop, until SIGINT or SIGTERM.  Can't fail. */
static void
s_loop (daemon_t *d)
{
    ctl_t *ctl = d->ctl;
    d->poller = zpoller_new (ctl->router, ctl->admin, NULL);
    if (ctl->auth)
        zpoller_add (d->poller, auth_socket (ctl->auth));
    admin_poll (d->admin_ep, d->poller);
    while (!zsys_interrupted) {
        /* A burst cut short at BURST_MAX with messages still with the
           decode threads goes on at once. */
        bool more = ctl->decode && decode_pool_pending (ctl->decode) > 0;
        void *which = zpoller_wait (d->poller, more ? 0 : TICK_MS);
        if (zpoller_terminated (d->poller))
            break;
        s_drain (d, which);
        s_tick (d);
    }
}

/* A clean stop: the last commit and its acknowledgements, then every
   part in turn.  Can't fail. */
static void
s_stop (daemon_t *d)
{
    ctl_t *ctl = d->ctl;
    sd_notify (0, "STOPPING=1");
    log_info ("iofleet-controller stopping");
    store_commit (ctl->store);
    acks_after_commit (ctl);
    zpoller_destroy (&d->poller);
    decode_pool_destroy (&ctl->decode);
    http_stop (&d->http);
    admin_destroy (&d->admin_ep);
    runner_destroy (&ctl->runner);
    scheduler_destroy (&ctl->sched);
    fleet_destroy (&ctl->fleet);
    zsock_destroy (&ctl->router);
    zsock_destroy (&ctl->admin);
    auth_destroy (&ctl->auth);
    if (strncmp (d->set->admin, "ipc://", 6) == 0)
        unlink (d->set->admin + 6);
    store_close (&ctl->store);
    retention_destroy (&ctl->retention);
    snapdict_destroy (&ctl->snapdict);
    history_index_destroy (&ctl->history_index);
    free (ctl->stats);
}

/* Starts the controller with these settings and serves until SIGINT or
   SIGTERM.  Returns the exit status: 2 for a configuration that cannot
   work, 1 when starting failed, 0 after a clean stop. */
static int
s_run (ctl_t *ctl, const settings_t *set, const config_t *cfg)
{
    if (s_process_setup (set) != 0)
        return 1;
    if (config_check_only (cfg))
        return settings_check_config (set, cfg);
    daemon_t d = { .ctl = ctl, .set = set };
    int rc = s_preflight (&d);
    if (rc == 0)
        rc = s_open_store (&d);
    if (rc == 0)
        rc = s_bind (&d);
    if (rc == 0 && (s_make_parts (&d) != 0 || s_announce (&d) != 0))
        rc = 1;
    if (rc)
        return rc;
    s_loop (&d);
    s_stop (&d);
    return 0;
}

int
main (int argc, char **argv)
{
    static ctl_t ctl_s;
    settings_t set;
    settings_init (&set, &ctl_s);
    config_t *cfg = settings_config_new ();
    if (!cfg) {
        fprintf (stderr, "iofleet-controller: out of memory\n");
        return 1;
    }
    int rc = settings_parse (&set, cfg, argc, argv);
    if (rc) {
        config_destroy (&cfg);
        return rc;
    }
    rc = s_run (&ctl_s, &set, cfg);
    config_destroy (&cfg);
    return rc;
}
