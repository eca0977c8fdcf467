/*  health.h: a drive's health as iofleet records it before and after each
    step, one schema whatever told it (the NVMe SMART / health log page
    through the kernel's admin ioctl, `nvme smart-log -o json`, or
    `smartctl --json` for NVMe, SATA and SAS drives).

    A record is a set of fields (health_field_t), each present or not: a
    drive reports what it reports, and a field it does not report is
    absent, never 0.  Units are the record's, whatever the source's:
    degrees Celsius (nvme-cli and the log page give Kelvin), bytes (NVMe's
    data units are 1,000 x 512 bytes), seconds.  A record that could not
    be read at all is unavailable, with the reason (loop device, virtio,
    no permission, no tool installed): available is false and no field is
    present.

    As JSON (READY and DONE carry one per target, the controller stores
    them as sent after health_from_json checked them):
      { "available": true, "source": "nvme-ioctl", "protocol": "nvme",
        "temperature_c": 41, "media_errors": 0, ... }
      { "available": false, "reason": "loop device: no SMART" }
    Field names are health_field_name's; absent fields are left out.
*/
#ifndef IOF_HEALTH_H
#define IOF_HEALTH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    HF_TEMPERATURE_C,           /* composite / current temperature */
    HF_WARNING_TEMP_C,          /* the drive's warning threshold (NVMe WCTEMP, hwmon temp1_max) */
    HF_CRITICAL_TEMP_C,         /* its critical threshold (NVMe CCTEMP, hwmon temp1_crit) */
    HF_CRITICAL_WARNING,        /* NVMe critical warning bits (0..255) */
    HF_AVAILABLE_SPARE_PCT,
    HF_SPARE_THRESHOLD_PCT,
    HF_PERCENTAGE_USED,
    HF_MEDIA_ERRORS,            /* NVMe media and data integrity errors */
    HF_ERROR_LOG_ENTRIES,       /* NVMe error-log entries; ATA error-log count */
    HF_HOST_BYTES_READ,
    HF_HOST_BYTES_WRITTEN,
    HF_NAND_BYTES_WRITTEN,      /* what the media took (write amplification's numerator) */
    HF_HOST_READ_COMMANDS,
    HF_HOST_WRITE_COMMANDS,
    HF_POWER_ON_HOURS,
    HF_UNSAFE_SHUTDOWNS,
    HF_WARNING_TEMP_MINUTES,    /* NVMe: minutes at or above WCTEMP */
    HF_CRITICAL_TEMP_MINUTES,
    HF_THROTTLE1_TRANSITIONS,   /* NVMe thermal management temperature 1 */
    HF_THROTTLE2_TRANSITIONS,   /* ... and 2 (heavier throttling) */
    HF_THROTTLE1_SECONDS,
    HF_THROTTLE2_SECONDS,
    HF_REALLOCATED_SECTORS,     /* ATA 5 */
    HF_PENDING_SECTORS,         /* ATA 197 */
    HF_UNCORRECTABLE_SECTORS,   /* ATA 198; SCSI total uncorrected errors */
    HF_GROWN_DEFECTS,           /* SCSI grown defect list */
    HF_N
} health_field_t;

/* What a temperature can be, in degrees C: what a sensor can say, not
   what a drive survives (message.h's per-interval bounds are these). */
#define HEALTH_TEMP_MIN_C (-273)
#define HEALTH_TEMP_MAX_C 1000

/* Longest reason and source, in bytes (without the NUL). */
#define HEALTH_REASON_MAX 200
#define HEALTH_SOURCE_MAX 32
/* Largest health JSON of one target on the wire (message.h checks it). */
#define HEALTH_JSON_MAX 4096

typedef struct {
    bool available;
    char reason[HEALTH_REASON_MAX + 1];     /* why not available ("" when it is) */
    char source[HEALTH_SOURCE_MAX + 1];     /* "nvme-ioctl", "nvme-cli", "smartctl", "simulated" */
    char protocol[8];                       /* "nvme", "ata", "scsi", or "" */
    uint64_t have;                          /* bit f: field f present */
    int64_t v[HF_N];
} health_t;

/* The JSON name of field f ("temperature_c", ...).  Can't fail. */
const char *health_field_name (health_field_t f);
/* The field named name, or -1. */
int health_field_by_name (const char *name);

/* Field f of h, present.  Can't fail. */
static inline bool
health_has (const health_t *h, health_field_t f)
{
    return h->available && (h->have >> f & 1);
}
/* Field f of h set to v, present; a v outside the field's bounds (those
   health_from_json checks) leaves f absent instead, and an f that is not a
   field is ignored.  Can't fail. */
void health_set (health_t *h, health_field_t f, int64_t v);

/* An empty, available record of source and protocol.  Can't fail. */
void health_init (health_t *h, const char *source, const char *protocol);
/* An unavailable record saying why (printf format).  Can't fail. */
void health_unavailable (health_t *h, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* The NVMe SMART / health information log page (log identifier 02h, 512
   bytes, as the admin Get Log Page returns it, little-endian) into h,
   source "nvme-ioctl".  Returns 0, or -1 with err when len < 512. */
int health_from_nvme_log (const uint8_t *page, size_t len, health_t *h, char *err,
                          size_t errlen);

/* The JSON `nvme smart-log DEV -o json` prints (nvme-cli 1.x and 2.x
   names), source "nvme-cli".  Returns 0, or -1 with err (not JSON, not
   an object, no field of a health log in it). */
int health_from_nvme_cli (const char *text, health_t *h, char *err, size_t errlen);

/* The JSON `smartctl --json -a DEV` prints (smartmontools 7) for an NVMe,
   ATA or SCSI device, source "smartctl".  A device smartctl could not
   read (its smartctl.messages, no health data) gives an unavailable h
   with smartctl's message as the reason, and 0.  Returns 0, or -1 with
   err (not JSON, not smartctl's). */
int health_from_smartctl (const char *text, health_t *h, char *err, size_t errlen);

/* The bucket value v of field f falls in, as text into out: 5 degrees for
   temperatures ("40-44 C"), 10 points for percentages ("0-9%"), powers
   of ten for counters ("0", "1-9", "10-99", ...): how reports and
   history group drives by a health field (match.h's health.FIELD).
   Can't fail. */
void health_bucket (health_field_t f, int64_t v, char *out, size_t cap);

/* h as JSON (the layout above).  NULL only when out of memory. */
json_t *health_to_json (const health_t *h);

/* h from its JSON, checked: an object, "available" a boolean, an
   unavailable one with a string "reason", every field known and an
   integer within its bounds (temperatures -273..1000 C, percentages
   0..255, counters >= 0).  Returns 0, or -1 with err naming the field
   and the limit. */
int health_from_json (const json_t *j, health_t *h, char *err, size_t errlen);

#endif
