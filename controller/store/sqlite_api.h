/*  sqlite_api.h: SQLite's API for the files built both into the controller
    and into the SQLite extension (build/lib/iofleet_sqlite.so, which lets
    the sqlite3 shell read the snapshots table: docs/design.md, Compact
    per-interval storage).  In the extension every call goes through the
    loader's table of functions.
*/
#pragma once

#ifdef IOFLEET_SQLITE_EXTENSION
#include <sqlite3ext.h>
extern const sqlite3_api_routines *sqlite3_api;
#else
#include <sqlite3.h>
#endif
