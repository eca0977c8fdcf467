/*  html_report.h: iofleet report --format html and iofleet compare --format
    html: one self-contained HTML file (no network, no JavaScript, inline SVG
    charts from svg.c, print styles), for people to read and to archive.
*/
#ifndef IOF_HTML_REPORT_H
#define IOF_HTML_REPORT_H

#include <jansson.h>
#include <stdio.h>

/* Writes the HTML form of a run report: the controller's report JSON
   with html_figures (controller/serve/html_figures.h: the figures only the page
   shows, and "inventories": {agent: {"agent", "hash", "first_seen",
   "inventory"}} of the inventories the agents ran with).  Missing fields
   are shown as missing.  Can't fail (write errors show in ferror). */
void html_report (FILE *f, json_t *report);

/* Writes the HTML form of iofleet compare: the controller's answer to
   compare with "reports" (controller/templates/compare_admin.h): both reports, the
   comparison (its sides, rows and skipped steps) and the judgement of
   each row (regressions are highlighted).  Can't fail (write errors show
   in ferror). */
void html_compare (FILE *f, json_t *res);

/* The same into the file at path ("-": stdout), created or overwritten.
   Return 0, or -errno with a message naming the file in err. */
int html_report_write (const char *path, json_t *report, char *err, size_t errlen);
int html_compare_write (const char *path, json_t *res, char *err, size_t errlen);
/* iofleet report --template qualification --format html: the controller's
   qualification report (controller/templates/qualification.h) into the file at path,
   as html_report_write (html_qualification.c). */
int html_qualification_write (const char *path, json_t *q, char *err, size_t errlen);
/* iofleet report --template pts --format html (controller/templates/pts.h), the same
   way (html_pts.c). */
int html_pts_write (const char *path, json_t *q, char *err, size_t errlen);
/* iofleet compare ... --template ab --format html (controller/templates/ab.h), the
   same way (html_ab.c); res: the compare reply with its "ab". */
int html_ab_write (const char *path, json_t *res, char *err, size_t errlen);

#endif
