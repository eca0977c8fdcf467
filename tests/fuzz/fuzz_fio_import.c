/*  fuzz_fio_import.c: libFuzzer harness for import_check(), the checks
    `iofleet import` runs on fio's JSON output before anything is stored
    (controller/store/import_check.c: pure, no database).

    The input is parsed with jansson as the controller parses it; an
    object is wrapped as the admin request {"fio": doc, "host": "h"}.
    Beyond "no crash": a refusal names its reason; an accepted document
    gives 1..IMPORT_ENTRIES_MAX entries whose steps are all named; and the
    histograms built from json+ bins, which import.c stores encoded, decode
    back to themselves, alone and merged as the fleet's (reports skip a blob
    that does not decode).
*/
#include "import.h"
#include "snapshot_store.h"
#include "import_check.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
fail (const char *what, const char *detail)
{
    fprintf (stderr, "fio_import: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static entry_t *entries;
    static uint8_t wire[HIST_WIRE_MAX];
    static histogram_t back;
    if (!entries && !(entries = calloc (IMPORT_ENTRIES_MAX, sizeof *entries)))
        abort ();

    json_error_t jerr;
    json_t *doc = json_loadb ((const char *) data, size, 0, &jerr);
    if (!json_is_object (doc)) {
        json_decref (doc);
        return 0;
    }
    json_t *req = json_pack ("{s:o, s:s}", "fio", doc, "host", "h");
    json_t *steps = json_array ();
    if (!req || !steps)
        abort ();

    char err[512] = "";
    int n = -1;
    if (import_check (req, doc, entries, &n, steps, err, sizeof err) != 0) {
        if (!err[0])
            fail ("refused without a message", NULL);
    } else {
        static histogram_t fleet[DIR_COUNT][LK_N];
        for (int d = 0; d < DIR_COUNT; d++)
            for (int k = 0; k < LK_N; k++)
                histogram_reset (&fleet[d][k]);
        size_t nsteps = json_array_size (steps);
        if (n < 1 || n > IMPORT_ENTRIES_MAX || nsteps < 1 || nsteps > JOB_MAX_STEPS)
            fail ("accepted with an entry or step count out of range", NULL);
        for (int i = 0; i < n; i++) {
            const entry_t *e = &entries[i];
            if (e->step < 0 || (size_t) e->step >= nsteps || !e->entry || !e->agent[0]
                || !e->host[0] || !e->target[0])
                fail ("accepted entry without a step, agent, host or target", e->field);
            //  What import.c does next with each direction.
            histogram_t h[LK_N];
            json_t *pct = NULL;
            for (int d = 0; d < DIR_COUNT; d++) {
                if (!import_check_has_direction (e->entry, d))
                    continue;
                const char *dir = dir_name (d);
                if (import_check_direction (json_object_get (e->entry, dir), e, dir, h, &pct, err,
                                      sizeof err) != 0)
                    fail ("an accepted entry is refused the second time", err);
                //  import.c stores them encoded; reports decode them.
                for (int k = 0; k < LK_N; k++) {
                    (void) histogram_percentile (&h[k], 99.0);
                    int len = histogram_encode (&h[k], wire, sizeof wire);
                    if (len < 0 || histogram_decode (&back, wire, (size_t) len) != 0
                        || !histogram_equal (&back, &h[k]))
                        fail ("a histogram from json+ bins does not decode back", dir);
                    histogram_merge (&fleet[d][k], &h[k]);
                }
                json_decref (pct);
            }
        }
        //  import.c merges a step's entries into the fleet's histograms
        //  (here all steps at once: more samples, same bound).
        for (int d = 0; d < DIR_COUNT; d++)
            for (int k = 0; k < LK_N; k++) {
                int len = histogram_encode (&fleet[d][k], wire, sizeof wire);
                if (len < 0 || histogram_decode (&back, wire, (size_t) len) != 0
                    || !histogram_equal (&back, &fleet[d][k]))
                    fail ("the merged histogram of the entries does not decode back", NULL);
            }
    }
    json_decref (steps);
    json_decref (req);
    return 0;
}
