/*  sim_media.h: media profiles of simulated drives (iofleet-agent
    --simulate N --media nvme,sas,sata), so that a test or a demo can
    produce the qualification report of a rack with several media on one
    machine.

    NOT a physical model: the figures are modelled on the tri-mode HBA
    report iofleet grew from (../shared/seeds, "000"), stated here:
      - 4 KiB random-read completion latency quantiles at one I/O in flight
        (p95 / p99 / p99.9, the report's table: NVMe 0.28 / 0.56 / 1.8 ms,
        SAS 0.72 / 1.25 / 4.2 ms, SATA 3.1 / 6.5 / 15 ms; the report gives
        no median: iofleet chose 0.09, 0.35 and 2.0 ms, which put the means
        near its "NVMe ~0.12 ms, SATA 2..5 ms");
      - peak IOPS (NVMe 400k, SAS 150k, SATA 40k: within the report's
        350-420k, 120-180k, 25-50k) reached over queue depth along
        IOPS(qd) = peak * x / sqrt(1 + x^2), x = qd / qd_knee, with qd_knee =
        peak x the QD1 mean latency (Little's law: linear below the knee,
        flat above; NVMe's doubling gains fall under 10% past QD128, the
        report's "knee at QD64-128");
      - the latency at depth qd: every quantile scaled by the mean's
        growth, qd / IOPS(qd) over the QD1 mean (Little's law again);
      - a link ceiling (NVMe 7 GB/s, SAS-3 1.1 GB/s, SATA 6G 0.55 GB/s):
        a block of bs bytes adds bs / ceiling to the service time, so large
        blocks are bound by the link, not by IOPS;
      - writes in a mix cost more: peak IOPS falls by 0.6 x the write
        share (70/30: 18% less, within the report's 10-25%).
*/
#ifndef IOF_SIM_MEDIA_H
#define IOF_SIM_MEDIA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_MEDIA_MAX   3
#define SIM_MEDIA_NQ    5               /* quantile points of a profile */

typedef struct {
    const char *name;                   /* "nvme", "sas", "sata": the inventory's transport */
    const char *model;                  /* the simulated drive's model */
    double q[SIM_MEDIA_NQ];             /* quantiles (sim_media_quantiles) at QD1, 4 KiB, ns */
    double peak_iops;                   /* 4 KiB random reads */
    double link_bps;                    /* bytes per second */
} sim_media_t;

/* The probabilities of a profile's quantile points: 0.5, 0.95, 0.99,
   0.999, 0.9999. */
extern const double sim_media_quantiles[SIM_MEDIA_NQ];

/* The profile named name, or NULL. */
const sim_media_t *sim_media_find (const char *name);

/* Parses "nvme,sas,sata" into out (at most SIM_MEDIA_MAX).  Returns how
   many, or -1 with err naming the bad part and the names there are. */
int sim_media_parse (const char *list, const sim_media_t **out, char *err, size_t errlen);

/* The QD1 mean latency (ns) of 4 KiB random reads: the mean of the
   profile's quantile function.  Can't fail. */
double sim_media_mean1 (const sim_media_t *m);

/* What a target of profile m does at depth qd (per job copy: iodepth x
   numjobs), block size bs and write share wshare (0..1): its IOPS, and
   the factor its latency quantiles take over the QD1 4 KiB ones.  Can't
   fail. */
void sim_media_point (const sim_media_t *m, double qd, uint32_t bs, double wshare, double *iops,
                      double *lat_factor);

/* The latency (ns) at quantile p (0 < p < 1) of profile m at QD1, 4 KiB:
   log-linear in the latency between the profile's points against the
   normal quantile of p, extended past the ends on the same slopes.  Can't
   fail. */
double sim_media_latency (const sim_media_t *m, double p);

#endif
