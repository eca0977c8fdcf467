/*  lint.c: see lint.h. */
#include "tuning.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const tuning_rule_name[TUNE_RULES] = { "scheduler", "nr_requests", "pcie_link" };
const char *const tuning_rule_advice[TUNE_RULES] = {
    "NVMe drives on scheduler none (the report's \"noop for NVMe\")",
    "nr_requests at least the I/Os a step keeps in flight on a drive (iodepth x numjobs; the "
    "report's \"nr_requests up to 2048\")",
    "each controller's PCIe link trained at its maximum speed and width",
};

void
tuning_checks (json_t *inv, json_t *d, uint64_t inflight, tune_check_t out[TUNE_RULES])
{
    memset (out, 0, sizeof (tune_check_t) * TUNE_RULES);
    const char *name = json_string_value (json_object_get (d, "name"));
    const char *transport = json_string_value (json_object_get (d, "transport"));
    const char *sched = json_string_value (json_object_get (d, "scheduler"));
    tune_check_t *c = &out[TUNE_SCHEDULER];
    if (transport && strcmp (transport, "nvme") == 0 && sched && strcmp (sched, "unknown") != 0) {
        c->checked = true;
        c->ok = strcmp (sched, "none") == 0;
        if (!c->ok)
            snprintf (c->msg, sizeof c->msg, "%s: NVMe with scheduler '%s'; 'none' avoids the "
                      "scheduler's cost (echo none > /sys/block/%s/queue/scheduler)", name, sched,
                      name);
    }
    json_t *nr = json_object_get (d, "nr_requests");
    c = &out[TUNE_NR_REQUESTS];
    if (json_is_integer (nr)) {
        c->checked = true;
        c->ok = (uint64_t) json_integer_value (nr) >= inflight;
        if (!c->ok)
            snprintf (c->msg, sizeof c->msg, "%s: nr_requests %lld is below the job's iodepth x "
                      "numjobs = %llu: the queue caps the depth tested", name,
                      (long long) json_integer_value (nr), (unsigned long long) inflight);
    }
    const char *ctl = json_string_value (json_object_get (d, "controller"));
    size_t i;
    json_t *cj;
    c = &out[TUNE_PCIE_LINK];
    json_array_foreach (json_object_get (inv, "controllers"), i, cj) {
        const char *addr = json_string_value (json_object_get (cj, "pci_address"));
        if (!ctl || !addr || strcmp (ctl, addr) != 0)
            continue;
        const char *sp = json_string_value (json_object_get (cj, "link_speed"));
        const char *msp = json_string_value (json_object_get (cj, "max_link_speed"));
        json_t *w = json_object_get (cj, "link_width"), *mw = json_object_get (cj, "max_link_width");
        bool speeds = sp && msp && strcmp (sp, "unknown") && strcmp (msp, "unknown");
        bool widths = json_is_integer (w) && json_is_integer (mw);
        if (!speeds && !widths)
            continue;
        bool slow = speeds && atof (sp) < atof (msp);
        bool narrow = widths && json_integer_value (w) < json_integer_value (mw);
        c->checked = true;
        c->ok = !slow && !narrow;
        if (!c->ok)
            snprintf (c->msg, sizeof c->msg, "%s: behind %s whose PCIe link runs at %s x%lld, "
                      "below its maximum %s x%lld", name, addr, sp ? sp : "?",
                      (long long) json_integer_value (w), msp ? msp : "?",
                      (long long) json_integer_value (mw));
    }
}

json_t *
tuning_lint (json_t *inv, json_t *d, const job_t *jd)
{
    tune_check_t c[TUNE_RULES];
    tuning_checks (inv, d, (uint64_t) jd->iodepth * jd->numjobs, c);
    json_t *out = json_array ();
    for (int r = 0; r < TUNE_RULES; r++)
        if (c[r].checked && !c[r].ok)
            json_array_append_new (out, json_string (c[r].msg));
    return out;
}
