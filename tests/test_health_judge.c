/*  test_health_judge.c: what a step did to a drive (health_judge.h), the
    health rules of plans (health_rule.h), and the simulated drives' health
    (sim_health.h) that the e2e tests lean on. */
#include "health_judge.h"
#include "health_rule.h"
#include "sim_health.h"
#include "testutil.h"

#include <math.h>

/* A healthy NVMe record with the counters given. */
static void
nvme (health_t *h, int temp, int64_t media, int64_t thm1, int64_t host_w, int64_t nand_w,
      int warn_bits)
{
    health_init (h, "nvme-ioctl", "nvme");
    health_set (h, HF_TEMPERATURE_C, temp);
    health_set (h, HF_WARNING_TEMP_C, 70);
    health_set (h, HF_CRITICAL_WARNING, warn_bits);
    health_set (h, HF_MEDIA_ERRORS, media);
    health_set (h, HF_ERROR_LOG_ENTRIES, media);
    health_set (h, HF_THROTTLE1_TRANSITIONS, thm1);
    health_set (h, HF_THROTTLE2_TRANSITIONS, 0);
    health_set (h, HF_HOST_BYTES_WRITTEN, host_w);
    health_set (h, HF_NAND_BYTES_WRITTEN, nand_w);
}

/* The readings temps_mc[i] over spans[i] where has[i], summed against
   the records' threshold, as a report sums a drive's. */
static const health_temps_t *
sum_temps (const health_t *b, const health_t *a, const int32_t *temps_mc, const bool *has,
           const uint64_t *spans, int n)
{
    static health_temps_t t;
    memset (&t, 0, sizeof t);
    int64_t warn = health_warning_c (b && b->available ? b : NULL, a && a->available ? a : NULL);
    for (int i = 0; i < n; i++)
        if (has[i])
            health_temps_add (&t, temps_mc[i], spans[i], warn);
    return &t;
}

static void
test_judge (void)
{
    health_t b, a;
    health_judgement_t j;
    int32_t temps[6] = { 40000, 52000, 71000, 78400, 76000, 0 };
    bool has[6] = { true, true, true, true, true, false };
    uint64_t spans[6] = { 1000000000, 1000000000, 1000000000, 1000000000, 500000000, 1000000000 };

    /* Heated past its threshold, throttled 12 times, 3 new media errors,
       the temperature bit appeared, 1 GB written for 1.25 GB of NAND. */
    nvme (&b, 40, 7, 100, 1000000000, 3000000000, 0);
    nvme (&a, 77, 10, 112, 2000000000, 4250000000, 0x02);
    health_judge (&b, &a, sum_temps (&b, &a, temps, has, spans, 6), &j);
    CHECK (j.available);
    CHECK (j.nsamples == 5);
    CHECK (fabs (j.temp_max_c - 78.4) < 1e-9);
    CHECK (fabs (j.temp_mean_c - (40 + 52 + 71 + 78.4 + 76) / 5) < 1e-9);
    CHECK (j.warning_c == 70);
    CHECK (fabs (j.above_warning_s - 2.5) < 1e-9);      /* 71, 78.4 (1 s each), 76 (0.5 s) */
    CHECK (j.throttle_transitions == 12);
    CHECK (j.media_errors == 3 && j.error_log_entries == 3);
    CHECK (j.new_critical_bits == 0x02);
    CHECK (fabs (j.waf - 1.25) < 1e-12);
    CHECK (j.reallocated == -1 && j.grown_defects == -1);   /* NVMe: not counted, not 0 */
    CHECK (health_judge_hot (&j));
    char lines[8][160];
    int n = health_judge_findings (&j, lines, 8);
    CHECK (n == 4);
    CHECK (strcmp (lines[0], "hot: 78 C, 12 throttle transitions") == 0);
    CHECK (strcmp (lines[1], "3 new media errors") == 0);
    CHECK (strcmp (lines[2], "3 new error-log entries") == 0);
    CHECK (strcmp (lines[3], "critical warning appeared: temperature") == 0);
    json_t *o = health_judge_json (&j);
    CHECK (json_real_value (json_object_get (o, "waf")) == 1.25);
    CHECK (json_integer_value (json_object_get (o, "throttle_transitions")) == 12);
    CHECK (json_is_null (json_object_get (o, "reallocated_sectors_delta")));
    CHECK (json_array_size (json_object_get (o, "findings")) == 4);
    json_decref (o);

    /* Rules on it: each condition, and what it saw. */
    health_rule_t r;
    char err[256], why[160];
    CHECK (health_rule_parse ("no_new_media_errors,max_temp<70,waf<2,no_throttling,"
                              "no_new_critical_warnings,no_new_defects", &r, err, sizeof err) == 0);
    CHECK (r.n == 6);
    CHECK (health_rule_check (&r.c[0], &j, why, sizeof why) == 0);
    CHECK (strcmp (why, "3 new media errors") == 0);
    CHECK (health_rule_check (&r.c[1], &j, why, sizeof why) == 0);
    CHECK (strcmp (why, "reached 78.4 C") == 0);
    CHECK (health_rule_check (&r.c[2], &j, why, sizeof why) == 1);
    CHECK (health_rule_check (&r.c[3], &j, why, sizeof why) == 0);
    CHECK (health_rule_check (&r.c[4], &j, why, sizeof why) == 0);
    CHECK (strcmp (why, "critical warning bits 0x02 appeared") == 0);
    CHECK (health_rule_check (&r.c[5], &j, why, sizeof why) == -1);  /* NVMe counts no sectors */

    /* A quiet step: nothing found, every rule passes. */
    nvme (&b, 40, 7, 100, 1000000000, 3000000000, 0);
    nvme (&a, 43, 7, 100, 1000000000, 3000000000, 0);
    int32_t cool[2] = { 41000, 42000 };
    bool h2[2] = { true, true };
    health_judge (&b, &a, sum_temps (&b, &a, cool, h2, spans, 2), &j);
    CHECK (!health_judge_hot (&j));
    CHECK (health_judge_findings (&j, lines, 8) == 0);
    CHECK (j.above_warning_s == 0);
    CHECK (isnan (j.waf));                                   /* nothing written */
    for (int c = 0; c < 5; c++)
        CHECK (health_rule_check (&r.c[c], &j, why, sizeof why) == (c == 2 ? -1 : 1));

    /* Unavailable: the reason carried, the series still judged, nothing
       else known. */
    health_unavailable (&b, "loop device: the file behind it has no SMART");
    health_unavailable (&a, "loop device: the file behind it has no SMART");
    health_judge (&b, &a, sum_temps (&b, &a, cool, h2, spans, 2), &j);
    CHECK (!j.available);
    CHECK (strcmp (j.reason, "loop device: the file behind it has no SMART") == 0);
    CHECK (j.have_temp && j.temp_max_c == 42);
    CHECK (j.media_errors == -1 && j.throttle_transitions == -1 && j.new_critical_bits == -1);
    CHECK (health_rule_check (&r.c[0], &j, why, sizeof why) == -1);
    CHECK (health_rule_check (&r.c[1], &j, why, sizeof why) == 1);
    health_judge (NULL, NULL, NULL, &j);
    CHECK (!j.available && !j.have_temp && isnan (j.temp_max_c));
    CHECK (strstr (j.reason, "no health record before") != NULL);

    /* A record read before the step can be hotter than the step was (the
       last step left the drive warm): with a series, the series says. */
    nvme (&b, 90, 7, 100, 1, 1, 0);
    nvme (&a, 45, 7, 100, 1, 1, 0);
    health_judge (&b, &a, sum_temps (&b, &a, cool, h2, spans, 2), &j);
    CHECK (j.temp_max_c == 42 && !health_judge_hot (&j));
    health_judge (&b, &a, NULL, &j);                    /* no series: the records */
    CHECK (j.temp_max_c == 90 && health_judge_hot (&j));

    /* A SATA drive's coarse counters: no write amplification below
       HEALTH_WAF_ATA_MIN_BYTES written, one above. */
    health_init (&b, "smartctl", "ata");
    health_init (&a, "smartctl", "ata");
    health_set (&b, HF_HOST_BYTES_WRITTEN, 0);
    health_set (&b, HF_NAND_BYTES_WRITTEN, 0);
    health_set (&a, HF_HOST_BYTES_WRITTEN, 2ll << 30);
    health_set (&a, HF_NAND_BYTES_WRITTEN, 3ll << 30);
    health_judge (&b, &a, NULL, &j);
    CHECK (isnan (j.waf) && j.host_written == 2ll << 30);
    health_set (&a, HF_HOST_BYTES_WRITTEN, HEALTH_WAF_ATA_MIN_BYTES);
    health_set (&a, HF_NAND_BYTES_WRITTEN, HEALTH_WAF_ATA_MIN_BYTES / 2 * 3);
    health_judge (&b, &a, NULL, &j);
    CHECK (j.waf == 1.5);

    /* Counters near the top saturate, never wrap. */
    health_init (&b, "nvme-ioctl", "nvme");
    health_init (&a, "nvme-ioctl", "nvme");
    health_set (&b, HF_THROTTLE1_TRANSITIONS, 0);
    health_set (&b, HF_THROTTLE2_TRANSITIONS, 0);
    health_set (&a, HF_THROTTLE1_TRANSITIONS, INT64_MAX);
    health_set (&a, HF_THROTTLE2_TRANSITIONS, INT64_MAX);
    health_judge (&b, &a, NULL, &j);
    CHECK (j.throttle_transitions == INT64_MAX);
    char bucket[64];
    health_bucket (HF_MEDIA_ERRORS, INT64_MAX, bucket, sizeof bucket);
    CHECK (strcmp (bucket, "1000000000000000000-") == 0);
    health_bucket (HF_MEDIA_ERRORS, 0, bucket, sizeof bucket);
    CHECK (strcmp (bucket, "0") == 0);
    health_bucket (HF_MEDIA_ERRORS, 9, bucket, sizeof bucket);
    CHECK (strcmp (bucket, "1-9") == 0);
    health_bucket (HF_TEMPERATURE_C, 44, bucket, sizeof bucket);
    CHECK (strcmp (bucket, "40-44 C") == 0);

    /* A counter that went down (a drive swapped or reset) is unknown, not
       negative. */
    nvme (&b, 40, 9, 100, 1, 1, 0);
    nvme (&a, 40, 2, 100, 1, 1, 0);
    health_judge (&b, &a, NULL, &j);
    CHECK (j.media_errors == -1);
}

static void
test_rule_parse (void)
{
    health_rule_t r;
    char err[256];
    CHECK (health_rule_parse ("max_temp<70", &r, err, sizeof err) == 0 && r.n == 1
           && r.c[0].kind == HR_MAX_TEMP && r.c[0].limit == 70);
    CHECK (health_rule_parse ("waf<3.5", &r, err, sizeof err) == 0 && r.c[0].limit == 3.5);
    const char *bad[] = { "", "max_temp>70", "max_temp<", "max_temp<hot", "waf<0", "no_news",
                          "no_new_media_errors,", ",max_temp<70", "max_temp<70x",
                          "a,b,c,d,e,f,g,h,i" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        CHECK_MSG (health_rule_parse (bad[i], &r, err, sizeof err) == -1, "'%s'", bad[i]);
        CHECK (strstr (err, "health") != NULL);
    }
    health_rule_parse ("no_news", &r, err, sizeof err);
    CHECK (strstr (err, "'no_news' is not a condition") != NULL);
    CHECK (strstr (err, "no_new_media_errors") != NULL);
}

static void
test_sim (void)
{
    sim_health_cfg_t cfg;
    char err[256];
    CHECK (sim_health_parse ("hot:3/5,erroring:1/0", &cfg, err, sizeof err) == 0);
    CHECK (sim_health_kind (&cfg, 3, 5) == SIM_HEALTH_HOT);
    CHECK (sim_health_kind (&cfg, 1, 0) == SIM_HEALTH_ERRORING);
    CHECK (sim_health_kind (&cfg, 2, 5) == SIM_HEALTH_OK);
    CHECK (sim_health_parse ("ok", &cfg, err, sizeof err) == 0 && cfg.on && cfg.n == 0);
    CHECK (sim_health_parse ("warm:1/1", &cfg, err, sizeof err) == -1);
    CHECK (strstr (err, "'warm' is not a profile") != NULL);
    CHECK (sim_health_parse ("hot:0/1", &cfg, err, sizeof err) == -1);
    CHECK (sim_health_parse ("hot:1/1x", &cfg, err, sizeof err) == -1);
    sim_health_cfg_t off = { 0 };
    CHECK (sim_health_kind (&off, 1, 1) == SIM_HEALTH_NONE);

    /* A hot drive: idle at the start, SIM_HEALTH_HOT_C from the middle,
       throttled (and slower) where it is past SIM_HEALTH_THROTTLE_C. */
    int32_t t0 = sim_health_temp_mc (SIM_HEALTH_HOT, 3, 5, 0);
    CHECK (t0 >= SIM_HEALTH_IDLE_C * 1000 && t0 <= (SIM_HEALTH_IDLE_C + 4) * 1000);
    CHECK (sim_health_temp_mc (SIM_HEALTH_HOT, 3, 5, 0.5) == SIM_HEALTH_HOT_C * 1000);
    CHECK (sim_health_temp_mc (SIM_HEALTH_HOT, 3, 5, 1) == SIM_HEALTH_HOT_C * 1000);
    CHECK (sim_health_iops_share (SIM_HEALTH_HOT, 3, 5, 0.1) == 1.0);
    CHECK (sim_health_iops_share (SIM_HEALTH_HOT, 3, 5, 0.9) == SIM_HEALTH_THROTTLE_SHARE);
    CHECK (sim_health_iops_share (SIM_HEALTH_OK, 3, 5, 0.9) == 1.0);
    CHECK (sim_health_temp_mc (SIM_HEALTH_OK, 3, 5, 0.9) == t0);

    /* Ten 1 s intervals: the ones past the throttle point each count a
       transition and their time; the records judge it as the report will. */
    sim_drive_health_t d = { 0 };
    health_t b, a;
    sim_health_record (SIM_HEALTH_HOT, 3, 5, 0, &d, &b);
    int32_t temps[10];
    bool has[10];
    uint64_t spans[10];
    int throttled = 0;
    for (int k = 0; k < 10; k++) {
        sim_health_interval (SIM_HEALTH_HOT, 3, 5, (k + 0.5) / 10, 1000000000, &d);
        temps[k] = sim_health_temp_mc (SIM_HEALTH_HOT, 3, 5, (k + 0.5) / 10);
        has[k] = true;
        spans[k] = 1000000000;
        throttled += sim_health_iops_share (SIM_HEALTH_HOT, 3, 5, (k + 0.5) / 10) < 1;
    }
    /* One entry into throttling, held to the end: one transition, and
       the seconds of every throttled interval. */
    CHECK (throttled >= 5 && d.throttle_transitions == 1);
    CHECK (d.throttle_ns == (uint64_t) throttled * 1000000000);
    sim_health_step_end (SIM_HEALTH_HOT, 4096000, 8000000, &d);
    sim_health_record (SIM_HEALTH_HOT, 3, 5, 1, &d, &a);
    CHECK (strcmp (a.source, "simulated") == 0);
    health_judgement_t j;
    health_judge (&b, &a, sum_temps (&b, &a, temps, has, spans, 10), &j);
    CHECK (j.available && health_judge_hot (&j));
    CHECK (j.temp_max_c == SIM_HEALTH_HOT_C);
    CHECK (j.throttle_transitions == 1 && j.throttle_seconds == throttled);
    CHECK (fabs (j.waf - SIM_HEALTH_WAF) < 1e-9);
    CHECK (j.new_critical_bits == 0x02);
    CHECK (j.media_errors == 0);

    /* An erroring drive gains its media errors each step. */
    sim_drive_health_t e = { 0 };
    sim_health_record (SIM_HEALTH_ERRORING, 1, 0, 0, &e, &b);
    sim_health_step_end (SIM_HEALTH_ERRORING, 0, 4096, &e);
    sim_health_record (SIM_HEALTH_ERRORING, 1, 0, 1, &e, &a);
    health_judge (&b, &a, NULL, &j);
    CHECK (j.media_errors == SIM_HEALTH_MEDIA_ERRORS);
    CHECK (!health_judge_hot (&j));

    /* Without --health: unavailable, saying why. */
    sim_health_record (SIM_HEALTH_NONE, 1, 0, 0, &e, &b);
    CHECK (!b.available && strstr (b.reason, "--health") != NULL);
}

int
main (void)
{
    test_judge ();
    test_rule_parse ();
    test_sim ();
    return TEST_DONE ();
}
