/*  sla.h: service-level conditions in plans, an iofleet extension:
        iofleet_sla=p99<2ms,p99.9<5ms,iops>100k,bw>1g
    Latency metrics (p50 p90 p95 p99 p99.9 p99.99 mean max) take a time
    (ns, us, ms, s; a bare number is microseconds) and apply to reads and
    to writes, where there was I/O, clat as reported (trims are not
    offered: controller/report/report.c, SLA_LAT_DIRS); iops (k, m suffixes:
    powers of 1000) and bw (bytes per second: k, m, g suffixes, powers of
    1024) apply to every direction together (reads, writes and trims). */
#ifndef IOF_SLA_H
#define IOF_SLA_H

#include <stdbool.h>
#include <stddef.h>

#define SLA_MAX 16

typedef struct {
    char metric[8];         /* "p99", "mean", "max", "iops", "bw" */
    double percentile;      /* for pNN */
    bool less;              /* '<' (else '>') */
    double limit;           /* ns for latencies, per second for iops/bw */
    char text[48];          /* as written */
} sla_cond_t;

typedef struct {
    int n;
    sla_cond_t c[SLA_MAX];
} sla_t;

/* Parses text into out.  Returns 0, or -EINVAL with err quoting the
   offending part and saying what was expected. */
int sla_parse (const char *text, sla_t *out, char *err, size_t errlen);

/* True when value meets the condition.  Can't fail. */
bool sla_pass (const sla_cond_t *c, double value);

#endif
