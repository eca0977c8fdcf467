/*  link_rate.c: see link_rate.h. */
#include "link_rate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { LINK_NONE, LINK_PCIE, LINK_SAS, LINK_SATA } link_kind_t;

/* The kind and the rate (GT/s or Gbit/s) of a speed text. */
static link_kind_t
parse (const char *speed, double *rate)
{
    if (!speed)
        return LINK_NONE;
    char *end;
    *rate = strtod (speed, &end);
    if (end == speed || !(*rate > 0) || *rate > 1000)
        return LINK_NONE;
    while (*end == ' ')
        end++;
    if (strncmp (end, "GT/s", 4) == 0)
        return LINK_PCIE;
    if (strcmp (end, "Gbit") == 0)
        return LINK_SAS;
    if (strcmp (end, "Gbps") == 0)
        return LINK_SATA;
    return LINK_NONE;
}

/* The line code's payload share at a rate. */
static double
code_share (link_kind_t k, double rate)
{
    if (k == LINK_PCIE)
        return rate <= 5.0 ? 0.8 : rate <= 32.0 ? 128.0 / 130.0 : 236.0 / 256.0;
    if (k == LINK_SAS && rate > 12.0)
        return 128.0 / 150.0;
    return 0.8;
}

double
link_rate_bps (const char *speed, long width)
{
    double rate;
    link_kind_t k = parse (speed, &rate);
    if (k == LINK_NONE)
        return NAN;
    return rate * 1e9 * code_share (k, rate) * (double) (width > 0 ? width : 1) / 8;
}

const char *
link_rate_name (const char *speed, long width, char *out, size_t cap)
{
    static const char *const kind[] = { "", "PCIe", "SAS", "SATA" };
    double rate;
    link_kind_t k = parse (speed, &rate);
    if (k == LINK_NONE)
        snprintf (out, cap, "unknown link");
    else
        snprintf (out, cap, "%s %g %s x%ld", kind[k], rate,
                  k == LINK_PCIE ? "GT/s" : k == LINK_SAS ? "Gbit" : "Gbps", width > 0 ? width : 1);
    return out;
}
