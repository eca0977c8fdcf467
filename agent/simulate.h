/*  simulate.h: many protocol-complete virtual agents in one process.

    iofleet-agent --simulate N --targets K runs N virtual agents, each its
    own protocol client (link.h: one connection, a spool in memory), in a
    single thread; they differ from the real agent only in their workload.
    They do no I/O: each target reports a synthetic workload (IOPS per target from
    IOFLEET_SIM_IOPS, default 10000; a log-normal clat distribution with
    median IOFLEET_SIM_MEDIAN_US, default 80 us, varied a few percent per
    target), for load-testing a controller with a large fleet.
*/
#ifndef IOF_SIMULATE_H
#define IOF_SIMULATE_H

typedef struct {
    const char *endpoint;
    const char *cert;               /* CURVE, as the real agent's --cert */
    const char *controller_key;
    const char *prefix;             /* names PREFIX-00001 ... */
    int nagents;
    int ntargets;                   /* virtual NVMe drives per agent */
} sim_config_t;

/* Runs until interrupted (SIGINT/SIGTERM) or every agent was rejected.
   Returns the process exit code. */
int sim_run (const sim_config_t *cfg);

#endif
