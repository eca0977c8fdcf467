/*  test_decode_pool.c: the agents' messages decoded on threads of their
    own (controller/agents/decode_pool.c), on a database of its own.

    What the loop relies on: every message comes back once, in the order
    it was handed over, whatever thread decoded it; each is unpacked (or
    says why not) exactly as on the loop; a snapshot's checks and block
    are what snapshot_prep makes on the loop with the same dictionary,
    byte for byte; a dictionary trained meanwhile is used once the pool is
    told; a full ring refuses more until the loop takes some; the loop
    waits for a message a thread has not finished, and nothing when none
    is pending.
*/
#include "testutil.h"
#include "store_fx.h"
#include "decode_pool.h"
#include "histogram.h"
#include "message.h"
#include "snapshot_store.h"
#include "fleet.h"
#include "snapcodec.h"
#include "snapshot_prep.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

#define NTARGETS 3

enum { GOOD, BAD_COUNT, GARBAGE, THREE_FRAMES, PING, NKINDS };

static uint8_t s_blob[NTARGETS][HIST_WIRE_MAX];
static int s_len[NTARGETS];

static void
make_blobs (void)
{
    for (int i = 0; i < NTARGETS; i++) {
        histogram_t h;
        histogram_reset (&h);
        for (int k = 0; k < 200; k++)
            histogram_record (&h, 40000 + (uint64_t) (k * k * (i + 2)) % 700000);
        s_len[i] = histogram_encode (&h, s_blob[i], sizeof s_blob[i]);
        CHECK (s_len[i] > 0);
    }
}

/* A SNAPSHOT of seq: NTARGETS targets each with 200 reads (199 in target
   1's when bad: its histogram then holds another count than ops). */
static uint8_t *
pack_snapshot (uint32_t seq, bool bad, size_t *len)
{
    Iofleet__Snapshot s = IOFLEET__SNAPSHOT__INIT;
    Iofleet__TargetSample ts[NTARGETS], *tp[NTARGETS];
    Iofleet__DirStats rd[NTARGETS];
    for (int t = 0; t < NTARGETS; t++) {
        iofleet__target_sample__init (&ts[t]);
        iofleet__dir_stats__init (&rd[t]);
        ts[t].target = (uint32_t) t;
        rd[t].ops = bad && t == 1 ? 199 : 200;
        rd[t].bytes = 200 * 4096 + seq;
        rd[t].histogram.data = s_blob[t];
        rd[t].histogram.len = (size_t) s_len[t];
        ts[t].read = &rd[t];
        tp[t] = &ts[t];
    }
    s.run = 7;
    s.step = 0;
    s.seq = seq;
    s.t_start = 1000000000ULL * seq;
    s.t_end = 1000000000ULL * (seq + 1);
    s.n_targets = NTARGETS;
    s.targets = tp;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_SNAPSHOT;
    env.snapshot = &s;
    return message_pack (&env, len);
}

/* Message i of the mix: its kind is i % NKINDS, its seq i. */
static zmsg_t *
make_msg (uint32_t i)
{
    zmsg_t *m = zmsg_new ();
    char rid[16];
    snprintf (rid, sizeof rid, "agent-%u", i % 7);
    zmsg_addstr (m, rid);
    size_t len = 0;
    uint8_t *buf = NULL;
    switch (i % NKINDS) {
    case GOOD:
    case BAD_COUNT:
    case THREE_FRAMES:
        buf = pack_snapshot (i, i % NKINDS == BAD_COUNT, &len);
        break;
    case GARBAGE: {
        static const uint8_t junk[] = { 0xff, 0xff, 0xff, 0x01, 0x02 };
        zmsg_addmem (m, junk, sizeof junk);
        return m;
    }
    case PING: {
        Iofleet__Ping p = IOFLEET__PING__INIT;
        p.t0 = i;
        envelope_t env = IOFLEET__ENVELOPE__INIT;
        env.body_case = IOFLEET__ENVELOPE__BODY_PING;
        env.ping = &p;
        buf = message_pack (&env, &len);
        break;
    }
    }
    CHECK (buf != NULL);
    zmsg_addmem (m, buf, len);
    free (buf);
    if (i % NKINDS == THREE_FRAMES)
        zmsg_addstr (m, "extra");
    return m;
}

/* Message i as the pool gave it back, against what the loop makes of it
   with codec (the writer's, with the same dictionary). */
static void
check_msg (agent_msg_t *m, uint32_t i, snapcodec_t *codec, int64_t want_dict)
{
    int kind = (int) (i % NKINDS);
    if (kind == GARBAGE || kind == THREE_FRAMES) {
        CHECK_MSG (m->env == NULL && m->err[0], "message %u: kind %d decoded", i, kind);
        if (kind == THREE_FRAMES)
            CHECK_MSG (strstr (m->err, "one frame") != NULL, "message %u: %s", i, m->err);
        CHECK (!m->prep.done);
        return;
    }
    CHECK_MSG (m->env != NULL, "message %u: %s", i, m->err);
    if (!m->env)
        return;
    char rid[16];
    snprintf (rid, sizeof rid, "agent-%u", i % 7);
    CHECK_MSG (m->rid && zframe_streq (m->rid, rid), "message %u: another routing id", i);
    if (kind == PING) {
        CHECK (m->env->body_case == IOFLEET__ENVELOPE__BODY_PING && m->env->ping->t0 == i);
        CHECK (!m->prep.done);
        return;
    }
    CHECK_MSG (m->env->body_case == IOFLEET__ENVELOPE__BODY_SNAPSHOT
               && m->env->snapshot->seq == i, "message %u out of order", i);
    CHECK (m->prep.done);
    snapshot_prep_t loop = { 0 };
    snapshot_prep (&loop, codec, m->env->snapshot);
    CHECK (loop.bad_sample == m->prep.bad_sample);
    if (kind == BAD_COUNT) {
        CHECK (m->prep.bad_sample == 1 && m->prep.bad_dir == 0 && m->prep.bad_which == 0);
        CHECK (m->prep.bad_why && strstr (m->prep.bad_why, "another number"));
        CHECK (m->prep.len == 0);
    } else {
        CHECK_MSG (m->prep.dict_id == want_dict, "message %u: dictionary %lld, want %lld", i,
                   (long long) m->prep.dict_id, (long long) want_dict);
        CHECK_MSG (m->prep.len == loop.len && m->prep.dict_id == loop.dict_id
                   && memcmp (m->prep.block, loop.block, loop.len) == 0,
                   "message %u: block of %zu bytes, the loop's %zu", i, m->prep.len, loop.len);
        char err[256];
        Iofleet__Snapshot *back = snapcodec_decode (codec, m->prep.dict_id, m->prep.block,
                                                    m->prep.len, err, sizeof err);
        CHECK_MSG (back && back->t_start == 1000000000ULL * i && back->n_targets == NTARGETS
                   && back->targets[1]->read->bytes == 200 * 4096 + i, "message %u: %s", i,
                   back ? "other figures" : err);
        if (back)
            snapcodec_release (back);
    }
    snapshot_prep_clear (&loop);
}

int
main (void)
{
    make_blobs ();
    char dir[] = "/tmp/test_decode_pool.XXXXXX";
    store_t *store = store_fx_open (dir);
    if (!store)
        return 1;
    const char *path = sqlite3_db_filename (store_db (store), "main");
    char err[512];

    CHECK (decode_pool_new (path, 0, err, sizeof err) == NULL && strstr (err, "1 to"));
    CHECK (decode_pool_threads (NULL) == 0);
    decode_pool_t *pool = decode_pool_new (path, 2, err, sizeof err);
    CHECK_MSG (pool != NULL, "%s", err);
    if (!pool)
        return 1;
    CHECK (decode_pool_threads (pool) == 2);

    /* A mix of every kind, handed over in bursts and taken back as the
       loop does: in order, each once. */
    uint32_t pushed = 0, taken = 0;
    while (taken < 3000) {
        for (int b = 0; b < 250 && pushed < 3000 && decode_pool_room (pool); b++) {
            zmsg_t *m = make_msg (pushed++);
            decode_pool_push (pool, &m);
            CHECK (m == NULL);
        }
        agent_msg_t *m = decode_pool_wait (pool);
        CHECK_MSG (m != NULL, "message %u never came back", taken);
        if (!m)
            break;
        check_msg (m, taken++, store_codec (store), 0);
        decode_pool_release (pool);
    }
    CHECK (decode_pool_pending (pool) == 0 && decode_pool_wait (pool) == NULL);

    /* A dictionary trained on the database's blocks: the pool writes
       with it once told, byte for byte as the loop does. */
    sqlite3_stmt *ins;
    CHECK (sqlite3_prepare_v2 (store_db (store), SNAPSHOT_STORE_INSERT (""), -1, &ins, NULL)
           == SQLITE_OK);
    CHECK (store_fx_exec (store, "BEGIN") == SQLITE_OK);
    for (uint32_t q = 0; q < 300; q++) {
        size_t len;
        uint8_t *buf = pack_snapshot (q, false, &len);
        int mm;
        envelope_t *env = message_unpack (buf, len, &mm, err, sizeof err);
        CHECK (env != NULL);
        if (env)
            CHECK (snapshot_store_put (ins, store_codec (store), 7, 0, 1, env->snapshot, err,
                                       sizeof err) == 0);
        message_free (env);
        free (buf);
    }
    CHECK (store_fx_exec (store, "COMMIT") == SQLITE_OK);
    sqlite3_finalize (ins);
    int samples;
    size_t bytes;
    CHECK (snapshot_store_train (store_db (store), store_codec (store), 200, 1, &samples, &bytes,
                                 err, sizeof err) == 1);
    decode_pool_reload (pool);
    for (uint32_t i = 0; i < 50; i++) {
        zmsg_t *m = make_msg (i * NKINDS);     /* GOOD ones */
        decode_pool_push (pool, &m);
    }
    for (uint32_t i = 0; i < 50; i++) {
        agent_msg_t *m = decode_pool_wait (pool);
        CHECK (m != NULL);
        if (!m)
            break;
        check_msg (m, i * NKINDS, store_codec (store), 1);
        decode_pool_release (pool);
    }

    /* A full ring takes no more until the loop takes some back. */
    for (uint32_t i = 0; i < DECODE_POOL_RING; i++) {
        CHECK (decode_pool_room (pool));
        zmsg_t *m = make_msg (i);
        decode_pool_push (pool, &m);
    }
    CHECK (!decode_pool_room (pool) && decode_pool_pending (pool) == DECODE_POOL_RING);
    uint32_t back = 0;
    agent_msg_t *m;
    while (back < DECODE_POOL_RING && (m = decode_pool_wait (pool))) {
        check_msg (m, back++, store_codec (store), 1);
        decode_pool_release (pool);
    }
    CHECK (back == DECODE_POOL_RING && decode_pool_room (pool));

    /* Destroyed with messages still in it: they are dropped (the agents
       send them again), nothing leaks (ASan). */
    for (uint32_t i = 0; i < 100; i++) {
        zmsg_t *mm = make_msg (i);
        decode_pool_push (pool, &mm);
    }
    decode_pool_destroy (&pool);
    CHECK (pool == NULL);

    store_fx_close (&store, dir);
    printf ("test_decode_pool: %d checks, %d failed\n", test_checks, test_failures);
    return test_failures ? 1 : 0;
}
