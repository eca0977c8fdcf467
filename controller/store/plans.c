/*  plans.c: a plan's life: add a version, list, show one version, remove.

    A plan name keeps every version ever added, and runs point at one
    version (runs.plan_id): a version a run points at is never deleted, as
    the run's report needs its steps.  `plan rm` deletes the versions of a
    plan no run points at and hides the name (plans.removed_at) from
    `plan list` and `run`; `plan add` with the name again brings it back
    as a new version.  (`plan diff` is the CLI's: two `plan show` texts.)
*/
#include "controller.h"
#include "jobfile.h"
#include "log.h"
#include "names.h"
#include "util.h"
#include "job_json.h"
#include "plans.h"
#include "store.h"

#include <stdio.h>
#include <string.h>

/* What plan add can only warn of: a job without size= runs on what its
   file already is, so a file that is not there on an agent (and is no
   device) fails only when the run reaches it.  One line per such job. */
static json_t *
plan_warnings (const jobfile_t *jf)
{
    json_t *w = json_array ();
    for (int k = 0; k < jf->nsteps; k++) {
        const job_t *j = &jf->steps[k];
        /* A drive selector (@all, @loop, ...) names devices. */
        if (j->size || j->size_pct || j->filesize || strncmp (j->filename, "/dev/", 5) == 0
            || j->filename[0] == '@')
            continue;
        char line[JOB_FILENAME_MAX + 256];
        snprintf (line, sizeof line, "job '%s' has no size=: '%s' must already exist on every "
                  "agent (a device, or a file of the size to test); add size= to have agents "
                  "create it", j->name, j->filename[0] ? j->filename : j->name);
        json_array_append_new (w, json_string (line));
    }
    return w;
}

json_t *
plan_add (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    const char *name = json_string_value (json_object_get (req, "name"));
    const char *source = json_string_value (json_object_get (req, "source"));
    const char *text = json_string_value (json_object_get (req, "text"));
    if (!name || !text) {
        snprintf (err, errlen, "plan_add needs 'name' and 'text'");
        return NULL;
    }
    if (names_check ("plan name", name, err, errlen))
        return NULL;
    if (!source)
        source = name;
    /* The text as the request holds it: a NUL inside (\u0000) would end
       it early, so the parser checks its whole length. */
    jobfile_t *jf = jobfile_parse_n (source, text, json_string_length (json_object_get (req,
                                     "text")), err, errlen);
    if (!jf)
        return NULL;
    for (int k = 0; k < jf->nsteps; k++) {
        const char *why = job_fleet_refusal (&jf->steps[k]);
        if (why) {
            snprintf (err, errlen, "%s:%d: job '%s': %s (iofleet-agent run takes it on one "
                      "host)", source, jf->steps[k].line, jf->steps[k].name, why);
            jobfile_destroy (&jf);
            return NULL;
        }
    }
    json_t *warnings = plan_warnings (jf);
    /* One entry per step; jobs that run together share a step. */
    static int first[JOB_MAX_STEPS + 1];
    int nsteps = jobfile_group (jf, first);
    json_t *steps = json_array ();
    for (int i = 0; i < nsteps; i++) {
        json_t *jobs = json_array ();
        for (int k = first[i]; k < first[i + 1]; k++)
            json_array_append_new (jobs, job_json (&jf->steps[k]));
        json_array_append_new (steps, jobs);
    }
    jobfile_destroy (&jf);
    char *steps_text = json_dumps (steps, JSON_COMPACT);
    json_decref (steps);

    store_begin (ctl->store);
    sqlite3_stmt *st = store_stmt (ctl->store,
        "INSERT INTO plans (name, version, source, text, steps, created_at) VALUES "
        "(?1, (SELECT COALESCE(MAX(version), 0) + 1 FROM plans WHERE name = ?1), ?2, ?3, ?4, ?5)");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 2, source, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 3, text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 4, steps_text ? steps_text : "[]", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 5, (sqlite3_int64) clock_real_ns ());
    free (steps_text);
    if (store_step_done (ctl->store, st, "add plan")) {
        json_decref (warnings);
        snprintf (err, errlen, "database error storing the plan; see the controller's log");
        return NULL;
    }
    int64_t id = sqlite3_last_insert_rowid (store_db (ctl->store));
    /* A removed name comes back with its new version. */
    st = store_stmt (ctl->store, "UPDATE plans SET removed_at = NULL WHERE name = ?");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    int rc = store_step_done (ctl->store, st, "restore plan");
    st = store_stmt (ctl->store, "SELECT version FROM plans WHERE id = ?");
    sqlite3_bind_int64 (st, 1, id);
    int version = 0;
    if (!rc && store_row (ctl->store, st, "read the plan's version") == 1)
        version = sqlite3_column_int (st, 0);
    sqlite3_reset (st);
    if (!version || store_commit (ctl->store)) {
        json_decref (warnings);
        snprintf (err, errlen, "database error storing the plan; see the controller's log");
        return NULL;
    }
    log_info ("plan '%s' version %d added from %s: %d step(s)", name, version, source, nsteps);
    return json_pack ("{s:I, s:s, s:i, s:i, s:o}", "plan", (json_int_t) id, "name", name,
                      "version", version, "steps", nsteps, "warnings", warnings);
}

json_t *
plan_list (ctl_t *ctl, char *err, size_t errlen)
{
    json_t *list = json_array ();
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT name, version, source, json_array_length(steps), created_at, "
        " (SELECT COUNT(*) FROM runs r JOIN plans q ON q.id = r.plan_id WHERE q.name = p.name) "
        "FROM plans p WHERE removed_at IS NULL "
        " AND version = (SELECT MAX(version) FROM plans q WHERE q.name = p.name) ORDER BY name");
    int rc;
    while ((rc = store_row (ctl->store, st, "list plans")) == 1)
        json_array_append_new (list, json_pack ("{s:s, s:i, s:s, s:i, s:I, s:i}",
            "name", (const char *) sqlite3_column_text (st, 0),
            "version", sqlite3_column_int (st, 1),
            "source", (const char *) sqlite3_column_text (st, 2),
            "steps", sqlite3_column_int (st, 3),
            "created_at", (json_int_t) sqlite3_column_int64 (st, 4),
            "runs", sqlite3_column_int (st, 5)));
    sqlite3_reset (st);
    if (rc < 0) {
        json_decref (list);
        snprintf (err, errlen, "database error listing the plans; see the controller's log");
        return NULL;
    }
    return list;
}

/* The newest version of name, or 0 with err filled (that there is none,
   or a database error). */
static int
plan_newest (ctl_t *ctl, const char *name, char *err, size_t errlen)
{
    sqlite3_stmt *st = store_stmt (ctl->store, "SELECT MAX(version) FROM plans WHERE name = ?");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    int rc = store_row (ctl->store, st, "find the plan's newest version");
    int v = rc == 1 ? sqlite3_column_int (st, 0) : 0;
    sqlite3_reset (st);
    if (rc < 0)
        snprintf (err, errlen, "database error reading plan '%s'; see the controller's log", name);
    else if (!v)
        snprintf (err, errlen, "no plan named '%s' (see 'iofleet plan list')", name);
    return v;
}

json_t *
plan_show (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    const char *name = json_string_value (json_object_get (req, "name"));
    if (!name) {
        snprintf (err, errlen, "plan_show needs 'name'");
        return NULL;
    }
    int newest = plan_newest (ctl, name, err, errlen);
    if (!newest)
        return NULL;
    json_t *jv = json_object_get (req, "version");
    int version = newest;
    if (jv) {
        if (!json_is_integer (jv) || json_integer_value (jv) < 1
            || json_integer_value (jv) > newest) {
            snprintf (err, errlen, "plan '%s' has versions 1..%d: --version %lld is not one", name,
                      newest, (long long) json_integer_value (jv));
            return NULL;
        }
        version = (int) json_integer_value (jv);
    }
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT id, source, text, steps, created_at, removed_at, "
        " (SELECT COUNT(*) FROM runs r WHERE r.plan_id = p.id) "
        "FROM plans p WHERE name = ? AND version = ?");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int (st, 2, version);
    int rc = store_row (ctl->store, st, "read the plan");
    if (rc != 1) {
        sqlite3_reset (st);
        if (rc < 0)
            snprintf (err, errlen, "database error reading plan '%s'; see the controller's log",
                      name);
        else    /* versions deleted by plan rm leave gaps */
            snprintf (err, errlen, "plan '%s' version %d was removed (plan rm); its newest is %d",
                      name, version, newest);
        return NULL;
    }
    json_t *steps = json_loads ((const char *) sqlite3_column_text (st, 3), 0, NULL);
    json_t *names = json_array ();
    size_t i, k;
    json_t *jobs, *job;
    json_array_foreach (steps, i, jobs) {
        json_t *step = json_array ();
        json_array_foreach (jobs, k, job)
            json_array_append (step, json_object_get (job, "name"));
        json_array_append_new (names, step);
    }
    json_decref (steps);
    json_t *o = json_pack ("{s:s, s:i, s:i, s:s, s:s, s:o, s:I, s:i}",
        "name", name, "version", version, "newest", newest,
        "source", (const char *) sqlite3_column_text (st, 1),
        "text", (const char *) sqlite3_column_text (st, 2),
        "steps", names,
        "created_at", (json_int_t) sqlite3_column_int64 (st, 4),
        "runs", sqlite3_column_int (st, 6));
    if (sqlite3_column_type (st, 5) != SQLITE_NULL)
        json_object_set_new (o, "removed_at", json_integer (sqlite3_column_int64 (st, 5)));
    sqlite3_reset (st);
    return o;
}

json_t *
plan_rm (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    const char *name = json_string_value (json_object_get (req, "name"));
    bool dry = json_is_true (json_object_get (req, "dry_run"));
    if (!name) {
        snprintf (err, errlen, "plan_rm needs 'name'");
        return NULL;
    }
    if (!plan_newest (ctl, name, err, errlen))
        return NULL;
    /* A schedule would fire a plan that is gone. */
    sqlite3_stmt *st = store_stmt (ctl->store, "SELECT name FROM schedules WHERE plan = ? LIMIT 1");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    int rc = store_row (ctl->store, st, "find the plan's schedules");
    if (rc == 1) {
        snprintf (err, errlen, "schedule '%s' runs plan '%s': remove the schedule first "
                  "(iofleet schedule rm %s)", (const char *) sqlite3_column_text (st, 0), name,
                  (const char *) sqlite3_column_text (st, 0));
        sqlite3_reset (st);
        return NULL;
    }
    sqlite3_reset (st);
    if (rc < 0)
        goto db_error;
    st = store_stmt (ctl->store,
        "SELECT r.id, r.status FROM runs r JOIN plans p ON p.id = r.plan_id "
        "WHERE p.name = ? AND r.status IN ('queued', 'running') LIMIT 1");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    rc = store_row (ctl->store, st, "find the plan's running runs");
    if (rc == 1) {
        snprintf (err, errlen, "run %lld of plan '%s' is %s: wait for it to end (iofleet watch "
                  "%lld) or cancel it (iofleet cancel %lld)", sqlite3_column_int64 (st, 0), name,
                  (const char *) sqlite3_column_text (st, 1), sqlite3_column_int64 (st, 0),
                  sqlite3_column_int64 (st, 0));
        sqlite3_reset (st);
        return NULL;
    }
    sqlite3_reset (st);
    if (rc < 0)
        goto db_error;
    /* What goes: the versions no run points at.  What stays: the rest. */
    st = store_stmt (ctl->store,
        "SELECT SUM(NOT EXISTS (SELECT 1 FROM runs r WHERE r.plan_id = p.id)), COUNT(*), "
        " (SELECT COUNT(*) FROM runs r JOIN plans q ON q.id = r.plan_id WHERE q.name = ?1) "
        "FROM plans p WHERE name = ?1");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    int deleted = 0, versions = 0, runs = 0;
    rc = store_row (ctl->store, st, "count the plan's versions");
    if (rc == 1) {
        deleted = sqlite3_column_int (st, 0);
        versions = sqlite3_column_int (st, 1);
        runs = sqlite3_column_int (st, 2);
    }
    sqlite3_reset (st);
    if (rc < 0)
        goto db_error;
    json_t *o = json_pack ("{s:s, s:i, s:i, s:i, s:b}", "name", name, "versions", versions,
                           "deleted_versions", deleted, "runs", runs, "dry_run", dry);
    if (dry)
        return o;
    store_begin (ctl->store);
    sqlite3_exec (store_db (ctl->store), "SAVEPOINT plan_rm", NULL, NULL, NULL);
    st = store_stmt (ctl->store,
        "DELETE FROM plans WHERE name = ? AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.plan_id = plans.id)");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    rc = store_step_done (ctl->store, st, "remove plan versions");
    st = store_stmt (ctl->store, "UPDATE plans SET removed_at = ? WHERE name = ?");
    sqlite3_bind_int64 (st, 1, (sqlite3_int64) clock_real_ns ());
    sqlite3_bind_text (st, 2, name, -1, SQLITE_TRANSIENT);
    rc |= store_step_done (ctl->store, st, "hide plan");
    sqlite3_exec (store_db (ctl->store), rc ? "ROLLBACK TO plan_rm; RELEASE plan_rm"
                                            : "RELEASE plan_rm", NULL, NULL, NULL);
    if (rc || store_commit (ctl->store)) {
        json_decref (o);
        snprintf (err, errlen, "database error removing plan '%s'; see the controller's log", name);
        return NULL;
    }
    log_info ("plan '%s' removed: %d of %d version(s) deleted, %d kept for %d run(s)", name,
              deleted, versions, versions - deleted, runs);
    return o;

db_error:
    snprintf (err, errlen, "database error reading plan '%s'; see the controller's log", name);
    return NULL;
}

int
plans_latest (store_t *store, const char *name, int64_t *plan_id)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT id, version FROM plans WHERE name = ? AND removed_at IS NULL "
        "ORDER BY version DESC LIMIT 1");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    *plan_id = 0;
    int rc = store_row (store, st, "find the plan");
    if (rc == 1)
        *plan_id = sqlite3_column_int64 (st, 0);
    if (st)
        sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}

int
plans_exists (store_t *store, const char *name)
{
    IOF_ASSERT (store && name);
    sqlite3_stmt *st = store_stmt (store,
        "SELECT 1 FROM plans WHERE name = ? AND removed_at IS NULL LIMIT 1");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    int rc = store_row (store, st, "find the plan");
    if (st)
        sqlite3_reset (st);
    return rc;
}
