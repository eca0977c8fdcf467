/*  import.h: fio's JSON output, checked before import.c stores it.  The
    checks live apart from the storing so that a fuzzer can drive them
    without a database (tests/fuzz). */
#ifndef IOF_IMPORT_CHECK_H
#define IOF_IMPORT_CHECK_H

#include "controller.h"
#include "histogram.h"
#include "snapshot_store.h"

#define IMPORT_ENTRIES_MAX 4096
#define IMPORT_LABELS_MAX  32
#define IMPORT_BINS_MAX    100000

/* One job entry of the document, as it will be stored. */
typedef struct {
    const char *field;          /* "jobs" or "client_stats" */
    size_t index;               /* in that array */
    json_t *entry;
    int step;
    char agent[MSG_NAME_MAX + 1];
    char host[MSG_NAME_MAX + 1];
    char target[MSG_PATH_MAX + 1];
} entry_t;

/* An option of an entry as text: its "job options", else the document's
   "global options"; NULL when neither has it. */
const char *import_check_option (json_t *fio, json_t *entry, const char *key);

/* Does entry (a job of fio's document) have direction d to import?  Reads
   and writes always (absent: zeros), trims when fio counted some
   (total_ios > 0; fio writes an all-zero "trim" for every job), by the
   rule of dir_reported.  Can't fail. */
bool import_check_has_direction (json_t *entry, int d);

/* Checks one direction (d: "read"/"write"/"trim" object, may be NULL) of entry e;
   fills h[] from json+ bins when present and returns in *pct fio's
   percentiles ({"p99": ns, ...}, new reference, or NULL).  Returns 0, or
   -1 with err naming the entry and field. */
int import_check_direction (json_t *d, const entry_t *e, const char *dir, histogram_t h[LK_N],
                      json_t **pct, char *err, size_t errlen);

/* Checks the request (host, labels) and the document fio; fills
   e[0..*n) (room for IMPORT_ENTRIES_MAX) and steps (a JSON array, the job
   names in order).  Returns 0, or -1 with err naming the field. */
int import_check (json_t *req, json_t *fio, entry_t *e, int *n, json_t *steps, char *err,
                  size_t errlen);




/* Agent names of imported results are IMPORT_AGENT_PREFIX + fio's host. */
#define IMPORT_AGENT_PREFIX "fio:"

#endif
