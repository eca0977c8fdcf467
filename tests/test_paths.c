/*  test_paths.c: large blocks against the path's ceiling (controller/
    paths.c) on the SAS-expander fixture's inventory: an HBA on PCIe 5 GT/s
    x8 (4.0 GB/s), its x4 wide port of 12 Gbit to the expander (4.8 GB/s),
    sdb on a 12 Gbit phy (1.2 GB/s) and sdc on a 6 Gbit one (0.6 GB/s).
    The same step is judged as the inventory is edited so that each element
    in turn is the narrowest: the drives, the uplink, the HBA; a drive the
    inventory gives no link sets no limit.
*/
#include "inventory.h"
#include "paths.h"
#include "testutil.h"
#include "json_check.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static json_t *s_inv;

static json_t *
inv_of (void *arg, int step, const char *agent)
{
    (void) arg;
    CHECK (step == 3 && strcmp (agent, "a1") == 0);
    return json_incref (s_inv);
}

static json_t *
drive (const char *name)
{
    size_t i;
    json_t *d;
    json_array_foreach (json_object_get (s_inv, "drives"), i, d)
        if (strcmp (json_string_value (json_object_get (d, "name")), name) == 0)
            return d;
    return NULL;
}

/* A step of a report: index 3, 128 KiB reads, agent a1 with sdb at 1.0
   GB/s and sdc at 0.5 GB/s. */
static json_t *
step (void)
{
    return json_pack ("{s:i, s:s, s:{s:s, s:i, s:i, s:i}, s:[{s:s, s:[{s:s, s:{s:s}, s:{s:f}, "
                      "s:{s:f}, s:s}, {s:s, s:{s:s}, s:{s:f}, s:{s:f}, s:s}]}]}",
                      "index", 3, "name", "seq-128k", "job", "rw", "read", "bs", 131072,
                      "bs_write", 131072, "iodepth", 32, "agents", "agent", "a1", "targets",
                      "target", "/dev/sdb", "drive", "name", "sdb", "read", "bw", 1.0e9, "write",
                      "bw", 0.0, "group", "sas", "target", "/dev/sdc", "drive", "name", "sdc",
                      "read", "bw", 0.5e9, "write", "bw", 0.0, "group", "sas");
}

static void
expect (const char *by, double ceiling, const char *limit)
{
    json_t *s = step ();
    json_t *p = paths_step (s, inv_of, NULL);
    json_t *h = json_array_get (json_object_get (p, "hosts"), 0);
    CHECK (json_array_size (json_object_get (p, "hosts")) == 1);
    CHECK_S (h, "controller", "0000:02:00.0");
    CHECK_I (h, "targets", 2);
    CHECK (fabs (json_number_value (json_object_get (h, "bw")) - 1.5e9) < 1);
    CHECK_MSG (strcmp (json_string_value (json_object_get (h, "limited_by")), by) == 0,
               "limited by %s, want %s", json_string_value (json_object_get (h, "limited_by")), by);
    CHECK_MSG (fabs (json_number_value (json_object_get (h, "ceiling_bps")) - ceiling) < 1,
               "ceiling %.0f, want %.0f", json_number_value (json_object_get (h, "ceiling_bps")),
               ceiling);
    CHECK_MSG (strcmp (json_string_value (json_object_get (h, "limit")), limit) == 0,
               "limit '%s', want '%s'", json_string_value (json_object_get (h, "limit")), limit);
    CHECK (fabs (json_number_value (json_object_get (h, "used_pct")) - 150e9 / ceiling) < 1e-9);
    CHECK (json_integer_value (json_object_get (json_object_get (p, "limited_by"), by)) == 1);
    json_t *g = json_array_get (json_object_get (p, "groups"), 0);
    CHECK_S (g, "group", "sas");
    CHECK (fabs (json_number_value (json_object_get (g, "drive_links_bps")) - 1.8e9) < 1);
    json_decref (p);
    json_decref (s);
}

int
main (int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/fixtures/sysfs";
    char sys[PATH_MAX], proc[PATH_MAX], etc[PATH_MAX];
    snprintf (sys, sizeof sys, "%s/sas-expander/sys", dir);
    snprintf (proc, sizeof proc, "%s/sas-expander/proc", dir);
    snprintf (etc, sizeof etc, "%s/sas-expander/etc", dir);
    s_inv = inventory_collect (sys, proc, etc);
    CHECK (s_inv && drive ("sdb") && drive ("sdc"));
    if (!s_inv || !drive ("sdb") || !drive ("sdc"))
        return TEST_DONE ();

    /* As collected: the drives' 1.8 GB/s is below the uplink's 4.8 and
       the HBA's 4.0. */
    expect ("drives", 1.8e9, "drive links");
    /* The wide port down to one phy: 1.2 GB/s. */
    json_object_set_new (drive ("sdb"), "uplink_width", json_integer (1));
    json_object_set_new (drive ("sdc"), "uplink_width", json_integer (1));
    expect ("uplink", 1.2e9, "SAS 12 Gbit x1");
    /* The HBA down to x1 at 5 GT/s, 8b/10b: 0.5 GB/s. */
    json_t *c = json_array_get (json_object_get (s_inv, "controllers"), 0);
    json_object_set_new (c, "link_width", json_integer (1));
    expect ("hba", 0.5e9, "PCIe 5 GT/s x1");
    /* A tie between the HBA and the rest goes to the drives' side. */
    json_object_set_new (c, "link_width", json_integer (8));
    json_object_set_new (drive ("sdb"), "uplink_width", json_integer (4));
    json_object_set_new (drive ("sdc"), "uplink_width", json_integer (4));
    json_object_set_new (drive ("sdb"), "link_speed", json_string ("22.5 Gbit"));
    json_object_set_new (drive ("sdb"), "link_width", json_integer (2));   /* 4.8 GB/s */
    json_object_set_new (drive ("sdc"), "link_speed", json_string ("unknown"));
    /* sdc sets no limit; sdb's 4.8 GB/s = the uplink's 4.8 > the HBA's 4.0. */
    json_t *s = step ();
    json_t *p = paths_step (s, inv_of, NULL);
    json_t *h = json_array_get (json_object_get (p, "hosts"), 0);
    CHECK_S (h, "limited_by", "hba");
    CHECK (fabs (json_number_value (json_object_get (h, "ceiling_bps")) - 4.0e9) < 1);
    CHECK (json_is_null (json_object_get (json_array_get (json_object_get (p, "groups"), 0),
                                          "drive_links_bps")));
    json_decref (p);
    json_decref (s);
    json_decref (s_inv);
    return TEST_DONE ();
}
