/*  test_sla.c: SLA conditions: syntax, units, verdicts. */
#include "jobfile.h"
#include "sla.h"
#include "testutil.h"

#include <errno.h>
#include <math.h>

#define CHECK_ERR(err, needle) \
    CHECK_MSG (strstr ((err), (needle)) != NULL, "'%s' does not contain '%s'", (err), (needle))

int
main (void)
{
    sla_t s;
    char err[256];
    CHECK (sla_parse ("p99<2ms,p99.9<5ms,iops>100k,bw>1g", &s, err, sizeof err) == 0);
    CHECK (s.n == 4);
    CHECK (strcmp (s.c[0].metric, "p99") == 0 && s.c[0].percentile == 99 && s.c[0].less
           && s.c[0].limit == 2e6);
    CHECK (s.c[1].percentile == 99.9 && s.c[1].limit == 5e6);
    CHECK (strcmp (s.c[2].metric, "iops") == 0 && !s.c[2].less && s.c[2].limit == 1e5);
    CHECK (s.c[3].limit == 1024.0 * 1024 * 1024);
    CHECK (sla_pass (&s.c[0], 1.9e6) && !sla_pass (&s.c[0], 2e6));
    CHECK (sla_pass (&s.c[2], 100001) && !sla_pass (&s.c[2], 99999));
    CHECK (sla_parse ("mean<500, max<1s, p50<800ns", &s, err, sizeof err) == 0);
    CHECK (s.n == 3 && s.c[0].limit == 500e3 && s.c[1].limit == 1e9 && s.c[2].limit == 800);

    /* Errors quote the offending text. */
    CHECK (sla_parse ("p99<2xs", &s, err, sizeof err) == -EINVAL);
    CHECK_ERR (err, "'p99<2xs': unit 'xs'");
    CHECK (sla_parse ("p99=2ms", &s, err, sizeof err) == -EINVAL);
    CHECK_ERR (err, "'p99=2ms' is not METRIC<LIMIT");
    CHECK (sla_parse ("p101<2ms", &s, err, sizeof err) == -EINVAL);
    CHECK_ERR (err, "'p101' is not a percentile");
    CHECK (sla_parse ("latency<2ms", &s, err, sizeof err) == -EINVAL);
    CHECK_ERR (err, "unknown metric");
    CHECK (sla_parse ("iops>fast", &s, err, sizeof err) == -EINVAL);
    CHECK_ERR (err, "'fast' is not a number");
    CHECK (sla_parse ("iops>1g", &s, err, sizeof err) == -EINVAL);
    CHECK_ERR (err, "unit 'g' does not fit iops");
    CHECK (sla_parse ("", &s, err, sizeof err) == -EINVAL);
    CHECK_ERR (err, "no condition");

    /* In a plan: iofleet_sla= per job, or [iofleet] sla= for every job
       without its own, wherever the section stands. */
    jobfile_t *jf = jobfile_parse ("p.fio",
        "[a]\nrw=read\nfilename=x\n"
        "[iofleet]\nsla = p99<2ms, iops>10k\n"
        "[b]\nrw=read\nfilename=x\niofleet_sla=p99.9<5ms\n", err, sizeof err);
    CHECK (jf && jf->nsteps == 2);
    if (jf) {
        CHECK (strcmp (jf->steps[0].sla, "p99<2ms, iops>10k") == 0);
        CHECK (strcmp (jf->steps[1].sla, "p99.9<5ms") == 0);
        jobfile_destroy (&jf);
    }
    CHECK (!jobfile_parse ("p.fio", "[iofleet]\nsla=p99<2qs\n[a]\nfilename=x\n", err,
                           sizeof err));
    CHECK_ERR (err, "p.fio:2: [iofleet] sla: 'p99<2qs': unit 'qs'");
    CHECK (!jobfile_parse ("p.fio", "[iofleet]\nrw=read\n[a]\nfilename=x\n", err, sizeof err));
    CHECK_ERR (err, "p.fio:2: unknown setting 'rw' in [iofleet]");
    CHECK (!jobfile_parse ("p.fio", "[iofleet]\n[a]\nfilename=x\n[iofleet]\n", err, sizeof err));
    CHECK_ERR (err, "p.fio:4: a second [iofleet] section (the first is at line 1)");
    CHECK (!jobfile_parse ("p.fio", "[a]\nfilename=x\niofleet_sla=p99<\n", err, sizeof err));
    CHECK_ERR (err, "p.fio:3: iofleet_sla:");
    return TEST_DONE ();
}
