/*  inventory.h: what hardware an agent runs on, as JSON, so a result can be
    tied to the HBA, firmware and drives that produced it.

    Everything comes from sysfs, procfs and os-release, read under roots the
    caller gives (tests point them at tests/fixtures/sysfs/NAME/{sys,proc,etc}).
    Layout (names are stable; the controller and reports read them):

      { "host": { "hostname", "kernel", "os_release", "cpu_model",
                  "cpu_count", "memory_bytes", "boot_id" },
        "controllers": [ { "pci_address", "vendor_id", "device_id",
                  "vendor", "device", "class", "driver", "driver_version",
                  "firmware", "link_speed", "link_width",
                  "max_link_speed", "max_link_width" } ],
        "drives": [ { "name", "path", "model", "vendor", "serial", "wwn",
                  "firmware", "size_bytes", "transport", "rotational",
                  "logical_block_size", "physical_block_size", "scheduler",
                  "nr_requests", "queue_depth", "controller", "expander",
                  "mounted", "partitioned", "holders", "boot" } ] }

    Unknown strings are "unknown", unknown numbers and booleans are null.
    transport is one of "nvme", "sas", "sata", "virtio", "loop", "other".
    Controllers are PCI storage devices (class 0x01xxxx, plus virtio block/
    SCSI functions), sorted by address; drives are sorted by name.
    Vendor and device names come from pci.ids (usr/share/misc/pci.ids or
    usr/share/hwdata/pci.ids under the directory that holds etc_root, so "/"
    for "/etc"), else "unknown".
*/
#ifndef IOF_INVENTORY_H
#define IOF_INVENTORY_H

#include <jansson.h>

#include "inventory_hash.h"

/* Collects the inventory from sysfs_root (normally "/sys") and procfs_root
   (normally "/proc") and etc_root (normally "/etc", for os-release).
   Returns a new JSON object (never NULL except out of memory); anything
   missing or unreadable is "unknown" (strings) or null (numbers), never an
   error. */
json_t *inventory_collect (const char *sysfs_root, const char *procfs_root,
                           const char *etc_root);

/* inventory_hash (the one the controller dedups by): inventory_hash.h. */

#endif
