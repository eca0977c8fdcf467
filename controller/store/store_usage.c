/*  store_usage.c: what the database holds and how it is (iofleet db
    usage, db check).  */
#include "store.h"
#include "store_internal.h"
#include "log.h"
#include "util.h"
#include "snapshot_store.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

void
store_size (store_t *self, int64_t *pages, int64_t *page_size)
{
    sqlite3_stmt *st;
    *pages = *page_size = 0;
    if (sqlite3_prepare_v2 (self->db, "SELECT (SELECT page_count FROM pragma_page_count), "
                            "(SELECT page_size FROM pragma_page_size)", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step (st) == SQLITE_ROW) {
            *pages = sqlite3_column_int64 (st, 0);
            *page_size = sqlite3_column_int64 (st, 1);
        }
        sqlite3_finalize (st);
    }
}

int64_t
store_free_pages (store_t *self)
{
    sqlite3_stmt *st = store_stmt (self, "PRAGMA freelist_count");
    int64_t n = store_row (self, st, "read the free list") == 1 ? sqlite3_column_int64 (st, 0)
                                                                : 0;
    if (st)
        sqlite3_reset (st);
    return n;
}

json_t *
store_usage (store_t *self, char *err, size_t errlen)
{
    /* A table's rows are the cells of its own b-tree's leaves, and of its
       interior pages too when it is WITHOUT ROWID (a b-tree of keys keeps
       rows there; a rowid table keeps only rowids). */
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2 (self->db,
            "SELECT t, SUM(pgsize), SUM(CASE WHEN own AND (pagetype = 'leaf' OR (wr AND pagetype "
            "  = 'internal')) THEN ncell END), "
            "  SUM(CASE WHEN own THEN 0 ELSE pgsize END) FROM (SELECT d.pgsize, d.ncell, "
            "  d.pagetype, COALESCE(m.tbl_name, d.name) AS t, "
            "  COALESCE(m.tbl_name, d.name) = d.name AS own, "
            "  COALESCE(m.sql LIKE '%WITHOUT ROWID%', 0) AS wr "
            "  FROM dbstat d LEFT JOIN sqlite_schema m ON m.name = d.name) "
            "GROUP BY t ORDER BY 2 DESC", -1, &st, NULL) != SQLITE_OK) {
        snprintf (err, errlen, "database usage: %s", sqlite3_errmsg (self->db));
        return NULL;
    }
    json_t *tables = json_array ();
    int rc;
    while ((rc = sqlite3_step (st)) == SQLITE_ROW)
        json_array_append_new (tables, json_pack ("{s:s, s:I, s:I, s:I}",
            "table", (const char *) sqlite3_column_text (st, 0),
            "rows", (json_int_t) sqlite3_column_int64 (st, 2),
            "bytes", (json_int_t) sqlite3_column_int64 (st, 1),
            "index_bytes", (json_int_t) sqlite3_column_int64 (st, 3)));
    if (rc != SQLITE_DONE) {
        snprintf (err, errlen, "database usage: %s", sqlite3_errmsg (self->db));
        sqlite3_finalize (st);
        json_decref (tables);
        return NULL;
    }
    sqlite3_finalize (st);
    /* What the per-interval data costs: its blocks with their index, per
       target-interval they hold (docs/design.md, Compact per-interval
       storage). */
    int64_t blocks = 0, tiv = 0, with_dict = 0, bytes = 0;
    if (sqlite3_prepare_v2 (self->db, "SELECT COUNT(*), COALESCE(SUM(targets), 0), "
                            "COALESCE(SUM(dict_id != 0), 0) FROM snapshot_blocks", -1, &st, NULL)
        == SQLITE_OK && sqlite3_step (st) == SQLITE_ROW) {
        blocks = sqlite3_column_int64 (st, 0);
        tiv = sqlite3_column_int64 (st, 1);
        with_dict = sqlite3_column_int64 (st, 2);
    }
    sqlite3_finalize (st);
    size_t i;
    json_t *t;
    json_array_foreach (tables, i, t)
        if (strcmp (json_string_value (json_object_get (t, "table")), "snapshot_blocks") == 0)
            bytes = json_integer_value (json_object_get (t, "bytes"));
    int64_t pages, page_size;
    store_size (self, &pages, &page_size);
    return json_pack ("{s:I, s:I, s:I, s:I, s:o, s:{s:I, s:I, s:I, s:I, s:f}}", "pages",
                      (json_int_t) pages, "page_size",
                      (json_int_t) page_size, "bytes", (json_int_t) (pages * page_size),
                      "free_bytes", (json_int_t) (store_free_pages (self) * page_size),
                      "tables", tables, "snapshots", "blocks", (json_int_t) blocks,
                      "target_intervals", (json_int_t) tiv, "blocks_with_dictionary",
                      (json_int_t) with_dict, "bytes", (json_int_t) bytes,
                      "bytes_per_target_interval", tiv ? (double) bytes / (double) tiv : 0.0);
}

json_t *
store_check (store_t *self, char *err, size_t errlen)
{
    store_commit (self);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2 (self->db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK) {
        snprintf (err, errlen, "integrity check: %s", sqlite3_errmsg (self->db));
        return NULL;
    }
    json_t *problems = json_array ();
    int rc;
    while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
        const char *m = (const char *) sqlite3_column_text (st, 0);
        if (m && strcmp (m, "ok") != 0)
            json_array_append_new (problems, json_string (m));
    }
    sqlite3_finalize (st);
    if (rc != SQLITE_DONE) {
        json_decref (problems);
        snprintf (err, errlen, "integrity check: %s", sqlite3_errmsg (self->db));
        return NULL;
    }
    int64_t pages = 0, page_size = 0;
    store_size (self, &pages, &page_size);
    return json_pack ("{s:b, s:o, s:I, s:I, s:I}", "ok", json_array_size (problems) == 0,
                      "problems", problems, "pages", (json_int_t) pages,
                      "page_size", (json_int_t) page_size, "bytes", (json_int_t) (pages * page_size));
}
