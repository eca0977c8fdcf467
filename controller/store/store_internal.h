/*  store_internal.h: the store's own state and helpers, shared by its
    files (store.c, store_checkpoint.c, store_backup.c, store_migrate.c,
    store_usage.c) and by nothing else.  */
#ifndef IOF_STORE_INTERNAL_H
#define IOF_STORE_INTERNAL_H

#include "store.h"
#include "snapcodec.h"

#include <pthread.h>

/* Every statement is a literal in the code: this bounds them all, one
   slot per literal (127 call sites of store_stmt today, close to the 128
   this once was: one more, and a release build, whose assert was compiled
   out, would have written past the array; the bound is now checked in
   every build). */
#define STMT_CACHE 512

/* The page size of a new database, and of one rewritten after its
   snapshots were converted into blocks.  A block (an agent's interval,
   about 2.3 KiB at 24 drives) must share its page: one to a 4 KiB page
   (two do not fit) wastes 40% of the file; seven fill 16 KiB
   (docs/design.md, Compact per-interval storage). */
#define STORE_PAGE_SIZE 16384

struct store {
    sqlite3 *db;
    lockfile_t *lock;           /* PATH.lock: this process is the database's one writer */
    char path[1024];
    bool in_tx;
    bool reader;                /* store_open_reader: read-only, no lock, no checkpointer */
    uint64_t failures;          /* writes lost: statements or commits that failed */
    bool failing;               /* since the last failure, no commit succeeded */
    uint64_t failures_at_begin; /* a write failed in this transaction if different */
    uint64_t failing_since;     /* monotonic ns */
    uint64_t fail_logged_at;
    int fail_rc;                /* the last failed write's SQLite result code */
    uint64_t tx_pages;          /* WAL pages the last transaction stored wrote (store_held) */
    int nstmts;
    struct { const char *sql; sqlite3_stmt *st; } stmts[STMT_CACHE];
    void (*on_commit) (void *arg);
    void *on_commit_arg;
    /* The checkpointer: its own connection and thread (see checkpointer). */
    sqlite3 *ck_db;
    pthread_t ck_thread;
    bool ck_running, ck_stop;
    pthread_mutex_t ck_mu;
    pthread_cond_t ck_cv;
    uint64_t ck_runs, ck_busy, ck_failed;
    uint64_t ck_wal_frames, ck_frames;  /* the WAL at the last run, and how much of it is copied */
    snapcodec_t *codec;         /* the writer's: blocks stored by ingest (snapshot_codec.h) */
};

/* sqlite3_exec of sql on s's connection.  Returns 0, or -1 with err
   filled with SQLite's message. */
int store_exec (store_t *s, const char *sql, char *err, size_t errlen);
/* A write failed (rc: its SQLite result code): counted, and said once,
   then once a minute while it lasts.  Can't fail. */
void store_failed_rc (store_t *self, const char *what, int rc);
/* fsync of path and of its directory.  Returns 0 or -errno. */
int store_fsync_path (const char *path);
/* Tells progress (when given) what a long step is doing.  Can't fail. */
void store_say (store_progress_fn *progress, void *arg, uint64_t expect_ns, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));
/* A consistent, checked, fsynced copy of src into path (store_backup.c
   says what each return means). */
int store_backup_copy (sqlite3 *src, const char *path, int *pages, store_progress_fn *progress,
                       void *arg, char *msg, size_t msglen);
/* The checkpointer's thread (store_checkpoint.c): started by store_open,
   stopped by store_close.  Can't fail (without it, SQLite's own
   checkpoint copies the WAL). */
void store_checkpoint_start (store_t *s, bool full_sync);
void store_checkpoint_stop (store_t *s);
/* Applies the migrations path's database lacks (a backup first, then
   each in its transaction).  Returns 0, or -1 with err filled. */
int store_migrate (store_t *s, const char *path, store_progress_fn *progress, void *arg, char *err,
                   size_t errlen);

#endif
