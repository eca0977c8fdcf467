/*  jobfile_fx.c: see jobfile_fx.h. */
#include "jobfile_fx.h"

#include <math.h>
#include <stdio.h>

/* The counts of the program this fixture is linked into (testutil.h). */
int test_failures;
int test_checks;

const char *fx_dir;

int
fx_dir_arg (int argc, char **argv)
{
    if (argc != 2) {
        fprintf (stderr, "usage: %s FIXTURES_DIR (tests/fixtures/jobs)\n", argv[0]);
        return -1;
    }
    fx_dir = argv[1];
    return 0;
}

const char *
fx_path (char *buf, size_t size, const char *file)
{
    snprintf (buf, size, "%s/%s", fx_dir, file);
    return buf;
}

jobfile_t *
fx_parse (const char *text)
{
    char err[512];
    jobfile_t *jf = jobfile_parse ("t.fio", text, err, sizeof err);
    if (!jf)
        fprintf (stderr, "  parse error: %s\n", err);
    return jf;
}

bool
fx_parse_fails (const char *text, char *err, size_t errlen)
{
    jobfile_t *jf = jobfile_parse ("t.fio", text, err, errlen);
    bool failed = jf == NULL;
    jobfile_destroy (&jf);
    return failed;
}

bool
fx_checked (bool ok, const char *expr, const char *file, int line)
{
    test_checks++;
    if (!ok) {
        fprintf (stderr, "%s:%d: CHECK failed: %s\n", file, line, expr);
        test_failures++;
    }
    return ok;
}

bool
fx_one_job (const char *text, job_t *out)
{
    jobfile_t *jf = fx_parse (text);
    bool ok = jf && jf->nsteps == 1;
    if (ok)
        *out = jf->steps[0];
    else if (jf)
        fprintf (stderr, "  %d jobs, wanted 1\n", jf->nsteps);
    jobfile_destroy (&jf);
    return ok;
}

bool
fx_near (double a, double b)
{
    return fabs (a - b) < 1e-12;
}

bool
fx_split_is (const job_t *j, int d, int n, const uint32_t want[][2])
{
    if (j->nbssplit[d] != n) {
        fprintf (stderr, "  bssplit[%d] has %d entries, want %d\n", d, j->nbssplit[d], n);
        return false;
    }
    for (int i = 0; i < n; i++) {
        if (j->bssplit[d][i].bs != want[i][0] || j->bssplit[d][i].pct != want[i][1]) {
            fprintf (stderr, "  bssplit[%d][%d] = %u/%u, want %u/%u\n", d, i,
                     j->bssplit[d][i].bs, j->bssplit[d][i].pct, want[i][0], want[i][1]);
            return false;
        }
    }
    return true;
}
