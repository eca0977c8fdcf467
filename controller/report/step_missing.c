/*  step_missing.c: which intervals each agent of a step is missing, see
    step_missing.h.
*/
#include "controller.h"
#include "log.h"
#include "step_missing.h"
#include "store.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t *seq;               /* ascending */
    size_t n, cap;
} seqs_t;

struct step_missing {
    json_t *index;              /* agent -> its index in seqs */
    seqs_t *seqs;
    size_t nagents, cap;
    int64_t n;                  /* the step's intervals: one past the highest seq */
    json_t *incomplete, *refused;
};

void
step_missing_destroy (step_missing_t **self_p)
{
    IOF_ASSERT (self_p);
    step_missing_t *m = *self_p;
    if (!m)
        return;
    for (size_t i = 0; i < m->nagents; i++)
        free (m->seqs[i].seq);
    free (m->seqs);
    json_decref (m->index);
    json_decref (m->incomplete);
    json_decref (m->refused);
    free (m);
    *self_p = NULL;
}

/* Adds seq to the intervals agent delivered (rows come by agent, then
   seq).  Returns 0, or -1 when out of memory. */
static int
s_add (step_missing_t *m, const char *agent, int64_t seq)
{
    json_t *at = json_object_get (m->index, agent);
    if (!at) {
        seqs_t *seqs = array_room (m->seqs, &m->cap, m->nagents, sizeof *seqs, 64);
        if (!seqs)
            return -1;
        m->seqs = seqs;
        m->seqs[m->nagents] = (seqs_t) { 0 };
        at = json_integer ((json_int_t) m->nagents++);
        json_object_set_new (m->index, agent, at);
    }
    seqs_t *s = &m->seqs[json_integer_value (at)];
    int64_t *q = array_room (s->seq, &s->cap, s->n, sizeof *q, 64);
    if (!q)
        return -1;
    s->seq = q;
    s->seq[s->n++] = seq;
    return 0;
}

step_missing_t *
step_missing_new (store_t *store, int64_t run, int step)
{
    step_missing_t *m = calloc (1, sizeof *m);
    if (!m) {
        log_err ("out of memory reading the intervals of run %lld", (long long) run);
        return NULL;
    }
    sqlite3_stmt *st = store_stmt (store,
        "SELECT a.name, s.seq FROM snapshot_blocks s JOIN agents a ON a.id = s.agent_id "
        "WHERE s.run_id = ? AND s.step_idx = ? ORDER BY s.agent_id, s.seq");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    m->index = json_object ();
    int rc;
    while ((rc = store_row (store, st, "read the agents' intervals")) == 1) {
        int64_t seq = sqlite3_column_int64 (st, 1);
        if (s_add (m, (const char *) sqlite3_column_text (st, 0), seq)) {
            log_err ("out of memory reading the intervals of run %lld", (long long) run);
            rc = -1;
            break;
        }
        m->n = seq + 1 > m->n ? seq + 1 : m->n;
    }
    sqlite3_reset (st);
    if (rc < 0) {
        step_missing_destroy (&m);
        return NULL;
    }
    m->incomplete = json_array ();
    m->refused = json_array ();
    return m;
}

void
step_missing_agent (step_missing_t *m, json_t *a)
{
    const char *name = json_string_value (json_object_get (a, "agent"));
    const char *status = json_string_value (json_object_get (a, "status"));
    json_t *at = name ? json_object_get (m->index, name) : NULL;
    const seqs_t none = { 0 };
    const seqs_t *got = at ? &m->seqs[json_integer_value (at)] : &none;
    if (status && strcmp (status, "refused") == 0 && got->n == 0) {
        /* It never took part: left out with its reason, not missing
           anything of what the figures hold. */
        json_object_set_new (a, "intervals_expected", json_integer (0));
        json_object_set_new (a, "missing_intervals", json_array ());
        json_object_set_new (a, "incomplete", json_false ());
        json_array_append_new (m->refused, json_pack ("{s:s?, s:O}", "agent", name,
                                                      "reason", json_object_get (a, "message")));
        return;
    }
    json_t *missing = json_array ();
    size_t i = 0;
    for (int64_t k = 0; k < m->n && json_array_size (missing) < 100000; k++) {
        while (i < got->n && got->seq[i] < k)
            i++;
        if (i == got->n || got->seq[i] != k)
            json_array_append_new (missing, json_integer (k));
    }
    bool lost = status && (strcmp (status, "lost") == 0 || strcmp (status, "failed") == 0);
    bool inc = json_array_size (missing) > 0 || (lost && got->n > 0);
    json_object_set_new (a, "intervals_expected", json_integer (m->n));
    json_object_set_new (a, "missing_intervals", missing);
    json_object_set_new (a, "incomplete", json_boolean (inc));
    if (inc && got->n > 0)
        json_array_append_new (m->incomplete, json_string (name));
}

void
step_missing_end (step_missing_t **self_p, json_t *s)
{
    IOF_ASSERT (self_p && *self_p);
    step_missing_t *m = *self_p;
    json_object_set_new (s, "incomplete_rule", json_string (
        "figures hold every interval that reached the controller; agents with missing "
        "intervals are included and listed in incomplete_agents"));
    json_object_set (s, "incomplete_agents", m->incomplete);
    json_object_set (s, "refused_agents", m->refused);
    step_missing_destroy (self_p);
}

int64_t
step_missing_n (const step_missing_t *m)
{
    return m->n;
}

int64_t
step_missing_absent (const step_missing_t *m, const char *agent, int64_t from, int64_t to)
{
    if (to < from)
        return 0;
    json_t *at = json_object_get (m->index, agent);
    if (!at)
        return to - from + 1;
    const seqs_t *got = &m->seqs[json_integer_value (at)];
    int64_t have = 0;
    for (size_t i = 0; i < got->n; i++)
        have += got->seq[i] >= from && got->seq[i] <= to;
    return to - from + 1 - have;
}
