/*  store_checkpoint.c: the checkpointer, a thread and connection of its
    own that copies the WAL into the database file (store_internal.h).  */
#include "store.h"
#include "store_internal.h"
#include "log.h"
#include "util.h"

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

/* Copies the WAL into the database file every CK_EVERY_MS, on its own
   thread and connection: the event loop's commits then only append to
   the WAL and fsync it, instead of stopping every few megabytes for a
   checkpoint (copy, fsync of the database file).  PASSIVE: it never
   waits for the writer, and a WAL wholly copied is started again from
   its beginning by the writer's next transaction.  The writer keeps
   SQLite's own checkpoint as a backstop (wal_autocheckpoint, much
   larger): a reader's long transaction (a report of 24,000 targets takes
   7 s, and ingest adds 5 MB a second) keeps the WAL from being started
   again, and past the backstop the writer tried to checkpoint after every
   commit, copying no further than the checkpointer and stalling the loop
   for hundreds of ms each time (bench/report-load: stats p99 178 ms during
   reports with a 64 MiB backstop, 131 ms with 4 GiB).  1 GiB still bounds
   the WAL should the checkpointer stop. */
#define CK_EVERY_MS 200
#define CK_BACKSTOP_PAGES 262144

static void *
checkpointer (void *arg)
{
    store_t *s = arg;
    pthread_mutex_lock (&s->ck_mu);
    while (!s->ck_stop) {
        struct timespec ts;
        clock_gettime (CLOCK_REALTIME, &ts);
        ts.tv_nsec += CK_EVERY_MS * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait (&s->ck_cv, &s->ck_mu, &ts);
        if (s->ck_stop)
            break;
        pthread_mutex_unlock (&s->ck_mu);
        int log_frames = 0, copied = 0;
        int rc = sqlite3_wal_checkpoint_v2 (s->ck_db, NULL, SQLITE_CHECKPOINT_PASSIVE,
                                            &log_frames, &copied);
        pthread_mutex_lock (&s->ck_mu);
        s->ck_runs++;
        if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
            s->ck_busy++;
        else if (rc != SQLITE_OK)
            s->ck_failed++;     /* the disk is full, say: the WAL keeps it all */
        else {
            s->ck_wal_frames = log_frames > 0 ? (uint64_t) log_frames : 0;
            s->ck_frames = copied > 0 ? (uint64_t) copied : 0;
        }
    }
    pthread_mutex_unlock (&s->ck_mu);
    return NULL;
}

/* Starts the checkpointer; without it (no thread, no connection) SQLite
   checkpoints in the writer as before.  Can't fail. */
void
store_checkpoint_start (store_t *s, bool full_sync)
{
    if (sqlite3_open_v2 (s->path, &s->ck_db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK
        || sqlite3_exec (s->ck_db, full_sync ? "PRAGMA synchronous=FULL"
                                             : "PRAGMA synchronous=NORMAL", NULL, NULL, NULL)
           != SQLITE_OK) {
        log_warn ("database %s: no background checkpointer (%s); SQLite checkpoints in the "
                  "writer", s->path, s->ck_db ? sqlite3_errmsg (s->ck_db) : "out of memory");
        sqlite3_close (s->ck_db);
        s->ck_db = NULL;
        return;
    }
    pthread_mutex_init (&s->ck_mu, NULL);
    pthread_cond_init (&s->ck_cv, NULL);
    if (pthread_create (&s->ck_thread, NULL, checkpointer, s) != 0) {
        sqlite3_close (s->ck_db);
        s->ck_db = NULL;
        return;
    }
    s->ck_running = true;
    char sql[64];
    snprintf (sql, sizeof sql, "PRAGMA wal_autocheckpoint=%d", CK_BACKSTOP_PAGES);
    sqlite3_exec (s->db, sql, NULL, NULL, NULL);
}

void
store_checkpoint_stop (store_t *s)
{
    if (s->ck_running) {
        pthread_mutex_lock (&s->ck_mu);
        s->ck_stop = true;
        pthread_cond_signal (&s->ck_cv);
        pthread_mutex_unlock (&s->ck_mu);
        pthread_join (s->ck_thread, NULL);
        s->ck_running = false;
    }
    sqlite3_close (s->ck_db);
    s->ck_db = NULL;
}

void
store_checkpoints (store_t *self, uint64_t *runs, uint64_t *busy, uint64_t *failed,
                   uint64_t *wal_frames)
{
    *runs = *busy = *failed = *wal_frames = 0;
    if (!self->ck_running)
        return;
    pthread_mutex_lock (&self->ck_mu);
    *runs = self->ck_runs;
    *busy = self->ck_busy;
    *failed = self->ck_failed;
    *wal_frames = self->ck_wal_frames;
    pthread_mutex_unlock (&self->ck_mu);
}
