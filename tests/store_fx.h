/*  store_fx.h: a controller store of its own for a unit test (a database
    in a new temporary folder), and SQL run on it directly.  Include after
    testutil.h. */
#ifndef IOF_STORE_FX_H
#define IOF_STORE_FX_H

#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Runs sql on store's connection.  Returns SQLite's code (the error
   printed). */
static inline int
store_fx_exec (store_t *store, const char *sql)
{
    char *msg = NULL;
    int rc = sqlite3_exec (store_db (store), sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fprintf (stderr, "%s: %s\n", sql, msg ? msg : "?");
    sqlite3_free (msg);
    return rc;
}

/* A store at the newest schema in a new folder made from dir (a
   mkdtemp template, rewritten).  NULL when it can't be made (CHECKed). */
static inline store_t *
store_fx_open (char *dir)
{
    char path[256], err[512] = "";
    CHECK (mkdtemp (dir) != NULL);
    snprintf (path, sizeof path, "%s/test.db", dir);
    bool in_use;
    store_t *store = store_open (path, NULL, false, NULL, NULL, &in_use, err, sizeof err);
    CHECK_MSG (store != NULL, "%s", err);
    return store;
}

/* Closes the store and removes its folder. */
static inline void
store_fx_close (store_t **store_p, const char *dir)
{
    char cmd[300];
    store_close (store_p);
    snprintf (cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK (system (cmd) == 0);
}

#endif
