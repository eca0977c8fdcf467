/*  runner.h: the run in hand, as the files of the run state machine
    share it: steps.c (the steps' transitions), ingest.c (snapshots
    stored), acks.c (acknowledgements after the commit), recover.c (resume
    after a restart), cancel.c, status.c.  The other modules use
    controller.h.

    One run at a time; its plan's job groups are steps, and each selected
    agent has a part (part_t) in the step in hand.  runner.c keeps the
    rows that record them (runs, steps, step_agents, written through
    store/runs.c and store/step_rows.c: run/ holds no SQL) and announces a
    run's end to its subscribers.
*/
#ifndef IOF_RUNSTATE_H
#define IOF_RUNSTATE_H

#include "controller.h"
#include "finalizer.h"
#include "snapshot_prep.h"
#include "fleet.h"
#include "series.h"
#include "store.h"

/* The run state machine: this header is its shared state, each file below
   one concern of it.  Nothing here calls the scheduler: it subscribes to
   the run-end event (runner_on_end). */

runner_t *runner_new (ctl_t *ctl);
void runner_destroy (runner_t **self_p);
/* A run ended (status: complete, partial, failed or cancelled), in the
   transaction that records it. */
typedef void (runner_end_fn) (void *arg, int64_t run, const char *status);
#define RUNNER_END_MAX 4
/* Calls fn at every run's end, after those subscribed before it.  At most
   RUNNER_END_MAX subscribers (asserted). */
void runner_on_end (runner_t *self, runner_end_fn *fn, void *arg);
/* True while the agent is preparing a step: it may be laying out a large
   file, and is allowed to stay silent up to --prepare-timeout. */
bool runner_agent_preparing (ctl_t *ctl, uint64_t agent_id);


#define STEP_GRACE_NS         (60 * NS_PER_SEC)   /* past the planned end */

typedef enum {
    P_PREPARING, P_READY, P_REFUSED, P_RUNNING, P_DONE_WAIT, P_DONE, P_FAILED, P_LOST,
    P_CANCELLED, P_NSTATES
} pstate_t;

/* A state's name, as step_agents.status stores it. */
extern const char *const runner_pstate_names[P_NSTATES];

typedef struct {
    uint64_t agent_id;
    char name[MSG_NAME_MAX + 1];
    pstate_t st;
    char msg[MSG_TEXT_MAX + 1];
    uint32_t ntargets;
    uint64_t actual_start;
    int64_t clock_offset;               /* at START; see 003_clock.sql */
    uint64_t clock_delay;
    bool clock_known;
    uint32_t done_snapshots;
    uint64_t done_ops, done_bytes;
    uint64_t done_at;                   /* monotonic */
    bool started;                       /* was sent START for this step */
    int revived;                        /* times it came back after being lost */
    bool asked;                         /* DONE_WAIT: asked to resend (contig then) */
    uint32_t asked_contig;
    uint64_t lost_since;                /* lost while running: its last message
                                           (monotonic), and the first interval */
    int64_t lost_from;                  /* not in hand then (step_gaps 'lost') */
    bool restarted;                     /* its process restarted during the step */
    bool waited_out;                    /* DONE_WAIT ran out: msg says so */
    bool totals_unknown;                /* resumed done: DONE's totals not kept */
    uint32_t spool_dropped;             /* its spool overflowed: never coming */
    uint32_t contig;                    /* seqs 0..contig-1 are stored */
    uint64_t stored_ops, stored_bytes;  /* summed at the step's end */
    uint8_t *seen;
    size_t nseen;
    /* Per target of the step in hand (ntargets): the bytes READY planned
       for a size-bound step (0: unknown), and the bytes its snapshots
       moved so far, for the per-drive progress (status.c).  NULL until
       READY, and after a restart. */
    uint64_t *planned, *moved;
    int steps_done;
} part_t;

/* R_RECOVER: after a controller restart, waiting for the run's agents to
   come back before the step in hand goes on (see recover_run).
   R_RESULTS: the step in hand has ended and its results are being made
   by the finalizer's thread; the loop goes on meanwhile, and the step's
   end is recorded when they are stored (its status stays 'running'
   until then, so a restart makes them again). */
typedef enum { R_IDLE, R_PREPARING, R_RUNNING, R_RECOVER, R_RESULTS } phase_t;

/* An acknowledgement waits for the commit that stores what it covers. */
typedef struct {
    uint64_t agent_id;
    int64_t run;
    uint32_t step, upto;                /* seqs < upto stored; UINT32_MAX: all */
    uint32_t *seqs;                     /* and these, past a gap */
    size_t nseqs, capseqs;              /* the buffer outlives the tick */
    bool resend;                        /* and: send the rest now (Ack.resend) */
} ack_t;

/* A snapshot marked stored in this tick, unmarked if the commit fails. */
typedef struct {
    uint64_t agent_id;
    int64_t run;
    int step;
    uint32_t seq;
    uint32_t rows;                      /* targets stored */
    uint64_t t_end;                     /* its interval's end, controller clock */
} mark_t;

struct runner {
    phase_t phase;
    ack_t *acks;                        /* this tick's, sent after its commit */
    size_t nacks, capacks;
    mark_t *marks;
    size_t nmarks, capmarks;
    uint64_t failures_seen;             /* store_failures at the last commit */
    bool held;                          /* the database cannot be written */
    uint64_t held_since;                /* monotonic */
    uint64_t probe_at;
    snapshot_prep_t prep;               /* a snapshot prepared on the loop (ingest.c) */
    uint64_t lost_scan_at;              /* the last walk for lost agents (FLEET_SCAN_NS) */
    uint64_t unstored, unstored_logged_at;  /* snapshots a failed commit lost */
    int64_t run;
    char plan_name[128];
    jobfile_t *plan;
    int cur;
    part_t *parts;
    int nparts;
    uint64_t deadline;                  /* monotonic, 0 = none */
    uint64_t start_at;                  /* controller clock */
    int steps_complete, steps_partial;
    int nsteps;                         /* the run's steps rows so far: a round's
                                           are added when it begins */
    int ngroups;                        /* the plan's job groups (jobfile_group) */
    int npre;                           /* of them the purge's and the
                                           precondition's (0, 1 or 2) */
    int round_steps;                    /* the rest, run as one round */
    int max_rounds;                     /* plan->rounds, or 1 */
    int tracked;                        /* steady_state='s group, or -1 */
    int first[JOB_MAX_STEPS + 1];       /* first job of each step */
    int job_ntargets[MSG_JOBS_MAX];     /* of the step in hand, per job */
    int min_agents;
    bool require_all;
    bool policy_failed;
    char policy_msg[256];
    bool recover_running;               /* R_RECOVER: the step was running */
    char resumed[96];                   /* "resumed at step N/M after a controller restart",
                                           said in the run's final message; or "" */
    series_t *series;                   /* the step's fleet time series */
    finalizer_t *finalizer;             /* makes a step's results off the loop */
    phase_t results_from;               /* R_RESULTS: the phase the step ended in */
    uint64_t results_retry_at;          /* monotonic: results failed, tried again then */
    store_t *store;                     /* for the commit hook */
    struct {
        runner_end_fn *fn;
        void *arg;
    } ends[RUNNER_END_MAX];             /* run-end subscribers (runner_on_end) */
    int nends;
};

/* run.c */
/* R_RESULTS: waits for the step's results and records the step's end
   (the next step begins, or the run ends), as the tick would once they
   are in.  Can't fail: results that could not be stored are made again
   later (the step stays in hand). */
void steps_results_wait (ctl_t *ctl);

/* runstate.c */
/* The part of agent_id in the run in hand, or NULL. */
part_t *runner_find_part (runner_t *r, uint64_t agent_id);
/* The plan's steps as the run goes through them: its job groups
   (ngroups, first[]), the purge's and precondition's (npre), the rest as
   rounds (plan->rounds, rounds.h) of round_steps each: the run's step i
   is group runner_group(i) in round runner_round(i) (1.., 0 when the plan has
   no rounds= or i is the precondition).  Can't fail. */
void runner_plan_steps (runner_t *r);
int runner_group (const runner_t *r, int i);
int runner_round (const runner_t *r, int i);
/* The plan job that starts step i.  Can't fail. */
int runner_step_first (const runner_t *r, int i);
/* The first job of step i (its options stand for the step's in logs and
   in the report's "job"), its number of jobs, its name ("a" or "a+b+c"
   for jobs that run together, in buf), and how long it should take (its
   longest job; 0 when a job is bounded by size only).  Can't fail. */
const job_t *runner_step_job (const runner_t *r, int i);
int runner_step_njobs (const runner_t *r, int i);
const char *runner_step_name (const runner_t *r, int i, char *buf, size_t cap);
uint64_t runner_step_planned_ns (const runner_t *r, int i);
/* Records run's status and message (and its start or end time); an end
   (complete, partial, failed, cancelled) goes to the run-end subscribers.
   Can't fail: a database error is the store's to count. */
void runner_set_status (ctl_t *ctl, int64_t run, const char *status, const char *message);
/* Records p's state in step_agents (targets_json: its targets, or NULL
   to keep them).  Can't fail (the store counts errors). */
void runner_save_agent (ctl_t *ctl, const part_t *p, const char *targets_json);
/* The latency_target depths of DONE d, and the drives of READY ready, of
   p in the step in hand.  Can't fail (bad entries are counted). */
void runner_save_latency_depths (ctl_t *ctl, const part_t *p, const Iofleet__Done *d);
void runner_save_target_drives (ctl_t *ctl, const part_t *p, const Iofleet__Ready *ready);
/* Stores what each of p's targets is to move (its planned bytes, from
   READY; step_agents.target_planned), when any is: a restarted
   controller's per-drive progress (recover.c).  Can't fail (a database
   error is logged). */
void runner_save_planned (ctl_t *ctl, const part_t *p);
/* Records the step in hand's status.  Can't fail. */
void runner_set_step (ctl_t *ctl, const char *status);
/* Loads run's plan, policy and agents into the runner.  Returns 0, or -1
   having marked the run failed. */
int runner_load (ctl_t *ctl, int64_t run);
/* Ends the run in hand with the status its steps earned.  Can't fail. */
void runner_finish (ctl_t *ctl);
/* Makes p->seen hold seq (zeroed beyond what it held).  Returns 0, or -1
   when out of memory (then seq is not held). */
int runner_seen_room (part_t *p, uint32_t seq);
/* Forgets the run in hand: the runner is idle.  Can't fail. */
void runner_clear (runner_t *r);
/* Tells the agent to drop the run in hand (ABORT: a layout, the workers),
   why being the reason it logs.  Returns 0, or -1 when it is not
   connected or the message could not be sent. */
int runner_abort (ctl_t *ctl, uint64_t agent_id, const char *why);

/* acks.c: an acknowledgement goes out once the tick's commit stored what
   it covers (acks_after_commit). */
/* Sends an ACK of run's step to peer now.  Can't fail (a lost one is
   sent again by the agent's resend). */
void acks_send (ctl_t *ctl, peer_t *peer, int64_t run, uint32_t step, uint32_t upto,
                uint32_t *seqs, size_t nseqs, bool resend);
/* Acknowledges p's snapshots with seq < upto (UINT32_MAX: all, DONE too)
   once this tick's commit has stored them.  Can't fail. */
void acks_queue (runner_t *r, const part_t *p, uint32_t upto);
/* The same, asking p to send every unacknowledged message of the step now
   rather than at its next backed-off resend (up to a minute after a long
   database failure).  Can't fail. */
void acks_queue_resend (runner_t *r, const part_t *p, uint32_t upto);
/* ... and seq on its own (stored past a gap, or refused for good).
   Can't fail: beyond MSG_ACK_SEQS_MAX a tick, the agent sends it again. */
void acks_queue_seq (runner_t *r, const part_t *p, uint32_t seq);
/* Remembers that snapshot s of p was marked stored in this tick.
   Returns 0, or -1 when out of memory (then it is not marked). */
int acks_note_mark (runner_t *r, const part_t *p, const Iofleet__Snapshot *s);

/* recover.c */
/* R_RECOVER: whether the step in hand goes on.  Returns true when it was
   preparing before the restart: its agents were told to drop it, and the
   caller prepares it again; false otherwise (the runner resumed running,
   or still waits).  Can't fail. */
bool recover_tick (ctl_t *ctl, uint64_t now);


#endif
