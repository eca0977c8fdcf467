/*  health_rule.c: health conditions in plans, see health_rule.h. */
#include "health_rule.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEALTH_RULE_WORDS "no_new_media_errors, no_new_error_log_entries, " \
    "no_new_critical_warnings, no_throttling, no_new_defects, max_temp<C or waf<X"

int
health_rule_parse (const char *text, health_rule_t *out, char *err, size_t errlen)
{
    static const struct { const char *word; health_cond_kind_t kind; } words[] = {
        { "no_new_media_errors", HR_NO_NEW_MEDIA_ERRORS },
        { "no_new_error_log_entries", HR_NO_NEW_ERROR_LOG_ENTRIES },
        { "no_new_critical_warnings", HR_NO_NEW_CRITICAL_WARNINGS },
        { "no_throttling", HR_NO_THROTTLING },
        { "no_new_defects", HR_NO_NEW_DEFECTS },
    };
    memset (out, 0, sizeof *out);
    const char *p = text;
    while (*p) {
        const char *end = strchr (p, ',');
        size_t len = end ? (size_t) (end - p) : strlen (p);
        char part[64];
        if (len == 0 || len >= sizeof part) {
            snprintf (err, errlen, "health: '%.*s' is not a condition (use %s)",
                      (int) (len > 48 ? 48 : len), p, HEALTH_RULE_WORDS);
            return -1;
        }
        memcpy (part, p, len);
        part[len] = '\0';
        if (out->n == HEALTH_RULE_MAX) {
            snprintf (err, errlen, "health: at most %d conditions", HEALTH_RULE_MAX);
            return -1;
        }
        health_cond_t *c = &out->c[out->n];
        str_copy (c->text, sizeof c->text, part);
        bool found = false;
        for (size_t i = 0; i < sizeof words / sizeof *words && !found; i++)
            if (strcmp (part, words[i].word) == 0) {
                c->kind = words[i].kind;
                found = true;
            }
        if (!found) {
            bool temp = strncmp (part, "max_temp<", 9) == 0, waf = strncmp (part, "waf<", 4) == 0;
            const char *num = temp ? part + 9 : waf ? part + 4 : NULL;
            char *e = NULL;
            double v = num ? strtod (num, &e) : NAN;
            if (!num || e == num || *e != '\0' || !isfinite (v)
                || (temp && (v <= -273 || v > 1000)) || (waf && (v <= 0 || v > 1000))) {
                snprintf (err, errlen, "health: '%s' is not a condition (use %s; max_temp in "
                          "degrees C, waf a ratio above 0)", part, HEALTH_RULE_WORDS);
                return -1;
            }
            c->kind = temp ? HR_MAX_TEMP : HR_WAF;
            c->limit = v;
        }
        out->n++;
        p += len;
        if (*p == ',' && !*++p) {
            snprintf (err, errlen, "health: '%s' ends with a comma (use %s)", text,
                      HEALTH_RULE_WORDS);
            return -1;
        }
    }
    if (out->n == 0) {
        snprintf (err, errlen, "health: no condition (use %s)", HEALTH_RULE_WORDS);
        return -1;
    }
    return 0;
}

/* A counter that must not grow: 1, 0 with why, -1 unknown. */
static int
no_growth (int64_t v, const char *what, char *why, size_t whylen)
{
    if (v < 0)
        return -1;
    if (v > 0)
        snprintf (why, whylen, "%lld new %s", (long long) v, what);
    return v == 0;
}

int
health_rule_check (const health_cond_t *c, const health_judgement_t *j, char *why, size_t whylen)
{
    why[0] = '\0';
    switch (c->kind) {
    case HR_NO_NEW_MEDIA_ERRORS: return no_growth (j->media_errors, "media errors", why, whylen);
    case HR_NO_NEW_ERROR_LOG_ENTRIES:
        return no_growth (j->error_log_entries, "error-log entries", why, whylen);
    case HR_NO_NEW_CRITICAL_WARNINGS:
        if (j->new_critical_bits < 0)
            return -1;
        if (j->new_critical_bits)
            snprintf (why, whylen, "critical warning bits 0x%02llx appeared",
                      (unsigned long long) j->new_critical_bits);
        return j->new_critical_bits == 0;
    case HR_NO_THROTTLING:
        return no_growth (j->throttle_transitions, "throttle transitions", why, whylen);
    case HR_NO_NEW_DEFECTS: {
        int64_t v[4] = { j->reallocated, j->pending, j->uncorrectable, j->grown_defects };
        int64_t sum = 0;
        bool any = false;
        for (int i = 0; i < 4; i++)
            if (v[i] >= 0) {
                any = true;
                sum = sum > INT64_MAX - v[i] ? INT64_MAX : sum + v[i];
            }
        return any ? no_growth (sum, "defects (sectors reallocated, pending, uncorrectable, "
                                "grown)", why, whylen) : -1;
    }
    case HR_MAX_TEMP:
        if (!j->have_temp)
            return -1;
        if (j->temp_max_c >= c->limit)
            snprintf (why, whylen, "reached %.1f C", j->temp_max_c);
        return j->temp_max_c < c->limit;
    case HR_WAF:
        if (!isfinite (j->waf))
            return -1;
        if (j->waf >= c->limit)
            snprintf (why, whylen, "write amplification %.2f", j->waf);
        return j->waf < c->limit;
    }
    return -1;
}
