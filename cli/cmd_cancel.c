/*  cancel.c: iofleet cancel RUN. */
#define _GNU_SOURCE
#include "cli.h"
#include "util.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CANCEL_TIMEOUT_MS 30000     /* stores the step's results first */

/* Who cancels, for the run's record: USER@HOST; under sudo, the user who
   ran sudo too.  Can't fail. */
static void
who_am_i (char *out, size_t cap)
{
    const struct passwd *pw = getpwuid (geteuid ());
    const char *user = pw ? pw->pw_name : getenv ("USER");
    const char *sudo = getenv ("SUDO_USER");
    char host[256] = "";
    if (gethostname (host, sizeof host - 1) != 0 || !host[0])
        snprintf (host, sizeof host, "unknown-host");
    if (sudo && *sudo && (!user || strcmp (sudo, user) != 0))
        snprintf (out, cap, "%s@%s (sudo, as %s)", sudo, host, user ? user : "?");
    else
        snprintf (out, cap, "%s@%s", user && *user ? user : "unknown", host);
}

int
cmd_cancel (const char *endpoint, int argc, char **argv)
{
    bool json = false;
    uint64_t run = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp (argv[i], "--json") == 0)
            json = true;
        else if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0) {
            printf ("usage: iofleet cancel RUN [--json]\n\nStops a queued or running run: its "
                    "agents stop laying files out and\ndoing I/O within a second, the intervals "
                    "they delivered are kept and the\nstep's results made from them, and the "
                    "run ends 'cancelled', recording\nwho (USER@HOST) and when.  A run that "
                    "has ended is not changed (exit 1).\n");
            return 0;
        } else if (run == 0 && parse_u64 (argv[i], 1, INT64_MAX, &run) == 0)
            continue;
        else {
            fprintf (stderr, "iofleet cancel: unexpected argument '%s' (usage: iofleet cancel "
                     "RUN [--json]; RUN: a run id, see iofleet runs)\n", argv[i]);
            return 2;
        }
    }
    if (run == 0) {
        fprintf (stderr, "iofleet cancel: which run? e.g. iofleet cancel 42 (see iofleet runs)\n");
        return 2;
    }
    char by[512];
    who_am_i (by, sizeof by);
    json_t *r = cli_call (endpoint, json_pack ("{s:s, s:I, s:s}", "cmd", "cancel", "run",
                                               (json_int_t) run, "by", by),
                          CANCEL_TIMEOUT_MS, "cancel");
    if (!r)
        return 1;
    if (json) {
        cli_print_json (r);
        json_decref (r);
        return 0;
    }
    printf ("run %llu %s", (unsigned long long) run,
            json_string_value (json_object_get (r, "message")));
    json_t *step = json_object_get (r, "step");
    if (step) {
        printf ("; it was at step %lld/%lld '%s'", (long long) json_integer_value (step) + 1,
                (long long) json_integer_value (json_object_get (r, "steps")),
                json_string_value (json_object_get (r, "step_name")));
        json_t *stopped = json_object_get (r, "stopped");
        size_t i;
        json_t *a;
        printf ("; %zu agent(s) told to stop", json_array_size (stopped));
        json_array_foreach (stopped, i, a)
            printf ("%s%s", i ? ", " : ": ", json_string_value (a));
    } else
        printf (" (it was %s)", json_string_value (json_object_get (r, "was")));
    printf ("\n");
    json_decref (r);
    return 0;
}
