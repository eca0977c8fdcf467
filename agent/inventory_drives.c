/*  inventory_drives.c: see inventory_drives.h.  Every read may fail and
    becomes "unknown" or null in place (inventory.c says why). */
#define _GNU_SOURCE
#include "inventory_drives.h"
#include "inventory_hba.h"
#include "inventory_mounts.h"
#include "link_rate.h"
#include "sysfs.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool
s_is_scsi_host (const char *s, size_t len)
{
    if (len < 5 || strncmp (s, "host", 4))
        return false;
    for (size_t i = 4; i < len; i++)
        if (!isdigit ((unsigned char) s[i]))
            return false;
    return true;
}

/* True for /sys/block entries that are no drives: RAM disks, compressed
   swap, device-mapper and md (they show up as holders), optical drives. */
static bool
s_skip_block (const char *name)
{
    static const char *const skip[] = { "ram", "zram", "dm-", "md", "sr" };
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
        if (strncmp (name, skip[i], strlen (skip[i])) == 0)
            return true;
    return name[0] == '.';
}

static bool
s_is_loop (const char *name)
{
    return strncmp (name, "loop", 4) == 0 && isdigit ((unsigned char) name[4]);
}

/* The serial from a SCSI VPD page 0x80 (unit serial number): 4 header
   bytes, the length in bytes 2-3, then ASCII, often space-padded. */
static bool
s_vpd80_serial (const char *dev, char *out, size_t cap)
{
    char path[PATH_MAX];
    size_t len;
    out[0] = '\0';
    if (!sysfs_pathf (path, sizeof path, "%s/vpd_pg80", dev))
        return false;
    unsigned char *b = (unsigned char *) file_read_all (path, SYSFS_ATTR_MAX, &len);
    if (!b)
        return false;
    if (len >= 4 && b[1] == 0x80) {
        size_t n = (size_t) b[2] << 8 | b[3];
        if (n > len - 4)
            n = len - 4;
        if (n >= cap)
            n = cap - 1;
        for (size_t i = 0; i < n; i++)
            out[i] = b[4 + i] >= 0x20 && b[4 + i] < 0x7f ? (char) b[4 + i] : ' ';
        out[n] = '\0';
        memmove (out, sysfs_trim (out), strlen (sysfs_trim (out)) + 1);
    }
    free (b);
    return out[0] != '\0';
}

/* The bracketed (active) one of "[none] mq-deadline"; a lone word counts
   too (kernels print "none" bare when there is no choice). */
static void
s_active_scheduler (const char *s, char *out, size_t cap)
{
    out[0] = '\0';
    const char *a = strchr (s, '['), *b = a ? strchr (a, ']') : NULL;
    if (a && b && (size_t) (b - a - 1) < cap) {
        memcpy (out, a + 1, (size_t) (b - a - 1));
        out[b - a - 1] = '\0';
    } else if (!a && !strchr (s, ' ')) {
        str_copy (out, cap, s);
    }
}

static bool
s_in_list (const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp (s, list[i]) == 0)
            return true;
    return false;
}

/* Classifies by where the device sits (rel: its sysfs path below the root)
   and which drivers serve it. */
static const char *
s_transport_of (const char *name, const char *rel, const char *drv, const char *proc_name)
{
    static const char *const sas_hosts[] = {
        "mpt3sas", "mpt2sas", "mptsas", "megaraid_sas", "smartpqi", "hpsa", "aacraid",
        "pm80xx", "hisi_sas_v1_hw", "hisi_sas_v2_hw", "hisi_sas_v3_hw", "isci", "mvsas", "aic94xx",
        "mpi3mr",
    };
    if (s_is_loop (name))
        return "loop";
    if (sysfs_has_component (rel, "nvme", false))   /* .../nvme/nvme0/..., nvme-subsystem */
        return "nvme";
    if (strcmp (drv, "virtio_blk") == 0 || sysfs_has_component (rel, "virtio", true))
        return "virtio";
    if (sysfs_has_component (rel, "end_device-", false)
        || sysfs_has_component (rel, "expander-", false)
        || sysfs_has_component (rel, "sas_", false))
        return "sas";
    if (sysfs_has_component (rel, "ata", true) || strcmp (proc_name, "ahci") == 0
        || strncmp (proc_name, "ata_", 4) == 0 || strncmp (proc_name, "sata_", 5) == 0)
        return "sata";
    if (s_in_list (proc_name, sas_hosts, sizeof sas_hosts / sizeof sas_hosts[0]))
        return "sas";
    return "other";
}

/* "ata3": a libata port. */
static bool
s_is_ata_port (const char *s, size_t len)
{
    if (len < 4 || strncmp (s, "ata", 3) != 0)
        return false;
    for (size_t i = 3; i < len; i++)
        if (!isdigit ((unsigned char) s[i]))
            return false;
    return true;
}

/* Keeps the slower of two speed texts in best (an unknown one never wins). */
static void
s_keep_slower (char *best, size_t cap, const char *s)
{
    double b = link_rate_bps (best, 1), v = link_rate_bps (s, 1);
    if (isfinite (v) && (!isfinite (b) || v < b))
        str_copy (best, cap, s);
}

/* A SAS port's link (dir: its sysfs directory): its phys, the entries
   phy-H:N (links to the phy devices), are its width; the slowest of their
   negotiated rates is its speed. */
static void
s_sas_port_link (const char *dir, char *speed, size_t cap, uint64_t *width)
{
    speed[0] = '\0';
    *width = 0;
    DIR *d = opendir (dir);
    struct dirent *e;
    while (d && (e = readdir (d))) {
        char rate[64];
        if (strncmp (e->d_name, "phy-", 4) != 0)
            continue;
        (*width)++;
        if (sysfs_read_strf (rate, sizeof rate, "%s/%s/sas_phy/%s/negotiated_linkrate", dir,
                             e->d_name, e->d_name))
            s_keep_slower (speed, cap, rate);
    }
    if (d)
        closedir (d);
}

/* A libata port's link (dir: its ataN directory): linkN/ata_link/linkN/
   sata_spd, the slowest of its links. */
static void
s_ata_port_link (const char *dir, char *speed, size_t cap)
{
    speed[0] = '\0';
    DIR *d = opendir (dir);
    struct dirent *e;
    while (d && (e = readdir (d))) {
        char rate[64];
        if (strncmp (e->d_name, "link", 4) == 0
            && sysfs_read_strf (rate, sizeof rate, "%s/%s/ata_link/%s/sata_spd", dir, e->d_name,
                                e->d_name))
            s_keep_slower (speed, cap, rate);
    }
    if (d)
        closedir (d);
}

/* The drive's own link and, behind a SAS expander, the HBA's port to it
   (the lanes the expander's drives share; upname: that port, port-H:N):
     NVMe  the PCI function's current_link_speed and width (pci: its
           directory);
     SAS   the port right above end_device-* (the drive's phys);
     SATA  the libata port's link;
   speeds "" where the tree does not say. */
static void
s_drive_link (inventory_ctx_t *inv, const char *rel, const char *pci, char *speed, uint64_t *width,
            char *up, uint64_t *upw, char *upname, size_t upcap)
{
    char dir[PATH_MAX];
    speed[0] = up[0] = upname[0] = '\0';
    *width = *upw = 0;
    long at;
    if (sysfs_has_component (rel, "nvme", false) && pci[0]) {
        sysfs_read_strf (speed, 64, "%s/current_link_speed", pci);
        if (!sysfs_read_u64f (width, "%s/current_link_width", pci))
            *width = 0;
    } else if ((at = sysfs_component_end (rel, "end_device-", true)) >= 0) {
        /* The port component just before end_device-. */
        char head[PATH_MAX];
        snprintf (head, sizeof head, "%.*s", (int) at, rel);
        long port = sysfs_component_end (head, "port-", true);
        if (port >= 0 && sysfs_pathf (dir, sizeof dir, "%s%.*s", inv->sys, (int) port, rel))
            s_sas_port_link (dir, speed, 64, width);
        long exp = sysfs_component_end (rel, "expander-", false);
        long hport = sysfs_component_end (rel, "port-", false);
        if (exp >= 0 && hport >= 0 && hport < exp
            && sysfs_pathf (dir, sizeof dir, "%s%.*s", inv->sys, (int) hport, rel)) {
            s_sas_port_link (dir, up, 64, upw);
            const char *base = strrchr (dir, '/');
            str_copy (upname, upcap, base ? base + 1 : dir);
        }
    } else {
        size_t len = 0;
        at = sysfs_last_component (rel, s_is_ata_port, &len);
        if (at >= 0 && sysfs_pathf (dir, sizeof dir, "%s%.*s", inv->sys, (int) (at + (long) len), rel)) {
            s_ata_port_link (dir, speed, 64);
            *width = speed[0] ? 1 : 0;
        }
    }
    if (!isfinite (link_rate_bps (speed, 1)))
        speed[0] = '\0', *width = 0;
    if (!isfinite (link_rate_bps (up, 1)))
        up[0] = '\0', *upw = 0;
}

static json_t *
s_drive_json (inventory_ctx_t *inv, const char *name)
{
    json_t *o = inventory_ctx_object (inv);
    if (!o)
        return NULL;
    char bd[PATH_MAX], real[PATH_MAX], path[PATH_MAX];
    sysfs_pathf (bd, sizeof bd, "%s/block/%s", inv->sys, name);
    /* rel: the device's place in the tree ("/devices/pci0000:00/..."), the
       part the patterns below look at.  Empty when the link dangles. */
    const char *rel = "";
    size_t rootlen = strlen (inv->sys);
    if (realpath (bd, real) && strncmp (real, inv->sys, rootlen) == 0 && real[rootlen] == '/')
        rel = real + rootlen;

    /* The PCI function it sits behind and the SCSI host, if any. */
    char ctrl[64] = "", proc_name[64] = "", drv[NAME_MAX + 1] = "", cdir[PATH_MAX] = "";
    size_t len = 0;
    long at = s_is_loop (name) ? -1 : sysfs_last_component (rel, sysfs_is_pci_addr, &len);
    if (at >= 0) {
        memcpy (ctrl, rel + at, len);
        ctrl[len] = '\0';
        if (sysfs_pathf (cdir, sizeof cdir, "%s%.*s", inv->sys, (int) (at + (long) len), rel))
            inventory_hba_add (inv, ctrl, cdir);
    }
    char lsp[64], usp[64], uport[64];
    uint64_t lw, uw;
    s_drive_link (inv, rel, cdir, lsp, &lw, usp, &uw, uport, sizeof uport);
    at = sysfs_last_component (rel, s_is_scsi_host, &len);
    if (at >= 0)
        sysfs_read_strf (proc_name, sizeof proc_name, "%s%.*s/scsi_host/%.*s/proc_name",
                   inv->sys, (int) (at + (long) len), rel, (int) len, rel + at);
    if (sysfs_pathf (path, sizeof path, "%s/device/driver", bd))
        sysfs_link_base (path, drv, sizeof drv);

    char model[256], vendor[256], serial[256], wwn[256], fw[256], sched[256], buf[256];
    sysfs_read_strf (model, sizeof model, "%s/device/model", bd);
    sysfs_read_strf (vendor, sizeof vendor, "%s/device/vendor", bd);
    if (!sysfs_read_strf (serial, sizeof serial, "%s/device/serial", bd)
        && !sysfs_read_strf (serial, sizeof serial, "%s/serial", bd)
        && sysfs_pathf (path, sizeof path, "%s/device", bd))
        s_vpd80_serial (path, serial, sizeof serial);
    if (!sysfs_read_strf (wwn, sizeof wwn, "%s/wwid", bd))
        sysfs_read_strf (wwn, sizeof wwn, "%s/device/wwid", bd);
    if (!sysfs_read_strf (fw, sizeof fw, "%s/device/firmware_rev", bd))
        sysfs_read_strf (fw, sizeof fw, "%s/device/rev", bd);
    sched[0] = '\0';
    if (sysfs_read_strf (buf, sizeof buf, "%s/queue/scheduler", bd))
        s_active_scheduler (buf, sched, sizeof sched);

    /* /dev names turn the '!' sysfs uses for '/' back (cciss!c0d0). */
    char dev[PATH_MAX];
    sysfs_pathf (dev, sizeof dev, "/dev/%s", name);
    for (char *p = dev; *p; p++)
        if (*p == '!')
            *p = '/';

    inventory_ctx_set (inv, o, "name", inventory_ctx_str (name));
    inventory_ctx_set (inv, o, "path", inventory_ctx_str (dev));
    inventory_ctx_set (inv, o, "model", inventory_ctx_str (model));
    inventory_ctx_set (inv, o, "vendor", inventory_ctx_str (vendor));
    inventory_ctx_set (inv, o, "serial", inventory_ctx_str (serial));
    inventory_ctx_set (inv, o, "wwn", inventory_ctx_str (wwn));
    inventory_ctx_set (inv, o, "firmware", inventory_ctx_str (fw));
    uint64_t v;
    bool ok = sysfs_read_u64f (&v, "%s/size", bd);
    inventory_ctx_set (inv, o, "size_bytes",
                       inventory_ctx_num (ok && v <= UINT64_MAX / 512, v * 512));
    inventory_ctx_set (inv, o, "transport",
                       inventory_ctx_str (s_transport_of (name, rel, drv, proc_name)));
    ok = sysfs_read_u64f (&v, "%s/queue/rotational", bd);
    inventory_ctx_set (inv, o, "rotational", ok && v <= 1 ? json_boolean (v) : json_null ());
    ok = sysfs_read_u64f (&v, "%s/queue/logical_block_size", bd);
    inventory_ctx_set (inv, o, "logical_block_size", inventory_ctx_num (ok, v));
    ok = sysfs_read_u64f (&v, "%s/queue/physical_block_size", bd);
    inventory_ctx_set (inv, o, "physical_block_size", inventory_ctx_num (ok, v));
    inventory_ctx_set (inv, o, "scheduler", inventory_ctx_str (sched));
    ok = sysfs_read_u64f (&v, "%s/queue/nr_requests", bd);
    inventory_ctx_set (inv, o, "nr_requests", inventory_ctx_num (ok, v));
    ok = sysfs_read_u64f (&v, "%s/device/queue_depth", bd);
    inventory_ctx_set (inv, o, "queue_depth", inventory_ctx_num (ok, v));
    inventory_ctx_set (inv, o, "controller", inventory_ctx_str (ctrl));
    inventory_ctx_set (inv, o, "link_speed", inventory_ctx_str (lsp));
    inventory_ctx_set (inv, o, "link_width", inventory_ctx_num (lw > 0, lw));
    if (usp[0]) {
        inventory_ctx_set (inv, o, "uplink", inventory_ctx_str (uport));
        inventory_ctx_set (inv, o, "uplink_speed", inventory_ctx_str (usp));
        inventory_ctx_set (inv, o, "uplink_width", inventory_ctx_num (uw > 0, uw));
    }
    bool expander = sysfs_has_component (rel, "expander-", false)
                    || sysfs_has_component (rel, "expander_", false);
    inventory_ctx_set (inv, o, "expander", json_boolean (expander));

    /* Partitions are subdirectories with a "partition" attribute; the disk
       counts as mounted / held / boot when any of them is. */
    bool mounted = false, root = false, partitioned = false;
    sysfs_pathf (path, sizeof path, "%s/holders", bd);
    bool holders = sysfs_dir_nonempty (path);
    inventory_mounts_state (inv, bd, name, &mounted, &root);
    DIR *d = opendir (bd);
    struct dirent *e;
    while (d && (e = readdir (d))) {
        char part[PATH_MAX];
        if (e->d_name[0] == '.' || !sysfs_pathf (part, sizeof part, "%s/%s", bd, e->d_name)
            || !sysfs_pathf (path, sizeof path, "%s/partition", part) || !sysfs_exists (path))
            continue;
        partitioned = true;
        sysfs_pathf (path, sizeof path, "%s/holders", part);
        holders |= sysfs_dir_nonempty (path);
        inventory_mounts_state (inv, part, e->d_name, &mounted, &root);
    }
    if (d)
        closedir (d);
    inventory_ctx_set (inv, o, "mounted", json_boolean (mounted));
    inventory_ctx_set (inv, o, "partitioned", json_boolean (partitioned));
    inventory_ctx_set (inv, o, "holders", json_boolean (holders));
    inventory_ctx_set (inv, o, "boot", json_boolean (root));
    return o;
}

static int
s_cmp_str (const void *a, const void *b)
{
    return strcmp (*(char *const *) a, *(char *const *) b);
}

json_t *
inventory_drives_json (inventory_ctx_t *inv)
{
    json_t *arr = json_array ();
    if (!arr) {
        inv->oom = true;
        return NULL;
    }
    char dir[PATH_MAX];
    DIR *d = sysfs_pathf (dir, sizeof dir, "%s/block", inv->sys) ? opendir (dir) : NULL;
    if (!d)
        return arr;
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir (d))) {
        char path[PATH_MAX];
        if (s_skip_block (e->d_name))
            continue;
        /* Unbacked loop devices are the idle pool losetup allocates from. */
        if (s_is_loop (e->d_name)
            && (!sysfs_pathf (path, sizeof path, "%s/%s/loop/backing_file", dir, e->d_name)
                || !sysfs_exists (path)))
            continue;
        char **nn = realloc (names, (n + 1) * sizeof *nn);
        char *s = strdup (e->d_name);
        if (!nn || !s) {
            free (s);
            if (nn)
                names = nn;
            inv->oom = true;
            break;
        }
        names = nn;
        names[n++] = s;
    }
    closedir (d);
    if (n)
        qsort (names, n, sizeof *names, s_cmp_str);
    for (size_t i = 0; i < n; i++) {
        json_t *j = s_drive_json (inv, names[i]);
        if (!j || json_array_append_new (arr, j) != 0)
            inv->oom = true;
        free (names[i]);
    }
    free (names);
    return arr;
}

