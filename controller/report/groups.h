/*  groups.h: groups of targets and their merged figures, outliers, selection.  */
#ifndef IOF_GROUPS_H
#define IOF_GROUPS_H

#include "controller.h"
#include "store.h"

/* groups.c */
/* Is by a grouping key (common/match.h)?  Returns 0, or -1 with err
   naming --by and the keys. */
int groups_key_check (const char *by, char *err, size_t errlen);
/* Adds "groups" (merged per value of `by`, or one group "all" when NULL)
   and "outliers" to a step of a report: its agents' targets are the
   members; selected: only they count (the step was filtered by
   groups_select).  Returns 0, or -1 with err for a `by` that is not one or
   a database error.  groups_add takes the step's "agents" at once; a
   report written one agent at a time gives each agent to
   groups_acc_agent (which sets each target's "group" when by is given),
   then calls groups_acc_end (which frees the accumulator, failed or not). */
int groups_add (store_t *store, int64_t run, int step, json_t *step_json, const char *by,
                bool selected, char *err, size_t errlen);
/* groups_add's groups and their figures only: no per-group series (which
   reads the step's snapshots), no outliers (what history needs). */
int groups_add_figures (store_t *store, int64_t run, int step, json_t *step_json,
                        const char *by, bool selected, char *err, size_t errlen);
typedef struct groups_acc groups_acc_t;
groups_acc_t *groups_acc_new (store_t *store, int64_t run, int step, const char *by,
                              bool selected, char *err, size_t errlen);
void groups_acc_agent (groups_acc_t *g, json_t *aj);
int groups_acc_end (groups_acc_t *g, json_t *step_json, char *err, size_t errlen);
/* Frees g without adding anything (a report that failed).  Can't fail. */
void groups_acc_free (groups_acc_t *g);
/* Keeps the targets of the step's "agents" that satisfy conds (an agent
   without targets, which measured nothing, is judged as a whole), drops
   agents left without any, and adds "selected" {agents, agents_of,
   targets, targets_of}.  values (if not NULL) gets every value of
   conds[0]'s key seen, as keys.  Returns the number of agents kept, or -1
   on a database error (logged).  One agent at a time: groups_sel_new
   (NULL when out of memory), groups_sel_agent (filters the agent's targets
   in place; true: keep it), groups_sel_end (adds "selected", frees). */
int groups_select (store_t *store, int64_t run, int step, json_t *step_json,
                   const match_cond_t *conds, int nconds, json_t *values);
typedef struct groups_sel groups_sel_t;
groups_sel_t *groups_sel_new (store_t *store, int64_t run, int step, const match_cond_t *conds,
                              int nconds, json_t *values);
bool groups_sel_agent (groups_sel_t *g, json_t *aj);
int groups_sel_end (groups_sel_t *g, json_t *step_json);
/* {"agents", "targets", "iops_per_agent", "iops_per_target",
   "bw_per_agent", "bw_per_target"} of members summing to iops and bw. */
json_t *groups_members_json (int agents, int targets, double iops, double bw);

#endif
