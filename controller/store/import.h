/*  import.h: fio's JSON output stored as a complete run.  */
#ifndef IOF_IMPORT_H
#define IOF_IMPORT_H

#include "controller.h"

/* Stores fio's JSON output (req "fio": the parsed document; "source",
   "plan", "host", "labels") as a complete run.  Returns {"run", ...}, or
   NULL with err naming the entry and field that is wrong. */
json_t *import_fio (ctl_t *ctl, json_t *req, char *err, size_t errlen);

#endif
