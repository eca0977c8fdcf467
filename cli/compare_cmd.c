/*  compare_cmd.c: iofleet compare: parses the command line, asks the
    controller's "compare" command (controller/templates/compare_admin.c), which
    builds both sides, compares and judges them, and renders its answer
    (compare_print.c for text, JSON and CSV; html_compare.c for HTML).
*/
#include "cli.h"
#include "html_report.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A compare builds two reports in the controller: the time the two
   report calls it replaces had (60 s each). */
#define COMPARE_TIMEOUT_MS 120000

/* --steps "A=B[,A=B...]" as [[A, B], ...], or NULL (err printed). */
static json_t *
compare_steps_arg (const char *arg)
{
    json_t *pairs = json_array ();
    char buf[4096];
    str_copy (buf, sizeof buf, arg);
    for (char *save = NULL, *tok = strtok_r (buf, ",", &save); tok;
         tok = strtok_r (NULL, ",", &save)) {
        char *eq = strchr (tok, '=');
        if (!eq || eq == tok || !eq[1] || strchr (eq + 1, '=')) {
            fprintf (stderr, "iofleet compare: --steps '%s': want A_STEP=B_STEP[,...] (a step "
                     "of run A, then the step of run B it is compared with), e.g. --steps "
                     "randread=randread-4k\n", arg);
            json_decref (pairs);
            return NULL;
        }
        *eq = '\0';
        json_array_append_new (pairs, json_pack ("[s, s]", tok, eq + 1));
    }
    if (json_array_size (pairs) == 0) {
        fprintf (stderr, "iofleet compare: --steps: name at least one A_STEP=B_STEP\n");
        json_decref (pairs);
        return NULL;
    }
    return pairs;
}

int
cmd_compare (const char *endpoint, int argc, char **argv)
{
    long long runs[2] = { 0, 0 };
    int nruns = 0;
    const char *by = NULL, *ga = NULL, *gb = NULL, *format = "text", *out = NULL;
    const char *steps_arg = NULL, *template = NULL;
    bool sum = false, force = false;
    double ab_thr = -1;
    double fail_pct = -1;
    for (int i = 1; i < argc; i++) {
        uint64_t v;
        if (strcmp (argv[i], "--by") == 0 && i + 1 < argc)
            by = argv[++i];
        else if ((strcmp (argv[i], "-o") == 0 || strcmp (argv[i], "--output") == 0) && i + 1 < argc)
            out = argv[++i];
        else if (strcmp (argv[i], "--a") == 0 && i + 1 < argc)
            ga = argv[++i];
        else if (strcmp (argv[i], "--b") == 0 && i + 1 < argc)
            gb = argv[++i];
        else if (strcmp (argv[i], "--steps") == 0 && i + 1 < argc)
            steps_arg = argv[++i];
        else if (strcmp (argv[i], "--template") == 0 && i + 1 < argc)
            template = argv[++i];
        else if (strcmp (argv[i], "--ab-threshold") == 0 && i + 1 < argc) {
            char *end;
            ab_thr = strtod (argv[++i], &end);
            if (*end || !(ab_thr >= 0)) {
                fprintf (stderr, "iofleet compare: --ab-threshold '%s': a percentage, e.g. 5\n",
                         argv[i]);
                return 2;
            }
        } else if (strcmp (argv[i], "--sum") == 0)
            sum = true;
        else if (strcmp (argv[i], "--force") == 0)
            force = true;
        else if (strcmp (argv[i], "--format") == 0 && i + 1 < argc) {
            format = argv[++i];
            if (strcmp (format, "json") && strcmp (format, "text") && strcmp (format, "csv")
                && strcmp (format, "html")) {
                fprintf (stderr, "iofleet compare: --format '%s': use text, json, csv or html\n",
                         format);
                return 2;
            }
        } else if (strcmp (argv[i], "--fail-on-regression") == 0 && i + 1 < argc) {
            char *end;
            fail_pct = strtod (argv[++i], &end);
            if (*end || !(fail_pct >= 0)) {
                fprintf (stderr, "iofleet compare: --fail-on-regression '%s': a percentage, "
                         "e.g. 5\n", argv[i]);
                return 2;
            }
        } else if (nruns < 2 && parse_u64 (argv[i], 1, INT64_MAX, &v) == 0)
            runs[nruns++] = (long long) v;
        else {
            fprintf (stderr, "iofleet compare: unexpected argument '%s'\n", argv[i]);
            return 2;
        }
    }
    bool html = strcmp (format, "html") == 0;
    bool groups = ga || gb;
    if (template && strcmp (template, "ab") != 0) {
        fprintf (stderr, "iofleet compare: --template '%s': use ab\n", template);
        return 2;
    }
    if (template && strcmp (format, "text") != 0 && strcmp (format, "json") != 0 && !html) {
        fprintf (stderr, "iofleet compare: --template ab renders as text, json or html\n");
        return 2;
    }
    if (!template && ab_thr >= 0) {
        fprintf (stderr, "iofleet compare: --ab-threshold goes with --template ab\n");
        return 2;
    }
    if (html != (out != NULL)) {
        fprintf (stderr, html ? "iofleet compare: --format html writes a file: give -o FILE "
                                "(or -o - for stdout)\n"
                              : "iofleet compare: -o is for --format html; redirect the other "
                                "formats (> FILE)\n");
        return 2;
    }
    if (html && groups && !template) {
        fprintf (stderr, "iofleet compare: --format html compares two runs (A B); for two groups "
                 "of one run use --template ab, or text, json or csv\n");
        return 2;
    }
    if (groups && (nruns != 1 || !ga || !gb || by || steps_arg)) {
        fprintf (stderr, "iofleet compare: two groups of one run: iofleet compare RUN --a "
                 "KEY=GLOB --b KEY=GLOB [--sum] (no --by or --steps), e.g. --a label.bay=onboard "
                 "--b label.bay=expander\n");
        return 2;
    }
    if (!groups && nruns != 2) {
        fprintf (stderr, "iofleet compare: give two runs, A then B, e.g. iofleet compare 41 42\n");
        return 2;
    }
    json_t *steps = NULL;
    if (steps_arg && !(steps = compare_steps_arg (steps_arg)))
        return 2;
    json_t *req = json_pack ("{s:s, s:b, s:b, s:b}", "cmd", "compare", "sum", sum, "force",
                             force, "reports", html && !template);
    if (groups) {
        json_object_set_new (req, "run", json_integer ((json_int_t) runs[0]));
        json_object_set_new (req, "a", json_string (ga));
        json_object_set_new (req, "b", json_string (gb));
    } else
        json_object_set_new (req, "runs", json_pack ("[I, I]", (json_int_t) runs[0],
                                                     (json_int_t) runs[1]));
    if (by)
        json_object_set_new (req, "by", json_string (by));
    if (steps)
        json_object_set_new (req, "steps", steps);
    if (fail_pct >= 0)
        json_object_set_new (req, "fail_pct", json_real (fail_pct));
    if (template)
        json_object_set_new (req, "template", json_string (template));
    if (ab_thr >= 0)
        json_object_set_new (req, "ab_threshold_pct", json_real (ab_thr));
    char err[2048];
    json_t *res = client_call (endpoint, req, COMPARE_TIMEOUT_MS, err, sizeof err);
    json_decref (req);
    if (!res) {
        fprintf (stderr, "iofleet: %s\n", err);
        return groups ? 2 : 1;
    }
    const char *refused = json_string_value (json_object_get (res, "refused"));
    if (refused) {
        fprintf (stderr, "iofleet compare: %s\n", refused);
        json_decref (res);
        return 2;
    }
    json_t *cmp = json_object_get (res, "compare");
    json_t *rows = json_object_get (cmp, "rows");
    int regressions = (int) json_integer_value (json_object_get (res, "regressions"));
    int status = 0;
    if (html) {
        if ((template ? html_ab_write : html_compare_write) (out, res, err, sizeof err)) {
            fprintf (stderr, "iofleet compare: %s\n", err);
            status = 1;
        }
    } else if (template && strcmp (format, "text") == 0)
        ab_print (stdout, res);
    else if (template) {
        /* The A/B tests beside the comparison they are made of. */
        json_t *o = json_pack ("{s:O, s:O}", "compare", cmp, "ab", json_object_get (res, "ab"));
        cli_print_json (o);
        json_decref (o);
    } else
        compare_print (stdout, res, format);
    if (json_array_size (rows) == 0) {
        /* Nothing compared is no verdict: never a quiet exit 0. */
        json_t *skip = json_array_get (json_object_get (cmp, "skipped"), 0);
        fprintf (stderr, "iofleet compare: nothing compared: %s\n",
                 skip ? json_string_value (json_object_get (skip, "reason"))
                      : "the runs have no step name in common (map steps with --steps)");
        status = 1;
    }
    if (regressions)
        fprintf (stderr, "iofleet compare: %d %s beyond %.1f%%\n", regressions,
                 plural (regressions, "regression", "regressions"), fail_pct);
    json_decref (res);
    return regressions || status ? 1 : 0;
}
