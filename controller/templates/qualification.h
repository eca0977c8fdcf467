/*  qualification.h: a run's qualification report (iofleet report RUN
    --template qualification), the shape of the tri-mode HBA report iofleet
    grew from (../shared/seeds, "000"), for any rack, computed here from the
    run's report (its steps' groups and its sweeps' curves) so that the CLI
    only renders it:

      latency      per random-read step and group (--by, default
                   drive.transport: the media type): IOPS, mean, p95, p99,
                   p99.9, from the merged histograms;
      curves       per swept curve and group: the peak IOPS and its depth,
                   per target too, the knee (sweeps.c's rule), and the
                   curve's points (iodepth, IOPS, p99);
      mixed        per group and block size: the peak of a random read/write
                   mix against the peak of pure random reads, in percent;
      sla_classes  per class (default the report's two: OLTP p99 < 2 ms,
                   latency-sensitive p99 < 1 ms) and random-read curve and
                   group: pass when some depth meets it, and the highest
                   IOPS (per target too) among the depths that do;
      paths        (added by the controller, paths.h) large blocks against
                   the ceiling of the path their bytes take;
      checklist    (checklist.h) the tuning checklist over the run;
      capacity     per class and group: the targets (drives) of the group
                   needed for target_iops (default 200,000, the report's
                   "200k+") when each keeps a headroom (default 30%: the
                   report's "20-40%") under the class's p99 limit: its
                   highest IOPS among the depths whose p99 is at most
                   (100 - headroom)% of the limit.
*/
#ifndef IOF_QUALIFICATION_H
#define IOF_QUALIFICATION_H

#include <jansson.h>
#include <stddef.h>

#define QUAL_CLASSES_MAX      4
#define QUAL_TARGET_IOPS      200000.0
#define QUAL_HEADROOM_PCT     30.0
#define QUAL_BY               "drive.transport"

typedef struct {
    char name[32];
    double p99_ns;                  /* the class: p99 below this */
} qual_class_t;

typedef struct {
    qual_class_t classes[QUAL_CLASSES_MAX];
    int nclasses;
    double target_iops;
    double headroom_pct;
} qual_opts_t;

/* The options of a report request: "target_iops", "headroom_pct" and
   "sla_classes" (["NAME:p99<LIMIT", ...]), defaults for what it leaves.
   Returns 0, or -1 with err naming the field, the value and the limit. */
int qualification_opts (json_t *req, qual_opts_t *o, char *err, size_t errlen);

/* The qualification report of rep (report_json's, grouped by rep's "by"):
   {"template", "run", "plan", "status", "verdict", "by", "options",
   "latency", "curves", "mixed", "sla_classes", "capacity", "rules"}; the
   controller adds "paths" and "checklist" (they read the inventories).
   Returns NULL only when out of memory. */
json_t *qualification_json (json_t *rep, const char *by, const qual_opts_t *o);

#endif
