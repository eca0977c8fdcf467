/*  retention.c: the controller's retention policy (--retain-intervals AGE,
    --retain-interval-runs N), applied on its own: when no run is queued or
    running, the runs past the policy lose their per-interval snapshots a
    bounded batch per loop tick (gc.c's rule and batch), so the loop keeps
    answering.  The pages freed go back to SQLite's free list, where the
    next run's snapshots reuse them: the file stops growing instead of
    shrinking (iofleet gc's VACUUM gives space back to the file system).
    Results, merged histograms and the fleet's per-second series stay.
*/
#include "controller.h"
#include "log.h"
#include "util.h"
#include "gc.h"
#include "retention.h"
#include "idle.h"
#include "store.h"

#include <stdlib.h>

struct retention {
    int64_t keep_s;             /* -1: no age limit */
    int64_t keep_runs;          /* -1: no run-count limit */
    idle_turn_t turn;
    int64_t run;                /* the run being dropped, 0 none */
    int64_t run_rows, run_bytes;
    /* Since the controller started. */
    int64_t runs, rows, bytes;
    int64_t last_at;            /* real ns of the last run done, 0 none */
};

retention_t *
retention_new (int64_t keep_s, int64_t keep_runs)
{
    if (keep_s < 0 && keep_runs < 0)
        return NULL;
    retention_t *self = calloc (1, sizeof *self);
    if (self) {
        self->keep_s = keep_s;
        self->keep_runs = keep_runs;
    }
    return self;
}

void
retention_destroy (retention_t **self_p)
{
    free (*self_p);
    *self_p = NULL;
}

void
retention_soon (retention_t *self)
{
    if (self)
        idle_soon (&self->turn);
}

static void
policy_text (const retention_t *self, char *buf, size_t len)
{
    char age[64] = "", runs[64] = "";
    if (self->keep_s >= 0)
        snprintf (age, sizeof age, "%lld s after a run ends", (long long) self->keep_s);
    if (self->keep_runs >= 0)
        snprintf (runs, sizeof runs, "for the newest %lld run(s)", (long long) self->keep_runs);
    snprintf (buf, len, "%s%s%s", age, age[0] && runs[0] ? " and " : "", runs);
}

void
retention_tick (ctl_t *ctl)
{
    retention_t *self = ctl->retention;
    if (!self || !idle_turn (ctl->store, &self->turn, self->run != 0))
        return;                 /* never beside a run's writes */
    if (!self->run) {
        int marked = gc_expire (ctl, self->keep_s, self->keep_runs);
        if (marked > 0) {
            char policy[160];
            policy_text (self, policy, sizeof policy);
            log_info ("retention: %d run(s) past the policy (per-interval data kept %s) lose "
                      "their per-interval snapshots", marked, policy);
        }
    }
    int64_t page_size, pages, run;
    store_size (ctl->store, &pages, &page_size);
    int64_t free0 = store_free_pages (ctl->store);
    int64_t rows = gc_drop (ctl, &run);
    if (rows < 0) {
        self->run = 0;          /* logged; looked at again at the next check */
        return;
    }
    int64_t freed = (store_free_pages (ctl->store) - free0) * page_size;
    self->rows += rows;
    self->bytes += freed;
    if (run && run == self->run) {
        self->run_rows += rows;
        self->run_bytes += freed;
        return;
    }
    if (self->run) {            /* the last batch was that run's last */
        self->runs++;
        self->last_at = (int64_t) clock_real_ns ();
        log_info ("retention: run %lld's per-interval snapshots dropped: %lld rows, %.1f MiB "
                  "freed for new runs; its results and histograms stay", (long long) self->run,
                  (long long) self->run_rows, (double) self->run_bytes / 1048576.0);
    }
    self->run = run;
    self->run_rows = rows;
    self->run_bytes = freed;
}

json_t *
retention_json (const retention_t *self)
{
    if (!self)
        return json_pack ("{s:b}", "policy", false);
    char kept[160];
    policy_text (self, kept, sizeof kept);
    return json_pack ("{s:b, s:s, s:o, s:o, s:I, s:I, s:I, s:o, s:o}", "policy", true,
        "kept", kept,
        "keep_intervals_s", self->keep_s >= 0 ? json_integer (self->keep_s) : json_null (),
        "keep_runs", self->keep_runs >= 0 ? json_integer (self->keep_runs) : json_null (),
        "runs", (json_int_t) self->runs, "snapshot_rows", (json_int_t) self->rows,
        "bytes_freed", (json_int_t) self->bytes,
        "last_at", self->last_at ? json_integer (self->last_at) : json_null (),
        "dropping_run", self->run ? json_integer (self->run) : json_null ());
}
