/*  test_runstate.c: the run-end event (runner_on_end, controller/run/runner.c)
    heard by its subscribers, in the order they subscribed, exactly once per
    run: for a queued run cancelled, and for a run the state machine drives
    to its end (PREPARE to the agent, its REFUSED through the fleet's
    handler, the step and the run failed), wired as controller.c wires them. */
#include "ctltest.h"
#include "acks.h"
#include "cancel.h"
#include "plans.h"
#include "runner.h"
#include "steps.h"
#include "submit.h"
#include "fleet.h"
#include "snapshot_prep.h"
#include "store.h"

#define NSEEN 8

typedef struct {
    int n;
    int64_t run[NSEEN];
    char status[NSEEN][16];
    int order[NSEEN];           /* which subscriber, in call order */
} ends_t;

static ends_t ends;

static void
heard (int who, int64_t run, const char *status)
{
    if (ends.n == NSEEN)
        return;
    ends.run[ends.n] = run;
    snprintf (ends.status[ends.n], sizeof ends.status[ends.n], "%s", status);
    ends.order[ends.n++] = who;
}

static void
first (void *arg, int64_t run, const char *status)
{
    (void) arg;
    heard (1, run, status);
}

static void
second (void *arg, int64_t run, const char *status)
{
    (void) arg;
    heard (2, run, status);
}

static void
on_agent_message (void *arg, peer_t *peer, const envelope_t *env,
                  snapshot_prep_t *prep)
{
    steps_on_message (arg, peer, env, prep);
}

static const char *
run_status (ctl_t *ctl, int64_t run)
{
    static char status[32];
    sqlite3_stmt *st = store_stmt (ctl->store, "SELECT status FROM runs WHERE id = ?");
    sqlite3_bind_int64 (st, 1, run);
    snprintf (status, sizeof status, "%s", sqlite3_step (st) == SQLITE_ROW
              ? (const char *) sqlite3_column_text (st, 0) : "(none)");
    sqlite3_reset (st);
    return status;
}

static int64_t
submit (ctl_t *ctl)
{
    char err[512] = "";
    json_t *res = submit_run (ctl, "p", "a1", 0, false, true, err, sizeof err);
    CHECK_MSG (res, "%s", err);
    int64_t run = res ? json_integer_value (json_object_get (res, "run")) : 0;
    json_decref (res);
    return run;
}

int
main (void)
{
    log_init ("test_runstate", LL_ERR);
    ctltest_t t;
    ctltest_open (&t, "test_runstate");
    ctl_t *ctl = &t.ctl;
    ctl->runner = runner_new (ctl);
    CHECK (ctl->runner);
    /* The agent's REFUSED reaches the runner as fleet.c routes it to run/steps.c. */
    fleet_on (ctl->fleet, IOFLEET__ENVELOPE__BODY_REFUSED, on_agent_message, ctl);
    runner_on_end (ctl->runner, first, NULL);
    runner_on_end (ctl->runner, second, NULL);

    char err[512] = "";
    json_t *req = json_pack ("{s:s, s:s}", "name", "p", "text",
                             "[j]\nioengine=null\nrw=read\nbs=4k\nsize=1m\nruntime=1s\n"
                             "filename=/dev/null\n");
    json_t *res = plan_add (ctl, req, err, sizeof err);
    CHECK_MSG (res, "%s", err);
    json_decref (res);
    json_decref (req);
    /* plan add's text travels whole: one whose JSON string holds a NUL
       (\u0000) is refused naming the NUL's line, as the agent refuses the
       file, and nothing is stored (it used to be cut at the NUL). */
    static const char nul_text[] = "[j]\nioengine=null\nrw=read\nsize=1m\nfilename=/dev/null\n"
                                   "\0\n[k]\nrw=write\n";
    req = json_pack ("{s:s, s:s, s:o}", "name", "cut", "source", "cut.fio", "text",
                     json_stringn (nul_text, sizeof nul_text - 1));
    res = plan_add (ctl, req, err, sizeof err);
    CHECK_MSG (!res && strcmp (err, "cut.fio:6: NUL byte in the file: not a text job file") == 0,
               "got %s", err);
    CHECK (plans_exists (ctl->store, "cut") == 0);
    json_decref (res);
    json_decref (req);
    /* A plan's name is held to the rule an agent's is (names.h). */
    req = json_pack ("{s:s, s:s}", "name", "..", "text", "[j]\nrw=read\n");
    res = plan_add (ctl, req, err, sizeof err);
    CHECK_MSG (!res && strstr (err, "plan name '..' is not a name"), "got %s", err);
    json_decref (res);
    json_decref (req);
    zsock_t *a = ctltest_agent (&t);
    CHECK (a && ctltest_hello (&t, a, "a1", 100) > 0);

    /* A queued run cancelled: both hear it, first then second. */
    int64_t run1 = submit (ctl);
    CHECK (ends.n == 0);
    res = cancel_run (ctl, run1, "tester@host", err, sizeof err);
    CHECK_MSG (res, "%s", err);
    json_decref (res);
    CHECK (ends.n == 2);
    CHECK (ends.order[0] == 1 && ends.order[1] == 2);
    CHECK (ends.run[0] == run1 && ends.run[1] == run1);
    CHECK (strcmp (ends.status[0], "cancelled") == 0 && strcmp (ends.status[1], "cancelled") == 0);

    /* A run driven to its end: started (no end yet), PREPARE sent, the
       agent refuses, the step and the run fail: heard once each. */
    int64_t run2 = submit (ctl);
    steps_tick (ctl);
    store_commit (ctl->store);
    CHECK (strcmp (run_status (ctl, run2), "running") == 0);
    CHECK (ends.n == 2);
    envelope_t *e = ctltest_recv (a);
    CHECK (e && e->body_case == IOFLEET__ENVELOPE__BODY_PREPARE && e->prepare->run == (uint64_t) run2);
    if (e)
        message_free (e);
    CHECK (runner_agent_preparing (ctl, fleet_find_name (ctl->fleet, "a1")->id));
    Iofleet__Refused r = IOFLEET__REFUSED__INIT;
    r.run = (uint64_t) run2;
    r.step = 0;
    r.reason = "no such target";
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_REFUSED;
    env.refused = &r;
    CHECK (ctltest_send (a, &env) == 0);
    CHECK (ctltest_pump (&t, 1) == 1);
    CHECK (!runner_agent_preparing (ctl, fleet_find_name (ctl->fleet, "a1")->id));
    steps_tick (ctl);
    store_commit (ctl->store);
    acks_after_commit (ctl);
    CHECK_MSG (strcmp (run_status (ctl, run2), "failed") == 0, "run 2 is %s",
               run_status (ctl, run2));
    CHECK (ends.n == 4);
    CHECK (ends.order[2] == 1 && ends.order[3] == 2);
    CHECK (ends.run[2] == run2 && ends.run[3] == run2);
    CHECK (strcmp (ends.status[2], "failed") == 0 && strcmp (ends.status[3], "failed") == 0);
    steps_tick (ctl);
    CHECK (ends.n == 4);

    zsock_destroy (&a);
    runner_destroy (&ctl->runner);
    ctltest_close (&t);
    printf ("test_runstate: %d checks, %d failed\n", test_checks, test_failures);
    return test_failures ? 1 : 0;
}
