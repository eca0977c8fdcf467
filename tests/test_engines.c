/*  test_engines.c: unit tests for agent/engines/ (the registry, libaio,
    io_uring, psync, pvsync, pvsync2, sync, vsync and null).

    The real engines work on a 1 MiB file opened with O_DIRECT in a fresh
    directory under /var/tmp (O_DIRECT needs a real file system, not
    tmpfs).  The file and the directory are removed as soon as the file is
    open, so nothing is left behind whatever the checks say, even on a
    crash.  Where io_uring is disabled (io_uring_setup fails with EPERM or
    ENOSYS, as under some seccomp profiles), its cases are skipped with a
    note.
*/
#define _GNU_SOURCE
#include "engine.h"
#include "jobfile.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BS          4096u
#define NBLOCKS     256u
#define FILE_SIZE   ((uint64_t) NBLOCKS * BS)
#define DEPTH       8u
#define WAIT_NS     (10ull * 1000000000ull)     /* "never" for one I/O */
#define NULL_IOS    1000000u
#define DEEP        40000u                      /* > the 32768 SQEs io_uring allows */

/* Reports at most this many bad units per run, then only counts them. */
#define SHOW_MAX    5

static uint64_t
now_ns (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/* The contents of block b: distinct for every block and every word. */
static uint64_t
pattern (unsigned b, unsigned word)
{
    unsigned long long s = ((unsigned long long) b << 32) | word;
    return test_splitmix64 (&s);
}

static void
fill (void *buf, unsigned b)
{
    uint64_t *p = buf;
    for (unsigned w = 0; w < BS / 8; w++)
        p[w] = pattern (b, w);
}

static bool
matches (const void *buf, unsigned b)
{
    const uint64_t *p = buf;
    for (unsigned w = 0; w < BS / 8; w++)
        if (p[w] != pattern (b, w))
            return false;
    return true;
}

static void *
aligned_buf (size_t len)
{
    void *p = NULL;
    if (posix_memalign (&p, 4096, len))
        return NULL;
    memset (p, 0, len);
    return p;
}

/* A fresh FILE_SIZE file, already unlinked, and its directory removed.
   Returns the descriptor, or -1 after saying why. */
static int
open_scratch (bool direct)
{
    char dir[] = "/var/tmp/iofleet-test-engines-XXXXXX";
    if (!mkdtemp (dir)) {
        fprintf (stderr, "mkdtemp %s: %s\n", dir, strerror (errno));
        return -1;
    }
    char path[sizeof dir + 8];
    snprintf (path, sizeof path, "%s/file", dir);
    int fd = open (path, O_RDWR | O_CREAT | O_EXCL | (direct ? O_DIRECT : 0), 0600);
    int err = errno;
    if (fd >= 0)
        unlink (path);
    rmdir (dir);
    if (fd < 0) {
        fprintf (stderr, "open %s: %s\n", path, strerror (err));
        return -1;
    }
    if (ftruncate (fd, (off_t) FILE_SIZE) != 0) {
        fprintf (stderr, "ftruncate %s: %s\n", path, strerror (errno));
        close (fd);
        return -1;
    }
    return fd;
}

static void
prep (io_unit_t *u, int fd, io_dir_t dir, unsigned block, uint32_t len, uint64_t offset)
{
    u->fd = fd;
    u->dir = dir;
    u->target = block;          /* the test's own tag: which block */
    u->len = len;
    u->offset = offset;
    u->res = INT64_MIN;         /* the engine must overwrite it */
}

/* The units of one run, with their buffers; engine_data freed as the
   worker does.  Buffers of units possibly still in flight are leaked
   rather than freed under the kernel's feet. */
typedef struct {
    io_unit_t u[DEPTH];
    bool busy[DEPTH];
} units_t;

static bool
units_new (units_t *s)
{
    memset (s, 0, sizeof *s);
    for (unsigned i = 0; i < DEPTH; i++)
        if (!(s->u[i].buf = aligned_buf (BS)))
            return false;
    return true;
}

static void
units_free (units_t *s, bool inflight)
{
    for (unsigned i = 0; i < DEPTH; i++) {
        if (!inflight)
            free (s->u[i].buf);
        free (s->u[i].engine_data);
        s->u[i].buf = NULL;
        s->u[i].engine_data = NULL;
    }
}

/* Does an I/O on each block of order[0..n) at depth DEPTH, as a worker
   does: queue what it can, commit, reap at least one.  Writes fill the
   block's pattern; reads check it.  Returns false if the run could not
   finish (I/O may then still be in flight). */
static bool
run_blocks (const engine_ops_t *ops, engine_t *e, units_t *s, int fd, io_dir_t dir,
            const unsigned *order, unsigned n)
{
    const char *what = dir == IO_READ ? "read" : "write";
    unsigned next = 0, inflight = 0, completed = 0, bad_res = 0, bad_data = 0, stray = 0;
    bool ok = true;
    while (ok && (next < n || inflight > 0)) {
        unsigned queued = 0;
        for (unsigned i = 0; i < DEPTH && next < n; i++) {
            if (s->busy[i])
                continue;
            io_unit_t *u = &s->u[i];
            prep (u, fd, dir, order[next], BS, (uint64_t) order[next] * BS);
            if (dir == IO_WRITE)
                fill (u->buf, order[next]);
            else
                memset (u->buf, 0xee, BS);
            int rc = ops->queue (e, u);
            if (rc != 0) {
                fprintf (stderr, "%s: queue %s of block %u: %s\n", ops->name, what, order[next],
                         strerror (-rc));
                ok = false;
                break;
            }
            s->busy[i] = true;
            queued++;
            next++;
        }
        if (queued) {
            int rc = ops->commit (e);
            if (rc != (int) queued) {
                fprintf (stderr, "%s: commit of %u %ss returned %d\n", ops->name, queued, what, rc);
                ok = false;
            }
            if (rc < 0)
                break;
            inflight += queued;
        }
        if (inflight == 0)
            break;
        int got = ops->getevents (e, 1, DEPTH, WAIT_NS);
        if (got < 1 || (unsigned) got > inflight) {
            fprintf (stderr, "%s: getevents (1, %u) with %u %ss in flight returned %d\n",
                     ops->name, DEPTH, inflight, what, got);
            ok = false;
            break;
        }
        for (int k = 0; k < got; k++) {
            io_unit_t *u = ops->event (e, (unsigned) k);
            long idx = u >= s->u && u < s->u + DEPTH ? u - s->u : -1;
            if (idx < 0 || !s->busy[idx]) {
                if (stray++ < SHOW_MAX)
                    fprintf (stderr, "%s: event %d is not a unit in flight\n", ops->name, k);
                continue;
            }
            s->busy[idx] = false;
            inflight--;
            completed++;
            if (u->res != (int64_t) BS) {
                if (bad_res++ < SHOW_MAX)
                    fprintf (stderr, "%s: %s of block %u: res %lld, expected %u\n", ops->name,
                             what, u->target, (long long) u->res, BS);
            } else if (dir == IO_READ && !matches (u->buf, u->target)) {
                if (bad_data++ < SHOW_MAX)
                    fprintf (stderr, "%s: block %u read back wrong\n", ops->name, u->target);
            }
        }
    }
    CHECK_MSG (ok && completed == n, "%s: %u of %u %ss completed", ops->name, completed, n,
               what);
    CHECK_MSG (bad_res == 0, "%s: %u %ss with res != %u", ops->name, bad_res, what, BS);
    CHECK_MSG (bad_data == 0, "%s: %u blocks read back wrong", ops->name, bad_data);
    CHECK_MSG (stray == 0, "%s: %u events that were not in flight", ops->name, stray);
    return completed == n && inflight == 0;
}

/* One I/O on its own: queue, commit, reap it.  Returns its res, or
   INT64_MIN if the engine did not hand it back (then *lost is set). */
static int64_t
one_io (const engine_ops_t *ops, engine_t *e, io_unit_t *u, bool *lost)
{
    int rc = ops->queue (e, u);
    CHECK_MSG (rc == 0, "%s: queue: %s", ops->name, strerror (-rc));
    if (rc != 0)
        return INT64_MIN;
    rc = ops->commit (e);
    CHECK_MSG (rc == 1, "%s: commit of one I/O returned %d", ops->name, rc);
    if (rc < 0)
        return INT64_MIN;
    int got = ops->getevents (e, 1, DEPTH, WAIT_NS);
    CHECK_MSG (got == 1, "%s: getevents for one I/O returned %d", ops->name, got);
    if (got != 1) {
        *lost = true;
        return INT64_MIN;
    }
    io_unit_t *back = ops->event (e, 0);
    CHECK_MSG (back == u, "%s: event 0 is not the unit submitted", ops->name);
    return back->res;
}

static void
test_registry (void)
{
    static const char *const names[] = { "libaio", "io_uring", "psync", "pvsync", "pvsync2",
                                         "sync", "vsync", "posixaio", "null" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        CHECK_MSG (job_engine_known (names[i]), "the parser does not take '%s'", names[i]);
        const engine_ops_t *ops = engine_find (names[i]);
        CHECK_MSG (ops && strcmp (ops->name, names[i]) == 0, "engine_find (\"%s\")", names[i]);
        CHECK_MSG (ops && ops->init && ops->queue && ops->commit && ops->getevents
                   && ops->event && ops->cleanup, "%s: an op is missing", names[i]);
    }
    CHECK (engine_find ("windowsaio") == NULL);
    CHECK (engine_find ("") == NULL);
    CHECK (engine_find ("IO_URING") == NULL);
    CHECK (strcmp (engine_names (), JOB_ENGINES) == 0);
    /* fio's FIO_SYNCIO engines run one I/O at a time; vsync queues. */
    CHECK (engine_find ("psync")->one_at_a_time && engine_find ("sync")->one_at_a_time
           && engine_find ("pvsync2")->one_at_a_time && !engine_find ("vsync")->one_at_a_time
           && !engine_find ("libaio")->one_at_a_time);
    /* io_uring can be off on a host (a sysctl, seccomp): it says so and what
       to use instead; the others have nothing to add to their errno. */
    CHECK_STR_CONTAINS (engine_find ("io_uring")->unavailable_hint, "kernel.io_uring_disabled");
    CHECK (!engine_find ("libaio")->unavailable_hint && !engine_find ("psync")->unavailable_hint);
}

/* The contract every engine that does real I/O keeps, on a fresh file. */
static void
test_file_engine (const char *name)
{
    const engine_ops_t *ops = engine_find (name);
    if (!ops) {
        CHECK_MSG (ops != NULL, "no engine '%s'", name);
        return;
    }
    engine_t e = { .ops = ops };
    int rc = ops->init (&e, DEPTH);
    if (strcmp (name, "io_uring") == 0 && (rc == -EPERM || rc == -ENOSYS)) {
        fprintf (stderr, "%s: NOTE: io_uring is not available here (%s): its cases are skipped\n",
                 __FILE__, strerror (-rc));
        return;
    }
    CHECK_MSG (rc == 0, "%s: init (%u): %s", name, DEPTH, strerror (-rc));
    if (rc != 0)
        return;

    int fd = open_scratch (true);
    CHECK_MSG (fd >= 0, "%s: no scratch file", name);
    units_t s;
    bool units_ok = units_new (&s);
    CHECK_MSG (units_ok, "out of memory");
    bool inflight = false;      /* something may be left in flight */
    if (fd < 0 || !units_ok)
        goto done;

    /* Every block written in order, then read back in a random order. */
    unsigned order[NBLOCKS];
    for (unsigned b = 0; b < NBLOCKS; b++)
        order[b] = b;
    if (!run_blocks (ops, &e, &s, fd, IO_WRITE, order, NBLOCKS)) {
        inflight = true;
        goto done;
    }
    unsigned long long seed = 0x10f1ee7ull + (unsigned long long) strlen (name);
    for (unsigned b = NBLOCKS - 1; b > 0; b--) {
        unsigned j = (unsigned) (test_splitmix64 (&seed) % (b + 1));
        unsigned t = order[b];
        order[b] = order[j];
        order[j] = t;
    }
    if (!run_blocks (ops, &e, &s, fd, IO_READ, order, NBLOCKS)) {
        inflight = true;
        goto done;
    }

    /* Depth units queue, one more does not; completions reaped three at a
       time come back once each. */
    for (unsigned i = 0; i < DEPTH; i++) {
        prep (&s.u[i], fd, IO_READ, 17 * i, BS, (uint64_t) (17 * i) * BS);
        memset (s.u[i].buf, 0xee, BS);
        rc = ops->queue (&e, &s.u[i]);
        CHECK_MSG (rc == 0, "%s: queue unit %u of %u: %s", name, i, DEPTH, strerror (-rc));
    }
    io_unit_t extra = { .buf = s.u[0].buf };
    prep (&extra, fd, IO_READ, 0, BS, 0);
    rc = ops->queue (&e, &extra);
    CHECK_MSG (rc == -EBUSY, "%s: queue beyond depth returned %d, not -EBUSY", name, rc);
    if (rc == 0) {
        inflight = true;        /* extra would dangle */
        goto done;
    }
    rc = ops->commit (&e);
    CHECK_MSG (rc == (int) DEPTH, "%s: commit of %u returned %d", name, DEPTH, rc);
    inflight = true;
    bool seen[DEPTH] = { false };
    unsigned nseen = 0, bad = 0;
    while (rc > 0 && nseen < DEPTH) {
        int got = ops->getevents (&e, 1, 3, WAIT_NS);
        CHECK_MSG (got >= 1 && got <= 3, "%s: getevents (1, 3) returned %d", name, got);
        if (got < 1 || got > 3)
            break;
        for (int k = 0; k < got; k++) {
            io_unit_t *u = ops->event (&e, (unsigned) k);
            long idx = u >= s.u && u < s.u + DEPTH ? u - s.u : -1;
            if (idx < 0 || seen[idx]) {
                bad++;
                continue;
            }
            seen[idx] = true;
            nseen++;
            if (u->res != (int64_t) BS || !matches (u->buf, u->target))
                bad++;
        }
    }
    CHECK_MSG (nseen == DEPTH && bad == 0, "%s: reaping 3 at a time: %u of %u back, %u bad",
               name, nseen, DEPTH, bad);
    if (nseen != DEPTH)
        goto done;
    inflight = false;

    /* Reads at and past the end of the file transfer nothing. */
    bool lost = false;
    io_unit_t *u = &s.u[0];
    prep (u, fd, IO_READ, 0, BS, FILE_SIZE);
    int64_t res = one_io (ops, &e, u, &lost);
    CHECK_MSG (res == 0, "%s: read at EOF: res %lld, expected 0", name, (long long) res);
    prep (u, fd, IO_READ, 0, BS, 2 * FILE_SIZE);
    res = one_io (ops, &e, u, &lost);
    CHECK_MSG (res == 0, "%s: read past EOF: res %lld, expected 0", name, (long long) res);

    /* A length O_DIRECT cannot do fails in the unit, with -EINVAL. */
    prep (u, fd, IO_READ, 0, 1000, 0);
    res = one_io (ops, &e, u, &lost);
    CHECK_MSG (res == -EINVAL, "%s: O_DIRECT read of 1000 bytes: res %lld, expected %d",
               name, (long long) res, -EINVAL);
    if (lost) {
        inflight = true;
        goto done;
    }

    /* Nothing in flight: a 1 ms wait ends with nothing, and soon. */
    uint64_t t0 = now_ns ();
    rc = ops->getevents (&e, 1, DEPTH, 1000000);
    uint64_t took = now_ns () - t0;
    CHECK_MSG (rc == 0, "%s: getevents with nothing in flight returned %d", name, rc);
    CHECK_MSG (took < 200000000ull, "%s: a 1 ms getevents took %llu ms", name,
               (unsigned long long) (took / 1000000));

    /* Cleanup with I/O in flight: must not hang, and must wait for it,
       since the buffers are freed right after. */
    for (unsigned i = 0; i < DEPTH; i++) {
        prep (&s.u[i], fd, IO_READ, i, BS, (uint64_t) i * BS);
        rc = ops->queue (&e, &s.u[i]);
        CHECK_MSG (rc == 0, "%s: queue before cleanup: %s", name, strerror (-rc));
    }
    rc = ops->commit (&e);
    CHECK_MSG (rc == (int) DEPTH, "%s: commit before cleanup returned %d", name, rc);

done:
    ops->cleanup (&e);
    CHECK_MSG (e.data == NULL, "%s: cleanup left its context", name);
    units_free (&s, inflight);
    if (fd >= 0)
        close (fd);
}

/* io_uring deeper than its largest SQ ring: all units get in flight. */
static void
test_io_uring_deep (void)
{
    const engine_ops_t *ops = engine_find ("io_uring");
    if (!ops)
        return;
    engine_t e = { .ops = ops };
    int rc = ops->init (&e, DEEP);
    if (rc == -EPERM || rc == -ENOSYS)
        return;                 /* noted already */
    CHECK_MSG (rc == 0, "io_uring: init (%u): %s", DEEP, strerror (-rc));
    if (rc != 0)
        return;
    /* Buffered, so that the reads come from the page cache, quickly. */
    int fd = open_scratch (false);
    io_unit_t *units = calloc (DEEP + 1, sizeof *units);
    void *buf = aligned_buf (BS);
    CHECK (fd >= 0 && units && buf);
    bool inflight = false;
    if (fd < 0 || !units || !buf)
        goto done;

    unsigned queued = 0;
    for (unsigned i = 0; i < DEEP; i++) {
        units[i].buf = buf;     /* all read into one buffer: only res matters */
        prep (&units[i], fd, IO_READ, i, BS, (uint64_t) (i % NBLOCKS) * BS);
        rc = ops->queue (&e, &units[i]);
        if (rc != 0)
            break;
        queued++;
    }
    CHECK_MSG (queued == DEEP, "io_uring: %u of %u queued at depth %u: %s", queued, DEEP, DEEP,
               strerror (-rc));
    units[DEEP].buf = buf;
    prep (&units[DEEP], fd, IO_READ, DEEP, BS, 0);
    rc = ops->queue (&e, &units[DEEP]);
    CHECK_MSG (rc == -EBUSY, "io_uring: queue beyond depth %u returned %d", DEEP, rc);
    inflight = true;
    rc = ops->commit (&e);
    CHECK_MSG (rc == (int) queued, "io_uring: commit of %u returned %d", queued, rc);
    unsigned reaped = 0, bad = 0;
    while (rc > 0 && reaped < queued) {
        int got = ops->getevents (&e, 1, DEEP, WAIT_NS);
        CHECK_MSG (got >= 1, "io_uring: getevents with %u in flight returned %d",
                   queued - reaped, got);
        if (got < 1)
            break;
        for (int k = 0; k < got; k++) {
            io_unit_t *u = ops->event (&e, (unsigned) k);
            if (u < units || u >= units + DEEP || u->res != (int64_t) BS)
                bad++;
            else
                u->res = INT64_MIN;     /* a second completion would be bad */
        }
        reaped += (unsigned) got;
    }
    CHECK_MSG (reaped == queued && bad == 0, "io_uring: deep: %u of %u reaped, %u bad",
               reaped, queued, bad);
    inflight = reaped != queued;
done:
    ops->cleanup (&e);
    if (!inflight) {
        free (units);
        free (buf);
    }
    if (fd >= 0)
        close (fd);
}

/* null: a million I/Os, batched and one by one, reaped a few at a time,
   all complete once with res == len. */
static void
test_null (void)
{
    const engine_ops_t *ops = engine_find ("null");
    if (!ops)
        return;
    engine_t e = { .ops = ops };
    int rc = ops->init (&e, DEPTH);
    CHECK_MSG (rc == 0, "null: init: %s", strerror (-rc));
    if (rc != 0)
        return;
    io_unit_t units[DEPTH];
    bool busy[DEPTH] = { false };
    memset (units, 0, sizeof units);
    unsigned submitted = 0, completed = 0, bad = 0, round = 0;
    while (completed < NULL_IOS) {
        unsigned queued = 0;
        for (unsigned i = 0; i < DEPTH && submitted < NULL_IOS; i++) {
            if (busy[i])
                continue;
            uint32_t len = 512u * (1 + (submitted % 16));
            prep (&units[i], -1, (submitted & 1) ? IO_WRITE : IO_READ, 0, len,
                  (uint64_t) submitted * 4096);
            if (ops->queue (&e, &units[i]) != 0) {
                bad++;
                break;
            }
            busy[i] = true;
            submitted++;
            queued++;
            /* Every other round, one commit per I/O, as the worker does. */
            if (round & 1) {
                if (ops->commit (&e) != 1)
                    bad++;
                queued = 0;
            }
        }
        if (queued && ops->commit (&e) != (int) queued)
            bad++;
        int got = ops->getevents (&e, 1, 1 + round % DEPTH, 0);
        round++;
        if (got < 1) {
            bad++;
            break;
        }
        for (int k = 0; k < got; k++) {
            io_unit_t *u = ops->event (&e, (unsigned) k);
            long idx = u >= units && u < units + DEPTH ? u - units : -1;
            if (idx < 0 || !busy[idx] || u->res != (int64_t) u->len) {
                bad++;
                continue;
            }
            busy[idx] = false;
            completed++;
        }
        if (bad)
            break;
    }
    CHECK_MSG (completed == NULL_IOS && bad == 0, "null: %u of %u completed, %u bad", completed,
               NULL_IOS, bad);
    rc = ops->getevents (&e, 1, DEPTH, 1000000);
    CHECK_MSG (rc == 0, "null: getevents with nothing in flight returned %d", rc);
    ops->cleanup (&e);
    CHECK (e.data == NULL);
}

int
main (void)
{
    test_registry ();
    test_file_engine ("libaio");
    test_file_engine ("io_uring");
    test_io_uring_deep ();
    test_file_engine ("psync");
    test_file_engine ("pvsync");
    test_file_engine ("pvsync2");
    test_file_engine ("sync");
    test_file_engine ("vsync");
    test_file_engine ("posixaio");
    test_null ();
    return TEST_DONE ();
}
