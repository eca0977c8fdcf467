/*  selector.c: see selector.h. */
#include "selector.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
selector_is (const char *name)
{
    return name && name[0] == '@';
}

static const char *
jstr (json_t *o, const char *key)
{
    const char *s = json_string_value (json_object_get (o, key));
    return s ? s : "unknown";
}

/* Why a drive is not a data drive, or NULL when it is one. */
static const char *
not_data (json_t *d)
{
    if (json_is_true (json_object_get (d, "boot")))
        return "boot device";
    if (json_is_true (json_object_get (d, "mounted")))
        return "mounted";
    if (json_is_true (json_object_get (d, "holders")))
        return "in use by LVM/md/dm";
    return NULL;
}

int
selector_expand (const char *sel, json_t *inv, const target_policy_t *pol, char **out, int *n,
                 int max, char *err, size_t errlen)
{
    static const char *transports[] = { "nvme", "sas", "sata", "virtio", "loop", "other" };
    const char *field = NULL, *pattern = NULL;
    const char *what = sel + 1;
    if (strcmp (what, "all") == 0)
        ;
    else if (strncmp (what, "model:", 6) == 0 && what[6])
        field = "model", pattern = what + 6;
    else if (strncmp (what, "serial:", 7) == 0 && what[7])
        field = "serial", pattern = what + 7;
    else {
        for (size_t i = 0; i < sizeof transports / sizeof transports[0]; i++)
            if (strcmp (what, transports[i]) == 0)
                field = "transport", pattern = transports[i];
        if (!field) {
            snprintf (err, errlen, "'%s' is not a drive selector: use @all, @nvme, @sas, @sata, "
                      "@virtio, @loop, @other, @model:GLOB or @serial:GLOB", sel);
            return -EINVAL;
        }
    }
    int added = 0;
    size_t off = 0, i;
    json_t *d;
    char seen[1024] = "";
    json_array_foreach (json_object_get (inv, "drives"), i, d) {
        const char *path = jstr (d, "path");
        const char *why = NULL;
        if (field && fnmatch (pattern, jstr (d, field), 0) != 0)
            why = "does not match";
        if (!why)
            why = not_data (d);
        target_t t;
        char perr[512];
        if (!why && target_resolve (pol, path, &t, perr, sizeof perr) != 0)
            why = "not allowed by --allow";
        if (!why && *n >= max)
            why = "too many targets";
        if (why) {
            if (off < sizeof seen)
                off += (size_t) snprintf (seen + off, sizeof seen - off, "%s%s %s (%s)",
                                          off ? ", " : "", jstr (d, "name"), jstr (d, "transport"),
                                          why);
            continue;
        }
        out[(*n)++] = strdup (path);
        added++;
    }
    if (added == 0)
        snprintf (err, errlen, "selector '%s' matched no data drive on this agent (%s)", sel,
                  seen[0] ? seen : "it has no drives");
    return added;
}
