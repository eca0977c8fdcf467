/*  match.h: the one key language of iofleet's selectors and groupings:
    run --agents, report/history/compare --by, --where, compare --a/--b
    and schedule --agents all parse and match keys here.

      agent            the agent's name
      host             its hostname; host.FIELD a field of its inventory's
                       host (hostname, kernel, os_release, cpu_model, ...)
      transport        the same as drive.transport
      drive.FIELD      the target's drive (model, firmware, transport,
                       serial, vendor, ...); for an agent, any of its drives
      hba.FIELD        the storage controller of the target's drive (model,
                       firmware, driver, driver_version, vendor, ...); for
                       an agent, any of its controllers
      label.KEY        the agent's label KEY; a bare KEY (rack=r12) is the
                       same
      run.KEY          the run's label KEY (runs.labels: iofleet run
                       --label, iofleet import --label); a run without it
                       matches nothing
      health.FIELD     a field of the target's drive health record from
                       before the step (common/health.h), in buckets
                       (health_bucket: "40-44 C", "0-9%", "10-99"); a
                       drive without it, and an agent as a whole, has
                       none

    A condition is KEY=GLOB (fnmatch); a list of them "K=G,K=G" must all
    hold.  Errors name the flag they came from ("--where: unknown key
    'drive.foo': keys are ...").
*/
#ifndef IOF_MATCH_H
#define IOF_MATCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define MATCH_KEY_MAX  128
#define MATCH_GLOB_MAX 256
#define MATCH_CONDS_MAX 32

typedef enum {
    MATCH_AGENT,        /* agent */
    MATCH_HOSTNAME,     /* host */
    MATCH_HOST,         /* host.FIELD */
    MATCH_DRIVE,        /* drive.FIELD, transport */
    MATCH_HBA,          /* hba.FIELD */
    MATCH_LABEL,        /* label.KEY or a bare KEY */
    MATCH_RUN,          /* run.KEY */
    MATCH_HEALTH,       /* health.FIELD */
} match_kind_t;

typedef struct {
    match_kind_t kind;
    char text[MATCH_KEY_MAX];   /* as written: "transport", "label.rack", "rack" */
    char field[MATCH_KEY_MAX];  /* inventory field, label or run label name */
} match_key_t;

typedef struct {
    match_key_t key;
    char glob[MATCH_GLOB_MAX];
} match_cond_t;

/* What keys are read from: one target of an agent (target true; drive the
   target's drive, NULL for a file), or an agent as a whole (target false:
   drive.* and hba.* match any of its drives and controllers).  Any member
   may be NULL where unknown. */
typedef struct {
    const char *agent;
    const char *hostname;       /* NULL: the inventory's host.hostname */
    json_t *labels;             /* the agent's labels {KEY: VALUE} */
    json_t *inventory;          /* {"host", "controllers", "drives"} */
    bool target;
    json_t *drive;              /* the target's drive (its "name" finds the
                                   rest of it in inventory) */
    json_t *run_labels;         /* the run's labels {KEY: VALUE} */
    json_t *health;             /* the target's health record before the step
                                   (health.h's JSON), NULL: none */
} match_subject_t;

/* Parses a key.  flag names the option it came from ("--by") for err.
   Returns 0, or -1 with err naming the flag, the key and the keys there
   are. */
int match_key_parse (const char *flag, const char *text, match_key_t *key, char *err,
                     size_t errlen);

/* Parses "KEY=GLOB[,KEY=GLOB...]" into conds[*n..max) (*n advanced).
   Returns 0, or -1 with err naming the flag and the condition. */
int match_conds_parse (const char *flag, const char *text, match_cond_t *conds, int max, int *n,
                       char *err, size_t errlen);

/* The value of key for s (the first drive or controller with one, for an
   agent), into out; "unknown" when it has none.  Returns true when known.
   Can't fail. */
bool match_value (const match_key_t *key, const match_subject_t *s, char *out, size_t cap);

/* Does s satisfy every one of conds[0..n)?  Can't fail. */
bool match_all (const match_cond_t *conds, int n, const match_subject_t *s);

/* Does the key read the agent's labels, inventory, or the run's labels?
   (a caller loads only what is needed).  Can't fail. */
bool match_needs_labels (const match_key_t *key);
bool match_needs_inventory (const match_key_t *key);
bool match_needs_health (const match_key_t *key);

#endif
