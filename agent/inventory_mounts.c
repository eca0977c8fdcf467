/*  inventory_mounts.c: see inventory_mounts.h. */
#define _GNU_SOURCE
#include "inventory_mounts.h"
#include "sysfs.h"
#include "util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds the holder chain (disk -> md -> dm) we follow for mounts. */
#define HOLDER_DEPTH 3

static void
s_add_mount (inventory_ctx_t *inv, const char *name, const char *majmin, bool root)
{
    inventory_mount_t *m = realloc (inv->mounts, (size_t) (inv->nmounts + 1) * sizeof *m);
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

void
inventory_mounts_load (inventory_ctx_t *inv)
{
    char path[PATH_MAX];
    char *buf = NULL;
    if (sysfs_pathf (path, sizeof path, "%s/self/mounts", inv->proc))
        buf = file_read_all (path, INVENTORY_PROC_MAX, NULL);
    if (!buf && sysfs_pathf (path, sizeof path, "%s/mounts", inv->proc))
        buf = file_read_all (path, INVENTORY_PROC_MAX, NULL);
    if (buf) {
        char *save = NULL;
        for (char *line = strtok_r (buf, "\n", &save); line; line = strtok_r (NULL, "\n", &save)) {
            char src[PATH_MAX], dir[PATH_MAX];
            if (sscanf (line, "%4095s %4095s", src, dir) != 2 || strncmp (src, "/dev/", 5))
                continue;
            const char *base = strrchr (src, '/') + 1;
            s_add_mount (inv, base, "", strcmp (dir, "/") == 0);
        }
        free (buf);
    }
    if (sysfs_pathf (path, sizeof path, "%s/self/mountinfo", inv->proc)
        && (buf = file_read_all (path, INVENTORY_PROC_MAX, NULL))) {
        char *save = NULL;
        for (char *line = strtok_r (buf, "\n", &save); line; line = strtok_r (NULL, "\n", &save)) {
            /* "36 35 98:0 /mnt1 /mnt/parent rw ..." */
            char majmin[32], dir[PATH_MAX];
            if (sscanf (line, "%*s %*s %31s %*s %4095s", majmin, dir) != 2
                || strncmp (majmin, "0:", 2) == 0)  /* anonymous: tmpfs, overlay, btrfs */
                continue;
            s_add_mount (inv, "", majmin, strcmp (dir, "/") == 0);
        }
        free (buf);
    }
}

/* inventory_mounts_state, depth more holder levels down. */
static void
s_state (const inventory_ctx_t *inv, const char *dir, const char *name, int depth, bool *mounted,
         bool *root)
{
    char majmin[32], dmname[NAME_MAX + 1];
    sysfs_read_strf (majmin, sizeof majmin, "%s/dev", dir);
    sysfs_read_strf (dmname, sizeof dmname, "%s/dm/name", dir);
    for (int i = 0; i < inv->nmounts; i++) {
        const inventory_mount_t *m = &inv->mounts[i];
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
            s_state (inv, sub, e->d_name, depth - 1, mounted, root);
    }
    closedir (d);
}


void
inventory_mounts_state (const inventory_ctx_t *inv, const char *dir, const char *name,
                        bool *mounted, bool *root)
{
    s_state (inv, dir, name, HOLDER_DEPTH, mounted, root);
}
