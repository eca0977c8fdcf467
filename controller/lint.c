/*  lint.c: see lint.h. */
#include "lint.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The source report's tuning checklist, for one drive under one job:
   NVMe wants scheduler none; nr_requests must hold the job's I/Os in
   flight (iodepth x numjobs); a PCIe link below its maximum speed or width
   caps the drive.  Returns a JSON list of warnings (possibly empty). */
json_t *
tuning_lint (json_t *inv, json_t *d, const job_t *jd)
{
    json_t *out = json_array ();
    const char *name = json_string_value (json_object_get (d, "name"));
    const char *transport = json_string_value (json_object_get (d, "transport"));
    const char *sched = json_string_value (json_object_get (d, "scheduler"));
    char msg[256];
    if (transport && strcmp (transport, "nvme") == 0 && sched && strcmp (sched, "none") != 0
        && strcmp (sched, "unknown") != 0) {
        snprintf (msg, sizeof msg, "%s: NVMe with scheduler '%s'; 'none' avoids the scheduler's "
                  "cost (echo none > /sys/block/%s/queue/scheduler)", name, sched, name);
        json_array_append_new (out, json_string (msg));
    }
    json_t *nr = json_object_get (d, "nr_requests");
    uint64_t inflight = (uint64_t) jd->iodepth * jd->numjobs;
    if (json_is_integer (nr) && (uint64_t) json_integer_value (nr) < inflight) {
        snprintf (msg, sizeof msg, "%s: nr_requests %lld is below the job's iodepth x numjobs "
                  "= %llu: the queue caps the depth tested", name,
                  (long long) json_integer_value (nr), (unsigned long long) inflight);
        json_array_append_new (out, json_string (msg));
    }
    const char *ctl = json_string_value (json_object_get (d, "controller"));
    size_t i;
    json_t *c;
    json_array_foreach (json_object_get (inv, "controllers"), i, c) {
        const char *addr = json_string_value (json_object_get (c, "pci_address"));
        if (!ctl || !addr || strcmp (ctl, addr) != 0)
            continue;
        const char *sp = json_string_value (json_object_get (c, "link_speed"));
        const char *msp = json_string_value (json_object_get (c, "max_link_speed"));
        json_t *w = json_object_get (c, "link_width"), *mw = json_object_get (c, "max_link_width");
        bool slow = sp && msp && strcmp (sp, "unknown") && strcmp (msp, "unknown")
                    && atof (sp) < atof (msp);
        bool narrow = json_is_integer (w) && json_is_integer (mw)
                      && json_integer_value (w) < json_integer_value (mw);
        if (slow || narrow) {
            snprintf (msg, sizeof msg, "%s: behind %s whose PCIe link runs at %s x%lld, below its "
                      "maximum %s x%lld", name, addr, sp ? sp : "?",
                      (long long) json_integer_value (w), msp ? msp : "?",
                      (long long) json_integer_value (mw));
            json_array_append_new (out, json_string (msg));
        }
    }
    return out;
}

