/*  cancel.h: cancelling a queued or running run.  */
#ifndef IOF_CANCEL_H
#define IOF_CANCEL_H

#include "controller.h"

/* cancel.c */
/* Cancels a queued or running run (by: who asked, USER@HOST): the run in
   hand has its agents told to stop and its step's results made from what
   they delivered; the run ends 'cancelled', recording by and when.
   Returns a JSON result, or NULL with err filled: an unknown run, one that
   has ended, or a database that cannot be written now. */
json_t *cancel_run (ctl_t *ctl, int64_t run, const char *by, char *err, size_t errlen);

#endif
