/*  hook.h: the --on-regression hook.  */
#ifndef IOF_HOOK_H
#define IOF_HOOK_H

#include "controller.h"
#include "store.h"

/* hook.c: the --on-regression hook, one fire at a time. */
hook_t *hook_new (const char *cmd);
void hook_destroy (hook_t **self_p);
/* Starts the hook for the oldest fire waiting for it, unless it runs.
   Can't fail (a hook that cannot start is recorded so). */
void hook_start (hook_t *self, store_t *store);
/* Reaps the hook when it ended, stops it past its timeout.  Can't fail. */
void hook_poll (hook_t *self, store_t *store);
/* Once at start: hooks the last controller left running are recorded as
   interrupted.  Can't fail. */
void hook_interrupted (store_t *store);

#endif
