/*  log.h: one-line logs to stderr: "TIME PROG LEVEL message", or under
    systemd, when stderr is the journal, "<PRIORITY>message" (journald adds
    the time and the program).  Daemons log here; the CLI prints its own
    errors. */
#ifndef IOF_LOG_H
#define IOF_LOG_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { LL_ERR = 0, LL_WARN, LL_INFO, LL_DEBUG } log_level_t;

/* Sets the program name and the most verbose level printed, and whether
   stderr is the journal.  Can't fail. */
void log_init (const char *prog, log_level_t level);


void log_msg (log_level_t level, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

#define log_err(...)   log_msg (LL_ERR, __VA_ARGS__)
#define log_warn(...)  log_msg (LL_WARN, __VA_ARGS__)
#define log_info(...)  log_msg (LL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg (LL_DEBUG, __VA_ARGS__)

/* Rate limit for noisy peers: returns true (log it) at most once per
   period_ns for the given last-logged timestamp, updating it.  Can't fail. */
bool log_ratelimit (uint64_t *last_ns, uint64_t period_ns);

#endif
