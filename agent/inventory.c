/*  inventory.c: see inventory.h.  The parts are inventory_host.c,
    inventory_hba.c (controllers), inventory_drives.c and
    inventory_mounts.c, sharing one inventory_ctx_t.

    Every read may fail (a fixture without the file, an older kernel without
    the attribute, a driver that does not export it), and every failure
    becomes "unknown" or null in place: the inventory is informational and
    must never keep an agent from running a job. */
#define _GNU_SOURCE
#include "inventory.h"
#include "inventory_ctx.h"
#include "inventory_drives.h"
#include "inventory_hba.h"
#include "inventory_host.h"
#include "inventory_mounts.h"
#include "sysfs.h"
#include "util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* pci.ids lives in the filesystem that holds etc_root: "/etc" looks in
   /usr/share/..., a fixture's ".../nvme/etc" in ".../nvme/usr/share/...". */
static void
s_find_pciids (inventory_ctx_t *inv, const char *etc_root)
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
    inventory_ctx_t *inv = calloc (1, sizeof *inv);
    if (!inv)
        return NULL;
    /* The sysfs root is resolved so device paths (resolved too) can be
       matched against it; the others are only read through. */
    if (!realpath (sysfs_root, inv->sys))
        str_copy (inv->sys, sizeof inv->sys, sysfs_root);
    str_copy (inv->proc, sizeof inv->proc, procfs_root);
    str_copy (inv->etc, sizeof inv->etc, etc_root);
    s_find_pciids (inv, etc_root);
    inventory_mounts_load (inv);

    json_t *o = json_object ();
    if (o) {
        inventory_ctx_set (inv, o, "host", inventory_host_json (inv));
        /* Drives first: they add controllers that bus/pci/devices missed. */
        json_t *drives = inventory_drives_json (inv);
        inventory_ctx_set (inv, o, "controllers", inventory_hba_json (inv));
        inventory_ctx_set (inv, o, "drives", drives);
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
