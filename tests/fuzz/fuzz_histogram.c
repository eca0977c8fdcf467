/*  fuzz_histogram.c: libFuzzer harness for histogram_decode(), which reads
    histograms off the wire (snapshots) and out of the database.

    histogram.c promises that the decoder accepts exactly what the encoder
    produces and that a decoded histogram keeps every invariant the
    percentile code relies on.  So whatever decodes must: re-encode to the
    same bytes; give percentiles within [min, max] that never fall as p
    rises; merge into an empty histogram unchanged; and, merged with
    itself (when the counts cannot wrap), encode and decode back equal.
    Any of these failing is a bug: abort().
*/
#include "histogram.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
fail (const char *what)
{
    fprintf (stderr, "histogram: %s\n", what);
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    //  34 KiB each: static, not on the stack.
    static histogram_t h, m, back;
    static uint8_t wire[HIST_WIRE_MAX];

    if (histogram_decode (&h, data, size) != 0) {
        histogram_reset (&m);
        if (!histogram_equal (&h, &m))
            fail ("a failed decode did not leave the histogram reset");
        return 0;
    }

    int n = histogram_encode (&h, wire, sizeof wire);
    if (n < 0)
        fail ("encode of a decoded histogram failed");
    if ((size_t) n != size || memcmp (wire, data, size) != 0)
        fail ("decode then encode does not give the same bytes");
    //  The documented capacity: one byte short must be refused, not overrun.
    if (n > 0 && histogram_encode (&h, wire, (size_t) n - 1) != -ENOSPC)
        fail ("encode into a buffer one byte short did not return -ENOSPC");

    static const double ps[] = { -1, 0, 1e-9, 1, 25, 50, 90, 99, 99.9, 99.99, 100, 1e9 };
    uint64_t prev = 0;
    for (size_t i = 0; i < sizeof ps / sizeof *ps; i++) {
        uint64_t v = histogram_percentile (&h, ps[i]);
        if (h.count == 0) {
            if (v != 0)
                fail ("percentile of an empty histogram is not 0");
            continue;
        }
        if (v < h.min || v > h.max)
            fail ("percentile outside [min, max]");
        if (v < prev)
            fail ("percentile falls as p rises");
        prev = v;
    }
    (void) histogram_mean (&h);
    (void) histogram_stddev (&h);

    histogram_reset (&m);
    histogram_merge (&m, &h);
    if (!histogram_equal (&m, &h))
        fail ("merge into an empty histogram changed it");

    if (h.count <= UINT64_MAX / 2) {
        histogram_merge (&m, &h);
        if (m.count != 2 * h.count || m.overflow != 2 * h.overflow || m.min != h.min
            || m.max != h.max)
            fail ("merge with itself: wrong count, min or max");
        n = histogram_encode (&m, wire, sizeof wire);
        if (n < 0)
            fail ("encode of a merged histogram failed");
        if (histogram_decode (&back, wire, (size_t) n) != 0)
            fail ("a merged histogram does not decode");
        if (!histogram_equal (&back, &m))
            fail ("a merged histogram does not decode to itself");
    }
    return 0;
}
