/*  admin.h: the CLI's endpoint (admin.c): a ROUTER socket the event loop
    owns, whose read-only commands run on reader threads (readers.h). */
#ifndef IOF_ADMIN_H
#define IOF_ADMIN_H

#include "controller.h"

typedef struct admin admin_t;

/* The endpoint of ctl->admin (a bound ROUTER), with nreaders reader
   threads on the database at db_path; testing: the tests' commands are
   allowed (--test-clock).  Returns NULL with err filled. */
admin_t *admin_new (ctl_t *ctl, const char *db_path, int nreaders, bool testing, char *err,
                    size_t errlen);
/* Stops the readers (after the request each has in hand); requests not
   answered yet are dropped. */
void admin_destroy (admin_t **self_p);

/* The answer to req, a command the readers answer (a read: runs,
   report, compare, history, plan_list, inventory, ...), on a thread whose
   ctl holds only its own read-only store (store_open_reader): the admin
   reply's text, {"ok":true,"result":RESULT} or {"ok":false,"error":...},
   never gzip'd, *len bytes; NULL only out of memory.  Any other command
   is refused (*failed, ok false): what calls it never writes. */
char *admin_read (ctl_t *ctl, json_t *req, size_t *len, bool *failed);
/* The same on the loop for a command that reads only the loop's memory
   (agents, stats, status, schedule_list): for the HTTP pages, whose
   thread asks the loop (http.c).  Any other is refused. */
char *admin_loop_read (ctl_t *ctl, json_t *req, size_t *len, bool *failed);
/* Whether cmd is one of those (asked of the loop, not a reader). */
bool admin_on_loop (const char *cmd);
/* Adds the readers' sockets to the loop's poller.  Can't fail. */
void admin_poll (admin_t *self, zpoller_t *poller);
/* Takes one request from the socket, if one is there, and answers it now
   or when its turn comes.  Can't fail. */
void admin_on_request (admin_t *self);
/* Sends the readers' replies that are ready to their clients.  Can't fail. */
void admin_on_replies (admin_t *self);

#endif
