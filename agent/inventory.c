/*  inventory.c: see inventory.h.

    Every read may fail (a fixture without the file, an older kernel without
    the attribute, a driver that does not export it), and every failure
    becomes "unknown" or null in place: the inventory is informational and
    must never keep an agent from running a job. */
#define _GNU_SOURCE
#include "inventory.h"
#include "link_rate.h"
#include "sysfs.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* sysfs attributes are at most a page; the slack costs nothing. */
/* /proc/cpuinfo is about 1 KiB per CPU. */
#define PROC_MAX (16u << 20)
/* Bounds the holder chain (disk -> md -> dm) we follow for mounts. */
#define HOLDER_DEPTH 3
/* How deep below a PCI function we look for scsi_host/hostN: AHCI puts it
   at ata1/host0/scsi_host, mpt3sas at host2/scsi_host. */
#define SCSI_HOST_DEPTH 3

typedef struct {
    char name[NAME_MAX + 1];    /* "sda2" from /dev/sda2, or "" */
    char majmin[32];            /* "8:2" from mountinfo, or "" */
    bool root;                  /* mounted at "/" */
} mount_t;

typedef struct {
    char addr[64];
    char dir[PATH_MAX];         /* absolute sysfs directory of the function */
} ctrl_t;

typedef struct {
    char sys[PATH_MAX];         /* sysfs root, realpath'd when possible */
    char proc[PATH_MAX];
    char etc[PATH_MAX];
    char pciids[PATH_MAX];      /* "" when no pci.ids was found */
    mount_t *mounts;
    int nmounts;
    ctrl_t *ctrls;
    int nctrls;
    bool oom;
} inv_t;

/* ---- small readers ---------------------------------------------------- */

/* Reads a decimal attribute.  Returns false when missing or not a number. */
static bool __attribute__ ((format (printf, 2, 3)))
read_u64f (uint64_t *v, const char *fmt, ...)
{
    char path[PATH_MAX], buf[64];
    va_list ap;
    va_start (ap, fmt);
    int n = vsnprintf (path, sizeof path, fmt, ap);
    va_end (ap);
    if (n < 0 || (size_t) n >= sizeof path || !sysfs_read_str (path, buf, sizeof buf))
        return false;
    return parse_u64 (buf, 0, UINT64_MAX, v) == 0;
}

/* Parses "0x1000"-style hex.  Returns false when s is not that. */
static bool
parse_hex (const char *s, unsigned long *v)
{
    if (!isxdigit ((unsigned char) s[s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 2 : 0]))
        return false;
    char *end;
    errno = 0;
    *v = strtoul (s, &end, 16);
    return errno == 0 && *end == '\0';
}

static bool
exists (const char *path)
{
    struct stat st;
    return stat (path, &st) == 0;
}

/* True when dir exists and has an entry besides "." and "..". */
static bool
dir_nonempty (const char *dir)
{
    DIR *d = opendir (dir);
    if (!d)
        return false;
    bool any = false;
    struct dirent *e;
    while (!any && (e = readdir (d)))
        any = strcmp (e->d_name, ".") && strcmp (e->d_name, "..");
    closedir (d);
    return any;
}

/* The last component of the symlink at path (a driver link), into out.
   Returns false (out "") when it is no symlink. */
static bool
link_base (const char *path, char *out, size_t cap)
{
    char buf[PATH_MAX];
    out[0] = '\0';
    ssize_t n = readlink (path, buf, sizeof buf - 1);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    const char *b = strrchr (buf, '/');
    str_copy (out, cap, b ? b + 1 : buf);
    return out[0] != '\0';
}

/* ---- JSON helpers ----------------------------------------------------- */

/* A JSON string of s, "unknown" for NULL or "".  jansson refuses invalid
   UTF-8, and sysfs strings are bytes from firmware: such strings keep their
   ASCII and get '?' for the rest.  A string with a control character is
   not text (an HBA once answered "Pmw>\x01V" for its firmware): unknown. */
static json_t *
jstr (const char *s)
{
    if (!s || !*s)
        return json_string ("unknown");
    size_t n = strlen (s);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char) s[i] < 0x20 || s[i] == 0x7f)
            return json_string ("unknown");
    if (utf8_invalid_at (s, n) < 0)
        return json_string (s);
    char *c = strdup (s);
    if (!c)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char) c[i] >= 0x80)
            c[i] = '?';
    json_t *j = json_string (c);
    free (c);
    return j;
}

static json_t *
jnum (bool ok, uint64_t v)
{
    return ok && v <= (uint64_t) INT64_MAX ? json_integer ((json_int_t) v) : json_null ();
}

/* Sets o[key] = v, noting out-of-memory (v NULL or the set failing). */
static void
set (inv_t *inv, json_t *o, const char *key, json_t *v)
{
    if (!v || json_object_set_new (o, key, v) != 0)
        inv->oom = true;
}

/* ---- paths ------------------------------------------------------------ */

/* True for a PCI address component: "0000:01:00.0" (or a wider VMD domain
   such as "10000:e1:00.0"). */
static bool
is_pci_addr (const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && isxdigit ((unsigned char) s[i]))
        i++;
    if (i < 4 || i > 8 || len != i + 8)
        return false;
    const char *t = s + i;
    return t[0] == ':' && isxdigit ((unsigned char) t[1]) && isxdigit ((unsigned char) t[2])
        && t[3] == ':' && isxdigit ((unsigned char) t[4]) && isxdigit ((unsigned char) t[5])
        && t[6] == '.' && isxdigit ((unsigned char) t[7]);
}

/* Finds the first (or the last) component of rel ("/devices/.../x") that
   match() accepts, or when match is NULL that starts with prefix.
   Returns its offset in rel and sets *len, or -1. */
static long
find_component (const char *rel, bool (*match) (const char *, size_t), const char *prefix,
                bool last, size_t *len)
{
    long found = -1;
    size_t n = prefix ? strlen (prefix) : 0;
    const char *p = rel;
    while (*p) {
        while (*p == '/')
            p++;
        const char *q = strchrnul (p, '/');
        if (q > p && (match ? match (p, (size_t) (q - p)) : strncmp (p, prefix, n) == 0)) {
            found = p - rel;
            *len = (size_t) (q - p);
            if (!last)
                break;
        }
        p = q;
    }
    return found;
}

/* The last component of rel that match() accepts (find_component). */
static long
last_component (const char *rel, bool (*match) (const char *, size_t), size_t *len)
{
    return find_component (rel, match, NULL, true, len);
}

static bool
is_scsi_host (const char *s, size_t len)
{
    if (len < 5 || strncmp (s, "host", 4))
        return false;
    for (size_t i = 4; i < len; i++)
        if (!isdigit ((unsigned char) s[i]))
            return false;
    return true;
}

/* True when a component of rel starts with prefix (and, with digit, is
   followed by a digit: "ata1" but not "ata_port"). */
static bool
has_component (const char *rel, const char *prefix, bool digit)
{
    size_t n = strlen (prefix);
    const char *p = rel;
    while (*p) {
        while (*p == '/')
            p++;
        if (strncmp (p, prefix, n) == 0 && (!digit || isdigit ((unsigned char) p[n])))
            return true;
        p = strchrnul (p, '/');
    }
    return false;
}

/* ---- mounts ----------------------------------------------------------- */

static void
add_mount (inv_t *inv, const char *name, const char *majmin, bool root)
{
    mount_t *m = realloc (inv->mounts, (size_t) (inv->nmounts + 1) * sizeof *m);
    if (!m) {
        inv->oom = true;
        return;
    }
    inv->mounts = m;
    m += inv->nmounts++;
    str_copy (m->name, sizeof m->name, name);
    str_copy (m->majmin, sizeof m->majmin, majmin);
    m->root = root;
}

/* Loads proc/self/mounts (else proc/mounts) by device name and
   proc/self/mountinfo by major:minor, which also catches "/dev/root" and
   sources given by label.  Missing files leave the list short. */
static void
load_mounts (inv_t *inv)
{
    char path[PATH_MAX];
    char *buf = NULL;
    if (sysfs_pathf (path, sizeof path, "%s/self/mounts", inv->proc))
        buf = file_read_all (path, PROC_MAX, NULL);
    if (!buf && sysfs_pathf (path, sizeof path, "%s/mounts", inv->proc))
        buf = file_read_all (path, PROC_MAX, NULL);
    if (buf) {
        char *save = NULL;
        for (char *line = strtok_r (buf, "\n", &save); line; line = strtok_r (NULL, "\n", &save)) {
            char src[PATH_MAX], dir[PATH_MAX];
            if (sscanf (line, "%4095s %4095s", src, dir) != 2 || strncmp (src, "/dev/", 5))
                continue;
            const char *base = strrchr (src, '/') + 1;
            add_mount (inv, base, "", strcmp (dir, "/") == 0);
        }
        free (buf);
    }
    if (sysfs_pathf (path, sizeof path, "%s/self/mountinfo", inv->proc)
        && (buf = file_read_all (path, PROC_MAX, NULL))) {
        char *save = NULL;
        for (char *line = strtok_r (buf, "\n", &save); line; line = strtok_r (NULL, "\n", &save)) {
            /* "36 35 98:0 /mnt1 /mnt/parent rw ..." */
            char majmin[32], dir[PATH_MAX];
            if (sscanf (line, "%*s %*s %31s %*s %4095s", majmin, dir) != 2
                || strncmp (majmin, "0:", 2) == 0)  /* anonymous: tmpfs, overlay, btrfs */
                continue;
            add_mount (inv, "", majmin, strcmp (dir, "/") == 0);
        }
        free (buf);
    }
}

/* Looks up the block device at dir (named name) and, through holders/, what
   is stacked on it (dm, md): sets *mounted / *root when any is mounted. */
static void
mount_state (const inv_t *inv, const char *dir, const char *name, int depth,
             bool *mounted, bool *root)
{
    char majmin[32], dmname[NAME_MAX + 1];
    sysfs_read_strf (majmin, sizeof majmin, "%s/dev", dir);
    sysfs_read_strf (dmname, sizeof dmname, "%s/dm/name", dir);
    for (int i = 0; i < inv->nmounts; i++) {
        const mount_t *m = &inv->mounts[i];
        if ((m->name[0] && (strcmp (m->name, name) == 0 || (dmname[0] && strcmp (m->name, dmname) == 0)))
            || (m->majmin[0] && majmin[0] && strcmp (m->majmin, majmin) == 0)) {
            *mounted = true;
            *root |= m->root;
        }
    }
    if (depth <= 0)
        return;
    char hdir[PATH_MAX];
    if (!sysfs_pathf (hdir, sizeof hdir, "%s/holders", dir))
        return;
    DIR *d = opendir (hdir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir (d))) {
        char sub[PATH_MAX];
        if (e->d_name[0] != '.' && sysfs_pathf (sub, sizeof sub, "%s/%s", hdir, e->d_name))
            mount_state (inv, sub, e->d_name, depth - 1, mounted, root);
    }
    closedir (d);
}

/* ---- controllers ------------------------------------------------------ */

/* True for a PCI function that drives storage: class 0x01xxxx, or a virtio
   function (vendor 0x1af4) whose virtio device is a block or SCSI one. */
static bool
pci_is_storage (const char *dir)
{
    char buf[64];
    unsigned long v;
    if (sysfs_read_strf (buf, sizeof buf, "%s/class", dir) && parse_hex (buf, &v) && (v >> 16) == 0x01)
        return true;
    if (!sysfs_read_strf (buf, sizeof buf, "%s/vendor", dir) || !parse_hex (buf, &v) || v != 0x1af4)
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
            && link_base (path, drv, sizeof drv))
            storage = !strcmp (drv, "virtio_blk") || !strcmp (drv, "virtio_scsi");
    }
    closedir (d);
    return storage;
}

/* Adds the function at dir (address addr) unless listed or not storage. */
static void
add_ctrl (inv_t *inv, const char *addr, const char *dir)
{
    for (int i = 0; i < inv->nctrls; i++)
        if (strcmp (inv->ctrls[i].addr, addr) == 0)
            return;
    if (!pci_is_storage (dir))
        return;
    ctrl_t *c = realloc (inv->ctrls, (size_t) (inv->nctrls + 1) * sizeof *c);
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
scan_pci (inv_t *inv)
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
        if (!is_pci_addr (e->d_name, strlen (e->d_name))
            || !sysfs_pathf (path, sizeof path, "%s/%s", bus, e->d_name))
            continue;
        add_ctrl (inv, e->d_name, realpath (path, real) ? real : path);
    }
    closedir (d);
}

/* Looks vendor (and device) up in pci.ids: "VVVV  name" lines, each
   followed by "\tDDDD  name" lines, until the "C " class section.  Leaves
   the names "" when the file or the ids are missing. */
static void
pciids_lookup (const char *file, unsigned long vendor, unsigned long device,
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
scsi_host_fw (const char *dir, int depth, char *out, size_t cap)
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
        if (e->d_name[0] == '.' || is_pci_addr (e->d_name, strlen (e->d_name))
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
            found = scsi_host_fw (sub, depth - 1, out, cap);
        }
    }
    closedir (d);
    return found;
}

/* The NVMe controller firmware under a PCI function: nvme/nvmeN/firmware_rev. */
static bool
nvme_fw (const char *dir, char *out, size_t cap)
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
jlink (const char *s)
{
    return jstr (strncasecmp (s, "unknown", 7) == 0 ? "" : s);
}

static json_t *
ctrl_json (inv_t *inv, const ctrl_t *c)
{
    json_t *o = json_object ();
    if (!o) {
        inv->oom = true;
        return NULL;
    }
    char vid[64], did[64], cls[64], drv[NAME_MAX + 1], ver[256], fw[256];
    char vname[256], dname[256], path[PATH_MAX];
    unsigned long v = 0, dv = 0;
    bool have_v = sysfs_read_strf (vid, sizeof vid, "%s/vendor", c->dir) && parse_hex (vid, &v);
    bool have_d = sysfs_read_strf (did, sizeof did, "%s/device", c->dir) && parse_hex (did, &dv);
    sysfs_read_strf (cls, sizeof cls, "%s/class", c->dir);
    vname[0] = dname[0] = '\0';
    if (have_v)
        pciids_lookup (inv->pciids, v, have_d ? dv : ~0ul, vname, sizeof vname, dname, sizeof dname);
    if (have_v)
        snprintf (vid, sizeof vid, "0x%04lx", v);
    if (have_d)
        snprintf (did, sizeof did, "0x%04lx", dv);

    ver[0] = '\0';
    if (sysfs_pathf (path, sizeof path, "%s/driver", c->dir) && link_base (path, drv, sizeof drv)) {
        /* Modules are named with '_' where drivers may say '-' (virtio-pci). */
        char mod[NAME_MAX + 1];
        str_copy (mod, sizeof mod, drv);
        for (char *p = mod; *p; p++)
            if (*p == '-')
                *p = '_';
        sysfs_read_strf (ver, sizeof ver, "%s/module/%s/version", inv->sys, mod);
    }
    if (!nvme_fw (c->dir, fw, sizeof fw))
        scsi_host_fw (c->dir, SCSI_HOST_DEPTH, fw, sizeof fw);

    char cs[64], ms[64];
    uint64_t w;
    sysfs_read_strf (cs, sizeof cs, "%s/current_link_speed", c->dir);
    sysfs_read_strf (ms, sizeof ms, "%s/max_link_speed", c->dir);
    set (inv, o, "pci_address", jstr (c->addr));
    set (inv, o, "vendor_id", jstr (have_v ? vid : ""));
    set (inv, o, "device_id", jstr (have_d ? did : ""));
    set (inv, o, "vendor", jstr (vname));
    set (inv, o, "device", jstr (dname));
    set (inv, o, "class", jstr (cls));
    set (inv, o, "driver", jstr (drv));
    set (inv, o, "driver_version", jstr (ver));
    set (inv, o, "firmware", jstr (fw));
    set (inv, o, "link_speed", jlink (cs));
    bool ok = read_u64f (&w, "%s/current_link_width", c->dir);
    set (inv, o, "link_width", jnum (ok && w > 0, w));
    set (inv, o, "max_link_speed", jlink (ms));
    ok = read_u64f (&w, "%s/max_link_width", c->dir);
    set (inv, o, "max_link_width", jnum (ok && w > 0, w));
    return o;
}

/* ---- drives ----------------------------------------------------------- */

/* True for /sys/block entries that are no drives: RAM disks, compressed
   swap, device-mapper and md (they show up as holders), optical drives. */
static bool
skip_block (const char *name)
{
    static const char *const skip[] = { "ram", "zram", "dm-", "md", "sr" };
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
        if (strncmp (name, skip[i], strlen (skip[i])) == 0)
            return true;
    return name[0] == '.';
}

static bool
is_loop (const char *name)
{
    return strncmp (name, "loop", 4) == 0 && isdigit ((unsigned char) name[4]);
}

/* The serial from a SCSI VPD page 0x80 (unit serial number): 4 header
   bytes, the length in bytes 2-3, then ASCII, often space-padded. */
static bool
vpd80_serial (const char *dev, char *out, size_t cap)
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
active_scheduler (const char *s, char *out, size_t cap)
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
in_list (const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp (s, list[i]) == 0)
            return true;
    return false;
}

/* Classifies by where the device sits (rel: its sysfs path below the root)
   and which drivers serve it. */
static const char *
transport_of (const char *name, const char *rel, const char *drv, const char *proc_name)
{
    static const char *const sas_hosts[] = {
        "mpt3sas", "mpt2sas", "mptsas", "megaraid_sas", "smartpqi", "hpsa", "aacraid",
        "pm80xx", "hisi_sas_v1_hw", "hisi_sas_v2_hw", "hisi_sas_v3_hw", "isci", "mvsas", "aic94xx",
        "mpi3mr",
    };
    if (is_loop (name))
        return "loop";
    if (has_component (rel, "nvme", false))   /* .../nvme/nvme0/..., nvme-subsystem */
        return "nvme";
    if (strcmp (drv, "virtio_blk") == 0 || has_component (rel, "virtio", true))
        return "virtio";
    if (has_component (rel, "end_device-", false) || has_component (rel, "expander-", false)
        || has_component (rel, "sas_", false))
        return "sas";
    if (has_component (rel, "ata", true) || strcmp (proc_name, "ahci") == 0
        || strncmp (proc_name, "ata_", 4) == 0 || strncmp (proc_name, "sata_", 5) == 0)
        return "sata";
    if (in_list (proc_name, sas_hosts, sizeof sas_hosts / sizeof sas_hosts[0]))
        return "sas";
    return "other";
}

/* The offset just past the first (or the last) component of rel that
   starts with prefix, or -1. */
static long
component_end (const char *rel, const char *prefix, bool last)
{
    size_t len = 0;
    long at = find_component (rel, NULL, prefix, last, &len);
    return at < 0 ? -1 : at + (long) len;
}

/* "ata3": a libata port. */
static bool
is_ata_port (const char *s, size_t len)
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
keep_slower (char *best, size_t cap, const char *s)
{
    double b = link_rate_bps (best, 1), v = link_rate_bps (s, 1);
    if (isfinite (v) && (!isfinite (b) || v < b))
        str_copy (best, cap, s);
}

/* A SAS port's link (dir: its sysfs directory): its phys, the entries
   phy-H:N (links to the phy devices), are its width; the slowest of their
   negotiated rates is its speed. */
static void
sas_port_link (const char *dir, char *speed, size_t cap, uint64_t *width)
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
            keep_slower (speed, cap, rate);
    }
    if (d)
        closedir (d);
}

/* A libata port's link (dir: its ataN directory): linkN/ata_link/linkN/
   sata_spd, the slowest of its links. */
static void
ata_port_link (const char *dir, char *speed, size_t cap)
{
    speed[0] = '\0';
    DIR *d = opendir (dir);
    struct dirent *e;
    while (d && (e = readdir (d))) {
        char rate[64];
        if (strncmp (e->d_name, "link", 4) == 0
            && sysfs_read_strf (rate, sizeof rate, "%s/%s/ata_link/%s/sata_spd", dir, e->d_name,
                                e->d_name))
            keep_slower (speed, cap, rate);
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
drive_link (inv_t *inv, const char *rel, const char *pci, char *speed, uint64_t *width,
            char *up, uint64_t *upw, char *upname, size_t upcap)
{
    char dir[PATH_MAX];
    speed[0] = up[0] = upname[0] = '\0';
    *width = *upw = 0;
    long at;
    if (has_component (rel, "nvme", false) && pci[0]) {
        sysfs_read_strf (speed, 64, "%s/current_link_speed", pci);
        if (!read_u64f (width, "%s/current_link_width", pci))
            *width = 0;
    } else if ((at = component_end (rel, "end_device-", true)) >= 0) {
        /* The port component just before end_device-. */
        char head[PATH_MAX];
        snprintf (head, sizeof head, "%.*s", (int) at, rel);
        long port = component_end (head, "port-", true);
        if (port >= 0 && sysfs_pathf (dir, sizeof dir, "%s%.*s", inv->sys, (int) port, rel))
            sas_port_link (dir, speed, 64, width);
        long exp = component_end (rel, "expander-", false);
        long hport = component_end (rel, "port-", false);
        if (exp >= 0 && hport >= 0 && hport < exp
            && sysfs_pathf (dir, sizeof dir, "%s%.*s", inv->sys, (int) hport, rel)) {
            sas_port_link (dir, up, 64, upw);
            const char *base = strrchr (dir, '/');
            str_copy (upname, upcap, base ? base + 1 : dir);
        }
    } else {
        size_t len = 0;
        at = last_component (rel, is_ata_port, &len);
        if (at >= 0 && sysfs_pathf (dir, sizeof dir, "%s%.*s", inv->sys, (int) (at + (long) len), rel)) {
            ata_port_link (dir, speed, 64);
            *width = speed[0] ? 1 : 0;
        }
    }
    if (!isfinite (link_rate_bps (speed, 1)))
        speed[0] = '\0', *width = 0;
    if (!isfinite (link_rate_bps (up, 1)))
        up[0] = '\0', *upw = 0;
}

static json_t *
drive_json (inv_t *inv, const char *name)
{
    json_t *o = json_object ();
    if (!o) {
        inv->oom = true;
        return NULL;
    }
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
    long at = is_loop (name) ? -1 : last_component (rel, is_pci_addr, &len);
    if (at >= 0) {
        memcpy (ctrl, rel + at, len);
        ctrl[len] = '\0';
        if (sysfs_pathf (cdir, sizeof cdir, "%s%.*s", inv->sys, (int) (at + (long) len), rel))
            add_ctrl (inv, ctrl, cdir);
    }
    char lsp[64], usp[64], uport[64];
    uint64_t lw, uw;
    drive_link (inv, rel, cdir, lsp, &lw, usp, &uw, uport, sizeof uport);
    at = last_component (rel, is_scsi_host, &len);
    if (at >= 0)
        sysfs_read_strf (proc_name, sizeof proc_name, "%s%.*s/scsi_host/%.*s/proc_name",
                   inv->sys, (int) (at + (long) len), rel, (int) len, rel + at);
    if (sysfs_pathf (path, sizeof path, "%s/device/driver", bd))
        link_base (path, drv, sizeof drv);

    char model[256], vendor[256], serial[256], wwn[256], fw[256], sched[256], buf[256];
    sysfs_read_strf (model, sizeof model, "%s/device/model", bd);
    sysfs_read_strf (vendor, sizeof vendor, "%s/device/vendor", bd);
    if (!sysfs_read_strf (serial, sizeof serial, "%s/device/serial", bd)
        && !sysfs_read_strf (serial, sizeof serial, "%s/serial", bd)
        && sysfs_pathf (path, sizeof path, "%s/device", bd))
        vpd80_serial (path, serial, sizeof serial);
    if (!sysfs_read_strf (wwn, sizeof wwn, "%s/wwid", bd))
        sysfs_read_strf (wwn, sizeof wwn, "%s/device/wwid", bd);
    if (!sysfs_read_strf (fw, sizeof fw, "%s/device/firmware_rev", bd))
        sysfs_read_strf (fw, sizeof fw, "%s/device/rev", bd);
    sched[0] = '\0';
    if (sysfs_read_strf (buf, sizeof buf, "%s/queue/scheduler", bd))
        active_scheduler (buf, sched, sizeof sched);

    /* /dev names turn the '!' sysfs uses for '/' back (cciss!c0d0). */
    char dev[PATH_MAX];
    sysfs_pathf (dev, sizeof dev, "/dev/%s", name);
    for (char *p = dev; *p; p++)
        if (*p == '!')
            *p = '/';

    set (inv, o, "name", jstr (name));
    set (inv, o, "path", jstr (dev));
    set (inv, o, "model", jstr (model));
    set (inv, o, "vendor", jstr (vendor));
    set (inv, o, "serial", jstr (serial));
    set (inv, o, "wwn", jstr (wwn));
    set (inv, o, "firmware", jstr (fw));
    uint64_t v;
    bool ok = read_u64f (&v, "%s/size", bd);
    set (inv, o, "size_bytes", jnum (ok && v <= UINT64_MAX / 512, v * 512));
    set (inv, o, "transport", jstr (transport_of (name, rel, drv, proc_name)));
    ok = read_u64f (&v, "%s/queue/rotational", bd);
    set (inv, o, "rotational", ok && v <= 1 ? json_boolean (v) : json_null ());
    ok = read_u64f (&v, "%s/queue/logical_block_size", bd);
    set (inv, o, "logical_block_size", jnum (ok, v));
    ok = read_u64f (&v, "%s/queue/physical_block_size", bd);
    set (inv, o, "physical_block_size", jnum (ok, v));
    set (inv, o, "scheduler", jstr (sched));
    ok = read_u64f (&v, "%s/queue/nr_requests", bd);
    set (inv, o, "nr_requests", jnum (ok, v));
    ok = read_u64f (&v, "%s/device/queue_depth", bd);
    set (inv, o, "queue_depth", jnum (ok, v));
    set (inv, o, "controller", jstr (ctrl));
    set (inv, o, "link_speed", jstr (lsp));
    set (inv, o, "link_width", jnum (lw > 0, lw));
    if (usp[0]) {
        set (inv, o, "uplink", jstr (uport));
        set (inv, o, "uplink_speed", jstr (usp));
        set (inv, o, "uplink_width", jnum (uw > 0, uw));
    }
    set (inv, o, "expander", json_boolean (has_component (rel, "expander-", false)
                                           || has_component (rel, "expander_", false)));

    /* Partitions are subdirectories with a "partition" attribute; the disk
       counts as mounted / held / boot when any of them is. */
    bool mounted = false, root = false, partitioned = false;
    sysfs_pathf (path, sizeof path, "%s/holders", bd);
    bool holders = dir_nonempty (path);
    mount_state (inv, bd, name, HOLDER_DEPTH, &mounted, &root);
    DIR *d = opendir (bd);
    struct dirent *e;
    while (d && (e = readdir (d))) {
        char part[PATH_MAX];
        if (e->d_name[0] == '.' || !sysfs_pathf (part, sizeof part, "%s/%s", bd, e->d_name)
            || !sysfs_pathf (path, sizeof path, "%s/partition", part) || !exists (path))
            continue;
        partitioned = true;
        sysfs_pathf (path, sizeof path, "%s/holders", part);
        holders |= dir_nonempty (path);
        mount_state (inv, part, e->d_name, HOLDER_DEPTH, &mounted, &root);
    }
    if (d)
        closedir (d);
    set (inv, o, "mounted", json_boolean (mounted));
    set (inv, o, "partitioned", json_boolean (partitioned));
    set (inv, o, "holders", json_boolean (holders));
    set (inv, o, "boot", json_boolean (root));
    return o;
}

static int
cmp_str (const void *a, const void *b)
{
    return strcmp (*(char *const *) a, *(char *const *) b);
}

static int
cmp_ctrl (const void *a, const void *b)
{
    return strcmp (((const ctrl_t *) a)->addr, ((const ctrl_t *) b)->addr);
}

static json_t *
drives_json (inv_t *inv)
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
        if (skip_block (e->d_name))
            continue;
        /* Unbacked loop devices are the idle pool losetup allocates from. */
        if (is_loop (e->d_name) && (!sysfs_pathf (path, sizeof path, "%s/%s/loop/backing_file", dir, e->d_name)
                                    || !exists (path)))
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
        qsort (names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        json_t *j = drive_json (inv, names[i]);
        if (!j || json_array_append_new (arr, j) != 0)
            inv->oom = true;
        free (names[i]);
    }
    free (names);
    return arr;
}

/* ---- host ------------------------------------------------------------- */

/* PRETTY_NAME from os-release, unquoted. */
static void
os_pretty_name (const char *etc, char *out, size_t cap)
{
    char path[PATH_MAX];
    out[0] = '\0';
    char *buf = sysfs_pathf (path, sizeof path, "%s/os-release", etc) ? file_read_all (path, SYSFS_ATTR_MAX, NULL) : NULL;
    if (!buf)
        return;
    char *save = NULL;
    for (char *line = strtok_r (buf, "\n", &save); line; line = strtok_r (NULL, "\n", &save)) {
        line = sysfs_trim (line);
        if (strncmp (line, "PRETTY_NAME=", 12))
            continue;
        char *v = line + 12;
        size_t n = strlen (v);
        if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
            v[n - 1] = '\0';
            v++;
        }
        str_copy (out, cap, v);
        break;
    }
    free (buf);
}

static json_t *
host_json (inv_t *inv)
{
    json_t *o = json_object ();
    if (!o) {
        inv->oom = true;
        return NULL;
    }
    char hostname[256], kernel[256], osr[256], boot[64], model[256] = "", path[PATH_MAX];
    sysfs_read_strf (hostname, sizeof hostname, "%s/sys/kernel/hostname", inv->proc);
    sysfs_read_strf (kernel, sizeof kernel, "%s/sys/kernel/osrelease", inv->proc);
    sysfs_read_strf (boot, sizeof boot, "%s/sys/kernel/random/boot_id", inv->proc);
    os_pretty_name (inv->etc, osr, sizeof osr);

    /* "processor : N" per logical CPU; "model name" on x86 and most arm64
       kernels, "cpu" on POWER. */
    uint64_t ncpu = 0;
    char *buf = sysfs_pathf (path, sizeof path, "%s/cpuinfo", inv->proc) ? file_read_all (path, PROC_MAX, NULL) : NULL;
    if (buf) {
        char *save = NULL;
        for (char *line = strtok_r (buf, "\n", &save); line; line = strtok_r (NULL, "\n", &save)) {
            char *colon = strchr (line, ':');
            if (!colon)
                continue;
            *colon = '\0';
            const char *key = sysfs_trim (line);
            if (strcmp (key, "processor") == 0)
                ncpu++;
            else if (!model[0] && (strcmp (key, "model name") == 0 || strcmp (key, "cpu") == 0))
                str_copy (model, sizeof model, sysfs_trim (colon + 1));
        }
        free (buf);
    }
    uint64_t memkb = 0;
    bool have_mem = false;
    buf = sysfs_pathf (path, sizeof path, "%s/meminfo", inv->proc) ? file_read_all (path, PROC_MAX, NULL) : NULL;
    if (buf) {
        unsigned long long kb;
        char *p = strstr (buf, "MemTotal:");
        if (p && sscanf (p, "MemTotal: %llu kB", &kb) == 1 && kb <= UINT64_MAX / 1024) {
            memkb = kb;
            have_mem = true;
        }
        free (buf);
    }
    set (inv, o, "hostname", jstr (hostname));
    set (inv, o, "kernel", jstr (kernel));
    set (inv, o, "os_release", jstr (osr));
    set (inv, o, "cpu_model", jstr (model));
    set (inv, o, "cpu_count", jnum (ncpu > 0, ncpu));
    set (inv, o, "memory_bytes", jnum (have_mem, memkb * 1024));
    set (inv, o, "boot_id", jstr (boot));
    return o;
}

/* ---- entry points ----------------------------------------------------- */

/* pci.ids lives in the filesystem that holds etc_root: "/etc" looks in
   /usr/share/..., a fixture's ".../nvme/etc" in ".../nvme/usr/share/...". */
static void
find_pciids (inv_t *inv, const char *etc_root)
{
    char base[PATH_MAX];
    str_copy (base, sizeof base, etc_root);
    size_t n = strlen (base);
    while (n > 1 && base[n - 1] == '/')
        base[--n] = '\0';
    char *slash = strrchr (base, '/');
    if (slash)
        *slash = '\0';              /* "/etc" -> "", "x/etc" -> "x" */
    else
        str_copy (base, sizeof base, ".");
    static const char *const rel[] = { "usr/share/misc/pci.ids", "usr/share/hwdata/pci.ids" };
    inv->pciids[0] = '\0';
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
        if (sysfs_pathf (inv->pciids, sizeof inv->pciids, "%s/%s", base, rel[i])
            && access (inv->pciids, R_OK) == 0)
            return;
    inv->pciids[0] = '\0';
}

json_t *
inventory_collect (const char *sysfs_root, const char *procfs_root, const char *etc_root)
{
    inv_t *inv = calloc (1, sizeof *inv);
    if (!inv)
        return NULL;
    /* The sysfs root is resolved so device paths (resolved too) can be
       matched against it; the others are only read through. */
    if (!realpath (sysfs_root, inv->sys))
        str_copy (inv->sys, sizeof inv->sys, sysfs_root);
    str_copy (inv->proc, sizeof inv->proc, procfs_root);
    str_copy (inv->etc, sizeof inv->etc, etc_root);
    find_pciids (inv, etc_root);
    load_mounts (inv);

    json_t *o = json_object ();
    if (o) {
        set (inv, o, "host", host_json (inv));
        /* Drives first: they add controllers that bus/pci/devices missed. */
        json_t *drives = drives_json (inv);
        scan_pci (inv);
        if (inv->nctrls)
            qsort (inv->ctrls, (size_t) inv->nctrls, sizeof *inv->ctrls, cmp_ctrl);
        json_t *ctrls = json_array ();
        for (int i = 0; ctrls && i < inv->nctrls; i++) {
            json_t *c = ctrl_json (inv, &inv->ctrls[i]);
            if (!c || json_array_append_new (ctrls, c) != 0)
                inv->oom = true;
        }
        set (inv, o, "controllers", ctrls);
        set (inv, o, "drives", drives);
    }
    if (!o || inv->oom) {
        json_decref (o);
        o = NULL;
    }
    free (inv->mounts);
    free (inv->ctrls);
    free (inv);
    return o;
}
