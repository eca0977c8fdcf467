/*  verify.c: see verify.h. */
#include "verify.h"

#include <endian.h>
#include <isa-l/crc.h>
#include <nettle/md5.h>
#include <stdio.h>
#include <string.h>

#define VERIFY_MAGIC 0x56464f49u        /* "IOFV" read little-endian */
#define SUM_AT       32
#define SUM_SIZE     16

const char *
verify_name (verify_kind_t kind)
{
    return kind == VERIFY_CRC32C ? "crc32c" : kind == VERIFY_MD5 ? "md5" : "none";
}

static void
put16 (uint8_t *p, uint16_t v) { v = htole16 (v); memcpy (p, &v, 2); }
static void
put32 (uint8_t *p, uint32_t v) { v = htole32 (v); memcpy (p, &v, 4); }
static void
put64 (uint8_t *p, uint64_t v) { v = htole64 (v); memcpy (p, &v, 8); }
static uint16_t
get16 (const uint8_t *p) { uint16_t v; memcpy (&v, p, 2); return le16toh (v); }
static uint32_t
get32 (const uint8_t *p) { uint32_t v; memcpy (&v, p, 4); return le32toh (v); }
static uint64_t
get64 (const uint8_t *p) { uint64_t v; memcpy (&v, p, 8); return le64toh (v); }

/* The checksum of buf's len bytes (whose sum field is zero) into sum.
   Can't fail. */
static void
checksum (verify_kind_t kind, const uint8_t *buf, uint32_t len, uint8_t sum[SUM_SIZE])
{
    memset (sum, 0, SUM_SIZE);
    if (kind == VERIFY_CRC32C)
        put32 (sum, ~crc32_iscsi ((unsigned char *) buf, (int) len, 0xffffffffu));
    else {
        struct md5_ctx c;
        md5_init (&c);
        md5_update (&c, len, buf);
        md5_digest (&c, MD5_DIGEST_SIZE, sum);
    }
}

void
verify_stamp (verify_kind_t kind, uint8_t *buf, uint32_t len, uint64_t offset, uint64_t seq,
              uint32_t worker)
{
    put32 (buf, VERIFY_MAGIC);
    put16 (buf + 4, (uint16_t) kind);
    put16 (buf + 6, VERIFY_HDR_SIZE);
    put32 (buf + 8, len);
    put32 (buf + 12, worker);
    put64 (buf + 16, offset);
    put64 (buf + 24, seq);
    memset (buf + SUM_AT, 0, SUM_SIZE);
    uint8_t sum[SUM_SIZE];
    checksum (kind, buf, len, sum);
    memcpy (buf + SUM_AT, sum, SUM_SIZE);
}

/* Renders a checksum for a message: crc32c as 0x%08x, md5 in hex. */
static void
sum_text (verify_kind_t kind, const uint8_t sum[SUM_SIZE], char *out, size_t outlen)
{
    if (kind == VERIFY_CRC32C) {
        snprintf (out, outlen, "0x%08x", get32 (sum));
        return;
    }
    size_t n = 0;
    for (int i = 0; i < SUM_SIZE && n + 2 < outlen; i++)
        n += (size_t) snprintf (out + n, outlen - n, "%02x", sum[i]);
}

int
verify_check (verify_kind_t kind, uint8_t *buf, uint32_t len, uint64_t offset,
              char *msg, size_t msglen)
{
    uint32_t magic = get32 (buf);
    if (magic != VERIFY_MAGIC) {
        snprintf (msg, msglen, "no verify header: 0x%08x at its start where 0x%08x is written "
                  "(never written by this job, or overwritten since)", magic, VERIFY_MAGIC);
        return -1;
    }
    if (get16 (buf + 4) != kind || get16 (buf + 6) != VERIFY_HDR_SIZE) {
        snprintf (msg, msglen, "header of verify kind %u (size %u), where %s (%u, size %d) "
                  "was written", get16 (buf + 4), get16 (buf + 6), verify_name (kind),
                  (unsigned) kind, VERIFY_HDR_SIZE);
        return -1;
    }
    if (get64 (buf + 16) != offset || get32 (buf + 8) != len) {
        snprintf (msg, msglen, "the header is of a write of %u bytes at offset %llu: the data "
                  "belongs elsewhere (a misdirected write or read)", get32 (buf + 8),
                  (unsigned long long) get64 (buf + 16));
        return -1;
    }
    uint8_t want[SUM_SIZE], got[SUM_SIZE];
    memcpy (want, buf + SUM_AT, SUM_SIZE);
    memset (buf + SUM_AT, 0, SUM_SIZE);
    checksum (kind, buf, len, got);
    if (memcmp (want, got, SUM_SIZE) != 0) {
        char a[40], b[40];
        sum_text (kind, want, a, sizeof a);
        sum_text (kind, got, b, sizeof b);
        snprintf (msg, msglen, "%s %s in the header (write %llu of worker %u), %s over the "
                  "data read", verify_name (kind), a, (unsigned long long) get64 (buf + 24),
                  get32 (buf + 12), b);
        return -1;
    }
    return 0;
}
