/*  instance.h: which agent this is, across its restarts.

    A random id, made once and kept in the agent's spool directory
    (DIR/instance), sent in every HELLO: the controller then tells this
    agent coming back (restarted, or on a new connection) from another
    agent that was given the same name, which it refuses while this one is
    connected.  A spool directory is one running agent's (its lock), so its
    id is too.
*/
#ifndef IOF_INSTANCE_H
#define IOF_INSTANCE_H

#include <stddef.h>

#define INSTANCE_ID_LEN 32          /* hex digits */

/* Reads DIR/instance, or makes it when missing or not an id (written
   whole or not at all: a temporary file, fsynced, renamed).  Call it
   holding the spool's lock.  Returns 0 with id set, or -errno with err
   naming the file. */
int instance_load (const char *dir, char id[INSTANCE_ID_LEN + 1], char *err, size_t errlen);

#endif
