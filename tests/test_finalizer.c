/*  test_finalizer.c: a step's results made off the event loop
    (controller/run/finalizer.c, run.c's R_RESULTS): two agents run a step and
    say DONE; while the finalizer's thread (made slow) computes the
    results, the loop still answers a PING at once and the step is not
    over.  A controller stopped then (runner destroyed: SIGTERM) has
    stored none of them, and the step still 'running': recovery makes
    them again.  What it stores equals what the synchronous path
    (step_results_store, on the loop's connection) stores from the same
    snapshots.  A cancel then
    takes the results first and cancels what follows. */
#include "ctltest.h"
#include "histogram.h"
#include "runner.h"
#include "acks.h"
#include "cancel.h"
#include "plans.h"
#include "recover.h"
#include "steps.h"
#include "submit.h"
#include "finalizer.h"
#include "fleet.h"
#include "snapshot_prep.h"
#include "step_results.h"
#include "store.h"

#include <time.h>

#define NAGENTS   2
#define NTARGETS  2
#define NSNAPS    4

static void
on_agent_message (void *arg, peer_t *peer, const envelope_t *env,
                  snapshot_prep_t *prep)
{
    steps_on_message (arg, peer, env, prep);
}

static const char *
status_of (ctl_t *ctl, const char *sql, int64_t run)
{
    static char status[32];
    sqlite3_stmt *st;
    snprintf (status, sizeof status, "(none)");
    if (sqlite3_prepare_v2 (store_db (ctl->store), sql, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64 (st, 1, run);
        if (sqlite3_step (st) == SQLITE_ROW)
            snprintf (status, sizeof status, "%s", (const char *) sqlite3_column_text (st, 0));
        sqlite3_finalize (st);
    }
    return status;
}

/* Every column of the run's results and fleet_results, as text (blobs
   in hex), in key order: a string the caller frees. */
static char *
dump (ctl_t *ctl, int64_t run, int *nrows)
{
    static const char *sql[2] = {
        "SELECT * FROM results WHERE run_id = ? ORDER BY agent_id, target, direction",
        "SELECT * FROM fleet_results WHERE run_id = ? ORDER BY direction" };
    size_t cap = 1 << 20, len = 0;
    char *out = calloc (1, cap);
    *nrows = 0;
    for (int q = 0; q < 2 && out; q++) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2 (store_db (ctl->store), sql[q], -1, &st, NULL) != SQLITE_OK)
            continue;
        sqlite3_bind_int64 (st, 1, run);
        while (sqlite3_step (st) == SQLITE_ROW) {
            (*nrows)++;
            for (int c = 0; c < sqlite3_column_count (st); c++) {
                const unsigned char *b = sqlite3_column_blob (st, c);
                int n = sqlite3_column_bytes (st, c);
                bool blob = sqlite3_column_type (st, c) == SQLITE_BLOB;
                if (len + (size_t) n * 2 + 64 >= cap) {
                    cap = 2 * cap + (size_t) n * 2;
                    char *more = realloc (out, cap);
                    if (!more) {
                        free (out);
                        sqlite3_finalize (st);
                        return NULL;
                    }
                    out = more;
                }
                if (blob)
                    for (int i = 0; i < n; i++)
                        len += (size_t) sprintf (out + len, "%02x", b[i]);
                else
                    len += (size_t) snprintf (out + len, cap - len, "%s",
                                              sqlite3_column_type (st, c) == SQLITE_NULL ? "null"
                                              : (const char *) sqlite3_column_text (st, c));
                out[len++] = '|';
            }
            out[len++] = '\n';
        }
        sqlite3_finalize (st);
    }
    if (out)
        out[len] = '\0';
    return out;
}

static void
send_env (zsock_t *s, envelope_t *env)
{
    CHECK (ctltest_send (s, env) == 0);
}

/* Whether a message of kind comes to s within 2 s (what comes before it
   is skipped: acknowledgements). */
static bool
comes (zsock_t *s, int kind)
{
    for (int i = 0; i < 64; i++) {
        envelope_t *e = ctltest_recv (s);
        if (!e)
            return false;
        bool it = (int) e->body_case == kind;
        message_free (e);
        if (it)
            return true;
    }
    return false;
}

/* A tick of the event loop.  Returns how long it took, in ms. */
static double
tick (ctl_t *ctl)
{
    uint64_t t0 = clock_mono_ns ();
    steps_tick (ctl);
    store_commit (ctl->store);
    acks_after_commit (ctl);
    return (double) (clock_mono_ns () - t0) / 1e6;
}

static void
nap_ms (int ms)
{
    struct timespec ts = { 0, (long) ms * 1000000L };
    nanosleep (&ts, NULL);
}

/* Ticks until the runner leaves R_RESULTS (up to 20 s).  Returns the
   longest tick in ms. */
static double
tick_until_results (ctl_t *ctl)
{
    double longest = 0;
    for (int i = 0; i < 2000 && ctl->runner->phase == R_RESULTS; i++) {
        double ms = tick (ctl);
        if (ms > longest)
            longest = ms;
        nap_ms (10);
    }
    return longest;
}

/* Drives step of run on the agents a as the event loop would: PREPARE,
   READY, START, NSNAPS snapshots and DONE from each, all stored: the
   next tick ends the step. */
static void
drive_step (ctltest_t *t, zsock_t **a, int64_t run, uint32_t step)
{
    ctl_t *ctl = &t->ctl;
    /* PREPARE, READY, START. */
    tick (ctl);
    char *targets[NTARGETS] = { "/dev/a", "/dev/b" };
    for (int i = 0; i < NAGENTS; i++) {
        CHECK (comes (a[i], IOFLEET__ENVELOPE__BODY_PREPARE));
        Iofleet__Ready r = IOFLEET__READY__INIT;
        r.run = (uint64_t) run;
        r.step = step;
        r.targets = targets;
        r.n_targets = NTARGETS;
        envelope_t env = IOFLEET__ENVELOPE__INIT;
        env.body_case = IOFLEET__ENVELOPE__BODY_READY;
        env.ready = &r;
        send_env (a[i], &env);
    }
    CHECK (ctltest_pump (t, NAGENTS) == NAGENTS);
    tick (ctl);
    CHECK (ctl->runner->phase == R_RUNNING);

    /* Snapshots with histograms of their own, then DONE with the totals. */
    static uint8_t wire[2][NAGENTS][NTARGETS][HIST_WIRE_MAX];
    int nwire[2][NAGENTS][NTARGETS];
    uint64_t hops[2][NAGENTS][NTARGETS];
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < NAGENTS; i++)
            for (int k = 0; k < NTARGETS; k++) {
                static histogram_t h;
                histogram_reset (&h);
                hops[d][i][k] = 50 + (uint64_t) (d * 31 + i * 7 + k * 3);
                for (uint64_t n = 0; n < hops[d][i][k]; n++)
                    histogram_record (&h, 1000 + n * (uint64_t) (97 + d * 13 + i * 5 + k));
                nwire[d][i][k] = histogram_encode (&h, wire[d][i][k], HIST_WIRE_MAX);
                CHECK (nwire[d][i][k] > 0);
            }
    for (int i = 0; i < NAGENTS; i++) {
        for (uint32_t seq = 0; seq < NSNAPS; seq++) {
            Iofleet__DirStats ds[NTARGETS][2];
            Iofleet__TargetSample ts[NTARGETS], *tsp[NTARGETS];
            for (int k = 0; k < NTARGETS; k++) {
                for (int d = 0; d < 2; d++) {
                    ds[k][d] = (Iofleet__DirStats) IOFLEET__DIR_STATS__INIT;
                    ds[k][d].ops = hops[d][i][k];
                    ds[k][d].bytes = hops[d][i][k] * 4096;
                    ds[k][d].histogram.data = wire[d][i][k];
                    ds[k][d].histogram.len = (size_t) nwire[d][i][k];
                }
                ts[k] = (Iofleet__TargetSample) IOFLEET__TARGET_SAMPLE__INIT;
                ts[k].target = (uint32_t) k;
                ts[k].read = &ds[k][0];
                ts[k].write = &ds[k][1];
                tsp[k] = &ts[k];
            }
            Iofleet__Snapshot s = IOFLEET__SNAPSHOT__INIT;
            s.run = (uint64_t) run;
            s.step = step;
            s.seq = seq;
            s.t_start = 1000000000ull * (seq + 1);
            s.t_end = s.t_start + 1000000000ull + (uint64_t) i * 1000;
            s.targets = tsp;
            s.n_targets = NTARGETS;
            envelope_t env = IOFLEET__ENVELOPE__INIT;
            env.body_case = IOFLEET__ENVELOPE__BODY_SNAPSHOT;
            env.snapshot = &s;
            send_env (a[i], &env);
        }
        Iofleet__DirStats tot[NTARGETS][2];
        Iofleet__TargetSample tt[NTARGETS], *ttp[NTARGETS];
        for (int k = 0; k < NTARGETS; k++) {
            for (int d = 0; d < 2; d++) {
                tot[k][d] = (Iofleet__DirStats) IOFLEET__DIR_STATS__INIT;
                tot[k][d].ops = NSNAPS * hops[d][i][k];
                tot[k][d].bytes = NSNAPS * hops[d][i][k] * 4096;
            }
            tt[k] = (Iofleet__TargetSample) IOFLEET__TARGET_SAMPLE__INIT;
            tt[k].target = (uint32_t) k;
            tt[k].read = &tot[k][0];
            tt[k].write = &tot[k][1];
            ttp[k] = &tt[k];
        }
        Iofleet__Done done = IOFLEET__DONE__INIT;
        done.run = (uint64_t) run;
        done.step = step;
        done.snapshots = NSNAPS;
        done.actual_start = 1000000000ull + (uint64_t) i * 500;
        done.totals = ttp;
        done.n_totals = NTARGETS;
        envelope_t env = IOFLEET__ENVELOPE__INIT;
        env.body_case = IOFLEET__ENVELOPE__BODY_DONE;
        env.done = &done;
        send_env (a[i], &env);
    }
    CHECK (ctltest_pump (t, NAGENTS * (NSNAPS + 1)) == NAGENTS * (NSNAPS + 1));
    store_commit (ctl->store);
    acks_after_commit (ctl);

}

int
main (void)
{
    log_init ("test_finalizer", LL_ERR);
    ctltest_t t;
    ctltest_open (&t, "test_finalizer");
    ctl_t *ctl = &t.ctl;
    ctl->runner = runner_new (ctl);
    CHECK (ctl->runner);
    int kinds[] = { IOFLEET__ENVELOPE__BODY_READY, IOFLEET__ENVELOPE__BODY_REFUSED,
                    IOFLEET__ENVELOPE__BODY_SNAPSHOT, IOFLEET__ENVELOPE__BODY_DONE };
    for (int i = 0; i < 4; i++)
        fleet_on (ctl->fleet, kinds[i], on_agent_message, ctl);

    char err[512] = "";
    json_t *req = json_pack ("{s:s, s:s}", "name", "p", "text",
                             "[j]\nioengine=null\nrw=randrw\nbs=4k\nsize=1m\nruntime=1s\n"
                             "filename=/dev/a:/dev/b\n");
    json_t *res = plan_add (ctl, req, err, sizeof err);
    CHECK_MSG (res, "%s", err);
    json_decref (res);
    json_decref (req);
    zsock_t *a[NAGENTS];
    for (int i = 0; i < NAGENTS; i++) {
        char name[8];
        snprintf (name, sizeof name, "a%d", i + 1);
        a[i] = ctltest_agent (&t);
        CHECK (a[i] && ctltest_hello (&t, a[i], name, 100 + (uint64_t) i) > 0);
    }
    res = submit_run (ctl, "p", "a1,a2", 0, false, true, err, sizeof err);
    CHECK_MSG (res, "%s", err);
    int64_t run = res ? json_integer_value (json_object_get (res, "run")) : 0;
    json_decref (res);

    drive_step (&t, a, run, 0);

    /* The step ends: its results go to the thread, made slow; the loop
       goes on, and a controller stopped now stores none of them. */
    finalizer_set_delay (ctl->runner->finalizer, 60 * NS_PER_SEC);
    double ms = tick (ctl);
    CHECK_MSG (ctl->runner->phase == R_RESULTS, "phase %d", (int) ctl->runner->phase);
    CHECK_MSG (ms < 1000, "the step's end took %.0f ms on the loop", ms);
    uint64_t t0 = clock_mono_ns ();
    runner_destroy (&ctl->runner);
    CHECK_MSG (clock_mono_ns () - t0 < 5 * NS_PER_SEC, "stopping waited for the results");
    CHECK (strcmp (status_of (ctl, "SELECT count(*) FROM results WHERE run_id = ?", run), "0") == 0);
    CHECK (strcmp (status_of (ctl, "SELECT status FROM steps WHERE run_id = ? AND idx = 0", run),
                   "running") == 0);

    /* The next controller picks the step up, and makes its results. */
    ctl->runner = runner_new (ctl);
    CHECK (ctl->runner);
    finalizer_set_delay (ctl->runner->finalizer, 1500 * NS_PER_MS);
    recover_run (ctl);
    CHECK (ctl->runner->phase == R_RECOVER);
    for (int i = 0; i < 10 && ctl->runner->phase != R_RESULTS; i++)
        tick (ctl);
    CHECK_MSG (ctl->runner->phase == R_RESULTS, "phase %d", (int) ctl->runner->phase);

    /* While they are made, a PING is answered at once. */
    Iofleet__Ping ping = IOFLEET__PING__INIT;
    ping.t0 = 12345;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_PING;
    env.ping = &ping;
    send_env (a[0], &env);
    CHECK (ctltest_pump (&t, 1) == 1);
    CHECK (comes (a[0], IOFLEET__ENVELOPE__BODY_PONG));
    ms = tick (ctl);
    CHECK_MSG (ms < 500, "a tick took %.0f ms while the results were made", ms);
    CHECK (ctl->runner->phase == R_RESULTS);
    CHECK (strcmp (status_of (ctl, "SELECT status FROM runs WHERE id = ?", run), "running") == 0);

    double longest = tick_until_results (ctl);
    CHECK_MSG (longest < 1000, "the longest tick took %.0f ms", longest);
    CHECK (ctl->runner->phase == R_IDLE);
    CHECK_MSG (strcmp (status_of (ctl, "SELECT status FROM runs WHERE id = ?", run),
                       "complete") == 0, "run is %s",
               status_of (ctl, "SELECT status FROM runs WHERE id = ?", run));
    CHECK (strcmp (status_of (ctl, "SELECT status FROM steps WHERE run_id = ? AND idx = 0", run),
                   "complete") == 0);
    int n_async = 0, n_sync = 0;
    char *async = dump (ctl, run, &n_async);
    CHECK_MSG (n_async == NAGENTS * NTARGETS * 2 + 2, "%d rows", n_async);

    /* The synchronous path, from the same snapshots: the same rows. */
    sqlite3_stmt *st;
    const char *del[2] = { "DELETE FROM results WHERE run_id = ?",
                           "DELETE FROM fleet_results WHERE run_id = ?" };
    for (int q = 0; q < 2; q++)
        if (sqlite3_prepare_v2 (store_db (ctl->store), del[q], -1, &st, NULL) == SQLITE_OK) {
            sqlite3_bind_int64 (st, 1, run);
            CHECK (sqlite3_step (st) == SQLITE_DONE);
            sqlite3_finalize (st);
        }
    step_results_t *sr = step_results_store (ctl->store, run, 0);
    CHECK (sr != NULL);
    CHECK (sr && !step_results_bad (sr));
    step_results_destroy (&sr);
    CHECK (store_commit (ctl->store) == 0);
    char *sync = dump (ctl, run, &n_sync);
    CHECK (n_sync == n_async);
    CHECK (async && sync && strcmp (async, sync) == 0);
    free (async);
    free (sync);

    /* A cancel while a step's results are made: they are stored first
       (the step ends as it would have), then what follows is cancelled. */
    req = json_pack ("{s:s, s:s}", "name", "p2", "text",
                     "[j]\nioengine=null\nrw=randrw\nbs=4k\nsize=1m\nruntime=1s\n"
                     "filename=/dev/a:/dev/b\n[k]\nstonewall\nioengine=null\nrw=randrw\n"
                     "bs=4k\nsize=1m\nruntime=1s\nfilename=/dev/a:/dev/b\n");
    res = plan_add (ctl, req, err, sizeof err);
    CHECK_MSG (res, "%s", err);
    json_decref (res);
    json_decref (req);
    res = submit_run (ctl, "p2", "a1,a2", 0, false, true, err, sizeof err);
    CHECK_MSG (res, "%s", err);
    int64_t run2 = res ? json_integer_value (json_object_get (res, "run")) : 0;
    json_decref (res);
    drive_step (&t, a, run2, 0);
    finalizer_set_delay (ctl->runner->finalizer, 500 * NS_PER_MS);
    tick (ctl);
    CHECK_MSG (ctl->runner->phase == R_RESULTS, "phase %d", (int) ctl->runner->phase);
    res = cancel_run (ctl, run2, "tester@host", err, sizeof err);
    CHECK_MSG (res, "%s", err);
    json_decref (res);
    CHECK (ctl->runner->phase == R_IDLE);
    CHECK (strcmp (status_of (ctl, "SELECT status FROM runs WHERE id = ?", run2),
                   "cancelled") == 0);
    CHECK (strcmp (status_of (ctl, "SELECT status FROM steps WHERE run_id = ? AND idx = 0",
                              run2), "complete") == 0);
    CHECK (strcmp (status_of (ctl, "SELECT status FROM steps WHERE run_id = ? AND idx = 1",
                              run2), "cancelled") == 0);
    CHECK (strcmp (status_of (ctl, "SELECT count(*) FROM results WHERE run_id = ? AND step_idx = 0",
                              run2), "8") == 0);

    for (int i = 0; i < NAGENTS; i++)
        zsock_destroy (&a[i]);
    runner_destroy (&ctl->runner);
    ctltest_close (&t);
    printf ("test_finalizer: %d checks, %d failed\n", test_checks, test_failures);
    return test_failures ? 1 : 0;
}
