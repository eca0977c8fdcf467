/*  compare_admin.h: the admin command "compare" (iofleet compare): two
    runs, or two groups of one run, compared in the controller
    (templates/compare.c); the CLI only renders what it answers.

    Request: {"cmd": "compare", "runs": [A, B]} or {"cmd": "compare",
    "run": R, "a": "KEY=GLOB", "b": "KEY=GLOB"} (two groups of one run),
    with "by", "steps" ([[A step, B step], ...]), "sum", "force",
    "fail_pct" (--fail-on-regression; absent: no gate) and "reports"
    (true: both reports, with their fleets' latency histograms, each bin
    [low_ns, high_ns, count, fraction of the histogram's I/Os], for the
    HTML page).

    Result: {"refused": "why"} when the two sides are not alike (the CLI
    says so and exits 2), else {"compare": what compare_run made,
    "judged": {"threshold_pct", "rows": ["regression" | "better" |
    "worse" | "" per row], "significant", "regressions", "improvements"},
    "units": {metric: "ns" | "bytes/s" | "iops"} of the rows' metrics,
    "regressions": rows beyond fail_pct (0 without it), "reports"?: [A, B]}.
*/
#ifndef IOF_COMPARE_ADMIN_H
#define IOF_COMPARE_ADMIN_H

#include "store.h"

#include <jansson.h>
#include <stddef.h>

/* The "compare" command's result (see above), or NULL with err filled
   (a request that is not one, a run or selection the report refuses, a
   database error: "database error ...; see the controller's log"). */
json_t *compare_admin (store_t *store, json_t *req, char *err, size_t errlen);

#endif
