/*  test_health.c: unit tests for common/health.c.

    Each fixture of tests/fixtures/health (argv[1]; its README says where
    each shape comes from) is read and checked field by field: every field
    the tool gives with its value converted to the record's units (Kelvin
    to Celsius as nvme-cli does it, NVMe data units of 1,000 x 512 bytes,
    ATA LBAs x the logical block size, GiB), every other field absent (not
    0).  A log page built here with known values at each offset, the
    tools' other forms (nvme-cli -v, 2.1's strings, 128-bit counters,
    smartctl 7.3's SCSI keys, ATA attributes whose id means something else
    on other drives), the unavailable record, the JSON round trip of every
    fixture, and what health_from_json refuses.
*/
#include "health.h"
#include "util.h"
#include "testutil.h"

#include <inttypes.h>

static const char *s_dir = "tests/fixtures/health";

typedef struct {
    health_field_t f;
    int64_t v;
} want_t;

#define N(a) ((int) (sizeof (a) / sizeof (a)[0]))

//  The fixture name's text (freed by the caller); without it the test
//  stops there, failed.
static char *
fixture (const char *name)
{
    char path[4096];
    snprintf (path, sizeof path, "%s/%s", s_dir, name);
    char *text = file_read_all (path, 1 << 20, NULL);
    CHECK_MSG (text != NULL, "cannot read %s", path);
    if (!text)
        exit (TEST_DONE ());
    return text;
}

//  Checks that h has exactly the fields of w, with their values.
static void
check_fields (const health_t *h, const char *what, const want_t *w, int n)
{
    for (int f = 0; f < HF_N; f++) {
        const want_t *x = NULL;
        for (int i = 0; i < n; i++)
            if ((int) w[i].f == f)
                x = &w[i];
        if (x)
            CHECK_MSG (health_has (h, (health_field_t) f) && h->v[f] == x->v,
                       "%s: %s is %s%" PRId64 ", want %" PRId64, what, health_field_name (f),
                       health_has (h, (health_field_t) f) ? "" : "absent, ",
                       h->v[f], x->v);
        else
            CHECK_MSG (!health_has (h, (health_field_t) f), "%s: %s is %" PRId64 ", want absent",
                       what, health_field_name (f), h->v[f]);
    }
}

//  err contains want.
static void
says (const char *err, const char *want)
{
    CHECK_STR_CONTAINS (err, want);
}

static bool
same (const health_t *a, const health_t *b)
{
    if (a->available != b->available || a->have != b->have || strcmp (a->reason, b->reason)
        || strcmp (a->source, b->source) || strcmp (a->protocol, b->protocol))
        return false;
    for (int f = 0; f < HF_N; f++)
        if ((a->have >> f & 1) && a->v[f] != b->v[f])
            return false;
    return true;
}

//  h to JSON text and back: the same record, within HEALTH_JSON_MAX.
static void
check_round_trip (const health_t *h, const char *what)
{
    json_t *j = health_to_json (h);
    char *text = j ? json_dumps (j, JSON_COMPACT) : NULL;
    json_decref (j);
    CHECK_MSG (text && strlen (text) <= HEALTH_JSON_MAX, "%s: to_json", what);
    json_t *back = text ? json_loads (text, 0, NULL) : NULL;
    health_t h2;
    char err[256] = "";
    int rc = health_from_json (back, &h2, err, sizeof err);
    CHECK_MSG (rc == 0 && same (h, &h2), "%s: round trip: %s (%s)", what, err,
               text ? text : "(null)");
    json_decref (back);
    free (text);
}

//  ---------------------------------------------------------------------
//  Names

static void
test_names (void)
{
    int bad = 0;
    for (int f = 0; f < HF_N; f++) {
        if (health_field_by_name (health_field_name ((health_field_t) f)) != f)
            bad++;
        for (int g = 0; g < f; g++)
            if (!strcmp (health_field_name ((health_field_t) f),
                         health_field_name ((health_field_t) g)))
                bad++;
    }
    CHECK_MSG (bad == 0, "%d names do not round trip or repeat", bad);
    CHECK (strcmp (health_field_name (HF_TEMPERATURE_C), "temperature_c") == 0);
    CHECK (strcmp (health_field_name (HF_GROWN_DEFECTS), "grown_defects") == 0);
    CHECK (health_field_by_name ("nand_bytes_written") == HF_NAND_BYTES_WRITTEN);
    CHECK (health_field_by_name ("temperature") == -1);
    CHECK (health_field_by_name (NULL) == -1);
    CHECK (strcmp (health_field_name (HF_N), "?") == 0);

    health_t h;
    health_init (&h, "simulated", "nvme");
    health_set (&h, HF_TEMPERATURE_C, 1000);
    CHECK (health_has (&h, HF_TEMPERATURE_C) && h.v[HF_TEMPERATURE_C] == 1000);
    health_set (&h, HF_TEMPERATURE_C, 1001);
    CHECK (!health_has (&h, HF_TEMPERATURE_C));
    health_set (&h, HF_PERCENTAGE_USED, 255);
    health_set (&h, HF_AVAILABLE_SPARE_PCT, 256);
    health_set (&h, HF_MEDIA_ERRORS, -1);
    health_set (&h, HF_N, 5);
    CHECK (h.have == (uint64_t) 1 << HF_PERCENTAGE_USED);
}

//  ---------------------------------------------------------------------
//  The log page

static void
put_le (uint8_t *p, int off, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[off + i] = (uint8_t) (v >> (8 * i));
}

static void
test_log_page (void)
{
    uint8_t page[512];
    memset (page, 0xa5, sizeof page);           // reserved bytes: never read
    memset (page + 6, 0, 26);
    page[0] = 0x05;
    put_le (page, 1, 318, 2);                   // 45 C
    page[3] = 97;
    page[4] = 10;
    page[5] = 3;
    for (int off = 32; off < 192; off += 16)
        memset (page + off, 0, 16);
    put_le (page, 32, 1234567, 8);              // data units read
    put_le (page, 48, 5, 8);                    // data units written, high half not zero
    page[48 + 8] = 1;
    put_le (page, 64, (uint64_t) 1 << 62, 8);   // host read commands, fits
    put_le (page, 80, (uint64_t) 1 << 63, 8);   // host write commands, past INT64_MAX
    put_le (page, 96, 777, 8);                  // controller busy time: not a field
    put_le (page, 112, 55, 8);                  // power cycles: not a field
    put_le (page, 128, 8760, 8);
    put_le (page, 144, 12, 8);
    put_le (page, 160, 1, 8);
    put_le (page, 176, 4242, 8);
    put_le (page, 192, 4294967294u, 4);
    put_le (page, 196, 9, 4);
    for (int i = 0; i < 8; i++)
        put_le (page, 200 + 2 * i, 0x1234, 2);  // temperature sensors: not fields
    put_le (page, 216, 100, 4);
    put_le (page, 220, 7, 4);
    put_le (page, 224, 3600, 4);
    put_le (page, 228, 2147483649u, 4);

    health_t h;
    char err[256] = "";
    CHECK (health_from_nvme_log (page, sizeof page, &h, err, sizeof err) == 0);
    CHECK (h.available && !strcmp (h.source, "nvme-ioctl") && !strcmp (h.protocol, "nvme"));
    const want_t w[] = {
        { HF_CRITICAL_WARNING, 5 },
        { HF_TEMPERATURE_C, 45 },
        { HF_AVAILABLE_SPARE_PCT, 97 },
        { HF_SPARE_THRESHOLD_PCT, 10 },
        { HF_PERCENTAGE_USED, 3 },
        { HF_HOST_BYTES_READ, 1234567LL * 512000 },
        { HF_HOST_BYTES_WRITTEN, INT64_MAX },
        { HF_HOST_READ_COMMANDS, (int64_t) 1 << 62 },
        { HF_HOST_WRITE_COMMANDS, INT64_MAX },
        { HF_POWER_ON_HOURS, 8760 },
        { HF_UNSAFE_SHUTDOWNS, 12 },
        { HF_MEDIA_ERRORS, 1 },
        { HF_ERROR_LOG_ENTRIES, 4242 },
        { HF_WARNING_TEMP_MINUTES, 4294967294LL },
        { HF_CRITICAL_TEMP_MINUTES, 9 },
        { HF_THROTTLE1_TRANSITIONS, 100 },
        { HF_THROTTLE2_TRANSITIONS, 7 },
        { HF_THROTTLE1_SECONDS, 3600 },
        { HF_THROTTLE2_SECONDS, 2147483649LL },
    };
    check_fields (&h, "log page", w, N (w));
    check_round_trip (&h, "log page");

    //  Data units whose bytes overflow, and exactly the largest that do not;
    //  no temperature reading (0 K); the hottest the bounds take.
    put_le (page, 1, 0, 2);
    put_le (page, 32, (uint64_t) 1 << 54, 8);
    memset (page + 48, 0, 16);
    put_le (page, 48, INT64_MAX / 512000, 8);
    CHECK (health_from_nvme_log (page, sizeof page, &h, err, sizeof err) == 0);
    CHECK (!health_has (&h, HF_TEMPERATURE_C));
    CHECK (h.v[HF_HOST_BYTES_READ] == INT64_MAX);
    CHECK (h.v[HF_HOST_BYTES_WRITTEN] == INT64_MAX / 512000 * 512000);
    put_le (page, 1, 1273, 2);
    CHECK (health_from_nvme_log (page, sizeof page, &h, err, sizeof err) == 0
           && h.v[HF_TEMPERATURE_C] == 1000);
    put_le (page, 1, 1274, 2);
    CHECK (health_from_nvme_log (page, sizeof page, &h, err, sizeof err) == 0
           && !health_has (&h, HF_TEMPERATURE_C));

    //  A short page: refused, nothing in h.
    CHECK (health_from_nvme_log (page, 511, &h, err, sizeof err) == -1);
    says (err, "511 bytes, want 512");
    CHECK (h.have == 0);
    CHECK (health_from_nvme_log (NULL, 512, &h, err, sizeof err) == -1);
}

//  ---------------------------------------------------------------------
//  nvme-cli

static void
test_nvme_cli (void)
{
    health_t h;
    char err[256] = "";
    char *text = fixture ("nvme-cli-2.json");
    CHECK (text && health_from_nvme_cli (text, &h, err, sizeof err) == 0);
    free (text);
    CHECK (h.available && !strcmp (h.source, "nvme-cli") && !strcmp (h.protocol, "nvme"));
    const want_t w2[] = {
        { HF_CRITICAL_WARNING, 0 },
        { HF_TEMPERATURE_C, 45 },                       // 318 K
        { HF_AVAILABLE_SPARE_PCT, 100 },
        { HF_SPARE_THRESHOLD_PCT, 10 },
        { HF_PERCENTAGE_USED, 2 },
        { HF_HOST_BYTES_READ, 60791920640000 },         // 118734220 units
        { HF_HOST_BYTES_WRITTEN, 103141152256000 },     // 201447563 units
        { HF_HOST_READ_COMMANDS, 1893310342 },
        { HF_HOST_WRITE_COMMANDS, 3411207716 },
        { HF_POWER_ON_HOURS, 14872 },
        { HF_UNSAFE_SHUTDOWNS, 17 },
        { HF_MEDIA_ERRORS, 0 },
        { HF_ERROR_LOG_ENTRIES, 3 },
        { HF_WARNING_TEMP_MINUTES, 3 },
        { HF_CRITICAL_TEMP_MINUTES, 0 },
        { HF_THROTTLE1_TRANSITIONS, 12 },
        { HF_THROTTLE2_TRANSITIONS, 0 },
        { HF_THROTTLE1_SECONDS, 740 },
        { HF_THROTTLE2_SECONDS, 0 },
    };
    check_fields (&h, "nvme-cli-2", w2, N (w2));
    check_round_trip (&h, "nvme-cli-2");

    text = fixture ("nvme-cli-1.json");
    CHECK (text && health_from_nvme_cli (text, &h, err, sizeof err) == 0);
    free (text);
    const want_t w1[] = {
        { HF_CRITICAL_WARNING, 0 },
        { HF_TEMPERATURE_C, 33 },                       // 306 K
        { HF_AVAILABLE_SPARE_PCT, 99 },
        { HF_SPARE_THRESHOLD_PCT, 10 },
        { HF_PERCENTAGE_USED, 7 },
        { HF_HOST_BYTES_READ, 3762286080000 },          // 7348215 units
        { HF_HOST_BYTES_WRITTEN, 15420847104000 },      // 30118842 units
        { HF_HOST_READ_COMMANDS, 98116725 },
        { HF_HOST_WRITE_COMMANDS, 265530184 },
        { HF_POWER_ON_HOURS, 11402 },
        { HF_UNSAFE_SHUTDOWNS, 64 },
        { HF_MEDIA_ERRORS, 0 },
        { HF_ERROR_LOG_ENTRIES, 12 },
        { HF_WARNING_TEMP_MINUTES, 0 },
        { HF_CRITICAL_TEMP_MINUTES, 0 },
        { HF_THROTTLE1_TRANSITIONS, 0 },
        { HF_THROTTLE2_TRANSITIONS, 0 },
        { HF_THROTTLE1_SECONDS, 0 },
        { HF_THROTTLE2_SECONDS, 0 },
    };
    check_fields (&h, "nvme-cli-1", w1, N (w1));
    check_round_trip (&h, "nvme-cli-1");

    //  -v: critical_warning an object; 2.1's "%Lf" strings and an old
    //  json-c's "N" strings; reals; a 128-bit counter in 39 digits, and one
    //  of 23, both saturated, beside a counter past 2^53 read exactly; a
    //  negative, a 0 K and a 65,535 K temperature left out; digits in
    //  strings (escaped quotes too) left alone.
    const char *v = "{\n  \"critical_warning\":{\n    \"value\":2,\n    \"available_spare\":0,\n"
                    "    \"temp_threshold\":1\n  },\n  \"temperature\":0,\n"
                    "  \"data_units_read\":\"1000.000000\",\n"
                    "  \"data_units_written\":340282366920938463463374607431768211455,\n"
                    "  \"host_read_commands\":12345678901234567890123,\n"
                    "  \"host_write_commands\":9007199254740993,\n"
                    "  \"power_on_hours\":-5,\n  \"media_errors\":1.5e3,\n"
                    "  \"warning_temp_time\":\"5\",\n  \"unsafe_shutdowns\":\"12x\",\n"
                    "  \"note\":\"a\\\"12345678901234567890123\\\"\"\n}\n";
    CHECK (health_from_nvme_cli (v, &h, err, sizeof err) == 0);
    const want_t wv[] = {
        { HF_CRITICAL_WARNING, 2 },
        { HF_HOST_BYTES_READ, 512000000 },
        { HF_HOST_BYTES_WRITTEN, INT64_MAX },
        { HF_HOST_READ_COMMANDS, INT64_MAX },
        { HF_HOST_WRITE_COMMANDS, 9007199254740993LL },
        { HF_MEDIA_ERRORS, 1500 },
        { HF_WARNING_TEMP_MINUTES, 5 },
    };
    check_fields (&h, "nvme-cli variants", wv, N (wv));
    check_round_trip (&h, "nvme-cli variants");
    CHECK (health_from_nvme_cli ("{\"temperature\":65535}", &h, err, sizeof err) == 0
           && !health_has (&h, HF_TEMPERATURE_C));

    //  Not nvme-cli's.
    CHECK (health_from_nvme_cli ("garbage{", &h, err, sizeof err) == -1);
    says (err, "not JSON");
    CHECK (health_from_nvme_cli ("[318]", &h, err, sizeof err) == -1);
    says (err, "not a JSON object");
    CHECK (health_from_nvme_cli ("{\"fio version\":\"fio-3.33\"}", &h, err, sizeof err) == -1);
    says (err, "no field of an NVMe SMART / health log");
    CHECK (h.have == 0);
    CHECK (health_from_nvme_cli (NULL, &h, err, sizeof err) == -1);
}

//  ---------------------------------------------------------------------
//  smartctl

static void
test_smartctl_fixtures (void)
{
    health_t h;
    char err[256] = "";
    char *text = fixture ("smartctl-nvme.json");
    CHECK (text && health_from_smartctl (text, &h, err, sizeof err) == 0);
    free (text);
    CHECK (h.available && !strcmp (h.source, "smartctl") && !strcmp (h.protocol, "nvme"));
    const want_t wn[] = {
        { HF_TEMPERATURE_C, 41 },
        { HF_WARNING_TEMP_C, 80 },
        { HF_CRITICAL_TEMP_C, 83 },
        { HF_CRITICAL_WARNING, 0 },
        { HF_AVAILABLE_SPARE_PCT, 100 },
        { HF_SPARE_THRESHOLD_PCT, 10 },
        { HF_PERCENTAGE_USED, 4 },
        { HF_HOST_BYTES_READ, 200713460224000 },        // 392018477 units
        { HF_HOST_BYTES_WRITTEN, 312602786816000 },     // 610552318 units
        { HF_HOST_READ_COMMANDS, 4871220015 },
        { HF_HOST_WRITE_COMMANDS, 8120338562 },
        { HF_POWER_ON_HOURS, 21944 },
        { HF_UNSAFE_SHUTDOWNS, 9 },
        { HF_MEDIA_ERRORS, 0 },
        { HF_ERROR_LOG_ENTRIES, 0 },
        { HF_WARNING_TEMP_MINUTES, 0 },
        { HF_CRITICAL_TEMP_MINUTES, 0 },
    };
    check_fields (&h, "smartctl-nvme", wn, N (wn));
    check_round_trip (&h, "smartctl-nvme");

    text = fixture ("smartctl-sata.json");
    CHECK (text && health_from_smartctl (text, &h, err, sizeof err) == 0);
    free (text);
    CHECK (h.available && !strcmp (h.protocol, "ata"));
    const want_t wa[] = {
        { HF_TEMPERATURE_C, 36 },
        { HF_POWER_ON_HOURS, 18247 },
        { HF_REALLOCATED_SECTORS, 2 },
        { HF_PENDING_SECTORS, 1 },
        { HF_UNCORRECTABLE_SECTORS, 0 },
        { HF_HOST_BYTES_WRITTEN, 50335973386752 },      // 98312448021 LBAs x 512
        { HF_HOST_BYTES_READ, 26564338131968 },         // 51883472914 LBAs x 512
        { HF_NAND_BYTES_WRITTEN, 66082366816256 },      // 61544 GiB
        { HF_ERROR_LOG_ENTRIES, 0 },
    };
    check_fields (&h, "smartctl-sata", wa, N (wa));
    check_round_trip (&h, "smartctl-sata");

    text = fixture ("smartctl-sas.json");
    CHECK (text && health_from_smartctl (text, &h, err, sizeof err) == 0);
    free (text);
    CHECK (h.available && !strcmp (h.protocol, "scsi"));
    const want_t ws[] = {
        { HF_TEMPERATURE_C, 34 },
        { HF_CRITICAL_TEMP_C, 68 },
        { HF_POWER_ON_HOURS, 39116 },
        { HF_GROWN_DEFECTS, 7 },
        { HF_UNCORRECTABLE_SECTORS, 3 },                // read 1 + write 0 + verify 2
    };
    check_fields (&h, "smartctl-sas", ws, N (ws));
    check_round_trip (&h, "smartctl-sas");

    //  Not read: unavailable, smartctl's message as the reason, no field.
    text = fixture ("smartctl-no-device.json");
    CHECK (text && health_from_smartctl (text, &h, err, sizeof err) == 0);
    free (text);
    CHECK (!h.available && h.have == 0);
    CHECK (strcmp (h.reason, "/dev/loop0: Unable to detect device type") == 0);
    CHECK (!strcmp (h.source, "smartctl") && !strcmp (h.protocol, ""));
    check_fields (&h, "smartctl-no-device", NULL, 0);
    check_round_trip (&h, "smartctl-no-device");
    json_t *j = health_to_json (&h);
    char *s = json_dumps (j, JSON_COMPACT | JSON_SORT_KEYS);
    CHECK_MSG (s && !strcmp (s, "{\"available\":false,\"reason\":\"/dev/loop0: Unable to detect "
                             "device type\",\"source\":\"smartctl\"}"), "%s", s ? s : "(null)");
    free (s);
    json_decref (j);

    /*  A real capture: smartctl 7.3 (Debian 12) on QEMU's scsi-hd, in the
        VM of tests/vm/test_format.sh.  It answers INQUIRY and nothing of
        health, and smartctl writes a temperature and a trip point of 0
        for the log page it lacks: unavailable, no field, not 0 C. */
    text = fixture ("smartctl-qemu-scsi.json");
    CHECK (text && health_from_smartctl (text, &h, err, sizeof err) == 0);
    free (text);
    CHECK_MSG (!h.available && h.have == 0, "available %d have %llx", h.available,
               (unsigned long long) h.have);
    CHECK_MSG (strstr (h.reason, "no health data (exit status 4)") != NULL, "%s", h.reason);
    CHECK (!strcmp (h.protocol, "scsi"));

    /*  A real capture: nvme-cli 2.3 on QEMU's NVMe drive (counters as
        strings, temperature in Kelvin). */
    text = fixture ("nvme-cli-2.3-qemu.json");
    CHECK (text && health_from_nvme_cli (text, &h, err, sizeof err) == 0);
    free (text);
    CHECK (h.available && !strcmp (h.source, "nvme-cli"));
    CHECK (health_has (&h, HF_TEMPERATURE_C) && h.v[HF_TEMPERATURE_C] == 50);   /* 323 K */
    CHECK (health_has (&h, HF_HOST_BYTES_READ) && h.v[HF_HOST_BYTES_READ] == 134 * 512000LL);
    CHECK (health_has (&h, HF_HOST_READ_COMMANDS) && h.v[HF_HOST_READ_COMMANDS] == 242);
    CHECK (health_has (&h, HF_MEDIA_ERRORS) && h.v[HF_MEDIA_ERRORS] == 0);
    CHECK (health_has (&h, HF_THROTTLE1_TRANSITIONS) && h.v[HF_THROTTLE1_TRANSITIONS] == 0);
    check_round_trip (&h, "nvme-cli-2.3-qemu");
}

//  One smartctl document, checked against w (and available).
static void
smartctl_case (const char *what, const char *text, const char *protocol, const want_t *w, int n)
{
    health_t h;
    char err[256] = "";
    int rc = health_from_smartctl (text, &h, err, sizeof err);
    CHECK_MSG (rc == 0 && h.available && !strcmp (h.protocol, protocol), "%s: rc %d, %s, '%s'",
               what, rc, err, h.reason);
    check_fields (&h, what, w, n);
    check_round_trip (&h, what);
}

static void
test_smartctl_forms (void)
{
    //  7.3 without a temperature log page: scsi_temperature, and the
    //  endurance indicator under the key 7.3 did not convert.
    const want_t w73[] = {
        { HF_TEMPERATURE_C, 30 }, { HF_CRITICAL_TEMP_C, 65 }, { HF_PERCENTAGE_USED, 3 },
    };
    smartctl_case ("scsi 7.3", "{\"smartctl\":{\"exit_status\":0},\"device\":{\"protocol\":"
                   "\"SCSI\"},\"temperature\":{\"current\":30},\"scsi_temperature\":"
                   "{\"drive_trip\":65},\"scsi_Percentage used endurance indicator\":3}",
                   "scsi", w73, N (w73));
    const want_t w74[] = { { HF_PERCENTAGE_USED, 6 } };
    smartctl_case ("scsi 7.4", "{\"smartctl\":{},\"device\":{\"protocol\":\"SCSI\"},"
                   "\"scsi_percentage_used_endurance_indicator\":6}", "scsi", w74, N (w74));
    const want_t w75[] = { { HF_PERCENTAGE_USED, 9 } };
    smartctl_case ("scsi 7.5", "{\"smartctl\":{},\"device\":{\"protocol\":\"SCSI\"},"
                   "\"endurance_used\":{\"current_percent\":9}}", "scsi", w75, N (w75));

    //  ATA: endurance_used is not read (7.5 derives it from vendor
    //  attributes); an attribute counts by its id and name, its count what
    //  raw.string shows (raw16(raw16): "3 (0 4)"), else raw.value; 4 KiB
    //  blocks; GiB and 32 MiB units; the extended error log's count first;
    //  194 when there is no temperature; 192 Power-Off_Retract_Count and
    //  198 Host_Reads_GiB are not what their ids mean elsewhere.
    const want_t wata[] = {
        { HF_TEMPERATURE_C, 38 },
        { HF_REALLOCATED_SECTORS, 3 },
        { HF_PENDING_SECTORS, 17179869187LL },
        { HF_HOST_BYTES_WRITTEN, 1000LL * 4096 },
        { HF_HOST_BYTES_READ, 5LL << 30 },
        { HF_ERROR_LOG_ENTRIES, 17 },
    };
    smartctl_case ("ata forms",
        "{\"smartctl\":{\"exit_status\":64},\"device\":{\"protocol\":\"ATA\"},"
        "\"logical_block_size\":4096,\"endurance_used\":{\"current_percent\":9},"
        "\"ata_smart_attributes\":{\"revision\":16,\"table\":["
        "{\"id\":5,\"name\":\"Reallocated_Sector_Ct\",\"raw\":{\"value\":17179869187,"
        "\"string\":\"3 (0 4)\"}},"
        "{\"id\":197,\"name\":\"Current_Pending_Sector\",\"raw\":{\"value\":17179869187}},"
        "{\"id\":192,\"name\":\"Power-Off_Retract_Count\",\"raw\":{\"value\":40,"
        "\"string\":\"40\"}},"
        "{\"id\":198,\"name\":\"Host_Reads_GiB\",\"raw\":{\"value\":7,\"string\":\"7\"}},"
        "{\"id\":241,\"name\":\"Total_LBAs_Written\",\"raw\":{\"value\":1000,\"string\":\"1000\"}},"
        "{\"id\":242,\"name\":\"Host_Reads_GiB\",\"raw\":{\"value\":5,\"string\":\"5\"}},"
        "{\"id\":9,\"name\":\"Power_On_Hours_and_Msec\",\"raw\":{\"value\":1,"
        "\"string\":\"12h+06m+33.210s\"}},"
        "{\"id\":194,\"name\":\"Temperature_Celsius\",\"raw\":{\"value\":219047264294,"
        "\"string\":\"38 (Min/Max 20/51)\"}}]},"
        "\"ata_smart_error_log\":{\"extended\":{\"revision\":1,\"sectors\":64,\"count\":17},"
        "\"summary\":{\"revision\":1,\"count\":5}}}", "ata", wata, N (wata));
    //  No logical_block_size: 512.
    const want_t wunsafe[] = {
        { HF_UNSAFE_SHUTDOWNS, 88 }, { HF_HOST_BYTES_WRITTEN, 10LL << 25 },
        { HF_NAND_BYTES_WRITTEN, 2LL << 30 }, { HF_HOST_BYTES_READ, 3 * 512 },
    };
    smartctl_case ("ata unsafe",
        "{\"smartctl\":{},\"device\":{\"protocol\":\"ATA\"},\"ata_smart_attributes\":{\"table\":["
        "{\"id\":192,\"name\":\"Unsafe_Shutdown_Count\",\"raw\":{\"value\":88,\"string\":\"88\"}},"
        "{\"id\":241,\"name\":\"Host_Writes_32MiB\",\"raw\":{\"value\":10,\"string\":\"10\"}},"
        "{\"id\":249,\"name\":\"NAND_Writes_1GiB\",\"raw\":{\"value\":2,\"string\":\"2\"}},"
        "{\"id\":242,\"name\":\"Total_LBAs_Read\",\"raw\":{\"value\":3,\"string\":\"3\"}},"
        "{\"id\":249,\"name\":\"Spares_Remaining_Perc\",\"raw\":{\"value\":1,\"string\":\"1\"}}"
        "]}}", "ata", wunsafe, N (wunsafe));

    //  NVMe: trunk's thermal management keys; a 128-bit counter; the
    //  top-level temperature when the log has none.
    const want_t wtrunk[] = {
        { HF_TEMPERATURE_C, 39 }, { HF_HOST_BYTES_READ, INT64_MAX },
        { HF_THROTTLE1_TRANSITIONS, 4 }, { HF_THROTTLE1_SECONDS, 120 },
        { HF_THROTTLE2_TRANSITIONS, 1 }, { HF_THROTTLE2_SECONDS, 8 },
    };
    smartctl_case ("nvme trunk",
        "{\"smartctl\":{\"uint128_precision_bits\":128,\"exit_status\":0},"
        "\"device\":{\"protocol\":\"NVMe\"},\"temperature\":{\"current\":39},"
        "\"nvme_smart_health_information_log\":{\"nsid\":-1,"
        "\"data_units_read\":340282366920938463463374607431768211455,"
        "\"data_units_read_s\":\"340282366920938463463374607431768211455\","
        "\"thermal_mgmt_temperature_1_transition_count\":4,"
        "\"thermal_mgmt_temperature_1_total_time\":120,"
        "\"thermal_mgmt_temperature_2_transition_count\":1,"
        "\"thermal_mgmt_temperature_2_total_time\":8}}", "nvme", wtrunk, N (wtrunk));

    //  Not read, in other ways: the open failing; no message at all; a
    //  long message cut on a character's boundary.
    health_t h;
    char err[256] = "";
    CHECK (health_from_smartctl ("{\"smartctl\":{\"messages\":[{\"string\":\"Smartctl open device: "
                                 "/dev/sdz failed: No such device\",\"severity\":\"error\"}],"
                                 "\"exit_status\":2}}", &h, err, sizeof err) == 0);
    CHECK (!h.available && !strcmp (h.reason, "Smartctl open device: /dev/sdz failed: No such "
                                    "device"));
    CHECK (health_from_smartctl ("{\"smartctl\":{\"exit_status\":4},\"device\":{\"protocol\":"
                                 "\"SCSI\"}}", &h, err, sizeof err) == 0);
    CHECK (!h.available && !strcmp (h.reason, "smartctl read no health data (exit status 4)")
           && !strcmp (h.protocol, "scsi"));
    check_round_trip (&h, "no data");
    char big[1024] = "{\"smartctl\":{\"messages\":[{\"string\":\"";
    for (int i = 0; i < 150; i++)
        strcat (big, "\xc3\xa9");               // 300 bytes of U+00E9
    strcat (big, "\"}],\"exit_status\":1}}");
    CHECK (health_from_smartctl (big, &h, err, sizeof err) == 0);
    CHECK (!h.available && strlen (h.reason) == HEALTH_REASON_MAX
           && utf8_invalid_at (h.reason, strlen (h.reason)) < 0);
    check_round_trip (&h, "long reason");
    //  One byte more before them: the 100th would end past 200 bytes.
    char big2[1024] = "{\"smartctl\":{\"messages\":[{\"string\":\"x";
    strcat (big2, big + strlen (big2) - 1);
    CHECK (health_from_smartctl (big2, &h, err, sizeof err) == 0);
    CHECK (!h.available && strlen (h.reason) == HEALTH_REASON_MAX - 1 && h.reason[0] == 'x'
           && utf8_invalid_at (h.reason, strlen (h.reason)) < 0);

    //  Not smartctl's.
    CHECK (health_from_smartctl ("{\"critical_warning\":0,\"temperature\":318}", &h, err,
                                 sizeof err) == -1);
    says (err, "no \"smartctl\" object");
    CHECK (health_from_smartctl ("<html>", &h, err, sizeof err) == -1);
    says (err, "not JSON");
    CHECK (health_from_smartctl ("\"smartctl\"", &h, err, sizeof err) == -1);
}

//  ---------------------------------------------------------------------
//  The record's JSON

//  health_from_json on text: rc, and err containing want when it fails.
static void
from_json_case (const char *text, int want_rc, const char *want_err)
{
    json_t *j = json_loads (text, JSON_DECODE_ANY, NULL);
    health_t h;
    char err[256] = "";
    int rc = health_from_json (j, &h, err, sizeof err);
    CHECK_MSG (rc == want_rc, "%s: rc %d (%s)", text, rc, err);
    if (want_rc)
        CHECK_MSG (strstr (err, want_err) && !h.available && h.have == 0,
                   "%s: '%s' does not say '%s'", text, err, want_err);
    json_decref (j);
}

static void
test_json (void)
{
    //  The layout of health.h.
    health_t h;
    health_unavailable (&h, "loop device: %s", "no SMART");
    json_t *j = health_to_json (&h);
    char *s = json_dumps (j, JSON_COMPACT | JSON_SORT_KEYS);
    CHECK_MSG (s && !strcmp (s, "{\"available\":false,\"reason\":\"loop device: no SMART\"}"), "%s",
               s ? s : "(null)");
    free (s);
    json_decref (j);
    health_init (&h, "nvme-ioctl", "nvme");
    health_set (&h, HF_TEMPERATURE_C, 41);
    health_set (&h, HF_MEDIA_ERRORS, 0);
    j = health_to_json (&h);
    s = json_dumps (j, JSON_COMPACT);
    CHECK_MSG (s && !strcmp (s, "{\"available\":true,\"source\":\"nvme-ioctl\",\"protocol\":"
                             "\"nvme\",\"temperature_c\":41,\"media_errors\":0}"), "%s",
               s ? s : "(null)");
    free (s);
    json_decref (j);

    //  Every field at its bounds, and an invalid byte in a reason.
    health_init (&h, "simulated", "ata");
    for (int f = 0; f < HF_N; f++)
        health_set (&h, (health_field_t) f, f <= HF_CRITICAL_TEMP_C ? -273 : INT64_MAX);
    health_set (&h, HF_CRITICAL_WARNING, 255);
    health_set (&h, HF_PERCENTAGE_USED, 0);
    CHECK (h.have == ((uint64_t) 1 << HF_N) - 1 - ((uint64_t) 0x6 << HF_CRITICAL_WARNING));
    check_round_trip (&h, "bounds");
    health_unavailable (&h, "bad byte \xff here");
    CHECK (strcmp (h.reason, "bad byte ? here") == 0);
    check_round_trip (&h, "bad byte");
    char longer[400];
    memset (longer, 'r', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    health_unavailable (&h, "%s", longer);
    CHECK (strlen (h.reason) == HEALTH_REASON_MAX);

    //  Accepted.
    from_json_case ("{\"available\":true}", 0, NULL);
    from_json_case ("{\"available\":false,\"reason\":\"\"}", 0, NULL);
    from_json_case ("{\"available\":true,\"source\":\"smartctl\",\"protocol\":\"scsi\","
                    "\"temperature_c\":-273,\"grown_defects\":0}", 0, NULL);
    from_json_case ("{\"available\":false,\"reason\":\"no tool\",\"source\":\"smartctl\"}", 0,
                    NULL);

    //  Refused.
    from_json_case ("{\"available\":true,\"temperature_c\":5000}", -1,
                    "health.temperature_c: 5000 is out of range -273..1000");
    from_json_case ("{\"available\":true,\"warning_temp_c\":-274}", -1,
                    "health.warning_temp_c: -274 is out of range -273..1000");
    from_json_case ("{\"available\":true,\"percentage_used\":256}", -1,
                    "health.percentage_used: 256 is out of range 0..255");
    from_json_case ("{\"available\":true,\"media_errors\":-1}", -1,
                    "health.media_errors: -1 is out of range 0..9223372036854775807");
    from_json_case ("{\"available\":true,\"bogus\":1}", -1, "health.bogus: unknown field");
    from_json_case ("{\"available\":true,\"temperature\":318}", -1,
                    "health.temperature: unknown field");
    from_json_case ("{\"available\":true,\"media_errors\":1.5}", -1,
                    "health.media_errors: not an integer");
    from_json_case ("{\"available\":true,\"media_errors\":\"3\"}", -1,
                    "health.media_errors: not an integer");
    from_json_case ("{\"available\":true,\"media_errors\":null}", -1,
                    "health.media_errors: not an integer");
    from_json_case ("{\"temperature_c\":40}", -1, "health.available: missing");
    from_json_case ("{\"available\":1}", -1, "health.available: not a boolean");
    from_json_case ("{\"available\":false}", -1, "health.reason: missing");
    from_json_case ("{\"available\":false,\"reason\":5}", -1, "health.reason: not a string");
    from_json_case ("{\"available\":false,\"reason\":\"x\",\"temperature_c\":40}", -1,
                    "health.temperature_c: an unavailable record has no fields");
    from_json_case ("{\"available\":true,\"reason\":\"x\"}", -1,
                    "health.reason: only an unavailable record has one");
    from_json_case ("{\"available\":true,\"source\":\"\"}", -1, "health.source: empty");
    from_json_case ("{\"available\":true,\"source\":7}", -1, "health.source: not a string");
    from_json_case ("{\"available\":true,\"protocol\":\"sata\"}", -1,
                    "health.protocol: 'sata' (want nvme, ata or scsi)");
    from_json_case ("{\"available\":true,\"protocol\":\"nvme-of-tcp\"}", -1,
                    "health.protocol: 11 bytes");
    from_json_case ("[]", -1, "health: not an object");
    from_json_case ("\"garbage\"", -1, "health: not an object");
    from_json_case ("42", -1, "health: not an object");
    health_t hh;
    char err[256] = "";
    CHECK (health_from_json (NULL, &hh, err, sizeof err) == -1);
    CHECK (json_loads ("{\"available\": tru", 0, NULL) == NULL);

    //  Lengths: a reason of 200 bytes and a source of 32 pass, one more does not.
    char text[1024];
    char r[HEALTH_REASON_MAX + 2];
    memset (r, 'r', sizeof r - 1);
    r[HEALTH_REASON_MAX] = '\0';
    snprintf (text, sizeof text, "{\"available\":false,\"reason\":\"%s\"}", r);
    from_json_case (text, 0, NULL);
    r[HEALTH_REASON_MAX] = 'r';
    r[HEALTH_REASON_MAX + 1] = '\0';
    snprintf (text, sizeof text, "{\"available\":false,\"reason\":\"%s\"}", r);
    from_json_case (text, -1, "health.reason: 201 bytes, want at most 200");
    char src[HEALTH_SOURCE_MAX + 2];
    memset (src, 's', sizeof src - 1);
    src[HEALTH_SOURCE_MAX] = '\0';
    snprintf (text, sizeof text, "{\"available\":true,\"source\":\"%s\"}", src);
    from_json_case (text, 0, NULL);
    src[HEALTH_SOURCE_MAX] = 's';
    src[HEALTH_SOURCE_MAX + 1] = '\0';
    snprintf (text, sizeof text, "{\"available\":true,\"source\":\"%s\"}", src);
    from_json_case (text, -1, "health.source: 33 bytes, want at most 32");
}

int
main (int argc, char **argv)
{
    s_dir = argc > 1 ? argv[1] : s_dir;
    test_names ();
    test_log_page ();
    test_nvme_cli ();
    test_smartctl_fixtures ();
    test_smartctl_forms ();
    test_json ();
    return TEST_DONE ();
}
