/*  http_opts.c: the --http options checked and read: the address (a
    loopback one, or one off the host with TLS and a token), the
    certificate, key and token files (http_opts.h).  */
#include "http_opts.h"
#include "log.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* addr split into a socket address.  Returns 0 (a loopback address), 1
   (any other), or -1 with err. */
static int
parse_addr (const char *addr, struct sockaddr_storage *ss, socklen_t *sl, char *err,
            size_t errlen)
{
    char host[256];
    const char *colon = strrchr (addr, ':');
    size_t hl = colon ? (size_t) (colon - addr) : 0;
    char *end = NULL;
    long port = colon ? strtol (colon + 1, &end, 10) : -1;
    if (!colon || hl == 0 || hl >= sizeof host || !end || *end || end == colon + 1 || port < 0
        || port > 65535) {
        snprintf (err, errlen, "'%s': give ADDR:PORT (127.0.0.1:9464, [::1]:9464, "
                  "localhost:9464, 0.0.0.0:9464 with TLS and a token; port 0: any free one)",
                  addr);
        return -1;
    }
    memcpy (host, addr, hl);
    host[hl] = '\0';
    if (host[0] == '[' && host[hl - 1] == ']') {
        memmove (host, host + 1, hl - 2);
        host[hl - 2] = '\0';
    }
    if (strcmp (host, "localhost") == 0)
        snprintf (host, sizeof host, "127.0.0.1");
    memset (ss, 0, sizeof *ss);
    struct sockaddr_in *v4 = (struct sockaddr_in *) ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *) ss;
    if (inet_pton (AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons ((uint16_t) port);
        *sl = sizeof *v4;
        if ((ntohl (v4->sin_addr.s_addr) >> 24) == 127)
            return 0;
    } else if (inet_pton (AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons ((uint16_t) port);
        *sl = sizeof *v6;
        if (IN6_IS_ADDR_LOOPBACK (&v6->sin6_addr))
            return 0;
    } else {
        snprintf (err, errlen, "'%s': '%s' is not an IP address (give 127.0.0.1, [::1], "
                  "localhost, or an address of this host)", addr, host);
        return -1;
    }
    return 1;
}

/* The whole of a small file (a PEM, a token), NUL-ended; NULL with err
   naming the option (what) and the file. */
static char *
read_file (const char *what, const char *path, char *err, size_t errlen)
{
    char *buf = file_read_all (path, HTTP_FILE_MAX, NULL);
    if (!buf && errno == EFBIG)
        snprintf (err, errlen, "%s '%s': larger than %d bytes: not a certificate, key or "
                  "token", what, path, HTTP_FILE_MAX);
    else if (!buf)
        snprintf (err, errlen, "%s '%s': %s", what, path, strerror (errno));
    return buf;
}

/* The token in path: its first line, trimmed; NULL with err (unreadable,
   empty, shorter than HTTP_TOKEN_MIN, readable by others). */
static char *
read_token (const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat (path, &st) == 0 && (st.st_mode & 077)) {
        snprintf (err, errlen, "--http-token-file '%s': readable by others (mode %03o): "
                  "chmod 600 it, it is a secret", path, (unsigned) (st.st_mode & 0777));
        return NULL;
    }
    char *t = read_file ("--http-token-file", path, err, errlen);
    if (!t)
        return NULL;
    t[strcspn (t, "\r\n")] = '\0';
    char *b = t;
    while (*b == ' ' || *b == '\t')
        b++;
    size_t n = strlen (b);
    while (n && (b[n - 1] == ' ' || b[n - 1] == '\t'))
        b[--n] = '\0';
    if (n < HTTP_TOKEN_MIN) {
        snprintf (err, errlen, "--http-token-file '%s': a token of %zu characters; give at "
                  "least %d (e.g. openssl rand -hex 32 > FILE)", path, n, HTTP_TOKEN_MIN);
        free (t);
        return NULL;
    }
    memmove (t, b, n + 1);
    return t;
}

/* What o asks for, checked and read: its socket address (*ss, *sl),
   whether it is off this host, the certificate, key and token (NULL when
   not given; the caller's to free).  Returns 0, or -1 with err. */
int
http_opts_load (const http_opts_t *o, struct sockaddr_storage *ss, socklen_t *sl, char **cert,
           char **key, char **token, char *err, size_t errlen)
{
    *cert = *key = *token = NULL;
    char why[512];
    int where = parse_addr (o->addr, ss, sl, why, sizeof why);
    if (where < 0) {
        snprintf (err, errlen, "--http %s", why);
        return -1;
    }
    if ((o->cert != NULL) != (o->key != NULL)) {
        snprintf (err, errlen, "--http-tls-cert and --http-tls-key go together: give both "
                  "(the certificate and its private key, PEM)");
        return -1;
    }
    if (where == 1 && (!o->cert || !o->token_file)) {
        snprintf (err, errlen, "--http '%s': not a loopback address: /metrics off this host "
                  "needs TLS and a bearer token (--http-tls-cert FILE --http-tls-key FILE "
                  "--http-token-file FILE), or listen on 127.0.0.1", o->addr);
        return -1;
    }
    const char *what[2] = { "--http-tls-cert", "--http-tls-key" };
    const char *path[2] = { o->cert, o->key };
    char **pem[2] = { cert, key };
    for (int i = 0; i < 2 && o->cert; i++) {
        if (!(*pem[i] = read_file (what[i], path[i], err, errlen)))
            goto fail;
        if (!strstr (*pem[i], "-----BEGIN ")) {
            snprintf (err, errlen, "%s '%s': not PEM (no -----BEGIN line)", what[i], path[i]);
            goto fail;
        }
    }
    if (o->token_file && !(*token = read_token (o->token_file, err, errlen)))
        goto fail;
    return 0;
fail:
    free (*cert);
    if (*key)
        explicit_bzero (*key, strlen (*key));
    free (*key);
    *cert = *key = NULL;
    return -1;
}

/* Frees what http_opts_load read, the secrets wiped first. */
void
http_opts_unload (char *cert, char *key, char *token)
{
    free (cert);
    if (key)
        explicit_bzero (key, strlen (key));
    free (key);
    if (token)
        explicit_bzero (token, strlen (token));
    free (token);
}

int
http_opts_check (const http_opts_t *o, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    char *cert, *key, *token;
    if (http_opts_load (o, &ss, &sl, &cert, &key, &token, err, errlen))
        return -1;
    http_opts_unload (cert, key, token);
    return 0;
}
