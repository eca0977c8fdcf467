/*  recover.h: resuming the run a previous controller process left running.  */
#ifndef IOF_RECOVER_H
#define IOF_RECOVER_H

#include "controller.h"

/* recover.c */
/* Picks up the run a previous controller process left 'running' (the
   newest; older ones are marked failed). */
void recover_run (ctl_t *ctl);

#endif
