/*  names.h: the one rule for names that become paths, file names or
    markup: plan names, agent names (the agent's spool directory, report
    pages, certificate files).  A name is 1..NAMES_MAX letters, digits,
    '-', '_' or '.', and not '.' or '..'.  The agent checks its --name at
    start, the controller checks it again at HELLO, and plan add and
    import check a plan's name here.
*/
#ifndef IOF_NAMES_H
#define IOF_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#define NAMES_MAX  64
/* The rule as the messages state it. */
#define NAMES_RULE "1..64 letters, digits, '-', '_' or '.', and not '.' or '..'"

/* Whether name keeps the rule.  Can't fail. */
bool names_valid (const char *name);

/* Checks name against the rule.  Returns 0, or -1 with err filled:
   "WHAT 'NAME' has '/' (byte 3): a name is <the rule>" (what is, e.g.,
   "--name" or "agent name"; the name is shown cut at NAMES_MAX bytes, at
   a character's start, so the message stays UTF-8 when the name was). */
int names_check (const char *what, const char *name, char *err, size_t errlen);

#endif
