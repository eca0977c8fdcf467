/*  options.c: see options.h. */
#define _GNU_SOURCE
#include "options.h"
#include "sim_health.h"
#include "sim_media.h"
#include "curve.h"
#include "jobfile.h"
#include "log.h"
#include "names.h"
#include "lockfile.h"
#include "spool.h"
#include "util.h"

#include <czmq.h>
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_CONFIG      "/etc/iofleet/agent.conf"

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
"  --name NAME            agent name, unique in the fleet (default: hostname):\n"
"                         1..64 letters, digits, '-', '_' or '.', not '.' or '..'\n"
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
"  --allow-purge GLOB     let a plan's purge step ([iofleet] purge=discard or\n"
"                         format) discard or format block devices matching\n"
"                         GLOB (repeatable;\n"
"                         --allow-write must match too, and the write guard\n"
"                         applies): everything on them is gone\n"
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
"  --media LIST           (with --simulate) the virtual drives' media, taken in\n"
"                         turn: nvme, sas, sata (e.g. nvme,sas,sata): latency\n"
"                         and IOPS against depth modelled on a tri-mode HBA\n"
"                         report's figures (agent/sim_media.h); without it every\n"
"                         drive does IOFLEET_SIM_IOPS at IOFLEET_SIM_MEDIAN_US\n"
"  --health SPEC          (with --simulate) the virtual drives report health and\n"
"                         temperature: ok (all healthy), or a list of\n"
"                         hot:AGENT/DRIVE (heats and throttles mid-step) and\n"
"                         erroring:AGENT/DRIVE (gains media errors), e.g.\n"
"                         ok or hot:3/5,erroring:1/0 (agent/sim_health.h);\n"
"                         without it their health is \"unavailable\"\n"
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
    { "allow-purge", required_argument, NULL, 1103 },
    { "spool-dir", required_argument, NULL, 1201 },
    { "spool-max", required_argument, NULL, 1202 },
    { "simulate", required_argument, NULL, 1301 },
    { "targets", required_argument, NULL, 1302 },
    { "media", required_argument, NULL, 1303 },
    { "health", required_argument, NULL, 1304 },
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
    "label", "allow", "allow-write", "allow-write-formatted", "allow-purge", NULL
};

/* A glob of --allow, --allow-write, --allow-write-formatted or --allow-purge into list
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
    agent_options_t *o = arg;
    /* A repeatable option on the command line replaces the file's list. */
    int list = c == 'l' ? 0 : c == 'a' ? 1 : c == 1101 ? 2 : c == 1102 ? 3 : c == 1103 ? 4 : -1;
    if (list >= 0 && from_cli && !o->cli_seen[list]) {
        o->cli_seen[list] = true;
        if (list == 0)
            o->nlabels = 0;
        else if (list == 1)
            o->policy.nallow = 0;
        else if (list == 2)
            o->policy.nallow_write = 0;
        else if (list == 3)
            o->policy.nallow_formatted = 0;
        else
            o->policy.nallow_purge = 0;
    }
    switch (c) {
    case 'c': {
        char err[600];
        if (endpoint_check (v, false, err, sizeof err) != 0) {
            fprintf (stderr, "iofleet-agent: %s %s\n", where, err);
            return 2;
        }
        o->endpoint = v;
        break;
    }
    case 1001: o->cert = v; break;
    case 1002: o->controller_key = v; break;
    case 'n': {
        /* Checked before anything is made of it: the default spool
           directory is named after it. */
        char err[512];
        if (names_check (where, v, err, sizeof err)) {
            fprintf (stderr, "iofleet-agent: %s; it names this agent in the fleet and its "
                     "spool directory: pick one that keeps the rule (e.g. --name "
                     "rack12-host3)\n", err);
            return 2;
        }
        str_copy (o->name, sizeof o->name, v);
        o->name_given = true;
        break;
    }
    case 'l': {
        const char *eq = strchr (v, '=');
        if (!eq || eq == v || o->nlabels == MSG_LABELS_MAX || eq - v > MSG_NAME_MAX
            || strlen (eq + 1) > MSG_LABEL_VALUE_MAX) {
            fprintf (stderr, "iofleet-agent: %s '%s': expected KEY=VALUE (key up to %d "
                     "characters, value up to %d, at most %d labels)\n", where, v,
                     MSG_NAME_MAX, MSG_LABEL_VALUE_MAX, MSG_LABELS_MAX);
            return 2;
        }
        char *key = o->label_text[o->nlabels];
        str_copy (key, sizeof o->label_text[0], v);
        key[eq - v] = '\0';
        iofleet__label__init (&o->labels[o->nlabels]);
        o->labels[o->nlabels].key = key;
        o->labels[o->nlabels].value = key + (eq - v) + 1;
        o->label_ptrs[o->nlabels] = &o->labels[o->nlabels];
        o->nlabels++;
        break;
    }
    case 'a': return add_glob (o->policy.allow, &o->policy.nallow, where, v);
    case 'w': o->policy.workdir = v; break;
    case 1101: return add_glob (o->policy.allow_write, &o->policy.nallow_write, where, v);
    case 1102: return add_glob (o->policy.allow_formatted, &o->policy.nallow_formatted, where, v);
    case 1103: return add_glob (o->policy.allow_purge, &o->policy.nallow_purge, where, v);
    case 1201: o->spool_dir = v; break;
    case 1202:
        if (job_parse_size (v, &o->spool_max) != 0 || o->spool_max < SPOOL_MAX_MIN) {
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
            o->sim_agents = (int) n;
        else
            o->sim_targets = (int) n;
        break;
    }
    case 1303: {
        const sim_media_t *m[SIM_MEDIA_MAX];
        char err[256];
        if (sim_media_parse (v, m, err, sizeof err) < 0) {
            fprintf (stderr, "iofleet-agent: %s %s\n", where, err);
            return 2;
        }
        o->sim_media = v;
        break;
    }
    case 1304: {
        sim_health_cfg_t h;
        char err[256];
        if (sim_health_parse (v, &h, err, sizeof err) < 0) {
            fprintf (stderr, "iofleet-agent: %s %s\n", where, err);
            return 2;
        }
        o->sim_health = v;
        break;
    }
    case 'v': o->verbose = true; break;
    case 'S': {
        char *end;
        long ms = strtol (v, &end, 10);
        if (*end || ms < -3600000 || ms > 3600000) {
            fprintf (stderr, "iofleet-agent: %s '%s': milliseconds, -3600000..3600000\n", where,
                     v);
            return 2;
        }
        o->clock_shift = (int64_t) ms * (int64_t) NS_PER_MS;
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
        o->release = v;
        break;
    case 'Y': o->sysfs_root = v; break;
    case 'P': o->procfs_root = v; break;
    case 'E': o->etc_root = v; break;
    case 'h': usage (stdout); exit (0);
    case 'V': printf ("iofleet-agent %s (protocol %d)\n", IOF_VERSION, IOF_PROTOCOL_VERSION);
        exit (0);
    default: usage (stderr); return 2;
    }
    return 0;
}

config_t *
options_config_new (void)
{
    return config_new ("iofleet-agent", "agent", "c:n:l:a:w:vh", agent_opts, agent_repeatable);
}

int
options_parse (agent_options_t *o, config_t *cfg, int argc, char **argv)
{
    if (!o->sim_targets)
        o->sim_targets = 4;
    int rc = config_parse (cfg, argc, argv, DEFAULT_CONFIG, apply_option, o);
    if (rc)
        return rc;
    if (!o->endpoint) {
        fprintf (stderr, "iofleet-agent: no controller: pass --controller ENDPOINT, or set "
                 "'controller = ENDPOINT' in %s, e.g. tcp://ctl.example:5570 (see --help)\n",
                 config_file (cfg)[0] ? config_file (cfg) : DEFAULT_CONFIG);
        return 2;
    }
    if (o->policy.workdir) {
        if (access (o->policy.workdir, W_OK | X_OK) != 0) {
            fprintf (stderr, "iofleet-agent: workdir '%s': %s (create it, or point at a "
                     "writable directory)\n", o->policy.workdir, strerror (errno));
            return 2;
        }
    }
    if (!o->sysfs_root)
        o->sysfs_root = "/sys";
    if (!o->procfs_root)
        o->procfs_root = "/proc";
    if (!o->etc_root)
        o->etc_root = "/etc";
    /* The write guard reads mounts, swaps and holders where the inventory does. */
    o->policy.sysfs_root = o->sysfs_root;
    o->policy.procfs_root = o->procfs_root;
    if (!o->name[0]) {
        char host[256] = "agent";
        gethostname (host, sizeof host - 1);
        host[MSG_NAME_MAX] = '\0';
        char err[512];
        /* Simulated agents are named after --name or "sim", never this host. */
        if (!o->sim_agents
            && names_check ("this host's name, the default --name,", host, err, sizeof err)) {
            fprintf (stderr, "iofleet-agent: %s; name the agent with --name (or name = in "
                     "%s)\n", err, config_file (cfg)[0] ? config_file (cfg) : DEFAULT_CONFIG);
            return 2;
        }
        str_copy (o->name, sizeof o->name, host);
    }
    if (o->sim_agents) {
        /* The simulated agents are PREFIX-00001.. (simulate.c): the last
           one's name must keep the rule too. */
        char last[2 * NAMES_MAX], err[512];
        snprintf (last, sizeof last, "%s-%05d", o->name_given ? o->name : "sim", o->sim_agents);
        if (names_check ("the last simulated agent's name", last, err, sizeof err)) {
            fprintf (stderr, "iofleet-agent: %s; --name is their prefix with --simulate %d: "
                     "shorten it\n", err, o->sim_agents);
            return 2;
        }
    }
    log_init ("iofleet-agent", o->verbose ? LL_DEBUG : LL_INFO);
    return 0;
}

const char *
options_spool_dir_default (const agent_options_t *o)
{
    static char dflt[4096];
    const char *state = getenv ("STATE_DIRECTORY");
    if (state && *state)
        snprintf (dflt, sizeof dflt, "%s/spool", state);
    else
        snprintf (dflt, sizeof dflt, "/var/lib/iofleet-agent/%s", o->name);
    return dflt;
}

/* Unauthenticated, anyone on the path could pose as the controller and
   order I/O on this host's drives: off this host, CURVE it is (both
   certificates; curve_client_apply says which is missing). */
int
options_check_curve (const agent_options_t *o)
{
    if (o->cert || o->controller_key || endpoint_is_local (o->endpoint))
        return 0;
    fprintf (stderr, "iofleet-agent: refusing to connect to '%s' without CURVE: set cert = "
             "NAME.cert_secret and controller-key = controller.cert (--cert, --controller-key; "
             "iofleet keys), or use a controller on this host\n", o->endpoint);
    return -1;
}

/* config_value_fn: the value in force of an option left at its default. */
static void
value_of (void *arg, int code, char *buf, size_t len)
{
    const agent_options_t *o = arg;
    switch (code) {
    case 'c': snprintf (buf, len, "%s", o->endpoint ? o->endpoint : ""); break;
    case 1001: snprintf (buf, len, "%s", o->cert ? o->cert : ""); break;
    case 1002: snprintf (buf, len, "%s", o->controller_key ? o->controller_key : ""); break;
    case 'n': snprintf (buf, len, "%s", o->sim_agents ? "sim" : o->name); break;
    case 'w': snprintf (buf, len, "%s", o->policy.workdir ? o->policy.workdir : ""); break;
    case 'l': case 'a': case 1101: case 1102: case 1103: break;     /* lists: none */
    case 1201:
        snprintf (buf, len, "%s", o->sim_agents ? "" : o->spool_dir ? o->spool_dir
                                                                : options_spool_dir_default (o));
        break;
    case 1202: snprintf (buf, len, "%llum", (unsigned long long) (SPOOL_MAX_DEFAULT >> 20));
        break;
    case 1301: break;                                   /* none: a real agent */
    case 1302: snprintf (buf, len, "%d", o->sim_targets); break;
    case 1303: break;                                   /* none: one media */
    case 1304: break;                                   /* none: unavailable */
    case 'v': snprintf (buf, len, "%s", o->verbose ? "yes" : "no"); break;
    case 'S': snprintf (buf, len, "%lld", (long long) (o->clock_shift / (int64_t) NS_PER_MS));
        break;
    case 'Y': snprintf (buf, len, "%s", o->sysfs_root); break;
    case 'P': snprintf (buf, len, "%s", o->procfs_root); break;
    case 'E': snprintf (buf, len, "%s", o->etc_root); break;
    case 1401: snprintf (buf, len, "%u", message_protocol ()); break;
    case 1402: snprintf (buf, len, "%s", o->release ? o->release : IOF_VERSION); break;
    default: IOF_ASSERT (!"an option without a value_of case"); break;
    }
}

int
options_check (const agent_options_t *o, const config_t *cfg)
{
    int bad = options_check_curve (o) != 0;
    /* The certificates load as they would for the connection (which is
       not opened). */
    char err[1024];
    zsock_t *s = zsock_new (ZMQ_DEALER);
    if ((o->cert || o->controller_key)
        && (!s || curve_client_apply (s, o->cert, o->controller_key, err, sizeof err))) {
        fprintf (stderr, "iofleet-agent: %s\n", s ? err : "cannot create a socket");
        bad++;
    }
    zsock_destroy (&s);
    for (int i = 0; i < o->policy.nallow + o->policy.nallow_write; i++) {
        const char *g = i < o->policy.nallow ? o->policy.allow[i]
                                             : o->policy.allow_write[i - o->policy.nallow];
        glob_t gl;
        if (glob (g, GLOB_NOSORT, NULL, &gl) != 0)
            printf ("# note: %s matches nothing on this host now\n", g);
        else
            globfree (&gl);
    }
    /* Simulated agents keep no spool. */
    const char *spool = o->spool_dir ? o->spool_dir : options_spool_dir_default (o);
    if (!o->sim_agents && access (spool, F_OK) == 0) {
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
    return config_verdict (cfg, bad, value_of, (void *) o, stdout);
}
