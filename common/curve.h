/*  curve.h: CURVE keys on ZeroMQ sockets (czmq certificates), shared by
    the controller, the agent and the CLI.

    A certificate is czmq's pair of files: NAME.cert (public key, safe to
    copy) and NAME.cert_secret (both keys, mode 0600).  `iofleet keys`
    makes them; the controller allows the public keys it finds in its key
    directory's agents/ (and admins/) folder; clients pin the controller's
    public key.
*/
#ifndef IOF_CURVE_H
#define IOF_CURVE_H

#include "endpoint.h"

#include <czmq.h>
#include <stdbool.h>
#include <stddef.h>


/* Makes s a CURVE client: its own keys from the secret certificate file
   (NAME.cert_secret) and the server's public key from its certificate
   (controller.cert).  Returns 0, or -1 with err naming the file and what
   to do. */
int curve_client_apply (zsock_t *s, const char *secret_file, const char *server_cert,
                        char *err, size_t errlen);

#endif
