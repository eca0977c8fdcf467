/*  outliers.h: which members of a group stand out, robustly.

    The robust z-score of x in a group is 0.6745 * (x - median) / MAD, MAD
    being the median absolute deviation (Iglewicz and Hoaglin's modified
    z-score: unlike mean and standard deviation, one slow drive cannot hide
    itself by inflating them).  A member is an outlier when |z| > 3.5 and it
    is more than 15% off the median: the second rule keeps a tight group
    (tiny MAD) from flagging differences nobody would act on.
*/
#ifndef IOF_OUTLIERS_H
#define IOF_OUTLIERS_H

#include <stdbool.h>

#define OUTLIER_Z        3.5
#define OUTLIER_PCT      15.0

/* Median of v[0..n) (n > 0; v is not changed).  Can't fail but for n = 0,
   which returns 0. */
double outliers_median (const double *v, int n);

/* Fills score[i] (robust z; +-INFINITY when MAD is 0 and v[i] is off the
   median, 0 when on it) and flagged[i] for each of v[0..n), and the
   group's median.  Groups of fewer than 3 have no outliers.  Returns the
   number flagged. */
int outliers_find (const double *v, int n, double *median, double *score, bool *flagged);

#endif
