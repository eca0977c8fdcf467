/*  test_message_fuzz.c: unit tests for common/message.c, against bytes
    no agent or controller would send.

    Every proper prefix of a snapshot, a prepare and a hello; then random
    buffers and mutations of a valid message of every kind.  None may
    crash, leak (ASan) or yield an envelope that breaks a bound (checked
    by message_fx.c's bounds_broken(), apart from the code under test), and
    what is accepted re-packs to the same bytes.  A fixed seed: every run
    tests the same buffers (the libFuzzer harness, tests/fuzz, explores).

    Loops over many cases count their failures and CHECK once, naming the
    first bad case, so the check count stays a count of properties.
*/
#include "message_fx.h"
#include "proto_unknown.h"
#include "testutil.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//  splitmix64: fixed seed, so every run tests the same buffers.
static unsigned long long rng_state = 0x6d657373616765ull;

static uint64_t
rng_next (void)
{
    return test_splitmix64 (&rng_state);
}

//  Uniform in [0, n), n > 0.
static size_t
rng_below (size_t n)
{
    return (size_t) (rng_next () % n);
}

//  ---------------------------------------------------------------------
//  Truncation and fuzzing.

//  Whatever message_unpack returns must keep every bound (or be a flagged
//  version mismatch), re-pack, and unpack again to the same bytes.
//  Returns NULL or what is wrong; frees e.

static const char *
judge (envelope_t *e, int mm)
{
    const char *bad = NULL;
    if (mm) {
        if (e->version == IOF_PROTOCOL_VERSION)
            bad = "mismatch flagged for our own version";
    } else if ((bad = bounds_broken (e)) == NULL && !proto_has_unknown (&e->base)) {
        size_t len = 0, len2 = 0;
        uint8_t *b1 = message_pack (e, &len);
        int mm2 = -1;
        char err[256];
        envelope_t *e2 = b1 ? unpack_exact (b1, len, &mm2, err, sizeof err) : NULL;
        if (!e2 || mm2)
            bad = "accepted envelope refused after re-pack";
        else {
            uint8_t *b2 = message_pack (e2, &len2);
            if (!b2 || len2 != len || memcmp (b1, b2, len) != 0)
                bad = "re-pack is not stable";
            free (b2);
        }
        message_free (e2);
        free (b1);
    }
    message_free (e);
    return bad;
}

typedef struct {
    uint8_t *buf;
    size_t len;
} blob_t;

static blob_t corpus[NKINDS + 1];
static size_t ncorpus;

static void
corpus_build (void)
{
    for (size_t k = 0; k < NKINDS; k++) {
        kinds[k].build ();
        corpus[ncorpus].buf = pack_fx (&corpus[ncorpus].len);
        ncorpus++;
    }
    //  And a hello at the label limit, so mutations can push it over.
    fx_hello ();
    fx.hello.n_labels = MSG_LABELS_MAX;
    corpus[ncorpus].buf = pack_fx (&corpus[ncorpus].len);
    ncorpus++;
}

static void
corpus_free (void)
{
    for (size_t i = 0; i < ncorpus; i++)
        free (corpus[i].buf);
}

static void
test_truncation (void)
{
    //  snapshot, prepare and hello: every proper prefix.
    const int which[] = { 9, 5, 0 };
    for (size_t w = 0; w < 3; w++) {
        const blob_t *b = &corpus[which[w]];
        int bad = 0, accepted = 0;
        for (size_t n = 0; n < b->len; n++) {
            int mm = -1;
            char err[256] = "";
            envelope_t *e = unpack_exact (b->buf, n, &mm, err, sizeof err);
            if (!e) {
                if (!err[0] && !bad++)
                    fprintf (stderr, "prefix %zu of %s: NULL without a reason\n", n,
                             kinds[which[w]].kind);
                continue;
            }
            accepted++;
            const char *why = judge (e, mm);
            if (why && !bad++)
                fprintf (stderr, "prefix %zu of %s: %s\n", n, kinds[which[w]].kind, why);
        }
        CHECK_MSG (bad == 0, "%s: %d bad prefixes", kinds[which[w]].kind, bad);
        //  The body is one length-delimited field: no proper prefix holds it.
        CHECK_MSG (accepted == 0, "%s: %d prefixes accepted", kinds[which[w]].kind, accepted);
    }
}

#define NRANDOM     50000
#define NMUTATE     50000

static void
test_fuzz_random (void)
{
    uint8_t tmp[256];
    int bad = 0, returned = 0;
    for (int i = 0; i < NRANDOM; i++) {
        size_t len = rng_below (i % 4 == 0 ? 256 : 48);
        for (size_t k = 0; k < len; k++)
            tmp[k] = (uint8_t) rng_next ();
        //  Half start like a real envelope (version 1, then a body tag),
        //  so they get past the first byte.
        if (i % 2 && len >= 3) {
            tmp[0] = 0x08;
            tmp[1] = IOF_PROTOCOL_VERSION;
            tmp[2] = (uint8_t) (((10 + rng_below (14)) << 3) | 2);
        }
        int mm = -1;
        char err[256] = "";
        envelope_t *e = unpack_exact (tmp, len, &mm, err, sizeof err);
        if (!e)
            continue;
        returned++;
        const char *why = judge (e, mm);
        if (why && !bad++)
            fprintf (stderr, "random buffer %d (%zu bytes): %s\n", i, len, why);
    }
    CHECK_MSG (bad == 0, "%d random buffers returned a bad envelope", bad);
    fprintf (stderr, "fuzz: %d of %d random buffers returned an envelope\n", returned,
             NRANDOM);
}

static void
test_fuzz_mutate (void)
{
    size_t cap = 0;
    for (size_t i = 0; i < ncorpus; i++)
        if (corpus[i].len > cap)
            cap = corpus[i].len;
    cap += 64;
    uint8_t *tmp = malloc (cap);
    static const uint8_t interesting[] = { 0x00, 0x01, 0x7f, 0x80, 0xff, 0x08, 0x0a, 0x12 };
    int bad = 0, returned = 0, valid = 0;
    for (int i = 0; i < NMUTATE; i++) {
        const blob_t *b = &corpus[rng_below (ncorpus)];
        size_t len = b->len;
        memcpy (tmp, b->buf, len);
        int nops = 1 + (int) rng_below (4);
        for (int op = 0; op < nops; op++) {
            switch (rng_below (4)) {
            case 0:                 // flip a bit
                if (len)
                    tmp[rng_below (len)] ^= (uint8_t) (1u << rng_below (8));
                break;
            case 1: {               // insert a byte
                if (len >= cap)
                    break;
                size_t at = rng_below (len + 1);
                memmove (tmp + at + 1, tmp + at, len - at);
                tmp[at] = (uint8_t) rng_next ();
                len++;
                break;
            }
            case 2: {               // delete a byte
                if (!len)
                    break;
                size_t at = rng_below (len);
                memmove (tmp + at, tmp + at + 1, len - at - 1);
                len--;
                break;
            }
            default:                // overwrite with an edge value
                if (len)
                    tmp[rng_below (len)] = interesting[rng_below (sizeof interesting)];
                break;
            }
        }
        int mm = -1;
        char err[256] = "";
        envelope_t *e = unpack_exact (tmp, len, &mm, err, sizeof err);
        if (!e)
            continue;
        returned++;
        valid += !mm;
        const char *why = judge (e, mm);
        if (why && !bad++)
            fprintf (stderr, "mutation %d (%zu bytes): %s\n", i, len, why);
    }
    free (tmp);
    CHECK_MSG (bad == 0, "%d mutations returned a bad envelope", bad);
    //  The mutator is not so destructive that nothing survives.
    CHECK_MSG (valid > NMUTATE / 100, "only %d mutations accepted", valid);
    fprintf (stderr, "fuzz: %d of %d mutations returned an envelope (%d valid)\n", returned,
             NMUTATE, valid);
}

int
main (void)
{
    hist_setup ();          // test_message checks its encodings
    corpus_build ();
    test_truncation ();
    test_fuzz_random ();
    test_fuzz_mutate ();
    corpus_free ();
    return TEST_DONE ();
}
