/*  step_health.h: the drive health of a step (schemas/021_health.sql):
    the records READY and DONE carry, checked and stored (the write path,
    on the event loop), and a report's "health" of a step (the read path):
    each drive's judgement (common/health_judge.h) from its records and
    the temperatures its snapshots carried, the step's temperature series,
    the causes named beside its outliers, and its health rule's verdict
    ([iofleet] health=, common/health_rule.h).
*/
#ifndef IOF_STEP_HEALTH_H
#define IOF_STEP_HEALTH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobfile.h"
#include "message.h"
#include "store.h"

/* A report lists every drive of a step with this many drives or fewer;
   of a bigger step, the drives with a finding, unavailable ones counted
   by reason. */
#define STEP_HEALTH_LIST_ALL 256

/* A temperature series holds this many intervals at most (a week at 6 s
   intervals); a drive's figures count every reading. */
#define STEP_HEALTH_SERIES_MAX 100000

/* The key of an agent's target in step_health_add's keep and its own
   maps: "AGENT\x1fTARGET", in a buffer of STEP_HEALTH_KEY_MAX (a name, a
   job's name and a path).  Can't fail. */
#define STEP_HEALTH_KEY_MAX (MSG_NAME_MAX + JOB_NAME_MAX + MSG_PATH_MAX + 3)
void step_health_key (const char *agent, const char *target, char *out, size_t cap);

/* The health records of an agent's targets (READY's: after false; DONE's:
   true), n of them for ntargets targets, checked (health_from_json) and
   stored on its step_agents row.  A record that does not check is
   stored as unavailable, saying what was wrong, and counted as a bad
   agent message; a list of another length is not stored and counted.
   Can't fail: a database error is the store's to count. */
void step_health_save (store_t *store, int64_t run, int step, int64_t agent, bool after,
                       char *const *records, size_t n, size_t ntargets);

/* Adds "health" to step s of a report (run, index step, its job's JSON
   for the rule): every drive's judgement, the temperature series, the
   rule's verdict; names a health cause on each of s's "outliers" that
   has one (its "health_cause").  keep (NULL: every drive) holds the
   drives a --where kept, as "AGENT\x1fTARGET" keys: the others are left
   out of every figure.  *failed is set when the rule failed on a drive,
   *judged when the step has a rule.  Returns 0, or -1 on a database
   error (logged). */
int step_health_add (store_t *store, int64_t run, int step, json_t *job, json_t *keep, json_t *s,
                     bool *judged, bool *failed);

/* History's health metrics: temperature.max, temperature.mean,
   media_errors.delta, error_log_entries.delta, throttle.transitions and
   waf, of each group of a step's drives.  Whether metric is one, and
   its unit ("C", "count", "ratio").  Can't fail. */
bool step_health_is_metric (const char *metric);
/* The metrics' names as a list for a message ("temperature.max, ... or
   waf").  Can't fail. */
const char *step_health_metrics_text (void);
const char *step_health_metric_unit (const char *metric);
/* Checks a --by for a health metric: agent, transport, drive.FIELD, or
   health.FIELD (the record before the step, in buckets).  Returns 0, or
   -1 with err. */
int step_health_by_check (const char *by, char *err, size_t errlen);
/* The metric of step's drives per group of by (NULL: one, "all"): a list
   of {value: group, figure (null: no drive reports it), drives,
   reporting}.  NULL on a database error (logged) or out of memory. */
json_t *step_health_history (store_t *store, int64_t run, int step, const char *metric,
                             const char *by);

#endif
