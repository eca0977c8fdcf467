/*  sim_health.c: the health of simulated drives, see sim_health.h. */
#include "sim_health.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
sim_health_parse (const char *spec, sim_health_cfg_t *cfg, char *err, size_t errlen)
{
    memset (cfg, 0, sizeof *cfg);
    cfg->on = true;
    char buf[1024];
    if (strlen (spec) >= sizeof buf) {
        snprintf (err, errlen, "--health: longer than %zu characters", sizeof buf - 1);
        return -1;
    }
    str_copy (buf, sizeof buf, spec);
    char *save = NULL;
    for (char *part = strtok_r (buf, ",", &save); part; part = strtok_r (NULL, ",", &save)) {
        if (strcmp (part, "ok") == 0)
            continue;
        char kind[16];
        int agent, drive, used = 0;
        if (sscanf (part, "%15[a-z]:%d/%d%n", kind, &agent, &drive, &used) != 3
            || part[used] != '\0') {
            snprintf (err, errlen, "--health '%.64s': use ok, hot:AGENT/DRIVE or "
                      "erroring:AGENT/DRIVE (AGENT from 1 as in its name, DRIVE from 0)", part);
            return -1;
        }
        sim_health_kind_t k = strcmp (kind, "hot") == 0 ? SIM_HEALTH_HOT
                            : strcmp (kind, "erroring") == 0 ? SIM_HEALTH_ERRORING
                            : SIM_HEALTH_NONE;
        if (k == SIM_HEALTH_NONE) {
            snprintf (err, errlen, "--health '%.64s': '%s' is not a profile: use hot or erroring",
                      part, kind);
            return -1;
        }
        if (agent < 1 || drive < 0) {
            snprintf (err, errlen, "--health '%.64s': AGENT counts from 1, DRIVE from 0", part);
            return -1;
        }
        if (cfg->n == SIM_HEALTH_RULES_MAX) {
            snprintf (err, errlen, "--health: at most %d drives with a profile",
                      SIM_HEALTH_RULES_MAX);
            return -1;
        }
        cfg->rules[cfg->n].kind = k;
        cfg->rules[cfg->n].agent = agent;
        cfg->rules[cfg->n].drive = drive;
        cfg->n++;
    }
    return 0;
}

sim_health_kind_t
sim_health_kind (const sim_health_cfg_t *cfg, int agent, int drive)
{
    if (!cfg->on)
        return SIM_HEALTH_NONE;
    for (int i = 0; i < cfg->n; i++)
        if (cfg->rules[i].agent == agent && cfg->rules[i].drive == drive)
            return cfg->rules[i].kind;
    return SIM_HEALTH_OK;
}

/* The drive's idle temperature, the same every run (milli-degrees). */
static int32_t
idle_mc (int agent, int drive)
{
    uint64_t key = ((uint64_t) agent << 20) ^ (uint64_t) drive ^ 0x7e3fu;
    return SIM_HEALTH_IDLE_C * 1000 + (int32_t) (splitmix64 (&key) % 4001);
}

int32_t
sim_health_temp_mc (sim_health_kind_t k, int agent, int drive, double f)
{
    int32_t idle = idle_mc (agent, drive);
    if (k != SIM_HEALTH_HOT)
        return idle;
    /* Linear to SIM_HEALTH_HOT_C at the middle of the step, held there. */
    double share = f >= 0.5 ? 1.0 : f < 0 ? 0 : f / 0.5;
    return idle + (int32_t) ((SIM_HEALTH_HOT_C * 1000 - idle) * share);
}

double
sim_health_iops_share (sim_health_kind_t k, int agent, int drive, double f)
{
    return sim_health_temp_mc (k, agent, drive, f) >= SIM_HEALTH_THROTTLE_C * 1000
           ? SIM_HEALTH_THROTTLE_SHARE : 1.0;
}

void
sim_health_interval (sim_health_kind_t k, int agent, int drive, double f, uint64_t dur_ns,
                     sim_drive_health_t *d)
{
    int32_t mc = sim_health_temp_mc (k, agent, drive, f);
    bool throttled = mc >= SIM_HEALTH_THROTTLE_C * 1000;
    if (throttled && !d->throttled)
        d->throttle_transitions++;
    if (throttled)
        d->throttle_ns += dur_ns;
    d->throttled = throttled;
    if (mc >= SIM_HEALTH_WARNING_C * 1000)
        d->warning_ns += dur_ns;
}

void
sim_health_step_end (sim_health_kind_t k, uint64_t read, uint64_t written, sim_drive_health_t *d)
{
    d->host_read += read;
    d->host_written += written;
    d->nand_written += (uint64_t) ((double) written * SIM_HEALTH_WAF + 0.5);
    if (k == SIM_HEALTH_ERRORING)
        d->media_errors += SIM_HEALTH_MEDIA_ERRORS;
}

void
sim_health_record (sim_health_kind_t k, int agent, int drive, double f,
                   const sim_drive_health_t *d, health_t *h)
{
    if (k == SIM_HEALTH_NONE) {
        health_unavailable (h, "simulated drive: no --health profile");
        return;
    }
    health_init (h, "simulated", "nvme");
    int32_t mc = sim_health_temp_mc (k, agent, drive, f);
    health_set (h, HF_TEMPERATURE_C, (mc + 500) / 1000);
    health_set (h, HF_WARNING_TEMP_C, SIM_HEALTH_WARNING_C);
    health_set (h, HF_CRITICAL_TEMP_C, SIM_HEALTH_CRITICAL_C);
    /* Bit 1: a temperature is above its threshold now. */
    health_set (h, HF_CRITICAL_WARNING, mc >= SIM_HEALTH_WARNING_C * 1000 ? 0x02 : 0);
    health_set (h, HF_AVAILABLE_SPARE_PCT, 100);
    health_set (h, HF_SPARE_THRESHOLD_PCT, 10);
    health_set (h, HF_PERCENTAGE_USED, 2);
    health_set (h, HF_MEDIA_ERRORS, (int64_t) d->media_errors);
    health_set (h, HF_ERROR_LOG_ENTRIES, (int64_t) d->media_errors);
    health_set (h, HF_HOST_BYTES_READ, (int64_t) d->host_read);
    health_set (h, HF_HOST_BYTES_WRITTEN, (int64_t) d->host_written);
    health_set (h, HF_NAND_BYTES_WRITTEN, (int64_t) d->nand_written);
    health_set (h, HF_POWER_ON_HOURS, 1000 + agent);
    health_set (h, HF_UNSAFE_SHUTDOWNS, 3);
    health_set (h, HF_WARNING_TEMP_MINUTES, (int64_t) (d->warning_ns / (60 * NS_PER_SEC)));
    health_set (h, HF_THROTTLE1_TRANSITIONS, (int64_t) d->throttle_transitions);
    health_set (h, HF_THROTTLE2_TRANSITIONS, 0);
    health_set (h, HF_THROTTLE1_SECONDS, (int64_t) (d->throttle_ns / NS_PER_SEC));
    health_set (h, HF_THROTTLE2_SECONDS, 0);
}
