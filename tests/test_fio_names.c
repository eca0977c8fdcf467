/*  test_fio_names.c: unit tests for fio's names (common/fio_names.c): the
    rw modes' names, and the engines iofleet runs with the release that
    first ran each.
*/
#include "fio_names.h"
#include "testutil.h"

#include <string.h>

static void
test_rw_names (void)
{
    CHECK (strcmp (job_rw_name (JOB_RW_READ), "read") == 0);
    CHECK (strcmp (job_rw_name (JOB_RW_WRITE), "write") == 0);
    CHECK (strcmp (job_rw_name (JOB_RW_RANDREAD), "randread") == 0);
    CHECK (strcmp (job_rw_name (JOB_RW_RANDWRITE), "randwrite") == 0);
    CHECK (strcmp (job_rw_name (JOB_RW_RW), "rw") == 0);
    CHECK (strcmp (job_rw_name (JOB_RW_RANDRW), "randrw") == 0);
    CHECK (strcmp (job_rw_name ((job_rw_t) 42), "?") == 0);
}

/* The engines' table is JOB_ENGINES, and says which release first ran
   each (jobspec_needs reads it). */
static void
test_engines (void)
{
    CHECK (fio_engines_listed ());
    static const char *const since_0_3[] = { "pvsync", "pvsync2", "sync", "vsync", "posixaio" };
    static const char *const always[] = { "libaio", "io_uring", "psync", "null" };
    for (size_t i = 0; i < sizeof since_0_3 / sizeof since_0_3[0]; i++) {
        const char *since = job_engine_since (since_0_3[i]);
        CHECK_MSG (job_engine_known (since_0_3[i]) && since && strcmp (since, "0.3.0") == 0,
                   "%s: since %s", since_0_3[i], since ? since : "(null)");
    }
    for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
        CHECK_MSG (job_engine_known (always[i]) && job_engine_since (always[i]) == NULL,
                   "%s: since %s", always[i], job_engine_since (always[i]));
    CHECK (!job_engine_known ("mmap") && job_engine_since ("mmap") == NULL);
    CHECK (!job_engine_known ("pvsync3") && !job_engine_known ("") && !job_engine_known ("sync,"));
}

int
main (void)
{
    test_rw_names ();
    test_engines ();
    return TEST_DONE ();
}
