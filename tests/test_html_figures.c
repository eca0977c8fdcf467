/*  test_html_figures.c: the heatmap's medians (odd and even counts, per
    group), each cell's deviation, the targets that are no cell, and a
    step's fleet IOPS over its directions. */
#include "html_figures.h"
#include "testutil.h"

#include <math.h>

/* A target with read ops and p99 (0 ops: measured nothing), in group g. */
static json_t *
target (const char *name, long ops, double p99, const char *g)
{
    json_t *t = json_pack ("{s:s, s:{s:I, s:{s:f}}}", "target", name, "read", "ops",
                           (json_int_t) ops, "percentiles", "p99", p99);
    if (g)
        json_object_set_new (t, "group", json_string (g));
    return t;
}

static json_t *
cell_of (json_t *hm, int agent, int tgt)
{
    size_t i;
    json_t *c;
    json_array_foreach (json_object_get (hm, "cells"), i, c)
        if (json_integer_value (json_object_get (c, "agent")) == agent
            && json_integer_value (json_object_get (c, "target")) == tgt)
            return c;
    return NULL;
}

static double
num (json_t *o, const char *key)
{
    return json_number_value (json_object_get (o, key));
}

int
main (void)
{
    /* No groups: the step's median of 100, 200, 400, 800 is 300; the
       target that measured nothing is no cell and counts for no median. */
    json_t *agents = json_pack ("[{s:s, s:[o, o]}, {s:s, s:[o, o, o]}]",
        "agent", "a1", "targets", target ("/dev/sda", 10, 100, NULL),
        target ("/dev/sdb", 10, 200, NULL),
        "agent", "a2", "targets", target ("/dev/sda", 10, 400, NULL),
        target ("/dev/sdb", 10, 800, NULL), target ("/dev/sdc", 0, 5, NULL));
    json_t *rep = json_pack ("{s:[{s:{s:{s:I, s:f}, s:{s:I, s:f}}, s:o}]}", "steps", "fleet",
        "read", "ops", (json_int_t) 40, "iops", 1000.0, "write", "ops", (json_int_t) 0, "iops",
        250.0, "agents", agents);
    html_figures_add (rep);
    json_t *s = json_array_get (json_object_get (rep, "steps"), 0);
    json_t *hm = json_object_get (s, "heatmap");
    CHECK (strcmp (json_string_value (json_object_get (hm, "direction")), "read") == 0);
    CHECK (num (hm, "median_p99") == 300);
    CHECK (json_array_size (json_object_get (hm, "cells")) == 4);
    CHECK (cell_of (hm, 1, 2) == NULL);
    CHECK (fabs (num (cell_of (hm, 0, 0), "deviation_pct") - 100.0 * (100 - 300) / 300) < 1e-9);
    CHECK (num (cell_of (hm, 1, 1), "median_p99") == 300);
    CHECK (json_object_get (cell_of (hm, 0, 0), "group") == NULL);
    CHECK (num (s, "fleet_iops") == 1250);
    json_decref (rep);

    /* Groups: each cell against its own group's median (odd count: the
       middle one). */
    agents = json_pack ("[{s:s, s:[o, o, o, o]}]", "agent", "a1", "targets",
        target ("t1", 1, 10, "x"), target ("t2", 1, 30, "x"), target ("t3", 1, 20, "x"),
        target ("t4", 1, 1000, "y"));
    rep = json_pack ("{s:[{s:{}, s:o}]}", "steps", "fleet", "agents", agents);
    html_figures_add (rep);
    s = json_array_get (json_object_get (rep, "steps"), 0);
    hm = json_object_get (s, "heatmap");
    CHECK (num (cell_of (hm, 0, 1), "median_p99") == 20);
    CHECK (num (cell_of (hm, 0, 1), "deviation_pct") == 50);
    CHECK (num (cell_of (hm, 0, 3), "median_p99") == 1000);
    CHECK (num (cell_of (hm, 0, 3), "deviation_pct") == 0);
    CHECK (strcmp (json_string_value (json_object_get (cell_of (hm, 0, 0), "group")), "x") == 0);
    /* No fleet figures: no direction had ops, none has IOPS. */
    CHECK (strcmp (json_string_value (json_object_get (hm, "direction")), "read") == 0);
    CHECK (json_is_null (json_object_get (s, "fleet_iops")));
    json_decref (rep);

    /* A step without targets: no cell, no median. */
    rep = json_pack ("{s:[{s:[]}]}", "steps", "agents");
    html_figures_add (rep);
    hm = json_object_get (json_array_get (json_object_get (rep, "steps"), 0), "heatmap");
    CHECK (json_is_null (json_object_get (hm, "median_p99")));
    CHECK (json_array_size (json_object_get (hm, "cells")) == 0);
    json_decref (rep);

    return TEST_DONE ();
}
