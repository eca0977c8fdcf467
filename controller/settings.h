/*  settings.h: the controller's options, from its configuration file and
    command line: their table and defaults, each one parsed and checked
    where it is read, the checks made before anything starts, and
    --check-config.  controller.c starts the controller with what they say.
*/
#ifndef IOF_SETTINGS_H
#define IOF_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "controller.h"
#include "http.h"
#include "metrics.h"

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
    char admin_default[512];            /* the default admin endpoint's text */
} settings_t;

/* The defaults, into s and ctl (its interval, prepare timeout, lost-after),
   which s then names as its ctl.  Can't fail. */
void settings_init (settings_t *s, ctl_t *ctl);
/* The reader of the controller's options (config.h).  NULL when out of
   memory. */
config_t *settings_config_new (void);
/* Reads the configuration file and the command line into s.  Returns 0,
   or the exit status after printing why (2: a bad file, key, value or
   flag); --help and --version print and exit. */
int settings_parse (settings_t *s, config_t *cfg, int argc, char **argv);

/* Whether endpoint is an ipc:// socket a running process serves: then
   -1 with msg saying so and what to do, else 0.  what names the option.
   Can't fail. */
int settings_ipc_taken (const char *what, const char *endpoint, char *msg, size_t msglen);
/* Without CURVE anyone who can reach the port can run I/O on the fleet:
   only endpoints that stay on this host may go without it.  Returns 0, or
   -1 after saying why. */
int settings_check_curve (const settings_t *set);
/* The --http options as http.h takes them.  Can't fail. */
http_opts_t settings_http_opts (const settings_t *set);
/* The --http options: refused (printed) before anything starts.  Returns
   0 or -1. */
int settings_check_http (const settings_t *set);
/* --check-config: what would stop this configuration from starting, found
   without starting it, then the settings in force.  Returns the exit
   status (0: it would start). */
int settings_check_config (const settings_t *set, const config_t *cfg);

#endif
