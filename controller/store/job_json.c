/*  job_json.c: a parsed job as the JSON the database keeps (plans.steps,
    steps.spec): what a plan's step is, and what an agent was asked to run.
*/
#include "controller.h"
#include "job_json.h"

json_t *
job_json (const job_t *j)
{
    json_t *o = json_pack ("{s:s, s:s, s:b, s:s, s:i, s:i, s:i, s:i, s:i, s:I, s:i, s:I, s:i, "
                           "s:s, s:I, s:b, s:I, s:b, s:b}",
        "name", j->name, "ioengine", j->ioengine, "direct", j->direct,
        "rw", job_rw_name (j->rw), "rwmixread", (int) j->rwmixread,
        "bs", (int) j->bs[0], "bs_write", (int) j->bs[1],
        "iodepth", (int) j->iodepth, "numjobs", (int) j->numjobs,
        "size", (json_int_t) j->size, "size_pct", (int) j->size_pct,
        "offset", (json_int_t) j->offset, "offset_pct", (int) j->offset_pct,
        "filename", j->filename, "runtime_ns", (json_int_t) j->runtime_ns,
        "time_based", j->time_based, "ramp_time_ns", (json_int_t) j->ramp_time_ns,
        "group_reporting", j->group_reporting, "stonewall", j->stonewall);
    if (j->npercentiles) {
        json_t *p = json_array ();
        for (int i = 0; i < j->npercentiles; i++)
            json_array_append_new (p, json_real (j->percentile_list[i]));
        json_object_set_new (o, "percentile_list", p);
    }
    if (j->sla[0])
        json_object_set_new (o, "sla", json_string (j->sla));
    if (j->health[0])
        json_object_set_new (o, "health", json_string (j->health));
    if (j->sweep_of[0])
        json_object_set_new (o, "sweep_of", json_string (j->sweep_of));
    if (j->rate_iops[0] || j->rate_iops[1])
        json_object_set_new (o, "rate_iops", json_pack ("[i, i]", (int) j->rate_iops[0],
                                                        (int) j->rate_iops[1]));
    if (j->nbssplit[0] || j->nbssplit[1] || j->bsrange_min[0] || j->bsrange_min[1])
        json_object_set_new (o, "mixed_bs", json_true ());
    /* Only with a target: a step without one keeps the spec it always had. */
    if (j->latency_target_ns) {
        json_object_set_new (o, "latency_target_ns",
                             json_integer ((json_int_t) j->latency_target_ns));
        json_object_set_new (o, "latency_window_ns",
                             json_integer ((json_int_t) j->latency_window_ns));
        json_object_set_new (o, "latency_percentile", json_real (j->latency_percentile));
        json_object_set_new (o, "latency_run", json_boolean (j->latency_run));
    }
    return o;
}
