/*  endpoint.c: see endpoint.h. */
#include "endpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool
endpoint_is_local (const char *ep)
{
    if (strncmp (ep, "ipc://", 6) == 0 || strncmp (ep, "inproc://", 9) == 0)
        return true;
    if (strncmp (ep, "tcp://", 6) != 0)
        return false;
    const char *host = ep + 6;
    /* A connecting endpoint may name its source first: tcp://SRC;DST. */
    const char *semi = strchr (host, ';');
    if (semi)
        host = semi + 1;
    return strncmp (host, "127.", 4) == 0 || strncmp (host, "localhost:", 10) == 0
           || strncmp (host, "[::1]:", 6) == 0;
}

int
endpoint_check (const char *ep, bool bind, char *err, size_t errlen)
{
    static const char form[] = "expected tcp://HOST:PORT, e.g. tcp://ctl.example:5570, or "
                               "ipc://PATH";
    if (strncmp (ep, "ipc://", 6) == 0) {
        if (!ep[6]) {
            snprintf (err, errlen, "'%s': no path after ipc:// (%s)", ep, form);
            return -1;
        }
        return 0;
    }
    if (strncmp (ep, "tcp://", 6) != 0) {
        const char *colon = strrchr (ep, ':');
        if (!strstr (ep, "://") && colon && colon > ep && colon[1])
            snprintf (err, errlen, "'%s' is not an endpoint: %s (did you mean tcp://%s?)", ep,
                      form, ep);
        else
            snprintf (err, errlen, "'%s' is not an endpoint: %s", ep, form);
        return -1;
    }
    const char *addr = ep + 6;
    /* A connecting endpoint may name its source first: tcp://SRC;DST. */
    const char *semi = bind ? NULL : strchr (addr, ';');
    if (semi)
        addr = semi + 1;
    const char *colon = strrchr (addr, ':');
    if (!colon || colon == addr) {
        snprintf (err, errlen, "'%s': %s (%s)", ep, colon ? "no host" : "no port", form);
        return -1;
    }
    if (addr[0] == '[' && colon[-1] != ']') {
        snprintf (err, errlen, "'%s': an IPv6 address goes in brackets, tcp://[ADDRESS]:PORT",
                  ep);
        return -1;
    }
    const char *port = colon + 1;
    if (bind && (strcmp (port, "*") == 0 || strcmp (port, "!") == 0))
        return 0;
    char *end;
    long n = strtol (port, &end, 10);
    long lo = bind ? 0 : 1;
    if (!*port || *end || port[0] == '-' || port[0] == '+' || n < lo || n > 65535) {
        snprintf (err, errlen, "'%s': port '%s' is not a number %s..65535%s (%s)", ep, port,
                  bind ? "0" : "1", bind ? " (0 or * for a free one)" : "", form);
        return -1;
    }
    return 0;
}
