/*  match.c: see match.h. */
#include "match.h"
#include "health.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

/* The fields of the agent's inventory (agent/inventory.c) a key may name. */
static const char *const s_drive_fields[] = {
    "model", "firmware", "transport", "serial", "vendor", "name", "path", "wwn", "size_bytes",
    "rotational", "logical_block_size", "physical_block_size", "scheduler", "nr_requests",
    "queue_depth", "controller", "expander", "link_speed", "link_width", "uplink",
    "uplink_speed", "uplink_width", NULL
};
static const char *const s_hba_fields[] = {
    "model", "firmware", "driver", "driver_version", "vendor", "device", "pci_address",
    "vendor_id", "device_id", "class", "link_speed", "link_width", "max_link_speed",
    "max_link_width", NULL
};
static const char *const s_host_fields[] = {
    "hostname", "kernel", "os_release", "cpu_model", "cpu_count", "memory_bytes", "boot_id", NULL
};

#define KEYS_TEXT "agent, host, host.FIELD, transport, drive.FIELD, hba.FIELD, label.KEY " \
                  "(or a bare KEY), run.KEY, health.FIELD"

static bool
in_list (const char *const *list, const char *s)
{
    for (int i = 0; list[i]; i++)
        if (strcmp (list[i], s) == 0)
            return true;
    return false;
}

/* list as "a, b, c" into buf.  Can't fail. */
static const char *
list_text (const char *const *list, char *buf, size_t cap)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; list[i] && off < cap; i++)
        off += (size_t) snprintf (buf + off, cap - off, "%s%s", i ? ", " : "", list[i]);
    return buf;
}

/* A label or run label name: printable, no '=' or ','. */
static bool
name_ok (const char *s)
{
    if (!*s || strlen (s) >= 64)
        return false;
    for (const char *p = s; *p; p++)
        if ((unsigned char) *p <= ' ' || *p == '=' || *p == ',' || *p == 0x7f)
            return false;
    return true;
}

int
match_key_parse (const char *flag, const char *text, match_key_t *key, char *err, size_t errlen)
{
    memset (key, 0, sizeof *key);
    if (!text || !*text || strlen (text) >= MATCH_KEY_MAX) {
        snprintf (err, errlen, "%s: %s key: keys are " KEYS_TEXT, flag,
                  text && *text ? "too long a" : "an empty");
        return -1;
    }
    snprintf (key->text, sizeof key->text, "%s", text);
    const char *const *fields = NULL;
    const char *what = NULL;
    if (strcmp (text, "agent") == 0)
        key->kind = MATCH_AGENT;
    else if (strcmp (text, "host") == 0)
        key->kind = MATCH_HOSTNAME;
    else if (strcmp (text, "transport") == 0) {
        key->kind = MATCH_DRIVE;
        snprintf (key->field, sizeof key->field, "transport");
    } else if (strncmp (text, "drive.", 6) == 0)
        key->kind = MATCH_DRIVE, fields = s_drive_fields, what = "drive";
    else if (strncmp (text, "hba.", 4) == 0)
        key->kind = MATCH_HBA, fields = s_hba_fields, what = "hba";
    else if (strncmp (text, "host.", 5) == 0)
        key->kind = MATCH_HOST, fields = s_host_fields, what = "host";
    else if (strncmp (text, "health.", 7) == 0) {
        if (health_field_by_name (text + 7) < 0) {
            char names[1024];
            size_t off = 0;
            for (int f = 0; f < HF_N && off < sizeof names; f++)
                off += (size_t) snprintf (names + off, sizeof names - off, "%s%s", f ? ", " : "",
                                          health_field_name ((health_field_t) f));
            snprintf (err, errlen, "%s: unknown key '%s': health fields are %s", flag, text,
                      names);
            return -1;
        }
        key->kind = MATCH_HEALTH;
        snprintf (key->field, sizeof key->field, "%s", text + 7);
    } else if (strncmp (text, "label.", 6) == 0 || strncmp (text, "run.", 4) == 0) {
        bool run = text[0] == 'r';
        key->kind = run ? MATCH_RUN : MATCH_LABEL;
        const char *name = text + (run ? 4 : 6);
        if (!name_ok (name)) {
            snprintf (err, errlen, "%s: key '%s': %s.KEY needs a KEY of 1..63 printable "
                      "characters without '=' or ','", flag, text, run ? "run" : "label");
            return -1;
        }
        snprintf (key->field, sizeof key->field, "%s", name);
    } else if (!strchr (text, '.') && name_ok (text)) {
        key->kind = MATCH_LABEL;        /* rack=r12: the label rack */
        snprintf (key->field, sizeof key->field, "%s", text);
    } else {
        snprintf (err, errlen, "%s: unknown key '%s': keys are " KEYS_TEXT, flag, text);
        return -1;
    }
    if (fields) {
        const char *field = strchr (text, '.') + 1;
        if (!in_list (fields, field)) {
            char names[512];
            snprintf (err, errlen, "%s: unknown key '%s': keys are " KEYS_TEXT "; %s fields are %s",
                      flag, text, what, list_text (fields, names, sizeof names));
            return -1;
        }
        snprintf (key->field, sizeof key->field, "%s", field);
    }
    return 0;
}

int
match_conds_parse (const char *flag, const char *text, match_cond_t *conds, int max, int *n,
                   char *err, size_t errlen)
{
    const char *p = text ? text : "";
    do {
        const char *end = strchr (p, ',');
        size_t len = end ? (size_t) (end - p) : strlen (p);
        const char *eq = memchr (p, '=', len);
        if (!eq || eq == p) {
            snprintf (err, errlen, "%s '%.*s': want KEY=GLOB (keys are " KEYS_TEXT "), e.g. "
                      "drive.model=PM1733* or label.rack=r12", flag, (int) (len > 80 ? 80 : len),
                      p);
            return -1;
        }
        if (*n >= max) {
            snprintf (err, errlen, "%s: more than %d conditions", flag, max);
            return -1;
        }
        size_t klen = (size_t) (eq - p), glen = len - klen - 1;
        char keytext[MATCH_KEY_MAX + 1];
        if (klen >= MATCH_KEY_MAX || glen >= MATCH_GLOB_MAX) {
            snprintf (err, errlen, "%s '%.64s...': too long (keys below %d, globs below %d "
                      "characters)", flag, p, MATCH_KEY_MAX, MATCH_GLOB_MAX);
            return -1;
        }
        memcpy (keytext, p, klen);
        keytext[klen] = '\0';
        match_cond_t *c = &conds[*n];
        if (match_key_parse (flag, keytext, &c->key, err, errlen))
            return -1;
        memcpy (c->glob, eq + 1, glen);
        c->glob[glen] = '\0';
        (*n)++;
        p = end ? end + 1 : NULL;
    } while (p);
    return 0;
}

/* v (a string, number or boolean) as text into out; false for anything
   else.  Can't fail. */
static bool
scalar (json_t *v, char *out, size_t cap)
{
    if (json_is_string (v))
        snprintf (out, cap, "%s", json_string_value (v));
    else if (json_is_integer (v))
        snprintf (out, cap, "%lld", (long long) json_integer_value (v));
    else if (json_is_real (v))
        snprintf (out, cap, "%g", json_real_value (v));
    else if (json_is_boolean (v))
        snprintf (out, cap, "%s", json_is_true (v) ? "true" : "false");
    else
        return false;
    return true;
}

/* The element of list whose key equals value (strings), or NULL. */
static json_t *
find (json_t *list, const char *key, const char *value)
{
    size_t i;
    json_t *e;
    if (!value)
        return NULL;
    json_array_foreach (list, i, e) {
        const char *v = json_string_value (json_object_get (e, key));
        if (v && strcmp (v, value) == 0)
            return e;
    }
    return NULL;
}

/* The inventory's whole entry of the target's drive (the report keeps a
   few fields of it), or the target's own. */
static json_t *
full_drive (const match_subject_t *s)
{
    json_t *d = find (json_object_get (s->inventory, "drives"), "name",
                      json_string_value (json_object_get (s->drive, "name")));
    return d ? d : s->drive;
}

static const char *
hba_field (const char *field)
{
    return strcmp (field, "model") == 0 ? "device" : field;
}

/* The value of one entry e for key (a drive or controller). */
static bool
entry_value (json_t *e, const char *field, char *out, size_t cap)
{
    return scalar (json_object_get (e, field), out, cap);
}

/* Value of key for s without the run labels' fallback. */
static bool
own_value (const match_key_t *k, const match_subject_t *s, char *out, size_t cap)
{
    switch (k->kind) {
    case MATCH_AGENT:
        if (!s->agent)
            return false;
        snprintf (out, cap, "%s", s->agent);
        return true;
    case MATCH_HOSTNAME:
        if (s->hostname && *s->hostname) {
            snprintf (out, cap, "%s", s->hostname);
            return true;
        }
        return scalar (json_object_get (json_object_get (s->inventory, "host"), "hostname"), out,
                       cap);
    case MATCH_HOST:
        return scalar (json_object_get (json_object_get (s->inventory, "host"), k->field), out,
                       cap);
    case MATCH_LABEL:
        return scalar (json_object_get (s->labels, k->field), out, cap);
    case MATCH_RUN:
        return scalar (json_object_get (s->run_labels, k->field), out, cap);
    case MATCH_DRIVE:
        if (s->target) {
            if (entry_value (s->drive, k->field, out, cap))
                return true;
            return entry_value (full_drive (s), k->field, out, cap);
        } else {
            size_t i;
            json_t *d;
            json_array_foreach (json_object_get (s->inventory, "drives"), i, d)
                if (entry_value (d, k->field, out, cap))
                    return true;
            return false;
        }
    case MATCH_HEALTH: {
        health_t h;
        char err[256];
        int f = health_field_by_name (k->field);
        if (!s->target || !s->health || f < 0 || health_from_json (s->health, &h, err, sizeof err)
            || !health_has (&h, (health_field_t) f))
            return false;
        health_bucket ((health_field_t) f, h.v[f], out, cap);
        return true;
    }
    case MATCH_HBA:
        if (s->target) {
            const char *pci = json_string_value (json_object_get (full_drive (s), "controller"));
            json_t *c = find (json_object_get (s->inventory, "controllers"), "pci_address", pci);
            return entry_value (c, hba_field (k->field), out, cap);
        } else {
            size_t i;
            json_t *c;
            json_array_foreach (json_object_get (s->inventory, "controllers"), i, c)
                if (entry_value (c, hba_field (k->field), out, cap))
                    return true;
            return false;
        }
    }
    return false;
}

bool
match_value (const match_key_t *k, const match_subject_t *s, char *out, size_t cap)
{
    if (own_value (k, s, out, cap))
        return true;
    /* An import has no agent labels or inventory: its run labels answer
       for them, label.KEY by KEY and the others by the key itself
       (iofleet import --label drive.firmware=1.2). */
    if (k->kind != MATCH_RUN && k->kind != MATCH_AGENT
        && scalar (json_object_get (s->run_labels, k->kind == MATCH_LABEL ? k->field : k->text),
                   out, cap))
        return true;
    snprintf (out, cap, "unknown");
    return false;
}

/* Does s match one condition?  An agent matches drive.* and hba.* when
   any of its drives or controllers does. */
static bool
match_one (const match_cond_t *c, const match_subject_t *s)
{
    char v[512];
    bool many = !s->target && (c->key.kind == MATCH_DRIVE || c->key.kind == MATCH_HBA);
    if (many) {
        bool drive = c->key.kind == MATCH_DRIVE;
        const char *field = drive ? c->key.field : hba_field (c->key.field);
        size_t i;
        json_t *e;
        json_array_foreach (json_object_get (s->inventory, drive ? "drives" : "controllers"), i, e)
            if (entry_value (e, field, v, sizeof v) && fnmatch (c->glob, v, 0) == 0)
                return true;
    }
    if (!match_value (&c->key, s, v, sizeof v))
        return false;   /* no value matches nothing, not even '*' */
    return fnmatch (c->glob, v, 0) == 0;
}

bool
match_all (const match_cond_t *conds, int n, const match_subject_t *s)
{
    for (int i = 0; i < n; i++)
        if (!match_one (&conds[i], s))
            return false;
    return true;
}

bool
match_needs_labels (const match_key_t *key)
{
    return key->kind == MATCH_LABEL;
}

bool
match_needs_health (const match_key_t *key)
{
    return key->kind == MATCH_HEALTH;
}

bool
match_needs_inventory (const match_key_t *key)
{
    return key->kind == MATCH_HOST || key->kind == MATCH_HBA || key->kind == MATCH_DRIVE
           || key->kind == MATCH_HOSTNAME;
}
