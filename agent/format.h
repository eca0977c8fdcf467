/*  format.h: [iofleet] purge=format on one device: the drive's own erase
    of everything on it, the SNIA PTS's purge as TKperf does it (a secure
    erase), where purge=discard only trims.

      NVMe namespace   Format NVM (admin opcode 0x80) through the kernel's
                       NVME_IOCTL_ADMIN_CMD on the namespace's block
                       device: the namespace's current LBA format (FLBAS
                       of Identify Namespace, kept), Secure Erase Settings
                       1 (user data erase);
      SCSI disk        FORMAT UNIT (opcode 0x04, no parameter list: the
                       device's default format) through SG_IO on the
                       disk's block device, where the device offers it (a
                       SATA disk behind libata's translation does not: it
                       answers ILLEGAL REQUEST, named in the error).

    Both are whole-device operations: the caller (the purge step) checks
    that the plan tests the whole device, the write guard and
    --allow-purge.  Both need CAP_SYS_ADMIN (SG_IO's FORMAT UNIT: write
    access).  A format can take minutes (NVMe) to hours (a large SCSI
    disk): the timeout is FORMAT_TIMEOUT_MS.
*/
#ifndef IOF_FORMAT_H
#define IOF_FORMAT_H

#include <stddef.h>

#define FORMAT_TIMEOUT_MS   (4u * 3600u * 1000u)

/* Formats the device open at fd (its path: for messages).  Returns 0, or
   -1 with err saying what the device answered or why it is not one that
   takes a format (and what to use instead). */
int format_device (int fd, const char *path, char *err, size_t errlen);

#endif
