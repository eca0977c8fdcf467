/*  health_rule.h: health conditions in plans, an iofleet extension that
    fails a step's verdict on what a step did to its drives:
        [iofleet]
        health=no_new_media_errors,max_temp<70
    Conditions (each on every drive of the step, from its judgement,
    health_judge.h):
        no_new_media_errors       media errors did not grow
        no_new_error_log_entries  error-log entries did not grow
        no_new_critical_warnings  no critical warning bit appeared
        no_throttling             no thermal-management transition
        no_new_defects            no reallocated, pending or uncorrectable
                                  sector, no grown defect, was added
        max_temp<N                the highest temperature stayed under N C
        waf<X                     write amplification stayed under X
    A drive without the figure a condition needs (unavailable health, a
    drive that does not count it) is not judged by it: the report says
    how many were not, and it does not fail the step. */
#ifndef IOF_HEALTH_RULE_H
#define IOF_HEALTH_RULE_H

#include "health_judge.h"

#include <stdbool.h>
#include <stddef.h>

#define HEALTH_RULE_MAX 8

typedef enum {
    HR_NO_NEW_MEDIA_ERRORS, HR_NO_NEW_ERROR_LOG_ENTRIES, HR_NO_NEW_CRITICAL_WARNINGS,
    HR_NO_THROTTLING, HR_NO_NEW_DEFECTS, HR_MAX_TEMP, HR_WAF
} health_cond_kind_t;

typedef struct {
    health_cond_kind_t kind;
    double limit;                   /* max_temp (C), waf */
    char text[48];                  /* as written */
} health_cond_t;

typedef struct {
    int n;
    health_cond_t c[HEALTH_RULE_MAX];
} health_rule_t;

/* Parses text into out.  Returns 0, or -1 with err quoting the part and
   saying what is allowed. */
int health_rule_parse (const char *text, health_rule_t *out, char *err, size_t errlen);

/* Whether j meets c: 1 it does, 0 it does not (why: what it saw), -1 j
   lacks the figure (not judged).  Can't fail. */
int health_rule_check (const health_cond_t *c, const health_judgement_t *j, char *why,
                       size_t whylen);

#endif
