/*  acks.h: acknowledgements, sent after the commit that stores what they cover.  */
#ifndef IOF_ACKS_H
#define IOF_ACKS_H

#include "controller.h"

/* acks.c */
/* Sends the acknowledgements of this tick if everything written in it is
   stored (store_failures unchanged), else takes back what it marked
   stored.  The event loop calls it after each tick's commit. */
void acks_after_commit (ctl_t *ctl);

#endif
