/*  test_selector.c: drive selectors against the fixture inventories. */
#include "inventory.h"
#include "selector.h"
#include "testutil.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *s_dir;

/* CHECK_STR_CONTAINS for an array (its NULL test would not compile). */
#define CHECK_ERRMSG(err, needle) \
    CHECK_MSG (strstr ((err), (needle)) != NULL, "'%s' does not contain '%s'", (err), (needle))

static json_t *
fixture (const char *name)
{
    char sys[PATH_MAX], proc[PATH_MAX], etc[PATH_MAX];
    snprintf (sys, sizeof sys, "%s/%s/sys", s_dir, name);
    snprintf (proc, sizeof proc, "%s/%s/proc", s_dir, name);
    snprintf (etc, sizeof etc, "%s/%s/etc", s_dir, name);
    return inventory_collect (sys, proc, etc);
}

/* Expands sel; returns the count and the paths joined by ','. */
static int
expand (json_t *inv, const char *sel, const target_policy_t *pol, char *joined, size_t cap,
        char *err, size_t errlen)
{
    char *out[16];
    int n = 0;
    err[0] = '\0';
    int rc = selector_expand (sel, inv, pol, out, &n, 16, err, errlen);
    joined[0] = '\0';
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        off += (size_t) snprintf (joined + off, cap - off, "%s%s", i ? "," : "", out[i]);
        free (out[i]);
    }
    return rc;
}

int
main (int argc, char **argv)
{
    s_dir = argc > 1 ? argv[1] : "tests/fixtures/sysfs";
    target_policy_t all = { .nallow = 1 };
    all.allow[0] = "/dev/*";
    target_policy_t none = { .nallow = 0 };
    char got[512], err[1024];

    CHECK (selector_is ("@nvme") && !selector_is ("/dev/sda") && !selector_is (""));

    json_t *sas = fixture ("sas-expander");
    CHECK (expand (sas, "@sas", &all, got, sizeof got, err, sizeof err) == 2);
    CHECK_MSG (strcmp (got, "/dev/sdb,/dev/sdc") == 0, "@sas: %s", got);
    CHECK (expand (sas, "@model:AL15SEB*", &all, got, sizeof got, err, sizeof err) == 2);
    CHECK (expand (sas, "@all", &all, got, sizeof got, err, sizeof err) == 2);
    /* A selector that matches nothing says what there was and why not. */
    CHECK (expand (sas, "@nvme", &all, got, sizeof got, err, sizeof err) == 0);
    CHECK_ERRMSG (err, "selector '@nvme' matched no data drive");
    CHECK_ERRMSG (err, "sdb sas (does not match)");
    /* The agent's allowlist still decides. */
    CHECK (expand (sas, "@sas", &none, got, sizeof got, err, sizeof err) == 0);
    CHECK_ERRMSG (err, "not allowed by --allow");
    CHECK (expand (sas, "@bogus", &all, got, sizeof got, err, sizeof err) == -EINVAL);
    CHECK_ERRMSG (err, "not a drive selector");
    CHECK (expand (sas, "@model:", &all, got, sizeof got, err, sizeof err) == -EINVAL);
    json_decref (sas);

    /* The SATA SSD holds "/": never a target, even for @all. */
    json_t *sata = fixture ("sata-ahci");
    CHECK (expand (sata, "@sata", &all, got, sizeof got, err, sizeof err) == 0);
    CHECK_ERRMSG (err, "boot device");
    CHECK (expand (sata, "@all", &all, got, sizeof got, err, sizeof err) == 0);
    json_decref (sata);

    json_t *nvme = fixture ("nvme");
    CHECK (expand (nvme, "@nvme", &all, got, sizeof got, err, sizeof err) == 1);
    CHECK_MSG (strcmp (got, "/dev/nvme0n1") == 0, "@nvme: %s", got);
    char sel[128];
    json_t *d = json_array_get (json_object_get (nvme, "drives"), 0);
    snprintf (sel, sizeof sel, "@serial:%s", json_string_value (json_object_get (d, "serial")));
    CHECK (expand (nvme, sel, &all, got, sizeof got, err, sizeof err) == 1);
    CHECK (expand (nvme, "@serial:NOPE*", &all, got, sizeof got, err, sizeof err) == 0);
    json_decref (nvme);

    /* A loop device under a mounted dm device is in use. */
    json_t *loop = fixture ("loop");
    CHECK (expand (loop, "@loop", &all, got, sizeof got, err, sizeof err) == 0);
    CHECK_ERRMSG (err, "loop0 loop (mounted)");
    json_decref (loop);
    return TEST_DONE ();
}
