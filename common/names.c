/*  names.c: the rule for names that become paths or markup (names.h). */
#include "names.h"

#include <stdio.h>
#include <string.h>

static const char s_allowed[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                "0123456789-_.";

/* Whether name keeps the rule.  Can't fail. */
bool
names_valid (const char *name)
{
    if (!name)
        return false;
    size_t n = strlen (name);
    return n > 0 && n <= NAMES_MAX && strspn (name, s_allowed) == n
        && strcmp (name, ".") != 0 && strcmp (name, "..") != 0;
}

/* Checks name (see names.h).  Returns 0, or -1 with err filled. */
int
names_check (const char *what, const char *name, char *err, size_t errlen)
{
    if (names_valid (name))
        return 0;
    if (!err || !errlen)
        return -1;
    if (!name || !name[0]) {
        snprintf (err, errlen, "%s is empty: a name is %s", what, NAMES_RULE);
        return -1;
    }
    size_t n = strlen (name);
    /* Shown up to NAMES_MAX bytes, not cutting a UTF-8 character. */
    size_t shown = n;
    if (shown > NAMES_MAX) {
        shown = NAMES_MAX;
        while (shown > 0 && ((unsigned char) name[shown] & 0xc0) == 0x80)
            shown--;
    }
    const char *more = shown < n ? "..." : "";
    if (n > NAMES_MAX) {
        snprintf (err, errlen, "%s '%.*s%s' is %zu bytes long: a name is %s", what, (int) shown,
                  name, more, n, NAMES_RULE);
        return -1;
    }
    size_t at = strspn (name, s_allowed);
    if (at == n) {              /* "." or ".." */
        snprintf (err, errlen, "%s '%s' is not a name (it means a directory): a name is %s",
                  what, name, NAMES_RULE);
        return -1;
    }
    unsigned char c = (unsigned char) name[at];
    /* A control character is not printed, nor half of a multibyte one. */
    char bad[16];
    if (c > 0x20 && c < 0x7f)
        snprintf (bad, sizeof bad, "'%c'", c);
    else
        snprintf (bad, sizeof bad, "byte 0x%02x", c);
    bool printable = true;
    for (size_t i = 0; i < n; i++)
        printable &= (unsigned char) name[i] >= 0x20 && name[i] != 0x7f;
    if (printable)
        snprintf (err, errlen, "%s '%s' has %s (byte %zu): a name is %s", what, name, bad,
                  at + 1, NAMES_RULE);
    else
        snprintf (err, errlen, "%s has %s (byte %zu): a name is %s", what, bad, at + 1,
                  NAMES_RULE);
    return -1;
}
