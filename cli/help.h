/*  help.h: iofleet's help, command list and manual page, printed from the
    command table (commands.h). */
#ifndef IOF_HELP_H
#define IOF_HELP_H

#include "commands.h"

#include <stdio.h>

/* iofleet --help: the usage, the commands, the options.  Can't fail. */
void help_list (FILE *f);

/* iofleet COMMAND [SUB] --help: c's usage, description and options; for
   a group's own entry, its subcommands.  Can't fail. */
void help_command (FILE *f, const command_t *c);

/* iofleet help [COMMAND [SUBCOMMAND]] (also --list: every entry, one a
   line; --man: the manual page, roff; --markdown: the reference page,
   docs/reference/cli.md).  Returns 0, or 2 for an unknown
   command (printed). */
int cmd_help (int argc, char **argv);

#endif
