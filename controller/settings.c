/*  settings.c: the controller's options, see settings.h.  One table of
    options (s_options), each parsed where it is read (s_apply) and shown
    as it is in force (s_value_of); the checks a start makes before it
    touches anything, and --check-config, which makes them without
    starting.
*/
#define _GNU_SOURCE
#include "settings.h"
#include "auth.h"
#include "decode_pool.h"
#include "endpoint.h"
#include "log.h"
#include "store.h"
#include "units.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define DEFAULT_CONFIG  "/etc/iofleet/controller.conf"
#define DEFAULT_DB      "/var/lib/iofleet/iofleet.db"
#define DEFAULT_LISTEN  "tcp://0.0.0.0:5570"

/* The options, each also a key of the configuration file (config.h). */
static const struct option s_options[] = {
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

static void
s_usage (FILE *f)
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
"                         any free one, logged)\n""                         Connections: a pool of a quarter of the open-file\n"
"                         limit (raised to the hard one at start; 64..8192);\n"
"                         5 s to send a whole request, 30 s kept alive after an\n"
"                         answer; the pool full, the connection idle longest is\n"
"                         closed for the newcomer (no per-address limit)\n"
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
s_parse_duration (const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
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
s_ipc_in_use (const char *path)
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
int
settings_ipc_taken (const char *what, const char *endpoint, char *msg, size_t msglen)
{
    if (strncmp (endpoint, "ipc://", 6) != 0 || !s_ipc_in_use (endpoint + 6))
        return 0;
    snprintf (msg, msglen, "%s '%s' is in use: another controller is running there "
              "(systemctl status iofleet-controller?); stop it, or choose another endpoint",
              what, endpoint);
    return -1;
}

/* config_apply_fn: one option, from the file or the command line. */
static int
s_apply (void *arg, int code, const char *v, const char *where, bool from_cli)
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
        return s_parse_duration (where, v, MSG_INTERVAL_MIN_NS, MSG_INTERVAL_MAX_NS,
                               &ctl->interval_ns) ? 2 : 0;
    case 't':
        return s_parse_duration (where, v, NS_PER_SEC, 3600 * NS_PER_SEC,
                               &ctl->prepare_timeout_ns) ? 2 : 0;
    case 'p': s->port_file = v; break;
    case 'k': s->keys = v; break;
    case 'L':
        return s_parse_duration (where, v, 2 * NS_PER_SEC, 3600 * NS_PER_SEC,
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
    case 'h': s_usage (stdout); exit (0);
    case 'V': printf ("iofleet-controller %s (protocol %d)\n", IOF_VERSION,
                      IOF_PROTOCOL_VERSION); exit (0);
    default: s_usage (stderr); return 2;
    }
    return 0;
}

/* A duration as the options take it: 1s, 500ms.  Can't fail. */
static void
s_format_duration (uint64_t ns, char *buf, size_t len)
{
    if (ns % NS_PER_SEC == 0)
        snprintf (buf, len, "%llus", (unsigned long long) (ns / NS_PER_SEC));
    else if (ns % NS_PER_MS == 0)
        snprintf (buf, len, "%llums", (unsigned long long) (ns / NS_PER_MS));
    else
        snprintf (buf, len, "%.9gs", (double) ns / 1e9);
}

/* config_value_fn: the value in force of an option left at its default,
   from the settings themselves (the defaults are set in settings_init). */
static void
s_value_of (void *arg, int code, char *buf, size_t len)
{
    const settings_t *s = arg;
    const ctl_t *ctl = s->ctl;
    switch (code) {
    case 'd': snprintf (buf, len, "%s", s->db); break;
    case 'l': snprintf (buf, len, "%s", s->listen); break;
    case 'a': snprintf (buf, len, "%s", s->admin); break;
    case 'i': s_format_duration (ctl->interval_ns, buf, len); break;
    case 't': s_format_duration (ctl->prepare_timeout_ns, buf, len); break;
    case 'L': s_format_duration (ctl->lost_after_ns, buf, len); break;
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
    default: IOF_ASSERT (!"an option without a s_value_of case"); break;
    }
}

/* Whether dir (of path, when path names a file in it) lets this user
   create files: the database's WAL and journal live beside it.  Returns 0,
   or -1 after printing what is wrong. */
static int
s_check_dir_of (const char *what, const char *path)
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
int
settings_check_curve (const settings_t *set)
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
http_opts_t
settings_http_opts (const settings_t *set)
{
    return (http_opts_t) { .addr = set->http, .db = set->db, .cert = set->http_cert,
                           .key = set->http_key, .token_file = set->http_token };
}

/* The --http options: refused (printed) before anything starts.  Returns
   0 or -1. */
int
settings_check_http (const settings_t *set)
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
    http_opts_t o = settings_http_opts (set);
    if (http_opts_check (&o, err, sizeof err)) {
        fprintf (stderr, "iofleet-controller: %s\n", err);
        return -1;
    }
    return 0;
}

/* --check-config: what would stop this configuration from starting, found
   without starting it.  Returns the exit status (0: it would start). */
int
settings_check_config (const settings_t *set, const config_t *cfg)
{
    int bad = (settings_check_curve (set) != 0) + (settings_check_http (set) != 0);
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
        if (!settings_ipc_taken (eps[i][0], eps[i][1], msg, sizeof msg))
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
    bad += s_check_dir_of ("db", set->db) != 0;
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
        /* controller.c's s_prepare_ipc creates the socket's directory, not its parents;
           under a unit, systemd creates RuntimeDirectory= at start (and
           removes it at stop) */
        const char *rt = getenv ("RUNTIME_DIRECTORY");
        if (access (dir, F_OK) != 0 && !(rt && strcmp (rt, dir) == 0))
            bad += s_check_dir_of ("admin", dir) != 0;
    }
    if (set->port_file)
        bad += s_check_dir_of ("port-file", set->port_file) != 0;
    return config_verdict (cfg, bad, s_value_of, (void *) set, stdout);
}

void
settings_init (settings_t *s, ctl_t *ctl)
{
    IOF_ASSERT (s && ctl);
    ctl->interval_ns = NS_PER_SEC;
    ctl->prepare_timeout_ns = 120 * NS_PER_SEC;
    ctl->lost_after_ns = CTL_SILENCE_LOST_NS;
    *s = (settings_t) { .ctl = ctl, .db = DEFAULT_DB, .listen = DEFAULT_LISTEN,
                        .db_sync = "full", .retain_s = -1, .retain_runs = -1,
                        .decode_threads = DECODE_POOL_DEFAULT_THREADS };
    s->admin = default_admin_endpoint (s->admin_default, sizeof s->admin_default, true);
}

config_t *
settings_config_new (void)
{
    return config_new ("iofleet-controller", "controller", "h", s_options, NULL);
}

int
settings_parse (settings_t *s, config_t *cfg, int argc, char **argv)
{
    return config_parse (cfg, argc, argv, DEFAULT_CONFIG, s_apply, s);
}
