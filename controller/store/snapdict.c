/*  snapshot_dict.c: the controller trains its database's compression
    dictionary for snapshot blocks on its own.  A new database's first
    blocks are compressed without one (zstd -3, about 115 bytes a
    target-interval); once SNAPSHOT_DICT_MIN blocks are stored and no run
    is queued or running, a dictionary is trained on the newest
    SNAPSHOT_DICT_SAMPLES of them, and every block written after uses it
    (about 97 bytes).  Blocks written before keep theirs: each names its
    dictionary.  A database converted from schema 19 got one at its
    conversion.
*/
#include "controller.h"
#include "log.h"
#include "snapshot_store.h"
#include "util.h"
#include "snapdict.h"
#include "idle.h"
#include "store.h"

#include <stdlib.h>

/* Blocks stored before a dictionary is trained: 200 agent-seconds are a
   few MiB of samples, enough for zstd to find the histograms' shapes. */
#define SNAPSHOT_DICT_MIN 200

struct snapdict {
    idle_turn_t turn;
    bool have;                  /* the database has a dictionary */
    int samples;
    int64_t bytes, ms;          /* of the one trained here, 0 none */
};

snapdict_t *
snapdict_new (void)
{
    return calloc (1, sizeof (snapdict_t));
}

void
snapdict_destroy (snapdict_t **self_p)
{
    free (*self_p);
    *self_p = NULL;
}

void
snapdict_soon (snapdict_t *self)
{
    if (self && !self->have)
        idle_soon (&self->turn);
}

bool
snapdict_tick (ctl_t *ctl)
{
    snapdict_t *self = ctl->snapdict;
    if (!self || self->have || !idle_turn (ctl->store, &self->turn, false))
        return false;
    sqlite3_stmt *st = store_stmt (ctl->store, "SELECT 1 FROM snapshot_dicts LIMIT 1");
    int rc = store_row (ctl->store, st, "look for a snapshot dictionary");
    if (st)
        sqlite3_reset (st);
    if (rc != 0) {
        self->have = rc == 1;
        return false;
    }
    /* Its own transaction: the codec writes with the dictionary from now
       on, so it must be in the database first. */
    if (store_in_tx (ctl->store) && store_commit (ctl->store))
        return false;
    uint64_t t0 = clock_mono_ns ();
    char err[256];
    size_t bytes = 0;
    int samples = 0;
    rc = snapshot_store_train (store_db (ctl->store), store_codec (ctl->store),
                               SNAPSHOT_DICT_MIN, (int64_t) clock_real_ns (), &samples, &bytes,
                               err, sizeof err);
    if (rc < 0) {
        log_warn ("snapshots: training a compression dictionary failed: %s (blocks stay "
                  "compressed without one; tried again in a minute)", err);
        return false;
    }
    if (rc == 0)
        return false;                 /* too few blocks yet */
    self->have = true;
    self->samples = samples;
    self->bytes = (int64_t) bytes;
    self->ms = (int64_t) ((clock_mono_ns () - t0) / 1000000);
    log_info ("snapshots: a compression dictionary of %zu bytes trained on %d blocks in %lld "
              "ms; blocks from now on use it", bytes, samples, (long long) self->ms);
    return true;
}

json_t *
snapdict_json (const snapdict_t *self)
{
    return json_pack ("{s:b, s:i, s:I, s:I}", "have", self && self->have, "samples",
                      self ? self->samples : 0, "bytes", (json_int_t) (self ? self->bytes : 0),
                      "ms", (json_int_t) (self ? self->ms : 0));
}
