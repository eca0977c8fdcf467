/*  workload.h: the real agent's workload, driven by its link (link.h's
    ops): each PREPARE a step of jobs (step.c) on this host's targets,
    drive selectors expanded against its inventory, under its own target
    policy; each interval the workers publish goes out as a snapshot, then
    the step's DONE. */
#ifndef IOF_WORKLOAD_H
#define IOF_WORKLOAD_H

#include "link.h"
#include "targets.h"

typedef struct workload workload_t;

/* The ops a link drives a workload_t with. */
extern const link_ops_t workload_ops;

/* A workload under policy (copied; its hooks become the workload's, which
   serve the link during a layout), its inventory read under the three
   roots (kept by the caller).  NULL when out of memory. */
workload_t *workload_new (const target_policy_t *policy, const char *sysfs_root,
                          const char *procfs_root, const char *etc_root);

/* Stops the step in hand, if any, and frees.  Can't fail. */
void workload_destroy (workload_t **self_p);

#endif
