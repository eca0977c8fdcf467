/*  test_health_probe.c: finding a target's drive and its sensor in the
    sysfs fixture trees (tests/fixtures/sysfs/NAME/sys), and the reasons a
    drive has no health.  argv[1]: the fixtures' directory. */
#include "health_probe.h"
#include "testutil.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
    const char *fx = argc > 1 ? argv[1] : "tests/fixtures/sysfs";
    char sys[PATH_MAX], dev[PATH_MAX];
    health_t h;
    int32_t mc;

    /* NVMe: the controller's hwmon (temp1_input, _max, _crit); no device
       node under the fixture, so no record, saying so. */
    snprintf (sys, sizeof sys, "%s/nvme/sys", fx);
    snprintf (dev, sizeof dev, "%s/nvme/dev", fx);
    health_probe_t *p = health_probe_new_dev ("nvme0n1", sys, dev);
    CHECK (p && strcmp (health_probe_device (p), "nvme0n1") == 0);
    CHECK (health_probe_temp (p, &mc) && mc == 41850);
    /* The next read within HEALTH_TEMP_PERIOD_NS is the last reading:
       the drive is not asked again.  A tree of our own, whose sensor
       changes between two reads. */
    char tmp[] = "/tmp/iofleet-hwmon.XXXXXX", cmd[512], tpath[PATH_MAX];
    CHECK (mkdtemp (tmp) != NULL);
    snprintf (cmd, sizeof cmd, "mkdir -p %s/sys/block/nvme7n1/device/hwmon4 && echo 40000 > "
              "%s/sys/block/nvme7n1/device/hwmon4/temp1_input", tmp, tmp);
    CHECK (system (cmd) == 0);
    snprintf (sys, sizeof sys, "%s/sys", tmp);
    snprintf (tpath, sizeof tpath, "%s/sys/block/nvme7n1/device/hwmon4/temp1_input", tmp);
    health_probe_t *p2 = health_probe_new_dev ("nvme7n1", sys, "/nonexistent");
    int32_t mc2;
    CHECK (health_probe_temp (p2, &mc2) && mc2 == 40000);
    FILE *tf = fopen (tpath, "w");
    CHECK (tf && fputs ("77000\n", tf) >= 0);
    if (tf)
        fclose (tf);
    CHECK (health_probe_temp (p2, &mc2) && mc2 == 40000);      /* not read again */
    health_probe_destroy (&p2);
    p2 = health_probe_new_dev ("nvme7n1", sys, "/nonexistent");   /* a new probe reads */
    CHECK (health_probe_temp (p2, &mc2) && mc2 == 77000);
    health_probe_destroy (&p2);
    snprintf (cmd, sizeof cmd, "rm -rf %s", tmp);
    CHECK (system (cmd) == 0);
    health_probe_read (p, &h);
    CHECK (!h.available);
    CHECK_STR_CONTAINS (h.reason, "nvme0n1: no device node");
    health_probe_destroy (&p);
    CHECK (p == NULL);

    /* SATA behind AHCI: drivetemp's device/hwmon/hwmonN. */
    snprintf (sys, sizeof sys, "%s/sata-ahci/sys", fx);
    snprintf (dev, sizeof dev, "%s/sata-ahci/dev", fx);
    p = health_probe_new_dev ("sda", sys, dev);
    CHECK (health_probe_temp (p, &mc) && mc == 37000);
    health_probe_destroy (&p);

    /* No SMART, and why, for each kind that has none; no sensor either. */
    static const struct { const char *tree, *name, *why; } none[] = {
        { "loop", "loop0", "loop device" },
        { "loop", "dm-0", "device-mapper" },
        { "sata-ahci", "md127", "md RAID" },
        { "sata-ahci", "ram0", "RAM disk" },
        { "sata-ahci", "zram0", "compressed RAM disk" },
        { "virtio", "vda", "virtio block device" },
        { "nvme", "nvme9n1", "not a block device in sysfs" },
    };
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        snprintf (sys, sizeof sys, "%s/%s/sys", fx, none[i].tree);
        snprintf (dev, sizeof dev, "%s/%s/dev", fx, none[i].tree);
        p = health_probe_new_dev (none[i].name, sys, dev);
        CHECK (!health_probe_temp (p, &mc));
        health_probe_read (p, &h);
        CHECK_MSG (!h.available && strstr (h.reason, none[i].why), "%s: '%s'", none[i].name,
                   h.reason);
        CHECK (h.have == 0);
        health_probe_destroy (&p);
    }

    /* From a path: a file of this test's own directory is on some block
       device or none; either way a probe comes back, and a missing path
       says it cannot be read. */
    p = health_probe_new ("/nonexistent/iofleet-target", "/sys", "/dev");
    health_probe_read (p, &h);
    CHECK (!h.available);
    CHECK_STR_CONTAINS (h.reason, "cannot stat the target");
    health_probe_destroy (&p);
    p = health_probe_new ("/dev/shm", "/sys", "/dev");
    health_probe_read (p, &h);
    CHECK (!h.available);
    CHECK_STR_CONTAINS (h.reason, "filesystem without a single block device");
    health_probe_destroy (&p);
    return TEST_DONE ();
}
