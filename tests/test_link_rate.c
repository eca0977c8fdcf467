/*  test_link_rate.c: links in bytes per second (common/link_rate.c), from
    the speed texts sysfs writes, each against the figure worked by hand
    from the line rate, the width and the line code.
*/
#include "link_rate.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

static void
test_rates (void)
{
    static const struct {
        const char *speed;
        long width;
        double bps;
    } cases[] = {
        /* PCIe 1/2: 8b/10b; 3/4/5: 128b/130b; 6: 236 of 256 bytes a flit. */
        { "2.5 GT/s PCIe", 1, 2.5e9 * 0.8 / 8 },             /* 250 MB/s */
        { "5.0 GT/s PCIe", 8, 5e9 * 0.8 / 8 * 8 },           /* 4 GB/s */
        { "8.0 GT/s PCIe", 8, 8e9 * 128 / 130 / 8 * 8 },     /* 7.88 GB/s */
        { "8 GT/s", 4, 8e9 * 128 / 130 / 8 * 4 },            /* older kernels */
        { "16.0 GT/s PCIe", 16, 16e9 * 128 / 130 / 8 * 16 }, /* 31.5 GB/s: the seed's HBA */
        { "32.0 GT/s PCIe", 4, 32e9 * 128 / 130 / 8 * 4 },
        { "64.0 GT/s PCIe", 1, 64e9 * 236 / 256 / 8 },
        /* SAS: 8b/10b up to 12G, 128b/150b at 22.5G; SATA 8b/10b. */
        { "12.0 Gbit", 1, 1.2e9 },
        { "12.0 Gbit", 4, 4.8e9 },                           /* a x4 wide port */
        { "6.0 Gbit", 1, 0.6e9 },
        { "22.5 Gbit", 1, 22.5e9 * 128 / 150 / 8 },          /* 2.4 GB/s */
        { "6.0 Gbps", 1, 0.6e9 },
        { "3.0 Gbps", 0, 0.3e9 },                            /* width 0 counts as 1 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = link_rate_bps (cases[i].speed, cases[i].width);
        CHECK (fabs (got - cases[i].bps) < 1e-6 * cases[i].bps);
    }
    static const char *const unknown[] = {
        "", "unknown", "Unknown", "Unknown speed", "<unknown>", "Phy disabled", "0 GT/s",
        "12.0", "12.0 Gb", "fast", "-8.0 GT/s",
    };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        CHECK (isnan (link_rate_bps (unknown[i], 4)));
    CHECK (isnan (link_rate_bps (NULL, 1)));
}

static void
test_names (void)
{
    char b[64];
    CHECK (strcmp (link_rate_name ("16.0 GT/s PCIe", 16, b, sizeof b), "PCIe 16 GT/s x16") == 0);
    CHECK (strcmp (link_rate_name ("2.5 GT/s PCIe", 1, b, sizeof b), "PCIe 2.5 GT/s x1") == 0);
    CHECK (strcmp (link_rate_name ("12.0 Gbit", 4, b, sizeof b), "SAS 12 Gbit x4") == 0);
    CHECK (strcmp (link_rate_name ("6.0 Gbps", 0, b, sizeof b), "SATA 6 Gbps x1") == 0);
    CHECK (strcmp (link_rate_name ("unknown", 4, b, sizeof b), "unknown link") == 0);
}

int
main (void)
{
    test_rates ();
    test_names ();
    return TEST_DONE ();
}
