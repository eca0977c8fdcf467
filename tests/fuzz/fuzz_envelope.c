/*  fuzz_envelope.c: libFuzzer harness for message_unpack(), the envelope
    every frame off the agent socket goes through (controller/agents/fleet.c and
    agent/link.c call it on the raw frame).

    Beyond "no crash": a refusal names its reason; an accepted envelope of
    our version packs again and that packing is accepted too (what passed
    validation once passes it again); the histograms of snapshots and
    totals, which the controller decodes next, go through histogram_decode.
*/
#include "histogram.h"
#include "message.h"
#include "proto_unknown.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

//  Decodes every histogram of n target samples, as the runner does.
static void
decode_samples (size_t n, Iofleet__TargetSample **v)
{
    static histogram_t h;
    for (size_t i = 0; i < n; i++) {
        const Iofleet__DirStats *d[2] = { v[i]->read, v[i]->write };
        for (int k = 0; k < 2; k++) {
            if (!d[k])
                continue;
            const ProtobufCBinaryData *b[3] = { &d[k]->histogram, &d[k]->slat_histogram,
                                                &d[k]->lat_histogram };
            for (int j = 0; j < 3; j++)
                if (histogram_decode (&h, b[j]->data, b[j]->len) == 0)
                    (void) histogram_percentile (&h, 99.0);
        }
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char err[256] = "";
    int mismatch = -1;
    envelope_t *e = message_unpack (data, size, &mismatch, err, sizeof err);
    if (!e) {
        if (!err[0]) {
            fprintf (stderr, "message_unpack refused %zu bytes without a reason\n", size);
            abort ();
        }
        return 0;
    }
    (void) message_kind (e);
    if (mismatch) {
        if (e->version == IOF_PROTOCOL_VERSION || !err[0]) {
            fprintf (stderr, "version mismatch flagged wrongly (version %u, '%s')\n",
                     e->version, err);
            abort ();
        }
        message_free (e);
        return 0;
    }
    if (e->body_case == IOFLEET__ENVELOPE__BODY_SNAPSHOT)
        decode_samples (e->snapshot->n_targets, e->snapshot->targets);
    if (e->body_case == IOFLEET__ENVELOPE__BODY_DONE)
        decode_samples (e->done->n_totals, e->done->totals);

    if (!proto_has_unknown (&e->base)) {
        size_t len = 0;
        uint8_t *buf = message_pack (e, &len);
        if (!buf)
            abort ();
        int mm2 = -1;
        char err2[256] = "";
        envelope_t *e2 = message_unpack (buf, len, &mm2, err2, sizeof err2);
        if (!e2 || mm2) {
            fprintf (stderr, "an accepted %s envelope is refused once packed again: %s\n",
                     message_kind (e), err2);
            abort ();
        }
        message_free (e2);
        free (buf);
    }
    message_free (e);
    return 0;
}
