/*  inventory_hba.c: see inventory_hba.h.  Every read may fail and becomes
    "unknown" or null in place (inventory.c says why). */
#define _GNU_SOURCE
#include "inventory_hba.h"
#include "sysfs.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* How deep below a PCI function we look for scsi_host/hostN: AHCI puts it
   at ata1/host0/scsi_host, mpt3sas at host2/scsi_host. */
#define SCSI_HOST_DEPTH 3

/* True for a PCI function that drives storage: class 0x01xxxx, or a virtio
   function (vendor 0x1af4) whose virtio device is a block or SCSI one. */
static bool
s_pci_is_storage (const char *dir)
{
    char buf[64];
    unsigned long v;
    if (sysfs_read_strf (buf, sizeof buf, "%s/class", dir) && sysfs_parse_hex (buf, &v)
        && (v >> 16) == 0x01)
        return true;
    if (!sysfs_read_strf (buf, sizeof buf, "%s/vendor", dir) || !sysfs_parse_hex (buf, &v)
        || v != 0x1af4)
        return false;
    DIR *d = opendir (dir);
    if (!d)
        return false;
    bool storage = false;
    struct dirent *e;
    while (!storage && (e = readdir (d))) {
        char path[PATH_MAX], drv[NAME_MAX + 1];
        if (strncmp (e->d_name, "virtio", 6) == 0
            && sysfs_pathf (path, sizeof path, "%s/%s/driver", dir, e->d_name)
            && sysfs_link_base (path, drv, sizeof drv))
            storage = !strcmp (drv, "virtio_blk") || !strcmp (drv, "virtio_scsi");
    }
    closedir (d);
    return storage;
}

void
inventory_hba_add (inventory_ctx_t *inv, const char *addr, const char *dir)
{
    for (int i = 0; i < inv->nctrls; i++)
        if (strcmp (inv->ctrls[i].addr, addr) == 0)
            return;
    if (!s_pci_is_storage (dir))
        return;
    inventory_ctrl_t *c = realloc (inv->ctrls, (size_t) (inv->nctrls + 1) * sizeof *c);
    if (!c) {
        inv->oom = true;
        return;
    }
    inv->ctrls = c;
    c += inv->nctrls++;
    str_copy (c->addr, sizeof c->addr, addr);
    str_copy (c->dir, sizeof c->dir, dir);
}

static void
s_scan_pci (inventory_ctx_t *inv)
{
    char bus[PATH_MAX];
    if (!sysfs_pathf (bus, sizeof bus, "%s/bus/pci/devices", inv->sys))
        return;
    DIR *d = opendir (bus);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir (d))) {
        char path[PATH_MAX], real[PATH_MAX];
        if (!sysfs_is_pci_addr (e->d_name, strlen (e->d_name))
            || !sysfs_pathf (path, sizeof path, "%s/%s", bus, e->d_name))
            continue;
        inventory_hba_add (inv, e->d_name, realpath (path, real) ? real : path);
    }
    closedir (d);
}

/* Looks vendor (and device) up in pci.ids: "VVVV  name" lines, each
   followed by "\tDDDD  name" lines, until the "C " class section.  Leaves
   the names "" when the file or the ids are missing. */
static void
s_pciids_lookup (const char *file, unsigned long vendor, unsigned long device,
               char *vname, size_t vcap, char *dname, size_t dcap)
{
    vname[0] = dname[0] = '\0';
    FILE *f = file[0] ? fopen (file, "r") : NULL;
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    bool in_vendor = false;
    while (getline (&line, &cap, f) > 0) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (line[0] == 'C' && line[1] == ' ')
            break;
        char *end;
        if (isxdigit ((unsigned char) line[0])) {
            if (in_vendor)
                break;  /* the vendor's devices are over */
            if (strtoul (line, &end, 16) == vendor && end == line + 4) {
                in_vendor = true;
                str_copy (vname, vcap, sysfs_trim (end));
            }
        } else if (in_vendor && line[0] == '\t' && isxdigit ((unsigned char) line[1])) {
            if (strtoul (line + 1, &end, 16) == device && end == line + 5) {
                str_copy (dname, dcap, sysfs_trim (end));
                break;
            }
        }
    }
    free (line);
    fclose (f);
}

/* Finds a firmware attribute in a scsi_host/hostN directory below dir
   (depth levels down, not into symlinks or child PCI functions).  The
   attribute name is the driver's: mpt3sas says version_fw, megaraid_sas
   fw_version, smartpqi firmware_version, hpsa firmware_revision. */
static bool
s_scsi_host_fw (const char *dir, int depth, char *out, size_t cap)
{
    static const char *const attrs[] = {
        "version_fw", "fw_version", "firmware_rev", "firmware_version", "firmware_revision",
    };
    DIR *d = opendir (dir);
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir (d))) {
        char sub[PATH_MAX];
        struct stat st;
        if (e->d_name[0] == '.' || sysfs_is_pci_addr (e->d_name, strlen (e->d_name))
            || !sysfs_pathf (sub, sizeof sub, "%s/%s", dir, e->d_name)
            || lstat (sub, &st) != 0 || !S_ISDIR (st.st_mode))
            continue;
        if (strcmp (e->d_name, "scsi_host") == 0) {
            DIR *h = opendir (sub);
            struct dirent *he;
            while (h && !found && (he = readdir (h)))
                for (size_t i = 0; he->d_name[0] != '.' && !found && i < sizeof attrs / sizeof attrs[0]; i++)
                    found = sysfs_read_strf (out, cap, "%s/%s/%s", sub, he->d_name, attrs[i]);
            if (h)
                closedir (h);
        } else if (depth > 0) {
            found = s_scsi_host_fw (sub, depth - 1, out, cap);
        }
    }
    closedir (d);
    return found;
}

/* The NVMe controller firmware under a PCI function: nvme/nvmeN/firmware_rev. */
static bool
s_nvme_fw (const char *dir, char *out, size_t cap)
{
    char ndir[PATH_MAX];
    if (!sysfs_pathf (ndir, sizeof ndir, "%s/nvme", dir))
        return false;
    DIR *d = opendir (ndir);
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir (d)))
        if (strncmp (e->d_name, "nvme", 4) == 0)
            found = sysfs_read_strf (out, cap, "%s/%s/firmware_rev", ndir, e->d_name);
    closedir (d);
    return found;
}

/* The kernel's "Unknown" / "Unknown speed" (link down) reads as unknown. */
static json_t *
s_jlink (const char *s)
{
    return inventory_ctx_str (strncasecmp (s, "unknown", 7) == 0 ? "" : s);
}

/* The JSON object of controller c. */
static json_t *
s_ctrl_json (inventory_ctx_t *inv, const inventory_ctrl_t *c)
{
    json_t *o = inventory_ctx_object (inv);
    if (!o)
        return NULL;
    char vid[64], did[64], cls[64], drv[NAME_MAX + 1], ver[256], fw[256];
    char vname[256], dname[256], path[PATH_MAX];
    unsigned long v = 0, dv = 0;
    bool have_v = sysfs_read_strf (vid, sizeof vid, "%s/vendor", c->dir)
                  && sysfs_parse_hex (vid, &v);
    bool have_d = sysfs_read_strf (did, sizeof did, "%s/device", c->dir)
                  && sysfs_parse_hex (did, &dv);
    sysfs_read_strf (cls, sizeof cls, "%s/class", c->dir);
    vname[0] = dname[0] = '\0';
    if (have_v)
        s_pciids_lookup (inv->pciids, v, have_d ? dv : ~0ul, vname, sizeof vname, dname, sizeof dname);
    if (have_v)
        snprintf (vid, sizeof vid, "0x%04lx", v);
    if (have_d)
        snprintf (did, sizeof did, "0x%04lx", dv);

    ver[0] = '\0';
    if (sysfs_pathf (path, sizeof path, "%s/driver", c->dir) && sysfs_link_base (path, drv, sizeof drv)) {
        /* Modules are named with '_' where drivers may say '-' (virtio-pci). */
        char mod[NAME_MAX + 1];
        str_copy (mod, sizeof mod, drv);
        for (char *p = mod; *p; p++)
            if (*p == '-')
                *p = '_';
        sysfs_read_strf (ver, sizeof ver, "%s/module/%s/version", inv->sys, mod);
    }
    if (!s_nvme_fw (c->dir, fw, sizeof fw))
        s_scsi_host_fw (c->dir, SCSI_HOST_DEPTH, fw, sizeof fw);

    char cs[64], ms[64];
    uint64_t w;
    sysfs_read_strf (cs, sizeof cs, "%s/current_link_speed", c->dir);
    sysfs_read_strf (ms, sizeof ms, "%s/max_link_speed", c->dir);
    inventory_ctx_set (inv, o, "pci_address", inventory_ctx_str (c->addr));
    inventory_ctx_set (inv, o, "vendor_id", inventory_ctx_str (have_v ? vid : ""));
    inventory_ctx_set (inv, o, "device_id", inventory_ctx_str (have_d ? did : ""));
    inventory_ctx_set (inv, o, "vendor", inventory_ctx_str (vname));
    inventory_ctx_set (inv, o, "device", inventory_ctx_str (dname));
    inventory_ctx_set (inv, o, "class", inventory_ctx_str (cls));
    inventory_ctx_set (inv, o, "driver", inventory_ctx_str (drv));
    inventory_ctx_set (inv, o, "driver_version", inventory_ctx_str (ver));
    inventory_ctx_set (inv, o, "firmware", inventory_ctx_str (fw));
    inventory_ctx_set (inv, o, "link_speed", s_jlink (cs));
    bool ok = sysfs_read_u64f (&w, "%s/current_link_width", c->dir);
    inventory_ctx_set (inv, o, "link_width", inventory_ctx_num (ok && w > 0, w));
    inventory_ctx_set (inv, o, "max_link_speed", s_jlink (ms));
    ok = sysfs_read_u64f (&w, "%s/max_link_width", c->dir);
    inventory_ctx_set (inv, o, "max_link_width", inventory_ctx_num (ok && w > 0, w));
    return o;
}


static int
s_cmp_ctrl (const void *a, const void *b)
{
    return strcmp (((const inventory_ctrl_t *) a)->addr, ((const inventory_ctrl_t *) b)->addr);
}

json_t *
inventory_hba_json (inventory_ctx_t *inv)
{
    s_scan_pci (inv);
    if (inv->nctrls)
        qsort (inv->ctrls, (size_t) inv->nctrls, sizeof *inv->ctrls, s_cmp_ctrl);
    json_t *ctrls = json_array ();
    for (int i = 0; ctrls && i < inv->nctrls; i++) {
        json_t *c = s_ctrl_json (inv, &inv->ctrls[i]);
        if (!c || json_array_append_new (ctrls, c) != 0)
            inv->oom = true;
    }
    return ctrls;
}
