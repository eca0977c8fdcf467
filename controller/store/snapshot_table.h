/*  snapshot_table.h: the table snapshots, one row per target and interval
    as schemas 1-19 stored it, read from the blocks of snapshot_blocks (a
    SQLite virtual table, eponymous: every connection that registers it
    has it, without anything in the schema).  Every reader of per-interval
    data (reports, fio's format, the live view, significance, recovery)
    reads it, so the one decoder is snapshot_codec.c.  INSERT adds a row
    to its block (tests, generators); rows are removed through
    snapshot_blocks, a block at a time.  The sqlite3 shell gets it from
    the extension the build makes: .load build/lib/iofleet_sqlite
*/
#pragma once

#include "sqlite_api.h"

/* Registers the table on db.  Returns a SQLite result code. */
int snapshot_table_register (sqlite3 *db);
