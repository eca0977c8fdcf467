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
#include "series.h"
#include "controller.h"
#include "config.h"
#include "cron.h"
#include "curve.h"
#include "log.h"
#include "units.h"
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
#include <getopt.h>
#include <libgen.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#define DEFAULT_CONFIG  "/etc/iofleet/controller.conf"
#define DEFAULT_DB      "/var/lib/iofleet/iofleet.db"
#define DEFAULT_LISTEN  "tcp://0.0.0.0:5570"
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

static void
usage (FILE *f)
{
    char admin[512];
    fprintf (f,
"usage: iofleet-controller [options]\n"
"\n"
"Stores test plans and results in SQLite and runs plans across the agents\n"
"that connect to it.  Use the 'iofleet' command to talk to it.\n"
"\n"
"options (each is also a key of the configuration file: 'db = PATH'):\n"
"  --config FILE          read options from FILE (INI, keys = the long options\n"
"                         below; default %s when it exists);\n"
"                         flags given here override the file\n"
"  --no-config            read no configuration file\n"
"  --check-config         check the file and flags, print the settings in force\n"
"                         and where each came from, and exit (0: it would start)\n"
"  --db PATH              SQLite database (default %s)\n"
"  --listen ENDPOINT      where agents connect (default %s)\n"
"  --admin ENDPOINT       where the iofleet CLI connects (default %s;\n"
"                         an ipc socket of mode 0600; tcp:// needs --keys and\n"
"                         admits the keys in KEYDIR/admins/)\n"
"  --keys DIR             CURVE: the controller's certificate DIR/controller.cert\n"
"                         and the agents it admits, DIR/agents/*.cert (make them\n"
"                         with 'iofleet keys init DIR'); required to listen on\n"
"                         anything but loopback or ipc\n"
"  --interval DURATION    snapshot interval asked of agents (default 1s; 10ms..60s)\n"
"  --prepare-timeout DURATION\n"
"                         how long agents may take to open and lay out targets\n"
"                         before a step starts without them (default 120s)\n"
"  --lost-after DURATION  an agent silent this long is lost (default 15s; 2s..1h);\n"
"                         one that speaks again during the same step is taken back\n"
"  --on-regression CMD    run CMD (with /bin/sh -c) when a scheduled run regressed\n"
"                         against its baseline; its stdin is the regressions as\n"
"                         JSON; it is stopped after 60 s; exit 0 = delivered,\n"
"                         anything else is logged and kept as the fire's hook\n"
"                         status (iofleet regressions); it never changes a verdict\n"
"  --test-clock EPOCH     (tests only) the scheduler's clock starts at EPOCH (Unix\n"
"                         seconds) and can be set with the admin test_clock command\n"
"  --retain-intervals AGE\n"
"                         per-interval snapshots of a run are dropped AGE after\n"
"                         it ends (30d, 2w, 12h; default: kept for ever), by the\n"
"                         controller itself while no run is queued or running;\n"
"                         results, merged histograms and the fleet's per-second\n"
"                         series are kept for ever, baselines keep everything\n"
"  --retain-interval-runs N\n"
"                         only the newest N ended runs keep their per-interval\n"
"                         snapshots (default: all; imports do not count); with\n"
"                         --retain-intervals too,\n"
"                         a run keeps them while it is within both\n"
"  --decode-threads N     threads that unpack the agents' messages and check,\n"
"                         encode and compress their snapshots, beside the loop\n"
"                         that stores them (default %d: the loop does it all;\n"
"                         at most %d); for a controller with cores to spare:\n"
"                         on two cores shared with other work, one stored less\n"
"                         than none (docs/benchmarks.md)\n"
"  --db-sync full|normal  SQLite synchronous level (default full: a snapshot is\n"
"                         acknowledged to its agent only once fsynced; normal\n"
"                         survives a controller crash, not a power cut, and\n"
"                         then loses acknowledged snapshots)\n"
"  --http ADDR:PORT       serve Prometheus metrics at http://ADDR:PORT/metrics,\n"
"                         web pages (/: the runs, reports, live progress,\n"
"                         compare, history, agents, schedules) and the read\n"
"                         commands' JSON at /api/... (see\n"
"                         docs/guide/05-deployment.md)\n"
"                         (off by default; 127.0.0.1, [::1] or localhost; any\n"
"                         other address needs the three options below; port 0:\n"
"                         any free one, logged)\n"
"  --http-tls-cert FILE, --http-tls-key FILE\n"
"                         serve HTTPS with this certificate and key (PEM)\n"
"  --http-token-file FILE a bearer token (its first line; mode 600, 16 characters\n"
"                         or more): requests without it get 401\n"
"  --http-targets histogram|counters|off\n"
"                         per agent and target in /metrics: ops and bytes and a\n"
"                         latency histogram (default; 32 series a target and\n"
"                         direction), ops and bytes only (2), or nothing\n"
"  --port-file PATH       write the bound agent endpoint here once started\n"
"                         (use with --listen tcp://127.0.0.1:* for a free port)\n"
"  --verbose              log debug messages\n"
"  --help, --version\n"
"\n"
"One controller per database: it locks DB.lock (beside the database, naming\n"
"its pid, host and endpoints) before it opens the database; a second one on\n"
"the same database exits with status 2, naming the first.\n"
"\n"
"exit status: 0 stopped by SIGTERM or SIGINT; 1 could not start; 2 bad\n"
"configuration or flags, or the database is in use by another controller;\n"
"3 the database cannot be opened, backed up before a migration, or migrated\n"
"(restarting will not help: the message says what will)\n",
             DEFAULT_CONFIG, DEFAULT_DB, DEFAULT_LISTEN, default_admin_endpoint (admin, sizeof admin, true),
             DECODE_POOL_DEFAULT_THREADS, DECODE_POOL_MAX_THREADS);
}

static int
parse_duration (const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    double v = strtod (s, &end);
    double mul = 1e9;
    if (strcmp (end, "ms") == 0)
        mul = 1e6;
    else if (strcmp (end, "s") == 0 || *end == '\0')
        mul = 1e9;
    else if (strcmp (end, "m") == 0)
        mul = 60e9;
    else
        v = -1;
    double ns = v * mul;
    if (end == s || v < 0 || ns < (double) lo || ns > (double) hi) {
        fprintf (stderr, "iofleet-controller: %s '%s': expected a duration between %.3g s and "
                 "%.3g s, e.g. 1s or 500ms\n", opt, s, (double) lo / 1e9, (double) hi / 1e9);
        return -1;
    }
    *out = (uint64_t) ns;
    return 0;
}

/* Whether a process accepts connections on the unix socket at path.
   ZeroMQ's ipc bind replaces the file, so a second controller would take
   over a running one's socket without a word. */
static bool
ipc_in_use (const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen (path) >= sizeof sa.sun_path)
        return false;
    strcpy (sa.sun_path, path);
    int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    bool used = connect (fd, (struct sockaddr *) &sa, sizeof sa) == 0;
    close (fd);
    return used;
}

/* Whether endpoint is an ipc:// socket a running process serves: then
   -1 with msg saying so and what to do, else 0.  Can't fail. */
static int
ipc_taken (const char *what, const char *endpoint, char *msg, size_t msglen)
{
    if (strncmp (endpoint, "ipc://", 6) != 0 || !ipc_in_use (endpoint + 6))
        return 0;
    snprintf (msg, msglen, "%s '%s' is in use: another controller is running there "
              "(systemctl status iofleet-controller?); stop it, or choose another endpoint",
              what, endpoint);
    return -1;
}

/* For ipc:// endpoints: refuse one that a running process serves, and
   create the socket's directory (0700) if needed. */
static int
prepare_ipc (const char *what, const char *endpoint)
{
    if (strncmp (endpoint, "ipc://", 6) != 0)
        return 0;
    char msg[600];
    if (ipc_taken (what, endpoint, msg, sizeof msg)) {
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

/* What the command line and the configuration file set. */
typedef struct {
    ctl_t *ctl;
    const char *db, *listen, *admin, *port_file, *keys, *db_sync, *hook, *http;
    const char *http_cert, *http_key, *http_token;
    metrics_targets_t http_targets;
    int64_t test_clock;
    int64_t retain_s, retain_runs;     /* -1: not given */
    int decode_threads;
    bool verbose;
} settings_t;

/* config_apply_fn: one option, from the file or the command line. */
static int
apply_option (void *arg, int code, const char *v, const char *where, bool from_cli)
{
    settings_t *s = arg;
    ctl_t *ctl = s->ctl;
    (void) from_cli;
    switch (code) {
    case 'd': s->db = v; break;
    case 'l':
    case 'a': {
        char err[600];
        if (endpoint_check (v, true, err, sizeof err) != 0) {
            fprintf (stderr, "iofleet-controller: %s %s\n", where, err);
            return 2;
        }
        if (code == 'l')
            s->listen = v;
        else
            s->admin = v;
        break;
    }
    case 'i':
        return parse_duration (where, v, MSG_INTERVAL_MIN_NS, MSG_INTERVAL_MAX_NS,
                               &ctl->interval_ns) ? 2 : 0;
    case 't':
        return parse_duration (where, v, NS_PER_SEC, 3600 * NS_PER_SEC,
                               &ctl->prepare_timeout_ns) ? 2 : 0;
    case 'p': s->port_file = v; break;
    case 'k': s->keys = v; break;
    case 'L':
        return parse_duration (where, v, 2 * NS_PER_SEC, 3600 * NS_PER_SEC,
                               &ctl->lost_after_ns) ? 2 : 0;
    case 'S':
        if (strcmp (v, "full") != 0 && strcmp (v, "normal") != 0) {
            fprintf (stderr, "iofleet-controller: %s '%s': full or normal\n", where, v);
            return 2;
        }
        s->db_sync = v;
        break;
    case 'R': s->hook = v; break;
    case 'H': s->http = v; break;
    case 'E': s->http_cert = v; break;
    case 'K': s->http_key = v; break;
    case 'T': s->http_token = v; break;
    case 'D':
        if (metrics_targets_parse (v, &s->http_targets)) {
            fprintf (stderr, "iofleet-controller: %s '%s': histogram, counters or off\n", where,
                     v);
            return 2;
        }
        break;
    case 'C': {
        char *end;
        long long t = strtoll (v, &end, 10);
        if (*end || t <= 0) {
            fprintf (stderr, "iofleet-controller: %s '%s': Unix seconds\n", where, v);
            return 2;
        }
        s->test_clock = t;
        break;
    }
    case 'r':
        if (units_parse_age (v, &s->retain_s)) {
            fprintf (stderr, "iofleet-controller: %s '%s': an age such as 30d, 2w, 12h, 90m\n",
                     where, v);
            return 2;
        }
        break;
    case 'n': {
        char *end;
        errno = 0;
        long long n = strtoll (v, &end, 10);
        if (*end || end == v || errno || n < 0 || n > 1000000000) {
            fprintf (stderr, "iofleet-controller: %s '%s': a number of runs, 0 to 1000000000\n",
                     where, v);
            return 2;
        }
        s->retain_runs = n;
        break;
    }
    case 'j': {
        char *end;
        errno = 0;
        long n = strtol (v, &end, 10);
        if (*end || end == v || errno || n < 0 || n > DECODE_POOL_MAX_THREADS) {
            fprintf (stderr, "iofleet-controller: %s '%s': a number of threads, 0 to %d\n",
                     where, v, DECODE_POOL_MAX_THREADS);
            return 2;
        }
        s->decode_threads = (int) n;
        break;
    }
    case 'v': s->verbose = true; break;
    case 'h': usage (stdout); exit (0);
    case 'V': printf ("iofleet-controller %s (protocol %d)\n", IOF_VERSION,
                      IOF_PROTOCOL_VERSION); exit (0);
    default: usage (stderr); return 2;
    }
    return 0;
}

/* A duration as the options take it: 1s, 500ms.  Can't fail. */
static void
format_duration (uint64_t ns, char *buf, size_t len)
{
    if (ns % NS_PER_SEC == 0)
        snprintf (buf, len, "%llus", (unsigned long long) (ns / NS_PER_SEC));
    else if (ns % NS_PER_MS == 0)
        snprintf (buf, len, "%llums", (unsigned long long) (ns / NS_PER_MS));
    else
        snprintf (buf, len, "%.9gs", (double) ns / 1e9);
}

/* config_value_fn: the value in force of an option left at its default,
   from the settings themselves (the defaults are set in main). */
static void
value_of (void *arg, int code, char *buf, size_t len)
{
    const settings_t *s = arg;
    const ctl_t *ctl = s->ctl;
    switch (code) {
    case 'd': snprintf (buf, len, "%s", s->db); break;
    case 'l': snprintf (buf, len, "%s", s->listen); break;
    case 'a': snprintf (buf, len, "%s", s->admin); break;
    case 'i': format_duration (ctl->interval_ns, buf, len); break;
    case 't': format_duration (ctl->prepare_timeout_ns, buf, len); break;
    case 'L': format_duration (ctl->lost_after_ns, buf, len); break;
    case 'S': snprintf (buf, len, "%s", s->db_sync); break;
    case 'p': snprintf (buf, len, "%s", s->port_file ? s->port_file : ""); break;
    case 'k': snprintf (buf, len, "%s", s->keys ? s->keys : ""); break;
    case 'R': snprintf (buf, len, "%s", s->hook ? s->hook : ""); break;
    case 'H': snprintf (buf, len, "%s", s->http ? s->http : ""); break;
    case 'D': snprintf (buf, len, "%s", metrics_targets_name (s->http_targets)); break;
    case 'E': snprintf (buf, len, "%s", s->http_cert ? s->http_cert : ""); break;
    case 'K': snprintf (buf, len, "%s", s->http_key ? s->http_key : ""); break;
    case 'T': snprintf (buf, len, "%s", s->http_token ? s->http_token : ""); break;
    case 'C':
        if (s->test_clock)
            snprintf (buf, len, "%lld", (long long) s->test_clock);
        break;
    case 'r':
        if (s->retain_s >= 0)
            snprintf (buf, len, "%llds", (long long) s->retain_s);
        break;
    case 'n':
        if (s->retain_runs >= 0)
            snprintf (buf, len, "%lld", (long long) s->retain_runs);
        break;
    case 'j': snprintf (buf, len, "%d", s->decode_threads); break;
    case 'v': snprintf (buf, len, "%s", s->verbose ? "yes" : "no"); break;
    default: IOF_ASSERT (!"an option without a value_of case"); break;
    }
}

/* store_progress_fn: a backup or migration at start-up shows in the log
   (every 5 s) and in systemctl status, and keeps a Type=notify unit's
   start timeout from killing it half-way. */
static void
on_progress (void *arg, const char *text, uint64_t expect_ns)
{
    static uint64_t logged_at;
    (void) arg;
    if (log_ratelimit (&logged_at, 5 * NS_PER_SEC))
        log_info ("%s", text);
    sd_notifyf (0, "STATUS=%s\nEXTEND_TIMEOUT_USEC=%llu", text,
                (unsigned long long) (expect_ns / 1000));
}

/* Whether dir (of path, when path names a file in it) lets this user
   create files: the database's WAL and journal live beside it.  Returns 0,
   or -1 after printing what is wrong. */
static int
check_dir_of (const char *what, const char *path)
{
    char copy[4096];
    str_copy (copy, sizeof copy, path);
    const char *dir = dirname (copy);
    if (access (dir, W_OK | X_OK) != 0) {
        fprintf (stderr, "iofleet-controller: %s '%s': its directory %s: %s\n", what, path, dir,
                 strerror (errno));
        return -1;
    }
    return 0;
}

/* Without CURVE anyone who can reach the port can run I/O on the fleet:
   only endpoints that stay on this host may go without it.  Returns 0, or
   -1 after saying why. */
static int
check_curve (const settings_t *set)
{
    if (!set->keys && !endpoint_is_local (set->listen)) {
        fprintf (stderr, "iofleet-controller: refusing to listen on '%s' without CURVE: any host "
                 "that reaches it could drive the fleet.  Create keys (iofleet keys init DIR) and "
                 "set keys = DIR (--keys DIR), or listen on 127.0.0.1 or ipc:// for a local "
                 "fleet\n", set->listen);
        return -1;
    }
    if (!set->keys && !endpoint_is_local (set->admin)) {
        fprintf (stderr, "iofleet-controller: refusing an admin endpoint '%s' off this host "
                 "without CURVE: set keys = DIR (--keys DIR; the CLI's key goes in DIR/admins/) "
                 "or use an ipc:// admin socket\n", set->admin);
        return -1;
    }
    return 0;
}

/* The --http options as http.h takes them. */
static http_opts_t
http_opts (const settings_t *set)
{
    return (http_opts_t) { .addr = set->http, .db = set->db, .cert = set->http_cert,
                           .key = set->http_key, .token_file = set->http_token };
}

/* The --http options: refused (printed) before anything starts.  Returns
   0 or -1. */
static int
check_http (const settings_t *set)
{
    char err[1200];
    if (!set->http) {
        if (set->http_cert || set->http_key || set->http_token) {
            fprintf (stderr, "iofleet-controller: --http-tls-cert, --http-tls-key and "
                     "--http-token-file need --http ADDR:PORT\n");
            return -1;
        }
        return 0;
    }
    http_opts_t o = http_opts (set);
    if (http_check (&o, err, sizeof err)) {
        fprintf (stderr, "iofleet-controller: %s\n", err);
        return -1;
    }
    return 0;
}

/* --check-config: what would stop this configuration from starting, found
   without starting it.  Returns the exit status (0: it would start). */
static int
check_config (const settings_t *set, const config_t *cfg)
{
    int bad = (check_curve (set) != 0) + (check_http (set) != 0);
    char err[1024];
    /* A controller running on it: say who, and read nothing of it; but
       the unit's own is stopped first by a restart (a package upgrade
       checks so: MAINPID), and what the start will do is told still. */
    char held[1200];
    lockfile_info_t holder;
    int lrc = store_check_lock (set->db, &holder, held, sizeof held);
    bool by_main = lrc == 1 && lockfile_held_by_mainpid (&holder);
    bool in_use = lrc != 0 && !by_main;
    if (by_main)
        printf ("# note: %s (MAINPID: the unit's running controller, which a restart stops "
                "first)\n", held);
    if (in_use) {
        fprintf (stderr, "iofleet-controller: %s\n", held);
        bad++;
    }
    /* The sockets a start would refuse, but those of that same one. */
    const char *eps[2][2] = { { "listen", set->listen }, { "admin", set->admin } };
    for (int i = 0; i < 2; i++) {
        char msg[600];
        if (!ipc_taken (eps[i][0], eps[i][1], msg, sizeof msg))
            continue;
        if (by_main && (strcmp (lockfile_get (&holder, "admin"), eps[i][1]) == 0
                        || strcmp (lockfile_get (&holder, "agents"), eps[i][1]) == 0))
            printf ("# note: %s '%s' is the unit's running controller's (MAINPID)\n", eps[i][0],
                    eps[i][1]);
        else {
            fprintf (stderr, "iofleet-controller: %s\n", msg);
            bad++;
        }
    }
    if (access (set->db, F_OK) == 0) {
        if (access (set->db, R_OK | W_OK) != 0) {
            fprintf (stderr, "iofleet-controller: db '%s': %s\n", set->db, strerror (errno));
            bad++;
        }
    }
    bad += check_dir_of ("db", set->db) != 0;
    char up[600] = "";
    if (!in_use && store_check_upgrade (set->db, up, sizeof up) != 0) {
        fprintf (stderr, "iofleet-controller: %s\n", up);
        bad++;
    } else if (up[0])
        printf ("# note: %s\n", up);
    if (set->keys && auth_check (set->keys, err, sizeof err) != 0) {
        fprintf (stderr, "iofleet-controller: %s\n", err);
        bad++;
    }
    if (strncmp (set->admin, "ipc://", 6) == 0) {
        char copy[4096];
        str_copy (copy, sizeof copy, set->admin + 6);
        char *dir = dirname (copy);
        /* prepare_ipc creates the socket's directory, not its parents;
           under a unit, systemd creates RuntimeDirectory= at start (and
           removes it at stop) */
        const char *rt = getenv ("RUNTIME_DIRECTORY");
        if (access (dir, F_OK) != 0 && !(rt && strcmp (rt, dir) == 0))
            bad += check_dir_of ("admin", dir) != 0;
    }
    if (set->port_file)
        bad += check_dir_of ("port-file", set->port_file) != 0;
    return config_verdict (cfg, bad, value_of, (void *) set, stdout);
}

/* runner_end_fn: a scheduled run's verdict against its baseline. */
static void
on_run_end (void *arg, int64_t run, const char *status)
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
wire (ctl_t *ctl)
{
    steps_listen (ctl);
    runner_on_end (ctl->runner, on_run_end, ctl);
}

/* A burst is a few hundred ms of ingest: an admin request (stats, or a
   read handed to a reader) waits for a slice of it, not for all of it.
   One handled mid-burst sees the tick's writes so far; a write it makes
   commits them, which only acknowledges them sooner.  Can't fail. */
static void
admin_slice (ctl_t *ctl, admin_t *admin_ep, int handled)
{
    if (handled % ADMIN_SLICE == 0 && (zsock_events (ctl->admin) & ZMQ_POLLIN))
        admin_on_request (admin_ep);
}

static void
count_message (ctl_t *ctl, zmsg_t *m)
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
ingest_burst (ctl_t *ctl, admin_t *admin_ep)
{
    decode_pool_t *pool = ctl->decode;
    for (int handled = 0;;) {
        zmsg_t *m;
        while (decode_pool_room (pool) && (m = zmsg_recv_nowait (ctl->router))) {
            count_message (ctl, m);
            decode_pool_push (pool, &m);
        }
        agent_msg_t *am;
        if (handled >= BURST_MAX || !(am = decode_pool_wait (pool)))
            return;
        fleet_handle (ctl->fleet, am);
        decode_pool_release (pool);
        admin_slice (ctl, admin_ep, ++handled);
    }
}

/* Starts the controller with these settings and serves until SIGINT or
   SIGTERM.  Returns the exit status: 2 for a configuration that cannot
   work, 1 when starting failed, 0 after a clean stop. */
static int
run (ctl_t *ctl, const settings_t *set, const config_t *cfg)
{
    const char *db = set->db, *listen = set->listen, *admin = set->admin;
    const char *keys = set->keys, *port_file = set->port_file;
    log_init ("iofleet-controller", set->verbose ? LL_DEBUG : LL_INFO);
    /* Before any thread: the schedules' TZ swaps (cron_next, on this
       thread) must not move the environment under a reader's getenv. */
    if (cron_tz_prepare () != 0) {
        log_err ("out of memory setting TZ");
        return 1;
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
    if (config_check_only (cfg))
        return check_config (set, cfg);
    if (check_curve (set) != 0 || check_http (set) != 0)
        return 2;
    /* The database, its WAL and the admin socket: for this user only. */
    umask (077);
    /* Before the database: a second controller must not touch it.  Its
       lock first (taken for good by store_open): a second controller on
       the same database and admin socket hears about the database, the
       bigger clash. */
    char err[1200];
    if (store_check_lock (db, NULL, err, sizeof err) == 1) {
        fprintf (stderr, "iofleet-controller: %s\n", err);
        return 2;
    }
    if (prepare_ipc ("listen", listen) || prepare_ipc ("admin", admin))
        return 1;
    /* Its port, certificate and key, before the database is touched. */
    http_t *http = NULL;
    if (set->http) {
        http_opts_t ho = http_opts (set);
        if (!(http = http_start (&ho, err, sizeof err))) {
            fprintf (stderr, "iofleet-controller: %s\n", err);
            return 1;
        }
    }

    lockfile_info_t owner = { 0 };
    lockfile_set (&owner, "admin", admin);
    lockfile_set (&owner, "agents", listen);
    bool in_use;
    ctl->store = store_open (db, &owner, strcmp (set->db_sync, "full") == 0, on_progress, NULL,
                             &in_use, err, sizeof err);
    if (!ctl->store) {
        fprintf (stderr, "iofleet-controller: %s\n", err);
        return in_use ? 2 : EXIT_DATABASE;
    }
    /* A socket per connected agent, plus the database's files. */
    long fds = fd_limit_raise (CTL_FDS_WANTED);
    if (fds < 4096)
        log_warn ("open-file limit %ld (hard limit): about %ld agents can connect; raise it "
                  "(LimitNOFILE= in the unit, ulimit -n) for a larger fleet", fds, fds - 64);
    zsys_init ();
    zsys_set_logstream (NULL);
    if (keys) {
        ctl->auth = auth_new (keys, err, sizeof err);
        if (!ctl->auth) {
            fprintf (stderr, "iofleet-controller: %s\n", err);
            return 1;
        }
    }
    ctl->router = zsock_new (ZMQ_ROUTER);
    /* A ROUTER, not a REP: a request answered by a reader thread does
       not hold up the next client's (the CLI's REQ works unchanged). */
    ctl->admin = zsock_new (ZMQ_ROUTER);
    zsock_set_maxmsgsize (ctl->admin, 64 << 20);
    if (ctl->auth) {
        auth_server (ctl->auth, ctl->router, "agents");
        if (strncmp (admin, "tcp://", 6) == 0)
            auth_server (ctl->auth, ctl->admin, "admins");
    }
    zsock_set_maxmsgsize (ctl->router, (int64_t) MSG_MAX_BYTES);
    zsock_set_router_handover (ctl->router, 1);
    /* ZMTP heartbeats (message.h): a dead agent's connection is dropped. */
    zsock_set_heartbeat_ivl (ctl->router, MSG_ZMTP_PING_MS);
    zsock_set_heartbeat_timeout (ctl->router, MSG_ZMTP_CTL_TIMEOUT_MS);
    zsock_set_linger (ctl->router, 0);
    zsock_set_linger (ctl->admin, 0);
    zsock_set_sndhwm (ctl->router, 100000);
    zsock_set_rcvhwm (ctl->router, 100000);
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
    const char *bound = zsock_endpoint (ctl->router);
    /* The lock names the endpoints as bound (a port of '*' chosen now). */
    owner.n = 0;
    lockfile_set (&owner, "admin", zsock_endpoint (ctl->admin) ? zsock_endpoint (ctl->admin)
                                                                : admin);
    lockfile_set (&owner, "agents", bound);
    store_describe_owner (ctl->store, &owner);
    ctl->stats = calloc (1, sizeof *ctl->stats);
    if (!ctl->stats) {
        fprintf (stderr, "iofleet-controller: out of memory\n");
        return 1;
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
        return 1;
    }
    wire (ctl);
    hook_interrupted (ctl->store);
    admin_t *admin_ep = admin_new (ctl, db, ADMIN_READERS, set->test_clock != 0, err,
                                  sizeof err);
    if (!admin_ep) {
        fprintf (stderr, "iofleet-controller: %s\n", err);
        return 1;
    }
    if (set->decode_threads > 0) {
        ctl->decode = decode_pool_new (db, set->decode_threads, err, sizeof err);
        if (!ctl->decode) {
            fprintf (stderr, "iofleet-controller: cannot start %d decode threads: %s "
                     "(--decode-threads 0 decodes on the loop)\n", set->decode_threads, err);
            return 1;
        }
    }
    recover_run (ctl);
    if (http) {
        series_keep_total (ctl->runner->series, set->http_targets != METRICS_TARGETS_OFF);
        char url[300];
        log_info ("metrics on %s", http_url (http, url, sizeof url));
    }
    log_info ("iofleet-controller %s: database %s (schema %d), agents on %s, admin on %s",
              IOF_VERSION, db, store_schema_version (ctl->store), bound,
              zsock_endpoint (ctl->admin) ? zsock_endpoint (ctl->admin) : admin);
    if (ctl->auth)
        log_info ("CURVE on: public key %s; agents admitted from %s/agents/",
                  auth_public_key (ctl->auth), keys);
    else
        log_warn ("NO AUTHENTICATION: agents connect without CURVE on %s (allowed only because "
                  "it stays on this host); use --keys DIR for a real fleet", bound);

    /* Written once the controller is up and has said so in its log, as
       READY=1 below: what waits on the file finds both. */
    if (port_file) {
        char tmp[4096];
        snprintf (tmp, sizeof tmp, "%s.tmp", port_file);
        FILE *f = fopen (tmp, "w");
        if (!f || fprintf (f, "%s\n", bound) < 0 || fclose (f) != 0 || rename (tmp, port_file)) {
            fprintf (stderr, "iofleet-controller: cannot write --port-file '%s': %s\n", port_file,
                     strerror (errno));
            return 1;
        }
    }
    /* Type=notify units start what depends on the controller now. */
    sd_notifyf (0, "READY=1\nSTATUS=agents on %s, database schema %d", bound,
                store_schema_version (ctl->store));
    zpoller_t *poller = zpoller_new (ctl->router, ctl->admin, NULL);
    if (ctl->auth)
        zpoller_add (poller, auth_socket (ctl->auth));
    admin_poll (admin_ep, poller);
    while (!zsys_interrupted) {
        /* A burst cut short at BURST_MAX with messages still with the
           decode threads goes on at once. */
        bool more = ctl->decode && decode_pool_pending (ctl->decode) > 0;
        void *which = zpoller_wait (poller, more ? 0 : TICK_MS);
        if (zpoller_terminated (poller))
            break;
        /* The agents' socket comes first in the poller: under load it is
           always ready, so the admin socket is asked for itself. */
        if (which == ctl->admin || (zsock_events (ctl->admin) & ZMQ_POLLIN))
            admin_on_request (admin_ep);
        admin_on_replies (admin_ep);
        /* Handshakes wait on these answers: serve every one queued. */
        while (ctl->auth && (zsock_events (auth_socket (ctl->auth)) & ZMQ_POLLIN))
            auth_on_zap (ctl);
        /* Drain what is queued, then commit once. */
        if (ctl->decode)
            ingest_burst (ctl, admin_ep);
        else
            for (int n = 0; n < BURST_MAX; n++) {
                zmsg_t *m = zmsg_recv_nowait (ctl->router);
                if (!m)
                    break;
                count_message (ctl, m);
                fleet_dispatch (ctl->fleet, &m);
                admin_slice (ctl, admin_ep, n + 1);
            }
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
        /* /metrics: the figures copied here, where they live, for a
           scrape that waits; written out on its thread. */
        if (http && http_wanted (http))
            http_publish (http, metrics_collect (ctl, set->http_targets));
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
    sd_notify (0, "STOPPING=1");
    log_info ("iofleet-controller stopping");
    store_commit (ctl->store);
    acks_after_commit (ctl);
    zpoller_destroy (&poller);
    decode_pool_destroy (&ctl->decode);
    http_stop (&http);
    admin_destroy (&admin_ep);
    runner_destroy (&ctl->runner);
    scheduler_destroy (&ctl->sched);
    fleet_destroy (&ctl->fleet);
    zsock_destroy (&ctl->router);
    zsock_destroy (&ctl->admin);
    auth_destroy (&ctl->auth);
    if (strncmp (admin, "ipc://", 6) == 0)
        unlink (admin + 6);
    store_close (&ctl->store);
    retention_destroy (&ctl->retention);
    snapdict_destroy (&ctl->snapdict);
    history_index_destroy (&ctl->history_index);
    free (ctl->stats);
    return 0;
}

int
main (int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' },
        { "listen", required_argument, NULL, 'l' },
        { "admin", required_argument, NULL, 'a' },
        { "interval", required_argument, NULL, 'i' },
        { "prepare-timeout", required_argument, NULL, 't' },
        { "port-file", required_argument, NULL, 'p' },
        { "keys", required_argument, NULL, 'k' },
        { "lost-after", required_argument, NULL, 'L' },
        { "db-sync", required_argument, NULL, 'S' },
        { "on-regression", required_argument, NULL, 'R' },
        { "test-clock", required_argument, NULL, 'C' },
        { "http", required_argument, NULL, 'H' },
        { "http-targets", required_argument, NULL, 'D' },
        { "http-tls-cert", required_argument, NULL, 'E' },
        { "http-tls-key", required_argument, NULL, 'K' },
        { "http-token-file", required_argument, NULL, 'T' },
        { "retain-intervals", required_argument, NULL, 'r' },
        { "retain-interval-runs", required_argument, NULL, 'n' },
        { "decode-threads", required_argument, NULL, 'j' },
        { "verbose", no_argument, NULL, 'v' },
        CONFIG_OPTIONS,
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    char admin_buf[512];
    static ctl_t ctl_s;
    ctl_t *ctl = &ctl_s;
    ctl->interval_ns = NS_PER_SEC;
    ctl->prepare_timeout_ns = 120 * NS_PER_SEC;
    ctl->lost_after_ns = CTL_SILENCE_LOST_NS;
    settings_t set = { .ctl = ctl, .db = DEFAULT_DB, .listen = DEFAULT_LISTEN,
                       .admin = default_admin_endpoint (admin_buf, sizeof admin_buf, true),
                       .db_sync = "full", .retain_s = -1, .retain_runs = -1,
                       .decode_threads = DECODE_POOL_DEFAULT_THREADS };
    config_t *cfg = config_new ("iofleet-controller", "controller", "h", opts, NULL);
    if (!cfg) {
        fprintf (stderr, "iofleet-controller: out of memory\n");
        return 1;
    }
    int rc = config_parse (cfg, argc, argv, DEFAULT_CONFIG, apply_option, &set);
    if (rc) {
        config_destroy (&cfg);
        return rc;
    }
    rc = run (ctl, &set, cfg);
    config_destroy (&cfg);
    return rc;
}
