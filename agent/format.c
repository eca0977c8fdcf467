/*  format.c: purge=format on one device, see format.h. */
#include "format.h"

#include <errno.h>
#include <linux/nvme_ioctl.h>
#include <scsi/sg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#define NVME_ADMIN_IDENTIFY     0x06
#define NVME_ADMIN_FORMAT_NVM   0x80
#define NVME_SES_USER_DATA      1u          /* Secure Erase Settings: user data erase */
#define NVME_IDENTIFY_LEN       4096
#define NVME_FLBAS_BYTE         26
#define SCSI_FORMAT_UNIT        0x04

/* The status field of an NVMe completion as the spec names its commonest
   values. */
static const char *
nvme_status_text (int status)
{
    switch (status & 0x7ff) {
    case 0x01: return "invalid command opcode (the drive has no Format NVM)";
    case 0x02: return "invalid field in command";
    case 0x0a: return "invalid format";
    case 0x0b: return "invalid namespace or format";
    case 0x15: return "operation denied";
    case 0x0c: return "command sequence error";
    case 0x20: return "namespace is write protected";
    default: return "see the NVMe specification's status codes";
    }
}

static int
nvme_format (int fd, const char *path, unsigned nsid, char *err, size_t errlen)
{
    uint8_t *id = aligned_alloc (4096, NVME_IDENTIFY_LEN);
    if (!id) {
        snprintf (err, errlen, "%s: out of memory", path);
        return -1;
    }
    memset (id, 0, NVME_IDENTIFY_LEN);
    struct nvme_admin_cmd c = { .opcode = NVME_ADMIN_IDENTIFY, .nsid = nsid,
                                .addr = (uint64_t) (uintptr_t) id,
                                .data_len = NVME_IDENTIFY_LEN, .cdw10 = 0 /* CNS: namespace */ };
    int rc = ioctl (fd, NVME_IOCTL_ADMIN_CMD, &c);
    if (rc != 0) {
        snprintf (err, errlen, "%s: Identify Namespace failed: %s", path,
                  rc < 0 ? strerror (errno) : nvme_status_text (rc));
        free (id);
        return -1;
    }
    unsigned lbaf = id[NVME_FLBAS_BYTE] & 0x0f;
    free (id);
    c = (struct nvme_admin_cmd) { .opcode = NVME_ADMIN_FORMAT_NVM, .nsid = nsid,
                                  .cdw10 = lbaf | NVME_SES_USER_DATA << 9,
                                  .timeout_ms = FORMAT_TIMEOUT_MS };
    rc = ioctl (fd, NVME_IOCTL_ADMIN_CMD, &c);
    if (rc < 0) {
        snprintf (err, errlen, "%s: Format NVM: %s%s", path, strerror (errno),
                  errno == EACCES || errno == EPERM ? " (it needs CAP_SYS_ADMIN: run the agent "
                                                      "as root)" : "");
        return -1;
    }
    if (rc > 0) {
        snprintf (err, errlen, "%s: the drive refused Format NVM (user data erase, LBA format "
                  "%u): status 0x%x, %s; use purge=discard", path, lbaf, (unsigned) rc,
                  nvme_status_text (rc));
        return -1;
    }
    return 0;
}

static int
scsi_format (int fd, const char *path, char *err, size_t errlen)
{
    unsigned char cdb[6] = { SCSI_FORMAT_UNIT, 0, 0, 0, 0, 0 };
    unsigned char sense[32];
    memset (sense, 0, sizeof sense);
    sg_io_hdr_t h;
    memset (&h, 0, sizeof h);
    h.interface_id = 'S';
    h.dxfer_direction = SG_DXFER_NONE;
    h.cmdp = cdb;
    h.cmd_len = sizeof cdb;
    h.sbp = sense;
    h.mx_sb_len = sizeof sense;
    h.timeout = FORMAT_TIMEOUT_MS;
    if (ioctl (fd, SG_IO, &h) < 0) {
        snprintf (err, errlen, "%s: FORMAT UNIT: %s%s", path, strerror (errno),
                  errno == EACCES || errno == EPERM ? " (it needs write access and "
                                                      "CAP_SYS_ADMIN: run the agent as root)"
                                                    : "");
        return -1;
    }
    if (h.status == 0 && h.host_status == 0 && (h.driver_status & 0x0f) == 0)
        return 0;
    /* Fixed (0x70/0x71) or descriptor (0x72/0x73) sense. */
    unsigned key = 0, asc = 0, ascq = 0;
    if (h.sb_len_wr >= 14 && (sense[0] & 0x7e) == 0x70)
        key = sense[2] & 0x0f, asc = sense[12], ascq = sense[13];
    else if (h.sb_len_wr >= 4 && (sense[0] & 0x7e) == 0x72)
        key = sense[1] & 0x0f, asc = sense[2], ascq = sense[3];
    snprintf (err, errlen, "%s: the device refused FORMAT UNIT: SCSI status 0x%x, sense key 0x%x "
              "asc/ascq 0x%02x/0x%02x%s; use purge=discard", path, h.status, key, asc, ascq,
              key == 0x5 ? " (ILLEGAL REQUEST: it does not offer FORMAT UNIT, as a SATA disk "
                           "behind libata)" : "");
    return -1;
}

int
format_device (int fd, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (fstat (fd, &st) != 0 || !S_ISBLK (st.st_mode)) {
        snprintf (err, errlen, "%s: purge=format formats block devices; this is not one: use "
                  "purge=discard", path);
        return -1;
    }
    int nsid = ioctl (fd, NVME_IOCTL_ID);
    if (nsid > 0)
        return nvme_format (fd, path, (unsigned) nsid, err, errlen);
    int version = 0;
    if (ioctl (fd, SG_GET_VERSION_NUM, &version) == 0 && version > 0)
        return scsi_format (fd, path, err, errlen);
    snprintf (err, errlen, "%s: neither an NVMe namespace nor a SCSI disk (it answers neither "
              "NVME_IOCTL_ID nor SG_IO): purge=format cannot format it; use purge=discard", path);
    return -1;
}
