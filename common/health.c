/*  health.c: see health.h.

    Sources, each checked in the tool's own code (tests/fixtures/health/
    README says which versions):

    The NVMe SMART / Health Information log page (log identifier 02h, 512
    bytes, little-endian), as libnvme's struct nvme_smart_log lays it out
    (the kernel's and nvme-cli's are the same):
        0 critical warning          1-2 composite temperature (K)
        3 available spare (%)       4 available spare threshold (%)
        5 percentage used           32 / 48 data units read / written
        64 / 80 host read / write commands          (16-byte counters)
        128 power on hours          144 unsafe shutdowns
        160 media and data integrity errors         176 error log entries
        192 / 196 warning / critical composite temperature time (minutes)
        216 / 220 thermal management temperature 1 / 2 transition counts
        224 / 228 thermal management temperature 1 / 2 total time (s)
    A data unit is 1,000 units of 512 bytes.  A 16-byte counter whose high
    half is not zero, or that does not fit an int64 (in bytes for the data
    units), is saturated to INT64_MAX.

    `nvme smart-log DEV -o json` (nvme-cli's json_smart_log, the same key
    names from 1.0 to 2.16): critical_warning (an integer; with -v an
    object whose "value" is the byte), temperature (Kelvin), avail_spare,
    spare_thresh, percent_used, data_units_read, data_units_written,
    host_read_commands, host_write_commands, power_on_hours,
    unsafe_shutdowns, media_errors, num_err_log_entries, warning_temp_time,
    critical_comp_time, thm_temp1_trans_count, thm_temp2_trans_count,
    thm_temp1_total_time, thm_temp2_total_time.  The 16-byte counters are
    printed in digits of any length by 2.2 and later (2.4 is Debian 12's),
    as "%.0Lf" of a long double by 1.x, as strings "N.000000" by 2.1 and,
    with a json-c older than 0.14, the 32-bit ones as strings "N": all are
    read, integers, reals and numeric strings alike.

    `smartctl --json -a DEV` (smartmontools 7.0 to 7.5 and trunk):
      NVMe: "nvme_smart_health_information_log" {critical_warning,
        temperature (C), available_spare, available_spare_threshold,
        percentage_used, data_units_read, data_units_written, host_reads,
        host_writes, power_on_hours, unsafe_shutdowns, media_errors,
        num_err_log_entries, warning_temp_time, critical_comp_time, and,
        in trunk after 7.5 only, thermal_mgmt_temperature_{1,2}_
        {transition_count,total_time}}; 7.5's
        "nvme_composite_temperature_threshold" {warning, critical} (C).
      ATA: "ata_smart_attributes" {"table": [{id, name, raw {value,
        string}}]}, read by id and the name smartctl's drive database gives
        it (the same id means other things on other drives: 198 is
        Host_Reads_GiB on some, 249 Spares_Remaining_Perc): 5
        Reallocated_Sector_Ct, 197 Current_Pending_Sector, 198
        Offline_Uncorrectable, 174 or 192 Unexpect_Power_Loss_Ct or
        Unsafe_Shutdown_Count (192 is Power-Off_Retract_Count on disks:
        not read), 241 / 242 Total_LBAs_Written / Read (x the top-level
        "logical_block_size", 512 without it), Host_Writes_GiB /
        Host_Reads_GiB (x 2^30), Host_Writes_32MiB / Host_Reads_32MiB
        (x 2^25), 249 NAND_Writes_1GiB (x 2^30), 194 Temperature_Celsius
        when there is no "temperature".  The count is the leading number
        of raw.string, what smartctl shows (raw.value is all 48 bits, and
        Reallocated_Sector_Ct's format raw16(raw16) shows only the low 16);
        raw.value only when there is no string.  "ata_smart_error_log"
        {"extended" or "summary": {count}}.  Power-on hours are smartctl's
        "power_on_time" {hours}, which it derives from attribute 9 with the
        drive's raw format (minutes, half minutes, ...), not attribute 9.
      SCSI: "scsi_grown_defect_list"; "scsi_error_counter_log" {read,
        write, verify: {total_uncorrected_errors}}, summed; the drive trip
        temperature, "temperature" {drive_trip} or 7.3's
        "scsi_temperature" {drive_trip}, as the critical temperature; the
        percentage used endurance indicator,
        "scsi_percentage_used_endurance_indicator" (7.0-7.2, 7.4, 7.5),
        "scsi_Percentage used endurance indicator" (7.3 wrote the key
        unconverted) or "endurance_used" {current_percent} (7.5).
      All: "temperature" {current}, "power_on_time" {hours}, "device"
        {protocol}: NVMe, ATA, SCSI.  Without any health data, the device
        was not read: "smartctl" {"messages": [{string}]} says why.
    smartctl prints 128-bit values in digits of any length too.

    Numbers of 19 digits or more are quoted before jansson (whose integers
    are int64) reads a tool's text, so that a 128-bit counter saturates
    instead of failing the whole document.  A value outside its field's
    bounds (a 65,535 K temperature) is left out, as health_from_json would
    refuse it; so is a composite temperature of 0 K, which smartctl takes
    for no reading.
*/
#include "health.h"
#include "util.h"

#include <assert.h>
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//  ---------------------------------------------------------------------
//  Fields

typedef struct {
    const char *name;
    int64_t lo, hi;
} field_def_t;

#define TEMP_LO     HEALTH_TEMP_MIN_C
#define TEMP_HI     HEALTH_TEMP_MAX_C
#define COUNT       0, INT64_MAX

static const field_def_t s_fields[] = {
    [HF_TEMPERATURE_C]          = { "temperature_c", TEMP_LO, TEMP_HI },
    [HF_WARNING_TEMP_C]         = { "warning_temp_c", TEMP_LO, TEMP_HI },
    [HF_CRITICAL_TEMP_C]        = { "critical_temp_c", TEMP_LO, TEMP_HI },
    [HF_CRITICAL_WARNING]       = { "critical_warning", 0, 255 },
    [HF_AVAILABLE_SPARE_PCT]    = { "available_spare_pct", 0, 255 },
    [HF_SPARE_THRESHOLD_PCT]    = { "spare_threshold_pct", 0, 255 },
    [HF_PERCENTAGE_USED]        = { "percentage_used", 0, 255 },
    [HF_MEDIA_ERRORS]           = { "media_errors", COUNT },
    [HF_ERROR_LOG_ENTRIES]      = { "error_log_entries", COUNT },
    [HF_HOST_BYTES_READ]        = { "host_bytes_read", COUNT },
    [HF_HOST_BYTES_WRITTEN]     = { "host_bytes_written", COUNT },
    [HF_NAND_BYTES_WRITTEN]     = { "nand_bytes_written", COUNT },
    [HF_HOST_READ_COMMANDS]     = { "host_read_commands", COUNT },
    [HF_HOST_WRITE_COMMANDS]    = { "host_write_commands", COUNT },
    [HF_POWER_ON_HOURS]         = { "power_on_hours", COUNT },
    [HF_UNSAFE_SHUTDOWNS]       = { "unsafe_shutdowns", COUNT },
    [HF_WARNING_TEMP_MINUTES]   = { "warning_temp_minutes", COUNT },
    [HF_CRITICAL_TEMP_MINUTES]  = { "critical_temp_minutes", COUNT },
    [HF_THROTTLE1_TRANSITIONS]  = { "throttle1_transitions", COUNT },
    [HF_THROTTLE2_TRANSITIONS]  = { "throttle2_transitions", COUNT },
    [HF_THROTTLE1_SECONDS]      = { "throttle1_seconds", COUNT },
    [HF_THROTTLE2_SECONDS]      = { "throttle2_seconds", COUNT },
    [HF_REALLOCATED_SECTORS]    = { "reallocated_sectors", COUNT },
    [HF_PENDING_SECTORS]        = { "pending_sectors", COUNT },
    [HF_UNCORRECTABLE_SECTORS]  = { "uncorrectable_sectors", COUNT },
    [HF_GROWN_DEFECTS]          = { "grown_defects", COUNT },
};
static_assert (sizeof s_fields / sizeof s_fields[0] == HF_N, "one name per health field");
static_assert (HF_N <= 64, "health_t.have has a bit per field");

#define NVME_UNIT_BYTES     (1000 * 512)
#define NVME_LOG_BYTES      512

const char *
health_field_name (health_field_t f)
{
    return (unsigned) f < HF_N ? s_fields[f].name : "?";
}

int
health_field_by_name (const char *name)
{
    for (int f = 0; name && f < HF_N; f++)
        if (strcmp (s_fields[f].name, name) == 0)
            return f;
    return -1;
}

void
health_set (health_t *h, health_field_t f, int64_t v)
{
    if ((unsigned) f >= HF_N)
        return;
    if (v < s_fields[f].lo || v > s_fields[f].hi) {
        h->have &= ~((uint64_t) 1 << f);
        return;
    }
    h->v[f] = v;
    h->have |= (uint64_t) 1 << f;
}

//  Copies len bytes of src (at most, up to a NUL) into dst of capacity cap
//  as well-formed UTF-8, so that jansson takes it: cut before a character
//  that does not fit whole, each byte of an ill-formed sequence made '?'.
//  Can't fail.
static void
s_text_copy (char *dst, size_t cap, const char *src, size_t len)
{
    size_t slen = 0;            /* strnlen, which -O2 refuses a bound of SIZE_MAX */
    while (slen < len && src[slen])
        slen++;
    len = slen;
    size_t n = len < cap - 1 ? len : cap - 1;
    if (n < len)
        while (n > 0 && ((unsigned char) src[n] & 0xc0) == 0x80)
            n--;
    memmove (dst, src, n);
    dst[n] = '\0';
    long at;
    while ((at = utf8_invalid_at (dst, n)) >= 0)
        dst[at] = '?';
}

void
health_init (health_t *h, const char *source, const char *protocol)
{
    memset (h, 0, sizeof *h);
    h->available = true;
    s_text_copy (h->source, sizeof h->source, source ? source : "", SIZE_MAX);
    s_text_copy (h->protocol, sizeof h->protocol, protocol ? protocol : "", SIZE_MAX);
}

void
health_unavailable (health_t *h, const char *fmt, ...)
{
    memset (h, 0, sizeof *h);
    //  Formatted at 4 times the room, so that the cut is s_text_copy's, on a
    //  character's boundary.
    char buf[4 * HEALTH_REASON_MAX + 1];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (buf, sizeof buf, fmt, ap);
    va_end (ap);
    s_text_copy (h->reason, sizeof h->reason, buf, sizeof buf);
}

//  ---------------------------------------------------------------------
//  Arithmetic

//  a * b for a, b >= 0, INT64_MAX when it overflows.  Can't fail.
static int64_t
s_mul_sat (int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow (a, b, &r) ? INT64_MAX : r;
}

//  a + b for a, b >= 0, INT64_MAX when it overflows.  Can't fail.
static int64_t
s_add_sat (int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow (a, b, &r) ? INT64_MAX : r;
}

//  ---------------------------------------------------------------------
//  The log page

static uint64_t
s_le (const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

//  The 16-byte little-endian counter at p, INT64_MAX when it does not fit.
static int64_t
s_le128 (const uint8_t *p)
{
    uint64_t lo = s_le (p, 8), hi = s_le (p + 8, 8);
    return hi || lo > INT64_MAX ? INT64_MAX : (int64_t) lo;
}

//  Composite temperature k (Kelvin) into h, as nvme-cli converts it
//  (kelvin_to_celsius: k - 273); 0 K is no reading.
static void
s_put_kelvin (health_t *h, int64_t k)
{
    if (k > 0)
        health_set (h, HF_TEMPERATURE_C, k - 273);
}

int
health_from_nvme_log (const uint8_t *page, size_t len, health_t *h, char *err, size_t errlen)
{
    health_init (h, "nvme-ioctl", "nvme");
    if (!page || len < NVME_LOG_BYTES) {
        snprintf (err, errlen, "NVMe SMART / health log page: %zu bytes, want %d", page ? len : 0,
                  NVME_LOG_BYTES);
        return -1;
    }
    health_set (h, HF_CRITICAL_WARNING, page[0]);
    s_put_kelvin (h, (int64_t) s_le (page + 1, 2));
    health_set (h, HF_AVAILABLE_SPARE_PCT, page[3]);
    health_set (h, HF_SPARE_THRESHOLD_PCT, page[4]);
    health_set (h, HF_PERCENTAGE_USED, page[5]);
    health_set (h, HF_HOST_BYTES_READ, s_mul_sat (s_le128 (page + 32), NVME_UNIT_BYTES));
    health_set (h, HF_HOST_BYTES_WRITTEN, s_mul_sat (s_le128 (page + 48), NVME_UNIT_BYTES));
    health_set (h, HF_HOST_READ_COMMANDS, s_le128 (page + 64));
    health_set (h, HF_HOST_WRITE_COMMANDS, s_le128 (page + 80));
    health_set (h, HF_POWER_ON_HOURS, s_le128 (page + 128));
    health_set (h, HF_UNSAFE_SHUTDOWNS, s_le128 (page + 144));
    health_set (h, HF_MEDIA_ERRORS, s_le128 (page + 160));
    health_set (h, HF_ERROR_LOG_ENTRIES, s_le128 (page + 176));
    health_set (h, HF_WARNING_TEMP_MINUTES, (int64_t) s_le (page + 192, 4));
    health_set (h, HF_CRITICAL_TEMP_MINUTES, (int64_t) s_le (page + 196, 4));
    health_set (h, HF_THROTTLE1_TRANSITIONS, (int64_t) s_le (page + 216, 4));
    health_set (h, HF_THROTTLE2_TRANSITIONS, (int64_t) s_le (page + 220, 4));
    health_set (h, HF_THROTTLE1_SECONDS, (int64_t) s_le (page + 224, 4));
    health_set (h, HF_THROTTLE2_SECONDS, (int64_t) s_le (page + 228, 4));
    return 0;
}

//  ---------------------------------------------------------------------
//  The tools' JSON

//  A copy of text in which every integer of 19 digits or more outside a
//  string is quoted (see the header comment).  NULL when out of memory.
static char *
s_quote_big (const char *text)
{
    size_t n = strlen (text);
    //  Two quotes for at least 19 characters.
    char *out = malloc (n + n / 8 + 3), *o = out;
    if (!out)
        return NULL;
    bool in_string = false;
    const char *p = text;
    while (*p) {
        if (in_string) {
            if (*p == '\\' && p[1])
                *o++ = *p++;
            else if (*p == '"')
                in_string = false;
            *o++ = *p++;
        } else if (*p == '"') {
            in_string = true;
            *o++ = *p++;
        } else if (*p == '-' || isdigit ((unsigned char) *p)) {
            const char *q = p + (*p == '-'), *digits = q;
            while (isdigit ((unsigned char) *q))
                q++;
            bool whole = *q != '.' && *q != 'e' && *q != 'E';
            if (whole && q - digits >= 19) {
                *o++ = '"';
                memcpy (o, p, (size_t) (q - p));
                o += q - p;
                *o++ = '"';
            } else {
                while (*q && strchr ("0123456789.eE+-", *q))
                    q++;
                memcpy (o, p, (size_t) (q - p));
                o += q - p;
            }
            p = q;
        } else
            *o++ = *p++;
    }
    *o = '\0';
    return out;
}

//  text (a tool's JSON) as an object, big integers quoted.  NULL with err.
static json_t *
s_load_tool (const char *text, const char *tool, char *err, size_t errlen)
{
    if (!text) {
        snprintf (err, errlen, "%s: no text", tool);
        return NULL;
    }
    char *quoted = s_quote_big (text);
    if (!quoted) {
        snprintf (err, errlen, "%s: out of memory", tool);
        return NULL;
    }
    json_error_t jerr;
    json_t *j = json_loads (quoted, 0, &jerr);
    free (quoted);
    if (!j)
        snprintf (err, errlen, "%s: not JSON: %s (line %d)", tool, jerr.text, jerr.line);
    else if (!json_is_object (j)) {
        snprintf (err, errlen, "%s: not a JSON object", tool);
        json_decref (j);
        j = NULL;
    }
    return j;
}

//  A tool's number j into *v: an integer, a real or a string of a
//  number ("123", "123.000000", 19 digits and more), saturated to
//  INT64_MAX, a fraction dropped.  0, or -1 when j is none of these,
//  negative, or not finite.
static int
s_num (const json_t *j, int64_t *v)
{
    double d;
    if (json_is_integer (j)) {
        if (json_integer_value (j) < 0)
            return -1;
        *v = json_integer_value (j);
        return 0;
    } else if (json_is_real (j))
        d = json_real_value (j);
    else if (json_is_string (j)) {
        const char *s = json_string_value (j);
        size_t len = strlen (s);
        if (!isdigit ((unsigned char) s[0]) || strspn (s, "0123456789.eE+-") != len)
            return -1;
        if (strspn (s, "0123456789") == len) {
            int64_t x = 0;
            for (const char *p = s; *p; p++)
                x = s_add_sat (s_mul_sat (x, 10), *p - '0');
            *v = x;
            return 0;
        }
        char *end;
        d = strtod (s, &end);
        if (*end)
            return -1;
    } else
        return -1;
    if (!isfinite (d) || d < 0)
        return -1;
    *v = d >= 0x1p63 ? INT64_MAX : (int64_t) d;
    return 0;
}

//  o[key] as a tool's number (s_num).  0 or -1.
static int
s_get (const json_t *o, const char *key, int64_t *v)
{
    return s_num (json_object_get (o, key), v);
}

typedef enum { AS_IS, KELVIN, NVME_UNITS } conv_t;

typedef struct {
    const char *key;
    health_field_t f;
    conv_t conv;
} key_map_t;

//  Each key of map found in o into h.  Returns how many were.
static int
s_map (health_t *h, const json_t *o, const key_map_t *map, size_t n)
{
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        if (s_get (o, map[i].key, &v))
            continue;
        found++;
        if (map[i].conv == KELVIN)
            s_put_kelvin (h, v);
        else if (map[i].conv == NVME_UNITS)
            health_set (h, map[i].f, s_mul_sat (v, NVME_UNIT_BYTES));
        else
            health_set (h, map[i].f, v);
    }
    return found;
}

static const key_map_t s_nvme_cli[] = {
    { "temperature", HF_TEMPERATURE_C, KELVIN },
    { "avail_spare", HF_AVAILABLE_SPARE_PCT, AS_IS },
    { "spare_thresh", HF_SPARE_THRESHOLD_PCT, AS_IS },
    { "percent_used", HF_PERCENTAGE_USED, AS_IS },
    { "data_units_read", HF_HOST_BYTES_READ, NVME_UNITS },
    { "data_units_written", HF_HOST_BYTES_WRITTEN, NVME_UNITS },
    { "host_read_commands", HF_HOST_READ_COMMANDS, AS_IS },
    { "host_write_commands", HF_HOST_WRITE_COMMANDS, AS_IS },
    { "power_on_hours", HF_POWER_ON_HOURS, AS_IS },
    { "unsafe_shutdowns", HF_UNSAFE_SHUTDOWNS, AS_IS },
    { "media_errors", HF_MEDIA_ERRORS, AS_IS },
    { "num_err_log_entries", HF_ERROR_LOG_ENTRIES, AS_IS },
    { "warning_temp_time", HF_WARNING_TEMP_MINUTES, AS_IS },
    { "critical_comp_time", HF_CRITICAL_TEMP_MINUTES, AS_IS },
    { "thm_temp1_trans_count", HF_THROTTLE1_TRANSITIONS, AS_IS },
    { "thm_temp2_trans_count", HF_THROTTLE2_TRANSITIONS, AS_IS },
    { "thm_temp1_total_time", HF_THROTTLE1_SECONDS, AS_IS },
    { "thm_temp2_total_time", HF_THROTTLE2_SECONDS, AS_IS },
};

int
health_from_nvme_cli (const char *text, health_t *h, char *err, size_t errlen)
{
    health_init (h, "nvme-cli", "nvme");
    json_t *root = s_load_tool (text, "nvme smart-log", err, errlen);
    if (!root)
        return -1;
    int found = s_map (h, root, s_nvme_cli, sizeof s_nvme_cli / sizeof s_nvme_cli[0]);
    //  An integer, or with -v an object of the bits and their "value".
    json_t *cw = json_object_get (root, "critical_warning");
    int64_t v;
    if (!s_num (json_is_object (cw) ? json_object_get (cw, "value") : cw, &v)) {
        health_set (h, HF_CRITICAL_WARNING, v);
        found++;
    }
    json_decref (root);
    if (!found) {
        health_init (h, "nvme-cli", "nvme");
        snprintf (err, errlen, "nvme smart-log: no field of an NVMe SMART / health log in it "
                  "(want the output of `nvme smart-log DEV -o json`)");
        return -1;
    }
    return 0;
}

static const key_map_t s_smartctl_nvme[] = {
    { "critical_warning", HF_CRITICAL_WARNING, AS_IS },
    { "temperature", HF_TEMPERATURE_C, AS_IS },
    { "available_spare", HF_AVAILABLE_SPARE_PCT, AS_IS },
    { "available_spare_threshold", HF_SPARE_THRESHOLD_PCT, AS_IS },
    { "percentage_used", HF_PERCENTAGE_USED, AS_IS },
    { "data_units_read", HF_HOST_BYTES_READ, NVME_UNITS },
    { "data_units_written", HF_HOST_BYTES_WRITTEN, NVME_UNITS },
    { "host_reads", HF_HOST_READ_COMMANDS, AS_IS },
    { "host_writes", HF_HOST_WRITE_COMMANDS, AS_IS },
    { "power_on_hours", HF_POWER_ON_HOURS, AS_IS },
    { "unsafe_shutdowns", HF_UNSAFE_SHUTDOWNS, AS_IS },
    { "media_errors", HF_MEDIA_ERRORS, AS_IS },
    { "num_err_log_entries", HF_ERROR_LOG_ENTRIES, AS_IS },
    { "warning_temp_time", HF_WARNING_TEMP_MINUTES, AS_IS },
    { "critical_comp_time", HF_CRITICAL_TEMP_MINUTES, AS_IS },
    { "thermal_mgmt_temperature_1_transition_count", HF_THROTTLE1_TRANSITIONS, AS_IS },
    { "thermal_mgmt_temperature_2_transition_count", HF_THROTTLE2_TRANSITIONS, AS_IS },
    { "thermal_mgmt_temperature_1_total_time", HF_THROTTLE1_SECONDS, AS_IS },
    { "thermal_mgmt_temperature_2_total_time", HF_THROTTLE2_SECONDS, AS_IS },
};

static const key_map_t s_smartctl_nvme_thresholds[] = {
    { "warning", HF_WARNING_TEMP_C, AS_IS },
    { "critical", HF_CRITICAL_TEMP_C, AS_IS },
};

//  ATA attributes read, by id and name.  mul: bytes per raw unit, 0 for
//  the logical block size, 1 for a count.
typedef struct {
    int id;
    const char *name;
    health_field_t f;
    int64_t mul;
} ata_attr_t;

static const ata_attr_t s_ata_attrs[] = {
    { 5, "Reallocated_Sector_Ct", HF_REALLOCATED_SECTORS, 1 },
    { 197, "Current_Pending_Sector", HF_PENDING_SECTORS, 1 },
    { 198, "Offline_Uncorrectable", HF_UNCORRECTABLE_SECTORS, 1 },
    { 174, "Unexpect_Power_Loss_Ct", HF_UNSAFE_SHUTDOWNS, 1 },
    { 174, "Unsafe_Shutdown_Count", HF_UNSAFE_SHUTDOWNS, 1 },
    { 192, "Unexpect_Power_Loss_Ct", HF_UNSAFE_SHUTDOWNS, 1 },
    { 192, "Unsafe_Shutdown_Count", HF_UNSAFE_SHUTDOWNS, 1 },
    { 241, "Total_LBAs_Written", HF_HOST_BYTES_WRITTEN, 0 },
    { 241, "Host_Writes_GiB", HF_HOST_BYTES_WRITTEN, (int64_t) 1 << 30 },
    { 241, "Host_Writes_32MiB", HF_HOST_BYTES_WRITTEN, (int64_t) 1 << 25 },
    { 242, "Total_LBAs_Read", HF_HOST_BYTES_READ, 0 },
    { 242, "Host_Reads_GiB", HF_HOST_BYTES_READ, (int64_t) 1 << 30 },
    { 242, "Host_Reads_32MiB", HF_HOST_BYTES_READ, (int64_t) 1 << 25 },
    { 249, "NAND_Writes_1GiB", HF_NAND_BYTES_WRITTEN, (int64_t) 1 << 30 },
};

//  An attribute's count: the leading number of raw.string when it stands
//  alone or before " (...)", raw.value when there is no string.  0 or -1.
static int
s_ata_raw (const json_t *attr, int64_t *v)
{
    json_t *raw = json_object_get (attr, "raw");
    const char *s = json_string_value (json_object_get (raw, "string"));
    if (!s)
        return s_get (raw, "value", v);
    size_t n = strspn (s, "0123456789");
    if (n == 0 || (s[n] && s[n] != ' '))
        return -1;
    int64_t x = 0;
    for (size_t i = 0; i < n; i++)
        x = s_add_sat (s_mul_sat (x, 10), s[i] - '0');
    *v = x;
    return 0;
}

//  ATA attributes of root into h.  Returns how many fields were found.
static int
s_smartctl_ata (health_t *h, const json_t *root)
{
    json_t *table = json_object_get (json_object_get (root, "ata_smart_attributes"), "table");
    int64_t lbs;
    if (s_get (root, "logical_block_size", &lbs) || lbs < 512 || lbs > (1 << 20))
        lbs = 512;
    int found = 0;
    size_t i;
    json_t *attr;
    json_array_foreach (table, i, attr) {
        int64_t id, v;
        const char *name = json_string_value (json_object_get (attr, "name"));
        if (s_get (attr, "id", &id) || !name || s_ata_raw (attr, &v))
            continue;
        if (id == 194 && strcmp (name, "Temperature_Celsius") == 0
            && !health_has (h, HF_TEMPERATURE_C)) {
            health_set (h, HF_TEMPERATURE_C, v);
            found++;
            continue;
        }
        for (size_t k = 0; k < sizeof s_ata_attrs / sizeof s_ata_attrs[0]; k++)
            if (s_ata_attrs[k].id == id && strcmp (s_ata_attrs[k].name, name) == 0) {
                int64_t mul = s_ata_attrs[k].mul ? s_ata_attrs[k].mul : lbs;
                health_set (h, s_ata_attrs[k].f, s_mul_sat (v, mul));
                found++;
            }
    }
    //  The extended (GP) log's count when smartctl read it, else the summary's.
    json_t *log = json_object_get (root, "ata_smart_error_log");
    int64_t v;
    if (!s_get (json_object_get (log, "extended"), "count", &v)
        || !s_get (json_object_get (log, "summary"), "count", &v)) {
        health_set (h, HF_ERROR_LOG_ENTRIES, v);
        found++;
    }
    return found;
}

//  SCSI figures of root into h.  Returns how many fields were found.
static int
s_smartctl_scsi (health_t *h, const json_t *root)
{
    int found = 0;
    int64_t v;
    if (!s_get (root, "scsi_grown_defect_list", &v)) {
        health_set (h, HF_GROWN_DEFECTS, v);
        found++;
    }
    json_t *ecl = json_object_get (root, "scsi_error_counter_log");
    static const char *const dirs[] = { "read", "write", "verify" };
    int64_t sum = 0;
    bool any = false;
    for (int d = 0; d < 3; d++)
        if (!s_get (json_object_get (ecl, dirs[d]), "total_uncorrected_errors", &v)) {
            sum = s_add_sat (sum, v);
            any = true;
        }
    if (any) {
        health_set (h, HF_UNCORRECTABLE_SECTORS, sum);
        found++;
    }
    /* 0: the device has no temperature log page (smartctl 7.3 writes 0
       for QEMU's scsi-hd, where its text says "<not available>"). */
    if ((!s_get (json_object_get (root, "temperature"), "drive_trip", &v)
         || !s_get (json_object_get (root, "scsi_temperature"), "drive_trip", &v)) && v != 0) {
        health_set (h, HF_CRITICAL_TEMP_C, v);
        found++;
    }
    if (!s_get (root, "scsi_percentage_used_endurance_indicator", &v)
        || !s_get (root, "scsi_Percentage used endurance indicator", &v)) {
        health_set (h, HF_PERCENTAGE_USED, v);
        found++;
    }
    return found;
}

int
health_from_smartctl (const char *text, health_t *h, char *err, size_t errlen)
{
    health_init (h, "smartctl", "");
    json_t *root = s_load_tool (text, "smartctl", err, errlen);
    if (!root)
        return -1;
    json_t *sc = json_object_get (root, "smartctl");
    if (!json_is_object (sc)) {
        snprintf (err, errlen, "smartctl: no \"smartctl\" object: not the output of "
                  "`smartctl --json -a DEV`");
        json_decref (root);
        return -1;
    }
    const char *proto = json_string_value (json_object_get (json_object_get (root, "device"),
                                                            "protocol"));
    const char *protocol = !proto ? ""
                         : strcmp (proto, "NVMe") == 0 ? "nvme"
                         : strcmp (proto, "ATA") == 0 ? "ata"
                         : strcmp (proto, "SCSI") == 0 ? "scsi" : "";
    health_init (h, "smartctl", protocol);

    int found = 0;
    json_t *nvme = json_object_get (root, "nvme_smart_health_information_log");
    found += s_map (h, nvme, s_smartctl_nvme, sizeof s_smartctl_nvme / sizeof s_smartctl_nvme[0]);
    found += s_map (h, json_object_get (root, "nvme_composite_temperature_threshold"),
                    s_smartctl_nvme_thresholds,
                    sizeof s_smartctl_nvme_thresholds / sizeof s_smartctl_nvme_thresholds[0]);
    json_t *temp = json_object_get (root, "temperature");
    int64_t v;
    /* A current temperature of 0 from an ATA or SCSI device is none: a
       device without the temperature log page (smartctl 7.3 writes 0 for
       QEMU's scsi-hd, tests/fixtures/health/smartctl-qemu-scsi.json). */
    if (!health_has (h, HF_TEMPERATURE_C) && !s_get (temp, "current", &v)
        && (v != 0 || strcmp (protocol, "nvme") == 0)) {
        health_set (h, HF_TEMPERATURE_C, v);
        found++;
    }
    if (!health_has (h, HF_POWER_ON_HOURS)
        && !s_get (json_object_get (root, "power_on_time"), "hours", &v)) {
        health_set (h, HF_POWER_ON_HOURS, v);
        found++;
    }
    found += s_smartctl_ata (h, root);
    found += s_smartctl_scsi (h, root);
    if (!health_has (h, HF_PERCENTAGE_USED) && strcmp (protocol, "scsi") == 0
        && !s_get (json_object_get (root, "endurance_used"), "current_percent", &v)) {
        health_set (h, HF_PERCENTAGE_USED, v);
        found++;
    }

    if (!found) {
        //  Not read: smartctl's first message says why.
        json_t *msgs = json_object_get (sc, "messages");
        const char *why = json_string_value (json_object_get (json_array_get (msgs, 0),
                                                              "string"));
        int64_t status = -1;
        s_get (sc, "exit_status", &status);
        if (why)
            health_unavailable (h, "%s", why);
        else
            health_unavailable (h, "smartctl read no health data (exit status %" PRId64 ")",
                                status);
        s_text_copy (h->source, sizeof h->source, "smartctl", SIZE_MAX);
        s_text_copy (h->protocol, sizeof h->protocol, protocol, SIZE_MAX);
    }
    json_decref (root);
    return 0;
}

//  ---------------------------------------------------------------------
//  The record as JSON

//  o[key] = a string of s (buffer of size cap), made well-formed.  0, or
//  -1 when out of memory.
static int
s_set_text (json_t *o, const char *key, const char *s, size_t cap)
{
    char buf[HEALTH_REASON_MAX + 1];
    s_text_copy (buf, sizeof buf, s, cap);
    return json_object_set_new (o, key, json_string (buf));
}

json_t *
health_to_json (const health_t *h)
{
    json_t *o = json_object ();
    if (!o || json_object_set_new (o, "available", json_boolean (h->available)))
        goto oom;
    if (!h->available && s_set_text (o, "reason", h->reason, sizeof h->reason))
        goto oom;
    if (strnlen (h->source, sizeof h->source)
        && s_set_text (o, "source", h->source, sizeof h->source))
        goto oom;
    if (strnlen (h->protocol, sizeof h->protocol)
        && s_set_text (o, "protocol", h->protocol, sizeof h->protocol))
        goto oom;
    for (int f = 0; f < HF_N; f++)
        if (health_has (h, (health_field_t) f)
            && json_object_set_new (o, s_fields[f].name, json_integer (h->v[f])))
            goto oom;
    return o;
oom:
    json_decref (o);
    return NULL;
}

//  o[key], if there, a string of at most max bytes (dst's capacity is
//  max + 1) into dst.  0, or -1 with err.
static int
s_get_text (const json_t *o, const char *key, size_t max, char *dst, char *err, size_t errlen)
{
    json_t *s = json_object_get (o, key);
    if (!s)
        return 0;
    if (!json_is_string (s)) {
        snprintf (err, errlen, "health.%s: not a string", key);
        return -1;
    }
    size_t len = json_string_length (s);
    if (len > max || strlen (json_string_value (s)) != len) {
        snprintf (err, errlen, "health.%s: %zu bytes, want at most %zu and no NUL", key, len, max);
        return -1;
    }
    memcpy (dst, json_string_value (s), len);
    dst[len] = '\0';
    return 0;
}

int
health_from_json (const json_t *j, health_t *h, char *err, size_t errlen)
{
    memset (h, 0, sizeof *h);
    if (!json_is_object (j)) {
        snprintf (err, errlen, "health: not an object");
        return -1;
    }
    json_t *avail = json_object_get (j, "available");
    if (!json_is_boolean (avail)) {
        snprintf (err, errlen, "health.available: %s (want true or false)",
                  avail ? "not a boolean" : "missing");
        return -1;
    }
    health_t r;
    memset (&r, 0, sizeof r);
    r.available = json_is_true (avail);
    json_t *reason = json_object_get (j, "reason");
    if (!r.available && !json_is_string (reason)) {
        snprintf (err, errlen, "health.reason: %s (an unavailable record says why)",
                  reason ? "not a string" : "missing");
        return -1;
    }
    if (r.available && reason) {
        snprintf (err, errlen, "health.reason: only an unavailable record has one");
        return -1;
    }
    if (s_get_text (j, "reason", HEALTH_REASON_MAX, r.reason, err, errlen)
        || s_get_text (j, "source", HEALTH_SOURCE_MAX, r.source, err, errlen)
        || s_get_text (j, "protocol", sizeof r.protocol - 1, r.protocol, err, errlen))
        return -1;
    if (json_object_get (j, "source") && !r.source[0]) {
        snprintf (err, errlen, "health.source: empty (leave it out)");
        return -1;
    }
    if (json_object_get (j, "protocol") && strcmp (r.protocol, "nvme")
        && strcmp (r.protocol, "ata") && strcmp (r.protocol, "scsi")) {
        snprintf (err, errlen, "health.protocol: '%s' (want nvme, ata or scsi)", r.protocol);
        return -1;
    }
    const char *key;
    json_t *val;
    json_object_foreach ((json_t *) j, key, val) {
        if (!strcmp (key, "available") || !strcmp (key, "reason") || !strcmp (key, "source")
            || !strcmp (key, "protocol"))
            continue;
        int f = health_field_by_name (key);
        if (f < 0) {
            snprintf (err, errlen, "health.%.64s: unknown field", key);
            return -1;
        }
        if (!r.available) {
            snprintf (err, errlen, "health.%s: an unavailable record has no fields", key);
            return -1;
        }
        if (!json_is_integer (val)) {
            snprintf (err, errlen, "health.%s: not an integer", key);
            return -1;
        }
        int64_t v = json_integer_value (val);
        if (v < s_fields[f].lo || v > s_fields[f].hi) {
            snprintf (err, errlen, "health.%s: %" PRId64 " is out of range %" PRId64 "..%" PRId64,
                      key, v, s_fields[f].lo, s_fields[f].hi);
            return -1;
        }
        health_set (&r, (health_field_t) f, v);
    }
    *h = r;
    return 0;
}

void
health_bucket (health_field_t f, int64_t v, char *out, size_t cap)
{
    bool temp = f == HF_TEMPERATURE_C || f == HF_WARNING_TEMP_C || f == HF_CRITICAL_TEMP_C;
    bool pct = f == HF_AVAILABLE_SPARE_PCT || f == HF_SPARE_THRESHOLD_PCT
               || f == HF_PERCENTAGE_USED;
    if (temp) {
        int64_t lo = v >= 0 ? v / 5 * 5 : -((-v + 4) / 5 * 5);
        snprintf (out, cap, "%lld-%lld C", (long long) lo, (long long) lo + 4);
    } else if (pct) {
        int64_t lo = v / 10 * 10;
        snprintf (out, cap, "%lld-%lld%%", (long long) lo, (long long) lo + 9);
    } else if (v <= 0)
        snprintf (out, cap, "0");
    else {
        long long lo = 1;
        while (lo <= v / 10 && lo < 1000000000000000000LL)
            lo *= 10;
        if (lo == 1000000000000000000LL)
            snprintf (out, cap, "%lld-", lo);
        else
            snprintf (out, cap, "%lld-%lld", lo, lo * 10 - 1);
    }
}
