/*  keys.c: iofleet keys: CURVE certificates for the controller, agents
    and admin clients (czmq zcert files; see common/curve.h).

      iofleet keys init DIR         DIR/controller.cert(_secret), DIR/agents/,
                                    DIR/admins/
      iofleet keys agent NAME DIR   DIR/NAME.cert(_secret)

    Secret files are written 0600 in directories of mode 0700; nothing
    existing is overwritten.
*/
#define _GNU_SOURCE
#include "cli.h"
#include "names.h"

#include <czmq.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int
make_dir (const char *path, mode_t mode)
{
    if (mkdir (path, mode) != 0 && errno != EEXIST) {
        fprintf (stderr, "iofleet keys: cannot create '%s': %s\n", path, strerror (errno));
        return -1;
    }
    struct stat st;
    if (stat (path, &st) != 0 || !S_ISDIR (st.st_mode)) {
        fprintf (stderr, "iofleet keys: '%s' is not a directory\n", path);
        return -1;
    }
    return 0;
}

/* Writes a new certificate NAME.cert and NAME.cert_secret in dir. */
static int
make_cert (const char *dir, const char *name, const char *role, char *pub, size_t cap)
{
    char path[4096], secret[4200];
    snprintf (path, sizeof path, "%s/%s.cert", dir, name);
    snprintf (secret, sizeof secret, "%s_secret", path);
    if (access (path, F_OK) == 0 || access (secret, F_OK) == 0) {
        fprintf (stderr, "iofleet keys: '%s' exists; not overwriting a certificate (remove it "
                 "first to make a new key)\n", access (path, F_OK) == 0 ? path : secret);
        return -1;
    }
    zcert_t *c = zcert_new ();
    if (!c) {
        fprintf (stderr, "iofleet keys: cannot make a key pair (is libzmq built with CURVE?)\n");
        return -1;
    }
    zcert_set_meta (c, "name", "%s", name);
    zcert_set_meta (c, "role", "%s", role);
    mode_t old = umask (077);
    int rc = zcert_save (c, path);
    umask (old);
    if (rc != 0) {
        fprintf (stderr, "iofleet keys: cannot write '%s': %s\n", path, strerror (errno));
        zcert_destroy (&c);
        return -1;
    }
    /* The public half is meant to be copied around. */
    chmod (path, 0644);
    snprintf (pub, cap, "%s", zcert_public_txt (c));
    zcert_destroy (&c);
    return 0;
}


int
cmd_keys (int argc, char **argv)
{
    char pub[64];
    if (argc == 3 && strcmp (argv[1], "init") == 0) {
        const char *dir = argv[2];
        char sub[4200];
        if (make_dir (dir, 0700))
            return 1;
        if (make_cert (dir, "controller", "controller", pub, sizeof pub))
            return 1;
        snprintf (sub, sizeof sub, "%s/agents", dir);
        if (make_dir (sub, 0755))
            return 1;
        snprintf (sub, sizeof sub, "%s/admins", dir);
        if (make_dir (sub, 0755))
            return 1;
        printf ("controller key %s\n"
                "  %s/controller.cert         public: give it to agents (--controller-key)\n"
                "  %s/controller.cert_secret  secret: stays with the controller (--keys %s)\n"
                "  %s/agents/                 allowlist: copy each agent's NAME.cert here\n"
                "  %s/admins/                 allowlist for the CLI over TCP\n",
                pub, dir, dir, dir, dir, dir);
        return 0;
    }
    if (argc == 4 && strcmp (argv[1], "agent") == 0) {
        const char *name = argv[2], *dir = argv[3];
        char err[512];
        if (names_check ("name", name, err, sizeof err)) {
            fprintf (stderr, "iofleet keys agent: %s\n", err);
            return 2;
        }
        /* NAME.cert is a file of DIR: not a hidden one. */
        if (name[0] == '.') {
            fprintf (stderr, "iofleet keys agent: name '%s' starts with '.': its certificate "
                     "would be a hidden file; pick a name that does not\n", name);
            return 2;
        }
        if (make_dir (dir, 0700) || make_cert (dir, name, "agent", pub, sizeof pub))
            return 1;
        printf ("key %s for '%s'\n"
                "  %s/%s.cert         public: copy it into the controller's KEYDIR/agents/ "
                "(or admins/) to allow it\n"
                "  %s/%s.cert_secret  secret: iofleet-agent --cert %s/%s.cert_secret\n",
                pub, name, dir, name, dir, name, dir, name);
        return 0;
    }
    fprintf (stderr, "usage: iofleet keys init DIR | iofleet keys agent NAME DIR\n");
    return 2;
}
