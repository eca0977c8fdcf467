/*  sim_health.h: the health of simulated drives (iofleet-agent --simulate
    N --health SPEC), so the controller's health path (records before and
    after a step, the temperature series, throttling, the judgements and
    the rules) can be driven without drives that have SMART.

    SPEC is a comma-separated list: "ok" (every drive reports a healthy
    record and its temperature), and KIND:AGENT/DRIVE for one drive,
    AGENT as in its name (PREFIX-00003 is 3), DRIVE its index from 0
    (/dev/simA/dDRIVE):
      hot       heats from its idle temperature to SIM_HEALTH_HOT_C by the
                middle of each step; at SIM_HEALTH_THROTTLE_C and above it
                throttles (thermal management temperature 1): its IOPS
                drop to SIM_HEALTH_THROTTLE_SHARE of the others', and each
                entry into throttling counts one transition, its time
                the seconds (as NVMe counts them: not per interval).
                Above the warning threshold its critical warning's
                temperature bit is set.  An interval's temperature and
                IOPS are both taken at its middle.
      erroring  gains SIM_HEALTH_MEDIA_ERRORS media errors (and error-log
                entries) each step.
    Any KIND:A/D implies "ok" for every other drive.  Without --health a
    simulated drive's record is unavailable ("no --health profile") and
    its snapshots carry no temperature, as before.
    Every drive writes to its media SIM_HEALTH_WAF times what it was sent
    (its NAND counter), so write amplification has a known answer.
*/
#ifndef IOF_SIM_HEALTH_H
#define IOF_SIM_HEALTH_H

#include "health.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_HEALTH_RULES_MAX     32
#define SIM_HEALTH_IDLE_C        38      /* plus 0..4 C per drive */
#define SIM_HEALTH_HOT_C         78
#define SIM_HEALTH_THROTTLE_C    75
#define SIM_HEALTH_WARNING_C     70
#define SIM_HEALTH_CRITICAL_C    85
#define SIM_HEALTH_THROTTLE_SHARE 0.35
#define SIM_HEALTH_MEDIA_ERRORS  3
#define SIM_HEALTH_WAF           1.25

typedef enum { SIM_HEALTH_NONE, SIM_HEALTH_OK, SIM_HEALTH_HOT, SIM_HEALTH_ERRORING } sim_health_kind_t;

typedef struct {
    bool on;                        /* --health given */
    int n;
    struct { sim_health_kind_t kind; int agent, drive; } rules[SIM_HEALTH_RULES_MAX];
} sim_health_cfg_t;

/* A drive's counters, from one step to the next (its SMART). */
typedef struct {
    uint64_t host_read, host_written, nand_written;
    uint64_t media_errors;
    uint64_t throttle_transitions, throttle_ns, warning_ns;
    bool throttled;                 /* at the last interval: a transition is an entry */
} sim_drive_health_t;

/* Parses SPEC into cfg.  Returns 0, or -1 with err naming the part and
   what is allowed. */
int sim_health_parse (const char *spec, sim_health_cfg_t *cfg, char *err, size_t errlen);

/* The kind of drive `drive` of agent `agent` (1-based).  Can't fail. */
sim_health_kind_t sim_health_kind (const sim_health_cfg_t *cfg, int agent, int drive);

/* Its temperature (milli-degrees C) at fraction f (0..1) of a step.
   Can't fail. */
int32_t sim_health_temp_mc (sim_health_kind_t k, int agent, int drive, double f);

/* The share of its IOPS it keeps at fraction f (throttled: less than 1).
   Can't fail. */
double sim_health_iops_share (sim_health_kind_t k, int agent, int drive, double f);

/* Counts an interval of dur_ns whose middle is at fraction f into d.
   Can't fail. */
void sim_health_interval (sim_health_kind_t k, int agent, int drive, double f, uint64_t dur_ns,
                          sim_drive_health_t *d);

/* Counts a step's end into d: what it read and wrote (bytes).  Can't fail. */
void sim_health_step_end (sim_health_kind_t k, uint64_t read, uint64_t written,
                          sim_drive_health_t *d);

/* The drive's record at fraction f of a step (0 before it, 1 after),
   from d.  Can't fail. */
void sim_health_record (sim_health_kind_t k, int agent, int drive, double f,
                        const sim_drive_health_t *d, health_t *h);

#endif
