/*  spool_fx.h: what the spool tests share (test_spool.c,
    test_spool_recovery.c, test_spool_access.c, each a program of its
    own): paths in a fresh directory, self-describing payloads, a send
    callback that records what it got, the directory as it is on disk,
    the log captured around a call, and the main that runs the checks in
    a child and removes the directory whatever became of it.

    Helpers that CHECK count in the program's summary: the programs are
    built with TEST_SHARED_COUNTS and spool_fx.c holds the counts (see
    testutil.h).
*/
#ifndef IOF_SPOOL_FX_H
#define IOF_SPOOL_FX_H

#include "spool.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HDR         28u                 /* a record's header on disk */
#define PAYLOAD_MIN 20u                 /* run, step, seq, len */
#define REC(len)    (HDR + (uint64_t) (len))
#define MIB         (1ull << 20)

//  CHECK_STR_CONTAINS for a char array (its NULL test would not compile).
#define CHECK_ERR(err, needle) \
    CHECK_MSG (strstr ((err), (needle)) != NULL, "'%s' does not contain '%s'", (err), (needle))

//  TMP/fmt: a path in a small ring of buffers (8), TMP the program's
//  fresh directory.  Can't fail.
const char *P (const char *fmt, ...);

//  dir/seg-NNNNNNNN.spool, in a small ring of buffers (4).  Can't fail.
const char *seg_file (const char *dir, unsigned no);

//  Whether path is there (lstat).
bool exists (const char *path);

//  path's size, or -1 when it cannot be stat'ed.
long long file_size (const char *path);

//  The entries of /proc/self/fd (so: open file descriptors, plus what
//  counting them opens), or -1 when it cannot be read.
int count_fds (void);

//  ---------------------------------------------------------------------
//  Payloads: 20 bytes of (run, step, seq, len), little-endian, then bytes
//  drawn from splitmix64 seeded by those four.

//  Stores the n low bytes of v at p, little-endian.  Can't fail.
void le_put (uint8_t *p, uint64_t v, int n);

//  Where put() makes its payloads (its size: the largest it makes).
extern uint8_t fx_buf[8192];

//  spool_put() of the payload of record (run, step, seq), len bytes
//  (PAYLOAD_MIN to sizeof fx_buf, else it aborts).  Returns what it returns.
int put (spool_t *sp, uint64_t run, uint32_t step, uint32_t seq, uint32_t len);

//  ---------------------------------------------------------------------
//  A send callback that records what it got

typedef struct {
    uint64_t run;
    uint32_t step, seq, len;
    bool intact;                // every byte is the one put
} sent_t;

typedef struct {
    sent_t v[2048];
    int n;
    int calls;
    int fail_at;                // the call (0-based) that fails; -1: none
    uint32_t failed_seq;
} sink_t;

extern sink_t fx_sink;

//  Empties fx_sink; fail_at: the call (0-based) that fails, -1: none.
//  Can't fail.
void sink_reset (int fail_at);

//  spool_resend()'s callback (arg: a sink_t).  Returns -1 on the call the
//  sink was told to fail, else 0.
int sink_send (void *arg, const uint8_t *buf, size_t len);

//  Resends into a reset sink (CHECKs that the count is what the callback
//  got); returns spool_resend's count.
int resend (spool_t *sp, uint64_t now, uint64_t after_ns);

//  resend() now, of everything.
int resend_all (spool_t *sp);

typedef struct {
    uint64_t run;
    uint32_t step, seq;
} want_t;

//  CHECK: the sink got exactly want[0..n), in that order, every byte intact.
void check_sent (const char *what, const want_t *want, int n);

//  CHECK: the sink got (run, step, first..last) in order, intact.
void check_sent_range (const char *what, uint64_t run, uint32_t step, uint32_t first,
                       uint32_t last);

//  ---------------------------------------------------------------------
//  The directory as it is on disk

typedef struct {
    int nseg;
    uint64_t bytes;             // of the seg-*.spool files
} dirinfo_t;

//  The seg-*.spool files of dir (none when it cannot be read).
dirinfo_t scan (const char *dir);

//  CHECK: what the spool says matches the files: segments, bytes.
void check_disk (const char *what, spool_t *sp, const char *dir);

//  Appends n bytes to a file (CHECKs that it could).
void append_bytes (const char *path, const uint8_t *buf, size_t n);

//  ---------------------------------------------------------------------
//  The log (stderr), captured around a call

//  Sends stderr to TMP/captured.log until capture_end().  Exits the
//  program when it cannot.
void capture_begin (void);

//  Ends the capture; out gets what was logged (cut to cap).
void capture_end (char *out, size_t cap);

//  ---------------------------------------------------------------------
//  Spools

//  spool_new(), CHECKed; exits the program when it failed.
spool_t *open_spool (const char *dir, uint64_t max_bytes, bool readonly);

//  Opens dir (max_bytes 1 MiB) with what it logs in log; exits the
//  program when it failed (CHECKed).
spool_t *open_logged (const char *dir, bool readonly, char *log, size_t cap);

//  spool_stats(), returned.
spool_stats_t stats (spool_t *sp);

//  The main of a spool test program called name: makes TMP (a fresh
//  directory under /var/tmp), exits with run_tests' status from a child
//  (so that whatever becomes of it, the parent removes TMP), and returns
//  that status, or 1 when TMP could not be made or removed or the child
//  died of a signal.
int spool_fx_main (const char *name, int (*run_tests) (void));

#endif
