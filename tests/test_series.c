/*  test_series.c: controller/report/series.c, the one place per-interval figures
    come from.

    An interval's IOPS is its ops over the mean span of the agents that
    delivered it, each agent counted once however many targets it has.
    Before series.c was the only merge, groups.c divided by the mean span
    of the snapshot rows (one per target), so an agent with four targets
    weighed four times: a group holding the whole fleet had other
    per-interval IOPS than the fleet.  The fleet (no pick), a group of
    everything (a pick), the live series (series_add, read back by
    series_rows) and the divisor itself must agree here.
*/
#include "controller.h"
#include "series.h"
#include "testutil.h"
#include "store_fx.h"
#include "store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN 1
#define STEP 0
#define S_NS 1000000000ull

/* Agent "a" has one target and spans 1 s; agent "b" has three targets
   and spans 1.5 s.  Each target does 1000 reads of 100 us. */
static const struct {
    int64_t agent;
    const char *name;
    int ntargets;
    uint64_t span_ns;
} s_agents[] = { { 1, "a", 1, S_NS }, { 2, "b", 3, 3 * S_NS / 2 } };
#define NAGENTS 2
#define OPS 1000
/* 4000 ops over the agents' mean span of 1.25 s.  Dividing by the rows'
   mean span (1 + 3 * 1.5) / 4 = 1.375 s, as groups.c did, gives 2909. */
#define WANT_IOPS 3200.0

static uint8_t s_blob[HIST_WIRE_MAX];
static int s_blob_len;

/* The snapshot rows of interval 0, as the runner stores them. */
static void
store_snapshots (store_t *store)
{
    CHECK (store_fx_exec (store, "INSERT INTO agents (id, name, first_seen, last_seen) VALUES "
                            "(1, 'a', 0, 0), (2, 'b', 0, 0)") == SQLITE_OK);
    sqlite3_stmt *st = NULL;
    CHECK (sqlite3_prepare_v2 (store_db (store),
        "INSERT INTO snapshots (run_id, step_idx, agent_id, target, seq, t_start, t_end, "
        " read_ops, read_bytes, read_errors, read_hist, write_ops, write_bytes, write_errors) "
        "VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, 0, ?, 0, 0, 0)", -1, &st, NULL) == SQLITE_OK);
    for (int a = 0; a < NAGENTS; a++)
        for (int t = 0; t < s_agents[a].ntargets; t++) {
            sqlite3_bind_int64 (st, 1, RUN);
            sqlite3_bind_int (st, 2, STEP);
            sqlite3_bind_int64 (st, 3, s_agents[a].agent);
            sqlite3_bind_int (st, 4, t);
            sqlite3_bind_int64 (st, 5, 10 * S_NS);
            sqlite3_bind_int64 (st, 6, (sqlite3_int64) (10 * S_NS + s_agents[a].span_ns));
            sqlite3_bind_int64 (st, 7, OPS);
            sqlite3_bind_int64 (st, 8, OPS * 4096);
            sqlite3_bind_blob (st, 9, s_blob, s_blob_len, SQLITE_STATIC);
            CHECK (sqlite3_step (st) == SQLITE_DONE);
            sqlite3_reset (st);
        }
    sqlite3_finalize (st);
}

/* The live series of the same interval: one snapshot message an agent. */
static void
live_series (store_t *store)
{
    series_t *series = series_new ();
    CHECK (series != NULL);
    series_reset (series, RUN, STEP, NAGENTS);
    for (int a = 0; a < NAGENTS; a++) {
        Iofleet__DirStats dirs[4];
        Iofleet__TargetSample samples[4], *ps[4];
        for (int t = 0; t < s_agents[a].ntargets; t++) {
            iofleet__dir_stats__init (&dirs[t]);
            dirs[t].ops = OPS;
            dirs[t].bytes = OPS * 4096;
            dirs[t].histogram.data = s_blob;
            dirs[t].histogram.len = (size_t) s_blob_len;
            iofleet__target_sample__init (&samples[t]);
            samples[t].target = (uint32_t) t;
            samples[t].read = &dirs[t];
            ps[t] = &samples[t];
        }
        Iofleet__Snapshot s;
        iofleet__snapshot__init (&s);
        s.run = RUN;
        s.step = STEP;
        s.seq = 0;
        s.t_start = 10 * S_NS;
        s.t_end = 10 * S_NS + s_agents[a].span_ns;
        s.n_targets = (size_t) s_agents[a].ntargets;
        s.targets = ps;
        CHECK (series_add (series, store, a, &s) == 0);
    }
    const series_interval_t *iv = series_get (series, store, 0);
    CHECK (iv && iv->agents == NAGENTS);
    CHECK (iv && fabs (series_interval_secs (iv) - 1.25) < 1e-12);
    CHECK (iv && iv->ops[DIR_READ] == 4 * OPS && iv->hist[DIR_READ].count == 4 * OPS);
    CHECK (series_flush (series, store) == 0);
    series_destroy (&series);
    CHECK (series == NULL);
}

static int
pick_all (void *arg, const char *agent, int target)
{
    (void) arg, (void) agent, (void) target;
    return 0;
}

static int
pick_by_agent (void *arg, const char *agent, int target)
{
    (void) arg, (void) target;
    return strcmp (agent, "a") == 0 ? 0 : 1;
}

static double
iops_of (json_t *intervals, size_t k)
{
    return json_number_value (json_object_get (json_array_get (intervals, k), "iops"));
}

int
main (void)
{
    histogram_t h;
    histogram_reset (&h);
    histogram_record_n (&h, 100000, OPS);
    s_blob_len = histogram_encode (&h, s_blob, sizeof s_blob);
    CHECK (s_blob_len > 0);

    char dir[] = "/tmp/test_series.XXXXXX";
    store_t *store = store_fx_open (dir);
    if (!store)
        return 1;
    store_snapshots (store);

    /* The fleet, from the stored snapshots. */
    json_t *fleet = NULL;
    CHECK (series_scan (store, RUN, STEP, NULL, NULL, 1, SERIES_JSON_REPORT, &fleet) == 0);
    CHECK (json_array_size (fleet) == 1);
    CHECK_MSG (fabs (iops_of (fleet, 0) - WANT_IOPS) < 1e-6, "fleet iops %f", iops_of (fleet, 0));
    json_t *iv0 = json_array_get (fleet, 0);
    CHECK (json_integer_value (json_object_get (iv0, "agents")) == NAGENTS);
    CHECK (json_integer_value (json_object_get (iv0, "start_ns")) == (json_int_t) (10 * S_NS));
    CHECK (json_integer_value (json_object_get (iv0, "end_ns"))
           == (json_int_t) (10 * S_NS + 3 * S_NS / 2));
    CHECK (fabs (json_number_value (json_object_get (iv0, "bw")) - WANT_IOPS * 4096) < 1e-3);
    json_t *rd = json_object_get (iv0, "read");
    CHECK (json_integer_value (json_object_get (rd, "ops")) == 4 * OPS);
    CHECK (json_integer_value (json_object_get (rd, "histogram_count")) == 4 * OPS);
    CHECK (json_object_get (iv0, "write") != NULL);     /* reads and writes always */
    CHECK (json_object_get (iv0, "trim") == NULL);      /* trims where there were some */

    /* A group of everything is the fleet (the bug: 2909 IOPS). */
    json_t *all = NULL;
    CHECK (series_scan (store, RUN, STEP, pick_all, NULL, 1, SERIES_JSON_GROUP, &all) == 0);
    CHECK_MSG (fabs (iops_of (all, 0) - iops_of (fleet, 0)) < 1e-6, "group of all %f, fleet %f",
               iops_of (all, 0), iops_of (fleet, 0));
    CHECK (json_object_get (json_array_get (all, 0), "agents") == NULL);  /* the group form */

    /* One group an agent: each divides by its own agent's span. */
    json_t *two[2] = { NULL, NULL };
    CHECK (series_scan (store, RUN, STEP, pick_by_agent, NULL, 2, SERIES_JSON_GROUP, two) == 0);
    CHECK_MSG (fabs (iops_of (two[0], 0) - 1000.0) < 1e-6, "a %f", iops_of (two[0], 0));
    CHECK_MSG (fabs (iops_of (two[1], 0) - 2000.0) < 1e-6, "b %f", iops_of (two[1], 0));

    /* The live series of the same snapshots, read back as the report
       reads it, is the same interval. */
    live_series (store);
    json_t *rows = json_array ();
    CHECK (series_rows (store, RUN, STEP, rows) == 1);
    CHECK (json_equal (rows, fleet));

    /* No group at all (a step without results) is no work. */
    CHECK (series_scan (store, RUN, STEP, pick_all, NULL, 0, SERIES_JSON_GROUP, NULL) == 0);

    /* A read that fails is an error, never an empty series: with the
       tables they read gone (their statements cached already, so the
       step itself fails), series_scan and series_rows say -1.  Before
       store_row, series_rows said 0 rows, which the report takes for a
       run stored before 011_fleet_intervals. */
    CHECK (store_fx_exec (store, "ALTER TABLE snapshot_blocks RENAME TO snapshots_away") == SQLITE_OK);
    CHECK (store_fx_exec (store, "ALTER TABLE fleet_intervals RENAME TO fleet_intervals_away")
           == SQLITE_OK);
    json_t *gone = NULL;
    CHECK (series_scan (store, RUN, STEP, NULL, NULL, 1, SERIES_JSON_REPORT, &gone) == -1);
    json_decref (gone);
    json_t *gone_rows = json_array ();
    CHECK (series_rows (store, RUN, STEP, gone_rows) == -1);
    json_decref (gone_rows);
    /* And only the missing tables made them fail. */
    CHECK (store_fx_exec (store, "ALTER TABLE snapshots_away RENAME TO snapshot_blocks") == SQLITE_OK);
    CHECK (store_fx_exec (store, "ALTER TABLE fleet_intervals_away RENAME TO fleet_intervals")
           == SQLITE_OK);
    gone = NULL;
    CHECK (series_scan (store, RUN, STEP, NULL, NULL, 1, SERIES_JSON_REPORT, &gone) == 0);
    CHECK (json_equal (gone, fleet));
    json_decref (gone);

    json_decref (fleet);
    json_decref (all);
    json_decref (two[0]);
    json_decref (two[1]);
    json_decref (rows);
    store_fx_close (&store, dir);
    printf ("test_series: %d checks, %d failed\n", test_checks, test_failures);
    return test_failures ? 1 : 0;
}
