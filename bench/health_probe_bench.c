/*  health_probe_bench.c: what a drive's health costs the agent, in time.

    health_probe_bench SYSFS DEV NAME|PATH N
      - the probe's setup (finding the drive and its sensor), once;
      - its health record (health_probe_read: the admin ioctl, or a tool
        run, or the reason there is none), N times;
      - its temperature (health_probe_temp: one pread of hwmon's
        temp1_input), N times, where the drive has a sensor.
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
    int32_t mc = 0;
    long temps = 0;
    for (long i = 0; i < n; i++)
        temps += health_probe_temp (p, &mc);
    uint64_t t3 = clock_mono_ns ();
    printf ("{\"target\": \"%s\", \"device\": \"%s\", \"available\": %s, \"reason\": \"%s\", "
            "\"source\": \"%s\", \"setup_ns\": %llu, \"record_ns\": %.0f, \"sensor\": %s, "
            "\"temp_ns\": %.0f, \"temp_mc\": %d}\n", what, health_probe_device (p),
            h.available ? "true" : "false", h.reason, h.source, (unsigned long long) (t1 - t0),
            (double) (t2 - t1) / (double) n, temps ? "true" : "false",
            temps ? (double) (t3 - t2) / (double) n : 0.0, (int) mc);
    health_probe_destroy (&p);
    return 0;
}
