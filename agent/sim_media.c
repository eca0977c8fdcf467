/*  sim_media.c: media profiles of simulated drives, see sim_media.h. */
#include "sim_media.h"
#include "link_rate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const double sim_media_quantiles[SIM_MEDIA_NQ] = { 0.5, 0.95, 0.99, 0.999, 0.9999 };

/* The seed's p95 / p99 / p99.9; p50 iofleet's choice (see the header);
   p99.99 the p99 -> p99.9 slope carried one more decade. */
static const sim_media_t s_media[SIM_MEDIA_MAX] = {
    { "nvme", "SIM-NVME-1", { 90e3, 280e3, 560e3, 1800e3, 4500e3 }, 400e3,
      "16.0 GT/s PCIe", 4, "none", 1023 },
    { "sas", "SIM-SAS-1", { 350e3, 720e3, 1250e3, 4200e3, 10500e3 }, 150e3,
      "12.0 Gbit", 1, "mq-deadline", 256 },
    { "sata", "SIM-SATA-1", { 2000e3, 3100e3, 6500e3, 15000e3, 30000e3 }, 40e3,
      "6.0 Gbit", 1, "mq-deadline", 64 },
};

const sim_media_t *
sim_media_find (const char *name)
{
    for (int i = 0; i < SIM_MEDIA_MAX; i++)
        if (strcmp (s_media[i].name, name) == 0)
            return &s_media[i];
    return NULL;
}

int
sim_media_parse (const char *list, const sim_media_t **out, char *err, size_t errlen)
{
    char buf[128];
    if (strlen (list) >= sizeof buf) {
        snprintf (err, errlen, "--media '%s': too long", list);
        return -1;
    }
    memcpy (buf, list, strlen (list) + 1);
    int n = 0;
    char *save = NULL;
    for (char *m = strtok_r (buf, ",", &save); m; m = strtok_r (NULL, ",", &save)) {
        const sim_media_t *p = sim_media_find (m);
        if (!p || n == SIM_MEDIA_MAX) {
            snprintf (err, errlen, "--media '%s': %s; give up to %d of nvme, sas, sata, "
                      "comma-separated", list, p ? "too many" : "unknown medium", SIM_MEDIA_MAX);
            return -1;
        }
        out[n++] = p;
    }
    if (!n) {
        snprintf (err, errlen, "--media '%s': give nvme, sas or sata, comma-separated", list);
        return -1;
    }
    return n;
}

/* The standard normal's quantile (Acklam's rational approximation,
   relative error under 1.2e-9). */
static double
probit (double p)
{
    static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,
                                -2.759285104469687e+02, 1.383577518672690e+02,
                                -3.066479806614716e+01, 2.506628277459239e+00 };
    static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02,
                                -1.556989798598866e+02, 6.680131188771972e+01,
                                -1.328068155288572e+01 };
    static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01,
                                -2.400758277161838e+00, -2.549671411143632e+00,
                                4.374664141464968e+00, 2.938163982698783e+00 };
    static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01,
                                2.445134137142996e+00, 3.754408661907416e+00 };
    if (p < 0.02425) {
        double q = sqrt (-2 * log (p));
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
               / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    if (p > 1 - 0.02425) {
        double q = sqrt (-2 * log (1 - p));
        return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
               / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
           / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double
sim_media_latency (const sim_media_t *m, double p)
{
    double z = probit (p);
    int k = 0;
    while (k < SIM_MEDIA_NQ - 2 && z > probit (sim_media_quantiles[k + 1]))
        k++;
    double z0 = probit (sim_media_quantiles[k]), z1 = probit (sim_media_quantiles[k + 1]);
    double l0 = log (m->q[k]), l1 = log (m->q[k + 1]);
    return exp (l0 + (l1 - l0) * (z - z0) / (z1 - z0));
}

double
sim_media_link_bps (const sim_media_t *m)
{
    return SIM_LINK_SHARE * link_rate_bps (m->link_speed, m->link_width);
}

double
sim_media_hba_bps (void)
{
    return SIM_LINK_SHARE * link_rate_bps (SIM_HBA_SPEED, SIM_HBA_WIDTH);
}

double
sim_media_mean1 (const sim_media_t *m)
{
    /* The mean of the quantile function over 4096 equal slices. */
    double sum = 0;
    for (int i = 0; i < 4096; i++)
        sum += sim_media_latency (m, (i + 0.5) / 4096);
    return sum / 4096;
}

void
sim_media_point (const sim_media_t *m, double qd, uint32_t bs, double wshare, double *iops,
                 double *lat_factor)
{
    double mean1 = sim_media_mean1 (m);
    /* Service time at QD1 and bs; the peak where the link or the media
       binds first; writes in a mix cost more. */
    double link_bps = sim_media_link_bps (m);
    double svc = mean1 + (double) bs / link_bps;
    double peak = m->peak_iops * (1 - 0.6 * wshare);
    double link_peak = link_bps / (double) (bs ? bs : 4096);
    if (link_peak < peak)
        peak = link_peak;
    double knee = peak * svc * 1e-9;
    if (knee < 1)
        knee = 1;
    double x = qd / knee;
    *iops = peak * x / sqrt (1 + x * x);
    /* Little's law: the mean latency at qd is qd / IOPS; the quantiles
       grow with it from the QD1 4 KiB ones. */
    *lat_factor = (qd / *iops * 1e9) / mean1;
}
