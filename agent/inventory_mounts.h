/*  inventory_mounts.h: which block devices are mounted, for the inventory's
    "mounted" and "boot" of a drive (a drive holding "/" or any mount is
    not one to write to). */
#ifndef IOF_INVENTORY_MOUNTS_H
#define IOF_INVENTORY_MOUNTS_H

#include "inventory_ctx.h"

/* Loads proc/self/mounts (else proc/mounts) by device name and
   proc/self/mountinfo by major:minor, which also catches "/dev/root" and
   sources given by label, into inv->mounts.  Missing files leave the list
   short; out of memory is noted in inv. */
void inventory_mounts_load (inventory_ctx_t *inv);

/* Looks up the block device at dir (its sysfs directory, named name) and,
   through holders/, what is stacked on it (dm, md, a few levels deep):
   sets *mounted / *root when any is mounted (at "/" for root); leaves
   them alone otherwise.  Can't fail. */
void inventory_mounts_state (const inventory_ctx_t *inv, const char *dir, const char *name,
                             bool *mounted, bool *root);

#endif
