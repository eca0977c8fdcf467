/*  opt_run.h: the handlers of the options that say how a job runs, is
    named, checked and logged: times, steady state, randomness, verify,
    iologs and replay, service levels (see opt_run.c).
*/
#ifndef IOF_OPT_RUN_H
#define IOF_OPT_RUN_H

#include "option_table.h"

opt_apply_t opt_run_name;
opt_apply_t opt_run_sla;
opt_apply_t opt_run_exit_what;
opt_apply_t opt_run_runtime;
opt_apply_t opt_run_time_based;
opt_apply_t opt_run_ramp_time;
opt_apply_t opt_run_startdelay;
opt_apply_t opt_run_rate_cycle;
opt_apply_t opt_run_rate_process;
opt_apply_t opt_run_latency_percentile;
opt_apply_t opt_run_steadystate;
opt_apply_t opt_run_ss_dur;
opt_apply_t opt_run_ss_ramp;
opt_apply_t opt_run_randseed;
opt_apply_t opt_run_random_distribution;
opt_apply_t opt_run_random_generator;
opt_apply_t opt_run_percentiles;
opt_apply_t opt_run_log_avg;
opt_apply_t opt_run_verify;
opt_apply_t opt_run_verify_backlog;
opt_apply_t opt_run_write_iolog;
opt_apply_t opt_run_read_iolog;
opt_apply_t opt_run_replay_redirect;
opt_apply_t opt_run_replay_time_scale;
opt_apply_t opt_run_replay_align;
opt_apply_t opt_run_replay_scale;

#endif
