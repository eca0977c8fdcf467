/*  health_probe.h: a target's drive health, as the agent reads it.

    A probe finds the drive under a target (the block device itself, or
    the device of the filesystem a file is on; a partition's whole disk)
    in sysfs, and two things of it:
      - its temperature, from hwmon (NVMe: the controller's hwmonN; SATA
        and SAS: drivetemp's device/hwmon/hwmonN), one small sysfs read.
        The I/O path never waits for it: the link's loop reads it when it
        sends a snapshot.  But the read is a command to the drive (NVMe's
        driver fetches the health log; drivetemp sends a non-queued SMART
        command, which drains a SATA drive's NCQ queue), so a drive is
        read at most every HEALTH_TEMP_PERIOD_NS, the last reading
        standing for the intervals between: a blip in the tail latency
        every 10 s rather than every interval.
      - its health record (common/health.h), at a step's edges: NVMe
        through the admin ioctl (Get Log Page 02h), else `nvme smart-log
        -o json`, else `smartctl --json -a`; SATA and SAS through
        smartctl.  A tool runs at most HEALTH_TOOL_TIMEOUT_MS.
    A drive with no health (a loop, RAM, device-mapper or virtio device, a
    file on tmpfs, no permission, no tool installed) is unavailable with
    the reason, never zeros.
*/
#ifndef IOF_HEALTH_PROBE_H
#define IOF_HEALTH_PROBE_H

#include "health.h"

#include <stdbool.h>
#include <stdint.h>

#define HEALTH_TOOL_TIMEOUT_MS 10000
#define HEALTH_TEMP_PERIOD_NS  (10ull * 1000000000)
#define HEALTH_TOOL_OUTPUT_MAX (1u << 20)

typedef struct health_probe health_probe_t;

/* The probe of the drive under path, its sysfs under sysfs_root ("/sys")
   and its device node under dev_root ("/dev").  NULL only when out of
   memory: a drive it cannot find gets a probe that says why. */
health_probe_t *health_probe_new (const char *path, const char *sysfs_root, const char *dev_root);

/* The probe of block device name ("nvme0n1", "sda"), as health_probe_new
   finds it from a path.  NULL only when out of memory. */
health_probe_t *health_probe_new_dev (const char *name, const char *sysfs_root,
                                      const char *dev_root);

void health_probe_destroy (health_probe_t **self_p);

/* The drive's block device name, or "" when none was found.  Can't fail. */
const char *health_probe_device (const health_probe_t *self);

/* The drive's temperature, in milli-degrees C, into *mc: read now, or
   the last reading when it is younger than HEALTH_TEMP_PERIOD_NS.
   Returns false when it has no sensor (or the read failed).  Can't block
   beyond one sysfs read. */
bool health_probe_temp (health_probe_t *self, int32_t *mc);

/* The drive's health now into h (unavailable with the reason when there
   is none).  May run a tool (at most HEALTH_TOOL_TIMEOUT_MS).  Can't
   fail. */
void health_probe_read (health_probe_t *self, health_t *h);

#endif
