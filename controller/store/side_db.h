/*  side_db.h: a read-write connection of a thread beside the store's
    writer (store.h), for work too long for the event loop: a finished
    step's results (run/finalizer.c).  WAL lets it read while the writer
    goes on; both wait (busy_timeout) for the other's write.  The caller
    owns its transactions, and passes the handle to the read modules
    (report/step_results.c) that own their queries.
*/
#ifndef IOF_SIDE_DB_H
#define IOF_SIDE_DB_H

#include "sqlite_api.h"

#include <stdbool.h>

/* Opens the database at path read-write: waits up to busy_ms for the
   writer's transactions, synchronous=FULL (what it writes keeps its order
   with the writer's on a power cut), foreign keys on, the snapshots
   table registered.  who names the thread in the log ("step results").
   Returns NULL (logged, but a failed registration of the snapshots
   table). */
sqlite3 *side_db_open (const char *path, int busy_ms, const char *who);
/* BEGIN (a read, promoted at its first write), or BEGIN IMMEDIATE (the
   write lock taken now).  Returns 0 or -1 (logged "WHO: SQL: why"). */
int side_db_begin (sqlite3 *db, bool immediate, const char *who);
/* COMMIT.  Returns 0 or -1 (logged as side_db_begin). */
int side_db_commit (sqlite3 *db, const char *who);
/* ROLLBACK.  Returns 0 or -1 (logged as side_db_begin). */
int side_db_rollback (sqlite3 *db, const char *who);
/* Closes *db_p (NULL: nothing) and NULLs it.  Can't fail. */
void side_db_close (sqlite3 **db_p);

#endif
