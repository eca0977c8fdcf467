/*  web.h: what --http serves besides /metrics: for each path, the admin
    command behind it (the same for a page and its /api form), and the
    page rendered from its answer (render/html_web.h, html_report.h: the
    report and the comparison are the CLI's --format html, byte for
    byte).

      path              command                     page
      /  (/api/runs)    runs                        the runs, newest first
      /runs/ID[?by=]    report (+ html_figures)     the report
      /runs/ID/live     status, and report so far   progress, reloading
      /compare?a=&b=[&by=]  compare (+ reports)     the comparison
      /history?plan=&step=&metric=&by=&direction=   history, a chart a step
      /agents           agents                      the agents, inventories
      /schedules        schedule_list               the schedules
      /api/plans        plan_list
      /api/inventory/AGENT  inventory

    Where each command runs is admin.c's (a reader's, or the loop's for
    agents, status and schedule_list): web_src_t's fetch says.
*/
#ifndef IOF_WEB_H
#define IOF_WEB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    /* A query argument of the request, or NULL. */
    const char *(*arg) (void *cls, const char *key);
    /* The admin reply text to req (borrowed), as admin_read writes it,
       *len bytes, *failed for {"ok":false}; NULL only out of memory. */
    char *(*fetch) (void *cls, json_t *req, size_t *len, bool *failed);
    void *cls;
} web_src_t;

/* The admin request behind path (an /api path less its "/api", or a
   page's; page: with what only the page shows), or NULL: no such path
   (err ""), or arguments that cannot make one (err says which and
   why). */
json_t *web_request (const char *path, const web_src_t *src, bool page, char *err,
                     size_t errlen);

/* The HTTP status of an admin command's error: 404 no such run or
   agent, 503 the database or the loop did not answer, 500 a database
   error or out of memory, 400 the rest (what the request asked). */
unsigned web_error_status (const char *error);

/* The page at path: true with *body (malloc'd HTML, *len bytes) and
   *status (200, or web_error_status's); *body NULL (status 500) when the
   page could not be made (out of memory); false: no page there. */
bool web_page (const char *path, const web_src_t *src, char **body, size_t *len,
               unsigned *status);

#endif
