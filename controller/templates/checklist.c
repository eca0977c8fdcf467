/*  checklist.c: the tuning checklist over a run, see checklist.h. */
#include "checklist.h"
#include "controller.h"
#include "tuning.h"
#define JSON_GET_SHORT     /* num () and str () */
#include "json_get.h"
#include "inventories.h"
#include "store.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The inventory drive named name, or NULL. */
static json_t *
drive_named (json_t *inv, const char *name)
{
    return json_get_find (json_object_get (inv, "drives"), "name", name);
}

json_t *
checklist_json (store_t *store, int64_t run, json_t *rep)
{
    /* seen[rule][group] = {"drives": {agent/drive: 1}, "checked": {...},
       "failing": {...}, "example": "..."} */
    json_t *seen[TUNE_RULES];
    for (int r = 0; r < TUNE_RULES; r++)
        seen[r] = json_object ();
    json_t *cache = json_object ();
    bool failed = false;
    size_t si, ai, ti;
    json_t *s, *aj, *tj;
    json_array_foreach (json_object_get (rep, "steps"), si, s) {
        json_t *job = json_object_get (s, "job");
        double nj = num (job, "numjobs");
        uint64_t inflight = (uint64_t) (num (job, "iodepth") * (isfinite (nj) && nj > 0 ? nj : 1));
        json_array_foreach (json_object_get (s, "agents"), ai, aj) {
            const char *agent = str (aj, "agent");
            json_t *inv = inventories_at_step (store, cache, run, (int) num (s, "index"), agent,
                                             &failed);
            json_array_foreach (json_object_get (aj, "targets"), ti, tj) {
                json_t *d = drive_named (inv, str (json_object_get (tj, "drive"), "name"));
                if (!d)
                    continue;
                tune_check_t c[TUNE_RULES];
                tuning_checks (inv, d, inflight, c);
                const char *gv = str (tj, "group");
                char key[512];
                snprintf (key, sizeof key, "%s/%s", agent, str (d, "name"));
                for (int r = 0; r < TUNE_RULES; r++) {
                    json_t *g = json_object_get (seen[r], gv[0] ? gv : "all");
                    if (!g) {
                        g = json_pack ("{s:{}, s:{}, s:{}, s:s}", "drives", "checked", "failing",
                                       "example", "");
                        json_object_set_new (seen[r], gv[0] ? gv : "all", g);
                    }
                    json_object_set_new (json_object_get (g, "drives"), key, json_true ());
                    if (!c[r].checked)
                        continue;
                    json_object_set_new (json_object_get (g, "checked"), key, json_true ());
                    if (c[r].ok)
                        continue;
                    json_object_set_new (json_object_get (g, "failing"), key, json_true ());
                    if (!str (g, "example")[0]) {
                        char ex[600];
                        snprintf (ex, sizeof ex, "%s: step %s: %s", agent, str (s, "name"),
                                  c[r].msg);
                        json_object_set_new (g, "example", json_string (ex));
                    }
                }
            }
            json_decref (inv);
        }
    }
    json_decref (cache);
    json_t *out = json_array ();
    for (int r = 0; r < TUNE_RULES; r++) {
        json_t *groups = json_array ();
        const char *gv;
        json_t *g;
        json_object_foreach (seen[r], gv, g)
            json_array_append_new (groups, json_pack ("{s:s, s:I, s:I, s:I, s:O}", "group", gv,
                "drives", (json_int_t) json_object_size (json_object_get (g, "drives")),
                "checked", (json_int_t) json_object_size (json_object_get (g, "checked")),
                "failing", (json_int_t) json_object_size (json_object_get (g, "failing")),
                "example", json_object_get (g, "example")));
        json_array_append_new (out, json_pack ("{s:s, s:s, s:o}", "rule", tuning_rule_name[r],
                                               "advice", tuning_rule_advice[r], "groups", groups));
        json_decref (seen[r]);
    }
    if (failed) {
        json_decref (out);
        return NULL;
    }
    return out;
}
