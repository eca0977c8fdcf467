/*  spool_fx.c: the spool tests' shared fixture; see spool_fx.h. */
#define _GNU_SOURCE
#include "spool_fx.h"
#include "log.h"
#include "util.h"
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

//  The program's counts (testutil.h, TEST_SHARED_COUNTS): its test file's
//  CHECKs and these.
int test_failures;
int test_checks;

/* Under -fsanitize=undefined: undefined behaviour fails the test (by
   default it is only printed). */
const char *__ubsan_default_options (void);
const char *
__ubsan_default_options (void)
{
    return "halt_on_error=1:print_stacktrace=1";
}

static char s_tmp[PATH_MAX];            // TMP: realpath of the mkdtemp directory

//  TMP/fmt: a path in a small ring of buffers.
const char *
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
const char *
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

bool
exists (const char *path)
{
    struct stat st;
    return lstat (path, &st) == 0;
}

long long
file_size (const char *path)
{
    struct stat st;
    return stat (path, &st) == 0 ? (long long) st.st_size : -1;
}

int
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

void
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

uint8_t fx_buf[8192];

int
put (spool_t *sp, uint64_t run, uint32_t step, uint32_t seq, uint32_t len)
{
    if (len < PAYLOAD_MIN || len > sizeof fx_buf)
        abort ();
    make_payload (fx_buf, run, step, seq, len);
    return spool_put (sp, run, step, seq, fx_buf, len);
}

//  ---------------------------------------------------------------------
//  A send callback that records what it got

sink_t fx_sink;

void
sink_reset (int fail_at)
{
    fx_sink.n = 0;
    fx_sink.calls = 0;
    fx_sink.fail_at = fail_at;
    fx_sink.failed_seq = 0;
}

int
sink_send (void *arg, const uint8_t *buf, size_t len)
{
    sink_t *s = arg;
    sent_t e = { .len = (uint32_t) len };
    if (len >= PAYLOAD_MIN) {
        e.run = le_get (buf, 8);
        e.step = (uint32_t) le_get (buf + 8, 4);
        e.seq = (uint32_t) le_get (buf + 12, 4);
        if (le_get (buf + 16, 4) == len && len <= sizeof fx_buf) {
            uint8_t want[sizeof fx_buf];
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
int
resend (spool_t *sp, uint64_t now, uint64_t after_ns)
{
    sink_reset (-1);
    int n = spool_resend (sp, now, after_ns, sink_send, &fx_sink);
    CHECK_MSG (n == fx_sink.n, "resend says %d, the callback got %d", n, fx_sink.n);
    return n;
}

int
resend_all (spool_t *sp)
{
    return resend (sp, clock_mono_ns (), 0);
}

//  The sink got exactly want[0..n), in that order, every byte intact.
void
check_sent (const char *what, const want_t *want, int n)
{
    CHECK_MSG (fx_sink.n == n, "%s: %d sent, %d expected", what, fx_sink.n, n);
    int bad = 0;
    for (int i = 0; i < n && i < fx_sink.n; i++) {
        const sent_t *g = &fx_sink.v[i];
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
void
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

dirinfo_t
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
void
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

//  Appends to a file.
void
append_bytes (const char *path, const uint8_t *buf, size_t n)
{
    int fd = open (path, O_WRONLY | O_APPEND | O_CLOEXEC);
    CHECK (fd >= 0 && write (fd, buf, n) == (ssize_t) n);
    if (fd >= 0)
        close (fd);
}

//  ---------------------------------------------------------------------
//  The log (stderr), captured around a call

static int s_saved_stderr = -1;
static int s_capture_fd = -1;

void
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
void
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

spool_t *
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

//  Opens dir, logging into log; returns the spool.
spool_t *
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

spool_stats_t
stats (spool_t *sp)
{
    spool_stats_t st;
    spool_stats (sp, &st);
    return st;
}

int
spool_fx_main (const char *name, int (*run_tests) (void))
{
    log_init (name, LL_WARN);
    char tmpl[PATH_MAX];
    snprintf (tmpl, sizeof tmpl, "/var/tmp/%s.XXXXXX", name);
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
        fprintf (stderr, "%s: the tests died of signal %d\n", name, WTERMSIG (status));
    nftw (s_tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    if (exists (s_tmp)) {
        fprintf (stderr, "%s: %s left behind\n", name, s_tmp);
        rc = 1;
    }
    return rc;
}
