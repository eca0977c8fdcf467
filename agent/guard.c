/*  guard.c: see guard.h.

    The device is looked up by number (sysfs dev/block/MAJ:MIN), never by
    name, so /dev/disk/by-id links, /dev/mapper names and renamed nodes all
    reach the same checks.  Its "members" are the device, its partitions,
    and everything stacked on any of them (holders/, recursively); each rule
    is checked on every member, and the most serious finding is reported. */
#define _GNU_SOURCE
#include "guard.h"
#include "sysfs.h"
#include "util.h"

#include <blkid/blkid.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* A mount table of many thousand container mounts still fits. */
#define PROC_MAX (16u << 20)
/* disk -> partition -> md -> LVM -> thin/crypt is 5 deep; the bounds keep a
   damaged (or looping) tree finite, and exceeding them refuses. */
#define STACK_DEPTH 8
#define MEMBERS_MAX 256
/* Exclusive-open retries: another agent's probe of the same device holds
   it for microseconds. */
#define CLAIM_TRIES 10
#define CLAIM_WAIT_NS (20 * NS_PER_MS)

typedef struct {
    char name[NAME_MAX + 1];        /* sysfs name: "sda2", "dm-0" */
    char dmname[NAME_MAX + 1];      /* device-mapper name ("vg0-root"), or "" */
    dev_t dev;
    bool have_dev;
    bool holder;                    /* stacked on the device (not it, nor a partition) */
    char desc[2 * NAME_MAX + 8];    /* "dm-0 (vg0-root)", "sda2" */
    char role[512];                 /* "it", "its partition sda2", "dm-0 on top of it" */
    char below[512];                /* for a holder: the role of what it sits on */
} member_t;

typedef struct {
    member_t *m;
    int n;
    bool overflow;
} members_t;

/* The most serious finding so far: lower rank wins. */
enum { RANK_ROOT, RANK_BOOT, RANK_SWAP, RANK_MOUNTED, RANK_HOLDERS, RANK_NONE };

typedef struct {
    int rank;
    char why[1024];
} finding_t;

static void __attribute__ ((format (printf, 3, 4)))
note (finding_t *f, int rank, const char *fmt, ...)
{
    if (rank >= f->rank)
        return;
    f->rank = rank;
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (f->why, sizeof f->why, fmt, ap);
    va_end (ap);
}

/* Reads dir/name, trimmed, into out.  Returns false (out "") when
   missing, unreadable or empty. */
static bool
read_attr (const char *dir, const char *name, char *out, size_t cap)
{
    return sysfs_read_strf (out, cap, "%s/%s", dir, name);
}

/* The device number in dir/dev ("8:2").  Returns false when there is none. */
static bool
read_dev (const char *dir, dev_t *dev)
{
    char buf[32], extra;
    unsigned ma, mi;
    if (!read_attr (dir, "dev", buf, sizeof buf)
        || sscanf (buf, "%u:%u%c", &ma, &mi, &extra) != 2)
        return false;
    *dev = makedev (ma, mi);
    return true;
}

static bool
dev_is (const char *dir, dev_t dev)
{
    dev_t d;
    return read_dev (dir, &d) && d == dev;
}

static bool
has_attr (const char *dir, const char *name)
{
    char path[PATH_MAX];
    struct stat st;
    return sysfs_pathf (path, sizeof path, "%s/%s", dir, name) && stat (path, &st) == 0;
}

/* Searches dir's entries (through their symlinks) for the device dev, and
   with parts also their partition subdirectories.  Returns true with its
   resolved directory in out (PATH_MAX). */
static bool
scan_for_dev (const char *dir, dev_t dev, bool parts, char *out)
{
    DIR *d = opendir (dir);
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir (d))) {
        char path[PATH_MAX];
        if (e->d_name[0] == '.' || !sysfs_pathf (path, sizeof path, "%s/%s", dir, e->d_name)
            || !realpath (path, out))
            continue;
        if (dev_is (out, dev)) {
            found = true;
            break;
        }
        if (!parts)
            continue;
        char disk[PATH_MAX];
        str_copy (disk, sizeof disk, out);
        DIR *pd = opendir (disk);
        struct dirent *pe;
        while (pd && !found && (pe = readdir (pd)))
            found = pe->d_name[0] != '.' && sysfs_pathf (path, sizeof path, "%s/%s", disk, pe->d_name)
                    && has_attr (path, "partition") && dev_is (path, dev)
                    && realpath (path, out);
        if (pd)
            closedir (pd);
    }
    closedir (d);
    return found;
}

/* The sysfs directory of block device dev, resolved, into out (PATH_MAX).
   Returns false when sysfs has no such device. */
static bool
find_dev_dir (const char *sys, dev_t dev, char *out)
{
    char path[PATH_MAX];
    /* The kernel's index by number (every kernel since 2.6.27). */
    if (sysfs_pathf (path, sizeof path, "%s/dev/block/%u:%u", sys, major (dev), minor (dev))
        && realpath (path, out) && dev_is (out, dev))
        return true;
    /* Trees without it (some test fixtures): every disk and partition. */
    return (sysfs_pathf (path, sizeof path, "%s/class/block", sys) && scan_for_dev (path, dev, false, out))
        || (sysfs_pathf (path, sizeof path, "%s/block", sys) && scan_for_dev (path, dev, true, out));
}

/* Adds the device at dir and, recursively, what is stacked on it. */
static void
add_member (members_t *ms, const char *dir, const char *name, const char *role,
            const char *below, int depth)
{
    if (ms->n == MEMBERS_MAX || depth > STACK_DEPTH) {
        ms->overflow = true;
        return;
    }
    member_t *m = &ms->m[ms->n++];
    memset (m, 0, sizeof *m);
    str_copy (m->name, sizeof m->name, name);
    read_attr (dir, "dm/name", m->dmname, sizeof m->dmname);
    m->have_dev = read_dev (dir, &m->dev);
    m->holder = below != NULL;
    if (m->dmname[0])
        snprintf (m->desc, sizeof m->desc, "%s (%s)", name, m->dmname);
    else
        snprintf (m->desc, sizeof m->desc, "%s", name);
    if (below) {
        str_copy (m->below, sizeof m->below, below);
        snprintf (m->role, sizeof m->role, "%s on top of %s", m->desc, below);
    } else
        str_copy (m->role, sizeof m->role, role);

    char hdir[PATH_MAX];
    DIR *d = sysfs_pathf (hdir, sizeof hdir, "%s/holders", dir) ? opendir (hdir) : NULL;
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir (d))) {
        char link[PATH_MAX], real[PATH_MAX];
        if (e->d_name[0] == '.' || !sysfs_pathf (link, sizeof link, "%s/%s", hdir, e->d_name))
            continue;
        /* A holder link that does not resolve is still a holder. */
        if (!realpath (link, real))
            str_copy (real, sizeof real, link);
        add_member (ms, real, e->d_name, NULL, m->role, depth + 1);
    }
    closedir (d);
}

/* Undoes the octal escapes (\040 for a space) the kernel writes into mount
   points and swap file names.  Can't fail. */
static void
unescape (char *s)
{
    char *w = s;
    for (const char *r = s; *r; ) {
        if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7'
            && r[3] >= '0' && r[3] <= '7') {
            *w++ = (char) ((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
            r += 4;
        } else
            *w++ = *r++;
    }
    *w = '\0';
}

/* True when src (a mount source or swap name such as "/dev/sdb1",
   "/dev/mapper/vg-x") names member m: by name, or by device number. */
static bool
source_is (const char *src, const member_t *m)
{
    if (strncmp (src, "/dev/", 5) != 0)
        return false;
    const char *base = strrchr (src, '/') + 1;
    if (strcmp (base, m->name) == 0)
        return true;
    if (m->dmname[0] && strncmp (src, "/dev/mapper/", 12) == 0 && strcmp (src + 12, m->dmname) == 0)
        return true;
    struct stat st;
    return m->have_dev && stat (src, &st) == 0 && S_ISBLK (st.st_mode) && st.st_rdev == m->dev;
}

/* Notes what a mount at point means for member m. */
static void
note_mount (finding_t *f, const member_t *m, const char *point)
{
    if (strcmp (point, "/") == 0)
        note (f, RANK_ROOT, "%s holds the root file system (mounted at /) (rule: root-fs); "
              "the system disk is never a write target", m->role);
    else if (strcmp (point, "/boot") == 0 || strncmp (point, "/boot/", 6) == 0)
        note (f, RANK_BOOT, "%s holds the boot file system (mounted at %s) (rule: boot-fs); "
              "the system disk is never a write target", m->role, point);
    else
        note (f, RANK_MOUNTED, "%s is mounted at %s (rule: mounted); unmount it first if its "
              "data is not wanted", m->role, point);
}

/* Splits line into whitespace-separated fields in place.  Returns how
   many (at most max). */
static int
split (char *line, char **field, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r (line, " \t", &save); t && n < max; t = strtok_r (NULL, " \t", &save))
        field[n++] = t;
    return n;
}

/* Checks every member against the mount table: procfs/self/mountinfo by
   device number (and by source for anonymous devices, btrfs), or, where
   only mounts is there (older fixtures), by source.  Returns 0, or -errno
   with why when no mount table could be read. */
static int
check_mounts (const char *proc, const members_t *ms, finding_t *f, char *why, size_t whylen)
{
    char path[PATH_MAX];
    bool info = true;
    char *buf = sysfs_pathf (path, sizeof path, "%s/self/mountinfo", proc)
                ? file_read_all (path, PROC_MAX, NULL) : NULL;
    if (!buf) {
        info = false;
        if (sysfs_pathf (path, sizeof path, "%s/self/mounts", proc))
            buf = file_read_all (path, PROC_MAX, NULL);
        if (!buf && sysfs_pathf (path, sizeof path, "%s/mounts", proc))
            buf = file_read_all (path, PROC_MAX, NULL);
    }
    if (!buf) {
        int e = errno ? errno : EIO;
        snprintf (why, whylen, "cannot read the mount table (%s/self/mountinfo): %s, so "
                  "whether it is mounted cannot be checked (rule: mounted)", proc, strerror (e));
        return -e;
    }
    char *save = NULL;
    for (char *line = strtok_r (buf, "\n", &save); line; line = strtok_r (NULL, "\n", &save)) {
        char *fl[64];
        int n = split (line, fl, 64);
        char *point, *src, none[1] = "";
        dev_t dev = 0;
        bool by_number = false;
        if (info) {
            /* "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw" */
            int dash = 6;
            while (dash < n && strcmp (fl[dash], "-") != 0)
                dash++;
            unsigned ma, mi;
            char extra;
            if (n < 5 || sscanf (fl[2], "%u:%u%c", &ma, &mi, &extra) != 2)
                continue;
            point = fl[4];
            src = dash + 2 < n ? fl[dash + 2] : none;
            /* Major 0 is an anonymous device (btrfs, overlay, tmpfs): its
               number names no disk, its source may. */
            by_number = ma != 0;
            dev = makedev (ma, mi);
        } else {
            if (n < 2)
                continue;
            src = fl[0];
            point = fl[1];
        }
        unescape (point);
        unescape (src);
        for (int i = 0; i < ms->n; i++) {
            const member_t *m = &ms->m[i];
            if (by_number ? m->have_dev && m->dev == dev : source_is (src, m))
                note_mount (f, m, point);
        }
    }
    free (buf);
    return 0;
}

/* Checks every member against procfs/swaps.  A kernel without swap has no
   such file: nothing is swap then.  Returns 0, or -errno with why. */
static int
check_swaps (const char *proc, const members_t *ms, finding_t *f, char *why, size_t whylen)
{
    char path[PATH_MAX];
    char *buf = sysfs_pathf (path, sizeof path, "%s/swaps", proc) ? file_read_all (path, PROC_MAX, NULL)
                                                           : NULL;
    if (!buf) {
        if (errno == ENOENT)
            return 0;
        int e = errno ? errno : EIO;
        snprintf (why, whylen, "cannot read %s: %s, so whether it is swap cannot be checked "
                  "(rule: swap)", path, strerror (e));
        return -e;
    }
    char *save = NULL;
    bool header = true;
    for (char *line = strtok_r (buf, "\n", &save); line; line = strtok_r (NULL, "\n", &save)) {
        char *fl[8];
        if (header) {                   /* "Filename Type Size Used Priority" */
            header = false;
            continue;
        }
        if (split (line, fl, 8) < 1)
            continue;
        unescape (fl[0]);
        for (int i = 0; i < ms->n; i++)
            if (source_is (fl[0], &ms->m[i]))
                note (f, RANK_SWAP, "%s is active swap (%s in %s) (rule: swap); swapoff it "
                      "first if the host can spare it", ms->m[i].role, fl[0], path);
    }
    free (buf);
    return 0;
}

int
guard_in_use (const char *sysfs_root, const char *procfs_root, dev_t dev, char *why,
              size_t whylen)
{
    char sys[PATH_MAX], dir[PATH_MAX];
    if (!realpath (sysfs_root, sys))
        str_copy (sys, sizeof sys, sysfs_root);
    if (!find_dev_dir (sys, dev, dir)) {
        snprintf (why, whylen, "device %u:%u has no entry under %s/dev/block, so its "
                  "partitions and what is stacked on it cannot be checked (rule: holders); "
                  "is --sysfs-root this host's sysfs?", major (dev), minor (dev), sys);
        return -ENOENT;
    }
    members_t ms = { .m = calloc (MEMBERS_MAX, sizeof (member_t)) };
    if (!ms.m) {
        snprintf (why, whylen, "out of memory checking device %u:%u", major (dev), minor (dev));
        return -ENOMEM;
    }
    const char *name = strrchr (dir, '/') + 1;
    add_member (&ms, dir, name, "it", NULL, 0);
    /* Partitions are subdirectories with a "partition" attribute. */
    DIR *d = opendir (dir);
    struct dirent *e;
    while (d && (e = readdir (d))) {
        char part[PATH_MAX], role[NAME_MAX + 32];
        if (e->d_name[0] == '.' || !sysfs_pathf (part, sizeof part, "%s/%s", dir, e->d_name)
            || !has_attr (part, "partition"))
            continue;
        snprintf (role, sizeof role, "its partition %s", e->d_name);
        add_member (&ms, part, e->d_name, role, NULL, 1);
    }
    if (d)
        closedir (d);

    finding_t f = { .rank = RANK_NONE };
    int rc = check_mounts (procfs_root, &ms, &f, why, whylen);
    if (rc == 0)
        rc = check_swaps (procfs_root, &ms, &f, why, whylen);
    if (rc == 0) {
        for (int i = 0; i < ms.n; i++)
            if (ms.m[i].holder)
                note (&f, RANK_HOLDERS, "%s is stacked on %s (rule: holders); take it apart "
                      "first (dmsetup remove, vgchange -an, mdadm --stop) if its data is not "
                      "wanted", ms.m[i].desc, ms.m[i].below);
        if (ms.overflow)
            note (&f, RANK_HOLDERS, "more than %d devices, or more than %d levels, are "
                  "stacked on it (rule: holders)", MEMBERS_MAX, STACK_DEPTH);
        if (f.rank != RANK_NONE) {
            str_copy (why, whylen, f.why);
            rc = -EBUSY;
        }
    }
    free (ms.m);
    return rc;
}

/* Opens path exclusively, as mount, swapon, dm and md claim a device: the
   kernel refuses (EBUSY) while any of them holds it, also for a mount in a
   namespace whose mount table we cannot see.  Returns 0, or -errno with
   why. */
static int
check_claim (const char *path, dev_t dev, char *why, size_t whylen)
{
    int e = 0;
    for (int i = 0; i < CLAIM_TRIES; i++) {
        int fd = open (path, O_RDONLY | O_EXCL | O_CLOEXEC);
        if (fd >= 0) {
            struct stat st;
            bool same = fstat (fd, &st) == 0 && S_ISBLK (st.st_mode) && st.st_rdev == dev;
            close (fd);
            if (same)
                return 0;
            snprintf (why, whylen, "'%s' is no longer device %u:%u (it changed while it was "
                      "checked); try again", path, major (dev), minor (dev));
            return -EAGAIN;
        }
        e = errno;
        if (e != EBUSY)
            break;
        sleep_ns (CLAIM_WAIT_NS);
    }
    if (e == EBUSY)
        snprintf (why, whylen, "the kernel has it claimed exclusively (rule: in-use): mounted "
                  "in another mount namespace, or held by swap, dm, md or a program; find the "
                  "user (lsblk, fuser -v %s) and free it first", path);
    else
        snprintf (why, whylen, "cannot open it to check whether it is in use: %s (rule: "
                  "in-use)", strerror (e));
    return -e;
}

int
guard_signature (const char *path, dev_t dev, char *why, size_t whylen)
{
    errno = 0;
    blkid_probe pr = blkid_new_probe_from_filename (path);
    if (!pr) {
        int e = errno ? errno : EIO;
        snprintf (why, whylen, "cannot probe it for a partition table or file system "
                  "(libblkid: %s) (rule: signature)", strerror (e));
        return -e;
    }
    if (dev && blkid_probe_get_devno (pr) != dev) {
        blkid_free_probe (pr);
        snprintf (why, whylen, "'%s' is no longer device %u:%u (it changed while it was "
                  "checked); try again", path, major (dev), minor (dev));
        return -EAGAIN;
    }
    /* A damaged superblock (bad checksum) still means data: count it. */
    blkid_probe_enable_superblocks (pr, 1);
    blkid_probe_set_superblocks_flags (pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE
                                           | BLKID_SUBLKS_LABEL | BLKID_SUBLKS_BADCSUM);
    blkid_probe_enable_partitions (pr, 1);
    int rc = blkid_do_safeprobe (pr);
    char remedy[2 * PATH_MAX + 128];
    snprintf (remedy, sizeof remedy, "if its data is not wanted, wipe it (wipefs -a %s) or "
              "start the agent with --allow-write-formatted '%s'", path, path);
    if (rc == 1) {
        blkid_free_probe (pr);
        return 0;
    }
    if (rc == -2) {
        snprintf (why, whylen, "it carries several conflicting file system or RAID signatures "
                  "(libblkid; wipefs lists them) (rule: signature); %s", remedy);
        blkid_free_probe (pr);
        return -EEXIST;
    }
    if (rc < 0) {
        snprintf (why, whylen, "libblkid could not probe it for a partition table or file "
                  "system (rule: signature); check that it is readable (blkid -p %s)", path);
        blkid_free_probe (pr);
        return -EIO;
    }
    const char *pttype = NULL, *type = NULL, *usage = NULL, *label = NULL;
    blkid_probe_lookup_value (pr, "PTTYPE", &pttype, NULL);
    blkid_probe_lookup_value (pr, "TYPE", &type, NULL);
    blkid_probe_lookup_value (pr, "USAGE", &usage, NULL);
    blkid_probe_lookup_value (pr, "LABEL", &label, NULL);
    char what[512] = "", part[256];
    if (pttype) {
        snprintf (part, sizeof part, "a partition table (%s)", pttype);
        str_copy (what, sizeof what, part);
    }
    if (type) {
        const char *kind = !usage ? "a signature"
                         : strcmp (usage, "filesystem") == 0 ? "a file system"
                         : strcmp (usage, "raid") == 0 ? "a RAID/LVM member signature"
                         : strcmp (usage, "crypto") == 0 ? "an encrypted volume"
                         : "a signature";
        bool labelled = label && label[0];
        snprintf (part, sizeof part, "%s%s (%s%s%s%s)", what[0] ? " and " : "", kind, type,
                  labelled ? ", label '" : "", labelled ? label : "", labelled ? "'" : "");
        size_t n = strlen (what);
        str_copy (what + n, sizeof what - n, part);
    }
    if (!what[0])
        str_copy (what, sizeof what, "a signature libblkid does not name");
    snprintf (why, whylen, "it carries %s (libblkid) (rule: signature); %s", what, remedy);
    blkid_free_probe (pr);
    return -EEXIST;
}

int
guard_block_write (const char *sysfs_root, const char *procfs_root, const char *path, dev_t dev,
                   bool check_signature, char *why, size_t whylen)
{
    int rc = guard_in_use (sysfs_root ? sysfs_root : "/sys", procfs_root ? procfs_root : "/proc",
                           dev, why, whylen);
    if (rc == 0)
        rc = check_claim (path, dev, why, whylen);
    if (rc == 0 && check_signature)
        rc = guard_signature (path, dev, why, whylen);
    return rc;
}
