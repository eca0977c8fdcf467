/*  local.h: iofleet-agent run JOBFILE: one host, no controller, fio's output. */
#ifndef IOF_LOCAL_H
#define IOF_LOCAL_H

/* argv[0] is "run".  Returns the process exit status: 0 when every job
   ran without error, 1 on an I/O or setup error, 2 on bad usage. */
int local_run (int argc, char **argv);

#endif
