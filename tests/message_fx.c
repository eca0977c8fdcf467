/*  message_fx.c: the message tests' shared fixture; see message_fx.h. */
#include "message_fx.h"
#include "jobfile.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//  The program's counts (testutil.h, TEST_SHARED_COUNTS): its test file's
//  CHECKs; none here.
int test_failures;
int test_checks;

fx_t fx;

//  The read and write latency histograms every snapshot sample carries,
//  and their wire encodings (histogram_encode).
histogram_t hist_r, hist_w;
static uint8_t wire_r[HIST_WIRE_MAX], wire_w[HIST_WIRE_MAX];
size_t wire_r_len, wire_w_len;
//  HIST_WIRE_MAX + 1 bytes: one byte past the limit.
uint8_t big_hist[HIST_WIRE_MAX + 1];

static char label_keys[MSG_LABELS_MAX + 1][16];

//  Long strings: a small ring of buffers of n copies of c.
char *
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

void
hist_setup (void)
{
    histogram_reset (&hist_r);
    histogram_reset (&hist_w);
    for (uint64_t v = 1; v < 5000000; v = v * 3 / 2 + 7)
        histogram_record (&hist_r, v);
    histogram_record (&hist_r, (uint64_t) 1 << 45);     // one overflow
    for (int i = 0; i < 1000; i++)
        histogram_record (&hist_w, 20000 + (uint64_t) (i % 97) * 333);
    //  Checked by test_message (wire_*_len > 0), once for all programs:
    //  they encode the same histograms.
    int n = histogram_encode (&hist_r, wire_r, sizeof wire_r);
    wire_r_len = n > 0 ? (size_t) n : 0;
    n = histogram_encode (&hist_w, wire_w, sizeof wire_w);
    wire_w_len = n > 0 ? (size_t) n : 0;
    memset (big_hist, 0x5a, sizeof big_hist);
    for (int i = 0; i <= MSG_LABELS_MAX; i++)
        snprintf (label_keys[i], sizeof label_keys[i], "key%02d", i);
}

void
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

void
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

void
fx_welcome (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_WELCOME;
    fx.env.welcome = &fx.welcome;
    fx.welcome.agent_id = 77;
    fx.welcome.interval_ns = 1000000000ull;
}

void
fx_reject (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_REJECT;
    fx.env.reject = &fx.reject;
    fx.reject.reason = "an agent named agent-01 is already connected";
}

void
fx_ping (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_PING;
    fx.env.ping = &fx.ping;
    fx.ping.t0 = 1700000000123456789ull;
    fx.ping.offset_ns = -1234567;
    fx.ping.delay_ns = 250000;
}

void
fx_pong (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_PONG;
    fx.env.pong = &fx.pong;
    fx.pong.t0 = 1700000000123456789ull;
    fx.pong.t1 = 1700000000123999999ull;
    fx.pong.t2 = 1700000000124000100ull;
}

void
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

void
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

void
fx_refused (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_REFUSED;
    fx.env.refused = &fx.refused;
    fx.refused.run = 99;
    fx.refused.step = 2;
    fx.refused.reason = "'/dev/sda' is not allowed on this agent";
}

void
fx_start (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_START;
    fx.env.start = &fx.start;
    fx.start.run = 99;
    fx.start.step = 0;
    fx.start.start_at = 1700000005000000000ull;
}

void
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

void
fx_ack (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_ACK;
    fx.env.ack = &fx.ack;
    fx.ack.run = 99;
    fx.ack.step = 2;
    fx.ack.upto = 17;
}

void
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

void
fx_error (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_ERROR;
    fx.env.error = &fx.error;
    fx.error.run = 99;
    fx.error.step = 4;
    fx.error.message = "no such run";
}

void
fx_abort (void)
{
    fx_reset ();
    fx.env.body_case = IOFLEET__ENVELOPE__BODY_ABORT;
    fx.env.abort = &fx.abort;
    fx.abort.run = 99;
    fx.abort.reason = "user cancel";
}

//  Sized by the initializers: a kind added here and not to NKINDS (or the
//  other way round) conflicts with the declaration in message_fx.h.
const fx_kind_t kinds[] = {
    { "hello", fx_hello },       { "welcome", fx_welcome }, { "reject", fx_reject },
    { "ping", fx_ping },         { "pong", fx_pong },       { "prepare", fx_prepare },
    { "ready", fx_ready },       { "refused", fx_refused }, { "start", fx_start },
    { "snapshot", fx_snapshot }, { "ack", fx_ack },         { "done", fx_done },
    { "error", fx_error },       { "abort", fx_abort },
};

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

const char *
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
envelope_t *
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
uint8_t *
pack_fx (size_t *len)
{
    uint8_t *buf = message_pack (&fx.env, len);
    if (!buf)
        abort ();
    return buf;
}
