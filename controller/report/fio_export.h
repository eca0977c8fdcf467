/*  fio_export.h: a run in fio's JSON output format. */
#ifndef IOF_FIO_EXPORT_H
#define IOF_FIO_EXPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "store.h"

/* The run in fio's JSON (json+ with bins when plus): one job entry per
   step and agent, "hostname" = the agent's name; where and where_flag as
   for report_json.  NULL with err filled (as report_json's, and a run
   whose intervals gc removed). */
json_t *fio_export_json (store_t *store, int64_t run, bool plus, json_t *where,
                         const char *where_flag, char *err, size_t errlen);

#endif
