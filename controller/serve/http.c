/*  http.c: the controller's HTTP endpoint, see http.h. */
#define _GNU_SOURCE     /* fopencookie, gettid */
#include "http.h"
#include "http_pool.h"
#include "http_opts.h"
#include "admin.h"
#include "web.h"
#include "gz.h"
#include "log.h"
#include "metrics.h"
#include "metrics_sched.h"
#include "store.h"
#include "util.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

#define METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define HTML_TYPE "text/html; charset=utf-8"

/* The paths counted in iofleet_http_requests_total. */
enum { P_METRICS, P_API, P_RUNS, P_REPORT, P_LIVE, P_COMPARE, P_HISTORY, P_AGENTS,
       P_SCHEDULES, P_OTHER, HTTP_PATHS };
static const char *const s_path_label[HTTP_PATHS] = {
    "/metrics", "/api", "/", "/runs/ID", "/runs/ID/live", "/compare", "/history", "/agents",
    "/schedules", "other" };

/* How long a scrape waits for the loop's fresh figures before it takes
   the last ones: a loop stuck that long is itself news. */
#define FRESH_WAIT_S    5
/* The HTTP threads' nice: they yield to the event loop. */
#define HTTP_NICE       10
/* Threads answering requests: a report of a large fleet, rendered on
   one, does not hold up a scrape on another. */
#define HTTP_THREADS    4

/* The connection pool (http_pool.h): a quarter of the open-file limit
   (raised to the hard one at start), the rest for the agents' sockets
   and the database; at least HTTP_POOL_MIN, at most HTTP_POOL_MAX (each
   connection holds up to 32 KiB of libmicrohttpd's buffers). */
#define HTTP_POOL_MIN   64
#define HTTP_POOL_MAX   8192
/* Seconds a connection has to send its whole request from its accept
   (and libmicrohttpd's inactivity timeout until it has); seconds a
   kept-alive one waits for its next. */
#define HTTP_REQUEST_S  5
#define HTTP_KEEP_S     30

struct http {
    struct MHD_Daemon *d;
    pthread_mutex_t lock;
    pthread_cond_t fresh;       /* signalled at each http_publish */
    metrics_snap_t *snap;       /* the last figures collected */
    metrics_snap_t *using;      /* the ones being written out, if any */
    metrics_snap_t *orphan;     /* replaced while written out: freed after */
    uint64_t gen;               /* http_publish calls */
    bool wanted;                /* a scrape waits for figures */
    char host[256];             /* as --http gave it, for http_url */
    char *token;                /* the bearer token asked for, or NULL */
    uint64_t denied;            /* requests refused 401 */
    bool tls;
    char *db;                   /* the database, read by these threads alone: */
    store_t *readers[HTTP_THREADS]; /* read-only connections not in use */
    int nreaders;
    pthread_mutex_t scrape;     /* one scrape at a time: */
    metrics_sched_t *sched;     /* the schedules' figures kept */
    pthread_mutex_t asker;      /* one question to the loop at a time */
    /* A page's question to the loop (web.h: agents, status,
       schedule_list), one at a time (this thread asks): */
    json_t *ask;                /* the request not taken yet, or NULL */
    bool asking;                /* ask is set (read by the loop each turn) */
    uint64_t ask_seq, taken_seq, answer_seq;
    char *answer;               /* the answer to answer_seq */
    size_t answer_len;
    bool answer_failed;
    uint64_t hits[HTTP_PATHS];  /* requests by path (iofleet_http_requests_total) */
    http_pool_t *pool;          /* the connections */
    pthread_mutex_t loglock;    /* libmicrohttpd's messages, rate-limited: */
    time_t log_next;            /* none logged before */
    uint64_t log_quiet;         /* left out since the last one logged */
    uint64_t bad;               /* requests refused 400 before any page (a NUL, ...) */
};

/* A request's state (libmicrohttpd's *con_cls): its URI as sent, before
   any %-decoding, which cuts a path at an encoded NUL. */
typedef struct {
    char *uri;
    uintptr_t at;               /* where libmicrohttpd had the URI (never read) */
    size_t len;                 /* its length as a string */
    bool started;               /* on_request has seen its headers */
} req_t;

/* Longest request line looked at for a raw NUL: libmicrohttpd's buffer. */
#define HTTP_LINE_MAX   (32 * 1024)

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
    if (status == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header (r, "WWW-Authenticate", "Bearer realm=\"iofleet\"");
    enum MHD_Result rc = MHD_queue_response (c, status, r);
    MHD_destroy_response (r);
    return rc;
}

/* Whether the client takes gzip (Accept-Encoding). */
static bool
accepts_gzip (struct MHD_Connection *c)
{
    const char *enc = MHD_lookup_connection_value (c, MHD_HEADER_KIND, "Accept-Encoding");
    return enc && strstr (enc, "gzip");
}

/* body (len bytes, taken: freed whatever happens), gzip'd already or
   not, as the answer. */
static enum MHD_Result
respond (struct MHD_Connection *c, unsigned status, const char *type, char *body, size_t len,
         bool gzip)
{
    struct MHD_Response *r = MHD_create_response_from_buffer (len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free (body);
        return MHD_NO;
    }
    if (gzip)
        MHD_add_response_header (r, "Content-Encoding", "gzip");
    MHD_add_response_header (r, "Content-Type", type);
    enum MHD_Result rc = MHD_queue_response (c, status, r);
    MHD_destroy_response (r);
    return rc;
}

/* A read-only connection for this request, opened when none is free;
   NULL when the database cannot be read (logged, naming what for).
   reader_give returns it. */
static store_t *
reader_take (http_t *self, const char *what)
{
    store_t *r = NULL;
    pthread_mutex_lock (&self->lock);
    if (self->nreaders)
        r = self->readers[--self->nreaders];
    pthread_mutex_unlock (&self->lock);
    char err[512];
    if (!r && self->db && !(r = store_open_reader (self->db, err, sizeof err)))
        log_warn ("%s: the database cannot be read: %s", what, err);
    return r;
}

static void
reader_give (http_t *self, store_t *r)
{
    if (!r)
        return;
    pthread_mutex_lock (&self->lock);
    if (self->nreaders < HTTP_THREADS)
        self->readers[self->nreaders++] = r, r = NULL;
    pthread_mutex_unlock (&self->lock);
    store_close (&r);
}

/* The text as written, compressed (fopencookie's writer). */
typedef struct {
    gz_stream_t *z;
    char *out;
    size_t len, cap;
    bool failed;
} gz_out_t;

static ssize_t
gz_write (void *cookie, const char *buf, size_t n)
{
    gz_out_t *go = cookie;
    if (go->failed || gz_stream_put (go->z, buf, n, false, &go->out, &go->len, &go->cap)) {
        go->failed = true;
        return 0;
    }
    return (ssize_t) n;
}

/* The figures as fresh as the loop makes them, written out here. */
static enum MHD_Result
serve_metrics (http_t *self, struct MHD_Connection *c)
{
    pthread_mutex_lock (&self->scrape);
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

    /* Prometheus asks for gzip: the text is compressed as it is written,
       and only the compressed form is held. */
    bool gzip = accepts_gzip (c);
    char *text = NULL;
    size_t len = 0;
    gz_out_t go = { 0 };
    int rc = -1;
    FILE *f = NULL;
    if (snap && gzip) {
        go.z = gz_stream_new ();
        f = go.z ? fopencookie (&go, "w", (cookie_io_functions_t) { .write = gz_write }) : NULL;
        if (f)
            setvbuf (f, NULL, _IOFBF, 256 * 1024);
    } else if (snap)
        f = open_memstream (&text, &len);
    if (f) {
        rc = metrics_write (snap, f);
        /* The schedules' series, read here: a database that cannot be
           read leaves them out (logged), the rest stands. */
        store_t *rd = self->sched ? reader_take (self, "/metrics: the schedules' series") : NULL;
        if (rd)
            metrics_sched_write (self->sched, rd, f);
        reader_give (self, rd);
        fprintf (f, "# HELP iofleet_http_denied_total Requests refused 401: no token, or "
                 "another.\n# TYPE iofleet_http_denied_total counter\n"
                 "iofleet_http_denied_total %" PRIu64 "\n",
                 __atomic_load_n (&self->denied, __ATOMIC_RELAXED));
        http_pool_stats_t ps = http_pool_stats (self->pool);
        fprintf (f, "# HELP iofleet_http_bad_requests_total Requests refused 400 before any "
                 "page: a NUL byte (%%00 or raw) in the path or query.\n"
                 "# TYPE iofleet_http_bad_requests_total counter\n"
                 "iofleet_http_bad_requests_total %" PRIu64 "\n"
                 "# HELP iofleet_http_connections Connections open to --http.\n"
                 "# TYPE iofleet_http_connections gauge\n"
                 "iofleet_http_connections %u\n"
                 "# HELP iofleet_http_connections_limit Connections --http holds at most.\n"
                 "# TYPE iofleet_http_connections_limit gauge\n"
                 "iofleet_http_connections_limit %u\n"
                 "# HELP iofleet_http_connections_accepted_total Connections accepted.\n"
                 "# TYPE iofleet_http_connections_accepted_total counter\n"
                 "iofleet_http_connections_accepted_total %" PRIu64 "\n"
                 "# HELP iofleet_http_connections_closed_total Connections closed by the "
                 "controller: slow (no whole request in time), evicted (the idle longest, "
                 "the pool full).\n"
                 "# TYPE iofleet_http_connections_closed_total counter\n"
                 "iofleet_http_connections_closed_total{why=\"slow\"} %" PRIu64 "\n"
                 "iofleet_http_connections_closed_total{why=\"evicted\"} %" PRIu64 "\n",
                 __atomic_load_n (&self->bad, __ATOMIC_RELAXED), ps.open, ps.size,
                 ps.accepted, ps.slow, ps.evicted);
        fputs ("# HELP iofleet_http_requests_total Requests answered, by path.\n"
               "# TYPE iofleet_http_requests_total counter\n", f);
        for (int i = 0; i < HTTP_PATHS; i++)
            fprintf (f, "iofleet_http_requests_total{path=\"%s\"} %" PRIu64 "\n", s_path_label[i],
                     __atomic_load_n (&self->hits[i], __ATOMIC_RELAXED));
        if (fclose (f) != 0)
            rc = -1;
        if (gzip && (go.failed || gz_stream_put (go.z, "", 0, true, &go.out, &go.len, &go.cap)))
            rc = -1;
    }
    gz_stream_free (&go.z);
    pthread_mutex_lock (&self->lock);
    if (self->orphan == self->using)
        metrics_snap_free (&self->orphan);
    self->using = NULL;
    pthread_mutex_unlock (&self->lock);
    pthread_mutex_unlock (&self->scrape);
    if (rc) {
        free (text);
        free (go.out);
        static const char busy[] = "503: no figures (the controller is out of memory, or "
                                   "just started)\n";
        return reply (c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain", busy, sizeof busy - 1,
                      false);
    }
    return gzip ? respond (c, MHD_HTTP_OK, METRICS_TYPE, go.out, go.len, true)
                : respond (c, MHD_HTTP_OK, METRICS_TYPE, text, len, false);
}

/* An admin reply text of failure (json: a constant {"ok":false,...}),
   *failed set; NULL only out of memory. */
static char *
failed_text (const char *json, size_t *len, bool *failed)
{
    *failed = true;
    char *text = strdup (json);
    *len = text ? strlen (text) : 0;
    return text;
}

static const char s_loop_silent[] = "{\"ok\":false,\"error\":\"the controller's event loop did "
                                    "not answer within 5 s (busy: see its log)\"}";

/* The loop's answer to req (admin_loop_read's), asked at its next turn:
   its reply text, or {"ok":false} when it did not answer within
   FRESH_WAIT_S. */
static char *
ask_loop (http_t *self, json_t *req, size_t *len, bool *failed)
{
    /* FRESH_WAIT_S in all, the wait for another question's turn
       included: a slow loop does not pile the threads up behind it. */
    struct timespec until;
    clock_gettime (CLOCK_REALTIME, &until);
    until.tv_sec += FRESH_WAIT_S;
    if (pthread_mutex_timedlock (&self->asker, &until) != 0)
        return failed_text (s_loop_silent, len, failed);
    pthread_mutex_lock (&self->lock);
    json_decref (self->ask);
    self->ask = json_incref (req);
    uint64_t seq = ++self->ask_seq;
    __atomic_store_n (&self->asking, true, __ATOMIC_RELEASE);
    while (self->answer_seq != seq)
        if (pthread_cond_timedwait (&self->fresh, &self->lock, &until))
            break;
    char *text = NULL;
    if (self->answer_seq == seq) {
        text = self->answer;
        *len = self->answer_len;
        *failed = self->answer_failed;
        self->answer = NULL;
    } else {
        json_decref (self->ask);
        self->ask = NULL;
        __atomic_store_n (&self->asking, false, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock (&self->lock);
    pthread_mutex_unlock (&self->asker);
    return text ? text : failed_text (s_loop_silent, len, failed);
}

/* web_src_t's: the connection's query arguments, and the answer to an
   admin request from where admin.c runs it. */
typedef struct {
    http_t *self;
    struct MHD_Connection *c;
} src_t;

static const char *
src_arg (void *cls, const char *key)
{
    src_t *s = cls;
    return MHD_lookup_connection_value (s->c, MHD_GET_ARGUMENT_KIND, key);
}

static char *
src_fetch (void *cls, json_t *req, size_t *len, bool *failed)
{
    http_t *self = ((src_t *) cls)->self;
    if (admin_on_loop (json_string_value (json_object_get (req, "cmd"))))
        return ask_loop (self, req, len, failed);
    store_t *rd = reader_take (self, "--http");
    if (!rd)
        return failed_text ("{\"ok\":false,\"error\":\"the database cannot be read; see the "
                            "controller's log\"}", len, failed);
    ctl_t ctl = { .store = rd };
    char *text = admin_read (&ctl, req, len, failed);
    reader_give (self, rd);
    return text;
}

/* body (len bytes, taken) as the answer, gzip'd when the client takes
   it. */
static enum MHD_Result
reply_taken (struct MHD_Connection *c, unsigned status, const char *type, char *body,
             size_t len)
{
    bool gzip = false;
    if (accepts_gzip (c) && len > 1024) {
        gz_stream_t *z = gz_stream_new ();
        char *out = NULL;
        size_t olen = 0, ocap = 0;
        if (z && gz_stream_put (z, body, len, true, &out, &olen, &ocap) == 0) {
            free (body);
            body = out;
            len = olen;
            gzip = true;
        } else
            free (out);
        gz_stream_free (&z);
    }
    return respond (c, status, type, body, len, gzip);
}

/* GET /api/PATH: the admin command's result as JSON, 200; or
   {"ok":false,"error":...}, 400, into *rc.  False: no such path. */
static bool
serve_api (http_t *self, struct MHD_Connection *c, const char *path, enum MHD_Result *rc)
{
    src_t sc = { self, c };
    web_src_t src = { src_arg, src_fetch, &sc };
    char err[1024];
    json_t *req = web_request (path, &src, false, err, sizeof err);
    if (!req && !err[0])
        return false;
    size_t len = 0;
    bool failed = true;
    char *text;
    if (req) {
        text = src_fetch (&sc, req, &len, &failed);
        json_decref (req);
    } else {
        /* err may quote the request's bytes, not UTF-8: JSON refuses them. */
        json_t *ej = json_pack ("{s:b, s:s}", "ok", 0, "error", err);
        text = ej ? json_dumps (ej, JSON_COMPACT)
                  : strdup ("{\"ok\":false,\"error\":\"an argument is not UTF-8 text\"}");
        len = text ? strlen (text) : 0;
        json_decref (ej);
    }
    *rc = MHD_NO;
    if (!text)
        return true;
    unsigned status = MHD_HTTP_OK;
    if (failed) {
        json_t *ej = json_loadb (text, len, 0, NULL);
        const char *e = json_string_value (json_object_get (ej, "error"));
        status = e ? web_error_status (e) : MHD_HTTP_BAD_REQUEST;
        json_decref (ej);
    }
    /* The result alone: {"ok":true,"result":RESULT} less its frame. */
    static const char head[] = "{\"ok\":true,\"result\":";
    if (!failed && len > sizeof head && memcmp (text, head, sizeof head - 1) == 0) {
        len -= sizeof head;
        memmove (text, text + sizeof head - 1, len);
    }
    *rc = reply_taken (c, status, "application/json", text, len);
    return true;
}

/* Whether c carries "Authorization: Bearer TOKEN" with self's token,
   compared in constant time. */
static bool
authorized (const http_t *self, struct MHD_Connection *c)
{
    const char *h = MHD_lookup_connection_value (c, MHD_HEADER_KIND, "Authorization");
    if (!h || strncasecmp (h, "Bearer ", 7) != 0)
        return false;
    h += 7;
    while (*h == ' ')
        h++;
    size_t n = strlen (self->token), m = strlen (h);
    unsigned diff = n != m;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char) self->token[i] ^ (unsigned char) (i < m ? h[i] : 0);
    return diff == 0;
}

static void
count (http_t *self, int path)
{
    __atomic_add_fetch (&self->hits[path], 1, __ATOMIC_RELAXED);
}

static double
s_now (void)
{
    return (double) clock_mono_ns () / 1e9;
}

/* libmicrohttpd's messages (MHD_OPTION_EXTERNAL_LOGGER): at most one a
   minute into the log, with the count of those left out.  It says one
   for each connection a client drops: a flood would write a line per
   connection (37,599 in 14 s). */
static void
s_mhd_log (void *cls, const char *fmt, va_list ap)
{
    http_t *self = cls;
    time_t now = time (NULL);
    pthread_mutex_lock (&self->loglock);
    bool say = now >= self->log_next;
    uint64_t quiet = self->log_quiet;
    if (say) {
        self->log_next = now + 60;
        self->log_quiet = 0;
    } else
        self->log_quiet++;
    pthread_mutex_unlock (&self->loglock);
    if (!say)
        return;
    char msg[512];
    vsnprintf (msg, sizeof msg, fmt, ap);
    msg[strcspn (msg, "\n")] = '\0';
    if (quiet)
        log_warn ("--http: %s (and %" PRIu64 " more such messages of libmicrohttpd in the "
                  "minute before, left out)", msg, quiet);
    else
        log_warn ("--http: %s", msg);
}

/* The pool's record of c (NULL: none kept). */
static http_conn_t *
s_conn (struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *i = MHD_get_connection_info (c,
                                                                 MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return i ? i->socket_context : NULL;
}

/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION: a connection accepted
   (into the pool, which makes room) or closed (out of it, before its
   descriptor is). */
static void
s_on_connection (void *cls, struct MHD_Connection *c, void **socket_context,
                 enum MHD_ConnectionNotificationCode toe)
{
    http_t *self = cls;
    if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        http_pool_close (self->pool, (http_conn_t **) socket_context);
        return;
    }
    const union MHD_ConnectionInfo *fi = MHD_get_connection_info (c,
                                                                  MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *ai = MHD_get_connection_info (c,
                                                                  MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!fi || !ai || !ai->client_addr)
        return;
    socklen_t len = ai->client_addr->sa_family == AF_INET6 ? sizeof (struct sockaddr_in6)
                                                           : sizeof (struct sockaddr_in);
    *socket_context = http_pool_open (self->pool, fi->connect_fd, ai->client_addr, len,
                                      s_now ());
}

/* libmicrohttpd's MHD_OPTION_URI_LOG_CALLBACK: the request's state, with
   its URI as sent (NULL out of memory: on_request refuses it). */
static void *
s_uri_log (void *cls, const char *uri, struct MHD_Connection *c)
{
    (void) cls;
    (void) c;
    req_t *rq = calloc (1, sizeof *rq);
    if (rq) {
        rq->at = (uintptr_t) uri;
        rq->len = uri ? strlen (uri) : 0;
    }
    if (rq && !(rq->uri = strdup (uri ? uri : ""))) {
        free (rq);
        rq = NULL;
    }
    return rq;
}

/* libmicrohttpd's MHD_OPTION_NOTIFY_COMPLETED: answered (or given up),
   the connection idle again. */
static void
s_on_completed (void *cls, struct MHD_Connection *c, void **con_cls,
                enum MHD_RequestTerminationCode toe)
{
    (void) toe;
    http_t *self = cls;
    req_t *rq = *con_cls;
    if (rq) {
        free (rq->uri);
        free (rq);
        *con_cls = NULL;
    }
    http_pool_idle (self->pool, s_conn (c), s_now ());
}

/* Whether the request line held a raw NUL byte (not %00): libmicrohttpd
   0.9.75 parses the line in place, the version's text right after the
   URI's bytes and a space, so a URI string that ends short of it was cut
   by one (GET /runs/1<NUL>/live would be /runs/1).  Compares addresses
   only; test_http_flood.sh sends such a line. */
static bool
s_raw_nul (const req_t *rq, const char *version)
{
    uintptr_t v = (uintptr_t) version;
    return version && *version && rq->at && v > rq->at + rq->len + 1
           && v - rq->at <= HTTP_LINE_MAX;
}

/* 400 for a request with a NUL byte (fmt: what it holds, of uri), counted
   with the bad requests. */
static enum MHD_Result
s_nul (http_t *self, struct MHD_Connection *c, const char *fmt, const char *uri)
{
    __atomic_add_fetch (&self->bad, 1, __ATOMIC_RELAXED);
    char msg[600] = "400: ";
    int n = 5 + snprintf (msg + 5, sizeof msg - 6, fmt, uri);
    if (n > (int) sizeof msg - 2)
        n = (int) sizeof msg - 2;
    msg[n++] = '\n';
    return reply (c, MHD_HTTP_BAD_REQUEST, "text/plain", msg, (size_t) n, true);
}

static enum MHD_Result
on_request (void *cls, struct MHD_Connection *c, const char *url, const char *method,
            const char *version, const char *upload, size_t *upload_len, void **state)
{
    (void) upload;
    http_t *self = cls;
    /* This thread yields to the event loop: under a fleet's load a scrape
       or a report takes longer rather than snapshots waiting (Linux: a
       thread's own nice). */
    static _Thread_local bool niced;
    if (!niced) {
        if (setpriority (PRIO_PROCESS, (id_t) gettid (), HTTP_NICE) != 0)
            log_warn ("--http: cannot lower its thread's priority: %s", strerror (errno));
        niced = true;
    }
    req_t *rq = *state;
    if (!rq)                    /* out of memory in s_uri_log */
        return MHD_NO;
    if (!rq->started) {         /* the headers: answer once the body (if any) is in */
        rq->started = true;
        return MHD_YES;
    }
    if (*upload_len) {
        *upload_len = 0;        /* a body is read and dropped: nothing is written */
        return MHD_YES;
    }
    /* The whole request, body included (one trickled stays on its
       deadline): not evicted while answered, kept alive HTTP_KEEP_S
       after. */
    http_pool_busy (self->pool, s_conn (c));
    MHD_set_connection_option (c, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned) HTTP_KEEP_S);
    if (self->token && !authorized (self, c)) {
        static const char denied[] = "401: give the token of --http-token-file as "
                                     "'Authorization: Bearer TOKEN'\n";
        __atomic_add_fetch (&self->denied, 1, __ATOMIC_RELAXED);
        return reply (c, MHD_HTTP_UNAUTHORIZED, "text/plain", denied, sizeof denied - 1, false);
    }
    static const char not_allowed[] = "405: iofleet-controller's HTTP is read-only: GET and "
                                      "HEAD\n";
    static const char not_found[] = "404: iofleet-controller serves /metrics (Prometheus); the "
                                    "pages /, /runs/ID, /runs/ID/live, /compare?a=RUN&b=RUN, "
                                    "/history?plan=&step=&metric=&by=, /agents, /schedules; and "
                                    "as JSON /api/runs, /api/runs/ID, /api/runs/ID/live, "
                                    "/api/plans, /api/compare?a=RUN&b=RUN, /api/history?..., "
                                    "/api/agents, /api/schedules, /api/inventory/AGENT\n";
    if (strcmp (method, "GET") != 0 && strcmp (method, "HEAD") != 0)
        return reply (c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", not_allowed,
                      sizeof not_allowed - 1, false);
    /* A raw NUL in the request line, or %00, which libmicrohttpd decodes
       into a NUL that ends the path or the argument there: /runs/1%00/live
       would be /runs/1. */
    if (s_raw_nul (rq, version))
        return s_nul (self, c, "'%.512s' then a NUL byte: the request line holds one; no path "
                      "or argument of iofleet-controller does", rq->uri);
    if (rq->uri && strstr (rq->uri, "%00"))
        return s_nul (self, c, "'%.512s': a NUL byte (%%00) in the path or query; no path or "
                      "argument of iofleet-controller holds one", rq->uri);
    if (strcmp (url, "/metrics") == 0) {
        count (self, P_METRICS);
        return serve_metrics (self, c);
    }
    if (strncmp (url, "/api/", 5) == 0) {
        count (self, P_API);
        enum MHD_Result rc;
        if (serve_api (self, c, url + 4, &rc))
            return rc;
    } else {
        src_t sc = { self, c };
        web_src_t src = { src_arg, src_fetch, &sc };
        char *body;
        size_t len;
        unsigned status;
        count (self, !strcmp (url, "/") ? P_RUNS : !strcmp (url, "/compare") ? P_COMPARE
                     : !strcmp (url, "/history") ? P_HISTORY : !strcmp (url, "/agents") ? P_AGENTS
                     : !strcmp (url, "/schedules") ? P_SCHEDULES
                     : !strncmp (url, "/runs/", 6) && strstr (url, "/live") ? P_LIVE
                     : !strncmp (url, "/runs/", 6) ? P_REPORT : P_OTHER);
        if (web_page (url, &src, &body, &len, &status)) {
            static const char oom[] = "500: the page could not be made (out of memory?)\n";
            return body ? reply_taken (c, status, HTML_TYPE, body, len)
                        : reply (c, status, "text/plain", oom, sizeof oom - 1, false);
        }
    }
    return reply (c, MHD_HTTP_NOT_FOUND, "text/plain", not_found, sizeof not_found - 1, false);
}

http_t *
http_start (const http_opts_t *o, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    char *cert, *key, *token;
    if (http_opts_load (o, &ss, &sl, &cert, &key, &token, err, errlen))
        return NULL;
    http_t *self = calloc (1, sizeof *self);
    if (!self) {
        http_opts_unload (cert, key, token);
        snprintf (err, errlen, "out of memory");
        return NULL;
    }
    self->token = token;
    self->tls = cert != NULL;
    size_t hl = (size_t) (strrchr (o->addr, ':') - o->addr);
    snprintf (self->host, sizeof self->host, "%.*s", (int) hl, o->addr);
    if (strcmp (self->host, "localhost") == 0)
        snprintf (self->host, sizeof self->host, "127.0.0.1");
    self->db = o->db ? strdup (o->db) : NULL;
    self->sched = metrics_sched_new ();
    struct rlimit rl;
    long nofile = getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                  ? (long) rl.rlim_cur : 4L * HTTP_POOL_MAX;
    unsigned pool = (unsigned) (nofile / 4 < HTTP_POOL_MIN ? HTTP_POOL_MIN
                                : nofile / 4 > HTTP_POOL_MAX ? HTTP_POOL_MAX : nofile / 4);
    pthread_mutex_init (&self->lock, NULL);
    pthread_mutex_init (&self->loglock, NULL);
    pthread_mutex_init (&self->scrape, NULL);
    pthread_mutex_init (&self->asker, NULL);
    pthread_cond_init (&self->fresh, NULL);
    self->pool = http_pool_new (pool, HTTP_REQUEST_S, HTTP_KEEP_S);
    if (!self->pool) {
        http_opts_unload (cert, key, NULL);
        snprintf (err, errlen, "out of memory");
        http_stop (&self);
        return NULL;
    }
    /* epoll, not select: the controller holds a socket per agent, past
       FD_SETSIZE for a fleet of a thousand.  A pool of HTTP_THREADS. */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG
                     | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0)
                     | (self->tls ? MHD_USE_TLS : 0);
    struct MHD_OptionItem tls[] = {
        { MHD_OPTION_HTTPS_MEM_CERT, 0, cert },
        { MHD_OPTION_HTTPS_MEM_KEY, 0, key },
        { MHD_OPTION_END, 0, NULL },
    };
    self->d = MHD_start_daemon (flags, 0, NULL, NULL, on_request, self,
                                /* First: its messages of the options below
                                   go there too. */
                                MHD_OPTION_EXTERNAL_LOGGER, s_mhd_log, self,
                                MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &ss,
                                /* Above the pool's: the connections it shut
                                   count here until their threads close them. */
                                MHD_OPTION_CONNECTION_LIMIT, pool + pool / 4 + 4 * HTTP_THREADS,
                                MHD_OPTION_THREAD_POOL_SIZE, (unsigned) HTTP_THREADS,
                                MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) HTTP_REQUEST_S,
                                MHD_OPTION_NOTIFY_CONNECTION, s_on_connection, self,
                                MHD_OPTION_NOTIFY_COMPLETED, s_on_completed, self,
                                MHD_OPTION_URI_LOG_CALLBACK, s_uri_log, self,
                                MHD_OPTION_ARRAY, self->tls ? tls : tls + 2, MHD_OPTION_END);
    /* The certificate and key are the daemon's now (it parsed them). */
    http_opts_unload (cert, key, NULL);
    if (!self->d) {
        snprintf (err, errlen, "--http '%s': cannot listen there (the port taken by another "
                  "process%s? choose another)", o->addr,
                  self->tls ? ", or a certificate and key that do not match" : "");
        http_stop (&self);
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

json_t *
http_asked (http_t *self)
{
    if (!__atomic_load_n (&self->asking, __ATOMIC_ACQUIRE))
        return NULL;
    pthread_mutex_lock (&self->lock);
    json_t *req = self->ask;
    self->ask = NULL;
    self->taken_seq = self->ask_seq;
    __atomic_store_n (&self->asking, false, __ATOMIC_RELEASE);
    pthread_mutex_unlock (&self->lock);
    return req;
}

void
http_answer (http_t *self, char *text, size_t len, bool failed)
{
    pthread_mutex_lock (&self->lock);
    free (self->answer);
    self->answer = text;
    self->answer_len = len;
    self->answer_failed = failed;
    self->answer_seq = self->taken_seq;
    pthread_cond_broadcast (&self->fresh);
    pthread_mutex_unlock (&self->lock);
}

const char *
http_url (const http_t *self, char *buf, size_t len)
{
    snprintf (buf, len, "%s://%s:%u/metrics", self->tls ? "https" : "http", self->host,
              http_port (self));
    return buf;
}

void
http_stop (http_t **self_p)
{
    http_t *self = *self_p;
    if (!self)
        return;
    if (self->d)
        MHD_stop_daemon (self->d);
    http_pool_destroy (&self->pool);
    pthread_mutex_destroy (&self->lock);
    pthread_mutex_destroy (&self->loglock);
    pthread_mutex_destroy (&self->scrape);
    pthread_mutex_destroy (&self->asker);
    pthread_cond_destroy (&self->fresh);
    metrics_snap_free (&self->snap);
    metrics_sched_destroy (&self->sched);
    json_decref (self->ask);
    free (self->answer);
    for (int i = 0; i < self->nreaders; i++)
        store_close (&self->readers[i]);
    free (self->db);
    http_opts_unload (NULL, NULL, self->token);
    free (self);
    *self_p = NULL;
}
