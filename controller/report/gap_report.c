/*  gap_report.c: a step's gaps, see gap_report.h. */
#include "gap_report.h"
#include "log.h"
#include "step_gaps.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gap_report {
    json_t *gaps;               /* the step's entries */
    json_t *by_agent;           /* name -> [its entries] */
    json_t *marks;              /* name -> {"stalled": [[from, to]...], "above_pace": ...} */
    int64_t n;                  /* the step's intervals */
};

void
gap_report_destroy (gap_report_t **self_p)
{
    IOF_ASSERT (self_p);
    gap_report_t *g = *self_p;
    if (!g)
        return;
    json_decref (g->gaps);
    json_decref (g->by_agent);
    json_decref (g->marks);
    free (g);
    *self_p = NULL;
}

/* Remembers that agent spent from..to in kind (stalled, above_pace). */
static void
s_mark (gap_report_t *g, const char *agent, const char *kind, int64_t from, int64_t to)
{
    json_t *m = json_object_get (g->marks, agent);
    if (!m) {
        m = json_object ();
        json_object_set_new (g->marks, agent, m);
    }
    json_t *list = json_object_get (m, kind);
    if (!list) {
        list = json_array ();
        json_object_set_new (m, kind, list);
    }
    json_array_append_new (list, json_pack ("[I, I]", (json_int_t) from, (json_int_t) to));
}

/* The above_pace row of agent that begins within two intervals after
   `after`, not taken yet, or NULL. */
static json_t *
s_catch_up (json_t *rows, const char *agent, int64_t after)
{
    size_t i;
    json_t *r;
    json_array_foreach (rows, i, r) {
        int64_t from = json_integer_value (json_object_get (r, "from"));
        if (strcmp (json_string_value (json_object_get (r, "cause")), "above_pace") == 0
            && strcmp (json_string_value (json_object_get (r, "agent")), agent) == 0
            && !json_object_get (r, "taken") && from >= after && from <= after + 2)
            return r;
    }
    return NULL;
}

/* Whether agent has a stalled row overlapping from..to. */
static bool
s_stalled_within (json_t *rows, const char *agent, int64_t from, int64_t to)
{
    size_t i;
    json_t *r;
    json_array_foreach (rows, i, r)
        if (strcmp (json_string_value (json_object_get (r, "cause")), "stalled") == 0
            && strcmp (json_string_value (json_object_get (r, "agent")), agent) == 0
            && json_integer_value (json_object_get (r, "from")) <= to
            && json_integer_value (json_object_get (r, "to")) >= from)
            return true;
    return false;
}

/* The entry row makes (NULL: an above_pace row taken by a stall's). */
static json_t *
s_entry (gap_report_t *g, json_t *rows, json_t *r, const step_missing_t *miss)
{
    const char *agent = json_string_value (json_object_get (r, "agent"));
    const char *cause = json_string_value (json_object_get (r, "cause"));
    int64_t from = json_integer_value (json_object_get (r, "from"));
    int64_t to = json_integer_value (json_object_get (r, "to"));
    double secs = (double) json_integer_value (json_object_get (r, "ns")) / 1e9;
    if (to < 0)
        to = g->n - 1 < from ? from : g->n - 1;
    char io[512];
    bool partial = true;
    json_t *caught = NULL;
    if (strcmp (cause, "stalled") == 0) {
        int len = snprintf (io, sizeof io, "none issued: the agent's process was stopped for "
                            "%.1f s (SIGSTOP, a frozen cgroup), so these intervals hold no I/O "
                            "of it", secs);
        json_t *c = s_catch_up (rows, agent, to);
        if (c) {
            int64_t cf = json_integer_value (json_object_get (c, "from"));
            int64_t ct = json_integer_value (json_object_get (c, "to"));
            json_object_set_new (c, "taken", json_true ());
            caught = json_pack ("{s:I, s:I}", "from_interval", (json_int_t) cf,
                                "to_interval", (json_int_t) ct);
            s_mark (g, agent, "above_pace", cf, ct);
            char span[64];
            if (cf == ct)
                snprintf (span, sizeof span, "interval %lld", (long long) cf);
            else
                snprintf (span, sizeof span, "intervals %lld-%lld", (long long) cf, (long long) ct);
            snprintf (io + len, sizeof io - (size_t) len, "; its rate quota was then caught up "
                      "above pace in %s (fio's rate does the same): not the drive's normal "
                      "rate", span);
        }
        s_mark (g, agent, "stalled", from, to);
    } else if (strcmp (cause, "silent") == 0) {
        int64_t absent = step_missing_absent (miss, agent, from, to);
        partial = absent > 0;
        int len = snprintf (io, sizeof io, "the controller heard nothing from the agent for "
                            "%.1f s and marked it lost; ", secs);
        if (s_stalled_within (rows, agent, from, to))
            snprintf (io + len, sizeof io - (size_t) len, "the agent's process was stopped "
                      "meanwhile (see its stalled gap)");
        else if (absent == 0)
            snprintf (io + len, sizeof io - (size_t) len, "it kept measuring, and every "
                      "interval arrived late from its spool: nothing is missing");
        else
            snprintf (io + len, sizeof io - (size_t) len, "%lld of these intervals never "
                      "arrived (missing_intervals)", (long long) absent);
    } else if (strcmp (cause, "lost") == 0) {
        snprintf (io, sizeof io, "unknown: nothing arrived from interval %lld on; the agent "
                  "was not heard from again in the step", (long long) from);
    } else if (strcmp (cause, "clock") == 0) {
        partial = false;
        snprintf (io, sizeof io, "measured as asked: the agent's wall clock stepped by %+.3f s "
                  "(NTP, date -s), and the step's I/O and interval times keep to its monotonic "
                  "clock", secs);
    } else if (strcmp (cause, "restarted") == 0) {
        snprintf (io, sizeof io, "none measured from interval %lld on: the agent's process "
                  "restarted and the step's workload ended with the old one", (long long) from);
    } else {
        if (json_object_get (r, "taken"))
            return NULL;
        partial = false;
        snprintf (io, sizeof io, "issued above its rate (over 1.25x rate_iops or rate): the "
                  "quota catching up after the host or the device fell behind, as fio's rate "
                  "does; not the drive's normal rate");
        s_mark (g, agent, "above_pace", from, to);
    }
    json_t *e = json_pack ("{s:s, s:s, s:I, s:I, s:s, s:b}", "agent", agent, "cause", cause,
                           "from_interval", (json_int_t) from, "to_interval", (json_int_t) to,
                           "io", io, "partial", partial);
    if (strcmp (cause, "stalled") == 0 || strcmp (cause, "silent") == 0
        || strcmp (cause, "clock") == 0)
        json_object_set_new (e, "seconds", json_real (secs));
    if (caught)
        json_object_set_new (e, "caught_up", caught);
    return e;
}

gap_report_t *
gap_report_new (store_t *store, int64_t run, int idx, const step_missing_t *miss)
{
    json_t *rows;
    if (step_gaps_list (store, run, idx, &rows)) {
        json_decref (rows);
        return NULL;
    }
    gap_report_t *g = calloc (1, sizeof *g);
    if (!g) {
        json_decref (rows);
        log_err ("out of memory reading the gaps of run %lld", (long long) run);
        return NULL;
    }
    g->n = step_missing_n (miss);
    g->gaps = json_array ();
    g->by_agent = json_object ();
    g->marks = json_object ();
    /* Stalls first, so each takes the catch-up after it. */
    for (int pass = 0; pass < 2; pass++) {
        size_t i;
        json_t *r;
        json_array_foreach (rows, i, r) {
            bool stall = strcmp (json_string_value (json_object_get (r, "cause")), "stalled") == 0;
            if (stall != (pass == 0))
                continue;
            json_t *e = s_entry (g, rows, r, miss);
            if (e)
                json_array_append_new (g->gaps, e);
        }
    }
    size_t i;
    json_t *e;
    json_array_foreach (g->gaps, i, e) {
        const char *agent = json_string_value (json_object_get (e, "agent"));
        json_t *list = json_object_get (g->by_agent, agent);
        if (!list) {
            list = json_array ();
            json_object_set_new (g->by_agent, agent, list);
        }
        json_array_append (list, e);
    }
    json_decref (rows);
    return g;
}

/* Intervals of kind in agent's marks. */
static int64_t
s_marked (json_t *m, const char *kind)
{
    int64_t n = 0;
    size_t i;
    json_t *span;
    json_array_foreach (json_object_get (m, kind), i, span)
        n += json_integer_value (json_array_get (span, 1))
             - json_integer_value (json_array_get (span, 0)) + 1;
    return n;
}

void
gap_report_agent (gap_report_t *g, json_t *a)
{
    const char *name = json_string_value (json_object_get (a, "agent"));
    json_t *list = name ? json_object_get (g->by_agent, name) : NULL;
    if (!list)
        return;
    json_object_set (a, "gaps", list);
    json_t *m = json_object_get (g->marks, name);
    if (!m)
        return;
    int64_t stalled = s_marked (m, "stalled"), above = s_marked (m, "above_pace");
    char note[256];
    snprintf (note, sizeof note, "its figures count every I/O it issued over intervals 0-%lld; "
              "%lld of them stalled (no I/O), %lld above pace (catching up)",
              (long long) (g->n - 1), (long long) stalled, (long long) above);
    json_object_set_new (a, "measured_window", json_pack ("{s:I, s:I, s:I, s:I, s:s}",
        "from_interval", (json_int_t) 0, "to_interval", (json_int_t) (g->n - 1),
        "stalled_intervals", (json_int_t) stalled, "above_pace_intervals", (json_int_t) above,
        "note", note));
}

/* Adds agent to interval iv's list key when one of its spans of kind
   holds seq. */
static void
s_mark_interval (json_t *iv, int64_t seq, const char *agent, json_t *m, const char *kind,
                 const char *key)
{
    size_t i;
    json_t *span;
    json_array_foreach (json_object_get (m, kind), i, span)
        if (seq >= json_integer_value (json_array_get (span, 0))
            && seq <= json_integer_value (json_array_get (span, 1))) {
            json_t *list = json_object_get (iv, key);
            if (!list) {
                list = json_array ();
                json_object_set_new (iv, key, list);
            }
            json_array_append_new (list, json_string (agent));
            return;
        }
}

void
gap_report_end (gap_report_t **self_p, json_t *s)
{
    IOF_ASSERT (self_p && *self_p);
    gap_report_t *g = *self_p;
    json_object_set_new (s, "gap_rule", json_string (
        "a gap is a span of intervals in which an agent's process was stopped, it was not "
        "heard from, was lost or restarted, or its wall clock stepped (clock: nothing "
        "measured moves); stalled, lost and restarted gaps make the step "
        "partial (iofleet run --tolerate-gaps accepts a stall); the intervals of a stall and "
        "of the catch-up after it list the agent in stalled_agents and above_pace_agents"));
    json_object_set (s, "gaps", g->gaps);
    if (json_object_size (g->marks)) {
        size_t k;
        json_t *iv;
        json_array_foreach (json_object_get (s, "intervals"), k, iv) {
            int64_t seq = json_integer_value (json_object_get (iv, "seq"));
            const char *agent;
            json_t *m;
            json_object_foreach (g->marks, agent, m) {
                s_mark_interval (iv, seq, agent, m, "stalled", "stalled_agents");
                s_mark_interval (iv, seq, agent, m, "above_pace", "above_pace_agents");
            }
        }
    }
    gap_report_destroy (self_p);
}
