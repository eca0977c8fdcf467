/*  sla.c: see sla.h. */
#include "sla.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
parse_number (const char *s, double *out, const char **rest)
{
    char *end;
    double v = strtod (s, &end);
    if (end == s || !isfinite (v) || v < 0)
        return -1;
    *out = v;
    *rest = end;
    return 0;
}

static int
parse_one (const char *part, sla_cond_t *c, char *err, size_t errlen)
{
    memset (c, 0, sizeof *c);
    snprintf (c->text, sizeof c->text, "%s", part);
    const char *op = strpbrk (part, "<>");
    if (!op || op == part) {
        snprintf (err, errlen, "'%s' is not METRIC<LIMIT or METRIC>LIMIT (e.g. p99<2ms, "
                  "iops>100k)", part);
        return -EINVAL;
    }
    size_t mlen = (size_t) (op - part);
    if (mlen >= sizeof c->metric) {
        snprintf (err, errlen, "'%s': unknown metric '%.*s' (use p50..p99.99, mean, max, iops, "
                  "bw)", part, (int) mlen, part);
        return -EINVAL;
    }
    memcpy (c->metric, part, mlen);
    c->less = *op == '<';
    const char *val = op + 1, *rest;
    double v;
    if (parse_number (val, &v, &rest)) {
        snprintf (err, errlen, "'%s': '%s' is not a number", part, val);
        return -EINVAL;
    }
    bool latency = false;
    if (strcmp (c->metric, "mean") == 0 || strcmp (c->metric, "max") == 0)
        latency = true;
    else if (c->metric[0] == 'p') {
        char *end;
        c->percentile = strtod (c->metric + 1, &end);
        if (*end || !(c->percentile > 0 && c->percentile <= 100)) {
            snprintf (err, errlen, "'%s': '%s' is not a percentile (p50, p99, p99.9, ...)", part,
                      c->metric);
            return -EINVAL;
        }
        latency = true;
    } else if (strcmp (c->metric, "iops") && strcmp (c->metric, "bw")) {
        snprintf (err, errlen, "'%s': unknown metric '%s' (use p50..p99.99, mean, max, iops, bw)",
                  part, c->metric);
        return -EINVAL;
    }
    double mul = 0;
    if (latency) {
        if (strcmp (rest, "ns") == 0) mul = 1;
        else if (strcmp (rest, "us") == 0 || *rest == '\0') mul = 1e3;
        else if (strcmp (rest, "ms") == 0) mul = 1e6;
        else if (strcmp (rest, "s") == 0) mul = 1e9;
    } else if (strcmp (c->metric, "iops") == 0) {
        if (*rest == '\0') mul = 1;
        else if (strcmp (rest, "k") == 0) mul = 1e3;
        else if (strcmp (rest, "m") == 0) mul = 1e6;
    } else {
        if (*rest == '\0') mul = 1;
        else if (strcmp (rest, "k") == 0) mul = 1024;
        else if (strcmp (rest, "m") == 0) mul = 1024.0 * 1024;
        else if (strcmp (rest, "g") == 0) mul = 1024.0 * 1024 * 1024;
    }
    if (mul == 0) {
        snprintf (err, errlen, "'%s': unit '%s' does not fit %s (%s)", part, rest, c->metric,
                  latency ? "ns, us, ms or s" : strcmp (c->metric, "iops") == 0 ? "k or m"
                                                                                : "k, m or g");
        return -EINVAL;
    }
    c->limit = v * mul;
    return 0;
}

int
sla_parse (const char *text, sla_t *out, char *err, size_t errlen)
{
    memset (out, 0, sizeof *out);
    char buf[512];
    if (strlen (text) >= sizeof buf) {
        snprintf (err, errlen, "iofleet_sla is %zu characters, limit %zu", strlen (text),
                  sizeof buf - 1);
        return -EINVAL;
    }
    snprintf (buf, sizeof buf, "%s", text);
    for (char *save = NULL, *part = strtok_r (buf, ",", &save); part;
         part = strtok_r (NULL, ",", &save)) {
        while (*part == ' ')
            part++;
        if (out->n == SLA_MAX) {
            snprintf (err, errlen, "more than %d conditions", SLA_MAX);
            return -EINVAL;
        }
        if (parse_one (part, &out->c[out->n], err, errlen))
            return -EINVAL;
        out->n++;
    }
    if (out->n == 0) {
        snprintf (err, errlen, "no condition (e.g. iofleet_sla=p99<2ms,iops>100k)");
        return -EINVAL;
    }
    return 0;
}

bool
sla_pass (const sla_cond_t *c, double value)
{
    return c->less ? value < c->limit : value > c->limit;
}
