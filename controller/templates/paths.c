/*  paths.c: large blocks against the path's ceiling, see paths.h. */
#include "paths.h"
#include "controller.h"
#include "link_rate.h"
#define JSON_GET_SHORT     /* num () and str () */
#include "json_get.h"
#include "inventories.h"
#include "store.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The entry of inv's list whose key is value, or NULL. */
static json_t *
find_in (json_t *inv, const char *list, const char *key, const char *value)
{
    return json_get_find (json_object_get (inv, list), key, value);
}

static double
link_of (json_t *o, const char *speed, const char *width)
{
    json_t *w = json_object_get (o, width);
    return link_rate_bps (str (o, speed), json_is_integer (w) ? (long) json_integer_value (w) : 1);
}

static const char *
link_named (json_t *o, const char *speed, const char *width, char *out, size_t cap)
{
    json_t *w = json_object_get (o, width);
    return link_rate_name (str (o, speed), json_is_integer (w) ? (long) json_integer_value (w) : 1,
                           out, cap);
}

static json_t *
num_or_null (double v)
{
    return isfinite (v) ? json_real (v) : json_null ();
}

/* A host's path (one agent, one controller) being added up. */
typedef struct {
    json_t *row;
    json_t *uplinks;            /* uplink port -> {"bps", "drives_bps", "name"} */
    double direct_bps;          /* drives without an uplink, known links */
    double bw;
    int targets;
} host_t;

/* Adds target tj (inventory drive d, or NULL) to h. */
static void
host_add (host_t *h, json_t *tj, json_t *d)
{
    double bw = num (json_object_get (tj, "read"), "bw");
    double wbw = num (json_object_get (tj, "write"), "bw");
    h->bw += (isfinite (bw) ? bw : 0) + (isfinite (wbw) ? wbw : 0);
    h->targets++;
    double dl = d ? link_of (d, "link_speed", "link_width") : NAN;
    if (!isfinite (dl))
        dl = INFINITY;                  /* sets no limit */
    const char *up = d ? str (d, "uplink") : "";
    if (!up[0]) {
        h->direct_bps += dl;
        return;
    }
    json_t *u = json_object_get (h->uplinks, up);
    if (!u) {
        char name[64];
        double ub = link_of (d, "uplink_speed", "uplink_width");
        u = json_pack ("{s:f, s:f, s:s}", "bps", isfinite (ub) ? ub : -1.0, "drives_bps", 0.0,
                       "name", link_named (d, "uplink_speed", "uplink_width", name, sizeof name));
        json_object_set_new (h->uplinks, up, u);
    }
    json_object_set_new (u, "drives_bps", json_real (num (u, "drives_bps") + dl));
}

/* Works out h's ceiling into its row; counts its limit in limits. */
static void
host_done (host_t *h, json_t *ctrl, json_t *limits)
{
    double below = h->direct_bps;
    const char *uplimit = NULL;
    double upratio = INFINITY;
    const char *k;
    json_t *u;
    json_object_foreach (h->uplinks, k, u) {
        double ub = num (u, "bps"), db = num (u, "drives_bps");
        if (ub > 0 && ub < db) {
            below += ub;
            if (ub / db < upratio)
                upratio = ub / db, uplimit = str (u, "name");
        } else
            below += db;
    }
    char name[64];
    double hba = ctrl ? link_of (ctrl, "link_speed", "link_width") : NAN;
    double ceiling = below;
    const char *by = uplimit ? "uplink" : "drives", *limit = uplimit ? uplimit : "drive links";
    if (isfinite (hba) && hba < below) {
        ceiling = hba;
        by = "hba";
        limit = link_named (ctrl, "link_speed", "link_width", name, sizeof name);
    }
    if (!isfinite (ceiling))
        by = "unknown", limit = "no link speed in the inventory";
    json_object_set_new (h->row, "targets", json_integer (h->targets));
    json_object_set_new (h->row, "bw", json_real (h->bw));
    json_object_set_new (h->row, "hba_bps", num_or_null (hba));
    json_object_set_new (h->row, "ceiling_bps", num_or_null (ceiling));
    json_object_set_new (h->row, "limited_by", json_string (by));
    json_object_set_new (h->row, "limit", json_string (limit));
    json_object_set_new (h->row, "used_pct", num_or_null (100 * h->bw / ceiling));
    json_object_set_new (limits, by, json_integer ((json_int_t) num (limits, by) + 1));
}

json_t *
paths_step (json_t *s, paths_inv_fn *inv_of, void *arg)
{
    json_t *job = json_object_get (s, "job");
    json_t *out = json_pack ("{s:O, s:O, s:O, s:O}", "step", json_object_get (s, "name"), "rw",
                             json_object_get (job, "rw"), "bs", json_object_get (job, "bs"),
                             "iodepth", json_object_get (job, "iodepth"));
    json_t *groups = json_object (), *hosts = json_array ();
    json_t *limits = json_pack ("{s:i, s:i, s:i, s:i}", "hba", 0, "uplink", 0, "drives", 0,
                                "unknown", 0);
    size_t ai, ti;
    json_t *aj, *tj;
    json_array_foreach (json_object_get (s, "agents"), ai, aj) {
        const char *agent = str (aj, "agent");
        json_t *inv = inv_of (arg, (int) num (s, "index"), agent);
        json_t *by_ctrl = json_object ();       /* controller -> index in hs */
        host_t hs[64];
        int nh = 0;
        json_array_foreach (json_object_get (aj, "targets"), ti, tj) {
            json_t *td = json_object_get (tj, "drive");
            json_t *d = find_in (inv, "drives", "name", str (td, "name"));
            const char *ctl = d ? str (d, "controller") : "";
            json_t *at = json_object_get (by_ctrl, ctl);
            host_t *h;
            if (at)
                h = &hs[json_integer_value (at)];
            else {
                if (nh == (int) (sizeof hs / sizeof hs[0]))
                    continue;           /* more controllers than that: left out */
                h = &hs[nh];
                memset (h, 0, sizeof *h);
                json_t *c = find_in (inv, "controllers", "pci_address", ctl);
                h->row = json_pack ("{s:s, s:s, s:s}", "agent", agent, "controller", ctl,
                                    "device", c ? str (c, "device") : "");
                h->uplinks = json_object ();
                json_object_set_new (by_ctrl, ctl, json_integer (nh++));
            }
            host_add (h, tj, d);
            /* The group's bandwidth against its drives' own links. */
            const char *gv = str (tj, "group");
            json_t *g = json_object_get (groups, gv[0] ? gv : "all");
            if (!g) {
                g = json_pack ("{s:s, s:i, s:f, s:f, s:b}", "group", gv[0] ? gv : "all",
                               "targets", 0, "bw", 0.0, "drive_links_bps", 0.0, "known", 1);
                json_object_set_new (groups, gv[0] ? gv : "all", g);
            }
            double bw = num (json_object_get (tj, "read"), "bw")
                        + num (json_object_get (tj, "write"), "bw");
            double dl = d ? link_of (d, "link_speed", "link_width") : NAN;
            json_object_set_new (g, "targets", json_integer ((json_int_t) num (g, "targets") + 1));
            json_object_set_new (g, "bw", json_real (num (g, "bw") + (isfinite (bw) ? bw : 0)));
            json_object_set_new (g, "drive_links_bps", json_real (num (g, "drive_links_bps")
                                                                + (isfinite (dl) ? dl : 0)));
            if (!isfinite (dl))
                json_object_set_new (g, "known", json_false ());
        }
        for (int i = 0; i < nh; i++) {
            host_done (&hs[i], find_in (inv, "controllers", "pci_address",
                                        str (hs[i].row, "controller")), limits);
            json_array_append_new (hosts, hs[i].row);
            json_decref (hs[i].uplinks);
        }
        json_decref (by_ctrl);
        json_decref (inv);
    }
    json_t *glist = json_array ();
    const char *k;
    json_t *g;
    json_object_foreach (groups, k, g) {
        bool known = json_is_true (json_object_get (g, "known"));
        double links = num (g, "drive_links_bps");
        json_object_del (g, "known");
        if (!known)
            json_object_set_new (g, "drive_links_bps", json_null ());
        json_object_set_new (g, "used_pct", num_or_null (known && links > 0
                                                         ? 100 * num (g, "bw") / links : NAN));
        json_array_append (glist, g);
    }
    json_decref (groups);
    json_object_set_new (out, "groups", glist);
    json_object_set_new (out, "hosts", hosts);
    json_object_set_new (out, "limited_by", limits);
    return out;
}

/* paths_inv_fn over the store. */
typedef struct {
    store_t *store;
    json_t *cache;
    int64_t run;
    bool failed;
} store_inv_t;

static json_t *
store_inv (void *arg, int step, const char *agent)
{
    store_inv_t *si = arg;
    return inventories_at_step (si->store, si->cache, si->run, step, agent, &si->failed);
}

json_t *
paths_json (store_t *store, int64_t run, json_t *rep)
{
    json_t *list = json_array ();
    store_inv_t si = { store, json_object (), run, false };
    size_t i;
    json_t *s;
    json_array_foreach (json_object_get (rep, "steps"), i, s) {
        json_t *job = json_object_get (s, "job");
        if (num (job, "bs") < PATHS_LARGE_BS && !(num (job, "bs_write") >= PATHS_LARGE_BS))
            continue;
        json_array_append_new (list, paths_step (s, store_inv, &si));
    }
    json_decref (si.cache);
    if (si.failed) {
        json_decref (list);
        return NULL;
    }
    return list;
}
