/*  test_message.c: unit tests for common/message.c, a message on the wire.

    Every body kind round trips, fields and histograms intact; an envelope
    with no body, of another protocol version, or over MSG_MAX_BYTES is
    refused or flagged as message.h says.  Beside it: every bound
    (test_message_bounds.c), truncation and random/mutated buffers
    (test_message_fuzz.c), and the fixture the three share (message_fx.c).

    Loops over many cases count their failures and CHECK once, naming the
    first bad case, so the check count stays a count of properties.
*/
#include "message_fx.h"
#include "histogram.h"
#include "testutil.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STREQ(a, b)     (strcmp ((a), (b)) == 0)

//  CHECK_STR_CONTAINS for a char array (its NULL test would not compile).
#define CHECK_ERR(err, needle) \
    CHECK_MSG (strstr ((err), (needle)) != NULL, "'%s' does not contain '%s'", (err), (needle))

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

/* Round trips of the session's messages: hello, welcome, reject, ping, pong. */
static void
test_round_trip_session (void)
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
}

/* Round trips of a step's start: prepare, ready, refused, start. */
static void
test_round_trip_step (void)
{
    envelope_t *e;
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
}

/* Round trips of a step's results: snapshot, ack, done. */
static void
test_round_trip_results (void)
{
    envelope_t *e;
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
}

/* Round trips of done's extras, error and abort. */
static void
test_round_trip_ends (void)
{
    envelope_t *e;
    //  latency_target: the depth per job of the step, in order.
    fx_done ();
    /* static: fx keeps the pointer after this returns. */
    static uint32_t depths[3] = { 3, 0, 17 };
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
}

/* message_kind of every kind. */
static void
test_round_trip_kinds (void)
{
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

static void
test_round_trip (void)
{
    test_round_trip_session ();
    test_round_trip_step ();
    test_round_trip_results ();
    test_round_trip_ends ();
    test_round_trip_kinds ();
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

int
main (void)
{
    hist_setup ();
    //  The histograms every snapshot of the fixture carries were encoded
    //  (here, for the three programs that encode the same ones).
    CHECK_MSG (wire_r_len > 0, "histogram_encode of the read histogram failed");
    CHECK_MSG (wire_w_len > 0, "histogram_encode of the write histogram failed");
    test_round_trip ();
    test_envelope ();
    test_size_limit ();
    return TEST_DONE ();
}
