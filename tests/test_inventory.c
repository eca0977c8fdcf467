/*  test_inventory.c: inventory_collect on the fixture trees in
    tests/fixtures/sysfs (argv[1]), on a damaged copy of them, and on this
    machine. */
#define _GNU_SOURCE
#include "inventory.h"
#include "testutil.h"
#include "json_check.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *fixtures;

static json_t *
collect_at (const char *root)
{
    char sys[PATH_MAX], proc[PATH_MAX], etc[PATH_MAX];
    snprintf (sys, sizeof sys, "%s/sys", root);
    snprintf (proc, sizeof proc, "%s/proc", root);
    snprintf (etc, sizeof etc, "%s/etc", root);
    return inventory_collect (sys, proc, etc);
}

static json_t *
collect (const char *name)
{
    char root[PATH_MAX];
    snprintf (root, sizeof root, "%s/%s", fixtures, name);
    return collect_at (root);
}

/* The element of inv[array] whose key field equals val, or NULL. */
static json_t *
find (json_t *inv, const char *array, const char *key, const char *val)
{
    size_t i;
    json_t *e;
    json_array_foreach (json_object_get (inv, array), i, e) {
        const char *s = json_string_value (json_object_get (e, key));
        if (s && strcmp (s, val) == 0)
            return e;
    }
    return NULL;
}

static void
check_host (json_t *inv, const char *hostname)
{
    json_t *h = json_object_get (inv, "host");
    CHECK_S (h, "hostname", hostname);
    CHECK_S (h, "kernel", "6.8.0-45-generic");
    CHECK_S (h, "os_release", "Ubuntu 22.04.4 LTS");
    CHECK_S (h, "cpu_model", "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz");
    CHECK_I (h, "cpu_count", 2);
    CHECK_I (h, "memory_bytes", 65536000LL * 1024);
    CHECK_STR_CONTAINS (json_string_value (json_object_get (h, "boot_id")), "0b9f6c1e-");
}

static void
test_nvme (void)
{
    json_t *inv = collect ("nvme");
    CHECK (inv);
    check_host (inv, "nvme-host");
    /* The root port above it is a bridge, not storage. */
    CHECK (json_array_size (json_object_get (inv, "controllers")) == 1);
    json_t *c = find (inv, "controllers", "pci_address", "0000:01:00.0");
    CHECK (c);
    CHECK_S (c, "vendor_id", "0x144d");
    CHECK_S (c, "device_id", "0xa80a");
    CHECK_S (c, "vendor", "unknown");       /* no pci.ids in this fixture */
    CHECK_S (c, "class", "0x010802");
    CHECK_S (c, "driver", "nvme");
    CHECK_S (c, "driver_version", "1.0");
    CHECK_S (c, "firmware", "GDC5302Q");
    CHECK_S (c, "link_speed", "16.0 GT/s PCIe");
    CHECK_S (c, "max_link_speed", "16.0 GT/s PCIe");
    CHECK_I (c, "link_width", 4);
    CHECK_I (c, "max_link_width", 4);

    CHECK (json_array_size (json_object_get (inv, "drives")) == 1);
    json_t *d = find (inv, "drives", "name", "nvme0n1");
    CHECK (d);
    CHECK_S (d, "path", "/dev/nvme0n1");
    CHECK_S (d, "transport", "nvme");
    CHECK_S (d, "model", "SAMSUNG MZQL21T9HCJR-00A07");
    CHECK_S (d, "serial", "S64GNE0R123456");
    CHECK_S (d, "firmware", "GDC5302Q");
    CHECK_S (d, "wwn", "eui.36344730528004580025384500000001");
    CHECK_S (d, "controller", "0000:01:00.0");
    /* An NVMe drive's link is its own PCI function's. */
    CHECK_S (d, "link_speed", "16.0 GT/s PCIe");
    CHECK_I (d, "link_width", 4);
    CHECK (!json_object_get (d, "uplink_speed"));
    CHECK_S (d, "scheduler", "none");
    CHECK_I (d, "nr_requests", 1023);
    CHECK_NULL (d, "queue_depth");
    CHECK_I (d, "size_bytes", 3750748848LL * 512);
    CHECK_I (d, "logical_block_size", 512);
    CHECK_I (d, "physical_block_size", 4096);
    CHECK_B (d, "rotational", false);
    CHECK_B (d, "expander", false);
    CHECK_B (d, "mounted", false);
    CHECK_B (d, "partitioned", false);
    CHECK_B (d, "holders", false);
    CHECK_B (d, "boot", false);
    json_decref (inv);
}

static void
test_sas_expander (void)
{
    json_t *inv = collect ("sas-expander");
    CHECK (inv);
    check_host (inv, "sas-host");
    CHECK (json_array_size (json_object_get (inv, "controllers")) == 1);
    json_t *c = find (inv, "controllers", "pci_address", "0000:02:00.0");
    CHECK (c);
    CHECK_S (c, "vendor_id", "0x1000");
    CHECK_S (c, "device_id", "0x0097");
    CHECK_S (c, "vendor", "Broadcom / LSI");    /* from the fixture's pci.ids */
    CHECK_S (c, "device", "SAS3008 PCI-Express Fusion-MPT SAS-3");
    CHECK_S (c, "class", "0x010700");
    CHECK_S (c, "driver", "mpt3sas");
    CHECK_S (c, "driver_version", "43.100.00.00");
    CHECK_S (c, "firmware", "16.00.01.00");
    CHECK_S (c, "link_speed", "5.0 GT/s PCIe");     /* degraded ... */
    CHECK_S (c, "max_link_speed", "8.0 GT/s PCIe"); /* ... from this */
    CHECK_I (c, "link_width", 8);
    CHECK_I (c, "max_link_width", 8);

    json_t *drives = json_object_get (inv, "drives");
    CHECK (json_array_size (drives) == 2);
    /* Sorted by name. */
    CHECK_S (json_array_get (drives, 0), "name", "sdb");
    CHECK_S (json_array_get (drives, 1), "name", "sdc");
    const char *serials[] = { "Y9Q0A00XFDUE", "Y9Q0A01XFDUE" };
    for (int i = 0; i < 2; i++) {
        json_t *d = json_array_get (drives, (size_t) i);
        CHECK_S (d, "transport", "sas");
        CHECK_S (d, "model", "AL15SEB120N");
        CHECK_S (d, "vendor", "TOSHIBA");
        CHECK_S (d, "firmware", "1403");
        CHECK_S (d, "serial", serials[i]);
        CHECK_S (d, "controller", "0000:02:00.0");
        CHECK_S (d, "scheduler", "mq-deadline");
        CHECK_I (d, "nr_requests", 254);
        CHECK_I (d, "queue_depth", 254);
        CHECK_B (d, "rotational", true);
        CHECK_B (d, "expander", true);
        CHECK_B (d, "mounted", false);
        CHECK_B (d, "boot", false);
        /* The drive's own port on the expander (one phy, sdc's at 6G),
           and the HBA's wide port to the expander: 4 phys at 12G. */
        CHECK_S (d, "link_speed", i == 0 ? "12.0 Gbit" : "6.0 Gbit");
        CHECK_I (d, "link_width", 1);
        CHECK_S (d, "uplink", "port-2:0");
        CHECK_S (d, "uplink_speed", "12.0 Gbit");
        CHECK_I (d, "uplink_width", 4);
    }
    json_decref (inv);
}

static void
test_sata_ahci (void)
{
    json_t *inv = collect ("sata-ahci");
    CHECK (inv);
    check_host (inv, "sata-host");
    json_t *c = find (inv, "controllers", "pci_address", "0000:00:17.0");
    CHECK (c);
    CHECK (json_array_size (json_object_get (inv, "controllers")) == 1);
    CHECK_S (c, "vendor_id", "0x8086");
    CHECK_S (c, "device_id", "0xa352");
    CHECK_S (c, "class", "0x010601");
    CHECK_S (c, "driver", "ahci");
    CHECK_S (c, "driver_version", "unknown");   /* built in: no version file */
    CHECK_S (c, "firmware", "unknown");
    CHECK_S (c, "link_speed", "unknown");       /* a root-complex function */
    CHECK_NULL (c, "link_width");

    /* ram0, zram0, md127 and the unbacked loop1 are left out. */
    CHECK (json_array_size (json_object_get (inv, "drives")) == 1);
    json_t *d = find (inv, "drives", "name", "sda");
    CHECK (d);
    CHECK_S (d, "transport", "sata");
    CHECK_S (d, "model", "INTEL SSDSC2KG960G8");
    CHECK_S (d, "vendor", "ATA");
    CHECK_S (d, "firmware", "XCV10110");
    CHECK_S (d, "serial", "PHYG012345AB960CGN");
    CHECK_S (d, "controller", "0000:00:17.0");
    CHECK_S (d, "link_speed", "6.0 Gbps");      /* ata1/link1's sata_spd */
    CHECK_I (d, "link_width", 1);
    CHECK_S (d, "scheduler", "mq-deadline");
    CHECK_I (d, "nr_requests", 64);
    CHECK_I (d, "queue_depth", 32);
    CHECK_B (d, "rotational", false);
    CHECK_B (d, "expander", false);
    CHECK_B (d, "partitioned", true);
    CHECK_B (d, "mounted", true);
    CHECK_B (d, "boot", true);
    CHECK_B (d, "holders", false);
    json_decref (inv);
}

static void
test_virtio (void)
{
    json_t *inv = collect ("virtio");
    CHECK (inv);
    check_host (inv, "virtio-host");
    /* The virtio NIC at 00:03.0 is no storage controller. */
    CHECK (json_array_size (json_object_get (inv, "controllers")) == 1);
    json_t *c = find (inv, "controllers", "pci_address", "0000:00:04.0");
    CHECK (c);
    CHECK_S (c, "driver", "virtio-pci");
    json_t *d = find (inv, "drives", "name", "vda");
    CHECK (d);
    CHECK_S (d, "transport", "virtio");
    CHECK_S (d, "controller", "0000:00:04.0");
    CHECK_S (d, "serial", "vd-serial-0001");
    CHECK_S (d, "scheduler", "none");
    CHECK_I (d, "nr_requests", 256);
    CHECK_NULL (d, "queue_depth");
    CHECK_B (d, "mounted", true);
    CHECK_B (d, "boot", true);
    CHECK_B (d, "partitioned", false);
    json_decref (inv);
}

static void
test_loop (void)
{
    json_t *inv = collect ("loop");
    CHECK (inv);
    check_host (inv, "loop-host");
    CHECK (json_array_size (json_object_get (inv, "controllers")) == 0);
    /* loop1 has no backing file; dm-0 is loop0's holder, not a drive. */
    CHECK (json_array_size (json_object_get (inv, "drives")) == 1);
    json_t *d = find (inv, "drives", "name", "loop0");
    CHECK (d);
    CHECK_S (d, "transport", "loop");
    CHECK_S (d, "controller", "unknown");
    CHECK_S (d, "model", "unknown");
    CHECK_NULL (d, "queue_depth");
    CHECK_B (d, "holders", true);
    CHECK_B (d, "mounted", true);   /* through dm-0, mounted as /dev/mapper/vg-x */
    CHECK_B (d, "boot", false);
    json_decref (inv);
}

/* ---- a damaged copy --------------------------------------------------- */

static char copy_dst[PATH_MAX];
static size_t copy_srclen;

static int
copy_one (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void) ftw;
    char dst[PATH_MAX];
    snprintf (dst, sizeof dst, "%s%s", copy_dst, path + copy_srclen);
    if (flag == FTW_D)
        return mkdir (dst, 0755) && errno != EEXIST ? -1 : 0;
    if (flag == FTW_SL) {
        char target[PATH_MAX];
        ssize_t n = readlink (path, target, sizeof target - 1);
        if (n < 0)
            return -1;
        target[n] = '\0';
        return symlink (target, dst);
    }
    if (flag != FTW_F || !S_ISREG (st->st_mode))
        return 0;
    int in = open (path, O_RDONLY), out = open (dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char buf[4096];
    ssize_t n;
    while (in >= 0 && out >= 0 && (n = read (in, buf, sizeof buf)) > 0)
        if (write (out, buf, (size_t) n) != n)
            break;
    int ok = in >= 0 && out >= 0;
    if (in >= 0)
        close (in);
    if (out >= 0)
        close (out);
    return ok ? 0 : -1;
}

static int
copy_tree (const char *src, const char *dst)
{
    copy_srclen = strlen (src);
    snprintf (copy_dst, sizeof copy_dst, "%s", dst);
    return nftw (src, copy_one, 32, FTW_PHYS);
}

static int
rm_one (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void) st, (void) flag, (void) ftw;
    return remove (path);
}

static void
rm_tree (const char *dir)
{
    nftw (dir, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

static void
put (const char *root, const char *rel, const char *text)
{
    char path[PATH_MAX];
    snprintf (path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen (path, "w");
    CHECK_MSG (f, "cannot write %s", path);
    if (f) {
        fputs (text, f);
        fclose (f);
    }
}

/* Writes n raw bytes (put stops at a NUL). */
static void
putn (const char *root, const char *rel, const char *bytes, size_t n)
{
    char path[PATH_MAX];
    snprintf (path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen (path, "wb");
    CHECK_MSG (f && fwrite (bytes, 1, n, f) == n, "cannot write %s", path);
    if (f)
        fclose (f);
}

static void
del (const char *root, const char *rel)
{
    char path[PATH_MAX];
    snprintf (path, sizeof path, "%s/%s", root, rel);
    CHECK_MSG (remove (path) == 0, "cannot remove %s", path);
}

/* Replaces a file by a directory: unreadable even for root. */
static void
to_dir (const char *root, const char *rel)
{
    char path[PATH_MAX];
    del (root, rel);
    snprintf (path, sizeof path, "%s/%s", root, rel);
    CHECK (mkdir (path, 0755) == 0);
}

static void
hash_of (const char *root, char out[65])
{
    json_t *inv = collect_at (root);
    CHECK (inv);
    inventory_hash (inv, out);
    json_decref (inv);
}

#define NVME_DEV "sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0"
#define NVME_CTRL NVME_DEV "/nvme/nvme0"
#define SAS_SD "sys/devices/pci0000:00/0000:00:03.0/0000:02:00.0/host2/port-2:0/expander-2:0/port-2:0:0/end_device-2:0:0/target2:0:0/2:0:0:0"

static void
test_damaged (void)
{
    char tmp[] = "/var/tmp/iofleet-inv-XXXXXX";
    CHECK (mkdtemp (tmp));
    char nvme[PATH_MAX], sas[PATH_MAX], src[PATH_MAX];
    snprintf (nvme, sizeof nvme, "%s/nvme", tmp);
    snprintf (sas, sizeof sas, "%s/sas", tmp);
    snprintf (src, sizeof src, "%s/nvme", fixtures);
    CHECK (copy_tree (src, nvme) == 0);
    snprintf (src, sizeof src, "%s/sas-expander", fixtures);
    CHECK (copy_tree (src, sas) == 0);

    /* Hash: stable across collections and copies, blind to boot_id,
       sensitive to firmware. */
    char h1[65], h2[65], h3[65], h4[65];
    hash_of (nvme, h1);
    hash_of (nvme, h2);
    CHECK (strlen (h1) == 16 && strcmp (h1, h2) == 0);
    snprintf (src, sizeof src, "%s/nvme", fixtures);
    hash_of (src, h3);
    CHECK (strcmp (h1, h3) == 0);
    put (nvme, "proc/sys/kernel/random/boot_id", "11111111-2222-3333-4444-555555555555\n");
    hash_of (nvme, h3);
    CHECK_MSG (strcmp (h1, h3) == 0, "boot_id changed the hash");
    put (nvme, NVME_CTRL "/firmware_rev", "GDC5602Q\n");
    hash_of (nvme, h4);
    CHECK_MSG (strcmp (h1, h4) != 0, "firmware change kept hash %s", h4);

    /* Attributes gone, unreadable or garbage: unknown / null. */
    del (nvme, NVME_CTRL "/model");
    to_dir (nvme, NVME_CTRL "/serial");
    to_dir (nvme, NVME_CTRL "/firmware_rev");
    del (nvme, NVME_CTRL "/nvme0n1/queue/scheduler");
    put (nvme, NVME_CTRL "/nvme0n1/queue/nr_requests", "many\n");
    put (nvme, NVME_CTRL "/nvme0n1/size", "\n");
    to_dir (nvme, NVME_CTRL "/nvme0n1/queue/rotational");
    del (nvme, NVME_DEV "/current_link_speed");
    put (nvme, NVME_DEV "/current_link_width", "x4\n");
    put (nvme, NVME_DEV "/vendor", "samsung\n");
    del (nvme, NVME_DEV "/driver");
    del (nvme, "proc/cpuinfo");
    to_dir (nvme, "proc/meminfo");
    del (nvme, "etc/os-release");
    del (nvme, "proc/sys/kernel/hostname");
    json_t *inv = collect_at (nvme);
    CHECK (inv);
    json_t *h = json_object_get (inv, "host");
    CHECK_S (h, "hostname", "unknown");
    CHECK_S (h, "os_release", "unknown");
    CHECK_S (h, "cpu_model", "unknown");
    CHECK_NULL (h, "cpu_count");
    CHECK_NULL (h, "memory_bytes");
    CHECK_S (h, "kernel", "6.8.0-45-generic");
    json_t *c = find (inv, "controllers", "pci_address", "0000:01:00.0");
    CHECK (c);
    CHECK_S (c, "vendor_id", "unknown");
    CHECK_S (c, "driver", "unknown");
    CHECK_S (c, "driver_version", "unknown");
    CHECK_S (c, "firmware", "unknown");
    CHECK_S (c, "link_speed", "unknown");
    CHECK_NULL (c, "link_width");
    CHECK_I (c, "max_link_width", 4);
    json_t *d = find (inv, "drives", "name", "nvme0n1");
    CHECK (d);
    CHECK_S (d, "model", "unknown");
    CHECK_S (d, "serial", "unknown");
    CHECK_S (d, "firmware", "unknown");
    CHECK_S (d, "scheduler", "unknown");
    CHECK_NULL (d, "nr_requests");
    CHECK_NULL (d, "size_bytes");
    CHECK_NULL (d, "rotational");
    CHECK_S (d, "transport", "nvme");
    CHECK_S (d, "controller", "0000:01:00.0");
    json_decref (inv);

    /* The namespace's directory gone: /sys/block/nvme0n1 dangles. */
    rm_tree (nvme);
    snprintf (src, sizeof src, "%s/nvme", fixtures);
    CHECK (copy_tree (src, nvme) == 0);
    char ns[PATH_MAX];
    snprintf (ns, sizeof ns, "%s/" NVME_CTRL "/nvme0n1", nvme);
    rm_tree (ns);
    inv = collect_at (nvme);
    CHECK (inv);
    d = find (inv, "drives", "name", "nvme0n1");
    CHECK (d);
    CHECK_S (d, "transport", "other");
    CHECK_S (d, "controller", "unknown");
    CHECK_S (d, "model", "unknown");
    CHECK_NULL (d, "logical_block_size");
    CHECK_B (d, "mounted", false);
    json_decref (inv);

    /* SCSI: bad bytes and short VPD pages, no scsi_host attributes. */
    put (sas, SAS_SD "/model", "AL15\xff\xfeSEB\n");
    /* The header claims 32 bytes of serial, the page holds 2. */
    putn (sas, SAS_SD "/vpd_pg80", "\x00\x80\x00\x20" "AB", 6);
    putn (sas, SAS_SD "/../../../../port-2:0:1/end_device-2:0:1/target2:0:1/2:0:1:0/vpd_pg80", "\x00", 1);
    to_dir (sas, SAS_SD "/queue_depth");
    /* Bytes, not text (seen on a real HBA): unknown, not "Pmw>\u0001V". */
    put (sas, "sys/devices/pci0000:00/0000:00:03.0/0000:02:00.0/host2/scsi_host/host2/version_fw",
         "Pmw>\x01V\n");
    del (sas, "sys/devices/pci0000:00/0000:00:03.0/0000:02:00.0/host2/scsi_host/host2/proc_name");
    del (sas, "sys/module/mpt3sas/version");
    to_dir (sas, "usr/share/misc/pci.ids");
    inv = collect_at (sas);
    CHECK (inv);
    c = find (inv, "controllers", "pci_address", "0000:02:00.0");
    CHECK (c);
    CHECK_S (c, "firmware", "unknown");
    CHECK_S (c, "driver_version", "unknown");
    CHECK_S (c, "vendor", "unknown");
    d = find (inv, "drives", "name", "sdb");
    CHECK (d);
    CHECK_S (d, "model", "AL15??SEB");
    CHECK_S (d, "serial", "AB");
    CHECK_NULL (d, "queue_depth");
    CHECK_S (find (inv, "drives", "name", "sdc"), "serial", "unknown");
    CHECK_S (d, "transport", "sas");    /* from the path, without proc_name */
    json_decref (inv);

    /* Roots that do not exist at all. */
    snprintf (src, sizeof src, "%s/nothing-here", tmp);
    inv = collect_at (src);
    CHECK (inv);
    CHECK_S (json_object_get (inv, "host"), "hostname", "unknown");
    CHECK (json_array_size (json_object_get (inv, "controllers")) == 0);
    CHECK (json_array_size (json_object_get (inv, "drives")) == 0);
    json_decref (inv);

    rm_tree (tmp);
    CHECK (access (tmp, F_OK) != 0);
}

static void
test_this_machine (void)
{
    json_t *inv = inventory_collect ("/sys", "/proc", "/etc");
    CHECK (inv);
    json_t *h = json_object_get (inv, "host");
    const char *name = json_string_value (json_object_get (h, "hostname"));
    CHECK (name && *name);
    json_t *n = json_object_get (h, "cpu_count");
    CHECK (json_is_integer (n) && json_integer_value (n) > 0);
    CHECK (json_is_array (json_object_get (inv, "drives")));
    char hash[65];
    inventory_hash (inv, hash);
    CHECK (strlen (hash) == 16);
    json_decref (inv);
}

int
main (int argc, char **argv)
{
    if (argc < 2) {
        fprintf (stderr, "usage: %s tests/fixtures/sysfs\n", argv[0]);
        return 2;
    }
    fixtures = argv[1];
    test_nvme ();
    test_sas_expander ();
    test_sata_ahci ();
    test_virtio ();
    test_loop ();
    test_damaged ();
    test_this_machine ();
    return TEST_DONE ();
}
