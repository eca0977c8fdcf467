/*  http.c: the controller's HTTP endpoint, see http.h. */
#include "http.h"
#include "gz.h"
#include "metrics.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* How long a scrape waits for the loop's fresh figures before it takes
   the last ones: a loop stuck that long is itself news. */
#define FRESH_WAIT_S    5

struct http {
    struct MHD_Daemon *d;
    pthread_mutex_t lock;
    pthread_cond_t fresh;       /* signalled at each http_publish */
    metrics_snap_t *snap;       /* the last figures collected */
    metrics_snap_t *using;      /* the ones being written out, if any */
    metrics_snap_t *orphan;     /* replaced while written out: freed after */
    uint64_t gen;               /* http_publish calls */
    bool wanted;                /* a scrape waits for figures */
};

/* addr split into a socket address.  Returns 0, or -1 with err. */
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
        snprintf (err, errlen, "'%s': give ADDR:PORT on this host (127.0.0.1:9464, "
                  "[::1]:9464, localhost:9464; port 0: any free one)", addr);
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
        snprintf (err, errlen, "'%s': '%s' is not an IP address (give 127.0.0.1, [::1] "
                  "or localhost)", addr, host);
        return -1;
    }
    snprintf (err, errlen, "'%s': not a loopback address; HTTP off this host needs TLS "
              "and a bearer token, which iofleet does not do yet: listen on 127.0.0.1 and put "
              "a TLS proxy in front", addr);
    return -1;
}

int
http_check_addr (const char *addr, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    return parse_addr (addr, &ss, &sl, err, errlen);
}

static enum MHD_Result
reply (struct MHD_Connection *c, unsigned status, const char *type, const char *body,
       size_t len, bool copy)
{
    struct MHD_Response *r = MHD_create_response_from_buffer (len, (void *) body,
        copy ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    MHD_add_response_header (r, "Content-Type", type);
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header (r, "Allow", "GET, HEAD");
    enum MHD_Result rc = MHD_queue_response (c, status, r);
    MHD_destroy_response (r);
    return rc;
}

/* The figures as fresh as the loop makes them, written out here. */
static enum MHD_Result
serve_metrics (http_t *self, struct MHD_Connection *c)
{
    pthread_mutex_lock (&self->lock);
    uint64_t gen = self->gen;
    __atomic_store_n (&self->wanted, true, __ATOMIC_RELEASE);
    struct timespec until;
    clock_gettime (CLOCK_REALTIME, &until);
    until.tv_sec += FRESH_WAIT_S;
    while (self->gen == gen)
        if (pthread_cond_timedwait (&self->fresh, &self->lock, &until))
            break;
    metrics_snap_t *snap = self->using = self->snap;
    pthread_mutex_unlock (&self->lock);

    char *text = NULL, *out = NULL;
    size_t len = 0, outlen = 0, cap = 0;
    int rc = -1;
    FILE *f = snap ? open_memstream (&text, &len) : NULL;
    if (f) {
        rc = metrics_write (snap, f);
        if (fclose (f) != 0)
            rc = -1;
    }
    pthread_mutex_lock (&self->lock);
    if (self->orphan == self->using)
        metrics_snap_free (&self->orphan);
    self->using = NULL;
    pthread_mutex_unlock (&self->lock);
    if (rc) {
        free (text);
        static const char busy[] = "503: no figures (the controller is out of memory, or "
                                   "just started)\n";
        return reply (c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain", busy, sizeof busy - 1,
                      false);
    }
    /* Prometheus asks for gzip: at a fleet's size the text is tens of MB. */
    const char *enc = MHD_lookup_connection_value (c, MHD_HEADER_KIND, "Accept-Encoding");
    bool gzip = enc && strstr (enc, "gzip");
    if (gzip) {
        gz_stream_t *z = gz_stream_new ();
        if (!z || gz_stream_put (z, text, len, true, &out, &outlen, &cap)) {
            free (out);
            out = NULL;
        }
        gz_stream_free (&z);
    }
    struct MHD_Response *r = MHD_create_response_from_buffer (out ? outlen : len,
                                                              out ? out : text,
                                                              MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free (out ? out : text);
        return MHD_NO;
    }
    if (out)
        free (text);
    MHD_add_response_header (r, "Content-Type", METRICS_TYPE);
    if (out)
        MHD_add_response_header (r, "Content-Encoding", "gzip");
    enum MHD_Result mr = MHD_queue_response (c, MHD_HTTP_OK, r);
    MHD_destroy_response (r);
    return mr;
}

static enum MHD_Result
on_request (void *cls, struct MHD_Connection *c, const char *url, const char *method,
            const char *version, const char *upload, size_t *upload_len, void **state)
{
    (void) version;
    (void) upload;
    http_t *self = cls;
    if (!*state) {              /* the headers: answer once the body (if any) is in */
        *state = self;
        return MHD_YES;
    }
    if (*upload_len) {
        *upload_len = 0;        /* a body is read and dropped: nothing is written */
        return MHD_YES;
    }
    static const char not_allowed[] = "405: iofleet-controller serves GET /metrics only\n";
    static const char not_found[] = "404: iofleet-controller serves /metrics (Prometheus)\n";
    if (strcmp (method, "GET") != 0 && strcmp (method, "HEAD") != 0)
        return reply (c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", not_allowed,
                      sizeof not_allowed - 1, false);
    if (strcmp (url, "/metrics") != 0)
        return reply (c, MHD_HTTP_NOT_FOUND, "text/plain", not_found, sizeof not_found - 1,
                      false);
    return serve_metrics (self, c);
}

http_t *
http_start (const char *addr, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    char why[512];
    if (parse_addr (addr, &ss, &sl, why, sizeof why)) {
        snprintf (err, errlen, "--http %s", why);
        return NULL;
    }
    http_t *self = calloc (1, sizeof *self);
    if (!self) {
        snprintf (err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init (&self->lock, NULL);
    pthread_cond_init (&self->fresh, NULL);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG
                     | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    self->d = MHD_start_daemon (flags, 0, NULL, NULL, on_request, self,
                                MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &ss,
                                MHD_OPTION_CONNECTION_LIMIT, (unsigned) 64,
                                MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) 10, MHD_OPTION_END);
    if (!self->d) {
        snprintf (err, errlen, "--http '%s': cannot listen there (the port taken by another "
                  "process? choose another)", addr);
        pthread_mutex_destroy (&self->lock);
        pthread_cond_destroy (&self->fresh);
        free (self);
        return NULL;
    }
    return self;
}

unsigned
http_port (const http_t *self)
{
    const union MHD_DaemonInfo *i = MHD_get_daemon_info (self->d, MHD_DAEMON_INFO_BIND_PORT);
    return i ? i->port : 0;
}

bool
http_wanted (http_t *self)
{
    return __atomic_load_n (&self->wanted, __ATOMIC_ACQUIRE);
}

void
http_publish (http_t *self, metrics_snap_t *snap)
{
    pthread_mutex_lock (&self->lock);
    if (snap) {
        metrics_snap_t *old = self->snap;
        self->snap = snap;
        if (old && old == self->using)
            self->orphan = old;
        else
            metrics_snap_free (&old);
    }
    self->gen++;
    __atomic_store_n (&self->wanted, false, __ATOMIC_RELEASE);
    pthread_cond_broadcast (&self->fresh);
    pthread_mutex_unlock (&self->lock);
}

void
http_stop (http_t **self_p)
{
    http_t *self = *self_p;
    if (!self)
        return;
    MHD_stop_daemon (self->d);
    pthread_mutex_destroy (&self->lock);
    pthread_cond_destroy (&self->fresh);
    metrics_snap_free (&self->snap);
    free (self);
    *self_p = NULL;
}
