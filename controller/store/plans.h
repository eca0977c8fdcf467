/*  plans.h: the plans table: add, list, show, remove.  */
#ifndef IOF_PLANS_H
#define IOF_PLANS_H

#include "controller.h"
#include "store.h"

/* plans.c: the admin requests plan_add, plan_list, plan_show and plan_rm.
   Each returns its JSON result or NULL with err filled. */
json_t *plan_add (ctl_t *ctl, json_t *req, char *err, size_t errlen);
json_t *plan_list (ctl_t *ctl, char *err, size_t errlen);
json_t *plan_show (ctl_t *ctl, json_t *req, char *err, size_t errlen);
/* {name, dry_run?}: deletes the versions no run points at and hides the
   name; refused while a schedule names it or a run of it is queued or
   running.  dry_run: only says what would go. */
json_t *plan_rm (ctl_t *ctl, json_t *req, char *err, size_t errlen);

/* The id of plan name's newest version (not removed) in *plan_id (0:
   none).  Returns 0, or -1 on a database error (logged; *plan_id 0). */
int plans_latest (store_t *store, const char *name, int64_t *plan_id);

/* Whether a plan of that name is there (not removed).  Returns 1, 0
   when not, or -1 on a database error (logged). */
int plans_exists (store_t *store, const char *name);

#endif
