/*  auth.c: who may talk to the controller.

    With --keys DIR the agent socket (and a TCP admin socket) are CURVE
    servers with the certificate DIR/controller.cert(_secret).  Clients are
    checked by this ZAP handler (ZeroMQ RFC 27) against czmq certificate
    stores: DIR/agents/ for agents, DIR/admins/ for the CLI over TCP.  The
    stores reload themselves when their directory changes, so allowing an
    agent is copying its NAME.cert there, and revoking it is removing it.

    The handler is ours rather than czmq's zauth actor so that a refused
    key is seen here: it is recorded in the database (rejected_keys, shown
    by `iofleet agents --rejected`) and logged once per key per minute.
    An accepted client gets its public key (Z85) as the ZAP User-Id, which
    ZeroMQ attaches to every message it sends: fleet.c identifies agents by
    that key, not by the routing id a client could choose.
*/
#include "controller.h"
#include "curve.h"
#include "log.h"
#include "util.h"
#include "auth.h"
#include "rejected_keys.h"
#include "store.h"

#include <string.h>

#define ZAP_ENDPOINT     "inproc://zeromq.zap.01"
#define REJECT_LOG_NS    (60 * NS_PER_SEC)

struct auth {
    zsock_t *zap;
    zcert_t *cert;
    zcertstore_t *agents;
    zcertstore_t *admins;
    zhashx_t *logged;           /* key -> last log time (ns) */
};

/* DIR/controller.cert with its secret key, or NULL with err filled. */
static zcert_t *
load_cert (const char *dir, char *err, size_t errlen)
{
    char path[4096];
    snprintf (path, sizeof path, "%s/controller.cert", dir);
    zcert_t *cert = zcert_load (path);
    const byte *secret = cert ? zcert_secret_key (cert) : NULL;
    bool has = false;
    for (int i = 0; secret && i < 32; i++)
        has |= secret[i] != 0;
    if (!has) {
        snprintf (err, errlen, "keys '%s': no controller certificate with its secret key "
                  "(%s and %s_secret); create them with: iofleet keys init %s", dir, path, path, dir);
        zcert_destroy (&cert);
    }
    return cert;
}

int
auth_check (const char *dir, char *err, size_t errlen)
{
    zcert_t *cert = load_cert (dir, err, errlen);
    if (!cert)
        return -1;
    zcert_destroy (&cert);
    return 0;
}

auth_t *
auth_new (const char *dir, char *err, size_t errlen)
{
    zcert_t *cert = load_cert (dir, err, errlen);
    if (!cert)
        return NULL;
    char path[4096];
    auth_t *self = calloc (1, sizeof *self);
    self->cert = cert;
    snprintf (path, sizeof path, "%s/agents", dir);
    if (!zsys_file_exists (path))
        zsys_dir_create ("%s", path);
    self->agents = zcertstore_new (path);
    snprintf (path, sizeof path, "%s/admins", dir);
    if (!zsys_file_exists (path))
        zsys_dir_create ("%s", path);
    self->admins = zcertstore_new (path);
    self->logged = zhashx_new ();
    self->zap = zsock_new (ZMQ_REP);
    if (!self->zap || zsock_bind (self->zap, ZAP_ENDPOINT) != 0) {
        snprintf (err, errlen, "cannot start the authentication handler: %s",
                  zmq_strerror (zmq_errno ()));
        auth_destroy (&self);
        return NULL;
    }
    return self;
}

void
auth_destroy (auth_t **self_p)
{
    auth_t *self = *self_p;
    if (!self)
        return;
    zsock_destroy (&self->zap);
    zcert_destroy (&self->cert);
    zcertstore_destroy (&self->agents);
    zcertstore_destroy (&self->admins);
    zhashx_destroy (&self->logged);
    free (self);
    *self_p = NULL;
}

zsock_t *
auth_socket (auth_t *self)
{
    return self->zap;
}

void
auth_server (auth_t *self, zsock_t *s, const char *domain)
{
    zcert_apply (self->cert, s);
    zsock_set_curve_server (s, 1);
    zsock_set_zap_domain (s, domain);
}

const char *
auth_public_key (auth_t *self)
{
    return zcert_public_txt (self->cert);
}

static void
record_reject (ctl_t *ctl, const char *key, const char *domain, const char *address)
{
    store_begin (ctl->store);
    rejected_keys_add (ctl->store, key, domain, address, clock_real_ns ());
}

void
auth_on_zap (ctl_t *ctl)
{
    auth_t *self = ctl->auth;
    zmsg_t *req = zmsg_recv (self->zap);
    if (!req)
        return;
    /* version, request id, domain, address, identity, mechanism, credentials */
    char *version = zmsg_popstr (req), *request_id = zmsg_popstr (req);
    char *domain = zmsg_popstr (req), *address = zmsg_popstr (req);
    zframe_t *identity = zmsg_pop (req);
    char *mechanism = zmsg_popstr (req);
    zframe_t *cred = zmsg_pop (req);
    const char *status = "400", *text = "not allowed";
    char key[41] = "";
    if (!version || strcmp (version, "1.0") != 0 || !mechanism) {
        text = "malformed ZAP request";
    } else if (strcmp (mechanism, "CURVE") != 0) {
        text = "CURVE is required";
    } else if (!cred || zframe_size (cred) != 32) {
        text = "no CURVE key";
    } else {
        zmq_z85_encode (key, zframe_data (cred), 32);
        bool admin = domain && strcmp (domain, "admins") == 0;
        zcertstore_t *store = admin ? self->admins : self->agents;
        if (zcertstore_lookup (store, key)) {
            status = "200";
            text = "OK";
        } else {
            uint64_t now = clock_mono_ns ();
            uint64_t last = (uint64_t) (uintptr_t) zhashx_lookup (self->logged, key);
            if (!last || now - last > REJECT_LOG_NS) {
                log_warn ("refused a connection from %s: CURVE key %s is not in the %s allowlist "
                          "(copy its NAME.cert into the key directory's %s/ to allow it)",
                          address ? address : "?", key, admin ? "admins" : "agents",
                          admin ? "admins" : "agents");
                zhashx_update (self->logged, key, (void *) (uintptr_t) now);
            }
            record_reject (ctl, key, admin ? "admins" : "agents", address ? address : "");
            store_count (ctl->store, "rejected_connections", 1);
        }
    }
    zmsg_t *rep = zmsg_new ();
    zmsg_addstr (rep, "1.0");
    zmsg_addstr (rep, request_id ? request_id : "");
    zmsg_addstr (rep, status);
    zmsg_addstr (rep, text);
    zmsg_addstr (rep, strcmp (status, "200") == 0 ? key : "");
    zmsg_addmem (rep, "", 0);
    zmsg_send (&rep, self->zap);
    zstr_free (&version);
    zstr_free (&request_id);
    zstr_free (&domain);
    zstr_free (&address);
    zstr_free (&mechanism);
    zframe_destroy (&identity);
    zframe_destroy (&cred);
    zmsg_destroy (&req);
}

bool
auth_agent_allowed (auth_t *self, const char *key)
{
    return zcertstore_lookup (self->agents, key) != NULL;
}

json_t *
auth_rejected_json (ctl_t *ctl, char *err, size_t errlen)
{
    json_t *list = rejected_keys_list (ctl->store);
    if (!list) {
        snprintf (err, errlen, "database error listing rejected keys; see the controller's log");
        return NULL;
    }
    return list;
}
