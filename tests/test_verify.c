/*  test_verify.c: the header and checksum a write carries and the check of
    a read back (agent/verify.c): every kind of damage is found and named. */
#include "testutil.h"
#include "verify.h"

#include <stdint.h>
#include <string.h>

static unsigned long long rng_state = 0x5eed;

static void
random_fill (uint8_t *buf, size_t len)
{
    for (size_t i = 0; i + 8 <= len; i += 8) {
        unsigned long long v = test_splitmix64 (&rng_state);
        memcpy (buf + i, &v, 8);
    }
}

/* A fresh stamp checks, and its checksum sits where the header says. */
static void
test_known_answers (void)
{
    uint8_t buf[4096];
    random_fill (buf, sizeof buf);
    verify_stamp (VERIFY_CRC32C, buf, sizeof buf, 8192, 7, 3);
    CHECK (memcmp (buf, "IOFV", 4) == 0);
    uint8_t want[16];
    memcpy (want, buf + 32, 16);
    CHECK (want[4] == 0 && want[15] == 0);        /* crc32c: 4 bytes, the rest zero */
    char msg[256];
    CHECK_MSG (verify_check (VERIFY_CRC32C, buf, sizeof buf, 8192, msg, sizeof msg) == 0, "%s", msg);
    verify_stamp (VERIFY_MD5, buf, sizeof buf, 8192, 8, 3);
    CHECK_MSG (verify_check (VERIFY_MD5, buf, sizeof buf, 8192, msg, sizeof msg) == 0, "%s", msg);
    CHECK (strcmp (verify_name (VERIFY_CRC32C), "crc32c") == 0);
    CHECK (strcmp (verify_name (VERIFY_MD5), "md5") == 0);
}

/* Each damage, for both kinds: one flipped bit anywhere in the data, a
   header of another offset or length, no header, another kind. */
static void
test_damage (verify_kind_t kind)
{
    uint8_t buf[8192];
    char msgbuf[512], *msg = msgbuf;
    int missed = 0;
    for (int trial = 0; trial < 200; trial++) {
        random_fill (buf, sizeof buf);
        verify_stamp (kind, buf, sizeof buf, 1 << 20, (uint64_t) trial, 0);
        size_t at = VERIFY_HDR_SIZE + (size_t) (test_splitmix64 (&rng_state) % (sizeof buf - VERIFY_HDR_SIZE));
        buf[at] ^= (uint8_t) (1u << (trial % 8));
        if (verify_check (kind, buf, sizeof buf, 1 << 20, msg, sizeof msgbuf) == 0)
            missed++;
    }
    CHECK_MSG (missed == 0, "%s: %d of 200 one-bit flips not found", verify_name (kind), missed);
    CHECK_STR_CONTAINS (msg, "in the header (write 199 of worker 0)");
    CHECK_STR_CONTAINS (msg, "over the data read");

    random_fill (buf, sizeof buf);
    verify_stamp (kind, buf, 4096, 4096, 1, 0);
    CHECK (verify_check (kind, buf, 4096, 8192, msg, sizeof msgbuf) == -1);
    CHECK_STR_CONTAINS (msg, "a write of 4096 bytes at offset 4096: the data belongs elsewhere");
    verify_stamp (kind, buf, 4096, 4096, 1, 0);
    CHECK (verify_check (kind, buf, 8192, 4096, msg, sizeof msgbuf) == -1);
    CHECK_STR_CONTAINS (msg, "belongs elsewhere");

    memset (buf, 0, sizeof buf);
    CHECK (verify_check (kind, buf, 4096, 0, msg, sizeof msgbuf) == -1);
    CHECK_STR_CONTAINS (msg, "no verify header: 0x00000000 at its start");

    verify_kind_t other = kind == VERIFY_MD5 ? VERIFY_CRC32C : VERIFY_MD5;
    verify_stamp (other, buf, 4096, 0, 1, 0);
    CHECK (verify_check (kind, buf, 4096, 0, msg, sizeof msgbuf) == -1);
    CHECK_STR_CONTAINS (msg, "where ");
    CHECK_STR_CONTAINS (msg, verify_name (kind));

    /* The header itself is covered: a changed write count is found. */
    verify_stamp (kind, buf, 4096, 0, 1, 0);
    buf[24] ^= 1;
    CHECK (verify_check (kind, buf, 4096, 0, msg, sizeof msgbuf) == -1);
}

int
main (void)
{
    test_known_answers ();
    test_damage (VERIFY_CRC32C);
    test_damage (VERIFY_MD5);
    return TEST_DONE ();
}
