/*  html_gaps.h: a step's gaps (the report's "gaps": an agent stopped,
    silent, lost or restarted, and the catch-up after a stall) as items of
    a problems list, where the step's figures are.
*/
#ifndef IOF_HTML_GAPS_H
#define IOF_HTML_GAPS_H

#include <jansson.h>
#include <stdio.h>

/* Writes one <li> per gap of step s.  Returns how many.  Can't fail
   (write errors show in ferror). */
int html_gaps_problems (FILE *f, json_t *s);

#endif
