/*  test_units.c: unit tests for sizes, times and CPU lists as fio's job
    files write them (common/units.c); moved here from test_jobfile.c with
    the code.
*/
#include "units.h"
#include "testutil.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#define NS_PER_S 1000000000ull

typedef struct {
    const char *text;
    int rc;
    uint64_t value;
} parse_case_t;

static void
test_parse_size (void)
{
    static const parse_case_t cases[] = {
        { "0", 0, 0 },                  { "512", 0, 512 },
        { "4096b", 0, 4096 },           { "4096B", 0, 4096 },
        { "4k", 0, 4096 },              { "4K", 0, 4096 },
        { "4kb", 0, 4096 },             { "4kB", 0, 4096 },
        { "4KB", 0, 4096 },             { "4ki", 0, 4096 },
        { "4KiB", 0, 4096 },            { "4kib", 0, 4096 },
        { "128k", 0, 131072 },          { "1m", 0, 1048576 },
        { "1M", 0, 1048576 },           { "1MiB", 0, 1048576 },
        { "1g", 0, 1ull << 30 },        { "10G", 0, 10ull << 30 },
        { "1t", 0, 1ull << 40 },        { "2T", 0, 2ull << 40 },
        { "1p", 0, 1ull << 50 },        { "1PiB", 0, 1ull << 50 },
        { "0x10", 0, 16 },              { "0X1f", 0, 31 },
        { "0x10k", 0, 16384 },          { "0x1b", 0, 27 },
        { "007", 0, 7 },
        { "18446744073709551615", 0, UINT64_MAX },
        { "16383p", 0, 16383ull << 50 },
        { "", -EINVAL, 0 },             { "k", -EINVAL, 0 },
        { "b", -EINVAL, 0 },            { "-1", -EINVAL, 0 },
        { "+1", -EINVAL, 0 },           { " 4k", -EINVAL, 0 },
        { "4k ", -EINVAL, 0 },          { "4 k", -EINVAL, 0 },
        { "4q", -EINVAL, 0 },           { "4kk", -EINVAL, 0 },
        { "4kbb", -EINVAL, 0 },         { "4ib", -EINVAL, 0 },
        { "4i", -EINVAL, 0 },           { "1.5k", -EINVAL, 0 },
        { "0x", -EINVAL, 0 },           { "0xg", -EINVAL, 0 },
        { "4e", -EINVAL, 0 },           { "1e3", -EINVAL, 0 },
        { "50%", -EINVAL, 0 },          { "4k,8k", -EINVAL, 0 },
        { "18446744073709551616", -ERANGE, 0 },
        { "16384p", -ERANGE, 0 },       { "17179869184g", -ERANGE, 0 },
        { "0x10000000000000000", -ERANGE, 0 },
        { "99999999999999999999999k", -ERANGE, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t v = 12345;
        int rc = job_parse_size (cases[i].text, &v);
        CHECK_MSG (rc == cases[i].rc, "size '%s': rc %d, want %d", cases[i].text, rc, cases[i].rc);
        if (cases[i].rc == 0)
            CHECK_MSG (v == cases[i].value, "size '%s' = %llu, want %llu", cases[i].text,
                       (unsigned long long) v, (unsigned long long) cases[i].value);
        else
            CHECK_MSG (v == 12345, "size '%s' wrote its output on error", cases[i].text);
    }
    uint64_t v;
    CHECK (job_parse_size (NULL, &v) == -EINVAL);
    CHECK (job_parse_size ("4k", NULL) == -EINVAL);
}

static void
test_parse_time (void)
{
    static const parse_case_t cases[] = {
        { "0", 0, 0 },                  { "60", 0, 60 * NS_PER_S },
        { "60s", 0, 60 * NS_PER_S },    { "60S", 0, 60 * NS_PER_S },
        { "60sec", 0, 60 * NS_PER_S },  { "500ms", 0, 500000000ull },
        { "500MS", 0, 500000000ull },   { "500msec", 0, 500000000ull },
        { "10us", 0, 10000 },           { "10usec", 0, 10000 },
        { "2m", 0, 120 * NS_PER_S },    { "2M", 0, 120 * NS_PER_S },
        { "2min", 0, 120 * NS_PER_S },  { "1h", 0, 3600 * NS_PER_S },
        { "1H", 0, 3600 * NS_PER_S },   { "1d", 0, 86400 * NS_PER_S },
        { "7D", 0, 7 * 86400 * NS_PER_S },
        { "213503d", 0, 213503ull * 86400 * NS_PER_S },
        { "18446744073709551us", 0, 18446744073709551000ull },
        { "", -EINVAL, 0 },             { "s", -EINVAL, 0 },
        { "ms", -EINVAL, 0 },           { "-1", -EINVAL, 0 },
        { "+1", -EINVAL, 0 },           { "1.5s", -EINVAL, 0 },
        { "1x", -EINVAL, 0 },           { "1 s", -EINVAL, 0 },
        { "1s ", -EINVAL, 0 },          { "1hr", -EINVAL, 0 },
        { "1ns", -EINVAL, 0 },          { "1h30m", -EINVAL, 0 },
        { "1seconds", -EINVAL, 0 },     { "0x10", -EINVAL, 0 },
        { "213504d", -ERANGE, 0 },      { "18446744073709552us", -ERANGE, 0 },
        { "18446744073709551616us", -ERANGE, 0 },
        { "99999999999999999999", -ERANGE, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t v = 12345;
        int rc = job_parse_time (cases[i].text, &v);
        CHECK_MSG (rc == cases[i].rc, "time '%s': rc %d, want %d", cases[i].text, rc, cases[i].rc);
        if (cases[i].rc == 0)
            CHECK_MSG (v == cases[i].value, "time '%s' = %llu, want %llu", cases[i].text,
                       (unsigned long long) v, (unsigned long long) cases[i].value);
        else
            CHECK_MSG (v == 12345, "time '%s' wrote its output on error", cases[i].text);
    }
    uint64_t v;
    CHECK (job_parse_time (NULL, &v) == -EINVAL);
    CHECK (job_parse_time ("1s", NULL) == -EINVAL);
}

static void
test_parse_age (void)
{
    static const struct {
        const char *text;
        int rc;
        int64_t secs;
    } cases[] = {
        { "0", 0, 0 },              { "90", 0, 90 },            { "90s", 0, 90 },
        { "90m", 0, 5400 },         { "12h", 0, 43200 },        { "30d", 0, 2592000 },
        { "2w", 0, 1209600 },       { "1.5d", 0, 129600 },      { ".5h", 0, 1800 },
        { "100000000000", 0, 100000000000 },
        { "", -1, 0 },              { "d", -1, 0 },             { "-1d", -1, 0 },
        { "+1d", -1, 0 },           { " 1d", -1, 0 },           { "1 d", -1, 0 },
        { "1y", -1, 0 },            { "1dd", -1, 0 },           { "0x10", -1, 0 },
        { "1e3", -1, 0 },           { "inf", -1, 0 },           { "nan", -1, 0 },
        { "100000000001", -1, 0 },  { "165344w", -1, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v = 12345;
        int rc = units_parse_age (cases[i].text, &v);
        CHECK_MSG (rc == cases[i].rc, "age '%s': rc %d, want %d", cases[i].text, rc, cases[i].rc);
        CHECK_MSG (v == (cases[i].rc == 0 ? cases[i].secs : 12345), "age '%s' = %lld",
                   cases[i].text, (long long) v);
    }
    int64_t v;
    CHECK (units_parse_age (NULL, &v) == -1);
}

static void
test_parse_cpus (void)
{
    static const struct {
        const char *text;
        int rc;
        uint64_t w[JOB_CPUS_MAX / 64];      /* the mask, CPU 0 in bit 0 of w[0] */
    } cases[] = {
        { "0", 0, { 0x1, 0, 0, 0 } },
        { "0-3,8,10-11", 0, { 0xd0f, 0, 0, 0 } },
        { "0,5,8-15", 0, { 0xff21, 0, 0, 0 } },
        { "3-3", 0, { 0x8, 0, 0, 0 } },
        { "007", 0, { 0x80, 0, 0, 0 } },
        { "63,64", 0, { 1ull << 63, 1, 0, 0 } },
        { "100-131", 0, { 0, 0xfffffff000000000ull, 0xf, 0 } },
        { "255", 0, { 0, 0, 0, 1ull << 63 } },
        { "192-255", 0, { 0, 0, 0, UINT64_MAX } },
        { "0-255", 0, { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX } },
        { "8,0", 0, { 0x101, 0, 0, 0 } },
        { "1,1,1-2", 0, { 0x6, 0, 0, 0 } },
        { "", -EINVAL, { 0 } },         { ",", -EINVAL, { 0 } },
        { "0,", -EINVAL, { 0 } },       { ",0", -EINVAL, { 0 } },
        { "0,,1", -EINVAL, { 0 } },     { "a", -EINVAL, { 0 } },
        { "0-", -EINVAL, { 0 } },       { "-1", -EINVAL, { 0 } },
        { " 0", -EINVAL, { 0 } },       { "0 ", -EINVAL, { 0 } },
        { "0, 1", -EINVAL, { 0 } },     { "1-2-3", -EINVAL, { 0 } },
        { "0x1", -EINVAL, { 0 } },      { "3-1", -EINVAL, { 0 } },
        { "1:2", -EINVAL, { 0 } },      { "^1", -EINVAL, { 0 } },
        { "256", -ERANGE, { 0 } },      { "0-256", -ERANGE, { 0 } },
        { "300-2", -ERANGE, { 0 } },    { "99999999999999999999999", -ERANGE, { 0 } },
        { "1,2-99999999999999999999999", -ERANGE, { 0 } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t mask[JOB_CPUS_MAX / 64];
        memset (mask, 0xa5, sizeof mask);
        int rc = job_parse_cpus (cases[i].text, mask);
        CHECK_MSG (rc == cases[i].rc, "cpus '%s': rc %d, want %d", cases[i].text, rc, cases[i].rc);
        if (cases[i].rc == 0 && rc == 0)
            CHECK_MSG (memcmp (mask, cases[i].w, sizeof mask) == 0,
                       "cpus '%s' = %016llx %016llx %016llx %016llx", cases[i].text,
                       (unsigned long long) mask[0], (unsigned long long) mask[1],
                       (unsigned long long) mask[2], (unsigned long long) mask[3]);
        else
            CHECK_MSG (mask[0] == 0xa5a5a5a5a5a5a5a5ull && mask[3] == 0xa5a5a5a5a5a5a5a5ull,
                       "cpus '%s' wrote its output on error", cases[i].text);
    }
    uint64_t mask[JOB_CPUS_MAX / 64];
    CHECK (job_parse_cpus (NULL, mask) == -EINVAL);
    CHECK (job_parse_cpus ("0", NULL) == -EINVAL);
}

int
main (void)
{
    test_parse_size ();
    test_parse_time ();
    test_parse_age ();
    test_parse_cpus ();
    return TEST_DONE ();
}
