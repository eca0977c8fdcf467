/*  test_spool.c: unit tests for agent/spool.c, the agent's on-disk store of
    messages the controller has not acknowledged.

    Usage: test_spool [FIXTURES]   (the argument is ignored: every input is
    made here)

    Works with real files in a fresh directory under /var/tmp, one spool
    directory per test (TMP/basic, TMP/ack, ...).  The checks run in a
    child process; the parent only waits for it and removes TMP, so the
    directory goes whatever happened to the child (a failed check, an
    abort, a sanitizer report, a crash).

    Every payload is self-describing: 20 bytes of (run, step, seq, len),
    then bytes drawn from splitmix64 seeded by those four, so the send
    callback can tell which record it got and whether every byte of it is
    the one that was put.

    Covered: put and resend order and bytes; a failing send; acks (per
    step, upto, the DONE seq); resend's after_ns and spool_unsend; segments
    reclaimed once acknowledged; recovery after spool_destroy and after the
    process is killed (SIGKILL, holding the lock meanwhile); torn, damaged
    and garbage tails (cut, counted, logged); files that are not segments
    (seg-1.spool, *.bak) and segment numbers past 8 digits; zero-length
    records; the
    max_bytes bound and the drops it counts per step; spool_keep_only; the
    lock between two spools and between two processes; readonly opens that
    change nothing; directories that cannot be used; write failures
    (RLIMIT_FSIZE: a short write and EFBIG) kept in memory; and
    spool_steps_json.  Not covered: a directory that is not writable (root,
    as the tests run here, writes anyway: that check runs only as another
    user) and running out of memory.
*/
#define _GNU_SOURCE
#include "spool.h"
#include "log.h"
#include "util.h"
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define HDR         28u                 /* a record's header on disk */
#define PAYLOAD_MIN 20u                 /* run, step, seq, len */
#define REC(len)    (HDR + (uint64_t) (len))
#define MIB         (1ull << 20)

//  CHECK_STR_CONTAINS for a char array (its NULL test would not compile).
#define CHECK_ERR(err, needle) \
    CHECK_MSG (strstr ((err), (needle)) != NULL, "'%s' does not contain '%s'", (err), (needle))

/* Under -fsanitize=undefined: undefined behaviour fails the test (by
   default it is only printed). */
const char *__ubsan_default_options (void);
const char *
__ubsan_default_options (void)
{
    return "halt_on_error=1:print_stacktrace=1";
}

static char s_tmp[PATH_MAX];            // realpath of the mkdtemp directory

//  TMP/fmt: a path in a small ring of buffers.
static const char *
P (const char *fmt, ...)
{
    static char ring[8][PATH_MAX];
    static int next;
    char *out = ring[next++ % 8];
    char rel[PATH_MAX];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (rel, sizeof rel, fmt, ap);
    va_end (ap);
    snprintf (out, PATH_MAX, "%s/%s", s_tmp, rel);
    return out;
}

//  dir/seg-NNNNNNNN.spool
static const char *
seg_file (const char *dir, unsigned no)
{
    static char ring[4][PATH_MAX];
    static int next;
    char *out = ring[next++ % 4];
    snprintf (out, PATH_MAX, "%s/seg-%08u.spool", dir, no);
    return out;
}

static int
rm_one (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void) st;
    (void) ftw;
    if (flag == FTW_DP)
        rmdir (path);
    else
        unlink (path);
    return 0;
}

static bool
exists (const char *path)
{
    struct stat st;
    return lstat (path, &st) == 0;
}

static long long
file_size (const char *path)
{
    struct stat st;
    return stat (path, &st) == 0 ? (long long) st.st_size : -1;
}

static int
count_fds (void)
{
    DIR *d = opendir ("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    while (readdir (d))
        n++;
    closedir (d);
    return n;
}

//  ---------------------------------------------------------------------
//  Payloads

static void
le_put (uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t) (v >> (8 * i));
}

static uint64_t
le_get (const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t) p[i] << (8 * i);
    return v;
}

//  The payload of record (run, step, seq), len bytes (>= PAYLOAD_MIN).
static void
make_payload (uint8_t *buf, uint64_t run, uint32_t step, uint32_t seq, uint32_t len)
{
    le_put (buf, run, 8);
    le_put (buf + 8, step, 4);
    le_put (buf + 12, seq, 4);
    le_put (buf + 16, len, 4);
    unsigned long long st = run * 0x100000001b3ull ^ (unsigned long long) step << 32 ^ seq
                            ^ (unsigned long long) len << 48;
    unsigned long long z = 0;
    for (uint32_t i = PAYLOAD_MIN; i < len; i++) {
        if ((i - PAYLOAD_MIN) % 8 == 0)
            z = test_splitmix64 (&st);
        buf[i] = (uint8_t) (z >> (8 * ((i - PAYLOAD_MIN) % 8)));
    }
}

static uint8_t s_buf[8192];

static int
put (spool_t *sp, uint64_t run, uint32_t step, uint32_t seq, uint32_t len)
{
    if (len < PAYLOAD_MIN || len > sizeof s_buf)
        abort ();
    make_payload (s_buf, run, step, seq, len);
    return spool_put (sp, run, step, seq, s_buf, len);
}

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

static sink_t s_sink;

static void
sink_reset (int fail_at)
{
    s_sink.n = 0;
    s_sink.calls = 0;
    s_sink.fail_at = fail_at;
    s_sink.failed_seq = 0;
}

static int
sink_send (void *arg, const uint8_t *buf, size_t len)
{
    sink_t *s = arg;
    sent_t e = { .len = (uint32_t) len };
    if (len >= PAYLOAD_MIN) {
        e.run = le_get (buf, 8);
        e.step = (uint32_t) le_get (buf + 8, 4);
        e.seq = (uint32_t) le_get (buf + 12, 4);
        if (le_get (buf + 16, 4) == len && len <= sizeof s_buf) {
            uint8_t want[sizeof s_buf];
            make_payload (want, e.run, e.step, e.seq, (uint32_t) len);
            e.intact = memcmp (want, buf, len) == 0;
        }
    }
    if (s->calls++ == s->fail_at) {
        s->failed_seq = e.seq;
        return -1;
    }
    if (s->n < (int) (sizeof s->v / sizeof s->v[0]))
        s->v[s->n++] = e;
    return 0;
}

//  Resends into a reset sink; returns spool_resend's count.
static int
resend (spool_t *sp, uint64_t now, uint64_t after_ns)
{
    sink_reset (-1);
    int n = spool_resend (sp, now, after_ns, sink_send, &s_sink);
    CHECK_MSG (n == s_sink.n, "resend says %d, the callback got %d", n, s_sink.n);
    return n;
}

static int
resend_all (spool_t *sp)
{
    return resend (sp, clock_mono_ns (), 0);
}

typedef struct {
    uint64_t run;
    uint32_t step, seq;
} want_t;

//  The sink got exactly want[0..n), in that order, every byte intact.
static void
check_sent (const char *what, const want_t *want, int n)
{
    CHECK_MSG (s_sink.n == n, "%s: %d sent, %d expected", what, s_sink.n, n);
    int bad = 0;
    for (int i = 0; i < n && i < s_sink.n; i++) {
        const sent_t *g = &s_sink.v[i];
        if (g->run != want[i].run || g->step != want[i].step || g->seq != want[i].seq
            || !g->intact) {
            if (bad++ < 5)
                fprintf (stderr, "%s: #%d is (%llu, %u, %u)%s, expected (%llu, %u, %u)\n", what,
                         i, (unsigned long long) g->run, g->step, g->seq,
                         g->intact ? "" : " DAMAGED", (unsigned long long) want[i].run,
                         want[i].step, want[i].seq);
        }
    }
    CHECK_MSG (bad == 0, "%s: %d record(s) not the ones put, or not in order", what, bad);
}

//  The sink got (run, step, first..last) in order, intact.
static void
check_sent_range (const char *what, uint64_t run, uint32_t step, uint32_t first, uint32_t last)
{
    static want_t want[2048];
    int n = 0;
    for (uint32_t q = first; q <= last && n < 2048; q++)
        want[n++] = (want_t) { run, step, q };
    check_sent (what, want, n);
}

//  ---------------------------------------------------------------------
//  The directory as it is on disk

typedef struct {
    int nseg;
    uint64_t bytes;             // of the seg-*.spool files
} dirinfo_t;

static dirinfo_t
scan (const char *dir)
{
    dirinfo_t di = { 0, 0 };
    DIR *d = opendir (dir);
    if (!d)
        return di;
    struct dirent *e;
    while ((e = readdir (d))) {
        size_t n = strlen (e->d_name);
        if (strncmp (e->d_name, "seg-", 4) != 0 || n < 10 || strcmp (e->d_name + n - 6, ".spool"))
            continue;
        char path[PATH_MAX];
        snprintf (path, sizeof path, "%s/%s", dir, e->d_name);
        di.nseg++;
        di.bytes += (uint64_t) file_size (path);
    }
    closedir (d);
    return di;
}

//  What the spool says matches the files: segments, bytes.
static void
check_disk (const char *what, spool_t *sp, const char *dir)
{
    spool_stats_t st;
    spool_stats (sp, &st);
    dirinfo_t di = scan (dir);
    CHECK_MSG (st.bytes == di.bytes, "%s: stats.bytes %llu, the files hold %llu", what,
               (unsigned long long) st.bytes, (unsigned long long) di.bytes);
    CHECK_MSG (st.segments == (uint64_t) di.nseg, "%s: stats.segments %llu, %d file(s)", what,
               (unsigned long long) st.segments, di.nseg);
}

//  Every file in dir: name, size, mtime (to show nothing changed).
typedef struct {
    char name[64];
    long long size;
    struct timespec mtime;
    ino_t ino;
} fent_t;

typedef struct {
    fent_t v[64];
    int n;
} snap_t;

static int
cmp_fent (const void *a, const void *b)
{
    return strcmp (((const fent_t *) a)->name, ((const fent_t *) b)->name);
}

static void
snapshot (const char *dir, snap_t *s)
{
    memset (s, 0, sizeof *s);
    DIR *d = opendir (dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir (d)) && s->n < 64) {
        if (e->d_name[0] == '.')
            continue;
        char path[PATH_MAX];
        snprintf (path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat (path, &st) != 0)
            continue;
        fent_t *f = &s->v[s->n++];
        snprintf (f->name, sizeof f->name, "%s", e->d_name);
        f->size = (long long) st.st_size;
        f->mtime = st.st_mtim;
        f->ino = st.st_ino;
    }
    closedir (d);
    qsort (s->v, (size_t) s->n, sizeof s->v[0], cmp_fent);
}

static bool
snap_equal (const snap_t *a, const snap_t *b)
{
    if (a->n != b->n)
        return false;
    for (int i = 0; i < a->n; i++) {
        const fent_t *x = &a->v[i], *y = &b->v[i];
        if (strcmp (x->name, y->name) || x->size != y->size || x->ino != y->ino
            || x->mtime.tv_sec != y->mtime.tv_sec || x->mtime.tv_nsec != y->mtime.tv_nsec)
            return false;
    }
    return true;
}

//  ---------------------------------------------------------------------
//  The log (stderr), captured around a call

static int s_saved_stderr = -1;
static int s_capture_fd = -1;

static void
capture_begin (void)
{
    fflush (stderr);
    s_capture_fd = open (P ("captured.log"), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    s_saved_stderr = dup (2);
    if (s_capture_fd < 0 || s_saved_stderr < 0 || dup2 (s_capture_fd, 2) < 0) {
        perror ("capture");
        exit (1);
    }
}

//  Ends the capture; out gets what was logged (cut to cap).
static void
capture_end (char *out, size_t cap)
{
    fflush (stderr);
    dup2 (s_saved_stderr, 2);
    close (s_saved_stderr);
    ssize_t n = pread (s_capture_fd, out, cap - 1, 0);
    out[n > 0 ? n : 0] = '\0';
    close (s_capture_fd);
    s_capture_fd = s_saved_stderr = -1;
}

static spool_t *
open_spool (const char *dir, uint64_t max_bytes, bool readonly)
{
    char err[1024] = "";
    spool_t *sp = spool_new (dir, max_bytes, readonly, err, sizeof err);
    CHECK_MSG (sp != NULL, "spool_new %s: %s", dir, err);
    if (!sp) {
        fprintf (stderr, "cannot go on without the spool\n");
        exit (1);
    }
    return sp;
}

static spool_stats_t
stats (spool_t *sp)
{
    spool_stats_t st;
    spool_stats (sp, &st);
    return st;
}

//  ---------------------------------------------------------------------

//  Put, resend everything: put order, exact bytes; a failing send stops it.
static void
test_put_resend (void)
{
    const char *dir = P ("basic");
    spool_t *sp = open_spool (dir, MIB, false);
    spool_stats_t st = stats (sp);
    CHECK (st.records == 0 && st.unacked == 0 && st.bytes == 0 && st.recovered == 0);
    CHECK (st.segments == 1 && st.dropped == 0 && st.torn_bytes == 0 && st.write_errors == 0);
    CHECK (exists (P ("basic/lock")));
    CHECK (exists (seg_file (dir, 1)));
    CHECK (resend_all (sp) == 0);

    //  Two steps interleaved, lengths all different.
    want_t want[40];
    uint64_t bytes = 0;
    int n = 0;
    for (uint32_t q = 0; q < 20; q++) {
        uint32_t len1 = PAYLOAD_MIN + q * 13, len2 = 200 + q;
        CHECK (put (sp, 7, 1, q, len1) == 0);
        CHECK (put (sp, 7, 2, q + 100, len2) == 0);
        want[n++] = (want_t) { 7, 1, q };
        want[n++] = (want_t) { 7, 2, q + 100 };
        bytes += REC (len1) + REC (len2);
    }
    st = stats (sp);
    CHECK (st.records == 40 && st.unacked == 40);
    CHECK_MSG (st.bytes == bytes, "%llu bytes, %llu put", (unsigned long long) st.bytes,
               (unsigned long long) bytes);
    check_disk ("after 40 puts", sp, dir);
    CHECK (file_size (seg_file (dir, 1)) == (long long) bytes);

    CHECK (resend_all (sp) == 40);
    check_sent ("resend after_ns=0", want, 40);
    //  Sent again: after_ns = 0 means whatever was sent when.
    CHECK (resend_all (sp) == 40);
    check_sent ("resend again", want, 40);

    //  The 6th send fails: five were sent, the 6th was tried, no more.
    sink_reset (5);
    int sent = spool_resend (sp, clock_mono_ns (), 0, sink_send, &s_sink);
    CHECK_MSG (sent == 5, "%d sent", sent);
    CHECK (s_sink.calls == 6);
    CHECK (s_sink.failed_seq == want[5].seq);
    check_sent ("resend with a failing send", want, 5);
    //  Failing at once: nothing sent.
    sink_reset (0);
    CHECK (spool_resend (sp, clock_mono_ns (), 0, sink_send, &s_sink) == 0);
    CHECK (s_sink.calls == 1);
    //  Nothing lost by failing sends.
    CHECK (stats (sp).unacked == 40);
    CHECK (resend_all (sp) == 40);

    //  Oversized: refused, nothing changes.
    CHECK (spool_put (sp, 7, 1, 99, s_buf, (size_t) SPOOL_RECORD_MAX + 1) == -EMSGSIZE);
    st = stats (sp);
    CHECK (st.records == 40 && st.unacked == 40 && st.bytes == bytes);
    spool_destroy (&sp);
    CHECK (sp == NULL);
    spool_destroy (&sp);            // twice: a no-op
}

//  Acks: exactly seq <= upto of that (run, step).
static void
test_ack (void)
{
    const char *dir = P ("ack");
    spool_t *sp = open_spool (dir, MIB, false);
    for (uint32_t q = 0; q < 10; q++) {
        CHECK (put (sp, 1, 1, q, 64) == 0);
        CHECK (put (sp, 1, 2, q, 64) == 0);
        CHECK (put (sp, 2, 1, q, 64) == 0);
    }
    CHECK (put (sp, 1, 1, SPOOL_SEQ_DONE, 40) == 0);
    CHECK (stats (sp).unacked == 31);

    //  The list of what is left, in put order, with a predicate.
    bool acked[3][11];              // [step kind][seq or 10 for DONE]
    memset (acked, 0, sizeof acked);
#define EXPECT_LEFT(what) do {                                                  \
        want_t w_[31];                                                           \
        int n_ = 0;                                                             \
        for (uint32_t q = 0; q < 10; q++) {                                     \
            if (!acked[0][q]) w_[n_++] = (want_t) { 1, 1, q };                   \
            if (!acked[1][q]) w_[n_++] = (want_t) { 1, 2, q };                   \
            if (!acked[2][q]) w_[n_++] = (want_t) { 2, 1, q };                   \
        }                                                                       \
        if (!acked[0][10]) w_[n_++] = (want_t) { 1, 1, SPOOL_SEQ_DONE };         \
        CHECK_MSG ((int) stats (sp).unacked == n_, "%s: unacked %llu, %d left", \
                   what, (unsigned long long) stats (sp).unacked, n_);          \
        resend_all (sp);                                                        \
        check_sent (what, w_, n_);                                              \
    } while (0)

    spool_ack (sp, 1, 1, 4);
    for (int q = 0; q <= 4; q++)
        acked[0][q] = true;
    EXPECT_LEFT ("ack (1, 1, 4)");
    spool_ack (sp, 1, 1, 4);
    EXPECT_LEFT ("the same ack again");
    spool_ack (sp, 1, 1, 2);
    EXPECT_LEFT ("an older ack");

    //  Other runs and steps: nothing.
    spool_ack (sp, 3, 1, UINT32_MAX);
    spool_ack (sp, 1, 3, UINT32_MAX);
    spool_ack (sp, 2, 2, UINT32_MAX);
    spool_ack (sp, 0, 0, UINT32_MAX);
    EXPECT_LEFT ("acks of nothing held");

    spool_ack (sp, 1, 2, 0);
    acked[1][0] = true;
    EXPECT_LEFT ("ack (1, 2, 0)");

    //  The DONE (seq UINT32_MAX) goes only with upto UINT32_MAX.
    spool_ack (sp, 1, 1, 9);
    for (int q = 5; q <= 9; q++)
        acked[0][q] = true;
    EXPECT_LEFT ("ack (1, 1, 9)");
    spool_ack (sp, 1, 1, UINT32_MAX - 1);
    EXPECT_LEFT ("ack (1, 1, UINT32_MAX - 1)");
    spool_ack (sp, 1, 1, UINT32_MAX);
    acked[0][10] = true;
    EXPECT_LEFT ("ack (1, 1, UINT32_MAX)");

    spool_ack (sp, 2, 1, 9);
    for (int q = 0; q < 10; q++)
        acked[2][q] = true;
    EXPECT_LEFT ("ack (2, 1, 9)");
#undef EXPECT_LEFT

    //  Acknowledged records in the segment being written stay held (until
    //  it is reclaimed), and none of this is a drop.
    spool_stats_t st = stats (sp);
    CHECK (st.records == 31 && st.unacked == 9 && st.dropped == 0);
    CHECK (spool_dropped (sp, 1, 1) == 0 && spool_dropped (sp, 2, 1) == 0);
    check_disk ("after acks", sp, dir);
    spool_destroy (&sp);
}

//  after_ns: what was sent (or put) lately is not sent again.
static void
test_after_ns (void)
{
    const uint64_t S = NS_PER_SEC, after = 10 * S;
    spool_t *sp = open_spool (P ("after"), MIB, false);
    for (uint32_t q = 0; q < 5; q++)
        CHECK (put (sp, 3, 1, q, 100) == 0);
    uint64_t base = clock_mono_ns ();

    CHECK (resend (sp, base, after) == 0);              // put = sent just now
    CHECK (resend (sp, base + 11 * S, after) == 5);
    check_sent_range ("due", 3, 1, 0, 4);
    CHECK (resend (sp, base + 12 * S, after) == 0);
    //  Each resend waits twice as long as the last (a busy controller is
    //  not flooded), at most SPOOL_RESEND_MAX_NS (60 s).
    CHECK (resend (sp, base + 22 * S, after) == 0);     // 11 s after: waits 20
    CHECK (resend (sp, base + 32 * S, after) == 5);     // 21 s after
    check_sent_range ("due again", 3, 1, 0, 4);
    CHECK (resend (sp, base + 70 * S, after) == 0);     // 38 s after: waits 40
    CHECK (resend (sp, base + 73 * S, after) == 5);
    CHECK (resend (sp, base + 132 * S, after) == 0);    // 59 s: 80 capped to 60
    CHECK (resend (sp, base + 134 * S, after) == 5);
    check_sent_range ("capped", 3, 1, 0, 4);

    //  Unsend (a new connection): all due at once, whenever they were
    //  sent, and the backoff starts again.
    spool_unsend (sp);
    CHECK (resend (sp, base + 135 * S, after) == 5);
    check_sent_range ("after unsend", 3, 1, 0, 4);
    CHECK (resend (sp, base + 136 * S, after) == 0);
    CHECK (resend (sp, base + 146 * S, after) == 5);    // 11 s after: waits 10 again

    //  A new record (put at ~base) is due now, the others not.
    CHECK (put (sp, 3, 1, 5, 100) == 0);
    CHECK (resend (sp, base + 147 * S, after) == 1);
    check_sent_range ("only the new one", 3, 1, 5, 5);

    //  A failed send leaves the record due.
    spool_unsend (sp);
    sink_reset (2);
    CHECK (spool_resend (sp, base + 150 * S, after, sink_send, &s_sink) == 2);
    CHECK (resend (sp, base + 150 * S, after) == 4);
    check_sent_range ("the rest after a failed send", 3, 1, 2, 5);
    CHECK (resend (sp, base + 150 * S, after) == 0);

    //  Acknowledged: never again, unsend or not.
    spool_ack (sp, 3, 1, 3);
    spool_unsend (sp);
    CHECK (resend (sp, base + 151 * S, after) == 2);
    check_sent_range ("unacked after unsend", 3, 1, 4, 5);
    spool_destroy (&sp);
}

//  Segments whose records are all acknowledged are removed, but the one
//  being written.
static void
test_reclaim (void)
{
    //  64 KiB: segments of 8 KiB, 64 records of 100 + 28 bytes each.
    const char *dir = P ("reclaim");
    spool_t *sp = open_spool (dir, SPOOL_MAX_MIN, false);
    for (uint32_t q = 0; q < 300; q++)
        CHECK (put (sp, 6, 1, q, 100) == 0);
    dirinfo_t di = scan (dir);
    CHECK_MSG (di.nseg == 5, "%d segment files for 300 records", di.nseg);
    check_disk ("300 records", sp, dir);
    CHECK (stats (sp).dropped == 0 && stats (sp).unacked == 300);
    CHECK (file_size (seg_file (dir, 1)) == 64 * 128);

    spool_ack (sp, 6, 1, 62);           // the first segment but one record
    CHECK (scan (dir).nseg == 5);
    spool_ack (sp, 6, 1, 63);           // all of it
    CHECK_MSG (scan (dir).nseg == 4, "%d files", scan (dir).nseg);
    CHECK (!exists (seg_file (dir, 1)));
    check_disk ("first segment acknowledged", sp, dir);
    spool_ack (sp, 6, 1, 100);          // part of the second
    CHECK (scan (dir).nseg == 4);
    CHECK (stats (sp).records == 300 - 64);

    spool_ack (sp, 6, 1, 299);
    di = scan (dir);
    CHECK_MSG (di.nseg == 1, "%d files after everything was acknowledged", di.nseg);
    CHECK (exists (seg_file (dir, 5)));
    check_disk ("all acknowledged", sp, dir);
    spool_stats_t st = stats (sp);
    CHECK (st.unacked == 0 && st.dropped == 0);
    //  Nothing outstanding: the segment being written is emptied too, so
    //  iofleet-agent spool shows only what is really unacknowledged.
    CHECK_MSG (st.bytes == 0 && st.records == 0, "%llu bytes, %llu records",
               (unsigned long long) st.bytes, (unsigned long long) st.records);
    CHECK (file_size (seg_file (dir, 5)) == 0);
    CHECK (resend_all (sp) == 0);

    //  Rotating on: acknowledged as they go, the files stay few.
    int most = 0;
    for (uint32_t q = 300; q < 1000; q++) {
        CHECK (put (sp, 6, 1, q, 100) == 0);
        spool_ack (sp, 6, 1, q);
        int nseg = scan (dir).nseg;
        most = nseg > most ? nseg : most;
    }
    CHECK_MSG (most <= 2, "up to %d files while acknowledged as put", most);
    CHECK (scan (dir).nseg == 1);
    check_disk ("acknowledged as put", sp, dir);
    CHECK (stats (sp).unacked == 0 && stats (sp).dropped == 0);

    //  keep_only reclaims too.
    for (uint32_t q = 0; q < 200; q++)
        CHECK (put (sp, 6, 2, q, 100) == 0);
    CHECK (scan (dir).nseg >= 3);
    CHECK (spool_keep_only (sp, 6, 1) == 200);
    CHECK (scan (dir).nseg == 1);
    check_disk ("after keep_only", sp, dir);
    spool_destroy (&sp);

    //  A spool that never held anything leaves no segment behind.
    const char *empty = P ("reclaim-empty");
    sp = open_spool (empty, SPOOL_MAX_MIN, false);
    CHECK (scan (empty).nseg == 1);
    spool_destroy (&sp);
    CHECK (scan (empty).nseg == 0);
    CHECK (!exists (P ("reclaim-empty/lock")));     //  a lock released goes
    sp = open_spool (empty, SPOOL_MAX_MIN, false);
    CHECK (stats (sp).recovered == 0 && stats (sp).records == 0);
    spool_destroy (&sp);
}

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
    CHECK (spool_resend (sp, now, 3600 * NS_PER_SEC, sink_send, &s_sink) == 10);
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

//  Opens dir, logging into log; returns the spool.
static spool_t *
open_logged (const char *dir, bool readonly, char *log, size_t cap)
{
    capture_begin ();
    char err[1024] = "";
    spool_t *sp = spool_new (dir, MIB, readonly, err, sizeof err);
    capture_end (log, cap);
    CHECK_MSG (sp != NULL, "spool_new %s: %s", dir, err);
    if (!sp)
        exit (1);
    return sp;
}

//  Cuts or appends to a file.
static void
truncate_to (const char *path, long long size)
{
    CHECK_MSG (truncate (path, (off_t) size) == 0, "%s: %s", path, strerror (errno));
}

static void
append_bytes (const char *path, const uint8_t *buf, size_t n)
{
    int fd = open (path, O_WRONLY | O_APPEND | O_CLOEXEC);
    CHECK (fd >= 0 && write (fd, buf, n) == (ssize_t) n);
    if (fd >= 0)
        close (fd);
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

//  Zero-length records are records too.
static void
test_zero_length (void)
{
    const char *dir = P ("zero");
    spool_t *sp = open_spool (dir, MIB, false);
    CHECK (spool_put (sp, 1, 1, 0, (const uint8_t *) "", 0) == 0);
    CHECK (spool_put (sp, 1, 1, 1, NULL, 0) == 0);
    CHECK (put (sp, 1, 1, 2, 50) == 0);
    CHECK (stats (sp).bytes == 2 * HDR + REC (50));
    CHECK (resend_all (sp) == 3);
    CHECK (s_sink.v[0].len == 0 && s_sink.v[1].len == 0);
    CHECK (s_sink.v[2].seq == 2 && s_sink.v[2].intact);
    spool_destroy (&sp);

    sp = open_spool (dir, MIB, false);
    spool_stats_t st = stats (sp);
    CHECK_MSG (st.recovered == 3 && st.torn_bytes == 0, "recovered %llu, torn %llu",
               (unsigned long long) st.recovered, (unsigned long long) st.torn_bytes);
    CHECK (resend_all (sp) == 3);
    CHECK (s_sink.n == 3 && s_sink.v[0].len == 0 && s_sink.v[1].len == 0);
    CHECK (s_sink.n == 3 && s_sink.v[2].seq == 2 && s_sink.v[2].intact);
    spool_destroy (&sp);
}

static json_t *
step_of (json_t *list, uint64_t run, uint32_t step)
{
    size_t i;
    json_t *o;
    json_array_foreach (list, i, o)
        if ((uint64_t) json_integer_value (json_object_get (o, "run")) == run
            && (uint32_t) json_integer_value (json_object_get (o, "step")) == step)
            return o;
    return NULL;
}

static long long
jint (json_t *o, const char *key)
{
    json_t *v = json_object_get (o, key);
    return json_is_integer (v) ? (long long) json_integer_value (v) : -1;
}

//  The bound: max_bytes on disk; the oldest go first, counted per step.
static void
test_bound (void)
{
    char log[16384];
    const uint64_t max = SPOOL_MAX_MIN;
    const uint32_t len = 1000, per_step = 100;
    const char *dir = P ("bound");
    spool_t *sp = open_spool (dir, max, false);
    uint64_t most = 0;
    int over = 0, mismatch = 0;
    capture_begin ();
    for (uint32_t q = 0; q < per_step; q++)
        for (uint32_t step = 1; step <= 3; step++) {
            if (put (sp, 4, step, q, len) != 0)
                over += 1000;
            dirinfo_t di = scan (dir);
            most = di.bytes > most ? di.bytes : most;
            over += di.bytes > max;
            mismatch += di.bytes != stats (sp).bytes;
        }
    capture_end (log, sizeof log);
    CHECK_MSG (over == 0, "%d put(s) left more than %llu bytes on disk (up to %llu)", over,
               (unsigned long long) max, (unsigned long long) most);
    CHECK_MSG (most + REC (len) > max, "the bound was never reached: %llu",
               (unsigned long long) most);
    CHECK_MSG (mismatch == 0, "stats.bytes differed from the files %d time(s)", mismatch);
    CHECK_ERR (log, "is full");
    CHECK_ERR (log, "dropped the oldest");

    spool_stats_t st = stats (sp);
    CHECK (st.dropped > 0);
    CHECK (resend_all (sp) == (int) st.unacked);
    CHECK (st.unacked + st.dropped == 3 * per_step);
    //  Per step: what is resent is a contiguous tail ending at the last
    //  put; what is not, spool_dropped counts.
    uint64_t dropped_sum = 0;
    json_t *steps = spool_steps_json (sp);
    CHECK (steps && json_array_size (steps) == 3);
    for (uint32_t step = 1; step <= 3; step++) {
        uint32_t n = 0, first = UINT32_MAX, last = 0, prev = 0;
        bool contiguous = true;
        for (int i = 0; i < s_sink.n; i++) {
            const sent_t *g = &s_sink.v[i];
            if (g->step != step)
                continue;
            CHECK (g->intact && g->run == 4);
            if (n && g->seq != prev + 1)
                contiguous = false;
            first = n ? first : g->seq;
            prev = last = g->seq;
            n++;
        }
        CHECK_MSG (contiguous && last == per_step - 1 && first + n == per_step,
                   "step %u: %u resent, %u..%u", step, n, first, last);
        uint32_t d = spool_dropped (sp, 4, step);
        CHECK_MSG (d == per_step - n, "step %u: %u dropped, %u resent of %u", step, d, n,
                   per_step);
        dropped_sum += d;
        json_t *o = step_of (steps, 4, step);
        CHECK (o && json_integer_value (json_object_get (o, "dropped")) == d);
        CHECK (o && json_integer_value (json_object_get (o, "unacked")) == n);
        CHECK (o && json_integer_value (json_object_get (o, "first_seq")) == first);
    }
    json_decref (steps);
    CHECK (dropped_sum == st.dropped);
    CHECK (spool_dropped (sp, 4, 4) == 0 && spool_dropped (sp, 5, 1) == 0);
    check_disk ("bound", sp, dir);
    spool_destroy (&sp);

    //  Acknowledged records in the segments that go are not drops.
    const char *dir2 = P ("bound-acked");
    sp = open_spool (dir2, max, false);
    capture_begin ();
    for (uint32_t q = 0; q < 150; q++) {
        CHECK (put (sp, 4, 1, q, len) == 0);
        CHECK (put (sp, 4, 2, q, len) == 0);
        spool_ack (sp, 4, 1, q);
    }
    capture_end (log, sizeof log);
    st = stats (sp);
    CHECK (st.dropped > 0);
    CHECK (spool_dropped (sp, 4, 1) == 0);
    CHECK (spool_dropped (sp, 4, 2) == st.dropped);
    int n = resend_all (sp);
    CHECK_MSG ((uint64_t) n == 150 - st.dropped && n > 0, "%d resent, %llu dropped", n,
               (unsigned long long) st.dropped);
    if (n > 0)
        check_sent_range ("bound, step 1 acknowledged", 4, 2, 150 - (uint32_t) n, 149);
    CHECK (scan (dir2).bytes <= max);
    check_disk ("bound, acked", sp, dir2);
    spool_destroy (&sp);

    //  A max below SPOOL_MAX_MIN is SPOOL_MAX_MIN.
    const char *dir3 = P ("bound-small");
    sp = open_spool (dir3, 1000, false);
    for (uint32_t q = 0; q < 40; q++)
        CHECK (put (sp, 4, 1, q, len) == 0);
    CHECK_MSG (stats (sp).dropped == 0 && resend_all (sp) == 40, "dropped %llu",
               (unsigned long long) stats (sp).dropped);
    spool_destroy (&sp);
}

//  keep_only: the other steps are let go (not dropped).
static void
test_keep_only (void)
{
    spool_t *sp = open_spool (P ("keep"), MIB, false);
    for (uint32_t q = 0; q < 5; q++) {
        CHECK (put (sp, 1, 1, q, 50) == 0);
        CHECK (put (sp, 1, 2, q, 50) == 0);
        CHECK (put (sp, 2, 1, q, 50) == 0);
    }
    CHECK (put (sp, 1, 1, SPOOL_SEQ_DONE, 50) == 0);
    spool_ack (sp, 1, 2, 1);
    CHECK (stats (sp).unacked == 14);
    uint64_t gone = spool_keep_only (sp, 2, 1);
    CHECK_MSG (gone == 6 + 3, "%llu let go", (unsigned long long) gone);
    CHECK (stats (sp).unacked == 5 && stats (sp).dropped == 0);
    CHECK (resend_all (sp) == 5);
    check_sent_range ("keep_only (2, 1)", 2, 1, 0, 4);
    CHECK (spool_dropped (sp, 1, 1) == 0 && spool_dropped (sp, 1, 2) == 0);
    CHECK (spool_keep_only (sp, 2, 1) == 0);
    CHECK (resend_all (sp) == 5);
    CHECK (spool_keep_only (sp, 0, 0) == 5);
    CHECK (stats (sp).unacked == 0 && resend_all (sp) == 0);
    spool_destroy (&sp);
}

//  The lock; readonly opens change nothing.
static void
test_lock_readonly (void)
{
    const char *dir = P ("lock");
    char err[1024];
    spool_t *a = open_spool (dir, MIB, false);
    for (uint32_t q = 0; q < 6; q++)
        CHECK (put (a, 2, 7, q, 80) == 0);
    snap_t before, after;
    snapshot (dir, &before);

    err[0] = '\0';
    spool_t *b = spool_new (dir, MIB, false, err, sizeof err);
    CHECK (b == NULL);
    CHECK_ERR (err, "in use");
    CHECK_ERR (err, dir);
    spool_destroy (&b);
    snapshot (dir, &after);
    CHECK_MSG (snap_equal (&before, &after), "a refused open changed the directory");

    //  The holder goes on.
    CHECK (put (a, 2, 7, 6, 80) == 0);
    CHECK (resend_all (a) == 7);
    check_sent_range ("the holder", 2, 7, 0, 6);

    //  Readonly while held: sees what is on disk.
    spool_t *r = open_spool (dir, MIB, true);
    spool_stats_t st = stats (r);
    CHECK (st.recovered == 7 && st.unacked == 7 && st.bytes == 7 * REC (80));
    CHECK (resend_all (r) == 7);
    check_sent_range ("readonly", 2, 7, 0, 6);
    json_t *j = spool_steps_json (r);
    CHECK (j && json_array_size (j) == 1);
    json_decref (j);
    spool_ack (r, 2, 7, UINT32_MAX);        // in memory only
    spool_destroy (&r);
    CHECK (exists (seg_file (dir, 1)) && file_size (seg_file (dir, 1)) == 7 * (long long) REC (80));
    spool_destroy (&a);

    //  Released: the next one gets it.
    b = open_spool (dir, MIB, false);
    CHECK (stats (b).recovered == 7);
    spool_destroy (&b);

    //  Readonly over a torn tail and no lock file: nothing is cut, created
    //  or removed (an empty segment included).
    uint8_t junk[40];
    memset (junk, 0xa5, sizeof junk);
    append_bytes (seg_file (dir, 1), junk, sizeof junk);
    int fd = open (seg_file (dir, 7), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    CHECK (fd >= 0);
    close (fd);
    CHECK (!exists (P ("lock/lock")));              //  released: gone
    snapshot (dir, &before);
    char log[4096];
    r = open_logged (dir, true, log, sizeof log);
    st = stats (r);
    CHECK (st.recovered == 7 && st.torn_bytes == sizeof junk);
    CHECK_MSG (strstr (log, "cut") == NULL, "readonly logs a cut: %s", log);
    CHECK (resend_all (r) == 7);
    check_sent_range ("readonly, torn", 2, 7, 0, 6);
    spool_ack (r, 2, 7, UINT32_MAX);
    CHECK (spool_keep_only (r, 0, 0) == 0);
    spool_destroy (&r);
    snapshot (dir, &after);
    CHECK_MSG (snap_equal (&before, &after), "a readonly open changed the directory");
    CHECK (!exists (P ("lock/lock")));

    //  Readonly of a directory that is not there: an error, nothing made.
    err[0] = '\0';
    r = spool_new (P ("lock-missing"), MIB, true, err, sizeof err);
    CHECK (r == NULL);
    CHECK_ERR (err, P ("lock-missing"));
    CHECK (!exists (P ("lock-missing")));
}

//  Directories that cannot be used.
static void
test_bad_dir (void)
{
    char err[1024];
    int fd = open (P ("plain-file"), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    CHECK (fd >= 0);
    close (fd);

    err[0] = '\0';
    spool_t *sp = spool_new (P ("plain-file/spool"), MIB, false, err, sizeof err);
    CHECK (sp == NULL);
    CHECK_ERR (err, P ("plain-file/spool"));
    CHECK_ERR (err, "cannot create");

    err[0] = '\0';
    sp = spool_new (P ("plain-file"), MIB, false, err, sizeof err);
    CHECK (sp == NULL);
    CHECK_ERR (err, P ("plain-file"));

    err[0] = '\0';
    sp = spool_new (P ("no-parent/spool"), MIB, false, err, sizeof err);
    CHECK (sp == NULL);
    CHECK_ERR (err, P ("no-parent/spool"));
    CHECK (!exists (P ("no-parent")));

    static char longdir[5000];
    memset (longdir, 'x', sizeof longdir - 1);
    memcpy (longdir, "/var/tmp/", 9);
    err[0] = '\0';
    sp = spool_new (longdir, MIB, false, err, sizeof err);
    CHECK (sp == NULL);
    CHECK_ERR (err, "too long");

    //  Not writable (root writes anyway: only as another user).
    if (geteuid () != 0) {
        const char *dir = P ("ro-dir");
        CHECK (mkdir (dir, 0500) == 0);
        err[0] = '\0';
        sp = spool_new (dir, MIB, false, err, sizeof err);
        CHECK (sp == NULL);
        CHECK_ERR (err, dir);
        CHECK_ERR (err, "writable");
        chmod (dir, 0700);
    }

    //  Created, mode 0700.
    sp = open_spool (P ("made"), MIB, false);
    struct stat st;
    CHECK (stat (P ("made"), &st) == 0 && S_ISDIR (st.st_mode) && (st.st_mode & 0777) == 0700);
    spool_destroy (&sp);
}

//  A write that fails keeps the record in memory (RLIMIT_FSIZE: first a
//  short write at the limit, then EFBIG past it).
static void
test_write_failure (void)
{
    const char *dir = P ("wfail");
    const char *f = seg_file (dir, 1);
    spool_t *sp = open_spool (dir, MIB, false);
    for (uint32_t q = 0; q < 3; q++)
        CHECK (put (sp, 1, 1, q, 300) == 0);
    const long long good = 3 * (long long) REC (300);
    CHECK (file_size (f) == good);

    struct rlimit old, lim;
    CHECK (getrlimit (RLIMIT_FSIZE, &old) == 0);
    void (*oldsig) (int) = signal (SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = (rlim_t) good + 16;      // room for 16 bytes of the next
    char log[4096];
    capture_begin ();
    bool limited = setrlimit (RLIMIT_FSIZE, &lim) == 0;
    int rc3 = put (sp, 1, 1, 3, 300);       // short write, cut back
    lim.rlim_cur = (rlim_t) good;
    limited = limited && setrlimit (RLIMIT_FSIZE, &lim) == 0;
    int rc4 = put (sp, 1, 1, 4, 300);       // EFBIG
    CHECK (setrlimit (RLIMIT_FSIZE, &old) == 0);
    capture_end (log, sizeof log);
    signal (SIGXFSZ, oldsig);
    CHECK (limited);
    CHECK (rc3 == 0 && rc4 == 0);
    CHECK_ERR (log, "cannot write");
    CHECK_ERR (log, "memory");

    spool_stats_t st = stats (sp);
    CHECK_MSG (st.write_errors == 2, "write_errors %llu", (unsigned long long) st.write_errors);
    CHECK (st.records == 5 && st.unacked == 5);
    CHECK_MSG (file_size (f) == good, "the short write left %lld bytes, not %lld",
               file_size (f), good);
    check_disk ("write failures", sp, dir);

    //  Writable again: on disk after the good ones.
    CHECK (put (sp, 1, 1, 5, 300) == 0);
    CHECK (put (sp, 1, 1, 6, 300) == 0);
    CHECK (stats (sp).write_errors == 2);
    CHECK (file_size (f) == good + 2 * (long long) REC (300));
    CHECK (resend_all (sp) == 7);
    check_sent_range ("disk, memory, disk", 1, 1, 0, 6);

    //  Acknowledged, the one in memory goes; the other is still sent.
    spool_ack (sp, 1, 1, 3);
    st = stats (sp);
    CHECK (st.unacked == 3 && st.records == 6);
    CHECK (resend_all (sp) == 3);
    check_sent_range ("after ack", 1, 1, 4, 6);
    json_t *j = spool_steps_json (sp);
    json_t *o = json_array_get (j, 0);
    CHECK (o && json_integer_value (json_object_get (o, "records")) == 6);
    CHECK (o && json_integer_value (json_object_get (o, "unacked")) == 3);
    json_decref (j);
    spool_destroy (&sp);

    //  What was in memory does not outlive the spool.
    sp = open_spool (dir, MIB, false);
    CHECK (stats (sp).recovered == 5);
    CHECK (resend_all (sp) == 5);
    {
        want_t want[] = { { 1, 1, 0 }, { 1, 1, 1 }, { 1, 1, 2 }, { 1, 1, 5 }, { 1, 1, 6 } };
        check_sent ("recovered from disk only", want, 5);
    }
    spool_destroy (&sp);
}

static void
test_steps_json (void)
{
    spool_t *sp = open_spool (P ("json"), MIB, false);
    json_t *j = spool_steps_json (sp);
    CHECK (j && json_is_array (j) && json_array_size (j) == 0);
    json_decref (j);

    uint64_t bytes31 = 0, bytes32 = 0;
    for (uint32_t q = 0; q < 5; q++) {
        CHECK (put (sp, 3, 1, q, 30 + q) == 0);
        bytes31 += REC (30 + q);
    }
    for (uint32_t q = 10; q < 13; q++) {
        CHECK (put (sp, 3, 2, q, 40) == 0);
        bytes32 += REC (40);
    }
    CHECK (put (sp, 3, 2, SPOOL_SEQ_DONE, 25) == 0);
    bytes32 += REC (25);
    CHECK (put (sp, 4000000000ull, 1, 7, 20) == 0);
    spool_ack (sp, 3, 1, 1);

    j = spool_steps_json (sp);
    CHECK (j && json_array_size (j) == 3);
    json_t *a = json_array_get (j, 0), *b = json_array_get (j, 1), *c = json_array_get (j, 2);
    CHECK (a && step_of (j, 3, 1) == a);
    CHECK (b && step_of (j, 3, 2) == b);
    CHECK (c && step_of (j, 4000000000ull, 1) == c);
    CHECK (jint (a, "records") == 5 && jint (a, "unacked") == 3);
    CHECK (jint (a, "first_seq") == 0 && jint (a, "last_seq") == 4);
    CHECK (json_is_false (json_object_get (a, "done")) && jint (a, "dropped") == 0);
    CHECK (jint (a, "bytes") == (long long) bytes31);
    CHECK (jint (b, "records") == 4 && jint (b, "unacked") == 4);
    CHECK (jint (b, "first_seq") == 10 && jint (b, "last_seq") == 12);
    CHECK (json_is_true (json_object_get (b, "done")) && jint (b, "dropped") == 0);
    CHECK (jint (b, "bytes") == (long long) bytes32);
    CHECK (jint (c, "records") == 1 && jint (c, "unacked") == 1);
    CHECK (jint (c, "first_seq") == 7 && jint (c, "last_seq") == 7);
    CHECK (json_is_false (json_object_get (c, "done")));
    json_decref (j);

    //  The DONE acknowledged: still held (in the segment being written),
    //  not unacked; then the rest of step (3, 2) too.
    spool_ack (sp, 3, 2, UINT32_MAX);
    j = spool_steps_json (sp);
    b = step_of (j, 3, 2);
    CHECK (b && jint (b, "unacked") == 0 && jint (b, "records") == 4);
    json_decref (j);
    spool_destroy (&sp);
}

//  ---------------------------------------------------------------------
//  A spool in memory (no directory: simulated agents): the same promises
//  but the disk's, its counters of acknowledgements and resends, its bound

static void
test_memory (void)
{
    char err[256];
    spool_t *sp = spool_new (NULL, SPOOL_MAX_MIN, false, err, sizeof err);
    CHECK_MSG (sp != NULL, "memory spool: %s", err);
    if (!sp)
        return;
    for (uint32_t seq = 0; seq < 4; seq++)
        CHECK (put (sp, 7, 1, seq, 1000) == 0);
    CHECK (put (sp, 7, 1, SPOOL_SEQ_DONE, PAYLOAD_MIN) == 0);
    uint64_t run = 0;
    uint32_t step = 0;
    CHECK (spool_last_done (sp, &run, &step) && run == 7 && step == 1);
    /* Just put: nothing is due yet; all of it after spool_unsend, intact. */
    CHECK (resend (sp, clock_mono_ns (), 60 * NS_PER_SEC) == 0);
    spool_unsend (sp);
    CHECK (resend (sp, clock_mono_ns (), 60 * NS_PER_SEC) == 5);
    for (int i = 0; i < s_sink.n; i++)
        CHECK (s_sink.v[i].intact);
    spool_stats_t st = stats (sp);
    CHECK (st.records == 5 && st.unacked == 5 && st.bytes == 0 && st.segments == 0
           && st.write_errors == 0 && st.resent == 0);
    /* Sent again after its first send since spool_unsend: a resend. */
    CHECK (resend_all (sp) == 5);
    CHECK (stats (sp).resent == 5);
    spool_ack (sp, 7, 1, 1);
    uint32_t three = 3;
    spool_ack_seqs (sp, 7, 1, &three, 1);
    st = stats (sp);
    CHECK (st.acked == 3 && st.unacked == 2 && st.records == 2);
    CHECK (resend_all (sp) == 2);
    /* Let go (the controller moved on) is not acknowledged. */
    CHECK (spool_keep_only (sp, 0, 0) == 2);
    st = stats (sp);
    CHECK (st.acked == 3 && st.unacked == 0 && st.records == 0);
    CHECK (!spool_last_done (sp, &run, &step));
    /* Bounded by max_bytes: the oldest go first, counted as dropped. */
    int n = (int) (SPOOL_MAX_MIN / 4096) + 8;
    for (int seq = 0; seq < n; seq++)
        CHECK (put (sp, 8, 0, (uint32_t) seq, 4096) == 0);
    st = stats (sp);
    CHECK_MSG (st.dropped > 0 && st.unacked + st.dropped == (uint64_t) n
               && st.unacked * 4096 <= SPOOL_MAX_MIN,
               "unacked %llu dropped %llu of %d", (unsigned long long) st.unacked,
               (unsigned long long) st.dropped, n);
    CHECK (spool_dropped (sp, 8, 0) == st.dropped);
    spool_destroy (&sp);
    CHECK (sp == NULL);
}

static int
run_tests (void)
{
    int fds0 = count_fds ();
    test_put_resend ();
    test_ack ();
    test_after_ns ();
    test_reclaim ();
    test_recovery ();
    test_recovery_crash ();
    test_torn ();
    test_zero_length ();
    test_bound ();
    test_keep_only ();
    test_lock_readonly ();
    test_bad_dir ();
    test_write_failure ();
    test_steps_json ();
    test_memory ();
    CHECK_MSG (count_fds () == fds0, "fds: %d at start, %d at end", fds0, count_fds ());
    return TEST_DONE ();
}

int
main (int argc, char **argv)
{
    (void) argc;
    (void) argv;
    log_init ("test_spool", LL_WARN);
    char tmpl[] = "/var/tmp/test_spool.XXXXXX";
    if (!mkdtemp (tmpl)) {
        perror ("mkdtemp");
        return 1;
    }
    if (!realpath (tmpl, s_tmp)) {
        perror ("realpath");
        rmdir (tmpl);
        return 1;
    }
    //  The checks run in a child; this process removes TMP whatever it
    //  did or how it ended.
    fflush (stderr);
    pid_t pid = fork ();
    if (pid == 0)
        exit (run_tests ());
    int status = 0, rc = 1;
    if (pid < 0)
        perror ("fork");
    else if (waitpid (pid, &status, 0) != pid)
        perror ("waitpid");
    else if (WIFEXITED (status))
        rc = WEXITSTATUS (status);
    else if (WIFSIGNALED (status))
        fprintf (stderr, "test_spool: the tests died of signal %d\n", WTERMSIG (status));
    nftw (s_tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    if (exists (s_tmp)) {
        fprintf (stderr, "test_spool: %s left behind\n", s_tmp);
        rc = 1;
    }
    return rc;
}
