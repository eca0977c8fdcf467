/*  inventory_hba.h: the inventory's "controllers": PCI functions that
    drive storage (HBAs, NVMe and AHCI controllers, virtio block/SCSI),
    each with its ids, names from pci.ids, driver, firmware and PCIe link. */
#ifndef IOF_INVENTORY_HBA_H
#define IOF_INVENTORY_HBA_H

#include "inventory_ctx.h"

/* Adds the PCI function at dir (absolute sysfs directory, address addr) to
   inv->ctrls unless it is listed already or drives no storage.  Out of
   memory is noted in inv. */
void inventory_hba_add (inventory_ctx_t *inv, const char *addr, const char *dir);

/* Adds the storage functions under bus/pci/devices, then returns the JSON
   array of every controller in inv->ctrls, sorted by address.  NULL (out
   of memory noted in inv) only when out of memory. */
json_t *inventory_hba_json (inventory_ctx_t *inv);

#endif
