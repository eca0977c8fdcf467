/*  side_db.c: see side_db.h. */
#include "side_db.h"
#include "log.h"
#include "snapshot_table.h"

#include <stddef.h>

/* Runs sql on db.  Returns 0 or -1 (logged "WHO: SQL: why"). */
static int
s_exec (sqlite3 *db, const char *sql, const char *who)
{
    char *msg = NULL;
    int rc = sqlite3_exec (db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        log_err ("%s: %s: %s", who, sql, msg ? msg : sqlite3_errstr (rc));
    sqlite3_free (msg);
    return rc == SQLITE_OK ? 0 : -1;
}

sqlite3 *
side_db_open (const char *path, int busy_ms, const char *who)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        log_err ("%s: cannot open database %s: %s", who, path,
                 db ? sqlite3_errmsg (db) : "out of memory");
        sqlite3_close (db);
        return NULL;
    }
    sqlite3_busy_timeout (db, busy_ms);
    if (s_exec (db, "PRAGMA synchronous=FULL", who) || s_exec (db, "PRAGMA foreign_keys=ON", who)
        || snapshot_table_register (db) != SQLITE_OK) {
        sqlite3_close (db);
        return NULL;
    }
    return db;
}

int
side_db_begin (sqlite3 *db, bool immediate, const char *who)
{
    return s_exec (db, immediate ? "BEGIN IMMEDIATE" : "BEGIN", who);
}

int
side_db_commit (sqlite3 *db, const char *who)
{
    return s_exec (db, "COMMIT", who);
}

int
side_db_rollback (sqlite3 *db, const char *who)
{
    return s_exec (db, "ROLLBACK", who);
}

void
side_db_close (sqlite3 **db_p)
{
    sqlite3_close (*db_p);
    *db_p = NULL;
}
