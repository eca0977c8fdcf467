/*  test_match.c: the one key language of --agents, --by, --where, --a/--b. */
#include "match.h"
#include "testutil.h"

static const char *s_inventory =
    "{\"host\": {\"hostname\": \"stor-07\", \"kernel\": \"6.1.0\", \"cpu_count\": 32},"
    " \"controllers\": [{\"pci_address\": \"0000:3b:00.0\", \"device\": \"SAS3816\","
    "                    \"firmware\": \"16.00.01\", \"driver\": \"mpt3sas\"},"
    "                   {\"pci_address\": \"0000:5e:00.0\", \"device\": \"NVMe ctl\","
    "                    \"firmware\": \"1.0\", \"driver\": \"nvme\"}],"
    " \"drives\": [{\"name\": \"sda\", \"model\": \"HGST X\", \"firmware\": \"A1\","
    "               \"transport\": \"sas\", \"controller\": \"0000:3b:00.0\", \"rotational\": true,"
    "               \"scheduler\": \"mq-deadline\"},"
    "              {\"name\": \"nvme0n1\", \"model\": \"PM1733\", \"firmware\": \"B2\","
    "               \"transport\": \"nvme\", \"controller\": \"0000:5e:00.0\", \"rotational\": false}]}";

static bool
holds (const char *flag, const char *conds, const match_subject_t *s)
{
    match_cond_t c[MATCH_CONDS_MAX];
    int n = 0;
    char err[512];
    if (match_conds_parse (flag, conds, c, MATCH_CONDS_MAX, &n, err, sizeof err)) {
        fprintf (stderr, "unexpected: %s\n", err);
        return false;
    }
    return match_all (c, n, s);
}

int
main (void)
{
    char err[1024], v[256];
    const char *errp = err;
    match_key_t k;
    match_cond_t c[MATCH_CONDS_MAX];
    int n = 0;

    /* Every flag parses the same keys and says the same about a bad one. */
    static const char *flags[] = { "--agents", "--by", "--where", "--a" };
    char first[1024] = "";
    for (int i = 0; i < 4; i++) {
        CHECK (match_key_parse (flags[i], "drive.foo", &k, err, sizeof err) == -1);
        CHECK (strncmp (err, flags[i], strlen (flags[i])) == 0);
        const char *rest = err + strlen (flags[i]);
        CHECK_STR_CONTAINS (rest, ": unknown key 'drive.foo': keys are agent, host");
        CHECK_STR_CONTAINS (rest, "drive fields are model, firmware, transport");
        if (!first[0])
            snprintf (first, sizeof first, "%s", rest);
        CHECK_MSG (strcmp (first, rest) == 0, "'%s' vs '%s'", first, rest);
    }
    CHECK (match_key_parse ("--by", "foo.bar", &k, err, sizeof err) == -1);
    CHECK_STR_CONTAINS (errp, "--by: unknown key 'foo.bar'");
    CHECK (match_key_parse ("--by", "hba.nope", &k, err, sizeof err) == -1);
    CHECK_STR_CONTAINS (errp, "hba fields are model, firmware");
    CHECK (match_key_parse ("--by", "label.", &k, err, sizeof err) == -1);
    CHECK (match_key_parse ("--by", "", &k, err, sizeof err) == -1);
    const char *good[] = { "agent", "host", "transport", "drive.transport", "drive.model",
                           "hba.model", "hba.firmware", "host.kernel", "label.rack", "rack",
                           "run.fw", "label.bay.slot" };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        CHECK_MSG (match_key_parse ("--where", good[i], &k, err, sizeof err) == 0, "%s: %s",
                   good[i], err);
    CHECK (match_conds_parse ("--where", "drive.model", c, MATCH_CONDS_MAX, &n, err, sizeof err)
           == -1);
    CHECK_STR_CONTAINS (errp, "--where 'drive.model': want KEY=GLOB");
    n = 0;
    CHECK (match_conds_parse ("--agents", "rack=r12,drive.transport=nvme", c, MATCH_CONDS_MAX, &n,
                              err, sizeof err) == 0 && n == 2);
    CHECK (c[0].key.kind == MATCH_LABEL && strcmp (c[0].key.field, "rack") == 0);
    CHECK (c[1].key.kind == MATCH_DRIVE && strcmp (c[1].glob, "nvme") == 0);

    json_t *inv = json_loads (s_inventory, 0, NULL);
    json_t *labels = json_pack ("{s:s}", "rack", "r12");
    json_t *runl = json_pack ("{s:s}", "fw", "A");
    json_t *sda = json_pack ("{s:s, s:s}", "name", "sda", "model", "HGST X");

    /* An agent as a whole (--agents): any of its drives and controllers. */
    match_subject_t agent = { .agent = "a1", .labels = labels, .inventory = inv };
    CHECK (holds ("--agents", "drive.transport=nvme", &agent));
    CHECK (holds ("--agents", "transport=sas", &agent));
    CHECK (holds ("--agents", "hba.firmware=16.*,rack=r12", &agent));
    CHECK (holds ("--agents", "hba.model=SAS*", &agent));
    CHECK (!holds ("--agents", "drive.transport=sata", &agent));
    CHECK (holds ("--agents", "host=stor-*,host.cpu_count=32,agent=a1", &agent));
    CHECK (!holds ("--agents", "label.rack=r13", &agent));
    /* No run labels: run.KEY matches nothing, not even '*'. */
    CHECK (!holds ("--agents", "run.fw=*", &agent));

    /* One target (--where, --by): its drive, that drive's controller. */
    match_subject_t t = { .agent = "a1", .labels = labels, .inventory = inv, .target = true,
                          .drive = sda, .run_labels = runl };
    CHECK (holds ("--where", "drive.transport=sas", &t));   /* from the inventory's sda */
    CHECK (!holds ("--where", "drive.transport=nvme", &t));
    CHECK (holds ("--where", "hba.firmware=16.00.01,hba.driver=mpt3sas", &t));
    CHECK (holds ("--where", "drive.rotational=true", &t));
    CHECK (holds ("--where", "run.fw=A,label.rack=r1*", &t));
    CHECK (match_key_parse ("--by", "hba.model", &k, err, sizeof err) == 0);
    CHECK (match_value (&k, &t, v, sizeof v) && strcmp (v, "SAS3816") == 0);
    CHECK (match_key_parse ("--by", "label.bay", &k, err, sizeof err) == 0);
    CHECK (!match_value (&k, &t, v, sizeof v) && strcmp (v, "unknown") == 0);
    CHECK (!holds ("--where", "label.bay=*", &t));

    /* A file target: no drive; an import's run labels answer for keys. */
    json_t *imp = json_pack ("{s:s}", "drive.firmware", "1.2");
    match_subject_t file = { .agent = "fio:h", .target = true, .run_labels = imp };
    CHECK (match_key_parse ("--by", "drive.firmware", &k, err, sizeof err) == 0);
    CHECK (match_value (&k, &file, v, sizeof v) && strcmp (v, "1.2") == 0);
    CHECK (!holds ("--where", "transport=*", &file));
    CHECK (holds ("--where", "agent=fio:*", &file));

    /* health.FIELD: the target's record before the step, in buckets; an
       unavailable record, a field it lacks, and an agent as a whole have
       none. */
    json_t *rec = json_pack ("{s:b, s:s, s:i, s:i, s:i}", "available", 1, "source", "nvme-ioctl",
                             "temperature_c", 43, "percentage_used", 17, "media_errors", 250);
    match_subject_t hot = t;
    hot.health = rec;
    CHECK (match_key_parse ("--by", "health.temperature_c", &k, err, sizeof err) == 0);
    CHECK (match_value (&k, &hot, v, sizeof v) && strcmp (v, "40-44 C") == 0);
    CHECK (match_key_parse ("--by", "health.percentage_used", &k, err, sizeof err) == 0);
    CHECK (match_value (&k, &hot, v, sizeof v) && strcmp (v, "10-19%") == 0);
    CHECK (match_key_parse ("--by", "health.media_errors", &k, err, sizeof err) == 0);
    CHECK (match_value (&k, &hot, v, sizeof v) && strcmp (v, "100-999") == 0);
    CHECK (holds ("--where", "health.media_errors=100-999", &hot));
    CHECK (match_key_parse ("--by", "health.grown_defects", &k, err, sizeof err) == 0);
    CHECK (!match_value (&k, &hot, v, sizeof v) && strcmp (v, "unknown") == 0);
    CHECK (!match_value (&k, &t, v, sizeof v));                 /* no record */
    match_subject_t whole = agent;
    whole.health = rec;
    CHECK (match_key_parse ("--by", "health.temperature_c", &k, err, sizeof err) == 0);
    CHECK (!match_value (&k, &whole, v, sizeof v));             /* an agent, not a drive */
    json_t *un = json_pack ("{s:b, s:s}", "available", 0, "reason", "loop device");
    hot.health = un;
    CHECK (!match_value (&k, &hot, v, sizeof v));
    CHECK (match_key_parse ("--by", "health.nope", &k, err, sizeof err) == -1);
    CHECK (strstr (err, "unknown key 'health.nope': health fields are temperature_c,") != NULL);
    json_decref (un);
    json_decref (rec);

    json_decref (imp);
    json_decref (sda);
    json_decref (runl);
    json_decref (labels);
    json_decref (inv);
    return TEST_DONE ();
}
