/*  snapshot_prep.h: what is done to a SNAPSHOT before the loop stores it,
    needing nothing of the run: every histogram checked (it decodes, and
    holds as many samples as the direction's ops), then the block the
    loop will store encoded and compressed (snapshot_codec.h).  The
    decode pool does this on its threads (decode_pool.h); without one
    the loop does it itself, through the same function.
*/
#pragma once

#include "snapcodec.h"
#include "store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    bool done;                  /* prepared; false: the loop prepares it */
    /* The first histogram that fails its check: its sample's place in
       the message (-1: none), direction, which one (0 clat, 1 slat,
       2 lat) and why. */
    int bad_sample, bad_dir, bad_which;
    const char *bad_why;
    /* The block (when every check passed), its dictionary and its
       targets; or why it could not be encoded (encode_err[0]). */
    uint8_t *block;
    size_t len, cap;
    int64_t dict_id;
    char encode_err[160];
} snapshot_prep_t;

/* Checks s and encodes its block with codec into self (reusing its
   buffer).  Can't fail: what went wrong is in self.  Thread-safe for
   codecs of their own. */
void snapshot_prep (snapshot_prep_t *self, snapcodec_t *codec, const Iofleet__Snapshot *s);

/* The name of which (bad_which): "clat", "slat" or "lat".  Can't fail. */
const char *snapshot_prep_which (int which);

/* Frees the block's buffer.  Can't fail. */
void snapshot_prep_clear (snapshot_prep_t *self);
