/*  snapshot_prep.c: see snapshot_prep.h. */
#include "snapshot_prep.h"

#include "direction.h"
#include "histogram.h"
#include "message.h"
#include "snapcodec.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *
snapshot_prep_which (int which)
{
    static const char *names[3] = { "clat", "slat", "lat" };
    return which >= 0 && which < 3 ? names[which] : "?";
}

/* The first histogram of s that fails its check into self.  Returns true
   when there is one. */
static bool
find_bad (snapshot_prep_t *self, const Iofleet__Snapshot *s)
{
    for (size_t i = 0; i < s->n_targets; i++) {
        const Iofleet__TargetSample *t = s->targets[i];
        for (int k = 0; k < DIR_COUNT; k++) {
            const Iofleet__DirStats *d = message_sample_dir (t, k);
            if (!d || (d->ops == 0 && d->histogram.len == 0))
                continue;
            const ProtobufCBinaryData *blobs[3] = { &d->histogram, &d->slat_histogram,
                                                    &d->lat_histogram };
            for (int b = 0; b < 3; b++) {
                if (b > 0 && blobs[b]->len == 0)
                    continue;       /* slat/lat are optional */
                uint64_t count;
                const char *why = NULL;
                if (histogram_check (blobs[b]->data, blobs[b]->len, &count) != 0)
                    why = "does not decode";
                /* Failed I/Os are counted as errors, never as latency
                   samples; a run without histograms sends empty ones. */
                else if (count != d->ops && count != 0)
                    why = "holds another number of samples than ops";
                if (why) {
                    self->bad_sample = (int) i;
                    self->bad_dir = k;
                    self->bad_which = b;
                    self->bad_why = why;
                    return true;
                }
            }
        }
    }
    return false;
}

void
snapshot_prep (snapshot_prep_t *self, snapcodec_t *codec, const Iofleet__Snapshot *s)
{
    self->done = true;
    self->bad_sample = -1;
    self->bad_why = NULL;
    self->len = 0;
    self->dict_id = 0;
    self->encode_err[0] = '\0';
    if (find_bad (self, s))
        return;
    const uint8_t *z;
    size_t zlen;
    if (snapcodec_encode (codec, s, &z, &zlen, &self->dict_id, self->encode_err,
                          sizeof self->encode_err))
        return;
    if (zlen > self->cap) {
        uint8_t *nb = realloc (self->block, zlen);
        if (!nb) {
            snprintf (self->encode_err, sizeof self->encode_err, "out of memory");
            return;
        }
        self->block = nb;
        self->cap = zlen;
    }
    memcpy (self->block, z, zlen);
    self->len = zlen;
}

void
snapshot_prep_clear (snapshot_prep_t *self)
{
    free (self->block);
    memset (self, 0, sizeof *self);
}
