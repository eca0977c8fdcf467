/*  hook.c: the --on-regression hook.  A fire whose run regressed against
    its baseline waits for it (fires.hook_status 'pending', set by
    verdict.c); one at a time, the command runs under /bin/sh -c with the
    regressions as JSON on its stdin, is stopped after HOOK_TIMEOUT_NS, and
    its outcome is recorded as the fire's hook status.
*/
#define _GNU_SOURCE
#include "controller.h"
#include "log.h"
#include "util.h"
#include "hook.h"
#include "fires.h"
#include "regressions.h"
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define HOOK_TIMEOUT_NS    (60 * NS_PER_SEC)
#define HOOK_KILL_NS       (5 * NS_PER_SEC)

struct hook {
    const char *cmd;                /* --on-regression CMD */
    pid_t pid;                      /* running, or 0 */
    int64_t fire;                   /* the fire it runs for */
    uint64_t started;               /* monotonic */
    bool termed;                    /* sent SIGTERM at its timeout */
    char file[4096];                /* its stdin, "" when none */
};

hook_t *
hook_new (const char *cmd)
{
    IOF_ASSERT (cmd);
    hook_t *self = calloc (1, sizeof *self);
    if (self)
        self->cmd = cmd;
    return self;
}

void
hook_destroy (hook_t **self_p)
{
    IOF_ASSERT (self_p);
    hook_t *self = *self_p;
    if (!self)
        return;
    if (self->pid > 0)
        log_warn ("controller stopping while the --on-regression hook (pid %d) runs; left "
                  "running", (int) self->pid);
    if (self->file[0])
        unlink (self->file);
    free (self);
    *self_p = NULL;
}

/* Starts the --on-regression hook for the oldest fire waiting for it. */
void
hook_start (hook_t *self, store_t *store)
{
    if (self->pid > 0)
        return;
    json_t *doc;
    if (fires_hook_pending (store, &doc) != 1)
        return;
    int64_t fire_id = json_integer_value (json_object_get (doc, "fire"));
    json_t *regs = json_array ();
    json_object_set_new (doc, "regressions", regs);
    int rc = regressions_of_fire (store, fire_id, false, regs);
    /* Never a hook told part of the regressions: it stays pending, and
       is started at a later tick (logged). */
    if (rc < 0) {
        json_decref (doc);
        return;
    }
    char *text = json_dumps (doc, JSON_INDENT (2));
    json_decref (doc);
    const char *tmp = getenv ("TMPDIR");
    int n = snprintf (self->file, sizeof self->file, "%s/iofleet-hook.XXXXXX",
                      tmp && *tmp ? tmp : "/tmp");
    if (n < 0 || (size_t) n >= sizeof self->file)
        snprintf (self->file, sizeof self->file, "/tmp/iofleet-hook.XXXXXX");
    int fd = text ? mkstemp (self->file) : -1;
    const char *status = NULL;
    if (fd < 0 || write (fd, text, strlen (text)) != (ssize_t) strlen (text)
        || lseek (fd, 0, SEEK_SET) != 0)
        status = "failed: cannot write its input file";
    free (text);
    /* Everything the child needs is made before fork: ZeroMQ's threads run
       in this process, so the child only calls async-signal-safe functions. */
    extern char **environ;
    size_t nenv = 0;
    while (environ[nenv])
        nenv++;
    char **envp = calloc (nenv + 2, sizeof *envp);
    char fire_var[48];
    snprintf (fire_var, sizeof fire_var, "IOFLEET_FIRE=%lld", (long long) fire_id);
    if (envp) {
        size_t k = 0;
        for (size_t e = 0; e < nenv; e++)
            if (strncmp (environ[e], "IOFLEET_FIRE=", 13) != 0)
                envp[k++] = environ[e];
        envp[k] = fire_var;
    } else if (!status)
        status = "failed: out of memory";
    char *argv[] = { "sh", "-c", (char *) self->cmd, NULL };
    pid_t pid = status ? -1 : fork ();
    if (pid == 0) {
        /* Its own process group, so a timeout stops its children too. */
        setpgid (0, 0);
        fd_limit_restore ();
        dup2 (fd, STDIN_FILENO);
        close (fd);
        execve ("/bin/sh", argv, envp);
        _exit (127);
    }
    if (pid > 0)
        setpgid (pid, pid);     /* also here: no race with a kill right after */
    free (envp);
    if (fd >= 0)
        close (fd);
    if (pid < 0 && !status)
        status = "failed: cannot fork";
    if (status) {
        unlink (self->file);
        self->file[0] = '\0';
    } else {
        self->pid = pid;
        self->fire = fire_id;
        self->started = clock_mono_ns ();
        self->termed = false;
        status = "running";
        log_info ("fire %lld: --on-regression hook started (pid %d)", (long long) fire_id,
                  (int) pid);
    }
    store_begin (store);
    fires_set_hook (store, fire_id, status);
}

/* Reaps the hook when it ends; stops it past HOOK_TIMEOUT_NS. */
void
hook_poll (hook_t *self, store_t *store)
{
    if (self->pid <= 0)
        return;
    int wst;
    pid_t rc = waitpid (self->pid, &wst, WNOHANG);
    uint64_t age = clock_mono_ns () - self->started;
    if (rc == 0) {
        if (age > HOOK_TIMEOUT_NS && !self->termed) {
            log_warn ("fire %lld: --on-regression hook still running after %.0f s; stopping it",
                      (long long) self->fire, (double) HOOK_TIMEOUT_NS / 1e9);
            kill (-self->pid, SIGTERM);
            self->termed = true;
        } else if (age > HOOK_TIMEOUT_NS + HOOK_KILL_NS)
            kill (-self->pid, SIGKILL);
        return;
    }
    /* The shell is gone; after a timeout, whatever it started goes too. */
    if (self->termed)
        kill (-self->pid, SIGKILL);
    char status[64];
    if (rc < 0)
        snprintf (status, sizeof status, "failed: lost track of it (%s)", strerror (errno));
    else if (self->termed)
        snprintf (status, sizeof status, "timed out after %.0f s", (double) HOOK_TIMEOUT_NS / 1e9);
    else if (WIFEXITED (wst) && WEXITSTATUS (wst) == 0)
        snprintf (status, sizeof status, "ok");
    else if (WIFEXITED (wst))
        snprintf (status, sizeof status, "failed: exit %d", WEXITSTATUS (wst));
    else
        snprintf (status, sizeof status, "failed: signal %d", WTERMSIG (wst));
    if (strcmp (status, "ok") == 0)
        log_info ("fire %lld: --on-regression hook done", (long long) self->fire);
    else
        log_warn ("fire %lld: --on-regression hook %s", (long long) self->fire, status);
    store_begin (store);
    fires_set_hook (store, self->fire, status);
    unlink (self->file);
    self->file[0] = '\0';
    self->pid = 0;
}

void
hook_interrupted (store_t *store)
{
    store_begin (store);
    fires_hooks_interrupted (store);
}
