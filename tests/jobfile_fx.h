/*  jobfile_fx.h: the fixture the job-file tests share (test_jobfile.c,
    test_jobfile_fuzz.c, test_job_opts.c, test_optval.c, test_sweep.c,
    test_jobspec.c, each a program of its own): the fixtures directory
    (tests/fixtures/jobs), parsing helpers, and the checks every one of
    them makes of a parse (CHECK_OK, EXPECT_ERR).  It holds the programs'
    counts (TEST_SHARED_COUNTS, testutil.h).
*/
#ifndef IOF_JOBFILE_FX_H
#define IOF_JOBFILE_FX_H

#include "jobfile.h"
#include "testutil.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NS_PER_S 1000000000ull

/* Both directions of a job have block size n. */
#define BS_IS(j, n) ((j)->bs[0] == (n) && (j)->bs[1] == (n))

/* The rw modes the parser names in its errors. */
#define RW_ALL "(supported: read, write, randread, randwrite, rw, readwrite, randrw, trim, " \
               "randtrim, trimwrite, randtrimwrite"

/* The fixtures directory, from fx_dir_arg. */
extern const char *fx_dir;

/* Takes the fixtures directory from the command line (tests/fixtures/jobs),
   for the programs that read its files.  Returns 0, or -1 after printing
   the usage. */
int fx_dir_arg (int argc, char **argv);

/* Fills buf with "DIR/file".  Can't fail (truncates). */
const char *fx_path (char *buf, size_t size, const char *file);

/* Parses text as "t.fio"; on failure prints the error.  Returns the
   jobfile or NULL. */
jobfile_t *fx_parse (const char *text);

/* Parses text as "t.fio" expecting failure; leaves the message in err.
   Returns true if the parse failed. */
bool fx_parse_fails (const char *text, char *err, size_t errlen);

/* Counts one check of ok (like CHECK, naming file and line) and returns
   it, for "if (CHECK_OK (parsed)) CHECK (fields)". */
bool fx_checked (bool ok, const char *expr, const char *file, int line);
#define CHECK_OK(cond) fx_checked ((cond), #cond, __FILE__, __LINE__)

/* The parse of text must fail with exactly the message want. */
#define EXPECT_ERR(text, want) do {                                         \
    char e_[1024];                                                          \
    bool f_ = fx_parse_fails ((text), e_, sizeof e_);                       \
    CHECK_MSG (f_, "parsed, but should fail with: %s", (want));             \
    CHECK_MSG (!f_ || strcmp (e_, (want)) == 0,                             \
               "\n     got: %s\n    want: %s", e_, (want));                 \
} while (0)

/* Parses text expecting exactly one job; copies it to *out.  Returns true
   on success (prints the error otherwise). */
bool fx_one_job (const char *text, job_t *out);

/* True if a and b are within 1e-12 of each other (decimal fractions such
   as 0.1/100 need not be the nearest double to 0.001). */
bool fx_near (double a, double b);

/* The bssplit of direction d of job j is the n (size, percent) pairs in
   want, in file order. */
bool fx_split_is (const job_t *j, int d, int n, const uint32_t want[][2]);

#endif
