/*  status.h: a run's status, live while it runs.  */
#ifndef IOF_STATUS_H
#define IOF_STATUS_H

#include "controller.h"

/* status.c */
/* A run's status, with the live figures of its step in hand while it
   runs.  NULL with err filled for an unknown run. */
json_t *status_run (ctl_t *ctl, int64_t run, char *err, size_t errlen);

#endif
