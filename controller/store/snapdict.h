/*  snapdict.h: the snapshot blocks' compression dictionary.  */
#ifndef IOF_SNAPDICT_H
#define IOF_SNAPDICT_H

#include "controller.h"

/* snapshot_dict.c: the compression dictionary of snapshot blocks,
   trained while idle once enough blocks are stored.  NULL when out of
   memory. */
snapdict_t *snapdict_new (void);
void snapdict_destroy (snapdict_t **self_p);
/* Looks at the next tick (a run ended).  self may be NULL.  Can't fail. */
void snapdict_soon (snapdict_t *self);
/* Once per loop tick: when idle, due and the database has none, trains
   one (its own transaction).  Returns true when it trained one now (the
   decoders must reload it).  Can't fail (errors are logged). */
bool snapdict_tick (ctl_t *ctl);
/* For iofleet stats: {have, samples, bytes, ms} (the last three of one
   trained by this controller). */
json_t *snapdict_json (const snapdict_t *self);

#endif
