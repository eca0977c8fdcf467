/*  parse_err.h: EXPECT_PARSE_ERR, for the unit tests of the [iofleet]
    settings (test_precondition.c, test_purge.c, test_rounds.c): text is
    refused by the job-file parser with exactly the message want. */
#ifndef IOF_PARSE_ERR_H
#define IOF_PARSE_ERR_H

#include "jobfile.h"
#include "testutil.h"

#include <string.h>

#define EXPECT_PARSE_ERR(text, want) do {                                    \
        char e_[512] = "";                                                  \
        jobfile_t *j_ = jobfile_parse ("t.fio", (text), e_, sizeof e_);     \
        CHECK_MSG (!j_ && strcmp (e_, (want)) == 0, "got: %s", e_);         \
        jobfile_destroy (&j_);                                              \
    } while (0)

#endif
