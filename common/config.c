/*  config.c: see config.h. */
#define _GNU_SOURCE
#include "config.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    int opt;                /* index into opts */
    char *value;            /* NULL for a flag set; owned when from a file */
    char where[512];        /* "--db" or "FILE:LINE: db" */
    bool from_cli;
    bool is_false;          /* a flag set to no in the file: nothing applied */
} entry_t;

struct _config_t {
    const char *prog, *section;
    const char *shortopts;          /* getopt's, e.g. "c:n:vh" */
    const struct option *opts;
    int nopts;
    const char *const *repeatable;
    entry_t *entries;
    int nentries, cap;
    char *path;             /* the file read, or NULL */
    bool check_only;
};

config_t *
config_new (const char *prog, const char *section, const char *shortopts,
            const struct option *opts, const char *const *repeatable)
{
    config_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->prog = prog;
    self->section = section;
    self->shortopts = shortopts;
    self->opts = opts;
    while (opts[self->nopts].name)
        self->nopts++;
    self->repeatable = repeatable;
    return self;
}

void
config_destroy (config_t **self_p)
{
    config_t *self = *self_p;
    if (!self)
        return;
    for (int i = 0; i < self->nentries; i++)
        if (!self->entries[i].from_cli)
            free (self->entries[i].value);
    free (self->entries);
    free (self->path);
    free (self);
    *self_p = NULL;
}

bool config_check_only (const config_t *self) { return self->check_only; }
const char *config_file (const config_t *self) { return self->path ? self->path : ""; }

/* Options a file cannot set: the ones that say how to read the rest. */
static bool
reserved (const struct option *o)
{
    return o->val == CONFIG_OPT_FILE || o->val == CONFIG_OPT_NONE || o->val == CONFIG_OPT_CHECK
           || strcmp (o->name, "help") == 0 || strcmp (o->name, "version") == 0;
}

static bool
is_repeatable (const config_t *self, const char *name)
{
    for (int i = 0; self->repeatable && self->repeatable[i]; i++)
        if (strcmp (self->repeatable[i], name) == 0)
            return true;
    return false;
}

/* Appends an entry; returns it, or NULL when out of memory. */
static entry_t *
add_entry (config_t *self, int opt, char *value, bool from_cli)
{
    if (self->nentries == self->cap) {
        int cap = self->cap ? self->cap * 2 : 32;
        entry_t *e = realloc (self->entries, (size_t) cap * sizeof *e);
        if (!e)
            return NULL;
        self->entries = e;
        self->cap = cap;
    }
    entry_t *e = &self->entries[self->nentries++];
    memset (e, 0, sizeof *e);
    e->opt = opt;
    e->value = value;
    e->from_cli = from_cli;
    return e;
}

static int
find_opt (const config_t *self, const char *name)
{
    for (int i = 0; i < self->nopts; i++)
        if (strcmp (self->opts[i].name, name) == 0)
            return i;
    return -1;
}

/* The keys a file may set, for the message about an unknown one. */
static void
print_keys (const config_t *self)
{
    fprintf (stderr, "%s: the keys are the long options of %s --help:", self->prog, self->prog);
    for (int i = 0; i < self->nopts; i++)
        if (!reserved (&self->opts[i]))
            fprintf (stderr, " %s", self->opts[i].name);
    fputc ('\n', stderr);
}

static char *
trim (char *s)
{
    while (isspace ((unsigned char) *s))
        s++;
    size_t n = strlen (s);
    while (n && isspace ((unsigned char) s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* yes/no in a file for a flag: 1, 0, or -1 when neither. */
static int
parse_bool (const char *v)
{
    static const char *yes[] = { "yes", "true", "on", "1" }, *no[] = { "no", "false", "off", "0" };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcasecmp (v, yes[i]) == 0)
            return 1;
        if (strcasecmp (v, no[i]) == 0)
            return 0;
    }
    return -1;
}

/* One "key = value" line of the file.  Returns 0 or 2 (printed). */
static int
file_line (config_t *self, const char *path, int lineno, char *line, int *first_line)
{
    char *eq = strchr (line, '=');
    if (!eq) {
        fprintf (stderr, "%s: %s:%d: expected 'key = value' or '[%s]', got '%s'\n", self->prog,
                 path, lineno, self->section, line);
        return 2;
    }
    *eq = '\0';
    char *key = trim (line), *value = trim (eq + 1);
    size_t vlen = strlen (value);
    if (vlen >= 2 && value[0] == '"' && value[vlen - 1] == '"') {
        value[vlen - 1] = '\0';
        value++;
    }
    int i = find_opt (self, key);
    if (i < 0 || reserved (&self->opts[i])) {
        fprintf (stderr, "%s: %s:%d: unknown key '%s'%s\n", self->prog, path, lineno, key,
                 i >= 0 ? " (a command-line option only)" : "");
        print_keys (self);
        return 2;
    }
    const struct option *o = &self->opts[i];
    if (first_line[i] && !is_repeatable (self, o->name)) {
        fprintf (stderr, "%s: %s:%d: key '%s' given twice (first on line %d); only keys that "
                 "stand for repeatable options may repeat\n", self->prog, path, lineno, key,
                 first_line[i]);
        return 2;
    }
    if (!first_line[i])
        first_line[i] = lineno;
    bool is_false = false;
    char *copy = NULL;
    if (o->has_arg == no_argument) {
        int b = parse_bool (value);
        if (b < 0) {
            fprintf (stderr, "%s: %s:%d: %s '%s': yes or no (true/false, on/off, 1/0)\n",
                     self->prog, path, lineno, key, value);
            return 2;
        }
        is_false = b == 0;
    } else {
        if (!*value) {
            fprintf (stderr, "%s: %s:%d: key '%s' has no value (remove the line for the "
                     "default)\n", self->prog, path, lineno, key);
            return 2;
        }
        copy = strdup (value);
        if (!copy) {
            fprintf (stderr, "%s: out of memory reading %s\n", self->prog, path);
            return 2;
        }
    }
    entry_t *e = add_entry (self, i, copy, false);
    if (!e) {
        free (copy);
        fprintf (stderr, "%s: out of memory reading %s\n", self->prog, path);
        return 2;
    }
    e->is_false = is_false;
    snprintf (e->where, sizeof e->where, "%s:%d: %s", path, lineno, key);
    return 0;
}

/* Reads the file into entries.  Returns 0 or 2 (printed). */
static int
read_file (config_t *self, const char *path)
{
    size_t len;
    char *text = file_read_all (path, CONFIG_FILE_MAX, &len);
    if (!text) {
        if (errno == EFBIG)
            fprintf (stderr, "%s: configuration file %s is larger than the limit of %d bytes\n",
                     self->prog, path, CONFIG_FILE_MAX);
        else
            fprintf (stderr, "%s: cannot read configuration file %s: %s\n", self->prog, path,
                     strerror (errno));
        return 2;
    }
    self->path = strdup (path);
    int *first_line = calloc ((size_t) self->nopts + 1, sizeof *first_line);
    int rc = self->path && first_line ? 0 : 2;
    if (rc)
        fprintf (stderr, "%s: out of memory reading %s\n", self->prog, path);
    if (!rc && strlen (text) != len) {
        fprintf (stderr, "%s: %s: a NUL byte at offset %zu; a configuration file is text\n",
                 self->prog, path, strlen (text));
        rc = 2;
    }
    char *p = text;
    for (int lineno = 1; !rc && *p; lineno++) {
        char *nl = strchr (p, '\n');
        size_t n = nl ? (size_t) (nl - p) : strlen (p);
        if (n > CONFIG_LINE_MAX) {
            fprintf (stderr, "%s: %s:%d: line of %zu bytes, longer than the limit of %d\n",
                     self->prog, path, lineno, n, CONFIG_LINE_MAX);
            rc = 2;
            break;
        }
        if (nl)
            *nl = '\0';
        char *line = trim (p);
        p = nl ? nl + 1 : p + n;
        if (!*line || *line == '#' || *line == ';')
            continue;
        if (*line == '[') {
            size_t ln = strlen (line);
            if (line[ln - 1] != ']' || ln - 2 != strlen (self->section)
                || strncmp (line + 1, self->section, ln - 2) != 0) {
                fprintf (stderr, "%s: %s:%d: section %s: this file is read by %s, whose "
                         "section is [%s]\n", self->prog, path, lineno, line, self->prog,
                         self->section);
                rc = 2;
            }
            continue;
        }
        rc = file_line (self, path, lineno, line, first_line);
    }
    free (first_line);
    free (text);
    return rc;
}

/* The option behind a getopt return code (the first with that code). */
static int
opt_by_code (const config_t *self, int code)
{
    for (int i = 0; i < self->nopts; i++)
        if (self->opts[i].val == code && !self->opts[i].flag)
            return i;
    return -1;
}

int
config_parse (config_t *self, int argc, char **argv, const char *default_path,
              config_apply_fn *apply, void *arg)
{
    /* ':' first: a missing value is told apart from an unknown option */
    char shorts[128];
    snprintf (shorts, sizeof shorts, ":%s", self->shortopts ? self->shortopts : "");
    /* First the options that say which file to read (and none at all for
       --help or --version: a broken file must not hide the help). */
    const char *path = NULL;
    bool none = false, help = false;
    int help_code = 0;
    opterr = 0;
    optind = 0;
    int c;
    while ((c = getopt_long (argc, argv, shorts, self->opts, NULL)) != -1) {
        int i = opt_by_code (self, c);
        if (c == CONFIG_OPT_FILE)
            path = optarg;
        else if (c == CONFIG_OPT_NONE)
            none = true;
        else if (c == CONFIG_OPT_CHECK)
            self->check_only = true;
        else if (i >= 0 && !help && (strcmp (self->opts[i].name, "help") == 0
                                     || strcmp (self->opts[i].name, "version") == 0)) {
            help = true;
            help_code = c;
        }
    }
    /* --help (or --version) wins wherever it is, also where getopt would
       take it for an option's value: nothing else on the line is checked
       or acted on. */
    for (int i = 0; !help && i < self->nopts; i++)
        if (strcmp (self->opts[i].name, "help") == 0 && !self->opts[i].flag
            && args_want_help (argc, argv, 1)) {
            help = true;
            help_code = self->opts[i].val;
        }
    if (help) {
        char where[64];
        snprintf (where, sizeof where, "--%s", self->opts[opt_by_code (self, help_code)].name);
        return apply (arg, help_code, NULL, where, true);
    }
    if (path && none) {
        fprintf (stderr, "%s: --config and --no-config together: choose one\n", self->prog);
        return 2;
    }
    if (!path && !none && default_path && access (default_path, F_OK) == 0)
        path = default_path;
    if (path) {
        int rc = read_file (self, path);
        if (rc)
            return rc;
    }
    int nfile = self->nentries;
    for (int k = 0; k < nfile; k++) {
        entry_t *e = &self->entries[k];
        if (e->is_false)
            continue;
        int rc = apply (arg, self->opts[e->opt].val, e->value, e->where, false);
        if (rc)
            return rc;
    }
    /* Then the command line, in order: what it says last wins. */
    opterr = 0;
    optind = 0;
    while ((c = getopt_long (argc, argv, shorts, self->opts, NULL)) != -1) {
        if (c == '?' || c == ':') {
            char bad[256];
            const char *last = argv[optind - 1];
            if (strncmp (last, "--", 2) == 0 || !optopt)
                snprintf (bad, sizeof bad, "%.*s", (int) strcspn (last, "="), last);
            else
                snprintf (bad, sizeof bad, "-%c", optopt);
            if (c == ':')
                fprintf (stderr, "%s: option '%s' needs a value (see --help)\n", self->prog, bad);
            else
                fprintf (stderr, "%s: unknown option '%s' (see --help)\n", self->prog, bad);
            return 2;
        }
        if (c == CONFIG_OPT_FILE || c == CONFIG_OPT_NONE || c == CONFIG_OPT_CHECK)
            continue;
        int i = opt_by_code (self, c);
        if (i < 0) {
            fprintf (stderr, "%s: option code %d has no table entry\n", self->prog, c);
            return 2;
        }
        entry_t *e = add_entry (self, i, optarg, true);
        if (!e) {
            fprintf (stderr, "%s: out of memory\n", self->prog);
            return 2;
        }
        snprintf (e->where, sizeof e->where, "--%s", self->opts[i].name);
        int rc = apply (arg, c, optarg, e->where, true);
        if (rc)
            return rc;
    }
    if (optind < argc) {
        fprintf (stderr, "%s: unexpected argument '%s' (see --help)\n", self->prog, argv[optind]);
        return 2;
    }
    return 0;
}

/* One "KEY = VALUE  # ORIGIN" line.  Can't fail. */
static void
print_line (FILE *f, const char *key, const char *v, const char *where)
{
    size_t n = strlen (key) + strlen (v);
    fprintf (f, "%s = %s%*s# %s\n", key, v, (int) (n < 40 ? 40 - n : 1), "", where);
}

void
config_print (const config_t *self, config_value_fn *value, void *arg, FILE *f)
{
    fprintf (f, "# %s: the configuration in force (file: %s)\n", self->prog,
             self->path ? self->path : "none");
    for (int i = 0; i < self->nopts; i++) {
        const struct option *o = &self->opts[i];
        if (reserved (o))
            continue;
        bool cli = false, any = false;
        for (int k = 0; k < self->nentries; k++)
            if (self->entries[k].opt == i) {
                any = true;
                cli |= self->entries[k].from_cli;
            }
        if (!any) {
            char v[1024] = "";
            if (value)
                value (arg, o->val, v, sizeof v);
            print_line (f, o->name, v[0] ? v : "(none)", "default");
            continue;
        }
        for (int k = 0; k < self->nentries; k++) {
            const entry_t *e = &self->entries[k];
            if (e->opt != i || e->from_cli != cli)
                continue;
            print_line (f, o->name, e->value ? e->value : e->is_false ? "no" : "yes", e->where);
        }
    }
}

int
config_verdict (const config_t *self, int problems, config_value_fn *value, void *arg, FILE *f)
{
    config_print (self, value, arg, f);
    if (problems) {
        fprintf (stderr, "%s: configuration %s: %d problem(s) above\n", self->prog,
                 self->path ? self->path : "(command line)", problems);
        return 2;
    }
    fprintf (f, "# configuration OK\n");
    return 0;
}
