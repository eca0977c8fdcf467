/*  commands.h: the one home of what iofleet's commands take: a table of
    every command and subcommand with its synopsis, description and
    options.  The dispatcher checks a command line against it before any
    handler runs (so --help is never taken for an argument), and the help,
    the manual page and the bash completion are printed from it.

    Adding a command: one entry in cli/commands.c (and its cmd_* handler
    in the dispatch of cli/iofleet.c); a new option: one line in its
    entry's options.
*/
#ifndef IOF_COMMANDS_H
#define IOF_COMMANDS_H

#include <stdbool.h>

/* One option of a command (or of iofleet itself). */
typedef struct {
    const char *name;       /* "--format"; NULL ends a list */
    const char *alias;      /* another spelling ("-o" of --output), or NULL */
    const char *arg;        /* what the value is ("FMT"), or NULL for a flag */
    const char *values;     /* the values --arg takes, space-separated, for
                               completion ("text json csv"), or NULL */
    const char *help;       /* one sentence; NULL: hidden (tests, tools) */
} command_opt_t;

/* Flags of a command. */
#define COMMAND_FILES  1u   /* its arguments are files: complete them */
#define COMMAND_NAMES  2u   /* its arguments are command names (help) */

/* One command, one subcommand of a group, or a group itself (name set,
   sub NULL, and other entries of the same name with a sub). */
typedef struct {
    const char *name;           /* "schedule"; NULL ends the table */
    const char *sub;            /* "add", or NULL */
    const char *synopsis;       /* what follows "iofleet NAME [SUB]", '\n'
                                   between alternative forms; NULL for a
                                   group */
    const char *summary;        /* a line for the command list */
    const char *description;    /* a paragraph ('\n' between paragraphs) */
    const command_opt_t *opts;  /* NULL-terminated, or NULL for none */
    unsigned flags;             /* COMMAND_* */
} command_t;

/* Every command, in the order iofleet --help lists them. */
extern const command_t commands[];
/* Options of iofleet itself, before the command. */
extern const command_opt_t commands_global_opts[];
/* Texts of iofleet --help and the manual page: a paragraph, and lists of
   "NAME: text" lines. */
extern const char commands_intro[];
extern const char commands_exit_status[];
extern const char commands_environment[];

/* The entry of command name (subcommand sub, or NULL for the command or
   group itself), or NULL. */
const command_t *commands_find (const char *name, const char *sub);

/* True when name is a group of subcommands (plan, schedule, db ...). */
bool commands_is_group (const char *name);

/* c's option spelled arg (--name, its alias, or --name=VALUE), or NULL. */
const command_opt_t *command_opt_find (const command_t *c, const char *arg);

/* What a command line asks, checked against the table. */
typedef enum {
    COMMANDS_RUN,       /* a known command: run its handler */
    COMMANDS_HELP,      /* --help or -h among its arguments: print its help */
    COMMANDS_USAGE,     /* not a command line of the table: printed why */
} commands_verdict_t;

/* Checks argv (argv[0] the command) against the table: an unknown
   command, subcommand or option is a usage error (message on stderr,
   naming it); --help or -h anywhere before a "--" asks for the help of
   the (sub)command, whatever else the line holds.  *cmd is set to the
   entry for COMMANDS_RUN and COMMANDS_HELP (a group's own entry when
   its subcommand is not given).  Can't fail. */
commands_verdict_t commands_check (int argc, char **argv, const command_t **cmd);

#endif
