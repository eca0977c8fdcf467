/*  replay.h: an fio iolog read for replay (read_iolog=), as fio 3.33's
    iolog.c reads one.

    Versions 2 and 3 (version 1 is refused, as fio refuses it):
      fio version 2 iolog
      FILE add|open|close
      FILE read|write|trim|sync|datasync|wait OFFSET LENGTH
      fio version 3 iolog
      USEC FILE add|open|close
      USEC FILE read|write|trim|sync|datasync OFFSET LENGTH
    A version 3 line's USEC is when it was issued, in microseconds; replay
    waits the difference from the line before (agent/job.c, as fio's
    iolog_delay).  A version 2 "wait" is an absolute time in milliseconds
    since the job started (fio's code; its HOWTO says otherwise), and a
    version 3 "wait" is ignored, as fio ignores it.

    Where fio prints a message and skips a line it cannot read (or
    crashes, for a file never added), the whole log is refused with the
    line, the field and the limit: a replay that quietly drops I/Os would
    not be the recorded workload.
*/
#ifndef IOF_REPLAY_H
#define IOF_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#define REPLAY_FILES_MAX    256         /* files a log may name (a job's targets) */
#define REPLAY_ENTRIES_MAX  (4u << 20)  /* lines of I/O, file actions and waits */
#define REPLAY_NAME_MAX     256         /* fio's %256s */

typedef enum {
    REPLAY_READ = 0,                    /* the directions first, as io_dir_t */
    REPLAY_WRITE,
    REPLAY_TRIM,
    REPLAY_SYNC,
    REPLAY_DATASYNC,
    REPLAY_WAIT,                        /* version 2: until offset ms since the start */
    REPLAY_FILE,                        /* add, open or close: only its time counts */
} replay_kind_t;

typedef struct {
    uint64_t usec;                      /* version 3: when it was logged */
    uint64_t offset;
    uint32_t len;
    uint16_t file;                      /* index into files */
    uint8_t kind;                       /* replay_kind_t */
} replay_entry_t;

typedef struct {
    int version;                        /* 2 or 3 */
    char **files;                       /* the names the log adds, in order */
    int nfiles;
    replay_entry_t *entries;
    size_t n;
    uint32_t max_len[3];                /* per direction its largest I/O; 0 = none */
    uint32_t min_len[3];                /* per direction its smallest I/O */
} replay_log_t;

/* Reads the iolog at path.  Returns the log, or NULL with err naming the
   file, the line and what is wrong with it. */
replay_log_t *replay_load (const char *path, char *err, size_t errlen);

void replay_free (replay_log_t **self_p);

#endif
