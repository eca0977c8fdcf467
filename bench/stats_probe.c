/*  stats_probe: 'iofleet stats' over one connection, again and again: what
    the controller takes to answer, without the cost of starting a CLI
    process each time (bench/report-load measures both).

      stats_probe ENDPOINT INTERVAL_MS STOPFILE

    Every INTERVAL_MS until STOPFILE exists: one {"cmd":"stats"} over a REQ
    socket kept open, and a line "START_US RTT_US RC" (start in wall-clock
    microseconds, RC 1 when no answer came within 10 s; the socket is then
    opened again, as a REQ socket without its answer cannot ask again).
*/
#include <czmq.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

static long long
now_us (void)
{
    struct timeval tv;
    gettimeofday (&tv, NULL);
    return (long long) tv.tv_sec * 1000000 + tv.tv_usec;
}

static zsock_t *
open_req (const char *endpoint)
{
    zsock_t *s = zsock_new (ZMQ_REQ);
    if (!s || zsock_connect (s, "%s", endpoint) != 0) {
        fprintf (stderr, "stats_probe: cannot connect to %s\n", endpoint);
        exit (1);
    }
    zsock_set_rcvtimeo (s, 10000);
    zsock_set_linger (s, 0);
    return s;
}

int
main (int argc, char **argv)
{
    if (argc != 4 || atoi (argv[2]) <= 0) {
        fprintf (stderr, "usage: stats_probe ENDPOINT INTERVAL_MS STOPFILE\n");
        return 2;
    }
    zsys_init ();
    zsys_set_logstream (NULL);
    int interval_ms = atoi (argv[2]);
    zsock_t *s = open_req (argv[1]);
    while (access (argv[3], F_OK) != 0 && !zsys_interrupted) {
        long long t0 = now_us ();
        int rc = zstr_send (s, "{\"cmd\":\"stats\"}") != 0;
        char *r = rc ? NULL : zstr_recv (s);
        rc = r == NULL;
        zstr_free (&r);
        printf ("%lld %lld %d\n", t0, now_us () - t0, rc);
        fflush (stdout);
        if (rc) {
            zsock_destroy (&s);
            s = open_req (argv[1]);
        }
        zclock_sleep (interval_ms);
    }
    zsock_destroy (&s);
    return 0;
}
