/*  demo.c: iofleet demo: a whole fleet on this machine.  A controller on a
    temporary database and N agents against temporary files run the demo
    plan; the report is printed; everything started is stopped. */
#define _GNU_SOURCE
#include "cli.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEMO_MAX_AGENTS 64

typedef struct {
    char dir[PATH_MAX];
    char bindir[PATH_MAX];
    char endpoint[PATH_MAX + 16];
    pid_t controller;
    pid_t agents[DEMO_MAX_AGENTS];
    int nagents;
} demo_t;

/* Starts argv[0] from bindir with stdout and stderr to logpath.
   Returns the pid or -1 (message printed). */
static pid_t
spawn (const demo_t *d, char *const argv[], const char *logpath)
{
    char exe[PATH_MAX + 64];
    snprintf (exe, sizeof exe, "%s/%s", d->bindir, argv[0]);
    if (access (exe, X_OK) != 0) {
        fprintf (stderr, "iofleet demo: cannot run '%s': %s (build with 'make' first)\n", exe,
                 strerror (errno));
        return -1;
    }
    pid_t pid = fork ();
    if (pid < 0) {
        fprintf (stderr, "iofleet demo: fork: %s\n", strerror (errno));
        return -1;
    }
    if (pid == 0) {
        int fd = open (logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) {
            dup2 (fd, STDOUT_FILENO);
            dup2 (fd, STDERR_FILENO);
        }
        /* Ctrl-C goes to the demo, which stops its children in order. */
        setpgid (0, 0);
        execv (exe, argv);
        _exit (127);
    }
    return pid;
}

static bool
alive (pid_t pid)
{
    int status;
    return pid > 0 && waitpid (pid, &status, WNOHANG) == 0;
}

static void
stop (pid_t *pid)
{
    if (*pid <= 0)
        return;
    kill (*pid, SIGTERM);
    for (int i = 0; i < 100; i++) {
        int status;
        if (waitpid (*pid, &status, WNOHANG) != 0) {
            *pid = 0;
            return;
        }
        usleep (50 * 1000);
    }
    kill (*pid, SIGKILL);
    waitpid (*pid, NULL, 0);
    *pid = 0;
}

static int
rm_entry (const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void) sb; (void) flag; (void) ftw;
    return remove (path);
}

static void
tail_log (const char *path)
{
    size_t len;
    char *text = file_read_all (path, 1 << 20, &len);
    if (!text)
        return;
    const char *start = text;
    int lines = 0;
    for (const char *p = text + len; p > text; p--)
        if (p[-1] == '\n' && ++lines > 10) {
            start = p;
            break;
        }
    fprintf (stderr, "--- last lines of %s ---\n%s", path, start);
    free (text);
}

static int
wait_agents (const demo_t *d, int want)
{
    char err[1024] = "";
    for (int i = 0; i < 200 && !g_interrupted; i++) {
        json_t *req = json_pack ("{s:s}", "cmd", "agents");
        json_t *r = client_call (d->endpoint, req, 2000, err, sizeof err);
        json_decref (req);
        int n = 0;
        size_t k;
        json_t *a;
        json_array_foreach (r, k, a)
            n += json_is_true (json_object_get (a, "connected"));
        json_decref (r);
        if (n >= want)
            return 0;
        usleep (100 * 1000);
    }
    fprintf (stderr, "iofleet demo: %s %d %s did not connect within 20 s%s%s\n",
             want == 1 ? "the" : "not all", want, plural (want, "agent", "agents"),
             err[0] ? ": " : "", err);
    return -1;
}

int
cmd_demo (int argc, char **argv)
{
    static demo_t demo;
    demo_t *d = &demo;
    int nagents = 4;
    bool keep = false;
    const char *base = getenv ("IOFLEET_DEMO_DIR") ? getenv ("IOFLEET_DEMO_DIR") : "/var/tmp";
    const char *plan_file = NULL;
    for (int i = 1; i < argc; i++) {
        uint64_t v;
        if (strcmp (argv[i], "--agents") == 0 && i + 1 < argc) {
            if (parse_u64 (argv[++i], 1, DEMO_MAX_AGENTS, &v)) {
                fprintf (stderr, "iofleet demo: --agents '%s': expected 1..%d\n", argv[i],
                         DEMO_MAX_AGENTS);
                return 2;
            }
            nagents = (int) v;
        } else if (strcmp (argv[i], "--keep") == 0)
            keep = true;
        else if (strcmp (argv[i], "--dir") == 0 && i + 1 < argc)
            base = argv[++i];
        else if (strcmp (argv[i], "--plan") == 0 && i + 1 < argc)
            plan_file = argv[++i];
        else {
            fprintf (stderr, "iofleet demo: unexpected argument '%s'\n"
                     "usage: iofleet demo [--agents N] [--keep] [--dir DIR] [--plan FILE]\n",
                     argv[i]);
            return 2;
        }
    }
    char *plan_text = NULL;
    if (plan_file && !(plan_text = file_read_all (plan_file, 1 << 20, NULL))) {
        fprintf (stderr, "iofleet demo: cannot read --plan '%s': %s\n", plan_file, strerror (errno));
        return 1;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        fprintf (stderr, "iofleet demo: cannot find this program's directory: %s\n", strerror (errno));
        return 1;
    }
    exe[n] = '\0';
    str_copy (d->bindir, sizeof d->bindir, dirname (exe));
    snprintf (d->dir, sizeof d->dir, "%s/iofleet-demo-XXXXXX", base);
    if (!mkdtemp (d->dir)) {
        fprintf (stderr, "iofleet demo: cannot create a directory in '%s': %s (use --dir DIR on a "
                 "file system that supports O_DIRECT, not tmpfs)\n", base, strerror (errno));
        return 1;
    }
    int rc = 1;
    char path[PATH_MAX + 64], db[PATH_MAX + 64], admin[PATH_MAX + 64], portfile[PATH_MAX + 64];
    snprintf (db, sizeof db, "%s/iofleet.db", d->dir);
    snprintf (admin, sizeof admin, "ipc://%s/admin.sock", d->dir);
    snprintf (portfile, sizeof portfile, "%s/agent-endpoint", d->dir);
    str_copy (d->endpoint, sizeof d->endpoint, admin);
    fprintf (stderr, "iofleet demo: controller and %d %s in %s\n", nagents,
             plural (nagents, "agent", "agents"), d->dir);

    char ctl_log[PATH_MAX + 64];
    snprintf (ctl_log, sizeof ctl_log, "%s/controller.log", d->dir);
    char *cargv[] = { "iofleet-controller", "--no-config", "--db", db, "--listen", "tcp://127.0.0.1:*",
                      "--admin", admin, "--port-file", portfile, NULL };
    d->controller = spawn (d, cargv, ctl_log);
    if (d->controller < 0)
        goto out;
    char *agent_ep = NULL;
    for (int i = 0; i < 200 && !agent_ep && alive (d->controller); i++) {
        agent_ep = file_read_all (portfile, 4096, NULL);
        if (!agent_ep)
            usleep (50 * 1000);
    }
    if (!agent_ep) {
        fprintf (stderr, "iofleet demo: the controller did not start\n");
        tail_log (ctl_log);
        goto out;
    }
    agent_ep[strcspn (agent_ep, "\n")] = '\0';
    for (int i = 0; i < nagents; i++) {
        char name[32], workdir[PATH_MAX + 64], spool[PATH_MAX + 64], log[PATH_MAX + 64],
             label[32];
        snprintf (name, sizeof name, "demo-agent-%d", i + 1);
        snprintf (workdir, sizeof workdir, "%s/%s", d->dir, name);
        snprintf (spool, sizeof spool, "%s/%s.spool", d->dir, name);
        snprintf (log, sizeof log, "%s/%s.log", d->dir, name);
        snprintf (label, sizeof label, "slot=%d", i + 1);
        mkdir (workdir, 0755);
        char *aargv[] = { "iofleet-agent", "--no-config", "--controller", agent_ep, "--name", name,
                          "--workdir", workdir, "--spool-dir", spool, "--label", "demo=1",
                          "--label", label, NULL };
        d->agents[i] = spawn (d, aargv, log);
        if (d->agents[i] < 0) {
            free (agent_ep);
            goto out;
        }
        d->nagents++;
    }
    free (agent_ep);
    if (wait_agents (d, nagents))
        goto out;

    char err[1024];
    json_t *req = json_pack ("{s:s, s:s, s:s, s:s}", "cmd", "plan_add", "name", "demo", "source",
                             plan_file ? plan_file : "plans/demo.fio", "text",
                             plan_text ? plan_text : demo_plan_text);
    json_t *r = client_call (d->endpoint, req, 10000, err, sizeof err);
    json_decref (req);
    if (!r) {
        fprintf (stderr, "iofleet demo: %s\n", err);
        goto out;
    }
    json_decref (r);
    req = json_pack ("{s:s, s:s, s:s}", "cmd", "run", "plan", "demo", "agents", "all");
    r = client_call (d->endpoint, req, 10000, err, sizeof err);
    json_decref (req);
    if (!r) {
        fprintf (stderr, "iofleet demo: %s\n", err);
        goto out;
    }
    long long run = (long long) json_integer_value (json_object_get (r, "run"));
    json_decref (r);
    const char *status = wait_run (d->endpoint, run, &g_interrupted, err, sizeof err);
    if (!status) {
        fprintf (stderr, "iofleet demo: %s\n", err);
        goto out;
    }
    req = json_pack ("{s:s, s:I}", "cmd", "report", "run", (json_int_t) run);
    r = client_call (d->endpoint, req, 60000, err, sizeof err);
    json_decref (req);
    if (!r) {
        fprintf (stderr, "iofleet demo: %s\n", err);
        goto out;
    }
    text_report (stdout, r);
    json_decref (r);
    rc = strcmp (status, "complete") == 0 ? 0 : 1;
out:
    if (rc != 0 && d->controller > 0)
        tail_log (ctl_log);
    for (int i = 0; i < d->nagents; i++)
        stop (&d->agents[i]);
    stop (&d->controller);
    free (plan_text);
    if (keep)
        fprintf (stderr, "iofleet demo: kept %s (database iofleet.db, logs *.log)\n", d->dir);
    else {
        snprintf (path, sizeof path, "%s", d->dir);
        nftw (path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
    return rc;
}
