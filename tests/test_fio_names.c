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

int
main (void)
{
    test_rw_names ();
    return TEST_DONE ();
}
