/*  test_snapshot_blocks.c: per-interval data stored one compressed block
    per agent and interval (controller/store/snapcodec.c, snapshot_store.c,
    snapshot_table.c), on a database of its own.

    What every reader relies on: the snapshots table gives back exactly the
    rows that went in (counters, each histogram's bytes, NULL where a
    direction had none), in key order, filtered by any of its key
    columns; a block that does not decode is an error naming it, never
    missing rows; a dictionary trained on the database's blocks makes
    later blocks smaller and they still decode; the rows of schema 19's
    table convert into blocks that read back the same.
*/
#include "testutil.h"
#include "store_fx.h"
#include "histogram.h"
#include "snapshot_store.h"
#include "snapcodec.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define NAGENTS 3
#define NTARGETS 4
#define NSEQ 5

static uint8_t s_blob[4][HIST_WIRE_MAX];
static int s_len[4];

/* Histograms of different shapes, like drives of one agent. */
static void
make_blobs (void)
{
    for (int i = 0; i < 4; i++) {
        histogram_t h;
        histogram_reset (&h);
        for (int k = 0; k < 200; k++)
            histogram_record (&h, 50000 + (uint64_t) (k * k * (i + 1)) % 900000);
        s_len[i] = histogram_encode (&h, s_blob[i], sizeof s_blob[i]);
        CHECK (s_len[i] > 0);
    }
}

/* One row per target, written through the table itself (as tests and
   generators do), targets in reverse order: a block keeps them sorted.
   Target 3 writes nothing (NULL histograms, zero counters). */
static const char *INS =
    "INSERT INTO %s (run_id, step_idx, agent_id, target, seq, t_start, t_end, read_ops, "
    " read_bytes, read_errors, read_hist, read_slat_hist, read_lat_hist, write_ops, write_bytes, "
    " write_errors, write_hist, write_slat_hist, write_lat_hist, trim_ops, trim_bytes, "
    " trim_errors, trim_hist, trim_slat_hist, trim_lat_hist) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, 0, ?, NULL, NULL, 0, 0, 0, NULL, "
    " NULL, NULL)";

static void
fill (sqlite3 *db, const char *table, int run, int nseq)
{
    char sql[1024];
    snprintf (sql, sizeof sql, INS, table);
    sqlite3_stmt *st;
    CHECK_MSG (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) == SQLITE_OK, "%s", sqlite3_errmsg (db));
    CHECK (sqlite3_exec (db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK);
    for (int a = 1; a <= NAGENTS; a++)
        for (int q = 0; q < nseq; q++)
            for (int t = NTARGETS - 1; t >= 0; t--) {
                bool idle = t == 3;
                sqlite3_bind_int (st, 1, run);
                sqlite3_bind_int (st, 2, 0);
                sqlite3_bind_int (st, 3, a);
                sqlite3_bind_int (st, 4, t);
                sqlite3_bind_int (st, 5, q);
                sqlite3_bind_int64 (st, 6, 1000000000LL * q + a);
                sqlite3_bind_int64 (st, 7, 1000000000LL * (q + 1) + a);
                sqlite3_bind_int (st, 8, idle ? 0 : 200);
                sqlite3_bind_int (st, 9, idle ? 0 : 200 * 4096 + t);
                sqlite3_bind_int (st, 10, t == 1);
                if (idle) {
                    for (int c = 11; c <= 15; c++)
                        sqlite3_bind_null (st, c);
                    sqlite3_bind_int (st, 13, 0);
                    sqlite3_bind_int (st, 14, 0);
                } else {
                    sqlite3_bind_blob (st, 11, s_blob[t], s_len[t], SQLITE_STATIC);
                    sqlite3_bind_blob (st, 12, s_blob[(t + 1) % 4], s_len[(t + 1) % 4],
                                       SQLITE_STATIC);
                    sqlite3_bind_int (st, 13, 200);
                    sqlite3_bind_int (st, 14, 200 * 8192);
                    sqlite3_bind_blob (st, 15, s_blob[(t + 2) % 4], s_len[(t + 2) % 4],
                                       SQLITE_STATIC);
                }
                CHECK_MSG (sqlite3_step (st) == SQLITE_DONE, "%s", sqlite3_errmsg (db));
                sqlite3_reset (st);
            }
    sqlite3_finalize (st);
    CHECK (sqlite3_exec (db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK);
}

static int64_t
one (sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = -1;
    CHECK_MSG (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql,
               sqlite3_errmsg (db));
    if (sqlite3_step (st) == SQLITE_ROW)
        v = sqlite3_column_int64 (st, 0);
    sqlite3_finalize (st);
    return v;
}

/* Every row of run as read through the table, checked field by field
   against what fill wrote, in key order. */
static void
check_rows (sqlite3 *db, int run, int nseq)
{
    sqlite3_stmt *st;
    CHECK (sqlite3_prepare_v2 (db,
        "SELECT agent_id, seq, target, t_start, t_end, read_ops, read_bytes, read_errors, "
        " read_hist, read_slat_hist, read_lat_hist, write_ops, write_bytes, write_hist, "
        " write_slat_hist, write_lat_hist, trim_ops, trim_hist FROM snapshots "
        "WHERE run_id = ? AND step_idx = 0 ORDER BY run_id, step_idx, agent_id, seq, target",
        -1, &st, NULL) == SQLITE_OK);
    sqlite3_bind_int (st, 1, run);
    int n = 0;
    for (int a = 1; a <= NAGENTS; a++)
        for (int q = 0; q < nseq; q++)
            for (int t = 0; t < NTARGETS; t++, n++) {
                bool idle = t == 3;
                CHECK_MSG (sqlite3_step (st) == SQLITE_ROW, "row %d: %s", n, sqlite3_errmsg (db));
                CHECK (sqlite3_column_int (st, 0) == a);
                CHECK (sqlite3_column_int (st, 1) == q);
                CHECK (sqlite3_column_int (st, 2) == t);
                CHECK (sqlite3_column_int64 (st, 3) == 1000000000LL * q + a);
                CHECK (sqlite3_column_int64 (st, 4) == 1000000000LL * (q + 1) + a);
                CHECK (sqlite3_column_int (st, 5) == (idle ? 0 : 200));
                CHECK (sqlite3_column_int (st, 6) == (idle ? 0 : 200 * 4096 + t));
                CHECK (sqlite3_column_int (st, 7) == (t == 1));
                CHECK (sqlite3_column_type (st, 9) == SQLITE_NULL);     /* no slat */
                CHECK (sqlite3_column_type (st, 14) == SQLITE_NULL);
                CHECK (sqlite3_column_int (st, 16) == 0);
                CHECK (sqlite3_column_type (st, 17) == SQLITE_NULL);    /* no trims */
                if (idle) {
                    CHECK (sqlite3_column_type (st, 8) == SQLITE_NULL);
                    CHECK (sqlite3_column_type (st, 13) == SQLITE_NULL);
                    CHECK (sqlite3_column_int (st, 11) == 0);
                    continue;
                }
                CHECK (sqlite3_column_bytes (st, 8) == s_len[t]
                       && memcmp (sqlite3_column_blob (st, 8), s_blob[t], (size_t) s_len[t]) == 0);
                int l = (t + 1) % 4, w = (t + 2) % 4;
                CHECK (sqlite3_column_bytes (st, 10) == s_len[l]
                       && memcmp (sqlite3_column_blob (st, 10), s_blob[l], (size_t) s_len[l]) == 0);
                CHECK (sqlite3_column_int (st, 11) == 200);
                CHECK (sqlite3_column_int (st, 12) == 200 * 8192);
                CHECK (sqlite3_column_bytes (st, 13) == s_len[w]
                       && memcmp (sqlite3_column_blob (st, 13), s_blob[w], (size_t) s_len[w]) == 0);
            }
    CHECK (sqlite3_step (st) == SQLITE_DONE);
    sqlite3_finalize (st);
}

int
main (void)
{
    make_blobs ();
    char dir[] = "/tmp/test_snapshot_blocks.XXXXXX";
    store_t *store = store_fx_open (dir);
    sqlite3 *db = store_db (store);

    /* Rows in through the table: one block per agent and interval. */
    fill (db, "snapshots", 1, NSEQ);
    CHECK (one (db, "SELECT COUNT(*) FROM snapshot_blocks WHERE run_id = 1") == NAGENTS * NSEQ);
    CHECK (one (db, "SELECT SUM(targets) FROM snapshot_blocks WHERE run_id = 1")
           == NAGENTS * NSEQ * NTARGETS);
    CHECK (one (db, "SELECT COUNT(*) FROM snapshot_blocks WHERE dict_id != 0") == 0);
    check_rows (db, 1, NSEQ);

    /* Each key column narrows alone and together; the target too. */
    CHECK (one (db, "SELECT COUNT(*) FROM snapshots WHERE run_id = 1") == NAGENTS * NSEQ * NTARGETS);
    CHECK (one (db, "SELECT COUNT(*) FROM snapshots WHERE run_id = 2") == 0);
    CHECK (one (db, "SELECT COUNT(*) FROM snapshots WHERE agent_id = 2") == NSEQ * NTARGETS);
    CHECK (one (db, "SELECT COUNT(*) FROM snapshots WHERE seq = 3 AND target = 2") == NAGENTS);
    CHECK (one (db, "SELECT COUNT(*) FROM snapshots WHERE run_id = 1 AND step_idx = 0 "
                    "AND agent_id = 3 AND seq = 4 AND target = 1") == 1);
    CHECK (one (db, "SELECT COUNT(*) FROM snapshots WHERE target = 9") == 0);
    CHECK (one (db, "SELECT COUNT(*) FROM snapshots WHERE target = 'x'") == 0);
    CHECK (one (db, "SELECT SUM(read_errors) FROM snapshots WHERE run_id = 1") == NAGENTS * NSEQ);
    /* Another order than the key's: SQLite sorts, nothing lost. */
    CHECK (one (db, "SELECT group_concat(target, '') FROM (SELECT target FROM snapshots "
                    "WHERE agent_id = 1 AND seq = 0 ORDER BY target DESC)") == 3210);
    /* A join, as the reports make it. */
    CHECK (store_fx_exec (store, "INSERT INTO agents (id, name, first_seen, last_seen) VALUES "
                                 "(1, 'a', 0, 0), (2, 'b', 0, 0), (3, 'c', 0, 0)") == SQLITE_OK);
    CHECK (one (db, "SELECT COUNT(*) FROM snapshots s JOIN agents a ON a.id = s.agent_id "
                    "WHERE s.run_id = 1 AND s.step_idx = 0 AND a.name = 'b'") == NSEQ * NTARGETS);

    /* A row again replaces its target in the block, nothing doubles. */
    CHECK (store_fx_exec (store, "INSERT INTO snapshots (run_id, step_idx, agent_id, target, "
                                 "seq, t_start, t_end, read_ops) VALUES (1, 0, 1, 2, 0, 1, "
                                 "1000000001, 7)") == SQLITE_OK);
    CHECK (one (db, "SELECT COUNT(*) FROM snapshots WHERE run_id = 1") == NAGENTS * NSEQ * NTARGETS);
    CHECK (one (db, "SELECT read_ops FROM snapshots WHERE agent_id = 1 AND seq = 0 AND target = 2")
           == 7);
    CHECK (store_fx_exec (store, "DELETE FROM snapshot_blocks WHERE run_id = 1 AND agent_id = 1 "
                                 "AND seq = 0") == SQLITE_OK);
    fill (db, "snapshots", 1, NSEQ);
    check_rows (db, 1, NSEQ);

    /* Rows are removed a block at a time, from snapshot_blocks: deleting
       from the table is refused, naming where. */
    char *msg = NULL;
    CHECK (sqlite3_exec (db, "DELETE FROM snapshots WHERE run_id = 1", NULL, NULL, &msg)
           != SQLITE_OK);
    CHECK_MSG (msg && strstr (msg, "snapshot_blocks"), "%s", msg ? msg : "(none)");
    sqlite3_free (msg);
    check_rows (db, 1, NSEQ);

    /* A dictionary trained on the blocks: later blocks use it, are
       smaller, and read back the same; the blocks before keep theirs. */
    int samples = 0;
    size_t bytes = 0;
    char err[256];
    CHECK (snapshot_store_train (db, store_codec (store), 1000, 1, &samples, &bytes, err,
                                 sizeof err) == 0);     /* too few */
    fill (db, "snapshots", 2, 100);                      /* 300 more blocks */
    int64_t plain = one (db, "SELECT SUM(length(data)) FROM snapshot_blocks WHERE run_id = 2");
    int rc = snapshot_store_train (db, store_codec (store), 200, 1, &samples, &bytes, err,
                                   sizeof err);
    CHECK_MSG (rc == 1, "train: %d %s", rc, err);
    CHECK (samples == 315 && bytes > 0 && bytes <= SNAPSHOT_DICT_BYTES);
    CHECK (one (db, "SELECT COUNT(*) FROM snapshot_dicts") == 1);
    fill (db, "snapshots", 3, 100);
    int64_t with = one (db, "SELECT SUM(length(data)) FROM snapshot_blocks WHERE run_id = 3");
    CHECK (one (db, "SELECT MIN(dict_id) FROM snapshot_blocks WHERE run_id = 3") == 1);
    CHECK (one (db, "SELECT MAX(dict_id) FROM snapshot_blocks WHERE run_id = 2") == 0);
    CHECK_MSG (with < plain, "with a dictionary %lld bytes, without %lld", (long long) with,
               (long long) plain);
    check_rows (db, 2, 100);
    check_rows (db, 3, 100);
    /* A reader's connection of its own decodes with it too. */
    store_t *rd = store_open_reader (sqlite3_db_filename (db, "main"), err, sizeof err);
    CHECK_MSG (rd != NULL, "%s", err);
    check_rows (store_db (rd), 3, 100);

    /* A damaged block is an error naming it, not rows that are missing. */
    CHECK (store_fx_exec (store, "UPDATE snapshot_blocks SET data = x'28b52ffd0000' "
                                 "WHERE run_id = 3 AND agent_id = 2 AND seq = 7") == SQLITE_OK);
    sqlite3_stmt *st;
    CHECK (sqlite3_prepare_v2 (store_db (rd), "SELECT COUNT(*) FROM snapshots WHERE run_id = 3",
                               -1, &st, NULL) == SQLITE_OK);
    CHECK (sqlite3_step (st) != SQLITE_ROW);
    CHECK_MSG (strstr (sqlite3_errmsg (store_db (rd)), "run 3 step 0 agent 2 seq 7"), "%s",
               sqlite3_errmsg (store_db (rd)));
    sqlite3_finalize (st);
    store_close (&rd);

    /* A histogram that is not histogram_encode's own (a longer varint
       than needed) is kept whole: the same bytes come back. */
    CHECK (store_fx_exec (store, "INSERT INTO snapshots (run_id, step_idx, agent_id, target, "
                                 "seq, t_start, t_end, read_ops, read_hist, write_ops, write_hist) "
                                 "VALUES (5, 0, 1, 0, 0, 1, 2, 1, x'01818000', 1, x'ffee')")
           == SQLITE_OK);
    CHECK (one (db, "SELECT COUNT(*) FROM snapshots WHERE run_id = 5 AND hex(read_hist) = "
                    "'01818000' AND hex(write_hist) = 'FFEE'") == 1);

    /* Damaged bytes inside a frame that decompresses: an error or a
       message, never a crash or a read past the end (the sanitizer build
       runs this too). */
    {
        Iofleet__Snapshot *m = NULL;
        sqlite3_stmt *b;
        CHECK (sqlite3_prepare_v2 (db, "SELECT dict_id, data FROM snapshot_blocks WHERE run_id = 1 "
                                       "LIMIT 1", -1, &b, NULL) == SQLITE_OK);
        CHECK (sqlite3_step (b) == SQLITE_ROW);
        m = snapcodec_decode (store_codec (store), sqlite3_column_int64 (b, 0),
                              sqlite3_column_blob (b, 1), (size_t) sqlite3_column_bytes (b, 1),
                              err, sizeof err);
        sqlite3_finalize (b);
        CHECK_MSG (m != NULL, "%s", err);
        const uint8_t *raw;
        size_t rawlen;
        CHECK (snapcodec_pack (store_codec (store), m, &raw, &rawlen, err, sizeof err) == 0);
        uint8_t *good = malloc (rawlen), *bad = malloc (rawlen), z[65536];
        memcpy (good, raw, rawlen);
        srand (7);
        int decoded = 0, refused = 0;
        for (int i = 0; i < 3000; i++) {
            memcpy (bad, good, rawlen);
            size_t n = i % 3 == 0 ? (size_t) rand () % rawlen : rawlen;   /* cut short */
            for (int k = 0; k < 1 + i % 3; k++)
                bad[(size_t) rand () % rawlen] ^= (uint8_t) (1 + rand () % 255);
            size_t zl = ZSTD_compress (z, sizeof z, bad, n, 1);
            CHECK (!ZSTD_isError (zl));
            Iofleet__Snapshot *x = snapcodec_decode (store_codec (store), 0, z, zl, err,
                                                     sizeof err);
            if (x) {
                decoded++;
                for (size_t t = 0; t < x->n_targets; t++)
                    CHECK (x->targets[t] != NULL);
                snapcodec_release (x);
            } else
                refused++;
        }
        CHECK (refused > 0);
        printf ("damaged blocks: %d refused, %d decoded to some message\n", refused, decoded);
        free (good);
        free (bad);
        snapcodec_release (m);
    }

    /* Schema 19's rows (one per target) convert into blocks that read
       back the same, in batches, and the old table goes. */
    CHECK (store_fx_exec (store, "CREATE TABLE old_rows (run_id INTEGER, step_idx INTEGER, "
        "agent_id INTEGER, target INTEGER, seq INTEGER, t_start INTEGER, t_end INTEGER, "
        "read_ops INTEGER, read_bytes INTEGER, read_errors INTEGER, read_hist BLOB, "
        "read_slat_hist BLOB, read_lat_hist BLOB, write_ops INTEGER, write_bytes INTEGER, "
        "write_errors INTEGER, write_hist BLOB, write_slat_hist BLOB, write_lat_hist BLOB, "
        "trim_ops INTEGER, trim_bytes INTEGER, trim_errors INTEGER, trim_hist BLOB, "
        "trim_slat_hist BLOB, trim_lat_hist BLOB)") == SQLITE_OK);
    fill (db, "old_rows", 4, NSEQ);
    CHECK (snapshot_store_convert (db, store_codec (store), "old_rows", 1, NULL, NULL, err,
                                   sizeof err) == NAGENTS * NSEQ * NTARGETS);
    CHECK (one (db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'old_rows'") == 0);
    CHECK (one (db, "SELECT COUNT(*) FROM snapshot_blocks WHERE run_id = 4") == NAGENTS * NSEQ);
    check_rows (db, 4, NSEQ);

    store_fx_close (&store, dir);
    return TEST_DONE ();
}
