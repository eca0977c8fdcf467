/*  test_lockfile: one holder at a time (common/lockfile.c).
    Taken, refused to a second taker with what the holder wrote, seen by
    lockfile_holder without being created or taken, released (the file
    goes); a holder killed with SIGKILL leaves the file but not the lock;
    MAINPID.
*/
#define _GNU_SOURCE
#include "lockfile.h"
#include "testutil.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/test_lockfile.XXXXXX";

static bool
exists (const char *path)
{
    return access (path, F_OK) == 0;
}

/* In this process: take, describe, refuse, release. */
static void
test_take_release (void)
{
    char path[256];
    snprintf (path, sizeof path, "%s/db.lock", dir);
    lockfile_info_t holder, info = { 0 };
    CHECK (lockfile_holder (path, &holder) == 0);
    CHECK (!exists (path));                         /* asking creates nothing */
    lockfile_set (&info, "admin", "ipc:///run/x.sock");
    lockfile_set (&info, "agents", "tcp://127.0.0.1:5570\nforged: 1");
    int rc = 1;
    lockfile_t *a = lockfile_take (path, &info, NULL, &rc);
    CHECK (a && rc == 0);
    char pid[32], host[256] = "";
    snprintf (pid, sizeof pid, "%d", (int) getpid ());
    gethostname (host, sizeof host - 1);
    /* a second open file description is another taker, even here */
    lockfile_t *b = lockfile_take (path, NULL, &holder, &rc);
    CHECK (!b && rc == -EWOULDBLOCK);
    CHECK (strcmp (lockfile_get (&holder, "pid"), pid) == 0);
    CHECK (strcmp (lockfile_get (&holder, "host"), host) == 0);
    CHECK (strcmp (lockfile_get (&holder, "admin"), "ipc:///run/x.sock") == 0);
    /* a value's newline cannot make a field of its own */
    CHECK (strcmp (lockfile_get (&holder, "forged"), "?") == 0);
    CHECK (strlen (lockfile_get (&holder, "started")) == 20);
    CHECK (strcmp (lockfile_get (&holder, "missing"), "?") == 0);
    CHECK (lockfile_holder (path, &holder) == 1);
    CHECK (strcmp (lockfile_get (&holder, "pid"), pid) == 0);
    /* rewritten: shorter, nothing of the old text left */
    lockfile_info_t bound = { 0 };
    lockfile_set (&bound, "admin", "ipc:///b");
    CHECK (lockfile_describe (a, &bound) == 0);
    CHECK (lockfile_holder (path, &holder) == 1);
    CHECK (strcmp (lockfile_get (&holder, "admin"), "ipc:///b") == 0);
    CHECK (strcmp (lockfile_get (&holder, "agents"), "?") == 0);
    /* MAINPID: this process on this host is the unit's main one */
    CHECK (!lockfile_held_by_mainpid (&holder));
    setenv ("MAINPID", pid, 1);
    CHECK (lockfile_held_by_mainpid (&holder));
    setenv ("MAINPID", "1", 1);
    CHECK (!lockfile_held_by_mainpid (&holder));
    unsetenv ("MAINPID");
    lockfile_destroy (&a);
    CHECK (a == NULL);
    CHECK (!exists (path));                         /* released: gone */
    CHECK (lockfile_holder (path, &holder) == 0);
    b = lockfile_take (path, NULL, NULL, &rc);
    CHECK (b && rc == 0);
    lockfile_destroy (&b);
    /* a directory that is not there: the errno, no lock */
    snprintf (path, sizeof path, "%s/none/db.lock", dir);
    CHECK (lockfile_take (path, NULL, NULL, &rc) == NULL && rc == -ENOENT);
}

/* Another process holds it, then dies by SIGKILL: its file stays, its
   lock does not. */
static void
test_killed_holder (void)
{
    char path[256];
    snprintf (path, sizeof path, "%s/killed.lock", dir);
    int ready[2];
    CHECK (pipe (ready) == 0);
    pid_t pid = fork ();
    if (pid == 0) {
        close (ready[0]);
        int rc;
        lockfile_t *l = lockfile_take (path, NULL, NULL, &rc);
        if (!l || write (ready[1], "r", 1) != 1)
            _exit (2);
        pause ();
        _exit (3);
    }
    close (ready[1]);
    char c = 0;
    CHECK (read (ready[0], &c, 1) == 1 && c == 'r');
    close (ready[0]);
    lockfile_info_t holder;
    int rc;
    CHECK (lockfile_take (path, NULL, &holder, &rc) == NULL && rc == -EWOULDBLOCK);
    CHECK (atoi (lockfile_get (&holder, "pid")) == (int) pid);
    kill (pid, SIGKILL);
    int status;
    CHECK (waitpid (pid, &status, 0) == pid && WIFSIGNALED (status));
    CHECK (exists (path));
    CHECK (lockfile_holder (path, &holder) == 0);
    lockfile_t *l = lockfile_take (path, NULL, NULL, &rc);
    CHECK (l && rc == 0);
    CHECK (lockfile_holder (path, &holder) == 1
           && atoi (lockfile_get (&holder, "pid")) == (int) getpid ());
    lockfile_destroy (&l);
}

int
main (void)
{
    if (!mkdtemp (dir)) {
        perror ("mkdtemp");
        return 1;
    }
    test_take_release ();
    test_killed_holder ();
    char cmd[300];
    snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system (cmd) != 0)
        fprintf (stderr, "could not remove %s\n", dir);
    return TEST_DONE ();
}
