/*  paths.h: the bandwidth of a run's large-block steps against the ceiling
    of the path the bytes take, from the inventory each agent came with to
    the step (the qualification report's "paths"; the tri-mode HBA report's
    "large blocks (64K+) move the bottleneck to the host's PCIe bandwidth").

    A step counts when its blocks are PATHS_LARGE_BS or more (bs or
    bs_write).  The drives of one agent behind one controller share it:

      drive    its own link (link_speed x link_width; common/link_rate.h)
      uplink   a SAS expander's drives share the HBA's wide port to it
               (uplink_speed x uplink_width), at most the sum of theirs
      HBA      the controller's PCIe link, at most the sum of the above

    ceiling = min(HBA, sum over uplinks of min(uplink, its drives' links)
    + the other drives' links); limited_by names the element that set it
    (a tie goes to the element nearer the drives: an NVMe drive is its own
    PCI function).  An element the inventory does not give a speed for
    sets no limit; a host with none known has no ceiling (null).
    Measured: read + write bytes per second of the step's window.
*/
#ifndef IOF_PATHS_H
#define IOF_PATHS_H

#include <jansson.h>
#include <stdint.h>

#include "store.h"

#define PATHS_LARGE_BS  65536
#define PATHS_RULE      "steps of 64 KiB blocks or more: each agent's read + write bytes/s " \
    "per controller against min(the HBA's PCIe link, the sum over expander uplinks of " \
    "min(uplink, its drives' links) + the other drives' links), each link's payload rate " \
    "after its line code (8b/10b, 128b/130b, 128b/150b) from the inventory"

/* The "paths" list of the qualification report of run, whose report (by
   group) is rep: per large-block step {"step", "rw", "bs", "iodepth",
   "groups": [{"group", "targets", "bw", "drive_links_bps", "used_pct"}],
   "hosts": [{"agent", "controller", "device", "targets", "bw",
   "hba_bps", "ceiling_bps", "limited_by", "limit", "used_pct"}],
   "limited_by": {"hba", "uplink", "drives", "unknown": hosts}}.
   Returns NULL on a database error (logged) or out of memory. */
json_t *paths_json (store_t *store, int64_t run, json_t *rep);

/* The inventory agent came with to step (a new reference), or NULL. */
typedef json_t *paths_inv_fn (void *arg, int step, const char *agent);

/* One entry of that list: step s of a report, the inventories from
   inv_of.  Can't fail (but for memory). */
json_t *paths_step (json_t *s, paths_inv_fn *inv_of, void *arg);

#endif
