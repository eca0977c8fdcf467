/*  fuzz_seeds.c: writes the envelope and histogram seeds of
    tests/fuzz/corpus/ (fuzz_seeds DIR writes DIR/envelope/ and
    DIR/histogram/).  Run by hand when a wire format changes; the seeds are
    committed, so `make fuzz` does not run this.

    Every envelope kind once, as the programs build them (the PREPARE from a
    real job file through jobspec_from_job, snapshots carrying encoded
    histograms), and a few histograms: empty, one sample, a spread, and one
    with overflowed samples.  Small on purpose: libFuzzer grows the rest.
*/
#include "histogram.h"
#include "jobfile.h"
#include "jobspec.h"
#include "message.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *s_dir;

static void
put (const char *sub, const char *name, const uint8_t *buf, size_t len)
{
    char path[4096];
    snprintf (path, sizeof path, "%s/%s", s_dir, sub);
    if (mkdir (path, 0755) && errno != EEXIST) {
        perror (path);
        exit (1);
    }
    snprintf (path, sizeof path, "%s/%s/%s", s_dir, sub, name);
    FILE *f = fopen (path, "wb");
    if (!f || fwrite (buf, 1, len, f) != len || fclose (f)) {
        perror (path);
        exit (1);
    }
}

static void
put_env (const char *name, envelope_t *env)
{
    size_t len;
    uint8_t *buf = message_pack (env, &len);
    char err[256];
    int mm;
    envelope_t *back = buf ? message_unpack (buf, len, &mm, err, sizeof err) : NULL;
    if (!back || mm) {
        fprintf (stderr, "seed %s does not validate: %s\n", name, err);
        exit (1);
    }
    message_free (back);
    put ("envelope", name, buf, len);
    free (buf);
}

//  A histogram of n samples spread from lo ns by factor step each.
static int
encode_spread (uint8_t *wire, uint64_t lo, double step, int n)
{
    static histogram_t h;
    histogram_reset (&h);
    double v = (double) lo;
    for (int i = 0; i < n; i++, v *= step)
        histogram_record (&h, (uint64_t) v);
    return histogram_encode (&h, wire, HIST_WIRE_MAX);
}

static void
histograms (void)
{
    static uint8_t wire[HIST_WIRE_MAX];
    static histogram_t h;
    histogram_reset (&h);
    put ("histogram", "empty", wire, (size_t) histogram_encode (&h, wire, sizeof wire));
    histogram_record (&h, 81234);
    put ("histogram", "one-sample", wire, (size_t) histogram_encode (&h, wire, sizeof wire));
    put ("histogram", "spread", wire, (size_t) encode_spread (wire, 20000, 1.07, 120));
    histogram_reset (&h);
    for (uint64_t v = 1; v < 300; v += 7)
        histogram_record_n (&h, v, v % 5 + 1);
    put ("histogram", "small-values", wire, (size_t) histogram_encode (&h, wire, sizeof wire));
    histogram_reset (&h);
    histogram_record (&h, 5000000);
    histogram_record (&h, (uint64_t) 3 << HIST_MAX_BITS);
    put ("histogram", "overflow", wire, (size_t) histogram_encode (&h, wire, sizeof wire));
}

static void
envelopes (void)
{
    envelope_t env = IOFLEET__ENVELOPE__INIT;

    Iofleet__Label l1 = IOFLEET__LABEL__INIT, l2 = IOFLEET__LABEL__INIT;
    l1.key = "rack";
    l1.value = "r12";
    l2.key = "role";
    l2.value = "storage";
    Iofleet__Label *labels[] = { &l1, &l2 };
    Iofleet__Hello hello = IOFLEET__HELLO__INIT;
    hello.name = "node17";
    hello.hostname = "node17.example";
    hello.kernel = "6.1.0-18-amd64";
    hello.agent_version = "0.1.0";
    hello.labels = labels;
    hello.n_labels = 2;
    hello.pid = 4242;
    hello.inventory_json = "{\"host\":{\"cpus\":16},\"drives\":[{\"name\":\"nvme0n1\","
                           "\"transport\":\"nvme\"}]}";
    env.body_case = IOFLEET__ENVELOPE__BODY_HELLO;
    env.hello = &hello;
    put_env ("hello", &env);

    Iofleet__Welcome welcome = IOFLEET__WELCOME__INIT;
    welcome.agent_id = 3;
    welcome.interval_ns = 1000000000;
    env.body_case = IOFLEET__ENVELOPE__BODY_WELCOME;
    env.welcome = &welcome;
    put_env ("welcome", &env);

    Iofleet__Reject reject = IOFLEET__REJECT__INIT;
    reject.reason = "protocol version mismatch";
    env.body_case = IOFLEET__ENVELOPE__BODY_REJECT;
    env.reject = &reject;
    put_env ("reject", &env);

    Iofleet__Ping ping = IOFLEET__PING__INIT;
    ping.t0 = 1700000000000000000ull;
    ping.offset_ns = -1234;
    ping.delay_ns = 80000;
    env.body_case = IOFLEET__ENVELOPE__BODY_PING;
    env.ping = &ping;
    put_env ("ping", &env);

    Iofleet__Pong pong = IOFLEET__PONG__INIT;
    pong.t0 = 1700000000000000000ull;
    pong.t1 = pong.t0 + 40000;
    pong.t2 = pong.t1 + 900;
    env.body_case = IOFLEET__ENVELOPE__BODY_PONG;
    env.pong = &pong;
    put_env ("pong", &env);

    //  PREPARE as the runner sends it: two jobs of one step.
    char err[256];
    jobfile_t *jf = jobfile_parse ("seed.fio",
        "[global]\nioengine=libaio\ndirect=1\nruntime=10s\ntime_based\n"
        "[a]\nfilename=/dev/nvme0n1:/dev/nvme1n1\nrw=randrw\nrwmixread=70\n"
        "bssplit=4k/50:64k/50\niodepth=32\niodepth_batch_submit=8\nnumjobs=2\n"
        "[b]\nfilename=/dev/sdb\nrw=read\nbs=128k\nrate_iops=500\n"
        "random_distribution=zipf:1.2\ncpus_allowed=0-3\n", err, sizeof err);
    if (!jf || jf->nsteps != 2) {
        fprintf (stderr, "seed job file: %s\n", err);
        exit (1);
    }
    static jobspec_t js[2];
    jobspec_from_job (&js[0], &jf->steps[0], 1000000000);
    jobspec_from_job (&js[1], &jf->steps[1], 1000000000);
    Iofleet__JobSpec *more[] = { &js[1].spec };
    Iofleet__Prepare prep = IOFLEET__PREPARE__INIT;
    prep.run = 42;
    prep.step = 1;
    prep.job = &js[0].spec;
    prep.more_jobs = more;
    prep.n_more_jobs = 1;
    env.body_case = IOFLEET__ENVELOPE__BODY_PREPARE;
    env.prepare = &prep;
    put_env ("prepare", &env);
    jobfile_destroy (&jf);

    char *targets[] = { "/dev/nvme0n1", "/dev/nvme1n1", "/dev/sdb" };
    Iofleet__Ready ready = IOFLEET__READY__INIT;
    ready.run = 42;
    ready.step = 1;
    ready.targets = targets;
    ready.n_targets = 3;
    ready.clock_offset_ns = 5200;
    ready.clock_delay_ns = 61000;
    ready.inventory_json = "{\"host\":{\"cpus\":16}}";
    env.body_case = IOFLEET__ENVELOPE__BODY_READY;
    env.ready = &ready;
    put_env ("ready", &env);

    Iofleet__Refused refused = IOFLEET__REFUSED__INIT;
    refused.run = 42;
    refused.step = 1;
    refused.reason = "/dev/sdb: not allowed by --allow";
    env.body_case = IOFLEET__ENVELOPE__BODY_REFUSED;
    env.refused = &refused;
    put_env ("refused", &env);

    Iofleet__Start start = IOFLEET__START__INIT;
    start.run = 42;
    start.step = 1;
    start.start_at = 1700000000050000000ull;
    env.body_case = IOFLEET__ENVELOPE__BODY_START;
    env.start = &start;
    put_env ("start", &env);

    //  A snapshot of two targets with histograms in every slot.
    static uint8_t w[3][HIST_WIRE_MAX];
    int n0 = encode_spread (w[0], 60000, 1.15, 40);
    int n1 = encode_spread (w[1], 900, 1.3, 12);
    int n2 = encode_spread (w[2], 61000, 1.15, 40);
    Iofleet__DirStats rd = IOFLEET__DIR_STATS__INIT, wr = IOFLEET__DIR_STATS__INIT;
    rd.ops = 40;
    rd.bytes = 40 * 4096;
    rd.histogram = (ProtobufCBinaryData) { (size_t) n0, w[0] };
    rd.slat_histogram = (ProtobufCBinaryData) { (size_t) n1, w[1] };
    rd.lat_histogram = (ProtobufCBinaryData) { (size_t) n2, w[2] };
    wr.ops = 12;
    wr.bytes = 12 * 65536;
    wr.errors = 1;
    wr.histogram = (ProtobufCBinaryData) { (size_t) n1, w[1] };
    Iofleet__TargetSample t0 = IOFLEET__TARGET_SAMPLE__INIT, t1 = IOFLEET__TARGET_SAMPLE__INIT;
    t0.target = 0;
    t0.read = &rd;
    t0.write = &wr;
    t1.target = 2;
    t1.read = &rd;
    Iofleet__TargetSample *samples[] = { &t0, &t1 };
    Iofleet__Snapshot snap = IOFLEET__SNAPSHOT__INIT;
    snap.run = 42;
    snap.step = 1;
    snap.seq = 7;
    snap.t_start = 1700000007050000000ull;
    snap.t_end = snap.t_start + 1000000000;
    snap.targets = samples;
    snap.n_targets = 2;
    env.body_case = IOFLEET__ENVELOPE__BODY_SNAPSHOT;
    env.snapshot = &snap;
    put_env ("snapshot", &env);

    Iofleet__Ack ack = IOFLEET__ACK__INIT;
    ack.run = 42;
    ack.step = 1;
    ack.upto = 7;
    env.body_case = IOFLEET__ENVELOPE__BODY_ACK;
    env.ack = &ack;
    put_env ("ack", &env);

    //  DONE carries totals with histograms left empty.
    Iofleet__DirStats trd = IOFLEET__DIR_STATS__INIT;
    trd.ops = 400000;
    trd.bytes = 400000ull * 4096;
    Iofleet__TargetSample tt = IOFLEET__TARGET_SAMPLE__INIT;
    tt.target = 0;
    tt.read = &trd;
    Iofleet__TargetSample *totals[] = { &tt };
    Iofleet__Done done = IOFLEET__DONE__INIT;
    done.run = 42;
    done.step = 1;
    done.snapshots = 10;
    done.actual_start = 1700000000050001000ull;
    done.totals = totals;
    done.n_totals = 1;
    env.body_case = IOFLEET__ENVELOPE__BODY_DONE;
    env.done = &done;
    put_env ("done", &env);

    Iofleet__Error error = IOFLEET__ERROR__INIT;
    error.run = 42;
    error.message = "unknown agent: send hello first";
    env.body_case = IOFLEET__ENVELOPE__BODY_ERROR;
    env.error = &error;
    put_env ("error", &env);

    Iofleet__Abort abort_ = IOFLEET__ABORT__INIT;
    abort_.run = 42;
    abort_.reason = "run cancelled";
    env.body_case = IOFLEET__ENVELOPE__BODY_ABORT;
    env.abort = &abort_;
    put_env ("abort", &env);
}

int
main (int argc, char **argv)
{
    if (argc != 2) {
        fprintf (stderr, "usage: fuzz_seeds DIR (writes DIR/envelope/, DIR/histogram/)\n");
        return 2;
    }
    s_dir = argv[1];
    envelopes ();
    histograms ();
    return 0;
}
