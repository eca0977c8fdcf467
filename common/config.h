/*  config.h: the daemons' configuration files and command lines, read the
    same way.

    A file is INI: "key = value" lines, an optional "[SECTION]" header that
    must name the daemon (controller, agent), comments on lines of their own
    starting with '#' or ';'.  Its keys are the daemon's long options
    without the dashes ("db = PATH" is --db PATH; a flag is "verbose = yes");
    an option that may repeat (--label) may repeat as a key.  Flags on the
    command line override the file: a scalar given on both takes the flag's
    value, a repeatable one given on the command line replaces the file's
    list.  Unknown keys, a key given twice, bad values: errors that name the
    file and line.
*/
#ifndef IOF_CONFIG_H
#define IOF_CONFIG_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Option codes config_parse handles itself: put CONFIG_OPTIONS in the
   daemon's option table. */
#define CONFIG_OPT_FILE   0x7f00
#define CONFIG_OPT_NONE   0x7f01
#define CONFIG_OPT_CHECK  0x7f02
#define CONFIG_OPTIONS                                              \
    { "config", required_argument, NULL, CONFIG_OPT_FILE },         \
    { "no-config", no_argument, NULL, CONFIG_OPT_NONE },            \
    { "check-config", no_argument, NULL, CONFIG_OPT_CHECK }

#define CONFIG_LINE_MAX   4096          /* bytes in one line of a file */
#define CONFIG_FILE_MAX   (1 << 20)     /* bytes in a file */

typedef struct _config_t config_t;

/* Applies one option.  value is the option's argument (NULL for a flag);
   where names its origin for messages: "--db" on the command line,
   "FILE:LINE: db" from a file.  from_cli: the command line.  Returns 0, or
   nonzero (the exit status; the handler printed why) to stop. */
typedef int (config_apply_fn) (void *arg, int code, const char *value, const char *where,
                               bool from_cli);

/* A reader for the program prog ("iofleet-agent", for messages) whose files
   have section [section], with getopt's short options shortopts ("c:n:vh",
   or NULL for none) and long options opts (terminated by a zero entry; it
   must outlive the reader) of which the long names in repeatable
   (NULL-terminated) may repeat.  NULL when out of memory. */
config_t *config_new (const char *prog, const char *section, const char *shortopts,
                      const struct option *opts, const char *const *repeatable);
void config_destroy (config_t **self_p);

/* Reads the file (--config PATH, else default_path when it exists, none
   with --no-config), then the command line, calling apply for each option
   in that order.  Values passed to apply live as long as the reader.
   Returns 0, or the exit status after printing the error to stderr: 2 for
   a bad file, key, value or flag. */
int config_parse (config_t *self, int argc, char **argv, const char *default_path,
                  config_apply_fn *apply, void *arg);

/* Whether --check-config was given. */
bool config_check_only (const config_t *self);

/* The file that was read ("" when none).  Can't fail. */
const char *config_file (const config_t *self);

/* The value in force of an option that neither the file nor the command
   line set (its default, as the daemon holds it), written into buf as
   text; "" for none (an empty list, an optional path not given).  code:
   the option's code in the table. */
typedef void (config_value_fn) (void *arg, int code, char *buf, size_t len);

/* Prints every option's value in force and where it came from (the file's
   line, the command line, or "default") to f: "KEY = VALUE  # ORIGIN" (a
   default's VALUE from value(arg, ...); "(none)" for an empty one, or
   when value is NULL).  Can't fail. */
void config_print (const config_t *self, config_value_fn *value, void *arg, FILE *f);

/* The end of --check-config: config_print to f, then "# configuration OK"
   when problems is 0, else a count of the problems (said on stderr before).
   Returns the exit status: 0, or 2 with problems. */
int config_verdict (const config_t *self, int problems, config_value_fn *value, void *arg,
                    FILE *f);

#endif
