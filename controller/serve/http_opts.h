/*  http_opts.h: the controller's --http options, checked and read before
    anything is started (http_opts.c).  */
#ifndef IOF_HTTP_OPTS_H
#define IOF_HTTP_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* Largest certificate, key or token file read. */
#define HTTP_FILE_MAX   (1 << 20)
/* Shortest token taken. */
#define HTTP_TOKEN_MIN  16

typedef struct {
    const char *addr;           /* --http ADDR:PORT */
    const char *db;             /* the database, for the schedules' series (NULL: none) */
    const char *cert, *key;     /* --http-tls-cert, --http-tls-key: PEM files, or NULL */
    const char *token_file;     /* --http-token-file: a bearer token, or NULL */
} http_opts_t;

/* Checks o without starting anything: addr ("127.0.0.1:9464",
   "[::1]:9464", "localhost:9464", "0.0.0.0:9464"; port 0: any free one),
   an address off this host only with TLS and a token, the certificate
   and key PEM and readable, the token file readable by its owner alone,
   its first line (trimmed) at least HTTP_TOKEN_MIN characters.  Returns
   0, or -1 with err naming the option, the file and what to do. */
int http_opts_check (const http_opts_t *o, char *err, size_t errlen);

/* What o asks for, checked and read: its socket address (*ss, *sl), the
   certificate, key and token (NULL when not given; free them with
   http_opts_unload).  Returns 0, or -1 with err as http_opts_check. */
int http_opts_load (const http_opts_t *o, struct sockaddr_storage *ss, socklen_t *sl, char **cert,
                    char **key, char **token, char *err, size_t errlen);
/* Frees what http_opts_load read, the secrets wiped first.  Can't fail. */
void http_opts_unload (char *cert, char *key, char *token);

#endif
