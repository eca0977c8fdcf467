/*  curve.c: CURVE keys on ZeroMQ sockets (see curve.h). */
#include "curve.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* True when the certificate carries a secret key (czmq leaves it zeros
   when the _secret file was not there). */
static bool
has_secret (zcert_t *c)
{
    const byte *k = zcert_secret_key (c);
    for (int i = 0; i < 32; i++)
        if (k[i])
            return true;
    return false;
}

int
curve_client_apply (zsock_t *s, const char *secret_file, const char *server_cert, char *err,
                    size_t errlen)
{
    if (!secret_file || !server_cert) {
        snprintf (err, errlen, "CURVE needs both a secret certificate (NAME.cert_secret) and the "
                  "controller's public certificate (controller.cert)");
        return -1;
    }
    if (access (secret_file, R_OK) != 0) {
        snprintf (err, errlen, "'%s': %s (make one with: iofleet keys agent NAME DIR)",
                  secret_file, strerror (errno));
        return -1;
    }
    if (access (server_cert, R_OK) != 0) {
        snprintf (err, errlen, "'%s': %s (the controller's public certificate, "
                  "KEYDIR/controller.cert of iofleet keys init)", server_cert, strerror (errno));
        return -1;
    }
    /* zcert_load reads FILE and FILE_secret; the secret file alone holds
       both keys, so load it under its base name when given the _secret. */
    char base[4096];
    snprintf (base, sizeof base, "%s", secret_file);
    size_t n = strlen (base);
    if (n > 7 && strcmp (base + n - 7, "_secret") == 0)
        base[n - 7] = '\0';
    zcert_t *mine = zcert_load (base);
    if (!mine || !has_secret (mine)) {
        snprintf (err, errlen, "'%s' is not a secret certificate (want the NAME.cert_secret file "
                  "of iofleet keys)", secret_file);
        zcert_destroy (&mine);
        return -1;
    }
    zcert_t *server = zcert_load (server_cert);
    if (!server) {
        snprintf (err, errlen, "'%s' is not a certificate (want KEYDIR/controller.cert)",
                  server_cert);
        zcert_destroy (&mine);
        return -1;
    }
    zcert_apply (mine, s);
    zsock_set_curve_serverkey (s, zcert_public_txt (server));
    zcert_destroy (&mine);
    zcert_destroy (&server);
    return 0;
}
