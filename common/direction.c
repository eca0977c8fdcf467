/*  direction.c: see direction.h. */
#include "direction.h"

#include <string.h>

static const char *const s_names[DIR_COUNT] = { "read", "write", "trim" };

const char *
dir_name (int d)
{
    return d >= 0 && d < DIR_COUNT ? s_names[d] : "unknown";
}

int
dir_from_name (const char *s)
{
    for (int d = 0; s && d < DIR_COUNT; d++)
        if (strcmp (s, s_names[d]) == 0)
            return d;
    return -1;
}

bool
dir_reported (int d, uint64_t ops, uint64_t errors)
{
    return d == DIR_READ || d == DIR_WRITE || ops > 0 || errors > 0;
}
