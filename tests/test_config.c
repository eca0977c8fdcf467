/*  test_config: configuration files and command lines (common/config.c).
    Every kind of key (value, flag, repeatable), bad files (unknown key, key
    given twice, wrong section, missing '=', empty value, bad yes/no, long
    line, NUL byte, missing file), the precedence of flags over the file,
    --config/--no-config/--check-config, and the messages naming file and
    line.  The errors go to stderr; the test reads them back from a file.
*/
#define _GNU_SOURCE
#include "config.h"
#include "testutil.h"
#include "util.h"

#include <stdbool.h>
#include <unistd.h>

enum { O_DB = 'd', O_LISTEN = 'l', O_LABEL = 1000, O_VERBOSE = 'v', O_NUM = 1001 };

static const struct option opts[] = {
    { "db", required_argument, NULL, O_DB },
    { "listen", required_argument, NULL, O_LISTEN },
    { "label", required_argument, NULL, O_LABEL },
    { "verbose", no_argument, NULL, O_VERBOSE },
    { "num", required_argument, NULL, O_NUM },
    CONFIG_OPTIONS,
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};
static const char *const repeatable[] = { "label", NULL };

/* What the options set, as a daemon's apply function would. */
typedef struct {
    const char *db, *listen;
    const char *labels[8];
    int nlabels;
    bool cli_labels;
    bool verbose;
    long num;
    int calls;
    char last_where[256];
    bool help;
} settings_t;

static int
apply (void *arg, int code, const char *v, const char *where, bool from_cli)
{
    settings_t *s = arg;
    s->calls++;
    snprintf (s->last_where, sizeof s->last_where, "%s", where);
    switch (code) {
    case O_DB: s->db = v; break;
    case O_LISTEN: s->listen = v; break;
    case O_LABEL:
        if (from_cli && !s->cli_labels) {
            s->cli_labels = true;
            s->nlabels = 0;
        }
        if (s->nlabels < 8)
            s->labels[s->nlabels++] = v;
        break;
    case O_VERBOSE: s->verbose = true; break;
    case O_NUM: {
        char *end;
        s->num = strtol (v, &end, 10);
        if (*end) {
            fprintf (stderr, "prog: %s '%s': a number\n", where, v);
            return 2;
        }
        break;
    }
    case 'h': s->help = true; break;
    default: return 2;
    }
    return 0;
}

/* config_value_fn: the defaults of the options above, as a daemon holds
   them. */
static void
value (void *arg, int code, char *buf, size_t len)
{
    (void) arg;
    switch (code) {
    case O_DB: snprintf (buf, len, "/var/lib/default.db"); break;
    case O_LISTEN: snprintf (buf, len, "tcp://127.0.0.1:5570"); break;
    case O_VERBOSE: snprintf (buf, len, "no"); break;
    case O_NUM: snprintf (buf, len, "3"); break;
    default: break;         /* the labels: none */
    }
}

static char dir[] = "/tmp/test_config.XXXXXX";
static char errpath[512];

static const char *
write_file (const char *name, const char *text, size_t len)
{
    static char path[512];
    snprintf (path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen (path, "w");
    CHECK (f != NULL);
    if (f) {
        fwrite (text, 1, len, f);
        fclose (f);
    }
    return path;
}

/* Runs config_parse on argv (NULL-terminated) with stderr captured.
   Returns its status; *err_out is what it printed (static). */
static int
parse (const char *const *args, const char *default_path, settings_t *s, config_t **cfg_out,
       const char **err_out)
{
    static char errbuf[8192];
    char *argv[32];
    int argc = 0;
    argv[argc++] = "prog";
    for (int i = 0; args[i]; i++)
        argv[argc++] = (char *) args[i];
    argv[argc] = NULL;
    memset (s, 0, sizeof *s);
    config_t *cfg = config_new ("prog", "prog", "d:l:vh", opts, repeatable);
    CHECK (cfg != NULL);
    fflush (stderr);
    int saved = dup (2);
    FILE *ef = fopen (errpath, "w+");
    dup2 (fileno (ef), 2);
    int rc = config_parse (cfg, argc, argv, default_path, apply, s);
    fflush (stderr);
    dup2 (saved, 2);
    close (saved);
    rewind (ef);
    size_t n = fread (errbuf, 1, sizeof errbuf - 1, ef);
    errbuf[n] = '\0';
    fclose (ef);
    *err_out = errbuf;
    if (cfg_out)
        *cfg_out = cfg;
    else
        config_destroy (&cfg);
    return rc;
}

static void
test_every_kind_of_key (void)
{
    const char *text =
        "# a comment\n"
        "; another\n"
        "\n"
        "[prog]\n"
        "db = /var/lib/x.db\n"
        "  listen=tcp://127.0.0.1:5570   \n"
        "label = rack=r1\n"
        "label = \"row = 2 \"\n"
        "verbose = yes\n"
        "num = 42\n";
    const char *path = write_file ("all.conf", text, strlen (text));
    const char *args[] = { "--config", path, NULL };
    settings_t s;
    const char *err;
    config_t *cfg;
    CHECK (parse (args, NULL, &s, &cfg, &err) == 0);
    CHECK_MSG (strcmp (err, "") == 0, "unexpected error output: %s", err);
    CHECK (s.db && strcmp (s.db, "/var/lib/x.db") == 0);
    CHECK (s.listen && strcmp (s.listen, "tcp://127.0.0.1:5570") == 0);
    CHECK (s.nlabels == 2 && strcmp (s.labels[0], "rack=r1") == 0
           && strcmp (s.labels[1], "row = 2 ") == 0);       /* quotes keep the spaces */
    CHECK (s.verbose);
    CHECK (s.num == 42);
    CHECK (s.calls == 6);
    CHECK (strcmp (config_file (cfg), path) == 0);
    CHECK (!config_check_only (cfg));

    /* config_print: every key with its origin, defaults named as such */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    config_print (cfg, value, NULL, f);
    fclose (f);
    char want[600];
    snprintf (want, sizeof want, "# %s:5: db", path);
    CHECK_STR_CONTAINS (buf, want);
    CHECK_STR_CONTAINS (buf, "label = rack=r1");
    CHECK_STR_CONTAINS (buf, "label = row = 2 ");
    CHECK_STR_CONTAINS (buf, "verbose = yes");
    CHECK (strstr (buf, "config =") == NULL && strstr (buf, "help") == NULL);
    free (buf);
    config_destroy (&cfg);
    CHECK (cfg == NULL);

    /* a flag set to no applies nothing */
    const char *off = "verbose = off\n";
    path = write_file ("off.conf", off, strlen (off));
    const char *args2[] = { "--config", path, NULL };
    CHECK (parse (args2, NULL, &s, NULL, &err) == 0);
    CHECK (!s.verbose && s.calls == 0);
}

static void
test_flags_override_the_file (void)
{
    const char *text = "db = /file.db\nlisten = tcp://127.0.0.1:1\nlabel = a=1\nlabel = b=2\nnum = 1\n";
    const char *path = write_file ("prec.conf", text, strlen (text));
    settings_t s;
    const char *err;
    /* scalars: the flag wins wherever it stands; repeatables: the command
       line's list replaces the file's */
    const char *args[] = { "--db", "/flag.db", "--config", path, "--label", "c=3", "--num", "7",
                           NULL };
    config_t *cfg;
    CHECK (parse (args, NULL, &s, &cfg, &err) == 0);
    CHECK (strcmp (s.db, "/flag.db") == 0);
    CHECK (strcmp (s.listen, "tcp://127.0.0.1:1") == 0);
    CHECK (s.nlabels == 1 && strcmp (s.labels[0], "c=3") == 0);
    CHECK (s.num == 7);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    config_print (cfg, value, NULL, f);
    fclose (f);
    CHECK_STR_CONTAINS (buf, "db = /flag.db");
    CHECK_STR_CONTAINS (buf, "# --db");
    CHECK (strstr (buf, "/file.db") == NULL);         /* overridden: not shown as in force */
    CHECK (strstr (buf, "a=1") == NULL);
    free (buf);
    config_destroy (&cfg);

    /* the default file is read when it exists, skipped when it does not,
       and --no-config skips it */
    const char *none[] = { NULL };
    CHECK (parse (none, path, &s, &cfg, &err) == 0);
    CHECK (s.db && strcmp (s.db, "/file.db") == 0);     /* values live as long as cfg */
    config_destroy (&cfg);
    char missing[600];
    snprintf (missing, sizeof missing, "%s/missing.conf", dir);
    CHECK (parse (none, missing, &s, NULL, &err) == 0 && s.calls == 0);
    const char *no[] = { "--no-config", NULL };
    CHECK (parse (no, path, &s, NULL, &err) == 0 && s.calls == 0);
    /* but a --config that is not there is an error */
    const char *gone[] = { "--config", missing, NULL };
    CHECK (parse (gone, NULL, &s, NULL, &err) == 2);
    CHECK_STR_CONTAINS (err, "cannot read configuration file");
    CHECK_STR_CONTAINS (err, "missing.conf");
    const char *both[] = { "--config", path, "--no-config", NULL };
    CHECK (parse (both, NULL, &s, NULL, &err) == 2);
    CHECK_STR_CONTAINS (err, "choose one");
    const char *check[] = { "--check-config", "--no-config", NULL };
    CHECK (parse (check, NULL, &s, &cfg, &err) == 0);
    CHECK (config_check_only (cfg));
    buf = NULL;
    f = open_memstream (&buf, &len);
    CHECK (config_verdict (cfg, 0, value, NULL, f) == 0);
    fclose (f);
    CHECK_STR_CONTAINS (buf, "# configuration OK");
    /* nothing set: every default by its value, the word only as origin */
    CHECK_STR_CONTAINS (buf, "db = /var/lib/default.db");
    CHECK_STR_CONTAINS (buf, "listen = tcp://127.0.0.1:5570");
    CHECK_STR_CONTAINS (buf, "verbose = no");
    CHECK_STR_CONTAINS (buf, "num = 3");
    CHECK_STR_CONTAINS (buf, "label = (none)");
    CHECK_STR_CONTAINS (buf, "# default\n");
    CHECK (strstr (buf, ": default") == NULL);
    free (buf);
    buf = NULL;
    f = open_memstream (&buf, &len);
    fflush (stderr);
    int saved = dup (2);
    FILE *ef = fopen (errpath, "w+");
    dup2 (fileno (ef), 2);
    CHECK (config_verdict (cfg, 3, value, NULL, f) == 2);
    fflush (stderr);
    dup2 (saved, 2);
    close (saved);
    fclose (ef);
    fclose (f);
    CHECK (strstr (buf, "configuration OK") == NULL);
    free (buf);
    char *errtext = file_read_all (errpath, 4096, NULL);
    CHECK_STR_CONTAINS (errtext, "prog: configuration (command line): 3 problem(s) above");
    free (errtext);
    config_destroy (&cfg);
}

/* A file with text gives status 2 and a message containing want. */
static void
bad_file (const char *name, const char *text, size_t len, const char *want)
{
    const char *path = write_file (name, text, len);
    const char *args[] = { "--config", path, NULL };
    settings_t s;
    const char *err;
    CHECK_MSG (parse (args, NULL, &s, NULL, &err) == 2, "%s was accepted", name);
    CHECK_STR_CONTAINS (err, want);
    CHECK_STR_CONTAINS (err, name);
}

static void
test_bad_files (void)
{
    bad_file ("unknown.conf", "db = x\nlisen = y\n", 16, "unknown.conf:2: unknown key 'lisen'");
    /* and the message lists the keys there are */
    bad_file ("unknown2.conf", "lisen = y\n", 10, "db listen label verbose num");
    bad_file ("reserved.conf", "config = /etc/x\n", 16, "a command-line option only");
    bad_file ("help.conf", "help = yes\n", 11, "unknown key 'help'");
    bad_file ("twice.conf", "db = a\n\ndb = b\n", 15, "twice.conf:3: key 'db' given twice (first on line 1)");
    bad_file ("section.conf", "[agent]\ndb = x\n", 15, "section.conf:1: section [agent]");
    bad_file ("noeq.conf", "db /x\n", 6, "noeq.conf:1: expected 'key = value'");
    bad_file ("empty.conf", "db =\n", 5, "empty.conf:1: key 'db' has no value");
    bad_file ("bool.conf", "verbose = maybe\n", 16, "bool.conf:1: verbose 'maybe': yes or no");
    bad_file ("value.conf", "num = 12x\n", 10, "value.conf:1: num '12x': a number");
    bad_file ("nul.conf", "db = a\0b\n", 9, "a NUL byte");
    char *longline = malloc (CONFIG_LINE_MAX + 64);
    memset (longline, 'x', CONFIG_LINE_MAX + 10);
    memcpy (longline, "db = ", 5);
    longline[CONFIG_LINE_MAX + 10] = '\n';
    bad_file ("long.conf", longline, CONFIG_LINE_MAX + 11, "long.conf:1: line of 4106 bytes, longer than the limit of 4096");
    free (longline);
    /* a repeatable key may repeat */
    const char *rep = "label = a=1\nlabel = b=2\nlabel = c=3\n";
    const char *path = write_file ("rep.conf", rep, strlen (rep));
    const char *args[] = { "--config", path, NULL };
    settings_t s;
    const char *err;
    CHECK (parse (args, NULL, &s, NULL, &err) == 0 && s.nlabels == 3);

    /* --help is not hidden by a broken file */
    path = write_file ("broken.conf", "lisen = y\n", 10);
    const char *help[] = { "--config", path, "--help", NULL };
    CHECK (parse (help, NULL, &s, NULL, &err) == 0 && s.help);

    /* --help wins wherever it is: after a bad value, an unknown option or a
       stray argument, and where getopt would take it for a value; nothing
       else is applied */
    const char *after_bad[] = { "--no-config", "--num", "x", "--bogus", "stray", "--help", NULL };
    CHECK (parse (after_bad, NULL, &s, NULL, &err) == 0 && s.help && s.calls == 1);
    const char *as_value[] = { "--no-config", "--db", "--help", NULL };
    CHECK (parse (as_value, NULL, &s, NULL, &err) == 0 && s.help && !s.db);
    const char *after_dashes[] = { "--no-config", "--", "--help", NULL };
    CHECK (parse (after_dashes, NULL, &s, NULL, &err) == 2 && !s.help);
}

static void
test_bad_command_lines (void)
{
    settings_t s;
    const char *err;
    const char *unknown[] = { "--no-config", "--bogus", NULL };
    CHECK (parse (unknown, NULL, &s, NULL, &err) == 2);
    CHECK_STR_CONTAINS (err, "unknown option '--bogus'");
    const char *novalue[] = { "--no-config", "--db", NULL };
    CHECK (parse (novalue, NULL, &s, NULL, &err) == 2);
    CHECK_STR_CONTAINS (err, "option '--db' needs a value");
    const char *extra[] = { "--no-config", "stray", NULL };
    CHECK (parse (extra, NULL, &s, NULL, &err) == 2);
    CHECK_STR_CONTAINS (err, "unexpected argument 'stray'");
    const char *badnum[] = { "--no-config", "--num", "x", NULL };
    CHECK (parse (badnum, NULL, &s, NULL, &err) == 2);
    CHECK_STR_CONTAINS (err, "--num 'x': a number");
    const char *badshort[] = { "--no-config", "-x", NULL };
    CHECK (parse (badshort, NULL, &s, NULL, &err) == 2);
    CHECK_STR_CONTAINS (err, "unknown option '-x'");
    const char *noshort[] = { "--no-config", "-d", NULL };
    CHECK (parse (noshort, NULL, &s, NULL, &err) == 2);
    CHECK_STR_CONTAINS (err, "option '-d' needs a value");
    const char *shortopt[] = { "--no-config", "-d", "/short.db", "-v", NULL };
    CHECK (parse (shortopt, NULL, &s, NULL, &err) == 0);
    CHECK (s.db && strcmp (s.db, "/short.db") == 0 && s.verbose);
}

int
main (void)
{
    if (!mkdtemp (dir)) {
        perror ("mkdtemp");
        return 1;
    }
    snprintf (errpath, sizeof errpath, "%s/stderr", dir);
    test_every_kind_of_key ();
    test_flags_override_the_file ();
    test_bad_files ();
    test_bad_command_lines ();
    char cmd[600];
    snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system (cmd) != 0)
        fprintf (stderr, "could not remove %s\n", dir);
    printf ("config: %d checks, %d failed\n", test_checks, test_failures);
    return test_failures ? 1 : 0;
}
