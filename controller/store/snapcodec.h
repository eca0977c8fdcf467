/*  snapshot_codec.h: an agent-interval's snapshots as stored.  One row of
    snapshot_blocks holds what one agent sent for one interval (the
    SNAPSHOT message, proto/iofleet.proto, without the fields its key
    already holds): its targets' counters, and their histograms in their
    own encoding taken apart into streams (header values, bucket gaps,
    counts: snapshot_codec.c), compressed by zstd at level 3 with the
    database's dictionary (snapshot_dicts; none until one is trained:
    dict_id 0).  This file is the one encoder and decoder of those bytes.
    A codec belongs to one connection (it loads dictionaries through it)
    and one thread.
*/
#pragma once

#include "sqlite_api.h"
#include "iofleet.pb-c.h"
#include "store.h"

#include <stddef.h>
#include <stdint.h>

typedef struct snapcodec snapcodec_t;

/* The zstd level blocks are written at (the cheapest of those measured to
   reach the size target with a dictionary: docs/design.md). */
#define SNAPCODEC_LEVEL 3

snapcodec_t *snapcodec_new (sqlite3 *db);
void snapcodec_free (snapcodec_t **self_p);

/* Uses the newest dictionary of the database from now on (after one was
   trained).  Returns 0, or -1 with err. */
int snapcodec_reload (snapcodec_t *self, char *err, size_t errlen);

/* The bytes of s as a block holds them before compression (targets in
   target order), in a buffer of the codec's valid until the next call.
   Returns 0, or -1 with err. */
int snapcodec_pack (snapcodec_t *self, const Iofleet__Snapshot *s, const uint8_t **out,
                    size_t *len, char *err, size_t errlen);

/* The stored bytes of s (its targets in target order), in a buffer of the
   codec's valid until the next call, and the dictionary they need.
   Returns 0, or -1 with err. */
int snapcodec_encode (snapcodec_t *self, const Iofleet__Snapshot *s, const uint8_t **out,
                      size_t *len, int64_t *dict_id, char *err, size_t errlen);

/* The message stored in data (its run, step and seq zero: the row's key
   holds them), targets in target order; the caller's, freed with
   snapcodec_release.  NULL with err when the bytes do not decode or the
   dictionary is missing. */
Iofleet__Snapshot *snapcodec_decode (snapcodec_t *self, int64_t dict_id, const void *data,
                                     size_t len, char *err, size_t errlen);
void snapcodec_release (Iofleet__Snapshot *m);

/* The drives' temperatures of a stored block without decoding the rest
   of it (its histograms are not rebuilt): fn (arg, target, milli-degrees)
   for each target that has one, and the interval's span into *span_ns.
   Returns 0, or -1 with err (the bytes do not decode, or the dictionary
   is missing). */
typedef void snapcodec_temp_fn (void *arg, uint32_t target, int32_t temperature_mc);
int snapcodec_temps (snapcodec_t *self, int64_t dict_id, const void *data, size_t len,
                     uint64_t *span_ns, snapcodec_temp_fn *fn, void *arg, char *err,
                     size_t errlen);

/* The uncompressed bytes of a block (snapcodec_pack's), for training a
   dictionary on them; a buffer of the codec's valid until the next call.
   Returns 0, or -1 with err. */
int snapcodec_raw (snapcodec_t *self, int64_t dict_id, const void *data, size_t len,
                   const uint8_t **out, size_t *outlen, char *err, size_t errlen);
