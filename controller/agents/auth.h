/*  auth.h: CURVE allowlists and the ZAP handler.  */
#ifndef IOF_AUTH_H
#define IOF_AUTH_H

#include "controller.h"

/* auth.c: CURVE allowlists and the ZAP handler. */
/* Loads DIR/controller.cert(_secret) and the stores DIR/agents/ and
   DIR/admins/, and binds the ZAP handler.  NULL with err filled. */
auth_t *auth_new (const char *dir, char *err, size_t errlen);
/* Whether DIR holds the controller's certificate with its secret key, as
   auth_new needs.  Returns 0, or -1 with err filled. */
int auth_check (const char *dir, char *err, size_t errlen);
void auth_destroy (auth_t **self_p);
/* The ZAP socket, for the event loop; auth_on_zap answers one request. */
zsock_t *auth_socket (auth_t *self);
void auth_on_zap (ctl_t *ctl);
/* Makes s a CURVE server checked against the store of domain
   ("agents" or "admins"). */
void auth_server (auth_t *self, zsock_t *s, const char *domain);
const char *auth_public_key (auth_t *self);
/* True while key (Z85) is in the agents allowlist. */
bool auth_agent_allowed (auth_t *self, const char *key);
/* The refused keys, newest first. */
json_t *auth_rejected_json (ctl_t *ctl, char *err, size_t errlen);

#endif
