/*  endpoint.h: ZeroMQ endpoints as iofleet's daemons take them: what a
    well-formed one is, and which never leave the host. */
#ifndef IOF_ENDPOINT_H
#define IOF_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>

/* True for endpoints that never leave the host: ipc://, inproc://, and
   tcp:// on 127.0.0.0/8, localhost or [::1].  Only these may go without
   CURVE.  Can't fail. */
bool endpoint_is_local (const char *endpoint);

/* Whether endpoint is one a daemon can use: tcp://HOST:PORT (PORT 1..65535;
   bind: also 0, * or ! for a free one, HOST * for every interface) or
   ipc://PATH.  Returns 0, or -1 with err naming the endpoint, what is
   wrong and the expected form (and the likely fix: 'HOST:PORT' lacks
   tcp://). */
int endpoint_check (const char *endpoint, bool bind, char *err, size_t errlen);

#endif
