/*  fleet.c: the agents: who is connected, hello/welcome, clock pings, and
    dispatch of everything else to the handlers registered for its kind
    (fleet.h). */
#include "fleet.h"
#include "controller.h"
#include "log.h"
#include "names.h"
#include "util.h"
#include "auth.h"
#include "import.h"
#include "inventories.h"
#include "snapcodec.h"
#include "snapshot_prep.h"
#include "store.h"
#include "import_check.h"
#include "agent_rows.h"

#include <string.h>

typedef struct {
    fleet_message_fn *fn;
    void *arg;
} handler_t;

struct fleet {
    ctl_t *ctl;
    zlistx_t *peers;            /* peer_t *, owned */
    /* Peers are found by routing id (every message), agent id (every
       acknowledgement) and name (HELLO) through three maps over the list,
       so a thousand agents cost a lookup each, not a walk of the list. */
    zhashx_t *by_rid;           /* hex routing id -> peer_t * */
    zhashx_t *by_id;            /* agent id (decimal) -> peer_t * */
    zhashx_t *by_name;
    handler_t handlers[FLEET_KINDS];
    fleet_hello_fn *hello_fn;
    void *hello_arg;
    fleet_excused_fn *excused_fn;
    void *excused_arg;
    uint64_t scanned_at;        /* fleet_tick's last walk, monotonic */
    uint64_t bad_messages;
    uint64_t unknown_logged_at;
};

static void
rid_key (const uint8_t *rid, size_t len, char out[2 * PEER_RID_MAX + 1])
{
    static const char hex[] = "0123456789abcdef";
    if (len > PEER_RID_MAX)
        len = PEER_RID_MAX;
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = hex[rid[i] >> 4];
        out[2 * i + 1] = hex[rid[i] & 15];
    }
    out[2 * len] = '\0';
}

fleet_t *
fleet_new (ctl_t *ctl)
{
    fleet_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->ctl = ctl;
    self->peers = zlistx_new ();
    self->by_rid = zhashx_new ();
    self->by_id = zhashx_new ();
    self->by_name = zhashx_new ();
    if (!self->peers || !self->by_rid || !self->by_id || !self->by_name) {
        fleet_destroy (&self);
        return NULL;
    }
    zlistx_set_destructor (self->peers, (zlistx_destructor_fn *) zstr_free);
    return self;
}

void
fleet_destroy (fleet_t **self_p)
{
    IOF_ASSERT (self_p);
    fleet_t *self = *self_p;
    if (!self)
        return;
    zhashx_destroy (&self->by_rid);
    zhashx_destroy (&self->by_id);
    zhashx_destroy (&self->by_name);
    zlistx_destroy (&self->peers);
    free (self);
    *self_p = NULL;
}

void
fleet_on (fleet_t *self, int kind, fleet_message_fn *fn, void *arg)
{
    IOF_ASSERT (kind > 0 && kind < FLEET_KINDS);
    IOF_ASSERT (kind != IOFLEET__ENVELOPE__BODY_HELLO && kind != IOFLEET__ENVELOPE__BODY_PING
                && kind != IOFLEET__ENVELOPE__BODY_ERROR);
    self->handlers[kind] = (handler_t) { fn, arg };
}

void
fleet_on_hello (fleet_t *self, fleet_hello_fn *fn, void *arg)
{
    self->hello_fn = fn;
    self->hello_arg = arg;
}

void
fleet_on_excused (fleet_t *self, fleet_excused_fn *fn, void *arg)
{
    self->excused_fn = fn;
    self->excused_arg = arg;
}

/* Whether agent_id may be silent now (fleet_on_excused).  Can't fail. */
static bool
excused (fleet_t *self, uint64_t agent_id)
{
    return self->excused_fn && self->excused_fn (self->excused_arg, agent_id);
}

peer_t *
fleet_first (fleet_t *self)
{
    return zlistx_first (self->peers);
}

peer_t *
fleet_next (fleet_t *self)
{
    return zlistx_next (self->peers);
}

uint64_t
fleet_bad_messages (fleet_t *self)
{
    return self->bad_messages;
}

peer_t *
fleet_find_rid (fleet_t *self, const uint8_t *rid, size_t len)
{
    char key[2 * PEER_RID_MAX + 1];
    if (len > PEER_RID_MAX)
        return NULL;
    rid_key (rid, len, key);
    return zhashx_lookup (self->by_rid, key);
}

peer_t *
fleet_find_id (fleet_t *self, uint64_t agent_id)
{
    char key[24];
    snprintf (key, sizeof key, "%llu", (unsigned long long) agent_id);
    return zhashx_lookup (self->by_id, key);
}

peer_t *
fleet_find_name (fleet_t *self, const char *name)
{
    return zhashx_lookup (self->by_name, name);
}

static int
send_to (fleet_t *self, const uint8_t *rid, size_t rid_len, envelope_t *env)
{
    size_t len;
    uint8_t *buf = message_pack (env, &len);
    if (!buf)
        return -1;
    zmsg_t *m = zmsg_new ();
    zmsg_addmem (m, rid, rid_len);
    zmsg_addmem (m, buf, len);
    free (buf);
    int rc = zmsg_send (&m, self->ctl->router);
    if (rc != 0) {
        zmsg_destroy (&m);
        log_debug ("send %s failed: %s", message_kind (env), zmq_strerror (zmq_errno ()));
    }
    return rc;
}

int
fleet_send (fleet_t *self, peer_t *peer, envelope_t *env)
{
    if (!peer->connected)
        return -1;
    return send_to (self, peer->rid, peer->rid_len, env);
}

static json_t *
labels_json (const Iofleet__Hello *h)
{
    json_t *o = json_object ();
    for (size_t i = 0; i < h->n_labels; i++)
        json_object_set_new (o, h->labels[i]->key, json_string (h->labels[i]->value));
    return o;
}

static void
reject (fleet_t *self, const uint8_t *rid, size_t rid_len, const char *reason)
{
    Iofleet__Reject r = IOFLEET__REJECT__INIT;
    r.reason = (char *) reason;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_REJECT;
    env.reject = &r;
    send_to (self, rid, rid_len, &env);
}

/* With CURVE: a name belongs to the key that registered it, as long as
   that key stays allowed.  Returns 0, or -1 having sent REJECT. */
static int
check_name_key (fleet_t *self, const uint8_t *rid, size_t rid_len, const char *name,
                const char *key)
{
    char owner[64] = "";
    int rc = agent_rows_key_of (self->ctl->store, name, owner, sizeof owner);
    /* Not knowing whose the name is, the agent is not let in on a guess. */
    if (rc < 0) {
        reject (self, rid, rid_len, "controller could not check this agent's name (database "
                "error); see its log");
        return -1;
    }
    if (!owner[0] || strcmp (owner, key) == 0)
        return 0;
    if (!auth_agent_allowed (self->ctl->auth, owner)) {
        log_warn ("agent '%s' now has key %s (its old key %s is no longer allowed)", name, key,
                  owner);
        return 0;
    }
    char reason[256];
    snprintf (reason, sizeof reason, "the name '%s' belongs to another key, which is still "
              "allowed; use another --name, or remove the old key's certificate first", name);
    log_warn ("refused agent '%s' with key %s: the name is registered to key %s", name, key,
              owner);
    reject (self, rid, rid_len, reason);
    store_count (self->ctl->store, "rejected_hellos", 1);
    return -1;
}

/* How long a connected agent may have been silent and still hold its
   name against another agent: it pings every second. */
#define NAME_HELD_NS (5 * NS_PER_SEC)

/* Whether a HELLO for a name another connection holds comes from someone
   else while that one is alive: two agents given one name would take the
   name from each other at every reconnect, and the controller would talk
   to each in turn.  The same agent (the instance id kept in its spool
   directory) comes back whenever it likes; an agent that sends none (a
   release before it, a simulated one) takes over only a name whose holder
   went silent.  Returns 0, or -1 having sent REJECT (nothing stored). */
static int
check_name_free (fleet_t *self, const uint8_t *rid, size_t rid_len, const Iofleet__Hello *h)
{
    peer_t *p = fleet_find_name (self, h->name);
    if (!p || !p->connected)
        return 0;
    if (p->rid_len == rid_len && memcmp (p->rid, rid, rid_len) == 0)
        return 0;               /* its own connection: a hello again */
    if (p->instance[0] && h->instance && strcmp (p->instance, h->instance) == 0)
        return 0;               /* the same agent, restarted or reconnected */
    uint64_t silent = clock_mono_ns () - p->last_seen;
    if (silent > NAME_HELD_NS && !excused (self, p->id))
        return 0;               /* the holder is gone */
    char reason[MSG_TEXT_MAX + 1];
    snprintf (reason, sizeof reason, "the name '%s' is taken: another agent of that name, on "
              "host %.200s (pid %llu), is connected to this controller.  Names are unique in a "
              "fleet: give this agent (host %.200s) another name (--name, or name = in its "
              "agent.conf), or stop the other one first", h->name, p->hostname,
              (unsigned long long) p->pid, h->hostname);
    log_warn ("refused an agent named '%s' from host %s (pid %llu): agent '%s' on host %s (pid "
              "%llu, heard %.1f s ago) holds the name; the first keeps it", h->name, h->hostname,
              (unsigned long long) h->pid, p->name, p->hostname, (unsigned long long) p->pid,
              (double) silent / 1e9);
    reject (self, rid, rid_len, reason);
    store_count (self->ctl->store, "rejected_hellos", 1);
    return -1;
}

/* A HELLO message_unpack refused (a name of a megabyte, 10,000 labels, a
   control character): the agent is told which bound it broke rather than
   left saying hello to no answer.  why is message_unpack's reason, which
   names the field and its limit, never the field's text.  Can't fail. */
static void
reject_bad_hello (fleet_t *self, const uint8_t *rid, size_t rid_len, const char *why)
{
    char reason[MSG_TEXT_MAX + 1];
    snprintf (reason, sizeof reason, "its HELLO breaks a limit: %.256s (a name is %d bytes at "
              "most, labels %d at most, each key %d bytes and value %d; see iofleet-agent "
              "--help)", why, MSG_NAME_MAX, MSG_LABELS_MAX, MSG_NAME_MAX, MSG_LABEL_VALUE_MAX);
    reject (self, rid, rid_len, reason);
    store_count (self->ctl->store, "rejected_hellos", 1);
}

static void
on_hello (fleet_t *self, const uint8_t *rid, size_t rid_len, const Iofleet__Hello *h,
          const char *key)
{
    /* "fio:HOST" names the hosts of imported fio results (import.c). */
    if (strncmp (h->name, IMPORT_AGENT_PREFIX, strlen (IMPORT_AGENT_PREFIX)) == 0) {
        reject (self, rid, rid_len, "agent names starting with 'fio:' are kept for imported "
                "fio results; start the agent with another --name");
        store_count (self->ctl->store, "rejected_hellos", 1);
        return;
    }
    /* The name becomes a directory or a page's text wherever it is shown:
       held to the rule the agent checks its --name by (names.h). */
    char why[512];
    if (names_check ("the agent name", h->name, why, sizeof why)) {
        char reason[MSG_TEXT_MAX + 1];
        snprintf (reason, sizeof reason, "%s; start the agent with another --name (or name = "
                  "in its agent.conf)", why);
        log_warn ("refused an agent from host %.200s (pid %llu): %s", h->hostname,
                  (unsigned long long) h->pid, why);
        reject (self, rid, rid_len, reason);
        store_count (self->ctl->store, "rejected_hellos", 1);
        return;
    }
    store_begin (self->ctl->store);
    if (self->ctl->auth && check_name_key (self, rid, rid_len, h->name, key))
        return;
    if (check_name_free (self, rid, rid_len, h))
        return;
    json_t *labels = labels_json (h);
    char *labels_text = json_dumps (labels, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref (labels);
    uint64_t now = clock_real_ns ();
    agent_rows_t row = {
        .name = h->name, .hostname = h->hostname, .kernel = h->kernel,
        .version = h->agent_version, .labels = labels_text ? labels_text : "{}",
        .public_key = key,
    };
    uint64_t id;
    agent_rows_hello (self->ctl->store, &row, now, &id);
    free (labels_text);
    if (id == 0) {
        reject (self, rid, rid_len, "controller could not record this agent (database error); "
                "see its log");
        return;
    }

    inventories_store (self->ctl, id, h->inventory_json);

    /* Same name on a new connection: the agent restarted or reconnected. */
    peer_t *p = fleet_find_name (self, h->name);
    peer_t *by_rid = fleet_find_rid (self, rid, rid_len);
    if (by_rid && by_rid != p)
        by_rid->connected = false;
    uint64_t old_pid = p ? p->pid : 0;
    char k[2 * PEER_RID_MAX + 1];
    if (!p) {
        p = calloc (1, sizeof *p);
        if (!p) {
            reject (self, rid, rid_len, "controller out of memory; see its log");
            return;
        }
        zlistx_add_end (self->peers, p);
        str_copy (p->name, sizeof p->name, h->name);
        zhashx_update (self->by_name, p->name, p);
    } else {
        rid_key (p->rid, p->rid_len, k);
        if (zhashx_lookup (self->by_rid, k) == p)
            zhashx_delete (self->by_rid, k);
    }
    p->pid = h->pid;
    str_copy (p->instance, sizeof p->instance, h->instance ? h->instance : "");
    if (rid_len > sizeof p->rid)
        rid_len = sizeof p->rid;
    memcpy (p->rid, rid, rid_len);
    p->rid_len = rid_len;
    rid_key (p->rid, p->rid_len, k);
    zhashx_update (self->by_rid, k, p);
    snprintf (p->key, sizeof p->key, "%s", key ? key : "");
    p->id = id;
    snprintf (k, sizeof k, "%llu", (unsigned long long) id);
    zhashx_update (self->by_id, k, p);
    str_copy (p->name, sizeof p->name, h->name);
    str_copy (p->hostname, sizeof p->hostname, h->hostname);
    str_copy (p->release, sizeof p->release, h->agent_version ? h->agent_version : "");
    p->connected = true;
    p->last_seen = clock_mono_ns ();
    log_info ("agent '%s' (id %llu, host %s, kernel %s, iofleet %s, %zu label(s)) connected",
              p->name, (unsigned long long) id, h->hostname, h->kernel,
              *h->agent_version ? h->agent_version : "(unknown)", h->n_labels);

    if (self->hello_fn)
        self->hello_fn (self->hello_arg, p, old_pid, h);

    Iofleet__Welcome w = IOFLEET__WELCOME__INIT;
    w.agent_id = id;
    w.interval_ns = self->ctl->interval_ns;
    w.controller_version = IOF_VERSION;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_WELCOME;
    env.welcome = &w;
    send_to (self, rid, rid_len, &env);
}

static void
count_bad (fleet_t *self, peer_t *p, const char *why)
{
    self->bad_messages++;
    store_count (self->ctl->store, "bad_agent_messages", 1);
    uint64_t *last = p ? &p->bad_logged_at : &self->unknown_logged_at;
    if (log_ratelimit (last, 60 * NS_PER_SEC))
        log_warn ("dropped a bad message from %s%s (%llu dropped so far): %s",
                  p ? "agent " : "an unidentified peer", p ? p->name : "",
                  (unsigned long long) self->bad_messages, why);
}

/* A message of a connected peer that is not a PING: to the handler of its
   kind, else counted.  Can't fail. */
static void
hand_on (fleet_t *self, peer_t *p, const envelope_t *env, snapshot_prep_t *prep)
{
    int kind = (int) env->body_case;
    if (kind == IOFLEET__ENVELOPE__BODY_ERROR) {
        log_warn ("agent '%s' reports: %s", p->name, env->error->message);
        return;
    }
    const handler_t *h = kind > 0 && kind < FLEET_KINDS ? &self->handlers[kind] : NULL;
    if (h && h->fn) {
        h->fn (h->arg, p, env, prep);
        return;
    }
    store_count (self->ctl->store, "bad_agent_messages", 1);
    if (log_ratelimit (&p->bad_logged_at, 60 * NS_PER_SEC))
        log_warn ("agent '%s' sent an unexpected %s message; dropped", p->name,
                  message_kind (env));
}

void
fleet_decode (zmsg_t **msg_p, snapcodec_t *codec, agent_msg_t *out)
{
    zmsg_t *msg = *msg_p;
    *msg_p = NULL;
    out->env = NULL;
    out->mismatch = 0;
    out->bad_hello = false;
    out->err[0] = '\0';
    out->prep.done = false;
    out->rid = zmsg_pop (msg);
    out->body = zmsg_pop (msg);
    bool one = out->rid && out->body && zmsg_size (msg) == 0;
    zmsg_destroy (&msg);
    if (!one) {
        snprintf (out->err, sizeof out->err, "expected exactly one frame per message");
        return;
    }
    out->env = message_unpack (zframe_data (out->body), zframe_size (out->body), &out->mismatch,
                               out->err, sizeof out->err);
    /* Parsed a second time only when refused: the decode threads' work,
       and rare. */
    out->bad_hello = !out->env && message_body_case (zframe_data (out->body),
                                                     zframe_size (out->body))
                                  == IOFLEET__ENVELOPE__BODY_HELLO;
    if (out->env && !out->mismatch && codec
        && out->env->body_case == IOFLEET__ENVELOPE__BODY_SNAPSHOT)
        snapshot_prep (&out->prep, codec, out->env->snapshot);
}

void
fleet_msg_clear (agent_msg_t *m)
{
    if (m->env)
        message_free (m->env);
    m->env = NULL;
    zframe_destroy (&m->rid);
    zframe_destroy (&m->body);
}

void
fleet_dispatch (fleet_t *self, zmsg_t **msg_p)
{
    agent_msg_t m = { 0 };
    fleet_decode (msg_p, NULL, &m);
    fleet_handle (self, &m);
    fleet_msg_clear (&m);
}

void
fleet_handle (fleet_t *self, agent_msg_t *m)
{
    zframe_t *rid = m->rid, *body = m->body;
    envelope_t *env = m->env;
    peer_t *p = rid ? fleet_find_rid (self, zframe_data (rid), zframe_size (rid)) : NULL;
    if (!env) {
        count_bad (self, p, m->err);
        if (m->bad_hello && rid)
            reject_bad_hello (self, zframe_data (rid), zframe_size (rid), m->err);
        return;
    }
    if (m->mismatch) {
        /* A Hello of another protocol still parses as far as its first
           fields: name the agent's release when it says it. */
        const Iofleet__Hello *h = env->body_case == IOFLEET__ENVELOPE__BODY_HELLO ? env->hello
                                                                                 : NULL;
        char reason[MSG_TEXT_MAX + 1];
        snprintf (reason, sizeof reason, "protocol version mismatch: agent%s%.64s runs iofleet "
                  "%.64s (protocol %u), controller runs iofleet %s (protocol %u); upgrade the "
                  "older side (releases speaking the same protocol interoperate)",
                  h && h->name && *h->name ? " " : "", h && h->name ? h->name : "",
                  h && h->agent_version && *h->agent_version ? h->agent_version : "(unknown)",
                  env->version, IOF_VERSION, IOF_PROTOCOL_VERSION);
        count_bad (self, p, reason);
        reject (self, zframe_data (rid), zframe_size (rid), reason);
        return;
    }
    /* With CURVE, ZeroMQ tags every message with the sender's key (the
       ZAP User-Id, auth.c): that, not the routing id, says who sent it. */
    const char *key = self->ctl->auth ? zframe_meta (body, "User-Id") : "";
    if (!key || (self->ctl->auth && strlen (key) != 40)) {
        count_bad (self, p, "a message without a CURVE identity");
        return;
    }
    if (env->body_case == IOFLEET__ENVELOPE__BODY_HELLO) {
        on_hello (self, zframe_data (rid), zframe_size (rid), env->hello, key);
        return;
    }
    if (p && strcmp (p->key, key) != 0) {
        count_bad (self, p, "a message from another key than the agent registered with");
        return;
    }
    if (!p || !p->connected) {
        /* Typically: this controller restarted and the agent's connection
           came back by itself.  Ask it to introduce itself again. */
        Iofleet__Error e = IOFLEET__ERROR__INIT;
        e.message = "unknown agent: send hello first";
        envelope_t reply = IOFLEET__ENVELOPE__INIT;
        reply.body_case = IOFLEET__ENVELOPE__BODY_ERROR;
        reply.error = &e;
        send_to (self, zframe_data (rid), zframe_size (rid), &reply);
        return;
    }
    p->last_seen = clock_mono_ns ();
    if (env->body_case == IOFLEET__ENVELOPE__BODY_PING) {
        Iofleet__Pong pong = IOFLEET__PONG__INIT;
        pong.t0 = env->ping->t0;
        pong.t1 = clock_real_ns ();
        p->offset_ns = env->ping->offset_ns;
        p->delay_ns = env->ping->delay_ns;
        envelope_t reply = IOFLEET__ENVELOPE__INIT;
        reply.body_case = IOFLEET__ENVELOPE__BODY_PONG;
        reply.pong = &pong;
        pong.t2 = clock_real_ns ();
        send_to (self, p->rid, p->rid_len, &reply);
    } else
        hand_on (self, p, env, &m->prep);
}

void
fleet_tick (fleet_t *self)
{
    uint64_t now = clock_mono_ns ();
    if (now - self->scanned_at < FLEET_SCAN_NS)
        return;
    self->scanned_at = now;
    for (peer_t *p = zlistx_first (self->peers); p; p = zlistx_next (self->peers))
        if (p->connected && now - p->last_seen > self->ctl->lost_after_ns
            && !excused (self, p->id)) {
            log_warn ("agent '%s' silent for %.0f s: marking it disconnected", p->name,
                      (double) (now - p->last_seen) / 1e9);
            p->connected = false;
        }
}

/* What agent_json adds each agent to. */
typedef struct {
    fleet_t *self;
    json_t *list;
    uint64_t now;               /* monotonic */
} listing_t;

/* One agent's row as fleet_agents_json lists it (an agent_rows_each
   callback). */
static void
agent_json (void *arg, const agent_rows_t *row)
{
    listing_t *l = arg;
    peer_t *p = fleet_find_id (l->self, row->id);
    json_t *labels = json_loads (row->labels, 0, NULL);
    json_t *a = json_pack ("{s:I, s:s, s:s, s:s, s:s, s:o, s:I, s:I, s:b}",
        "id", (json_int_t) row->id,
        "name", row->name,
        "hostname", row->hostname,
        "kernel", row->kernel,
        "version", row->version,
        "labels", labels ? labels : json_object (),
        "first_seen", (json_int_t) row->first_seen,
        "last_seen", (json_int_t) row->last_seen,
        "connected", p && p->connected);
    if (row->public_key)
        json_object_set_new (a, "public_key", json_string (row->public_key));
    if (row->inventory) {
        json_t *inv = json_loads (row->inventory, 0, NULL);
        json_object_set_new (a, "inventory_hash", json_string (row->inventory_hash));
        json_object_set_new (a, "inventory", inv ? inv : json_object ());
    }
    if (p && p->connected) {
        json_object_set_new (a, "clock_offset_ns", json_integer (p->offset_ns));
        json_object_set_new (a, "clock_delay_ns", json_integer ((json_int_t) p->delay_ns));
        json_object_set_new (a, "idle_ms", json_integer ((json_int_t) ((l->now - p->last_seen) / NS_PER_MS)));
    }
    json_array_append_new (l->list, a);
}

json_t *
fleet_agents_json (fleet_t *self)
{
    listing_t l = { .self = self, .list = json_array (), .now = clock_mono_ns () };
    agent_rows_each (self->ctl->store, agent_json, &l);
    return l.list;
}
