/*  html_web.h: the pages iofleet-controller --http serves besides the
    report and the comparison (which are html_report.h's, the same bytes
    as report/compare --format html): the runs, a run's live progress, the
    history chart, the agents and the schedules.  Each renders the JSON of
    an admin command as the controller answered it; no figure is computed
    here.  Like the report they fetch nothing (no script, no font, no
    style sheet from anywhere); the live page reloads itself (a meta
    refresh) while its run is queued or running.
*/
#ifndef IOF_HTML_WEB_H
#define IOF_HTML_WEB_H

#include <jansson.h>
#include <stdio.h>

/* How often the live page reloads itself, in seconds. */
#define HTML_LIVE_REFRESH_S 2
/* The runs page lists the newest this many (/api/runs has them all). */
#define HTML_RUNS_MAX 1000

/* /: runs (the runs command's result), newest first, each linked to its
   report (and its live page while it is queued or running), with forms
   for /compare and /history.  Can't fail (write errors show in ferror). */
void html_runs_page (FILE *f, json_t *runs);

/* /runs/ID/live: status (the status command's result: phase, step,
   progress, agents by state, the last interval and its outliers) and
   step (the intervals command's result for the step in hand, or NULL)
   for its per-interval fleet IOPS and p99. */
void html_live_page (FILE *f, json_t *status, json_t *step);

/* /history: history (the history command's result) as one chart per
   step and direction over time, one line per group; query: the form's
   values ({plan, step, metric, by, direction}, strings, may be absent). */
void html_history_page (FILE *f, json_t *history, json_t *query);

/* /agents: the agents command's result, with each one's inventory. */
void html_agents_page (FILE *f, json_t *agents);

/* /schedules: the schedule_list command's result. */
void html_schedules_page (FILE *f, json_t *schedules);

/* A page saying what went wrong (what: the controller's error). */
void html_error_page (FILE *f, unsigned status, const char *what);

#endif
