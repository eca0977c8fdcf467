/*  test_spool_recovery.c: unit tests for agent/spool.c, what a spool
    reads back from its directory.

    Covered: recovery after spool_destroy and after the process is killed
    (SIGKILL, holding the lock meanwhile); torn, damaged and garbage tails
    (cut, counted, logged); files that are not segments (seg-1.spool,
    *.bak) and segment numbers past 8 digits.  The directory, the child
    the checks run in and the self-describing payloads are test_spool.c's,
    from spool_fx.c.
*/
#define _GNU_SOURCE
#include "spool_fx.h"
#include "util.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

//  Recovery after spool_destroy.
static void
test_recovery (void)
{
    const char *dir = P ("recover");
    spool_t *sp = open_spool (dir, SPOOL_MAX_MIN, false);
    for (uint32_t q = 0; q < 64; q++)           // the first segment, exactly
        CHECK (put (sp, 5, 1, q, 100) == 0);
    for (uint32_t q = 0; q < 30; q++)           // the second
        CHECK (put (sp, 5, 2, q, 100) == 0);
    spool_ack (sp, 5, 1, 63);
    CHECK (scan (dir).nseg == 1);
    spool_destroy (&sp);
    CHECK (scan (dir).nseg == 1 && exists (seg_file (dir, 2)));

    sp = open_spool (dir, SPOOL_MAX_MIN, false);
    spool_stats_t st = stats (sp);
    CHECK_MSG (st.recovered == 30, "recovered %llu", (unsigned long long) st.recovered);
    CHECK (st.records == 30 && st.unacked == 30 && st.torn_bytes == 0 && st.dropped == 0);
    CHECK (st.segments == 2);
    CHECK (exists (seg_file (dir, 3)));         // written after what it read
    check_disk ("recovered", sp, dir);

    //  Read at open = never sent: due whatever after_ns.
    uint64_t now = clock_mono_ns ();
    sink_reset (10);
    CHECK (spool_resend (sp, now, 3600 * NS_PER_SEC, sink_send, &fx_sink) == 10);
    check_sent_range ("recovered, until the send failed", 5, 2, 0, 9);
    CHECK (resend (sp, now, 3600 * NS_PER_SEC) == 20);
    check_sent_range ("recovered, the rest", 5, 2, 10, 29);
    CHECK (resend (sp, now, 3600 * NS_PER_SEC) == 0);

    //  New records go after the recovered ones.
    for (uint32_t q = 30; q < 35; q++)
        CHECK (put (sp, 5, 2, q, 100) == 0);
    CHECK (resend_all (sp) == 35);
    check_sent_range ("recovered, then new", 5, 2, 0, 34);
    check_disk ("recovered, then new", sp, dir);

    //  Everything acknowledged: the recovered segment goes.
    spool_ack (sp, 5, 2, UINT32_MAX);
    CHECK (!exists (seg_file (dir, 2)));
    CHECK (scan (dir).nseg == 1);
    spool_destroy (&sp);
}

//  Recovery after the agent was killed (SIGKILL: no spool_destroy), and
//  the lock between two processes while it ran.
static void
test_recovery_crash (void)
{
    const char *dir = P ("crash");
    int ready[2], go[2];
    CHECK (pipe (ready) == 0 && pipe (go) == 0);
    fflush (stderr);
    pid_t pid = fork ();
    if (pid == 0) {
        close (ready[0]);
        close (go[1]);
        char err[1024];
        spool_t *sp = spool_new (dir, SPOOL_MAX_MIN, false, err, sizeof err);
        if (!sp) {
            fprintf (stderr, "child: %s\n", err);
            _exit (2);
        }
        //  seg 1: 0..63, seg 2: 64..127, seg 3: 128..191, seg 4: 192..199
        //  and the DONE.
        for (uint32_t q = 0; q < 200; q++)
            if (put (sp, 9, 1, q, 100) != 0)
                _exit (3);
        if (put (sp, 9, 1, SPOOL_SEQ_DONE, 60) != 0)
            _exit (3);
        spool_ack (sp, 9, 1, 99);           // seg 1 goes, seg 2 stays
        if (write (ready[1], "r", 1) != 1)
            _exit (4);
        char c;
        if (read (go[0], &c, 1) != 1)
            _exit (5);
        kill (getpid (), SIGKILL);
        _exit (6);
    }
    close (ready[1]);
    close (go[0]);
    char c = 0;
    CHECK (read (ready[0], &c, 1) == 1 && c == 'r');

    //  Held by the child: not for us, but readable.
    char err[1024] = "";
    spool_t *other = spool_new (dir, SPOOL_MAX_MIN, false, err, sizeof err);
    CHECK (other == NULL);
    CHECK_ERR (err, "in use");
    CHECK_ERR (err, dir);
    //  ... by the child, by pid: what the lock file says of its holder
    char by[64];
    snprintf (by, sizeof by, "in use by pid %d on ", (int) pid);
    CHECK_ERR (err, by);
    spool_destroy (&other);
    char msg[1024];
    CHECK (spool_check_lock (dir, NULL, msg, sizeof msg) == -1);
    CHECK_ERR (msg, by);
    spool_t *ro = open_spool (dir, SPOOL_MAX_MIN, true);
    CHECK_MSG (stats (ro).unacked == 137, "readonly sees %llu",
               (unsigned long long) stats (ro).unacked);
    spool_destroy (&ro);
    CHECK (scan (dir).nseg == 3);           // segments 2, 3 and 4 (written to)

    CHECK (write (go[1], "g", 1) == 1);
    int status = 0;
    CHECK (waitpid (pid, &status, 0) == pid);
    CHECK_MSG (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL, "child status %#x",
               status);
    close (ready[0]);
    close (go[1]);

    CHECK (!exists (seg_file (dir, 1)));
    CHECK (exists (seg_file (dir, 2)) && exists (seg_file (dir, 4)));
    //  A holder killed leaves its lock file, not its lock.
    CHECK (spool_check_lock (dir, NULL, msg, sizeof msg) == 0);
    spool_t *sp = open_spool (dir, SPOOL_MAX_MIN, false);
    CHECK (exists (seg_file (dir, 5)));
    spool_stats_t st = stats (sp);
    CHECK (st.torn_bytes == 0 && st.dropped == 0);
    int n = resend_all (sp);
    CHECK_MSG ((uint64_t) n == st.recovered && st.unacked == st.recovered,
               "resent %d, recovered %llu, unacked %llu", n, (unsigned long long) st.recovered,
               (unsigned long long) st.unacked);
    //  All that was unacknowledged (100..199, DONE) is back, in order,
    //  after whatever of the unreclaimed segment 2 (acks are not kept on
    //  disk); nothing of the reclaimed segment 1 (0..63).
    CHECK_MSG (n >= 101 && n <= 137, "%d back", n);
    if (n >= 101 && n <= 137) {
        want_t want[137];
        uint32_t first = (uint32_t) (200 - (n - 1));
        for (int i = 0; i < n - 1; i++)
            want[i] = (want_t) { 9, 1, first + (uint32_t) i };
        want[n - 1] = (want_t) { 9, 1, SPOOL_SEQ_DONE };
        check_sent ("after SIGKILL", want, n);
        CHECK (first >= 64);
    }
    check_disk ("after SIGKILL", sp, dir);

    spool_ack (sp, 9, 1, SPOOL_SEQ_DONE);
    CHECK (stats (sp).unacked == 0);
    CHECK (scan (dir).nseg == 1 && stats (sp).bytes == 0);
    spool_destroy (&sp);
    CHECK (scan (dir).nseg == 0);
    sp = open_spool (dir, SPOOL_MAX_MIN, false);
    CHECK (stats (sp).recovered == 0 && resend_all (sp) == 0);
    spool_destroy (&sp);
}

//  Cuts a file.
static void
truncate_to (const char *path, long long size)
{
    CHECK_MSG (truncate (path, (off_t) size) == 0, "%s: %s", path, strerror (errno));
}

static void
poke (const char *path, long long off, uint8_t xor)
{
    int fd = open (path, O_RDWR | O_CLOEXEC);
    uint8_t b = 0;
    CHECK (fd >= 0 && pread (fd, &b, 1, (off_t) off) == 1);
    b ^= xor;
    CHECK (fd >= 0 && pwrite (fd, &b, 1, (off_t) off) == 1);
    if (fd >= 0)
        close (fd);
}

static uint32_t
torn_len (uint32_t q)
{
    return 100 + q * 10;
}

//  Writes records (run 8, step, 0..n) in a spool of its own session.
static void
session (const char *dir, uint32_t step, uint32_t n)
{
    spool_t *sp = open_spool (dir, MIB, false);
    for (uint32_t q = 0; q < n; q++)
        CHECK (put (sp, 8, step, q, torn_len (q)) == 0);
    spool_destroy (&sp);
}

static long long
torn_bytes_of (uint32_t from, uint32_t to)
{
    long long b = 0;
    for (uint32_t q = from; q < to; q++)
        b += (long long) REC (torn_len (q));
    return b;
}

//  Torn, damaged and garbage tails.
static void
test_torn (void)
{
    char log[8192];

    //  The last record short by 5 bytes (the agent died mid-write).
    const char *dir = P ("torn");
    session (dir, 1, 10);
    const char *f = seg_file (dir, 1);
    CHECK (file_size (f) == torn_bytes_of (0, 10));
    truncate_to (f, torn_bytes_of (0, 10) - 5);
    spool_t *sp = open_logged (dir, false, log, sizeof log);
    spool_stats_t st = stats (sp);
    CHECK_MSG (st.recovered == 9, "recovered %llu", (unsigned long long) st.recovered);
    CHECK_MSG ((long long) st.torn_bytes == (long long) REC (torn_len (9)) - 5, "torn %llu",
               (unsigned long long) st.torn_bytes);
    CHECK (file_size (f) == torn_bytes_of (0, 9));
    CHECK (resend_all (sp) == 9);
    check_sent_range ("torn: the good ones", 8, 1, 0, 8);
    check_disk ("torn", sp, dir);
    CHECK_ERR (log, "seg-00000001.spool");
    CHECK_ERR (log, "cut off");
    spool_destroy (&sp);

    //  Only the header of the next record, then part of a header.
    uint8_t hdr[HDR];
    memset (hdr, 0, sizeof hdr);
    le_put (hdr, 0x53464f49u, 4);
    le_put (hdr + 4, 100, 4);
    append_bytes (f, hdr, HDR);
    sp = open_logged (dir, false, log, sizeof log);
    CHECK (stats (sp).recovered == 9 && stats (sp).torn_bytes == HDR);
    CHECK (file_size (f) == torn_bytes_of (0, 9));
    spool_destroy (&sp);
    append_bytes (f, hdr, 11);
    sp = open_logged (dir, false, log, sizeof log);
    CHECK (stats (sp).recovered == 9 && stats (sp).torn_bytes == 11);
    CHECK (file_size (f) == torn_bytes_of (0, 9));
    spool_destroy (&sp);

    //  Garbage after good records.
    uint8_t junk[300];
    unsigned long long rs = 42;
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t) test_splitmix64 (&rs);
    append_bytes (f, junk, sizeof junk);
    sp = open_logged (dir, false, log, sizeof log);
    st = stats (sp);
    CHECK (st.recovered == 9 && st.torn_bytes == sizeof junk);
    CHECK (file_size (f) == torn_bytes_of (0, 9));
    CHECK (resend_all (sp) == 9);
    check_sent_range ("garbage: the good ones", 8, 1, 0, 8);
    CHECK_ERR (log, "cut off");
    spool_destroy (&sp);

    //  A byte flipped in the middle: the CRC catches it; the rest of that
    //  segment goes, later segments are read.
    const char *dir2 = P ("damaged");
    session (dir2, 1, 10);                      // segment 1
    session (dir2, 2, 5);                       // segment 2 (a new session)
    const char *f1 = seg_file (dir2, 1), *f2 = seg_file (dir2, 2);
    CHECK (file_size (f1) == torn_bytes_of (0, 10) && file_size (f2) == torn_bytes_of (0, 5));
    long long rec4 = torn_bytes_of (0, 4);
    poke (f1, rec4 + HDR + 50, 0x01);           // in record 4's payload
    sp = open_logged (dir2, false, log, sizeof log);
    st = stats (sp);
    CHECK_MSG (st.recovered == 4 + 5, "recovered %llu", (unsigned long long) st.recovered);
    CHECK (st.torn_bytes == (uint64_t) torn_bytes_of (4, 10));
    CHECK (file_size (f1) == rec4);
    CHECK (file_size (f2) == torn_bytes_of (0, 5));
    CHECK (resend_all (sp) == 9);
    {
        want_t want[9];
        for (uint32_t q = 0; q < 4; q++)
            want[q] = (want_t) { 8, 1, q };
        for (uint32_t q = 0; q < 5; q++)
            want[4 + q] = (want_t) { 8, 2, q };
        check_sent ("damaged in the middle", want, 9);
    }
    char at[64];
    snprintf (at, sizeof at, "at byte %lld", rec4);
    CHECK_ERR (log, at);
    CHECK_ERR (log, "seg-00000001.spool");
    CHECK_ERR (log, "damaged");
    check_disk ("damaged", sp, dir2);
    spool_destroy (&sp);

    //  Damage in a header: magic, CRC, a length past SPOOL_RECORD_MAX.
    //  Record 0 of segment 2 each time: the whole file goes.
    struct { const char *what; long long off; uint8_t xor; } hurt[] = {
        { "magic", 0, 0xff }, { "crc", 24, 0x80 }, { "run", 8, 0x01 }, { "len", 7, 0x10 },
    };
    for (size_t h = 0; h < sizeof hurt / sizeof hurt[0]; h++) {
        const char *d = P ("hurt-%zu", h);
        session (d, 1, 3);
        session (d, 2, 3);
        poke (seg_file (d, 2), hurt[h].off, hurt[h].xor);
        sp = open_logged (d, false, log, sizeof log);
        st = stats (sp);
        CHECK_MSG (st.recovered == 3 && st.torn_bytes == (uint64_t) torn_bytes_of (0, 3),
                   "%s: recovered %llu, torn %llu", hurt[h].what,
                   (unsigned long long) st.recovered, (unsigned long long) st.torn_bytes);
        CHECK_MSG (!exists (seg_file (d, 2)), "%s: the emptied segment is still there",
                   hurt[h].what);
        CHECK (resend_all (sp) == 3);
        check_sent_range (hurt[h].what, 8, 1, 0, 2);
        check_disk (hurt[h].what, sp, d);
        spool_destroy (&sp);
    }

    //  Files that are not segments are left alone; a stray name is not
    //  read as one.
    const char *dir3 = P ("strays");
    session (dir3, 1, 3);
    uint8_t hello[] = "not a segment";
    int fd = open (P ("strays/seg-1.spool"), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    CHECK (fd >= 0 && write (fd, hello, sizeof hello) == (ssize_t) sizeof hello);
    close (fd);
    fd = open (P ("strays/seg-00000001.spool.bak"), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    CHECK (fd >= 0 && write (fd, hello, sizeof hello) == (ssize_t) sizeof hello);
    close (fd);
    char e[1024] = "";
    sp = spool_new (dir3, MIB, false, e, sizeof e);
    CHECK_MSG (sp != NULL, "with stray files: %s", e);
    if (sp) {
        CHECK (stats (sp).recovered == 3 && stats (sp).torn_bytes == 0);
        CHECK (resend_all (sp) == 3);
        check_sent_range ("with stray files", 8, 1, 0, 2);
        spool_destroy (&sp);
    }
    CHECK (file_size (P ("strays/seg-1.spool")) == (long long) sizeof hello);
    CHECK (file_size (P ("strays/seg-00000001.spool.bak")) == (long long) sizeof hello);
    CHECK (file_size (seg_file (dir3, 1)) == torn_bytes_of (0, 3));

    //  Segment numbers past 8 digits are read back too.
    const char *dir4 = P ("wide");
    session (dir4, 1, 3);
    CHECK (rename (seg_file (dir4, 1), seg_file (dir4, 123456789)) == 0);
    sp = open_spool (dir4, MIB, false);
    CHECK (stats (sp).recovered == 3);
    CHECK (exists (seg_file (dir4, 123456790)));
    CHECK (resend_all (sp) == 3);
    check_sent_range ("segment 123456789", 8, 1, 0, 2);
    spool_destroy (&sp);
}

static int
run_tests (void)
{
    int fds0 = count_fds ();
    test_recovery ();
    test_recovery_crash ();
    test_torn ();
    CHECK_MSG (count_fds () == fds0, "fds: %d at start, %d at end", fds0, count_fds ());
    return TEST_DONE ();
}

int
main (void)
{
    return spool_fx_main ("test_spool_recovery", run_tests);
}
