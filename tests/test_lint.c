/*  test_lint.c: the tuning checklist on the fixture inventories. */
#include "inventory.h"
#include "tuning.h"
#include "testutil.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static json_t *
fixture (const char *dir, const char *name)
{
    char sys[PATH_MAX], proc[PATH_MAX], etc[PATH_MAX];
    snprintf (sys, sizeof sys, "%s/%s/sys", dir, name);
    snprintf (proc, sizeof proc, "%s/%s/proc", dir, name);
    snprintf (etc, sizeof etc, "%s/%s/etc", dir, name);
    return inventory_collect (sys, proc, etc);
}

static json_t *
drive (json_t *inv, const char *name)
{
    size_t i;
    json_t *d;
    json_array_foreach (json_object_get (inv, "drives"), i, d)
        if (strcmp (json_string_value (json_object_get (d, "name")), name) == 0)
            return d;
    return NULL;
}

/* The warnings joined by " | ". */
static const char *
lint (json_t *inv, json_t *d, const job_t *jd, char *buf, size_t cap)
{
    json_t *w = tuning_lint (inv, d, jd);
    size_t off = 0, i;
    json_t *s;
    buf[0] = '\0';
    json_array_foreach (w, i, s)
        off += (size_t) snprintf (buf + off, cap - off, "%s%s", i ? " | " : "",
                                  json_string_value (s));
    json_decref (w);
    return buf;
}

int
main (int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/fixtures/sysfs";
    job_t jd;
    memset (&jd, 0, sizeof jd);
    jd.iodepth = 32;
    jd.numjobs = 8;
    char buf[2048];

    /* SAS behind an HBA whose link trained at 5.0 GT/s of 8.0 GT/s. */
    json_t *sas = fixture (dir, "sas-expander");
    json_t *sdb = drive (sas, "sdb");
    CHECK (sdb != NULL);
    lint (sas, sdb, &jd, buf, sizeof buf);
    CHECK_MSG (strstr (buf, "PCIe link runs at 5.0 GT/s") && strstr (buf, "below its maximum 8.0 GT/s"),
               "sas lint: %s", buf);
    CHECK_MSG (!strstr (buf, "scheduler"), "a SAS disk got the NVMe scheduler advice: %s", buf);
    json_decref (sas);

    /* NVMe with scheduler none, a full x4 link, nr_requests 1023. */
    json_t *nvme = fixture (dir, "nvme");
    json_t *ns = drive (nvme, "nvme0n1");
    CHECK (ns != NULL);
    CHECK_MSG (strcmp (lint (nvme, ns, &jd, buf, sizeof buf), "") == 0, "clean nvme: %s", buf);
    /* ... which QD256 x 8 jobs outgrows. */
    jd.iodepth = 256;
    lint (nvme, ns, &jd, buf, sizeof buf);
    CHECK_MSG (strstr (buf, "nr_requests 1023 is below the job's iodepth x numjobs = 2048") != NULL,
               "nr_requests lint: %s", buf);
    jd.iodepth = 32;
    /* ... and with mq-deadline it gets the scheduler advice. */
    json_object_set_new (ns, "scheduler", json_string ("mq-deadline"));
    lint (nvme, ns, &jd, buf, sizeof buf);
    CHECK_MSG (strstr (buf, "NVMe with scheduler 'mq-deadline'") != NULL, "scheduler lint: %s", buf);
    json_decref (nvme);

    /* Unknown values warn about nothing. */
    json_t *loop = fixture (dir, "loop");
    json_t *l0 = drive (loop, "loop0");
    CHECK (l0 != NULL);
    json_object_set_new (l0, "nr_requests", json_null ());
    CHECK_MSG (strcmp (lint (loop, l0, &jd, buf, sizeof buf), "") == 0, "loop lint: %s", buf);
    json_decref (loop);
    return TEST_DONE ();
}
