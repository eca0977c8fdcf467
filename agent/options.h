/*  options.h: iofleet-agent's options: the getopt table and the usage, each
    option checked and applied (from the configuration file or the command
    line alike, through common/config.c), and --check-config. */
#ifndef IOF_OPTIONS_H
#define IOF_OPTIONS_H

#include "config.h"
#include "message.h"
#include "targets.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    const char *endpoint;           /* --controller */
    const char *cert;               /* --cert NAME.cert_secret (CURVE) */
    const char *controller_key;     /* --controller-key controller.cert */
    char name[MSG_NAME_MAX + 1];    /* --name, else this host's name */
    bool name_given;
    Iofleet__Label labels[MSG_LABELS_MAX];
    Iofleet__Label *label_ptrs[MSG_LABELS_MAX];
    char label_text[MSG_LABELS_MAX][MSG_NAME_MAX + MSG_LABEL_VALUE_MAX + 2];   /* KEY\0VALUE */
    int nlabels;
    bool cli_seen[5];               /* a repeatable flag given: the file's list replaced */
    target_policy_t policy;         /* --allow, --workdir, --allow-write... */
    const char *sysfs_root, *procfs_root, *etc_root;
    const char *release;            /* what HELLO says this agent runs */
    int64_t clock_shift;            /* test only: --clock-shift-ms, in ns */
    const char *spool_dir;          /* NULL: options_spool_dir_default */
    uint64_t spool_max;             /* 0: SPOOL_MAX_DEFAULT */
    int sim_agents, sim_targets;    /* --simulate N --targets K (simulate.h) */
    const char *sim_health;         /* --health SPEC (sim_health.h); NULL: none */
    const char *sim_media;          /* --media nvme,sas,sata (sim_media.h); NULL: none */
    bool verbose;
} agent_options_t;

/* The agent's reader of options (config.h).  NULL when out of memory. */
config_t *options_config_new (void);

/* Reads the configuration file and the command line into o (zeroed by
   the caller), fills what was left to its default, and starts logging.
   Returns 0, or the exit status (2) with the error printed. */
int options_parse (agent_options_t *o, config_t *cfg, int argc, char **argv);

/* --check-config: what would stop this configuration from working, found
   without connecting; prints the settings in force.  Returns the exit
   status (0: it would start). */
int options_check (const agent_options_t *o, const config_t *cfg);

/* Off this host, CURVE it is.  Returns 0, or -1 after saying why. */
int options_check_curve (const agent_options_t *o);

/* The spool directory when --spool-dir is not given: $STATE_DIRECTORY/spool
   under systemd (StateDirectory=), else /var/lib/iofleet-agent/NAME.  Can't
   fail (a static buffer). */
const char *options_spool_dir_default (const agent_options_t *o);

#endif
