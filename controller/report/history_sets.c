/*  history_sets.c: the figures history draws from one step of a run
    (history.h), computed here alone: history computes them with these
    functions when the index lacks a step, and the index stores what they
    return.
*/
#include "controller.h"
#include "history.h"
#include "report.h"
#include "groups.h"
#include "store.h"
#include "history_sets.h"
#include "report_agents.h"

json_t *
history_sets_step_agents (store_t *store, int64_t run, int idx)
{
    json_t *sa = report_agents_step (store, run, idx, NULL, NULL, 0);
    return sa ? json_pack ("{s:o}", "agents", sa) : NULL;
}

json_t *
history_sets_group (store_t *store, int64_t run, int idx, json_t *sj, const char *by,
                    bool selected, char *err, size_t errlen)
{
    err[0] = 0;
    if (groups_add_figures (store, run, idx, sj, by, selected, err, errlen))
        return NULL;
    json_t *sets = json_array ();
    json_array_extend (sets, json_object_get (sj, "groups"));
    return sets;
}

json_t *
history_sets_step (store_t *store, int64_t run, int idx, const char *by,
                   const match_cond_t *conds, int nconds, char *err, size_t errlen)
{
    err[0] = 0;
    if (!by && !nconds) {
        json_t *f = report_fleet (store, run, idx, NULL, 0);
        if (!f)
            return NULL;
        json_object_set_new (f, "value", json_string ("fleet"));
        return json_pack ("[o]", f);
    }
    json_t *sj = history_sets_step_agents (store, run, idx);
    if (!sj || (nconds && groups_select (store, run, idx, sj, conds, nconds, NULL) < 0)) {
        json_decref (sj);
        return NULL;
    }
    json_t *sets = history_sets_group (store, run, idx, sj, by, nconds > 0, err, errlen);
    json_decref (sj);
    return sets;
}
