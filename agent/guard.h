/*  guard.h: the write guard: whether writing a block device could destroy
    data this host is using, whatever the agent's globs allow.

    fio's own guard (allow_mounted_write) compares the device's name with
    /etc/mtab, and so misses a disk whose partition is mounted, a device
    named through /dev/disk/by-id, LVM and md members, and swap.  This one
    works on device numbers and sysfs instead:

      root-fs, boot-fs  the device, a partition of it, or a device stacked
                        on them holds "/" (or "/boot", "/boot/...")
      swap              ... is active swap (procfs swaps)
      mounted           ... is mounted (procfs self/mountinfo, by major:minor;
                        by source for file systems on anonymous devices,
                        such as btrfs)
      holders           something is stacked on the device or a partition
                        (sysfs holders/: device-mapper, LVM, md, bcache)
      in-use            the kernel has it claimed exclusively (a mount in
                        another mount namespace, a program's O_EXCL open)
      signature         it carries a partition table or a file system, RAID,
                        LVM or crypto signature (libblkid, read-only probe)

    Every refusal says "(rule: NAME)" with one of the names above, and what
    to do.  Anything that cannot be checked refuses too: the guard fails
    closed.  Only the signature rule can be lifted (the agent's
    --allow-write-formatted); the others hold whatever the configuration.
*/
#ifndef IOF_GUARD_H
#define IOF_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Checks the device number dev against sysfs_root ("/sys") and procfs_root
   ("/proc"), the rules from root-fs to holders above, reading nothing of
   the device itself (so tests run it on fixture trees).  Returns 0 when
   none applies; -EBUSY with why naming the rule; -ENOENT / -EIO when
   sysfs or the mount table could not be read (why says which). */
int guard_in_use (const char *sysfs_root, const char *procfs_root, dev_t dev, char *why,
                  size_t whylen);

/* Probes path (a block device, or an image file) with libblkid, read-only,
   for a partition table or a file system / RAID / LVM / crypto signature.
   When dev is not 0, the probe must have read that device (it refuses if
   path now names another one).  Returns 0 when there is none; -EEXIST with
   why naming what was found (rule: signature); -errno when the probe
   failed (why says so). */
int guard_signature (const char *path, dev_t dev, char *why, size_t whylen);

/* The whole guard for writing the block device at path, device number
   dev: guard_in_use, then an exclusive open (rule in-use), then, when
   check_signature, guard_signature.  Returns 0 when it may be written, or
   a negative errno with why (the rule, and what to do). */
int guard_block_write (const char *sysfs_root, const char *procfs_root, const char *path,
                       dev_t dev, bool check_signature, char *why, size_t whylen);

#endif
