/*  test_step_gaps.c: a step's gaps from the rows run/ writes
    (store/step_gaps.c) to what the report says of them
    (report/gap_report.c), on a database of its own: spans of intervals
    join as they arrive in any order, a stall takes the catch-up after it,
    a silence is partial only when intervals are missing, a lost agent's
    gap runs to the step's end, and the series' intervals list who was
    stalled or above pace there.
*/
#include "testutil.h"
#include "store_fx.h"
#include "gap_report.h"
#include "runs.h"
#include "snapshot_store.h"
#include "step_gaps.h"
#include "step_missing.h"
#include "store.h"

#include <string.h>

/* The entry of agent and cause in gaps, or NULL. */
static json_t *
entry (json_t *gaps, const char *agent, const char *cause)
{
    size_t i;
    json_t *g;
    json_array_foreach (gaps, i, g)
        if (strcmp (json_string_value (json_object_get (g, "agent")), agent) == 0
            && strcmp (json_string_value (json_object_get (g, "cause")), cause) == 0)
            return g;
    return NULL;
}

static int64_t
ival (json_t *o, const char *key)
{
    return json_integer_value (json_object_get (o, key));
}

static void
test_rows (store_t *store, int64_t run)
{
    CHECK (store_begin (store) == 0);
    /* Out of order, as a spool resends: 5, 3, 4 make one span 3-5. */
    CHECK (step_gaps_note (store, run, 0, 1, "stalled", 5, 1000) == 0);
    CHECK (step_gaps_note (store, run, 0, 1, "stalled", 3, 2000) == 0);
    CHECK (step_gaps_note (store, run, 0, 1, "stalled", 4, 3000) == 0);
    CHECK (step_gaps_note (store, run, 0, 1, "stalled", 9, 500) == 0);     /* another span */
    uint64_t ns = 0;
    int64_t from = 0, to = 0;
    CHECK (step_gaps_stalled (store, run, 0, 1, &ns, &from, &to) == 2);
    CHECK (ns == 6500 && from == 3 && to == 9);
    CHECK (step_gaps_stalled (store, run, 0, 2, &ns, &from, &to) == 0);
    CHECK (step_gaps_span (store, run, 0, 2, "lost", 4, -1, 0) == 0);
    CHECK (step_gaps_clear (store, run, 0, 2, "lost") == 0);
    json_t *rows = NULL;
    CHECK (step_gaps_list (store, run, 0, &rows) == 0 && json_array_size (rows) == 2);
    json_t *r = json_array_get (rows, 0);
    CHECK (ival (r, "from") == 3 && ival (r, "to") == 5 && ival (r, "ns") == 6000);
    json_decref (rows);
    CHECK (step_gaps_tolerate (store, run) == 0);
    CHECK (step_gaps_set_tolerate (store, run, true) == 0);
    CHECK (step_gaps_tolerate (store, run) == 1);
    CHECK (step_gaps_tolerate (store, 999) == 0);
    CHECK (store_commit (store) == 0);
}

static void
test_report (store_t *store, int64_t run)
{
    CHECK (store_begin (store) == 0);
    /* Step 1: agents a (1) and b (2) deliver 0-9, but b misses 6 and 7. */
    for (uint32_t k = 0; k < 10; k++) {
        CHECK (snapshot_store_insert (store, run, 1, 1, k, 1, 0, "x", 1) == 0);
        if (k != 6 && k != 7)
            CHECK (snapshot_store_insert (store, run, 1, 2, k, 1, 0, "x", 1) == 0);
    }
    /* a stopped 2-4 (3 s), above pace 5; b silent 5-8; above pace alone
       (a device that fell behind) on b at 9. */
    for (uint32_t k = 2; k <= 4; k++)
        CHECK (step_gaps_note (store, run, 1, 1, "stalled", k, 1000000000) == 0);
    CHECK (step_gaps_note (store, run, 1, 1, "above_pace", 5, 0) == 0);
    CHECK (step_gaps_span (store, run, 1, 2, "silent", 5, 8, 4000000000) == 0);
    CHECK (step_gaps_note (store, run, 1, 2, "above_pace", 9, 0) == 0);
    CHECK (store_commit (store) == 0);

    step_missing_t *miss = step_missing_new (store, run, 1);
    CHECK (miss && step_missing_n (miss) == 10);
    CHECK (step_missing_absent (miss, "b", 5, 8) == 2);
    CHECK (step_missing_absent (miss, "a", 0, 9) == 0);
    CHECK (step_missing_absent (miss, "nobody", 0, 9) == 10);
    gap_report_t *g = gap_report_new (store, run, 1, miss);
    CHECK (g != NULL);
    json_t *a = json_pack ("{s:s}", "agent", "a"), *c = json_pack ("{s:s}", "agent", "c");
    gap_report_agent (g, a);
    gap_report_agent (g, c);
    CHECK (json_array_size (json_object_get (a, "gaps")) == 1);
    json_t *w = json_object_get (a, "measured_window");
    CHECK (ival (w, "stalled_intervals") == 3 && ival (w, "above_pace_intervals") == 1);
    CHECK (json_object_get (c, "gaps") == NULL && json_object_get (c, "measured_window") == NULL);
    json_t *s = json_object ();
    json_t *iv = json_array ();
    for (int k = 0; k < 10; k++)
        json_array_append_new (iv, json_pack ("{s:i, s:i}", "seq", k, "agents", 2));
    json_object_set_new (s, "intervals", iv);
    gap_report_end (&g, s);
    CHECK (g == NULL);
    json_t *gaps = json_object_get (s, "gaps");
    CHECK (json_array_size (gaps) == 3);
    json_t *st = entry (gaps, "a", "stalled");
    CHECK (st && ival (st, "from_interval") == 2 && ival (st, "to_interval") == 4);
    CHECK (st && json_is_true (json_object_get (st, "partial")));
    CHECK (st && json_real_value (json_object_get (st, "seconds")) == 3.0);
    CHECK (st && ival (json_object_get (st, "caught_up"), "from_interval") == 5);
    CHECK (st && strstr (json_string_value (json_object_get (st, "io")), "none issued"));
    json_t *si = entry (gaps, "b", "silent");
    CHECK (si && json_is_true (json_object_get (si, "partial")));
    CHECK_MSG (si && strstr (json_string_value (json_object_get (si, "io")), "2 of these"), "%s",
               si ? json_string_value (json_object_get (si, "io")) : "none");
    json_t *ap = entry (gaps, "b", "above_pace");
    CHECK (ap && !json_is_true (json_object_get (ap, "partial")));
    CHECK (entry (gaps, "a", "above_pace") == NULL);     /* taken by the stall */
    /* The series: a stalled in 2-4 and above pace in 5; b above pace in 9. */
    json_t *i3 = json_array_get (iv, 3), *i5 = json_array_get (iv, 5), *i9 = json_array_get (iv, 9);
    CHECK (json_array_size (json_object_get (i3, "stalled_agents")) == 1);
    CHECK (json_array_size (json_object_get (i5, "above_pace_agents")) == 1);
    CHECK (json_object_get (i5, "stalled_agents") == NULL);
    CHECK (strcmp (json_string_value (json_array_get (json_object_get (i9, "above_pace_agents"),
                                                      0)), "b") == 0);
    CHECK (json_object_get (json_array_get (iv, 0), "stalled_agents") == NULL);
    json_decref (s);
    json_decref (a);
    json_decref (c);

    /* A lost agent's gap runs to the step's end; a wall clock stepped
       back 2 s is named, signed, and is no shortfall. */
    CHECK (store_begin (store) == 0);
    CHECK (step_gaps_span (store, run, 1, 2, "lost", 3, -1, 0) == 0);
    CHECK (step_gaps_note (store, run, 1, 1, "clock", 6, (uint64_t) -2000000000LL) == 0);
    CHECK (store_commit (store) == 0);
    g = gap_report_new (store, run, 1, miss);
    s = json_object ();
    gap_report_end (&g, s);
    json_t *lo = entry (json_object_get (s, "gaps"), "b", "lost");
    CHECK (lo && ival (lo, "from_interval") == 3 && ival (lo, "to_interval") == 9);
    CHECK (lo && json_is_true (json_object_get (lo, "partial")));
    json_t *ck = entry (json_object_get (s, "gaps"), "a", "clock");
    CHECK (ck && ival (ck, "from_interval") == 6 && !json_is_true (json_object_get (ck, "partial")));
    CHECK (ck && json_real_value (json_object_get (ck, "seconds")) == -2.0);
    CHECK (ck && strstr (json_string_value (json_object_get (ck, "io")), "-2.000 s"));
    json_decref (s);
    step_missing_destroy (&miss);

    /* A read that fails is an error, not an empty list. */
    CHECK (store_fx_exec (store, "ALTER TABLE step_gaps RENAME TO away") == SQLITE_OK);
    miss = step_missing_new (store, run, 1);
    CHECK (gap_report_new (store, run, 1, miss) == NULL);
    json_t *rows = NULL;
    CHECK (step_gaps_list (store, run, 1, &rows) == -1);
    json_decref (rows);
    step_missing_destroy (&miss);
    CHECK (store_fx_exec (store, "ALTER TABLE away RENAME TO step_gaps") == SQLITE_OK);
}

int
main (void)
{
    char dir[] = "/tmp/iof-step-gaps-XXXXXX";
    store_t *store = store_fx_open (dir);
    if (!store)
        return TEST_DONE ();
    CHECK (store_fx_exec (store,
        "INSERT INTO agents (id, name, first_seen, last_seen) VALUES (1, 'a', 0, 0);"
        "INSERT INTO agents (id, name, first_seen, last_seen) VALUES (2, 'b', 0, 0);"
        "INSERT INTO plans (id, name, version, source, text, steps, created_at) "
        " VALUES (1, 'p', 1, 'p.fio', '[rr]\nrw=randread\n', '[]', 0);") == SQLITE_OK);
    int64_t run = 0;
    CHECK (store_begin (store) == 0);
    CHECK (runs_create (store, 1, 1000, 0, false, &run) == 0 && run > 0);
    CHECK (store_commit (store) == 0);
    test_rows (store, run);
    test_report (store, run);
    store_fx_close (&store, dir);
    return TEST_DONE ();
}
