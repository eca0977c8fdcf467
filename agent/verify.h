/*  verify.h: what a write carries so that a later read can prove the data
    came back as written (fio's verify=crc32c / verify=md5).

    A write of len bytes at offset starts with a 48-byte header, the rest
    of the buffer being the job's data (random, stamped, or as the buffer
    options say):

        0  magic "IOFV"        16  offset (u64)
        4  kind (u16)          24  seq: the worker's write count (u64)
        6  header size (u16)   32  checksum: crc32c in bytes 32..35, or md5
        8  len (u32)               in 32..47, over all len bytes with
       12  worker (u32)            bytes 32..47 taken as zero

    little-endian.  A read of the same range checks magic, kind, len and
    offset (a block that holds another offset's data was misdirected) and
    then the checksum.  The format is iofleet's own: fio's verify header
    differs, so data written by one tool is not verified by the other
    (docs/conformance.md).  crc32c is ISA-L's (hardware where the CPU has
    it), md5 nettle's.
*/
#ifndef IOF_VERIFY_H
#define IOF_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "jobfile.h"

#define VERIFY_HDR_SIZE JOB_VERIFY_HEADER   /* the parser refuses smaller writes */

typedef enum {
    VERIFY_NONE = 0,
    VERIFY_CRC32C = 1,
    VERIFY_MD5 = 2,
} verify_kind_t;

/* "crc32c", "md5" or "none".  Can't fail. */
const char *verify_name (verify_kind_t kind);

/* Writes the header of a write of len (>= VERIFY_HDR_SIZE) bytes at offset
   into buf, over whatever data buf holds, with its checksum.  Can't fail. */
void verify_stamp (verify_kind_t kind, uint8_t *buf, uint32_t len, uint64_t offset,
                   uint64_t seq, uint32_t worker);

/* Checks buf, as read from len bytes at offset, against its header; buf's
   checksum field is left zeroed.  Returns 0 when it holds what a write of
   that range stamped, or -1 with msg saying what differs, expected and
   found ("crc32c 0x1c2d3e4f in the header, 0x5a6b7c8d over the data").
   Can't fail otherwise. */
int verify_check (verify_kind_t kind, uint8_t *buf, uint32_t len, uint64_t offset,
                  char *msg, size_t msglen);

#endif
