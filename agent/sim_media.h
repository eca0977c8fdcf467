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
      - a link (NVMe PCIe 4.0 x4, SAS 12 Gbit, SATA 6 Gbit on the SAS
        HBA), each drive moving SIM_LINK_SHARE (90%) of its payload rate
        (common/link_rate.h: 7.09, 1.08 and 0.54 GB/s): a block of bs bytes
        adds bs / that to the service time, so large blocks are bound by
        the link, not by IOPS;
      - one tri-mode HBA per simulated host on a PCIe 4.0 x16 link, the
        report's, that its drives share: when their large blocks would move
        more than SIM_LINK_SHARE of its 31.5 GB/s, every drive is slowed by
        the same factor ("large blocks (64K+) move the bottleneck to the
        host's PCIe bandwidth");
      - the inventory's scheduler and nr_requests, Linux's defaults for each
        (none and 1023 for NVMe, mq-deadline and 256 / 64 for SAS / SATA
        behind an HBA): stated for the tuning checklist, not modelled;
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
#define SIM_LINK_SHARE  0.9             /* of a link's payload rate, what a drive moves */
#define SIM_HBA_SPEED   "16.0 GT/s PCIe"
#define SIM_HBA_WIDTH   16
#define SIM_HBA_ADDR    "0000:01:00.0"  /* its PCI address in every simulated host */

typedef struct {
    const char *name;                   /* "nvme", "sas", "sata": the inventory's transport */
    const char *model;                  /* the simulated drive's model */
    double q[SIM_MEDIA_NQ];             /* quantiles (sim_media_quantiles) at QD1, 4 KiB, ns */
    double peak_iops;                   /* 4 KiB random reads */
    const char *link_speed;             /* the drive's link, as sysfs writes it */
    int link_width;
    const char *scheduler;              /* the inventory's, stated, not modelled */
    int nr_requests;
} sim_media_t;

/* The probabilities of a profile's quantile points: 0.5, 0.95, 0.99,
   0.999, 0.9999. */
extern const double sim_media_quantiles[SIM_MEDIA_NQ];

/* The profile named name, or NULL. */
const sim_media_t *sim_media_find (const char *name);

/* Parses "nvme,sas,sata" into out (at most SIM_MEDIA_MAX).  Returns how
   many, or -1 with err naming the bad part and the names there are. */
int sim_media_parse (const char *list, const sim_media_t **out, char *err, size_t errlen);

/* The bytes per second a drive of profile m moves at most: SIM_LINK_SHARE
   of its link. */
double sim_media_link_bps (const sim_media_t *m);

/* The same of the simulated HBA every drive of a host shares. */
double sim_media_hba_bps (void);

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
