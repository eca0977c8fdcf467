/*  test_message.c: unit tests for common/message.c.

    Every body kind round trips; every bound message_unpack() enforces is hit
    once just inside (accepted) and once just outside (refused, with the
    field named in err); then truncation and random/mutated buffers, which
    must never crash, leak (ASan) or yield an envelope that breaks a bound.

    Loops over many cases count their failures and CHECK once, naming the
    first bad case, so the check count stays a count of properties.
*/
#include "message.h"
#include "proto_unknown.h"
#include "jobfile.h"
#include "util.h"
#include "histogram.h"
#include "testutil.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STREQ(a, b)     (strcmp ((a), (b)) == 0)

//  CHECK_STR_CONTAINS for a char array (its NULL test would not compile).
#define CHECK_ERR(err, needle) \
    CHECK_MSG (strstr ((err), (needle)) != NULL, "'%s' does not contain '%s'", (err), (needle))

//  splitmix64: fixed seed, so every run tests the same buffers.
static unsigned long long rng_state = 0x6d657373616765ull;

static uint64_t
rng_next (void)
{
    return test_splitmix64 (&rng_state);
}

//  Uniform in [0, n), n > 0.
static size_t
rng_below (size_t n)
{
    return (size_t) (rng_next () % n);
}

//  ---------------------------------------------------------------------
//  Fixture: one of every sub-message, with room for one entry past every
//  count limit.  The fx_KIND() builders reset it and make env a valid
//  message of that kind; a case then breaks exactly one field.

#define NLABELS     3
#define NFILES      3

typedef struct {
    envelope_t env;
    Iofleet__Hello hello;
    Iofleet__Label label[MSG_LABELS_MAX + 1];
    Iofleet__Label *labelp[MSG_LABELS_MAX + 1];
    Iofleet__Welcome welcome;
    Iofleet__Reject reject;
    Iofleet__Ping ping;
    Iofleet__Pong pong;
    Iofleet__Prepare prepare;
    Iofleet__JobSpec job;
    char *files[MSG_TARGETS_MAX + 1];
    Iofleet__Ready ready;
    char *rtargets[MSG_TARGETS_MAX + 1];
    Iofleet__Refused refused;
    Iofleet__Start start;
    Iofleet__Snapshot snap;
    Iofleet__Done done;
    Iofleet__TargetSample ts[MSG_TARGETS_MAX + 1];
    Iofleet__TargetSample *tsp[MSG_TARGETS_MAX + 1];
    Iofleet__DirStats rd[MSG_TARGETS_MAX + 1];
    Iofleet__DirStats wr[MSG_TARGETS_MAX + 1];
    Iofleet__Ack ack;
    Iofleet__Error error;
    Iofleet__Abort abort;
} fx_t;

static fx_t fx;

//  The read and write latency histograms every snapshot sample carries,
//  and their wire encodings (histogram_encode).
static histogram_t hist_r, hist_w;
static uint8_t wire_r[HIST_WIRE_MAX], wire_w[HIST_WIRE_MAX];
static size_t wire_r_len, wire_w_len;
//  HIST_WIRE_MAX + 1 bytes: one byte past the limit.
static uint8_t big_hist[HIST_WIRE_MAX + 1];

static char label_keys[MSG_LABELS_MAX + 1][16];

//  Long strings: a small ring of buffers of n copies of c.
static char *
strn (size_t n, char c)
{
    static char ring[4][MSG_PATH_MAX + 8];
    static int next;
    if (n > MSG_PATH_MAX + 1)
        abort ();
    char *s = ring[next++ % 4];
    memset (s, c, n);
    s[n] = '\0';
    return s;
}

static void
hist_setup (void)
{
    histogram_reset (&hist_r);
    histogram_reset (&hist_w);
    for (uint64_t v = 1; v < 5000000; v = v * 3 / 2 + 7)
        histogram_record (&hist_r, v);
    histogram_record (&hist_r, (uint64_t) 1 << 45);     // one overflow
    for (int i = 0; i < 1000; i++)
        histogram_record (&hist_w, 20000 + (uint64_t) (i % 97) * 333);
    int n = histogram_encode (&hist_r, wire_r, sizeof wire_r);
    CHECK_MSG (n > 0, "histogram_encode: %d", n);
    wire_r_len = n > 0 ? (size_t) n : 0;
    n = histogram_encode (&hist_w, wire_w, sizeof wire_w);
    CHECK_MSG (n > 0, "histogram_encode: %d", n);
    wire_w_len = n > 0 ? (size_t) n : 0;
    memset (big_hist, 0x5a, sizeof big_hist);
    for (int i = 0; i <= MSG_LABELS_MAX; i++)
        snprintf (label_keys[i], sizeof label_keys[i], "key%02d", i);
}

static void
fx_reset (void)
{
    memset (&fx, 0, sizeof fx);
    fx.env = (envelope_t) IOFLEET__ENVELOPE__INIT;
    fx.hello = (Iofleet__Hello) IOFLEET__HELLO__INIT;
    for (int i = 0; i <= MSG_LABELS_MAX; i++) {
        fx.label[i] = (Iofleet__Label) IOFLEET__LABEL__INIT;
        fx.label[i].key = label_keys[i];
        fx.label[i].value = "v";
        fx.labelp[i] = &fx.label[i];
    }
    fx.welcome = (Iofleet__Welcome) IOFLEET__WELCOME__INIT;
    fx.reject = (Iofleet__Reject) IOFLEET__REJECT__INIT;
    fx.ping = (Iofleet__Ping) IOFLEET__PING__INIT;
    fx.pong = (Iofleet__Pong) IOFLEET__PONG__INIT;
    fx.prepare = (Iofleet__Prepare) IOFLEET__PREPARE__INIT;
    fx.job = (Iofleet__JobSpec) IOFLEET__JOB_SPEC__INIT;
    for (int i = 0; i <= MSG_TARGETS_MAX; i++)
        fx.files[i] = fx.rtargets[i] = "/var/tmp/f";
    fx.ready = (Iofleet__Ready) IOFLEET__READY__INIT;
    fx.refused = (Iofleet__Refused) IOFLEET__REFUSED__INIT;
    fx.start = (Iofleet__Start) IOFLEET__START__INIT;
    fx.snap = (Iofleet__Snapshot) IOFLEET__SNAPSHOT__INIT;
    fx.done = (Iofleet__Done) IOFLEET__DONE__INIT;
    for (int i = 0; i <= MSG_TARGETS_MAX; i++) {
        fx.ts[i] = (Iofleet__TargetSample) IOFLEET__TARGET_SAMPLE__INIT;
        fx.ts[i].target = (uint32_t) (i % MSG_TARGETS_MAX);
        fx.ts[i].read = &fx.rd[i];
        fx.ts[i].write = &fx.wr[i];
        fx.tsp[i] = &fx.ts[i];
        fx.rd[i] = (Iofleet__DirStats) IOFLEET__DIR_STATS__INIT;
        fx.rd[i].ops = 1000 + (uint64_t) i;
        fx.rd[i].bytes = fx.rd[i].ops * 4096;
        fx.rd[i].errors = (uint64_t) i;
        fx.rd[i].histogram.len = wire_r_len;
        fx.rd[i].histogram.data = wire_r;
        fx.wr[i] = (Iofleet__DirStats) IOFLEET__DIR_STATS__INIT;
        fx.wr[i].ops = 500 + (uint64_t) i;
        fx.wr[i].bytes = fx.wr[i].ops * 131072;
        fx.wr[i].errors = 2 * (uint64_t) i + 1;
        fx.wr[i].histogram.len = wire_w_len;
        fx.wr[i].histogram.data = wire_w;
    }
    fx.ack = (Iofleet__Ack) IOFLEET__ACK__INIT;
    fx.error = (Iofleet__Error) IOFLEET__ERROR__INIT;
    fx.abort = (Iofleet__Abort) IOFLEET__ABORT__INIT;
}

static void
fx_hello (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_HELLO;
    fx.env.hello = &fx.hello;
    fx.hello.name = "agent-01";
    fx.hello.hostname = "node17.lab.example";
    fx.hello.kernel = "6.1.0-13-amd64 #1 SMP PREEMPT_DYNAMIC";
    fx.hello.agent_version = "0.1.0";
    fx.hello.pid = 4242;
    fx.hello.instance = "0123456789abcdef0123456789abcdef";
    fx.label[0].key = "rack";
    fx.label[0].value = "r12";
    fx.label[1].key = "zone";
    fx.label[1].value = "eu west 1";
    fx.label[2].key = "ssd";
    fx.label[2].value = "";
    fx.hello.n_labels = NLABELS;
    fx.hello.labels = fx.labelp;
}

static void
fx_welcome (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_WELCOME;
    fx.env.welcome = &fx.welcome;
    fx.welcome.agent_id = 77;
    fx.welcome.interval_ns = 1000000000ull;
}

static void
fx_reject (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_REJECT;
    fx.env.reject = &fx.reject;
    fx.reject.reason = "an agent named agent-01 is already connected";
}

static void
fx_ping (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_PING;
    fx.env.ping = &fx.ping;
    fx.ping.t0 = 1700000000123456789ull;
    fx.ping.offset_ns = -1234567;
    fx.ping.delay_ns = 250000;
}

static void
fx_pong (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_PONG;
    fx.env.pong = &fx.pong;
    fx.pong.t0 = 1700000000123456789ull;
    fx.pong.t1 = 1700000000123999999ull;
    fx.pong.t2 = 1700000000124000100ull;
}

static void
fx_prepare (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_PREPARE;
    fx.env.prepare = &fx.prepare;
    fx.prepare.run = 0x123456789abull;
    fx.prepare.step = 3;
    fx.prepare.job = &fx.job;
    Iofleet__JobSpec *j = &fx.job;
    j->name = "randrw-70-30";
    j->ioengine = "libaio";
    j->direct = 1;
    j->rw = IOFLEET__RW__RW_RANDRW;
    j->rwmixread = 70;
    j->bs = 8192;
    j->bs_write = 16384;
    j->iodepth = 16;
    j->iodepth_batch_submit = 1;
    j->iodepth_batch_complete_min = 1;
    j->numjobs = 4;
    j->size = 10ull << 30;
    j->size_pct = 50;
    j->offset = 1 << 20;
    j->offset_pct = 10;
    fx.files[0] = "/dev/nvme0n1";
    fx.files[1] = "data/file one";
    fx.files[2] = "/var/tmp/iofleet/\xc3\xa9t\xc3\xa9";     // UTF-8
    j->n_filenames = NFILES;
    j->filenames = fx.files;
    j->runtime_ns = 120ull * 1000000000;
    j->time_based = 1;
    j->ramp_time_ns = 10ull * 1000000000;
    j->interval_ns = 1000000000ull;
}

static void
fx_ready (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_READY;
    fx.env.ready = &fx.ready;
    fx.ready.run = 99;
    fx.ready.step = 1;
    fx.rtargets[0] = "/dev/nvme0n1";
    fx.rtargets[1] = "/var/tmp/work/data";
    fx.ready.n_targets = 2;
    fx.ready.targets = fx.rtargets;
}

static void
fx_refused (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_REFUSED;
    fx.env.refused = &fx.refused;
    fx.refused.run = 99;
    fx.refused.step = 2;
    fx.refused.reason = "'/dev/sda' is not allowed on this agent";
}

static void
fx_start (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_START;
    fx.env.start = &fx.start;
    fx.start.run = 99;
    fx.start.step = 0;
    fx.start.start_at = 1700000005000000000ull;
}

static void
fx_snapshot (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_SNAPSHOT;
    fx.env.snapshot = &fx.snap;
    fx.snap.run = 99;
    fx.snap.step = 2;
    fx.snap.seq = 17;
    fx.snap.t_start = 1700000005000000000ull;
    fx.snap.t_end = fx.snap.t_start + 1000000000ull;
    fx.snap.n_targets = 2;
    fx.snap.targets = fx.tsp;
}

static void
fx_ack (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_ACK;
    fx.env.ack = &fx.ack;
    fx.ack.run = 99;
    fx.ack.step = 2;
    fx.ack.upto = 17;
}

static void
fx_done (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_DONE;
    fx.env.done = &fx.done;
    fx.done.run = 99;
    fx.done.step = 2;
    fx.done.snapshots = 120;
    fx.done.actual_start = 1700000005000000123ull;
    fx.done.n_totals = 2;
    fx.done.totals = fx.tsp;
    for (int i = 0; i < 2; i++) {       // totals carry no histograms
        fx.rd[i].histogram.len = fx.wr[i].histogram.len = 0;
        fx.rd[i].histogram.data = fx.wr[i].histogram.data = NULL;
    }
    fx.done.error = "";
}

static void
fx_error (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_ERROR;
    fx.env.error = &fx.error;
    fx.error.run = 99;
    fx.error.step = 4;
    fx.error.message = "no such run";
}

static void
fx_abort (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_ABORT;
    fx.env.abort = &fx.abort;
    fx.abort.run = 99;
    fx.abort.reason = "user cancel";
}

static const struct {
    const char *kind;
    void (*build) (void);
} kinds[] = {
    { "hello", fx_hello },       { "welcome", fx_welcome }, { "reject", fx_reject },
    { "ping", fx_ping },         { "pong", fx_pong },       { "prepare", fx_prepare },
    { "ready", fx_ready },       { "refused", fx_refused }, { "start", fx_start },
    { "snapshot", fx_snapshot }, { "ack", fx_ack },         { "done", fx_done },
    { "error", fx_error },       { "abort", fx_abort },
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

//  ---------------------------------------------------------------------
//  Independent check of the bounds message.h documents, for envelopes the
//  fuzz loops get back.  Returns NULL when e keeps every bound, else the
//  first one broken.

static bool
text_ok (const char *s, size_t max, bool required)
{
    if (!s)
        return !required;
    size_t n = strlen (s);
    if ((required && n == 0) || n > max)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char) s[i] < 0x20 || s[i] == 0x7f)
            return false;
    return utf8_invalid_at (s, n) < 0;
}

static const char *
samples_bad (size_t n, Iofleet__TargetSample **v)
{
    if (n > MSG_TARGETS_MAX)
        return "targets count";
    for (size_t i = 0; i < n; i++) {
        if (!v[i] || v[i]->target >= MSG_TARGETS_MAX)
            return "target index";
        const Iofleet__DirStats *d[2] = { v[i]->read, v[i]->write };
        for (int k = 0; k < 2; k++)
            if (d[k] && (d[k]->histogram.len > HIST_WIRE_MAX || d[k]->bytes < d[k]->ops))
                return "dirstats";
    }
    return NULL;
}

static const char *
bounds_broken (const envelope_t *e)
{
    if (e->version != IOF_PROTOCOL_VERSION)
        return "version";
    switch (e->body_case) {
    case IOFLEET__ENVELOPE__BODY_HELLO: {
        const Iofleet__Hello *h = e->hello;
        if (!h || !text_ok (h->name, MSG_NAME_MAX, true)
            || !text_ok (h->hostname, MSG_TEXT_MAX, false)
            || !text_ok (h->kernel, MSG_TEXT_MAX, false)
            || !text_ok (h->agent_version, MSG_NAME_MAX, false)
            || !text_ok (h->instance, MSG_NAME_MAX, false))
            return "hello text";
        if (h->n_labels > MSG_LABELS_MAX)
            return "hello.labels count";
        for (size_t i = 0; i < h->n_labels; i++)
            if (!h->labels[i] || !text_ok (h->labels[i]->key, MSG_NAME_MAX, true)
                || !text_ok (h->labels[i]->value, MSG_LABEL_VALUE_MAX, false))
                return "hello.labels entry";
        return NULL;
    }
    case IOFLEET__ENVELOPE__BODY_WELCOME:
        return !e->welcome || e->welcome->interval_ns < MSG_INTERVAL_MIN_NS
               || e->welcome->interval_ns > MSG_INTERVAL_MAX_NS ? "welcome" : NULL;
    case IOFLEET__ENVELOPE__BODY_REJECT:
        return !e->reject || !text_ok (e->reject->reason, MSG_TEXT_MAX, false) ? "reject" : NULL;
    case IOFLEET__ENVELOPE__BODY_PING:
        return !e->ping || e->ping->t0 == 0 ? "ping" : NULL;
    case IOFLEET__ENVELOPE__BODY_PONG:
        return !e->pong || !e->pong->t0 || !e->pong->t1 || e->pong->t2 < e->pong->t1
               ? "pong" : NULL;
    case IOFLEET__ENVELOPE__BODY_PREPARE: {
        if (!e->prepare || e->prepare->run == 0 || !e->prepare->job)
            return "prepare";
        const Iofleet__JobSpec *j = e->prepare->job;
        if (!text_ok (j->name, MSG_NAME_MAX, true) || !text_ok (j->ioengine, MSG_NAME_MAX, true)
            || (int) j->rw < 0 || (int) j->rw > IOFLEET__RW__RW_RANDRW || j->rwmixread > 100
            || j->bs < 1 || j->bs > (64u << 20) || j->iodepth < 1 || j->iodepth > 65536
            || j->bs_write < 1 || j->bs_write > (64u << 20)
            || j->iodepth_batch_submit < 1 || j->iodepth_batch_submit > j->iodepth
            || j->iodepth_batch_complete_min < 1 || j->iodepth_batch_complete_min > j->iodepth
            || j->buffer_compress_percentage > 100
            || j->numjobs < 1 || j->numjobs > 1024 || j->size_pct > 100 || j->offset_pct > 99
            || j->n_filenames < 1 || j->n_filenames > MSG_TARGETS_MAX
            || j->runtime_ns > 7ull * 24 * 3600 * 1000000000ull
            || j->ramp_time_ns > 3600ull * 1000000000ull
            || (j->time_based && j->runtime_ns == 0)
            || j->interval_ns < MSG_INTERVAL_MIN_NS || j->interval_ns > MSG_INTERVAL_MAX_NS)
            return "job";
        for (size_t i = 0; i < j->n_filenames; i++)
            if (!text_ok (j->filenames[i], MSG_PATH_MAX, true))
                return "job.filenames entry";
        if (!text_ok (j->write_lat_log, JOB_LATLOG_MAX - 1, false))
            return "job.write_lat_log";
        return NULL;
    }
    case IOFLEET__ENVELOPE__BODY_READY:
        if (!e->ready || e->ready->run == 0 || e->ready->n_targets < 1
            || e->ready->n_targets > MSG_TARGETS_MAX)
            return "ready";
        for (size_t i = 0; i < e->ready->n_targets; i++)
            if (!text_ok (e->ready->targets[i], MSG_PATH_MAX, true))
                return "ready.targets entry";
        return NULL;
    case IOFLEET__ENVELOPE__BODY_REFUSED:
        return !e->refused || !text_ok (e->refused->reason, MSG_TEXT_MAX, true)
               ? "refused" : NULL;
    case IOFLEET__ENVELOPE__BODY_START:
        return !e->start || !e->start->run || !e->start->start_at ? "start" : NULL;
    case IOFLEET__ENVELOPE__BODY_SNAPSHOT:
        if (!e->snapshot || !e->snapshot->run || e->snapshot->t_end < e->snapshot->t_start
            || e->snapshot->seq > 100000000u)
            return "snapshot";
        return samples_bad (e->snapshot->n_targets, e->snapshot->targets);
    case IOFLEET__ENVELOPE__BODY_ACK:
        return e->ack ? NULL : "ack";
    case IOFLEET__ENVELOPE__BODY_DONE:
        if (!e->done || !e->done->run || !text_ok (e->done->error, MSG_TEXT_MAX, false))
            return "done";
        return samples_bad (e->done->n_totals, e->done->totals);
    case IOFLEET__ENVELOPE__BODY_ERROR:
        return !e->error || !text_ok (e->error->message, MSG_TEXT_MAX, false) ? "error" : NULL;
    case IOFLEET__ENVELOPE__BODY_ABORT:
        return !e->abort || !text_ok (e->abort->reason, MSG_TEXT_MAX, false) ? "abort" : NULL;
    default:
        return "no or unknown body";
    }
}

//  ---------------------------------------------------------------------
//  Helpers around pack/unpack.

//  Unpacks len bytes from a private malloc of exactly len bytes, so ASan
//  sees any read past the end.
static envelope_t *
unpack_exact (const uint8_t *bytes, size_t len, int *mm, char *err, size_t errlen)
{
    uint8_t *copy = malloc (len ? len : 1);
    if (!copy)
        abort ();
    if (len)
        memcpy (copy, bytes, len);
    envelope_t *e = message_unpack (copy, len, mm, err, errlen);
    free (copy);
    return e;
}

//  Packs fx.env; the caller frees.
static uint8_t *
pack_fx (size_t *len)
{
    uint8_t *buf = message_pack (&fx.env, len);
    if (!buf)
        abort ();
    return buf;
}

//  Packs fx.env, unpacks it, checks it was accepted as the same kind.
static envelope_t *
round_trip (void)
{
    size_t len = 0;
    uint8_t *buf = pack_fx (&len);
    CHECK (fx.env.version == IOF_PROTOCOL_VERSION);
    int mm = -1;
    char err[256] = "";
    envelope_t *e = unpack_exact (buf, len, &mm, err, sizeof err);
    free (buf);
    CHECK_MSG (e != NULL, "%s refused: %s", message_kind (&fx.env), err);
    CHECK (mm == 0);
    if (e) {
        CHECK (e->version == IOF_PROTOCOL_VERSION);
        CHECK (e->body_case == fx.env.body_case);
        CHECK (STREQ (message_kind (e), message_kind (&fx.env)));
        const char *bad = bounds_broken (e);
        CHECK_MSG (bad == NULL, "%s: %s", message_kind (e), bad);
    }
    return e;
}

static void
expect_reject (const char *what, const char *needle)
{
    size_t len = 0;
    uint8_t *buf = pack_fx (&len);
    int mm = -1;
    char err[512] = "";
    envelope_t *e = unpack_exact (buf, len, &mm, err, sizeof err);
    free (buf);
    CHECK_MSG (e == NULL, "%s: accepted", what);
    CHECK_MSG (mm == 0, "%s: version_mismatch %d", what, mm);
    CHECK_MSG (strstr (err, needle) != NULL, "%s: err '%s' does not name '%s'", what, err,
               needle);
    message_free (e);
}

static void
expect_accept (const char *what)
{
    size_t len = 0;
    uint8_t *buf = pack_fx (&len);
    int mm = -1;
    char err[512] = "";
    envelope_t *e = unpack_exact (buf, len, &mm, err, sizeof err);
    free (buf);
    CHECK_MSG (e != NULL && mm == 0, "%s: refused: %s", what, err);
    message_free (e);
}

//  Build a valid KIND message, apply stmt, expect it refused naming needle /
//  accepted.  stmt must hold no top-level comma.
#define REJECT(build, stmt, needle) \
    do { build (); stmt; expect_reject (#build ": " #stmt, needle); } while (0)
#define ACCEPT(build, stmt) \
    do { build (); stmt; expect_accept (#build ": " #stmt); } while (0)

//  ---------------------------------------------------------------------
//  Round trips.

static bool
dir_equal (const Iofleet__DirStats *a, const Iofleet__DirStats *b)
{
    if (!a || !b)
        return a == b;
    return a->ops == b->ops && a->bytes == b->bytes && a->errors == b->errors
           && a->histogram.len == b->histogram.len
           && (a->histogram.len == 0
               || memcmp (a->histogram.data, b->histogram.data, a->histogram.len) == 0);
}

static void
test_round_trip (void)
{
    envelope_t *e;

    fx_hello ();
    if ((e = round_trip ())) {
        const Iofleet__Hello *h = e->hello;
        CHECK (STREQ (h->name, fx.hello.name));
        CHECK (STREQ (h->hostname, fx.hello.hostname));
        CHECK (STREQ (h->kernel, fx.hello.kernel));
        CHECK (STREQ (h->agent_version, fx.hello.agent_version));
        CHECK (h->pid == 4242);
        CHECK (STREQ (h->instance, fx.hello.instance));
        CHECK (h->n_labels == NLABELS);
        int bad = 0;
        for (size_t i = 0; i < h->n_labels && i < NLABELS; i++)
            bad += !STREQ (h->labels[i]->key, fx.label[i].key)
                   || !STREQ (h->labels[i]->value, fx.label[i].value);
        CHECK_MSG (bad == 0, "%d labels differ", bad);
    }
    message_free (e);

    fx_welcome ();
    if ((e = round_trip ())) {
        CHECK (e->welcome->agent_id == 77);
        CHECK (e->welcome->interval_ns == 1000000000ull);
    }
    message_free (e);

    fx_reject ();
    if ((e = round_trip ()))
        CHECK (STREQ (e->reject->reason, fx.reject.reason));
    message_free (e);

    fx_ping ();
    if ((e = round_trip ())) {
        CHECK (e->ping->t0 == fx.ping.t0);
        CHECK (e->ping->offset_ns == -1234567);     // sint64 keeps its sign
        CHECK (e->ping->delay_ns == 250000);
    }
    message_free (e);

    fx_pong ();
    if ((e = round_trip ())) {
        CHECK (e->pong->t0 == fx.pong.t0);
        CHECK (e->pong->t1 == fx.pong.t1);
        CHECK (e->pong->t2 == fx.pong.t2);
    }
    message_free (e);

    fx_prepare ();
    if ((e = round_trip ())) {
        CHECK (e->prepare->run == fx.prepare.run);
        CHECK (e->prepare->step == 3);
        const Iofleet__JobSpec *j = e->prepare->job, *w = &fx.job;
        CHECK (j != NULL);
        if (j) {
            CHECK (STREQ (j->name, w->name));
            CHECK (STREQ (j->ioengine, w->ioengine));
            CHECK (j->direct == 1);
            CHECK (j->rw == IOFLEET__RW__RW_RANDRW);
            CHECK (j->rwmixread == 70);
            CHECK (j->bs == 8192);
            CHECK (j->iodepth == 16);
            CHECK (j->numjobs == 4);
            CHECK (j->size == 10ull << 30);
            CHECK (j->size_pct == 50);
            CHECK (j->offset == 1 << 20);
            CHECK (j->offset_pct == 10);
            CHECK (j->n_filenames == NFILES);
            int bad = 0;
            for (size_t i = 0; i < j->n_filenames && i < NFILES; i++)
                bad += !STREQ (j->filenames[i], w->filenames[i]);
            CHECK_MSG (bad == 0, "%d filenames differ", bad);
            CHECK (j->runtime_ns == w->runtime_ns);
            CHECK (j->time_based == 1);
            CHECK (j->ramp_time_ns == w->ramp_time_ns);
            CHECK (j->interval_ns == w->interval_ns);
        }
    }
    message_free (e);

    fx_ready ();
    if ((e = round_trip ())) {
        CHECK (e->ready->run == 99 && e->ready->step == 1);
        CHECK (e->ready->n_targets == 2);
        if (e->ready->n_targets == 2) {
            CHECK (STREQ (e->ready->targets[0], "/dev/nvme0n1"));
            CHECK (STREQ (e->ready->targets[1], "/var/tmp/work/data"));
        }
    }
    message_free (e);

    fx_refused ();
    if ((e = round_trip ())) {
        CHECK (e->refused->run == 99 && e->refused->step == 2);
        CHECK (STREQ (e->refused->reason, fx.refused.reason));
    }
    message_free (e);

    fx_start ();
    if ((e = round_trip ())) {
        CHECK (e->start->run == 99 && e->start->step == 0);
        CHECK (e->start->start_at == fx.start.start_at);
    }
    message_free (e);

    fx_snapshot ();
    if ((e = round_trip ())) {
        const Iofleet__Snapshot *s = e->snapshot;
        CHECK (s->run == 99 && s->step == 2 && s->seq == 17);
        CHECK (s->t_start == fx.snap.t_start && s->t_end == fx.snap.t_end);
        CHECK (s->n_targets == 2);
        for (size_t i = 0; i < s->n_targets && i < 2; i++) {
            CHECK (s->targets[i]->target == i);
            CHECK_MSG (dir_equal (s->targets[i]->read, &fx.rd[i]), "targets[%zu].read", i);
            CHECK_MSG (dir_equal (s->targets[i]->write, &fx.wr[i]), "targets[%zu].write", i);
            //  The carried bytes still decode to the recorded histograms.
            static histogram_t h;
            const ProtobufCBinaryData *b = &s->targets[i]->read->histogram;
            CHECK (histogram_decode (&h, b->data, b->len) == 0);
            CHECK (histogram_equal (&h, &hist_r));
            b = &s->targets[i]->write->histogram;
            CHECK (histogram_decode (&h, b->data, b->len) == 0);
            CHECK (histogram_equal (&h, &hist_w));
        }
    }
    message_free (e);

    //  A sample with no I/O in one direction has that DirStats absent.
    fx_snapshot ();
    fx.ts[1].write = NULL;
    if ((e = round_trip ()) && e->snapshot->n_targets == 2) {
        CHECK (e->snapshot->targets[1]->write == NULL);
        CHECK (dir_equal (e->snapshot->targets[1]->read, &fx.rd[1]));
    }
    message_free (e);

    fx_ack ();
    if ((e = round_trip ()))
        CHECK (e->ack->run == 99 && e->ack->step == 2 && e->ack->upto == 17);
    message_free (e);

    fx_done ();
    if ((e = round_trip ())) {
        const Iofleet__Done *d = e->done;
        CHECK (d->run == 99 && d->step == 2 && d->snapshots == 120);
        CHECK (d->actual_start == fx.done.actual_start);
        CHECK (STREQ (d->error, ""));
        CHECK (d->n_totals == 2);
        for (size_t i = 0; i < d->n_totals && i < 2; i++) {
            CHECK (d->totals[i]->target == i);
            CHECK (dir_equal (d->totals[i]->read, &fx.rd[i]));
            CHECK (dir_equal (d->totals[i]->write, &fx.wr[i]));
        }
    }
    message_free (e);

    //  latency_target: the depth per job of the step, in order.
    fx_done ();
    uint32_t depths[3] = { 3, 0, 17 };
    fx.done.latency_depth = depths;
    fx.done.n_latency_depth = 3;
    if ((e = round_trip ()))
        CHECK (e->done->n_latency_depth == 3 && e->done->latency_depth[0] == 3
               && e->done->latency_depth[1] == 0 && e->done->latency_depth[2] == 17);
    message_free (e);

    fx_done ();
    fx.done.error = "engine libaio: io_submit: Invalid argument";
    if ((e = round_trip ()))
        CHECK (STREQ (e->done->error, fx.done.error));
    message_free (e);

    fx_error ();
    if ((e = round_trip ())) {
        CHECK (e->error->run == 99 && e->error->step == 4);
        CHECK (STREQ (e->error->message, "no such run"));
    }
    message_free (e);

    fx_abort ();
    if ((e = round_trip ())) {
        CHECK (e->abort->run == 99);
        CHECK (STREQ (e->abort->reason, "user cancel"));
    }
    message_free (e);

    //  message_kind names every kind, and "none" without a body.
    int bad = 0;
    for (size_t k = 0; k < NKINDS; k++) {
        kinds[k].build ();
        if (!STREQ (message_kind (&fx.env), kinds[k].kind)) {
            if (!bad++)
                fprintf (stderr, "message_kind: %s != %s\n", message_kind (&fx.env),
                         kinds[k].kind);
        }
    }
    CHECK (bad == 0);
    fx_reset ();
    CHECK (STREQ (message_kind (&fx.env), "none"));
    message_free (NULL);        // no-op
}

//  ---------------------------------------------------------------------
//  Every bound: just inside accepted, just outside refused naming the field.

static void
labels_n (size_t n)
{
    fx.hello.n_labels = n;
}

static void
snap_targets_n (size_t n)
{
    fx.snap.n_targets = n;
}

static void
test_bounds_hello (void)
{
    ACCEPT (fx_hello, fx.hello.name = strn (MSG_NAME_MAX, 'n'));
    ACCEPT (fx_hello, fx.hello.instance = "");      // releases before it, simulated agents
    REJECT (fx_hello, fx.hello.instance = strn (MSG_NAME_MAX + 1, 'i'), "hello.instance");
    REJECT (fx_hello, fx.hello.instance = "id\n", "hello.instance");
    REJECT (fx_hello, fx.hello.name = strn (MSG_NAME_MAX + 1, 'n'), "hello.name");
    REJECT (fx_hello, fx.hello.name = strn (MSG_NAME_MAX + 1, 'n'), "limit 64");
    REJECT (fx_hello, fx.hello.name = "", "hello.name");
    REJECT (fx_hello, fx.hello.name = "agent\x01" "01", "hello.name");
    REJECT (fx_hello, fx.hello.name = "agent\x01" "01", "control character 0x01");
    REJECT (fx_hello, fx.hello.name = "agent\x7f", "hello.name");
    REJECT (fx_hello, fx.hello.name = "a\tb", "hello.name");
    REJECT (fx_hello, fx.hello.name = "a\nb", "hello.name");
    ACCEPT (fx_hello, fx.hello.name = "\xc3\xa9t\xc3\xa9 ~!");     // UTF-8, space, ~
    ACCEPT (fx_hello, fx.hello.name = "\xf0\x9f\x92\xbe disk");    // 4-byte UTF-8
    REJECT (fx_hello, fx.hello.name = "\xff\xfe", "not valid UTF-8");
    REJECT (fx_hello, fx.hello.name = "ab\xc3", "hello.name is not valid UTF-8 (byte 2)");
    REJECT (fx_hello, fx.hello.name = "\xc0\xaf", "not valid UTF-8");       // overlong '/'
    REJECT (fx_hello, fx.hello.name = "\xed\xa0\x80", "not valid UTF-8");   // surrogate
    REJECT (fx_hello, fx.hello.name = "\xf4\x90\x80\x80", "not valid UTF-8"); // > U+10FFFF
    REJECT (fx_hello, fx.hello.labels[0]->value = "r\xe9", "hello.labels.value");
    ACCEPT (fx_hello, fx.hello.hostname = "");
    ACCEPT (fx_hello, fx.hello.hostname = strn (MSG_TEXT_MAX, 'h'));
    REJECT (fx_hello, fx.hello.hostname = strn (MSG_TEXT_MAX + 1, 'h'), "hello.hostname");
    REJECT (fx_hello, fx.hello.hostname = "host\r", "hello.hostname");
    ACCEPT (fx_hello, fx.hello.kernel = strn (MSG_TEXT_MAX, 'k'));
    REJECT (fx_hello, fx.hello.kernel = strn (MSG_TEXT_MAX + 1, 'k'), "hello.kernel");
    REJECT (fx_hello, fx.hello.kernel = "6.1\x1b[31m", "hello.kernel");
    ACCEPT (fx_hello, fx.hello.agent_version = strn (MSG_NAME_MAX, '1'));
    REJECT (fx_hello, fx.hello.agent_version = strn (MSG_NAME_MAX + 1, '1'),
            "hello.agent_version");
    REJECT (fx_hello, fx.hello.agent_version = "0.1\x02", "hello.agent_version");
    ACCEPT (fx_hello, labels_n (0));
    ACCEPT (fx_hello, labels_n (MSG_LABELS_MAX));
    REJECT (fx_hello, labels_n (MSG_LABELS_MAX + 1), "hello.labels");
    REJECT (fx_hello, labels_n (MSG_LABELS_MAX + 1), "limit 32");
    REJECT (fx_hello, fx.label[1].key = "", "hello.labels.key");
    ACCEPT (fx_hello, fx.label[1].key = strn (MSG_NAME_MAX, 'k'));
    REJECT (fx_hello, fx.label[1].key = strn (MSG_NAME_MAX + 1, 'k'), "hello.labels.key");
    REJECT (fx_hello, fx.label[1].key = "k\x03", "hello.labels.key");
    ACCEPT (fx_hello, fx.label[2].value = strn (MSG_LABEL_VALUE_MAX, 'v'));
    REJECT (fx_hello, fx.label[2].value = strn (MSG_LABEL_VALUE_MAX + 1, 'v'),
            "hello.labels.value");
    REJECT (fx_hello, fx.label[2].value = "line1\nline2", "hello.labels.value");
}

static void
test_bounds_small (void)
{
    ACCEPT (fx_welcome, fx.welcome.interval_ns = MSG_INTERVAL_MIN_NS);
    ACCEPT (fx_welcome, fx.welcome.interval_ns = MSG_INTERVAL_MAX_NS);
    REJECT (fx_welcome, fx.welcome.interval_ns = MSG_INTERVAL_MIN_NS - 1, "welcome.interval_ns");
    REJECT (fx_welcome, fx.welcome.interval_ns = MSG_INTERVAL_MAX_NS + 1, "welcome.interval_ns");
    REJECT (fx_welcome, fx.welcome.interval_ns = 0, "welcome.interval_ns");
    REJECT (fx_welcome, fx.welcome.interval_ns = UINT64_MAX, "welcome.interval_ns");

    ACCEPT (fx_reject, fx.reject.reason = "");
    ACCEPT (fx_reject, fx.reject.reason = strn (MSG_TEXT_MAX, 'r'));
    REJECT (fx_reject, fx.reject.reason = strn (MSG_TEXT_MAX + 1, 'r'), "reject.reason");
    REJECT (fx_reject, fx.reject.reason = "bad\x05", "reject.reason");

    REJECT (fx_ping, fx.ping.t0 = 0, "ping.t0");
    ACCEPT (fx_ping, fx.ping.offset_ns = INT64_MIN);

    REJECT (fx_pong, fx.pong.t0 = 0, "pong");
    REJECT (fx_pong, fx.pong.t1 = 0, "pong");
    REJECT (fx_pong, fx.pong.t2 = fx.pong.t1 - 1, "pong");
    ACCEPT (fx_pong, fx.pong.t2 = fx.pong.t1);

    REJECT (fx_refused, fx.refused.reason = "", "refused.reason");
    ACCEPT (fx_refused, fx.refused.reason = strn (MSG_TEXT_MAX, 'r'));
    REJECT (fx_refused, fx.refused.reason = strn (MSG_TEXT_MAX + 1, 'r'), "refused.reason");
    REJECT (fx_refused, fx.refused.reason = "x\x1f", "refused.reason");

    REJECT (fx_start, fx.start.run = 0, "start.run");
    REJECT (fx_start, fx.start.start_at = 0, "start.start_at");

    ACCEPT (fx_ack, fx.ack.run = 0);            // ack has no bound

    ACCEPT (fx_error, fx.error.message = strn (MSG_TEXT_MAX, 'e'));
    REJECT (fx_error, fx.error.message = strn (MSG_TEXT_MAX + 1, 'e'), "error.message");
    REJECT (fx_error, fx.error.message = "\x7f", "error.message");

    ACCEPT (fx_abort, fx.abort.reason = strn (MSG_TEXT_MAX, 'a'));
    REJECT (fx_abort, fx.abort.reason = strn (MSG_TEXT_MAX + 1, 'a'), "abort.reason");
    REJECT (fx_abort, fx.abort.reason = "user\x08" "cancel", "abort.reason");
}

static void
job_filenames_n (size_t n)
{
    fx.job.n_filenames = n;
}

static void
test_bounds_prepare (void)
{
    REJECT (fx_prepare, fx.prepare.run = 0, "prepare.run");
    REJECT (fx_prepare, fx.prepare.job = NULL, "prepare.job");
    REJECT (fx_prepare, fx.job.name = "", "job.name");
    ACCEPT (fx_prepare, fx.job.name = strn (MSG_NAME_MAX, 'j'));
    REJECT (fx_prepare, fx.job.name = strn (MSG_NAME_MAX + 1, 'j'), "job.name");
    REJECT (fx_prepare, fx.job.name = "step\x01", "job.name");
    REJECT (fx_prepare, fx.job.ioengine = "", "job.ioengine");
    REJECT (fx_prepare, fx.job.ioengine = strn (MSG_NAME_MAX + 1, 'e'), "job.ioengine");
    REJECT (fx_prepare, fx.job.ioengine = "lib\naio", "job.ioengine");
    ACCEPT (fx_prepare, fx.job.rw = IOFLEET__RW__RW_READ);
    REJECT (fx_prepare, fx.job.rw = (Iofleet__Rw) (IOFLEET__RW__RW_RANDTRIMWRITE + 1), "job.rw");
    ACCEPT (fx_prepare, fx.job.rw = IOFLEET__RW__RW_RANDTRIM);
    ACCEPT (fx_prepare, fx.job.latency_target_ns = 2000000; fx.job.latency_window_ns = 200000000;
            fx.job.latency_percentile = 99; fx.job.numjobs = 1);
    REJECT (fx_prepare, fx.job.latency_target_ns = 2000000, "job.latency_target_ns");
    REJECT (fx_prepare, fx.job.latency_target_ns = 2000000; fx.job.latency_window_ns = 1000;
            fx.job.numjobs = 2, "job.latency_target_ns");
    REJECT (fx_prepare, fx.job.rw = (Iofleet__Rw) -1, "job.rw");
    REJECT (fx_prepare, fx.job.rw = (Iofleet__Rw) INT32_MAX, "job.rw");
    ACCEPT (fx_prepare, fx.job.rwmixread = 0);
    ACCEPT (fx_prepare, fx.job.rwmixread = 100);
    REJECT (fx_prepare, fx.job.rwmixread = 101, "job.rwmixread");
    ACCEPT (fx_prepare, fx.job.bs = 1);
    ACCEPT (fx_prepare, fx.job.bs = 64u << 20);
    REJECT (fx_prepare, fx.job.bs = 0, "job.bs");
    REJECT (fx_prepare, fx.job.bs = (64u << 20) + 1, "job.bs");
    REJECT (fx_prepare, fx.job.bs = UINT32_MAX, "job.bs");
    ACCEPT (fx_prepare, fx.job.iodepth = 65536);
    REJECT (fx_prepare, fx.job.iodepth = 0, "job.iodepth");
    REJECT (fx_prepare, fx.job.iodepth = 65537, "job.iodepth");
    REJECT (fx_prepare, fx.job.bs_write = 0, "job.bs_write");
    REJECT (fx_prepare, fx.job.bs_write = (64u << 20) + 1, "job.bs_write");
    REJECT (fx_prepare, fx.job.iodepth_batch_submit = 17, "job.iodepth_batch_submit");
    REJECT (fx_prepare, fx.job.iodepth_batch_submit = 0, "job.iodepth_batch_submit");
    REJECT (fx_prepare, fx.job.iodepth_batch_complete_min = 17, "job.iodepth_batch_complete_min");
    ACCEPT (fx_prepare, fx.job.iodepth_batch_submit = 16; fx.job.iodepth_batch_complete_min = 16);
    REJECT (fx_prepare, fx.job.bsrange_min_read = 4096, "job.bsrange");
    REJECT (fx_prepare, fx.job.bsrange_min_write = 8192; fx.job.bsrange_max_write = 4096,
            "job.bsrange");
    ACCEPT (fx_prepare, fx.job.bsrange_min_write = 4096; fx.job.bsrange_max_write = 65536);
    REJECT (fx_prepare, fx.job.rate_iops_write = 100000001, "job.rate_iops");
    REJECT (fx_prepare, fx.job.thinktime_ns = 3601ull * 1000000000, "thinktime_ns");
    REJECT (fx_prepare, fx.job.random_distribution = 7, "job.random_distribution");
    REJECT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_ZIPF;
            fx.job.dist_param = 1.0, "the zipf theta 1");
    ACCEPT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_ZIPF;
            fx.job.dist_param = 1.2);
    REJECT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_PARETO;
            fx.job.dist_param = 1.5, "the pareto value 1.5");
    ACCEPT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_NORMAL;
            fx.job.dist_param = 10; fx.job.dist_centered = 1; fx.job.dist_center = 0.3);
    REJECT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_NORMAL;
            fx.job.dist_centered = 1; fx.job.dist_center = -0.5, "the center -0.5");
    {
        Iofleet__Zone z1 = IOFLEET__ZONE__INIT, z2 = IOFLEET__ZONE__INIT;
        Iofleet__Zone *zs[300] = { &z1, &z2 };
        for (int i = 2; i < 300; i++)
            zs[i] = &z2;
        z1.access_pct = 60;
        z1.size = 10;
        z2.access_pct = 40;
        z2.size = 90;
        ACCEPT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_ZONED;
                fx.job.n_zones = 2; fx.job.zones = zs);
        REJECT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_ZONED;
                fx.job.n_zones = 1; fx.job.zones = zs, "add up to 60, not 100");
        REJECT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_PARETO;
                fx.job.dist_param = 0.5; fx.job.n_zones = 2; fx.job.zones = zs,
                "pareto takes no zones");
        REJECT (fx_prepare, fx.job.random_distribution = IOFLEET__DISTRIBUTION__DIST_ZONED;
                fx.job.n_zones = 300; fx.job.zones = zs, "300 zones, limit");
    }
    REJECT (fx_prepare, fx.job.cpus_allowed = "0-3,x", "job.cpus_allowed");
    REJECT (fx_prepare, fx.job.cpus_allowed = "9999", "job.cpus_allowed");
    ACCEPT (fx_prepare, fx.job.cpus_allowed = "0-3,8");
    REJECT (fx_prepare, fx.job.ss = 9, "job.ss");
    REJECT (fx_prepare, fx.job.ss = IOFLEET__STEADY_STATE__SS_IOPS_SLOPE; fx.job.ss_dur_ns = 0,
            "job.ss");
    ACCEPT (fx_prepare, fx.job.ss = IOFLEET__STEADY_STATE__SS_IOPS_SLOPE;
            fx.job.ss_limit = 0.001; fx.job.ss_pct = 1; fx.job.ss_dur_ns = 30ull * 1000000000);
    REJECT (fx_prepare, fx.job.buffer_compress_percentage = 101, "job.buffer_compress_percentage");
    /* write_lat_log: a bounded path prefix; a relative one may not climb
       out of the agent's workdir (an absolute one is for the agent's
       policy to judge, on the resolved path). */
    ACCEPT (fx_prepare, fx.job.write_lat_log = "logs/raw"; fx.job.thread_number = 3);
    ACCEPT (fx_prepare, fx.job.write_lat_log = "/var/log/iofleet/../raw");
    ACCEPT (fx_prepare, fx.job.write_lat_log = "a..b/..raw/x..");
    ACCEPT (fx_prepare, fx.job.write_lat_log = "\xc3\xa9t\xc3\xa9/raw");
    ACCEPT (fx_prepare, fx.job.write_lat_log = strn (JOB_LATLOG_MAX - 1, 'l'));
    REJECT (fx_prepare, fx.job.write_lat_log = strn (JOB_LATLOG_MAX, 'l'),
            "job.write_lat_log is 1024 bytes, limit 1023");
    REJECT (fx_prepare, fx.job.write_lat_log = "../raw",
            "job.write_lat_log '../raw' is relative and has a '..' component");
    REJECT (fx_prepare, fx.job.write_lat_log = "logs/../../raw", "'..' component");
    REJECT (fx_prepare, fx.job.write_lat_log = "logs/..", "'..' component");
    REJECT (fx_prepare, fx.job.write_lat_log = "..", "'..' component");
    REJECT (fx_prepare, fx.job.write_lat_log = "raw\n", "job.write_lat_log holds control character");
    REJECT (fx_prepare, fx.job.write_lat_log = "r\xe9", "job.write_lat_log is not valid UTF-8");
    /* numjobs is 4: the last worker's number may be JOB_THREADS_MAX. */
    ACCEPT (fx_prepare, fx.job.write_lat_log = "raw"; fx.job.thread_number = JOB_THREADS_MAX - 3);
    REJECT (fx_prepare, fx.job.write_lat_log = "raw"; fx.job.thread_number = JOB_THREADS_MAX - 2,
            "job.thread_number");
    /* Jobs that run together: each checked, their targets counted together. */
    static Iofleet__JobSpec more_job;
    static Iofleet__JobSpec *more_ptrs[MSG_JOBS_MAX];
    for (int i = 0; i < MSG_JOBS_MAX; i++)
        more_ptrs[i] = &more_job;
    ACCEPT (fx_prepare, more_job = fx.job; fx.prepare.more_jobs = more_ptrs;
            fx.prepare.n_more_jobs = 2);
    REJECT (fx_prepare, more_job = fx.job; more_job.bs = 0; fx.prepare.more_jobs = more_ptrs;
            fx.prepare.n_more_jobs = 1, "job.bs");
    REJECT (fx_prepare, more_job = fx.job; fx.prepare.more_jobs = more_ptrs;
            fx.prepare.n_more_jobs = MSG_JOBS_MAX, "prepare.more_jobs");
    static char *five[] = { "/dev/a", "/dev/b", "/dev/c", "/dev/d", "/dev/e" };
    ACCEPT (fx_prepare, more_job = fx.job; more_job.filenames = five; more_job.n_filenames = 5;
            fx.prepare.more_jobs = more_ptrs; fx.prepare.n_more_jobs = 50);  /* 3 + 250 */
    REJECT (fx_prepare, more_job = fx.job; more_job.filenames = five; more_job.n_filenames = 5;
            fx.prepare.more_jobs = more_ptrs; fx.prepare.n_more_jobs = 51,    /* 3 + 255 */
            "targets over its jobs");
    ACCEPT (fx_prepare, fx.job.numjobs = 1024);
    ACCEPT (fx_prepare, fx.job.verify = IOFLEET__VERIFY_KIND__VERIFY_MD5;
            fx.job.verify_backlog = JOB_MAX_VERIFY_BACKLOG);
    REJECT (fx_prepare, fx.job.verify = (Iofleet__VerifyKind) 3, "job.verify 3, limit 0..2");
    REJECT (fx_prepare, fx.job.verify_backlog = JOB_MAX_VERIFY_BACKLOG + 1, "job.verify_backlog");
    ACCEPT (fx_prepare, fx.job.write_iolog = "/var/log/a.iolog"; fx.job.numjobs = 1);
    REJECT (fx_prepare, fx.job.write_iolog = "a.iolog"; fx.job.numjobs = 2,
            "job.write_iolog with numjobs 2");
    REJECT (fx_prepare, fx.job.write_iolog = "x/../../a.iolog"; fx.job.numjobs = 1,
            "job.write_iolog 'x/../../a.iolog' is relative and has a '..' component");
    ACCEPT (fx_prepare, fx.job.loops = JOB_MAX_LOOPS);
    REJECT (fx_prepare, fx.job.loops = JOB_MAX_LOOPS + 1, "job.loops 1000001, limit 0..1000000");
    ACCEPT (fx_prepare, fx.job.io_size = UINT64_MAX >> 1; fx.job.number_ios = UINT64_MAX >> 1);
    REJECT (fx_prepare, fx.job.number_ios = (UINT64_MAX >> 1) + 1, "job.number_ios");
    ACCEPT (fx_prepare, fx.job.offset_increment = (UINT64_MAX >> 2) / 4);
    REJECT (fx_prepare, fx.job.offset_increment = (UINT64_MAX >> 2) / 4 + 1,
            "job.offset_increment");
    /* A file per worker: as many files as workers. */
    ACCEPT (fx_prepare, fx.job.files_per_worker = 1; fx.job.numjobs = NFILES);
    ACCEPT (fx_prepare, fx.job.files_per_worker = NFILES; fx.job.numjobs = 1);
    REJECT (fx_prepare, fx.job.files_per_worker = 1; fx.job.numjobs = NFILES + 1,
            "job.files_per_worker 1 with 3 filenames for numjobs 4");
    REJECT (fx_prepare, fx.job.files_per_worker = 2; fx.job.numjobs = 1,
            "job.files_per_worker 2 with 3 filenames for numjobs 1");
    REJECT (fx_prepare, fx.job.numjobs = 0, "job.numjobs");
    REJECT (fx_prepare, fx.job.numjobs = 1025, "job.numjobs");
    ACCEPT (fx_prepare, fx.job.size_pct = 100);
    REJECT (fx_prepare, fx.job.size_pct = 101, "job.size_pct");
    ACCEPT (fx_prepare, fx.job.offset_pct = 99);
    REJECT (fx_prepare, fx.job.offset_pct = 100, "job.offset_pct");
    REJECT (fx_prepare, job_filenames_n (0), "job.filenames");
    ACCEPT (fx_prepare, job_filenames_n (MSG_TARGETS_MAX));
    REJECT (fx_prepare, job_filenames_n (MSG_TARGETS_MAX + 1), "job.filenames");
    REJECT (fx_prepare, job_filenames_n (MSG_TARGETS_MAX + 1), "limit 1..256");
    REJECT (fx_prepare, fx.files[1] = "", "job.filenames[1]");
    ACCEPT (fx_prepare, fx.files[1] = strn (MSG_PATH_MAX, 'p'));
    REJECT (fx_prepare, fx.files[1] = strn (MSG_PATH_MAX + 1, 'p'), "job.filenames[1]");
    REJECT (fx_prepare, fx.files[2] = "/dev/sd\ta", "job.filenames[2]");
    ACCEPT (fx_prepare, fx.job.runtime_ns = 7ull * 24 * 3600 * 1000000000ull);
    REJECT (fx_prepare, fx.job.runtime_ns = 7ull * 24 * 3600 * 1000000000ull + 1,
            "job.runtime_ns");
    ACCEPT (fx_prepare, fx.job.ramp_time_ns = 3600ull * 1000000000ull);
    REJECT (fx_prepare, fx.job.ramp_time_ns = 3600ull * 1000000000ull + 1, "job.ramp_time_ns");
    REJECT (fx_prepare, fx.job.runtime_ns = 0, "job.time_based");
    ACCEPT (fx_prepare, fx.job.runtime_ns = 0; fx.job.time_based = 0);
    ACCEPT (fx_prepare, fx.job.interval_ns = MSG_INTERVAL_MIN_NS);
    ACCEPT (fx_prepare, fx.job.interval_ns = MSG_INTERVAL_MAX_NS);
    REJECT (fx_prepare, fx.job.interval_ns = MSG_INTERVAL_MIN_NS - 1, "job.interval_ns");
    REJECT (fx_prepare, fx.job.interval_ns = MSG_INTERVAL_MAX_NS + 1, "job.interval_ns");
    REJECT (fx_prepare, fx.job.interval_ns = 0, "job.interval_ns");
}

static void
ready_n (size_t n)
{
    fx.ready.n_targets = n;
}

static void
done_n (size_t n)
{
    fx.done.n_totals = n;
}

static uint32_t done_depths_buf[MSG_JOBS_MAX + 1];

static void
done_depths (size_t n, uint32_t depth)
{
    for (size_t i = 0; i < n; i++)
        done_depths_buf[i] = depth;
    fx.done.latency_depth = done_depths_buf;
    fx.done.n_latency_depth = n;
}

static void
test_bounds_ready_snapshot_done (void)
{
    REJECT (fx_ready, fx.ready.run = 0, "ready.run");
    REJECT (fx_ready, ready_n (0), "ready.targets");
    ACCEPT (fx_ready, ready_n (MSG_TARGETS_MAX));
    REJECT (fx_ready, ready_n (MSG_TARGETS_MAX + 1), "ready.targets");
    REJECT (fx_ready, fx.rtargets[1] = "", "ready.targets");
    ACCEPT (fx_ready, fx.rtargets[1] = strn (MSG_PATH_MAX, 't'));
    REJECT (fx_ready, fx.rtargets[1] = strn (MSG_PATH_MAX + 1, 't'), "ready.targets");
    REJECT (fx_ready, fx.rtargets[0] = "/dev/\x1b", "ready.targets");

    REJECT (fx_snapshot, fx.snap.run = 0, "snapshot.run");
    REJECT (fx_snapshot, fx.snap.t_end = fx.snap.t_start - 1, "snapshot.t_end");
    ACCEPT (fx_snapshot, fx.snap.t_end = fx.snap.t_start);
    ACCEPT (fx_snapshot, fx.snap.seq = 100000000);
    REJECT (fx_snapshot, fx.snap.seq = 100000001, "snapshot.seq");
    ACCEPT (fx_snapshot, snap_targets_n (0));
    ACCEPT (fx_snapshot, snap_targets_n (MSG_TARGETS_MAX));
    REJECT (fx_snapshot, snap_targets_n (MSG_TARGETS_MAX + 1), "snapshot.targets");
    REJECT (fx_snapshot, snap_targets_n (MSG_TARGETS_MAX + 1), "limit 256");
    ACCEPT (fx_snapshot, fx.ts[1].target = MSG_TARGETS_MAX - 1);
    REJECT (fx_snapshot, fx.ts[1].target = MSG_TARGETS_MAX, "snapshot.targets[1].target");
    REJECT (fx_snapshot, fx.ts[1].target = UINT32_MAX, "snapshot.targets[1].target");
    ACCEPT (fx_snapshot, fx.rd[0].histogram.len = HIST_WIRE_MAX;
                         fx.rd[0].histogram.data = big_hist);
    REJECT (fx_snapshot, fx.rd[0].histogram.len = HIST_WIRE_MAX + 1;
                         fx.rd[0].histogram.data = big_hist,
            "snapshot.targets[0].read.histogram");
    REJECT (fx_snapshot, fx.wr[1].histogram.len = HIST_WIRE_MAX + 1;
                         fx.wr[1].histogram.data = big_hist,
            "snapshot.targets[1].write.histogram");
    ACCEPT (fx_snapshot, fx.wr[1].bytes = fx.wr[1].ops);
    REJECT (fx_snapshot, fx.wr[1].bytes = fx.wr[1].ops - 1, "snapshot.targets[1].write.bytes");
    REJECT (fx_snapshot, fx.rd[0].bytes = 0, "snapshot.targets[0].read.bytes");
    ACCEPT (fx_snapshot, fx.rd[0].ops = 0; fx.rd[0].bytes = 0);

    REJECT (fx_done, fx.done.run = 0, "done.run");
    ACCEPT (fx_done, fx.done.error = strn (MSG_TEXT_MAX, 'x'));
    REJECT (fx_done, fx.done.error = strn (MSG_TEXT_MAX + 1, 'x'), "done.error");
    REJECT (fx_done, fx.done.error = "io_submit\n", "done.error");
    ACCEPT (fx_done, done_n (MSG_TARGETS_MAX));
    REJECT (fx_done, done_n (MSG_TARGETS_MAX + 1), "done.targets");
    REJECT (fx_done, fx.ts[0].target = MSG_TARGETS_MAX, "done.targets[0].target");
    ACCEPT (fx_done, done_depths (MSG_JOBS_MAX, JOB_MAX_IODEPTH));
    REJECT (fx_done, done_depths (MSG_JOBS_MAX + 1, 1), "done.latency_depth has");
    REJECT (fx_done, done_depths (2, JOB_MAX_IODEPTH + 1), "done.latency_depth[0]");
    REJECT (fx_done, fx.rd[1].bytes = fx.rd[1].ops - 1, "done.targets[1].read.bytes");
    REJECT (fx_done, fx.wr[0].histogram.len = HIST_WIRE_MAX + 1;
                     fx.wr[0].histogram.data = big_hist,
            "done.targets[0].write.histogram");
}

//  ---------------------------------------------------------------------
//  No body, other versions, tiny err buffers.

static void
test_envelope (void)
{
    int mm = -1;
    char err[256] = "";

    //  Zero-length buffer (a real pointer, and NULL).
    uint8_t *one = calloc (1, 1);
    envelope_t *e = message_unpack (one, 0, &mm, err, sizeof err);
    CHECK (e == NULL);
    CHECK (mm == 0);
    CHECK_ERR (err, "empty");
    free (one);
    err[0] = '\0';
    e = message_unpack (NULL, 0, &mm, err, sizeof err);
    CHECK (e == NULL);
    CHECK_ERR (err, "empty");

    //  Only the version set.
    fx_reset ();
    size_t len = 0;
    uint8_t *buf = pack_fx (&len);
    CHECK (len == 2 && buf[0] == 0x08 && buf[1] == IOF_PROTOCOL_VERSION);
    err[0] = '\0';
    mm = -1;
    e = unpack_exact (buf, len, &mm, err, sizeof err);
    CHECK (e == NULL);
    CHECK (mm == 0);
    CHECK_ERR (err, "no body");
    free (buf);

    //  Version and an unknown field (number 99, varint): still no body.
    static const uint8_t unknown[] = { 0x08, IOF_PROTOCOL_VERSION, 0x98, 0x06, 0x2a };
    err[0] = '\0';
    e = unpack_exact (unknown, sizeof unknown, &mm, err, sizeof err);
    CHECK (e == NULL);
    CHECK_ERR (err, "no body");

    //  Bytes that are no protobuf at all.
    static const uint8_t junk[] = { 0xff, 0xff, 0xff };
    err[0] = '\0';
    e = unpack_exact (junk, sizeof junk, &mm, err, sizeof err);
    CHECK (e == NULL);
    CHECK_ERR (err, "parse");

    //  An unknown field beside a valid body is ignored.
    fx_ping ();
    buf = pack_fx (&len);
    uint8_t *ext = malloc (len + 3);
    memcpy (ext, buf, len);
    memcpy (ext + len, "\x98\x06\x2a", 3);
    e = unpack_exact (ext, len + 3, &mm, err, sizeof err);
    CHECK_MSG (e != NULL, "%s", err);
    if (e)
        CHECK (e->ping->t0 == fx.ping.t0);
    message_free (e);
    free (ext);
    free (buf);

    //  Another protocol version: returned, flagged, both versions named.
    fx_hello ();
    fx.env.version = 7;             // iofleet__envelope__pack keeps it
    len = iofleet__envelope__get_packed_size (&fx.env);
    buf = malloc (len);
    CHECK (iofleet__envelope__pack (&fx.env, buf) == len);
    mm = 0;
    err[0] = '\0';
    e = unpack_exact (buf, len, &mm, err, sizeof err);
    CHECK (e != NULL);
    CHECK (mm == 1);
    CHECK_ERR (err, "version 7");
    char speaks[32];
    snprintf (speaks, sizeof speaks, "speaks %d", IOF_PROTOCOL_VERSION);
    CHECK_ERR (err, speaks);
    if (e) {
        CHECK (e->version == 7);
        CHECK (e->body_case == IOFLEET__ENVELOPE__BODY_HELLO);
        CHECK (STREQ (message_kind (e), "hello"));
    }
    message_free (e);
    free (buf);

    //  ...even when the body would not validate (the caller answers REJECT).
    fx_hello ();
    fx.hello.name = "";
    fx.env.version = IOF_PROTOCOL_VERSION + 1;
    len = iofleet__envelope__get_packed_size (&fx.env);
    buf = malloc (len);
    iofleet__envelope__pack (&fx.env, buf);
    mm = 0;
    e = unpack_exact (buf, len, &mm, err, sizeof err);
    CHECK (e != NULL && mm == 1);
    char theirs[32];
    snprintf (theirs, sizeof theirs, "version %d", IOF_PROTOCOL_VERSION + 1);
    CHECK_ERR (err, theirs);
    message_free (e);
    free (buf);

    //  Version 0 (the field absent on the wire) is a mismatch too.
    fx_ping ();
    fx.env.version = 0;
    len = iofleet__envelope__get_packed_size (&fx.env);
    buf = malloc (len);
    iofleet__envelope__pack (&fx.env, buf);
    mm = 0;
    e = unpack_exact (buf, len, &mm, err, sizeof err);
    CHECK (e != NULL && mm == 1);
    CHECK_ERR (err, "version 0");
    message_free (e);
    free (buf);

    //  The flag is cleared on the next good message.
    fx_ping ();
    buf = pack_fx (&len);
    mm = 1;
    e = unpack_exact (buf, len, &mm, err, sizeof err);
    CHECK (e != NULL && mm == 0);
    message_free (e);
    free (buf);

    //  A tiny err buffer gets a terminated prefix, nothing past it (ASan).
    fx_hello ();
    fx.hello.name = "";
    buf = pack_fx (&len);
    char *small = malloc (8);
    e = unpack_exact (buf, len, &mm, small, 8);
    CHECK (e == NULL);
    CHECK (memchr (small, '\0', 8) != NULL);
    CHECK (strncmp (small, "hello.n", 7) == 0);
    free (small);
    free (buf);
}

//  ---------------------------------------------------------------------
//  Size limit: a frame one byte over MSG_MAX_BYTES is refused by length,
//  though its bytes would parse and validate (a ping plus one unknown
//  length-delimited field as padding); at exactly MSG_MAX_BYTES it passes.

static uint8_t *
padded_ping (size_t total)
{
    fx_ping ();
    size_t plen = 0;
    uint8_t *p = pack_fx (&plen);
    uint8_t *buf = malloc (total);
    if (!buf)
        abort ();
    memcpy (buf, p, plen);
    size_t pos = plen;
    buf[pos++] = 0xa2;          // field 100, wire type 2
    buf[pos++] = 0x06;
    size_t pad = total - pos - 4;               // 4-byte varint length
    CHECK (pad >= (1u << 21) && pad < (1u << 28));
    for (int k = 0; k < 4; k++)
        buf[pos++] = (uint8_t) (((pad >> (7 * k)) & 0x7f) | (k < 3 ? 0x80 : 0));
    memset (buf + pos, 0, pad);
    free (p);
    return buf;
}

static void
test_size_limit (void)
{
    int mm = -1;
    char err[256] = "";
    uint8_t *buf = padded_ping (MSG_MAX_BYTES + 1);
    envelope_t *e = message_unpack (buf, MSG_MAX_BYTES + 1, &mm, err, sizeof err);
    CHECK (e == NULL);
    CHECK (mm == 0);
    CHECK_ERR (err, "16777217 bytes");
    CHECK_ERR (err, "limit 16777216");
    message_free (e);
    free (buf);

    //  Same construction at exactly the limit: parsed and accepted, which
    //  shows the refusal above was for the length alone.
    buf = padded_ping (MSG_MAX_BYTES);
    err[0] = '\0';
    e = message_unpack (buf, MSG_MAX_BYTES, &mm, err, sizeof err);
    CHECK_MSG (e != NULL, "%s", err);
    if (e)
        CHECK (e->body_case == IOFLEET__ENVELOPE__BODY_PING && e->ping->t0 == fx.ping.t0);
    message_free (e);
    free (buf);

    //  A huge length with a tiny real buffer must not be dereferenced:
    //  SIZE_MAX is refused before parsing.
    uint8_t tiny = 0x08;
    e = message_unpack (&tiny, SIZE_MAX, &mm, err, sizeof err);
    CHECK (e == NULL);
    CHECK_ERR (err, "limit");
}

//  ---------------------------------------------------------------------
//  Truncation and fuzzing.

//  Whatever message_unpack returns must keep every bound (or be a flagged
//  version mismatch), re-pack, and unpack again to the same bytes.
//  Returns NULL or what is wrong; frees e.

static const char *
judge (envelope_t *e, int mm)
{
    const char *bad = NULL;
    if (mm) {
        if (e->version == IOF_PROTOCOL_VERSION)
            bad = "mismatch flagged for our own version";
    } else if ((bad = bounds_broken (e)) == NULL && !proto_has_unknown (&e->base)) {
        size_t len = 0, len2 = 0;
        uint8_t *b1 = message_pack (e, &len);
        int mm2 = -1;
        char err[256];
        envelope_t *e2 = b1 ? unpack_exact (b1, len, &mm2, err, sizeof err) : NULL;
        if (!e2 || mm2)
            bad = "accepted envelope refused after re-pack";
        else {
            uint8_t *b2 = message_pack (e2, &len2);
            if (!b2 || len2 != len || memcmp (b1, b2, len) != 0)
                bad = "re-pack is not stable";
            free (b2);
        }
        message_free (e2);
        free (b1);
    }
    message_free (e);
    return bad;
}

typedef struct {
    uint8_t *buf;
    size_t len;
} blob_t;

static blob_t corpus[NKINDS + 1];
static size_t ncorpus;

static void
corpus_build (void)
{
    for (size_t k = 0; k < NKINDS; k++) {
        kinds[k].build ();
        corpus[ncorpus].buf = pack_fx (&corpus[ncorpus].len);
        ncorpus++;
    }
    //  And a hello at the label limit, so mutations can push it over.
    fx_hello ();
    fx.hello.n_labels = MSG_LABELS_MAX;
    corpus[ncorpus].buf = pack_fx (&corpus[ncorpus].len);
    ncorpus++;
}

static void
corpus_free (void)
{
    for (size_t i = 0; i < ncorpus; i++)
        free (corpus[i].buf);
}

static void
test_truncation (void)
{
    //  snapshot, prepare and hello: every proper prefix.
    const int which[] = { 9, 5, 0 };
    for (size_t w = 0; w < 3; w++) {
        const blob_t *b = &corpus[which[w]];
        int bad = 0, accepted = 0;
        for (size_t n = 0; n < b->len; n++) {
            int mm = -1;
            char err[256] = "";
            envelope_t *e = unpack_exact (b->buf, n, &mm, err, sizeof err);
            if (!e) {
                if (!err[0] && !bad++)
                    fprintf (stderr, "prefix %zu of %s: NULL without a reason\n", n,
                             kinds[which[w]].kind);
                continue;
            }
            accepted++;
            const char *why = judge (e, mm);
            if (why && !bad++)
                fprintf (stderr, "prefix %zu of %s: %s\n", n, kinds[which[w]].kind, why);
        }
        CHECK_MSG (bad == 0, "%s: %d bad prefixes", kinds[which[w]].kind, bad);
        //  The body is one length-delimited field: no proper prefix holds it.
        CHECK_MSG (accepted == 0, "%s: %d prefixes accepted", kinds[which[w]].kind, accepted);
    }
}

#define NRANDOM     50000
#define NMUTATE     50000

static void
test_fuzz_random (void)
{
    uint8_t tmp[256];
    int bad = 0, returned = 0;
    for (int i = 0; i < NRANDOM; i++) {
        size_t len = rng_below (i % 4 == 0 ? 256 : 48);
        for (size_t k = 0; k < len; k++)
            tmp[k] = (uint8_t) rng_next ();
        //  Half start like a real envelope (version 1, then a body tag),
        //  so they get past the first byte.
        if (i % 2 && len >= 3) {
            tmp[0] = 0x08;
            tmp[1] = IOF_PROTOCOL_VERSION;
            tmp[2] = (uint8_t) (((10 + rng_below (14)) << 3) | 2);
        }
        int mm = -1;
        char err[256] = "";
        envelope_t *e = unpack_exact (tmp, len, &mm, err, sizeof err);
        if (!e)
            continue;
        returned++;
        const char *why = judge (e, mm);
        if (why && !bad++)
            fprintf (stderr, "random buffer %d (%zu bytes): %s\n", i, len, why);
    }
    CHECK_MSG (bad == 0, "%d random buffers returned a bad envelope", bad);
    fprintf (stderr, "fuzz: %d of %d random buffers returned an envelope\n", returned,
             NRANDOM);
}

static void
test_fuzz_mutate (void)
{
    size_t cap = 0;
    for (size_t i = 0; i < ncorpus; i++)
        if (corpus[i].len > cap)
            cap = corpus[i].len;
    cap += 64;
    uint8_t *tmp = malloc (cap);
    static const uint8_t interesting[] = { 0x00, 0x01, 0x7f, 0x80, 0xff, 0x08, 0x0a, 0x12 };
    int bad = 0, returned = 0, valid = 0;
    for (int i = 0; i < NMUTATE; i++) {
        const blob_t *b = &corpus[rng_below (ncorpus)];
        size_t len = b->len;
        memcpy (tmp, b->buf, len);
        int nops = 1 + (int) rng_below (4);
        for (int op = 0; op < nops; op++) {
            switch (rng_below (4)) {
            case 0:                 // flip a bit
                if (len)
                    tmp[rng_below (len)] ^= (uint8_t) (1u << rng_below (8));
                break;
            case 1: {               // insert a byte
                if (len >= cap)
                    break;
                size_t at = rng_below (len + 1);
                memmove (tmp + at + 1, tmp + at, len - at);
                tmp[at] = (uint8_t) rng_next ();
                len++;
                break;
            }
            case 2: {               // delete a byte
                if (!len)
                    break;
                size_t at = rng_below (len);
                memmove (tmp + at, tmp + at + 1, len - at - 1);
                len--;
                break;
            }
            default:                // overwrite with an edge value
                if (len)
                    tmp[rng_below (len)] = interesting[rng_below (sizeof interesting)];
                break;
            }
        }
        int mm = -1;
        char err[256] = "";
        envelope_t *e = unpack_exact (tmp, len, &mm, err, sizeof err);
        if (!e)
            continue;
        returned++;
        valid += !mm;
        const char *why = judge (e, mm);
        if (why && !bad++)
            fprintf (stderr, "mutation %d (%zu bytes): %s\n", i, len, why);
    }
    free (tmp);
    CHECK_MSG (bad == 0, "%d mutations returned a bad envelope", bad);
    //  The mutator is not so destructive that nothing survives.
    CHECK_MSG (valid > NMUTATE / 100, "only %d mutations accepted", valid);
    fprintf (stderr, "fuzz: %d of %d mutations returned an envelope (%d valid)\n", returned,
             NMUTATE, valid);
}

int
main (void)
{
    hist_setup ();
    test_round_trip ();
    test_bounds_hello ();
    test_bounds_small ();
    test_bounds_prepare ();
    test_bounds_ready_snapshot_done ();
    test_envelope ();
    test_size_limit ();
    corpus_build ();
    test_truncation ();
    test_fuzz_random ();
    test_fuzz_mutate ();
    corpus_free ();
    return TEST_DONE ();
}
