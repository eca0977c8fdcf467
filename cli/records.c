/*  records.c: plans and runs as records: iofleet plan show|diff|rm,
    iofleet runs rm, and the --label KEY=VALUE that run and import take.
    The controller checks and stores; this file asks and renders.
*/
#define _GNU_SOURCE
#include "cli.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_MS  30000

json_t *
cli_call (const char *endpoint, json_t *req, int timeout_ms, const char *what)
{
    char err[1024];
    json_t *r = client_call (endpoint, req, timeout_ms, err, sizeof err);
    json_decref (req);
    if (!r)
        fprintf (stderr, "iofleet %s: %s\n", what, err);
    return r;
}

json_t *
cli_ask (const char *endpoint, json_t *req, int timeout_ms)
{
    char err[1024];
    json_t *r = client_call (endpoint, req, timeout_ms, err, sizeof err);
    json_decref (req);
    if (!r)
        fprintf (stderr, "iofleet: %s\n", err);
    return r;
}

int
cli_flag_json (int argc, char **argv, int first, bool *json)
{
    for (int i = first; i < argc; i++) {
        if (strcmp (argv[i], "--json") == 0)
            *json = true;
        else {
            fprintf (stderr, "iofleet %s: unexpected argument '%s' (see iofleet --help)\n",
                     argv[0], argv[i]);
            return 2;
        }
    }
    return 0;
}

void
cli_print_json (json_t *j)
{
    char *text = json_dumps (j, JSON_INDENT (2) | JSON_PRESERVE_ORDER);
    if (text)
        puts (text);
    free (text);
}

const char *
cli_utc (int64_t ns, char *buf, size_t cap)
{
    time_t t = (time_t) (ns / 1000000000);
    struct tm tm;
    if (ns <= 0 || !gmtime_r (&t, &tm) || !strftime (buf, cap, "%Y-%m-%d %H:%M:%S UTC", &tm))
        snprintf (buf, cap, "-");
    return buf;
}

int
cli_label_arg (json_t *labels, const char *what, const char *kv)
{
    const char *eq = strchr (kv, '=');
    if (!eq || eq == kv) {
        fprintf (stderr, "iofleet %s: --label '%s': want KEY=VALUE, e.g. --label fw=2.1\n", what,
                 kv);
        return 2;
    }
    char key[128];
    if ((size_t) (eq - kv) >= sizeof key) {
        fprintf (stderr, "iofleet %s: --label '%.40s...': the key is longer than %zu bytes\n",
                 what, kv, sizeof key - 1);
        return 2;
    }
    snprintf (key, sizeof key, "%.*s", (int) (eq - kv), kv);
    json_object_set_new (labels, key, json_string (eq + 1));
    return 0;
}

/* Fetches one version of a plan (0: the newest).  NULL on error (said). */
static json_t *
plan_get (const char *endpoint, const char *name, long long version, const char *what)
{
    json_t *req = json_pack ("{s:s, s:s}", "cmd", "plan_show", "name", name);
    if (version > 0)
        json_object_set_new (req, "version", json_integer (version));
    return cli_call (endpoint, req, TIMEOUT_MS, what);
}

/* A positive integer argument, or 0 (said, naming the argument). */
static long long
pos_arg (const char *what, const char *name, const char *s)
{
    uint64_t v;
    if (parse_u64 (s, 1, 1000000000000ull, &v)) {
        fprintf (stderr, "iofleet %s: %s '%s': a positive number\n", what, name, s);
        return 0;
    }
    return (long long) v;
}

/* The arguments of show and rm: one positional (*pos), --json, and where
   the pointer is given --yes and --version N.  Returns 0 or 2 (said). */
static int
sub_args (int argc, char **argv, const char *what, const char **pos, bool *json, bool *yes,
          long long *version)
{
    for (int i = 2; i < argc; i++) {
        if (version && strcmp (argv[i], "--version") == 0 && i + 1 < argc) {
            if (!(*version = pos_arg (what, "--version", argv[++i])))
                return 2;
        } else if (yes && strcmp (argv[i], "--yes") == 0)
            *yes = true;
        else if (strcmp (argv[i], "--json") == 0)
            *json = true;
        else if (argv[i][0] != '-' && !*pos)
            *pos = argv[i];
        else {
            fprintf (stderr, "iofleet %s: unexpected argument '%s' (see iofleet %s --help)\n",
                     what, argv[i], argv[0]);
            return 2;
        }
    }
    return 0;
}

int
cmd_plan_show (const char *endpoint, int argc, char **argv)
{
    const char *name = NULL;
    long long version = 0;
    bool json = false;
    if (sub_args (argc, argv, "plan show", &name, &json, NULL, &version))
        return 2;
    if (!name) {
        fprintf (stderr, "iofleet plan show: which plan? e.g. iofleet plan show qualify "
                 "[--version 2] (see iofleet plan list)\n");
        return 2;
    }
    json_t *p = plan_get (endpoint, name, version, "plan show");
    if (!p)
        return 1;
    if (json)
        cli_print_json (p);
    else {
        char when[40], gone[40];
        json_int_t removed = json_integer_value (json_object_get (p, "removed_at"));
        printf ("# plan '%s' version %lld of %lld, added %s from %s; %lld run(s) of this "
                "version%s%s\n", name, (long long) json_integer_value (json_object_get (p, "version")),
                (long long) json_integer_value (json_object_get (p, "newest")),
                cli_utc (json_integer_value (json_object_get (p, "created_at")), when, sizeof when),
                json_string_value (json_object_get (p, "source")),
                (long long) json_integer_value (json_object_get (p, "runs")),
                removed ? "; removed " : "", removed ? cli_utc (removed, gone, sizeof gone) : "");
        size_t i;
        json_t *step;
        json_array_foreach (json_object_get (p, "steps"), i, step) {
            printf ("# step %zu:", i + 1);
            size_t k;
            json_t *job;
            json_array_foreach (step, k, job)
                printf (" %s", json_string_value (job));
            printf ("\n");
        }
        const char *text = json_string_value (json_object_get (p, "text"));
        fputs (text, stdout);
        if (*text && text[strlen (text) - 1] != '\n')
            putchar ('\n');
    }
    json_decref (p);
    return 0;
}

/* Writes text to a new temporary file; its path in path.  0 or -1. */
static int
temp_text (const char *text, char *path, size_t cap)
{
    const char *dir = getenv ("TMPDIR");
    snprintf (path, cap, "%s/iofleet-plan.XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp (path);
    if (fd < 0)
        return -1;
    size_t n = strlen (text);
    ssize_t w = write (fd, text, n);
    close (fd);
    return w == (ssize_t) n ? 0 : -1;
}

int
cmd_plan_diff (const char *endpoint, int argc, char **argv)
{
    if (argc != 5) {
        fprintf (stderr, "iofleet plan diff: expected NAME V1 V2, e.g. iofleet plan diff "
                 "qualify 1 2\n");
        return 2;
    }
    long long v[2];
    for (int k = 0; k < 2; k++)
        if (!(v[k] = pos_arg ("plan diff", k ? "V2" : "V1", argv[3 + k])))
            return 2;
    json_t *p[2] = { NULL, NULL };
    char path[2][4096] = { "", "" }, label[2][128];
    int rc = 1;
    for (int k = 0; k < 2; k++) {
        if (!(p[k] = plan_get (endpoint, argv[2], v[k], "plan diff")))
            goto done;
        if (temp_text (json_string_value (json_object_get (p[k], "text")), path[k],
                       sizeof path[k])) {
            fprintf (stderr, "iofleet plan diff: cannot write a temporary file in %s: %s (set "
                     "TMPDIR)\n", path[k], strerror (errno));
            goto done;
        }
        snprintf (label[k], sizeof label[k], "%s version %lld", argv[2], v[k]);
    }
    /* diffutils' diff: the tool made for it (exit 0 same, 1 different). */
    fflush (stdout);
    pid_t pid = fork ();
    if (pid == 0) {
        execlp ("diff", "diff", "-u", "--label", label[0], "--label", label[1], path[0], path[1],
                (char *) NULL);
        fprintf (stderr, "iofleet plan diff: cannot run diff: %s (install diffutils)\n",
                 strerror (errno));
        _exit (2);
    }
    int status = 0;
    if (pid < 0 || waitpid (pid, &status, 0) < 0 || !WIFEXITED (status)
        || WEXITSTATUS (status) > 1) {
        fprintf (stderr, "iofleet plan diff: diff failed\n");
        goto done;
    }
    if (WEXITSTATUS (status) == 0)
        printf ("plan '%s': versions %lld and %lld are the same job file\n", argv[2], v[0], v[1]);
    rc = 0;
done:
    for (int k = 0; k < 2; k++) {
        if (path[k][0] && strstr (path[k], "XXXXXX") == NULL)
            unlink (path[k]);
        json_decref (p[k]);
    }
    return rc;
}

int
cmd_plan_rm (const char *endpoint, int argc, char **argv)
{
    const char *name = NULL;
    bool yes = false, json = false;
    if (sub_args (argc, argv, "plan rm", &name, &json, &yes, NULL))
        return 2;
    if (!name) {
        fprintf (stderr, "iofleet plan rm: which plan? e.g. iofleet plan rm old-qual --yes\n");
        return 2;
    }
    json_t *r = cli_call (endpoint, json_pack ("{s:s, s:s, s:b}", "cmd", "plan_rm", "name", name,
                                               "dry_run", !yes), TIMEOUT_MS, "plan rm");
    if (!r)
        return 1;
    int versions = (int) json_integer_value (json_object_get (r, "versions"));
    int deleted = (int) json_integer_value (json_object_get (r, "deleted_versions"));
    int runs = (int) json_integer_value (json_object_get (r, "runs"));
    if (json)
        cli_print_json (r);
    else
        printf ("plan '%s': %s %d of its %d version(s)%s; %d version(s) kept for the %d run(s) "
                "that used them (their reports stay)%s\n", name, yes ? "deleted" : "would delete",
                deleted, versions, deleted == versions ? "" : " (those no run used)",
                versions - deleted, runs,
                yes ? "; 'plan list' and 'run' no longer know the name" : "");
    json_decref (r);
    if (!yes) {
        fprintf (stderr, "iofleet plan rm: nothing removed: add --yes to remove plan '%s'\n", name);
        return 2;
    }
    return 0;
}

int
cmd_runs_rm (const char *endpoint, int argc, char **argv)
{
    const char *arg = NULL;
    long long run = 0;
    bool yes = false, json = false;
    if (sub_args (argc, argv, "runs rm", &arg, &json, &yes, NULL))
        return 2;
    if (arg && !(run = pos_arg ("runs rm", "RUN", arg)))
        return 2;
    if (!run) {
        fprintf (stderr, "iofleet runs rm: which run? e.g. iofleet runs rm 12 --yes (see "
                 "iofleet runs)\n");
        return 2;
    }
    json_t *r = cli_call (endpoint, json_pack ("{s:s, s:I, s:b}", "cmd", "runs_rm", "run",
                                               (json_int_t) run, "dry_run", !yes),
                          TIMEOUT_MS, "runs rm");
    if (!r)
        return 1;
    if (json)
        cli_print_json (r);
    else {
        long long rows = 0;
        const char *t;
        json_t *n;
        json_object_foreach (json_object_get (r, "rows"), t, n)
            rows += (long long) json_integer_value (n);
        printf ("run %lld (plan '%s' version %lld, %s): %s %lld row(s):", run,
                json_string_value (json_object_get (r, "plan")),
                (long long) json_integer_value (json_object_get (r, "plan_version")),
                json_string_value (json_object_get (r, "status")), yes ? "removed" : "would remove",
                rows + 1);
        printf (" 1 run");
        json_object_foreach (json_object_get (r, "rows"), t, n)
            printf (", %lld %s", (long long) json_integer_value (n), t);
        printf ("\n");
    }
    json_decref (r);
    if (!yes) {
        fprintf (stderr, "iofleet runs rm: nothing removed: add --yes to remove run %lld and its "
                 "results for good\n", run);
        return 2;
    }
    return 0;
}
