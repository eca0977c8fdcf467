/*  verdict.h: a scheduled run's verdict against its baseline.  */
#ifndef IOF_VERDICT_H
#define IOF_VERDICT_H

#include "controller.h"

/* verdict.c */
/* A run ended: if a schedule queued it, its verdict against the baseline
   and its regressions are recorded, and with ctl->on_regression set the
   hook made pending.  Can't fail. */
void verdict_on_run_end (ctl_t *ctl, int64_t run, const char *status);
/* Admin "regressions": {since?, schedule?}, newest first.  Can't fail. */
json_t *verdict_regressions (ctl_t *ctl, json_t *req);

#endif
