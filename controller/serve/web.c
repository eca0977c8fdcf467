/*  web.c: the admin request behind each --http path, and its page (web.h). */
#define _GNU_SOURCE     /* open_memstream */
#include "web.h"
#include "html_report.h"
#include "html_web.h"
#include "plans.h"
#include "match.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* /history's arguments: the history command's options of the same names,
   and the page's form. */
static const char *const s_history_keys[] = { "plan", "step", "metric", "by", "direction" };
#define HISTORY_KEYS (sizeof s_history_keys / sizeof *s_history_keys)

/* A run id in text: its value; 0 when s is not one; -1 when its digits
   do not fit in int64 (strtoll would clamp them to another run's id). */
static long long
run_id (const char *s, const char **end)
{
    char *e = NULL;
    errno = 0;
    long long v = s && *s >= '1' && *s <= '9' ? strtoll (s, &e, 10) : 0;
    if (end)
        *end = e;
    if (v == LLONG_MAX && errno == ERANGE)
        return -1;
    return v > 0 && e != s ? v : 0;
}

/* err: the run id that does not fit, as given (its digits, from s). */
static void
too_large (const char *what, const char *s, char *err, size_t errlen)
{
    snprintf (err, errlen, "%s: run id '%.*s' does not fit in 64 bits (the largest is "
              "%lld): see iofleet runs", what, (int) strspn (s, "0123456789") > 64 ? 64
              : (int) strspn (s, "0123456789"), s, LLONG_MAX);
}

/* A run id argument of /compare: its value, or 0 with err. */
static long long
run_arg (const web_src_t *src, const char *key, char *err, size_t errlen)
{
    const char *v = src->arg (src->cls, key), *end;
    long long run = run_id (v, &end);
    if (run < 0) {
        char what[32];
        snprintf (what, sizeof what, "/compare: %s", key);
        too_large (what, v, err, errlen);
        return 0;
    }
    if (!run || *end) {
        snprintf (err, errlen, "/compare: %s='%.64s' is not a run id: give /compare?a=RUN&b=RUN "
                  "(iofleet runs lists them)", key, v ? v : "");
        return 0;
    }
    return run;
}

/* The by argument checked by the rule of the command line's --by
   (match.h's keys): an HTML page groups by it.  Returns 0, or -1 with
   err naming the argument. */
static int
by_check (const web_src_t *src, char *err, size_t errlen)
{
    const char *v = src->arg (src->cls, "by");
    match_key_t key;
    return v && *v ? match_key_parse ("by", v, &key, err, errlen) : 0;
}

static void
copy_arg (const web_src_t *src, json_t *req, const char *key)
{
    const char *v = src->arg (src->cls, key);
    if (v && *v)
        json_object_set_new (req, key, json_string (v));
}

json_t *
web_request (const char *path, const web_src_t *src, bool page, char *err, size_t errlen)
{
    err[0] = '\0';
    const char *end;
    if (!strcmp (path, "/") || !strcmp (path, "/runs"))
        return json_pack ("{s:s}", "cmd", "runs");
    if (!strcmp (path, "/plans"))
        return json_pack ("{s:s}", "cmd", "plan_list");
    if (!strcmp (path, "/agents"))
        return json_pack ("{s:s}", "cmd", "agents");
    if (!strcmp (path, "/schedules"))
        return json_pack ("{s:s}", "cmd", "schedule_list");
    if (!strncmp (path, "/inventory/", 11) && path[11])
        return json_pack ("{s:s, s:s}", "cmd", "inventory", "agent", path + 11);
    if (!strncmp (path, "/runs/", 6)) {
        long long run = run_id (path + 6, &end);
        if (run < 0)
            too_large (path, path + 6, err, errlen);
        if (run <= 0)
            return NULL;
        if (!strcmp (end, "/live"))
            return json_pack ("{s:s, s:I}", "cmd", "status", "run", (json_int_t) run);
        if (*end || by_check (src, err, errlen))
            return NULL;
        json_t *req = json_pack ("{s:s, s:I, s:s}", "cmd", "report", "run", (json_int_t) run,
                                 "format", "json");
        copy_arg (src, req, "by");
        if (page)
            json_object_set_new (req, "html_figures", json_true ());
        return req;
    }
    if (!strcmp (path, "/compare")) {
        long long ra = run_arg (src, "a", err, errlen);
        long long rb = ra ? run_arg (src, "b", err, errlen) : 0;
        if (!rb || by_check (src, err, errlen))
            return NULL;
        json_t *req = json_pack ("{s:s, s:b, s:b, s:b, s:[I, I]}", "cmd", "compare", "sum", 0,
                                 "force", 0, "reports", page, "runs", (json_int_t) ra,
                                 (json_int_t) rb);
        copy_arg (src, req, "by");
        return req;
    }
    if (!strcmp (path, "/history")) {
        if (by_check (src, err, errlen))
            return NULL;
        json_t *req = json_pack ("{s:s, s:[]}", "cmd", "history", "where");
        for (size_t i = 0; i < HISTORY_KEYS; i++)
            copy_arg (src, req, s_history_keys[i]);
        return req;
    }
    return NULL;
}

unsigned
web_error_status (const char *error)
{
    if (strstr (error, "no run ") || strstr (error, "no agent named"))
        return 404;
    if (strstr (error, "did not answer") || strstr (error, "cannot be read"))
        return 503;
    if (strstr (error, "database error") || strstr (error, "out of memory"))
        return 500;
    return 400;
}

/* The result of req (taken), or NULL with *status and err. */
static json_t *
fetch (const web_src_t *src, json_t *req, unsigned *status, char *err, size_t errlen)
{
    size_t len = 0;
    bool failed = false;
    char *text = src->fetch (src->cls, req, &len, &failed);
    json_decref (req);
    json_t *reply = text ? json_loadb (text, len, 0, NULL) : NULL;
    free (text);
    json_t *res = json_incref (json_object_get (reply, "result"));
    const char *e = json_string_value (json_object_get (reply, "error"));
    if (!res) {
        snprintf (err, errlen, "%s", e ? e : "the controller could not answer (out of memory?)");
        *status = e ? web_error_status (e) : 503;
    }
    json_decref (reply);
    return res;
}

bool
web_page (const char *path, const web_src_t *src, char **body, size_t *len, unsigned *status)
{
    char err[1024];
    json_t *req = web_request (path, src, true, err, sizeof err);
    if (!req && !err[0])
        return false;
    /* /api only, not pages. */
    if (req && (!strcmp (path, "/runs") || !strcmp (path, "/plans")
                || !strncmp (path, "/inventory/", 11))) {
        json_decref (req);
        return false;
    }
    *status = 200;
    *body = NULL;
    *len = 0;
    FILE *f = open_memstream (body, len);
    if (!f) {
        json_decref (req);
        *status = 500;          /* no body: the caller says out of memory */
        return true;
    }
    json_t *res = req ? fetch (src, req, status, err, sizeof err) : (*status = 400, NULL);
    const char *refused = json_string_value (json_object_get (res, "refused"));
    if (refused) {
        snprintf (err, sizeof err, "%s", refused);
        *status = 400;
    } else if (res && !strcmp (path, "/"))
        html_runs_page (f, res);
    else if (res && !strcmp (path, "/agents"))
        html_agents_page (f, res);
    else if (res && !strcmp (path, "/schedules"))
        html_schedules_page (f, res);
    else if (res && !strcmp (path, "/compare"))
        html_compare (f, res);
    else if (res && !strcmp (path, "/history")) {
        json_t *q = json_object ();
        for (size_t i = 0; i < HISTORY_KEYS; i++) {
            const char *v = src->arg (src->cls, s_history_keys[i]);
            if (v)
                json_object_set_new (q, s_history_keys[i], json_string (v));
        }
        html_history_page (f, res, q);
        json_decref (q);
    } else if (res && strstr (path, "/live")) {
        /* The step in hand's intervals so far (its stored rows, not the
           report so far: cheap at a fleet's size); a queued run, or an
           ended one (no step in hand), draws no chart. */
        unsigned ignored;
        char e2[256];
        json_t *sj = json_object_get (res, "step");
        json_t *rr = json_is_integer (sj)
                     ? json_pack ("{s:s, s:O, s:O}", "cmd", "intervals", "run",
                                  json_object_get (res, "run"), "step", sj) : NULL;
        json_t *step = rr ? fetch (src, rr, &ignored, e2, sizeof e2) : NULL;
        html_live_page (f, res, step);
        json_decref (step);
    } else if (res)
        html_report (f, res);
    if (!res || refused)
        html_error_page (f, *status, err);
    json_decref (res);
    if (fclose (f) != 0) {
        free (*body);
        *body = NULL;
        *len = 0;
        *status = 500;
    }
    return true;
}
