/*  admin_peer: sends raw admin requests to a controller, as a CLI would
    (REQ) or as a client that does not wait for one answer before asking
    again (DEALER, no delimiter frame), and prints each reply on a line in
    the order they come.

      admin_peer [--dealer] ENDPOINT JSON...

    With --dealer every request is sent at once; "sent" then goes to
    stderr.  Exits 0 when every request got a reply within 60 s.
*/
#include <czmq.h>
#include <stdio.h>
#include <string.h>

int
main (int argc, char **argv)
{
    int i = 1;
    bool dealer = argc > 1 && strcmp (argv[1], "--dealer") == 0;
    i += dealer;
    if (argc - i < 2) {
        fprintf (stderr, "usage: admin_peer [--dealer] ENDPOINT JSON...\n");
        return 2;
    }
    zsock_t *s = zsock_new (dealer ? ZMQ_DEALER : ZMQ_REQ);
    if (!s || zsock_connect (s, "%s", argv[i]) != 0) {
        fprintf (stderr, "admin_peer: cannot connect to %s\n", argv[i]);
        return 1;
    }
    zsock_set_rcvtimeo (s, 60000);
    zsock_set_linger (s, 0);
    int n = argc - i - 1, rc = 0;
    for (int k = 0; k < n; k++) {
        if (zstr_send (s, argv[i + 1 + k]) != 0) {
            fprintf (stderr, "admin_peer: cannot send\n");
            return 1;
        }
        if (dealer)
            continue;
        char *r = zstr_recv (s);
        if (!r) {
            rc = 1;
            break;
        }
        printf ("%s\n", r);
        fflush (stdout);
        zstr_free (&r);
    }
    if (dealer) {
        fprintf (stderr, "sent\n");
        for (int k = 0; k < n; k++) {
            zmsg_t *m = zmsg_recv (s);
            if (!m || zmsg_size (m) != 1) {
                fprintf (stderr, "admin_peer: %s\n", m ? "a reply of more than one frame"
                                                       : "no reply");
                zmsg_destroy (&m);
                rc = 1;
                break;
            }
            char *r = zmsg_popstr (m);
            printf ("%s\n", r);
            fflush (stdout);
            free (r);
            zmsg_destroy (&m);
        }
    }
    zsock_destroy (&s);
    return rc;
}
