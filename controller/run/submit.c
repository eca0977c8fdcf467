/*  select.c: which agents a run gets: the --agents selector ("all", a
    list of names, or KEY=GLOB conditions on labels and inventory), and
    the queued run that records them (submit_run).
*/
#include "controller.h"
#include "log.h"
#include "util.h"
#include "submit.h"
#include "fleet.h"
#include "known_agents.h"
#include "plans.h"
#include "runs.h"
#include "store.h"

#include <string.h>

/* How often an idle controller looks for idle work (idle_turn). */

/* Agents selected by "KEY=GLOB[,KEY=GLOB...]" (common/match.h; all must
   hold): the connected ones, or with known every agent the controller has
   seen.  Returns the count, 0 with err when none matched or a key is not
   one. */
static int
select_by_match (ctl_t *ctl, const char *agents, uint64_t *ids, int max, bool known, char *err,
                 size_t errlen)
{
    /* Names and conditions do not mix: "a1,rack=r12" is neither. */
    for (const char *p = agents; p; p = strchr (p, ',') ? strchr (p, ',') + 1 : NULL) {
        const char *end = strchr (p, ',');
        const char *eq = strchr (p, '=');
        if (!eq || (end && eq > end)) {
            snprintf (err, errlen, "--agents '%s': mix of names and KEY=GLOB conditions; use "
                      "either a name list or conditions like rack=r12,hba.firmware=16.*", agents);
            return 0;
        }
    }
    match_cond_t conds[MATCH_CONDS_MAX];
    int nconds = 0;
    if (match_conds_parse ("--agents", agents, conds, MATCH_CONDS_MAX, &nconds, err, errlen))
        return 0;
    int n = 0;
    /* A read error (logged) ends the list: the agents read are matched. */
    json_t *rows, *row;
    size_t i;
    known_agents_list (ctl->store, &rows);
    json_array_foreach (rows, i, row) {
        if (n >= max)
            break;
        uint64_t id = (uint64_t) json_integer_value (json_object_get (row, "id"));
        peer_t *p = fleet_find_id (ctl->fleet, id);
        if (!known && (!p || !p->connected))
            continue;
        const char *text = json_string_value (json_object_get (row, "labels"));
        json_t *labels = text ? json_loads (text, 0, NULL) : NULL;
        text = json_string_value (json_object_get (row, "inventory"));
        json_t *inv = text ? json_loads (text, 0, NULL) : NULL;
        /* The run has no labels yet: a run.KEY condition matches no agent. */
        match_subject_t subj = {
            .agent = json_string_value (json_object_get (row, "name")),
            .hostname = json_string_value (json_object_get (row, "hostname")),
            .labels = labels, .inventory = inv, .target = false,
        };
        bool all = match_all (conds, nconds, &subj);
        json_decref (labels);
        json_decref (inv);
        if (all)
            ids[n++] = id;
    }
    json_decref (rows);
    if (n == 0)
        snprintf (err, errlen, "no %s agent matches --agents '%s' (keys: agent, host, "
                  "host.FIELD, transport, drive.FIELD, hba.FIELD, label.KEY or a bare KEY; see "
                  "'iofleet agents --json' and 'iofleet inventory AGENT')",
                  known ? "known" : "connected", agents);
    return n;
}

static int
select_agents (ctl_t *ctl, const char *agents, uint64_t *ids, int max, char *err, size_t errlen)
{
    int n = 0;
    if (agents && strchr (agents, '='))
        return select_by_match (ctl, agents, ids, max, false, err, errlen);
    if (!agents || !*agents || strcmp (agents, "all") == 0) {
        for (peer_t *p = fleet_first (ctl->fleet); p; p = fleet_next (ctl->fleet))
            if (p->connected && n < max)
                ids[n++] = p->id;
        if (n == 0)
            snprintf (err, errlen, "no agent is connected; start iofleet-agent --controller "
                      "ENDPOINT on the hosts to test, then check with 'iofleet agents'");
        return n;
    }
    char list[4096];
    str_copy (list, sizeof list, agents);
    for (char *save = NULL, *tok = strtok_r (list, ",", &save); tok;
         tok = strtok_r (NULL, ",", &save)) {
        peer_t *p = fleet_find_name (ctl->fleet, tok);
        if (!p || !p->connected) {
            snprintf (err, errlen, "agent '%s' is %s; see 'iofleet agents'", tok,
                      p ? "not connected" : "unknown");
            return 0;
        }
        bool dup = false;
        for (int i = 0; i < n; i++)
            dup |= ids[i] == p->id;
        if (!dup && n < max)
            ids[n++] = p->id;
    }
    return n;
}

int
submit_agents_known (ctl_t *ctl, const char *agents, char *err, size_t errlen)
{
    enum { MAX_SELECT = 4096 };
    static uint64_t ids[MAX_SELECT];
    if (!agents || !*agents || strcmp (agents, "all") == 0)
        return 1;
    if (strchr (agents, '='))
        return select_by_match (ctl, agents, ids, MAX_SELECT, true, err, errlen);
    /* A name list: each one an agent the controller has seen. */
    char list[4096];
    int n = 0;
    str_copy (list, sizeof list, agents);
    for (char *save = NULL, *tok = strtok_r (list, ",", &save); tok;
         tok = strtok_r (NULL, ",", &save), n++) {
        int seen = known_agents_has (ctl->store, tok);
        if (seen < 0) {
            snprintf (err, errlen, "--agents: database error looking up '%s'; see the "
                      "controller's log", tok);
            return 0;
        }
        if (!seen) {
            snprintf (err, errlen, "--agents: no agent named '%s' has ever connected to this "
                      "controller (see 'iofleet agents')", tok);
            return 0;
        }
    }
    return n;
}

json_t *
submit_run (ctl_t *ctl, const char *plan, const char *agents, int min_agents,
               bool require_all, bool commit, char *err, size_t errlen)
{
    int64_t plan_id = 0;
    if (plans_latest (ctl->store, plan, &plan_id) < 0) {
        snprintf (err, errlen, "database error reading plan '%s'; see the controller's log", plan);
        return NULL;
    }
    if (!plan_id) {
        snprintf (err, errlen, "no plan named '%s'; add it with 'iofleet plan add %s FILE' "
                  "(see 'iofleet plan list')", plan, plan);
        return NULL;
    }
    enum { MAX_SELECT = 4096 };
    static uint64_t ids[MAX_SELECT];
    int n = select_agents (ctl, agents, ids, MAX_SELECT, err, errlen);
    if (n == 0)
        return NULL;
    if (min_agents > n) {
        snprintf (err, errlen, "--min-agents %d but only %d agent(s) selected; start more agents "
                  "or lower --min-agents", min_agents, n);
        return NULL;
    }
    store_begin (ctl->store);
    int64_t run = 0;
    if (runs_create (ctl->store, plan_id, (int64_t) clock_real_ns (), min_agents, require_all,
                     &run)) {
        snprintf (err, errlen, "database error creating the run; see the controller's log");
        return NULL;
    }
    json_t *names = json_array ();
    for (int i = 0; i < n; i++) {
        runs_add_agent (ctl->store, run, (int64_t) ids[i]);
        peer_t *p = fleet_find_id (ctl->fleet, ids[i]);
        json_array_append_new (names, json_string (p ? p->name : "?"));
    }
    if (commit)
        store_commit (ctl->store);
    log_info ("run %lld of plan '%s' queued on %d agent(s)", (long long) run, plan, n);
    return json_pack ("{s:I, s:s, s:s, s:o}", "run", (json_int_t) run, "plan", plan,
                      "status", "queued", "agents", names);
}

