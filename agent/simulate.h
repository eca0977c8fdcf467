/*  simulate.h: many protocol-complete virtual agents in one process.

    iofleet-agent --simulate N --targets K runs N virtual agents, each its
    own protocol client (link.h: one connection, a spool in memory), in a
    single thread; they differ from the real agent only in their workload.
    They do no I/O: each target reports a synthetic workload (IOPS per target from
    IOFLEET_SIM_IOPS, default 10000; a log-normal clat distribution with
    median IOFLEET_SIM_MEDIAN_US, default 80 us, varied a few percent per
    target), for load-testing a controller with a large fleet.  With
    --media nvme,sas,sata the drives take those media in turn, each with
    the latency and IOPS-against-depth of its profile (sim_media.h).
*/
#ifndef IOF_SIMULATE_H
#define IOF_SIMULATE_H

#include "sim_health.h"
#include "sim_media.h"

typedef struct {
    const char *endpoint;
    const char *cert;               /* CURVE, as the real agent's --cert */
    const char *controller_key;
    const char *prefix;             /* names PREFIX-00001 ... */
    int nagents;
    int ntargets;                   /* virtual NVMe drives per agent */
    const sim_media_t *media[SIM_MEDIA_MAX];    /* --media: drive t is media[t % nmedia] */
    int nmedia;                     /* 0: every drive the IOFLEET_SIM_* one */
    sim_health_cfg_t health;        /* --health (off: health unavailable) */
} sim_config_t;

/* Runs until interrupted (SIGINT/SIGTERM) or every agent was rejected.
   Returns the process exit code. */
int sim_run (const sim_config_t *cfg);

#endif
