/*  test_spool.c: unit tests for agent/spool.c, the agent's on-disk store of
    messages the controller has not acknowledged: how it is used.

    Covered: put and resend order and bytes; a failing send; acks (per
    step, upto, the DONE seq); resend's after_ns and spool_unsend; segments
    reclaimed once acknowledged; zero-length records; the max_bytes bound
    and the drops it counts per step; spool_keep_only; and
    spool_steps_json.  What it reads back after a restart or a crash is in
    test_spool_recovery.c, the lock, readonly opens and directories or
    writes that fail in test_spool_access.c.

    Works with real files in a fresh directory under /var/tmp, one spool
    directory per test (TMP/basic, TMP/ack, ...).  The checks run in a
    child process; the parent only waits for it and removes TMP, so the
    directory goes whatever happened to the child (a failed check, an
    abort, a sanitizer report, a crash): spool_fx.c, with the helpers the
    three programs share.

    Every payload is self-describing: 20 bytes of (run, step, seq, len),
    then bytes drawn from splitmix64 seeded by those four, so the send
    callback can tell which record it got and whether every byte of it is
    the one that was put.
*/
#define _GNU_SOURCE
#include "spool_fx.h"
#include "util.h"
#include "testutil.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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
    int sent = spool_resend (sp, clock_mono_ns (), 0, sink_send, &fx_sink);
    CHECK_MSG (sent == 5, "%d sent", sent);
    CHECK (fx_sink.calls == 6);
    CHECK (fx_sink.failed_seq == want[5].seq);
    check_sent ("resend with a failing send", want, 5);
    //  Failing at once: nothing sent.
    sink_reset (0);
    CHECK (spool_resend (sp, clock_mono_ns (), 0, sink_send, &fx_sink) == 0);
    CHECK (fx_sink.calls == 1);
    //  Nothing lost by failing sends.
    CHECK (stats (sp).unacked == 40);
    CHECK (resend_all (sp) == 40);

    //  Oversized: refused, nothing changes.
    CHECK (spool_put (sp, 7, 1, 99, fx_buf, (size_t) SPOOL_RECORD_MAX + 1) == -EMSGSIZE);
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
    CHECK (spool_resend (sp, base + 150 * S, after, sink_send, &fx_sink) == 2);
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
    CHECK (fx_sink.v[0].len == 0 && fx_sink.v[1].len == 0);
    CHECK (fx_sink.v[2].seq == 2 && fx_sink.v[2].intact);
    spool_destroy (&sp);

    sp = open_spool (dir, MIB, false);
    spool_stats_t st = stats (sp);
    CHECK_MSG (st.recovered == 3 && st.torn_bytes == 0, "recovered %llu, torn %llu",
               (unsigned long long) st.recovered, (unsigned long long) st.torn_bytes);
    CHECK (resend_all (sp) == 3);
    CHECK (fx_sink.n == 3 && fx_sink.v[0].len == 0 && fx_sink.v[1].len == 0);
    CHECK (fx_sink.n == 3 && fx_sink.v[2].seq == 2 && fx_sink.v[2].intact);
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
        for (int i = 0; i < fx_sink.n; i++) {
            const sent_t *g = &fx_sink.v[i];
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
    for (int i = 0; i < fx_sink.n; i++)
        CHECK (fx_sink.v[i].intact);
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
    test_zero_length ();
    test_bound ();
    test_keep_only ();
    test_steps_json ();
    test_memory ();
    CHECK_MSG (count_fds () == fds0, "fds: %d at start, %d at end", fds0, count_fds ());
    return TEST_DONE ();
}

int
main (void)
{
    return spool_fx_main ("test_spool", run_tests);
}
