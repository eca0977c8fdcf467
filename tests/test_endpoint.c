/*  test_endpoint: endpoints the daemons take (common/endpoint.c): the
    forms accepted, and for each mistake a message naming the endpoint and
    the expected form. */
#include "endpoint.h"
#include "testutil.h"

static void
ok (const char *ep, bool bind)
{
    char err[600] = "";
    CHECK_MSG (endpoint_check (ep, bind, err, sizeof err) == 0, "'%s' refused: %s", ep, err);
}

static void
bad (const char *ep, bool bind, const char *want)
{
    char err[600] = "";
    CHECK_MSG (endpoint_check (ep, bind, err, sizeof err) == -1, "'%s' accepted", ep);
    char quoted[300];
    snprintf (quoted, sizeof quoted, "'%s'", ep);
    const char *e = err;
    CHECK_STR_CONTAINS (e, quoted);
    CHECK_STR_CONTAINS (e, want);
}

int
main (void)
{
    ok ("tcp://ctl.example:5570", false);
    ok ("tcp://127.0.0.1:5570", false);
    ok ("tcp://[::1]:5570", false);
    ok ("tcp://10.0.0.2:0;ctl:5570", false);        /* a source first */
    ok ("ipc:///run/iofleet/admin.sock", false);
    ok ("tcp://127.0.0.1:*", true);
    ok ("tcp://*:5570", true);
    ok ("tcp://eth0:5570", true);
    ok ("tcp://0.0.0.0:0", true);
    bad ("127.0.0.1:5555", false, "did you mean tcp://127.0.0.1:5555?");
    bad ("127.0.0.1:5555", false, "expected tcp://HOST:PORT");
    bad ("ctl.example", false, "expected tcp://HOST:PORT");
    bad ("udp://ctl:5570", false, "is not an endpoint");
    bad ("tcp://ctl", false, "no port");
    bad ("tcp://:5570", false, "no host");
    bad ("tcp://ctl:55x", false, "port '55x' is not a number 1..65535");
    bad ("tcp://ctl:0", false, "1..65535");
    bad ("tcp://ctl:70000", false, "1..65535");
    bad ("tcp://ctl:*", false, "1..65535");
    bad ("tcp://[::1:5570", false, "brackets");
    bad ("ipc://", false, "no path");
    CHECK (endpoint_is_local ("tcp://127.0.0.1:1") && endpoint_is_local ("ipc:///x")
           && !endpoint_is_local ("tcp://10.0.0.1:1") && !endpoint_is_local ("127.0.0.1:1"));
    return TEST_DONE ();
}
