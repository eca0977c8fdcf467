/*  lint.h: the tuning checklist of the source report, applied to every
    drive a step runs on.  Each rule is checked here and only here: at
    READY (tuning_lint, the warnings a report shows per step) and over a
    whole run (the qualification report's checklist, checklist.h). */
#ifndef IOF_LINT_H
#define IOF_LINT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "jobfile.h"

typedef enum {
    TUNE_SCHEDULER,     /* NVMe: scheduler none */
    TUNE_NR_REQUESTS,   /* nr_requests holds the I/Os in flight */
    TUNE_PCIE_LINK,     /* the controller's PCIe link at its maximum */
    TUNE_RULES
} tune_rule_t;

typedef struct {
    bool checked;       /* the rule applies and the inventory tells */
    bool ok;
    char msg[256];      /* when not ok: the warning */
} tune_check_t;

/* The rules' names ("scheduler", "nr_requests", "pcie_link") and what each
   asks, as the report words it. */
extern const char *const tuning_rule_name[TUNE_RULES];
extern const char *const tuning_rule_advice[TUNE_RULES];

/* Checks drive d (an entry of inv's "drives") with inflight I/Os per drive
   (iodepth x numjobs) against every rule, into out.  Can't fail. */
void tuning_checks (json_t *inv, json_t *d, uint64_t inflight, tune_check_t out[TUNE_RULES]);

/* The warnings of tuning_checks for drive d under job jd, a new JSON list
   of strings, possibly empty.  Can't fail (but for memory). */
json_t *tuning_lint (json_t *inv, json_t *d, const job_t *jd);

#endif
