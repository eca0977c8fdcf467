/*  health_probe_bench.c: what a drive's health costs the agent, in time.

    health_probe_bench SYSFS DEV NAME|PATH N
      - the probe's setup (finding the drive and its sensor), once;
      - its health record (health_probe_read: the admin ioctl, or a tool
        run, or the reason there is none), N times;
      - its temperature (health_probe_temp), where the drive has a
        sensor: a read of hwmon's temp1_input (a new probe's first, N
        times), and a call within HEALTH_TEMP_PERIOD_NS of the last read
        (N times: the last reading, what most intervals cost).
    NAME is a block device name under SYSFS/block ("nvme0n1"); anything
    with a '/' is a target path (a device node or a file).  Prints one
    line of JSON: ns per operation, and what the record said. */
#include "health_probe.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main (int argc, char **argv)
{
    if (argc != 5) {
        fprintf (stderr, "usage: health_probe_bench SYSFS DEV NAME|PATH N\n");
        return 2;
    }
    const char *sys = argv[1], *dev = argv[2], *what = argv[3];
    long n = atol (argv[4]);
    if (n < 1)
        n = 1;
    uint64_t t0 = clock_mono_ns ();
    health_probe_t *p = strchr (what, '/') ? health_probe_new (what, sys, dev)
                                           : health_probe_new_dev (what, sys, dev);
    uint64_t t1 = clock_mono_ns ();
    if (!p)
        return 1;
    health_t h;
    for (long i = 0; i < n; i++)
        health_probe_read (p, &h);
    uint64_t t2 = clock_mono_ns ();
    /* A read of the sensor: each probe's first (the later ones within
       HEALTH_TEMP_PERIOD_NS are its last reading). */
    int32_t mc = 0;
    long temps = 0;
    uint64_t read_ns = 0;
    for (long i = 0; i < n; i++) {
        health_probe_t *q = strchr (what, '/') ? health_probe_new (what, sys, dev)
                                               : health_probe_new_dev (what, sys, dev);
        if (!q)
            return 1;
        uint64_t a = clock_mono_ns ();
        temps += health_probe_temp (q, &mc);
        read_ns += clock_mono_ns () - a;
        health_probe_destroy (&q);
    }
    health_probe_temp (p, &mc);
    uint64_t t3 = clock_mono_ns ();
    for (long i = 0; i < n; i++)
        health_probe_temp (p, &mc);
    uint64_t t4 = clock_mono_ns ();
    printf ("{\"target\": \"%s\", \"device\": \"%s\", \"available\": %s, \"reason\": \"%s\", "
            "\"source\": \"%s\", \"setup_ns\": %llu, \"record_ns\": %.0f, \"sensor\": %s, "
            "\"temp_read_ns\": %.0f, \"temp_cached_ns\": %.0f, \"temp_mc\": %d}\n", what,
            health_probe_device (p), h.available ? "true" : "false", h.reason, h.source,
            (unsigned long long) (t1 - t0), (double) (t2 - t1) / (double) n,
            temps ? "true" : "false", temps ? (double) read_ns / (double) n : 0.0,
            temps ? (double) (t4 - t3) / (double) n : 0.0, (int) mc);
    health_probe_destroy (&p);
    return 0;
}
