/*  outliers.c: see outliers.h. */
#include "outliers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int
cmp_double (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

double
outliers_median (const double *v, int n)
{
    if (n <= 0)
        return 0;
    double *s = malloc ((size_t) n * sizeof *s);
    if (!s)
        return 0;
    memcpy (s, v, (size_t) n * sizeof *s);
    qsort (s, (size_t) n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    free (s);
    return m;
}

int
outliers_find (const double *v, int n, double *median, double *score, bool *flagged)
{
    *median = outliers_median (v, n);
    double *dev = malloc ((size_t) (n > 0 ? n : 1) * sizeof *dev);
    if (!dev)
        return 0;
    for (int i = 0; i < n; i++)
        dev[i] = fabs (v[i] - *median);
    double mad = outliers_median (dev, n);
    free (dev);
    int nflagged = 0;
    for (int i = 0; i < n; i++) {
        double d = v[i] - *median;
        if (mad > 0)
            score[i] = 0.6745 * d / mad;
        else
            score[i] = d == 0 ? 0 : d > 0 ? INFINITY : -INFINITY;
        double pct = *median != 0 ? 100.0 * fabs (d) / fabs (*median) : (d != 0 ? INFINITY : 0);
        flagged[i] = n >= 3 && fabs (score[i]) > OUTLIER_Z && pct > OUTLIER_PCT;
        nflagged += flagged[i];
    }
    return nflagged;
}
