/*  inventory_drives.h: the inventory's "drives": the block devices under
    sysfs block/ that are drives (not RAM disks, dm, md, optical or idle
    loop devices), each with its identity, transport, queue, link and
    whether it is mounted, held or holds "/". */
#ifndef IOF_INVENTORY_DRIVES_H
#define IOF_INVENTORY_DRIVES_H

#include "inventory_ctx.h"

/* The JSON array of the drives, sorted by name.  Adds the controller each
   sits behind to inv->ctrls (inventory_hba_add): a controller that
   bus/pci/devices misses is still listed.  NULL (out of memory noted in
   inv) only when out of memory. */
json_t *inventory_drives_json (inventory_ctx_t *inv);

#endif
