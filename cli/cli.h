/*  cli.h: pieces of the iofleet command shared by its commands. */
#ifndef IOF_CLI_H
#define IOF_CLI_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Sends one admin request to the controller at endpoint and returns the
   reply's "result" (new reference), or NULL with a one-line message in err
   that says what went wrong and what to do. */
json_t *client_call (const char *endpoint, json_t *req, int timeout_ms, char *err,
                     size_t errlen);
/* The same, the result as compact JSON text (free it), passed through
   from the reply unparsed: a fleet's report is tens of megabytes.  NULL
   with err filled. */
char *client_call_text (const char *endpoint, json_t *req, int timeout_ms, char *err,
                        size_t errlen);

/* Prints the text form of a report (iofleet report --format text). */
void text_report (FILE *f, json_t *report);

/* qualification_print.c: iofleet report --template qualification as text
   (the controller's qualification report, controller/templates/qualification.h). */
void qualification_print (FILE *f, json_t *q);
/* ab_print.c: iofleet compare --template ab as text (controller/templates/ab.h). */
void ab_print (FILE *f, json_t *res);
/* pts_print.c: iofleet report --template pts as text (controller/templates/pts.h). */
void pts_print (FILE *f, json_t *q);

/* Prints one line per step: the fleet figures (the --wait summary). */
void text_summary (FILE *f, json_t *report);

/* Polls the run until it ends, showing progress on stderr; prints the
   summary.  Returns the run's final status as a static string, or NULL
   (err filled) when the controller went away. */
const char *wait_run (const char *endpoint, long long run, volatile sig_atomic_t *interrupted,
                      char *err, size_t errlen);

/* compare_cmd.c: iofleet compare (the controller compares; this renders).
   Returns the exit status: 0; 1 for a regression beyond
   --fail-on-regression, nothing compared, or a run the controller has no
   report of; 2 for a usage error or sides that are not alike. */
int cmd_compare (const char *endpoint, int argc, char **argv);
/* iofleet compare: prints the controller's answer to compare
   (controller/templates/compare_admin.h): a header naming both sides and the rows
   as a text table, the comparison as JSON, or the rows as CSV. */
void compare_print (FILE *f, json_t *res, const char *format);

/* history.c: iofleet history, iofleet import, and CSV output. */
int cmd_history (const char *endpoint, int argc, char **argv);
/* --since: "30d", "12h", "2w", "90m", or a date "2026-01-31" or
   "2026-01-31T12:00:00Z" (UTC).  Returns 0 with *ns since the epoch, or -1. */
int parse_since (const char *s, int64_t *ns);

/* schedule.c: iofleet schedule, regressions, gc. */
int cmd_schedule (const char *endpoint, int argc, char **argv);
int cmd_regressions (const char *endpoint, int argc, char **argv);
int cmd_gc (const char *endpoint, int argc, char **argv);
/* Tests only: the scheduler clock of a controller started with --test-clock. */
int cmd_test_clock (const char *endpoint, int argc, char **argv);
int cmd_import (const char *endpoint, int argc, char **argv);
/* One CSV field (quoted when it needs to be), then ',' or, last, '\n'. */
void csv_field (FILE *f, const char *s, bool last);
/* A JSON number, string or boolean as a CSV field; null is empty. */
void csv_json (FILE *f, json_t *v, bool last);
/* A report as CSV: one line per target, group and fleet row. */
void report_csv (FILE *f, json_t *report);

/* CURVE for admin calls to a controller off this host: the CLI's secret
   certificate and the controller's public one (NULL: none). */
void client_set_curve (const char *secret_file, const char *server_cert);

/* cancel.c: iofleet cancel RUN. */
int cmd_cancel (const char *endpoint, int argc, char **argv);

/* iofleet keys. */
int cmd_keys (int argc, char **argv);

/* iofleet demo. */
int cmd_demo (int argc, char **argv);

/* completion.c: iofleet completion bash. */
int cmd_completion (int argc, char **argv);

extern const char demo_plan_text[];

/* records.c: iofleet plan show|diff|rm and runs rm (argv[0] the command,
   argv[1] the subcommand), and what the CLI's files share. */
int cmd_plan_show (const char *endpoint, int argc, char **argv);
int cmd_plan_diff (const char *endpoint, int argc, char **argv);
int cmd_plan_rm (const char *endpoint, int argc, char **argv);
int cmd_runs_rm (const char *endpoint, int argc, char **argv);
/* One admin call; on failure says so on stderr as "iofleet WHAT: ..." and
   returns NULL.  Takes req. */
json_t *cli_call (const char *endpoint, json_t *req, int timeout_ms, const char *what);
/* How long a command waits for its answer: most commands, and a report
   (or a database's usage, check and backup: ten of those). */
#define CALL_TIMEOUT_MS   10000
#define REPORT_TIMEOUT_MS 60000
/* The same, saying "iofleet: ..." (the commands of iofleet.c and
   cmd_db.c).  Takes req. */
json_t *cli_ask (const char *endpoint, json_t *req, int timeout_ms);
/* Parses the options every listing command shares (argv[first..]: only
   --json).  Returns 0, or 2 with the argument named on stderr. */
int cli_flag_json (int argc, char **argv, int first, bool *json);
void cli_print_json (json_t *j);
/* iofleet db usage|check|backup and iofleet stats (cmd_db.c). */
int cmd_db (const char *endpoint, int argc, char **argv);
int cmd_stats (const char *endpoint, int argc, char **argv);
/* ns since the epoch as "YYYY-MM-DD HH:MM:SS UTC" ("-" for none). */
const char *cli_utc (int64_t ns, char *buf, size_t cap);
/* Adds --label's KEY=VALUE to labels.  Returns 0, or 2 (said, naming
   what: the command). */
int cli_label_arg (json_t *labels, const char *what, const char *kv);

/* interrupt.c: the signal's number, set by SIGINT/SIGTERM once
   cli_catch_interrupts ran, so that a wait stops cleanly (what runs on the
   controller goes on); a command it ends exits 128 + that number, as a
   shell says of a program a signal killed. */
extern volatile sig_atomic_t g_interrupted;
/* Catches SIGINT and SIGTERM into g_interrupted.  Can't fail. */
void cli_catch_interrupts (void);

#endif
