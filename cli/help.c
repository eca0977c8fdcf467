/*  help.c: iofleet --help, iofleet COMMAND --help, iofleet help, the
    manual page iofleet(1) and the reference page docs/reference/cli.md,
    all printed from the command table. */
#include "help.h"
#include "util.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define WIDTH      79   /* of the text help */
#define OPT_COLUMN 26   /* where an option's help starts */

/* Prints s from column col (what the line holds already), wrapped at
   WIDTH with continuation lines indented by indent, then a newline.
   Spaces inside [...] do not break a line: "[--by KEY]" stays whole. */
static void
wrap (FILE *f, const char *s, int col, int indent)
{
    bool first = true;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        const char *w = s;
        int depth = 0;
        for (; *s && (*s != ' ' || depth > 0); s++)
            depth += *s == '[' ? 1 : *s == ']' && depth > 0 ? -1 : 0;
        int len = (int) (s - w);
        if (!first && col + 1 + len > WIDTH) {
            fprintf (f, "\n%*s", indent, "");
            col = indent;
        } else if (!first) {
            fputc (' ', f);
            col++;
        }
        fwrite (w, 1, (size_t) len, f);
        col += len;
        first = false;
    }
    fputc ('\n', f);
}

/* Each '\n'-separated paragraph of text wrapped, a blank line between. */
static void
paragraphs (FILE *f, const char *text, int indent)
{
    char buf[4096];
    for (const char *p = text; *p;) {
        size_t n = strcspn (p, "\n");
        snprintf (buf, sizeof buf, "%.*s", (int) n, p);
        fprintf (f, "%*s", indent, "");
        wrap (f, buf, indent, indent);
        p += n;
        if (*p == '\n' && *++p)
            fputc ('\n', f);
    }
}

/* "-o, --output FILE" into buf. */
static const char *
opt_label (const command_opt_t *o, char *buf, size_t cap)
{
    snprintf (buf, cap, "%s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "", o->name,
              o->arg ? " " : "", o->arg ? o->arg : "");
    return buf;
}

/* A list of options (or of anything with a name and a help): the label,
   then its help from OPT_COLUMN. */
static void
item (FILE *f, const char *label, const char *help)
{
    int n = fprintf (f, "  %s", label);
    if (n > OPT_COLUMN - 2)     /* too long: its help on the next line */
        fprintf (f, "\n%*s", OPT_COLUMN, "");
    else
        fprintf (f, "%*s", OPT_COLUMN - n, "");
    wrap (f, help, OPT_COLUMN, OPT_COLUMN);
}

static void
options (FILE *f, const command_opt_t *opts, const char *help_line)
{
    char label[128];
    fprintf (f, "\noptions:\n");
    for (const command_opt_t *o = opts; o && o->name; o++)
        if (o->help)
            item (f, opt_label (o, label, sizeof label), o->help);
    if (help_line)
        item (f, "-h, --help", help_line);
}

/* Prints the usage lines of c ("usage: iofleet NAME SUB SYNOPSIS", one
   per alternative form), the first prefixed by *lead, the others by
   spaces; *lead becomes the spaces after the first line. */
static void
usage_lines (FILE *f, const command_t *c, const char **lead)
{
    char line[1024];
    for (const char *p = c->synopsis; p;) {
        size_t n = strcspn (p, "\n");
        int col = snprintf (line, sizeof line, "%siofleet %s%s%s%s", *lead, c->name,
                            c->sub ? " " : "", c->sub ? c->sub : "", n ? " " : "");
        fputs (line, f);
        snprintf (line, sizeof line, "%.*s", (int) n, p);
        wrap (f, line, col, col > 40 ? 11 : col);
        *lead = "       ";
        p = p[n] ? p + n + 1 : NULL;
    }
}

void
help_command (FILE *f, const command_t *c)
{
    const char *lead = "usage: ";
    if (!c->sub && commands_is_group (c->name)) {
        if (c->synopsis)
            usage_lines (f, c, &lead);
        for (const command_t *s = commands; s->name; s++)
            if (s->sub && strcmp (s->name, c->name) == 0)
                usage_lines (f, s, &lead);
        fputc ('\n', f);
        paragraphs (f, c->description, 0);
        if (c->opts)
            options (f, c->opts, NULL);
        fprintf (f, "\nsubcommands:\n");
        for (const command_t *s = commands; s->name; s++)
            if (s->sub && strcmp (s->name, c->name) == 0)
                item (f, s->sub, s->summary);
        char line[256];
        snprintf (line, sizeof line, "iofleet help %s SUBCOMMAND (or iofleet %s SUBCOMMAND "
                  "--help) shows its usage and options.", c->name, c->name);
        fputc ('\n', f);
        wrap (f, line, 0, 0);
        return;
    }
    usage_lines (f, c, &lead);
    fputc ('\n', f);
    paragraphs (f, c->description, 0);
    options (f, c->opts, "this help");
}

/* Lines "NAME: text" as items; the endpoint this CLI would call, as it is
   run, after IOFLEET_CONTROLLER's. */
static void
named_items (FILE *f, const char *text)
{
    char line[1024], more[1200], admin[512];
    for (const char *p = text; *p;) {
        size_t n = strcspn (p, "\n");
        snprintf (line, sizeof line, "%.*s", (int) n, p);
        char *colon = strstr (line, ": ");
        IOF_ASSERT (colon);
        *colon = '\0';
        bool endpoint = strcmp (line, "IOFLEET_CONTROLLER") == 0;
        snprintf (more, sizeof more, "%s%s%s%s", colon + 2, endpoint ? " Here: " : "",
                  endpoint ? default_admin_endpoint (admin, sizeof admin, false) : "",
                  endpoint ? "." : "");
        item (f, line, more);
        p += n + (p[n] == '\n');
    }
}

void
help_list (FILE *f)
{
    char label[128];
    fprintf (f, "usage: iofleet [--controller ENDPOINT] [--cert FILE --controller-key FILE] "
             "COMMAND [ARGS]\n       iofleet help [COMMAND [SUBCOMMAND]]\n\n");
    paragraphs (f, commands_intro, 0);
    fprintf (f, "\ncommands:\n");
    for (const command_t *c = commands; c->name; c++)
        if (c->sub || !commands_is_group (c->name)) {
            snprintf (label, sizeof label, "%s%s%s", c->name, c->sub ? " " : "",
                      c->sub ? c->sub : "");
            item (f, label, c->summary);
        }
    fprintf (f, "\noptions (before the command):\n");
    for (const command_opt_t *o = commands_global_opts; o->name; o++)
        item (f, opt_label (o, label, sizeof label), o->help);
    fprintf (f, "\nenvironment:\n");
    named_items (f, commands_environment);
    fprintf (f, "\nexit status:\n");
    named_items (f, commands_exit_status);
    fputc ('\n', f);
    wrap (f, "iofleet help COMMAND (or iofleet COMMAND --help) shows a command's usage and "
          "options.", 0, 0);
}

/* --- the manual page ---------------------------------------------------- */

/* Text for roff: '-' as \-, '\' as \e, a line start that roff would take
   for a request escaped. */
static void
roff (FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        if (i == 0 && (s[0] == '.' || s[0] == '\''))
            fputs ("\\&", f);
        if (s[i] == '-')
            fputs ("\\-", f);
        else if (s[i] == '\\')
            fputs ("\\e", f);
        else
            fputc (s[i], f);
    }
}

static void
roff_paragraphs (FILE *f, const char *text)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn (p, "\n");
        roff (f, p, n);
        fputc ('\n', f);
        p += n;
        if (*p == '\n' && *++p)
            fputs (".PP\n", f);
    }
}

static void
roff_options (FILE *f, const command_opt_t *opts)
{
    for (const command_opt_t *o = opts; o && o->name; o++) {
        if (!o->help)
            continue;
        fputs (".TP\n", f);
        if (o->alias) {
            fputs ("\\fB", f);
            roff (f, o->alias, SIZE_MAX);
            fputs ("\\fR, ", f);
        }
        fputs ("\\fB", f);
        roff (f, o->name, SIZE_MAX);
        fputs ("\\fR", f);
        if (o->arg) {
            fputs (" \\fI", f);
            roff (f, o->arg, SIZE_MAX);
            fputs ("\\fR", f);
        }
        fputc ('\n', f);
        roff (f, o->help, SIZE_MAX);
        fputc ('\n', f);
    }
}

static void
roff_synopsis (FILE *f, const command_t *c)
{
    for (const char *p = c->synopsis; p;) {
        size_t n = strcspn (p, "\n");
        fprintf (f, ".B iofleet %s%s", c->name, c->sub ? " " : "");
        if (c->sub)
            roff (f, c->sub, SIZE_MAX);
        fputc ('\n', f);
        if (n) {
            roff (f, p, n);
            fputc ('\n', f);
        }
        p = p[n] ? p + n + 1 : NULL;
        if (p)
            fputs (".br\n", f);
    }
}

/* Lines "NAME: text" as a .TP list. */
static void
roff_named_items (FILE *f, const char *text)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn (p, "\n");
        const char *colon = strstr (p, ": ");
        IOF_ASSERT (colon && (size_t) (colon - p) < n);
        fputs (".TP\n\\fB", f);
        roff (f, p, (size_t) (colon - p));
        fputs ("\\fR\n", f);
        roff (f, colon + 2, n - (size_t) (colon - p) - 2);
        fputc ('\n', f);
        p += n + (p[n] == '\n');
    }
}

/* iofleet(1), roff; the build writes it with iofleet help --man. */
static void
help_man (FILE *f)
{
    fprintf (f, ".\\\" iofleet(1), printed by 'iofleet help --man' from cli/commands.c.\n"
             ".TH IOFLEET 1 \"\" \"iofleet %s\" \"User Commands\"\n"
             ".SH NAME\n"
             "iofleet \\- the iofleet command line: plans, runs, reports, comparisons, keys\n"
             ".SH SYNOPSIS\n"
             ".B iofleet\n"
             "[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n"
             ".br\n"
             ".B iofleet help\n"
             "[\\fICOMMAND\\fR [\\fISUBCOMMAND\\fR]]\n"
             ".br\n"
             ".B iofleet\n"
             "\\fICOMMAND\\fR \\fB\\-\\-help\\fR\n"
             ".SH DESCRIPTION\n", IOF_VERSION);
    roff_paragraphs (f, commands_intro);
    fputs (".PP\nEvery command and subcommand answers \\fB\\-\\-help\\fR (or \\fB\\-h\\fR), "
           "wherever it is on the line, with its usage on standard output, and does nothing "
           "else.\n.SH OPTIONS\nThese come before the command.\n", f);
    roff_options (f, commands_global_opts);
    fputs (".SH COMMANDS\n", f);
    for (const command_t *c = commands; c->name; c++) {
        fprintf (f, ".SS \"%s%s%s\"\n", c->name, c->sub ? " " : "", c->sub ? c->sub : "");
        if (c->synopsis) {
            roff_synopsis (f, c);
            fputs (".PP\n", f);
        }
        roff_paragraphs (f, c->description);
        roff_options (f, c->opts);
    }
    fputs (".SH \"EXIT STATUS\"\n", f);
    roff_named_items (f, commands_exit_status);
    fputs (".SH ENVIRONMENT\n", f);
    roff_named_items (f, commands_environment);
    fputs (".SH \"SEE ALSO\"\n"
           ".BR iofleet\\-controller (8),\n"
           ".BR iofleet\\-agent (8),\n"
           "/usr/share/doc/iofleet\\-cli/README.md\n", f);
}

/* --- the reference page, Markdown -------------------------------------- */

/* Text for Markdown outside code: the characters that would start
   emphasis, a link, a code span or an HTML tag are escaped. */
static void
md_text (FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        if (strchr ("\\`*_[]<>|", s[i]))
            fputc ('\\', f);
        fputc (s[i], f);
    }
}

/* Each '\n'-separated paragraph of text, a blank line between. */
static void
md_paragraphs (FILE *f, const char *text)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn (p, "\n");
        md_text (f, p, n);
        fputc ('\n', f);
        p += n;
        if (*p == '\n' && *++p)
            fputc ('\n', f);
    }
}

static void
md_options (FILE *f, const command_opt_t *opts)
{
    bool any = false;
    for (const command_opt_t *o = opts; o && o->name; o++) {
        if (!o->help)
            continue;
        if (!any)
            fputc ('\n', f);
        any = true;
        fprintf (f, "- `%s%s%s%s%s`: ", o->alias ? o->alias : "", o->alias ? "`, `" : "",
                 o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        md_text (f, o->help, SIZE_MAX);
        fputc ('\n', f);
    }
}

/* Lines "NAME: text" as a list. */
static void
md_named_items (FILE *f, const char *text)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn (p, "\n");
        const char *colon = strstr (p, ": ");
        IOF_ASSERT (colon && (size_t) (colon - p) < n);
        fprintf (f, "- `%.*s`: ", (int) (colon - p), p);
        md_text (f, colon + 2, n - (size_t) (colon - p) - 2);
        fputc ('\n', f);
        p += n + (p[n] == '\n');
    }
}

/* docs/reference/cli.md; tests/e2e/test_docs.sh checks that the committed
   page is this output.  No version in it: the page changes only when the
   table does. */
static void
help_markdown (FILE *f)
{
    fputs ("<!-- Generated by 'iofleet help --markdown' from cli/commands.c: do not edit.\n"
           "     Change the command table, then: iofleet help --markdown > docs/reference/cli.md\n"
           "     (tests/e2e/test_docs.sh fails while the two differ). -->\n"
           "# iofleet: command reference\n\n"
           "```text\n"
           "iofleet [OPTIONS] COMMAND [ARGS]\n"
           "iofleet help [COMMAND [SUBCOMMAND]]\n"
           "iofleet COMMAND --help\n"
           "```\n\n", f);
    md_paragraphs (f, commands_intro);
    fputs ("\nEvery command and subcommand answers `--help` (or `-h`), wherever it is on the "
           "line, with its usage on standard output, and does nothing else. The same table "
           "prints `iofleet --help`, the manual page (`man iofleet`) and the bash completion "
           "(`iofleet completion bash`).\n\n"
           "## Options\n\nThese come before the command.\n", f);
    md_options (f, commands_global_opts);
    fputs ("\n## Commands\n", f);
    for (const command_t *c = commands; c->name; c++) {
        fprintf (f, "\n### iofleet %s%s%s\n\n", c->name, c->sub ? " " : "", c->sub ? c->sub : "");
        if (c->synopsis) {
            fputs ("```text\n", f);
            for (const char *p = c->synopsis; p;) {
                size_t n = strcspn (p, "\n");
                fprintf (f, "iofleet %s%s%s%s%.*s\n", c->name, c->sub ? " " : "",
                         c->sub ? c->sub : "", n ? " " : "", (int) n, p);
                p = p[n] ? p + n + 1 : NULL;
            }
            fputs ("```\n\n", f);
        }
        md_paragraphs (f, c->description);
        md_options (f, c->opts);
    }
    fputs ("\n## Exit status\n\n", f);
    md_named_items (f, commands_exit_status);
    fputs ("\n## Environment\n\n", f);
    md_named_items (f, commands_environment);
}

int
cmd_help (int argc, char **argv)
{
    if (argc == 1) {
        help_list (stdout);
        return 0;
    }
    if (argc == 2 && strcmp (argv[1], "--list") == 0) {
        for (const command_t *c = commands; c->name; c++)
            printf ("%s%s%s\n", c->name, c->sub ? " " : "", c->sub ? c->sub : "");
        return 0;
    }
    if (argc == 2 && strcmp (argv[1], "--man") == 0) {
        help_man (stdout);
        return 0;
    }
    if (argc == 2 && strcmp (argv[1], "--markdown") == 0) {
        help_markdown (stdout);
        return 0;
    }
    const command_t *c = commands_find (argv[1], NULL);
    if (c && argc == 3)
        c = commands_is_group (argv[1]) ? commands_find (argv[1], argv[2]) : NULL;
    if (!c || argc > 3) {
        fprintf (stderr, "iofleet help: no command '%s%s%s'%s (see iofleet --help)\n", argv[1],
                 argc >= 3 ? " " : "", argc >= 3 ? argv[2] : "", argc > 3 ? " ..." : "");
        return 2;
    }
    help_command (stdout, c);
    return 0;
}
