/*  test_http_pool: --http's connection pool (controller/serve/http_pool.c)
    on real loopback sockets: a connection that has not sent a whole
    request by its deadline is shut (its client reads EOF) when the pool
    is next looked at; the pool full, the one idle longest is shut for the
    newcomer, never one whose request is in hand, nor the newcomer; a
    kept-alive one gets keep_s after its answer; a descriptor that is no
    longer the connection's peer is left alone.
*/
#define _GNU_SOURCE
#include "http_pool.h"
#include "testutil.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>

#define N 4

static int lsock;
static struct sockaddr_in laddr;

/* A connected pair: *cli the client's end, returns the server's (its
   peer address in *peer). */
static int
pair (int *cli, struct sockaddr_in *peer)
{
    *cli = socket (AF_INET, SOCK_STREAM, 0);
    if (connect (*cli, (struct sockaddr *) &laddr, sizeof laddr) != 0)
        return -1;
    socklen_t pl = sizeof *peer;
    return accept (lsock, (struct sockaddr *) peer, &pl);
}

/* Whether the client's end reads EOF (its server end shut) now. */
static bool
shut (int cli)
{
    struct pollfd p = { cli, POLLIN, 0 };
    char c;
    return poll (&p, 1, 50) == 1 && read (cli, &c, 1) == 0;
}

int
main (void)
{
    lsock = socket (AF_INET, SOCK_STREAM, 0);
    laddr.sin_family = AF_INET;
    laddr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    socklen_t ll = sizeof laddr;
    CHECK (bind (lsock, (struct sockaddr *) &laddr, sizeof laddr) == 0);
    CHECK (listen (lsock, 16) == 0);
    CHECK (getsockname (lsock, (struct sockaddr *) &laddr, &ll) == 0);

    int cli[N], srv[N];
    struct sockaddr_in peer[N];
    for (int i = 0; i < N; i++)
        CHECK ((srv[i] = pair (&cli[i], &peer[i])) >= 0);

    /* Size 2, 5 s for a request, 30 s kept alive. */
    http_pool_t *pool = http_pool_new (2, 5, 30);
    CHECK (pool);
    http_conn_t *c[N] = { 0 };
    c[0] = http_pool_open (pool, srv[0], (struct sockaddr *) &peer[0], sizeof peer[0], 100);
    c[1] = http_pool_open (pool, srv[1], (struct sockaddr *) &peer[1], sizeof peer[1], 101);
    CHECK (!shut (cli[0]) && !shut (cli[1]));
    /* c[0] has its request in hand: the full pool evicts c[1], idle. */
    http_pool_busy (pool, c[0]);
    c[2] = http_pool_open (pool, srv[2], (struct sockaddr *) &peer[2], sizeof peer[2], 102);
    CHECK (!shut (cli[0]));
    CHECK (shut (cli[1]));
    CHECK (!shut (cli[2]));
    http_pool_stats_t st = http_pool_stats (pool);
    CHECK (st.evicted == 1 && st.slow == 0 && st.open == 3 && st.accepted == 3);
    http_pool_close (pool, &c[1]);
    CHECK (c[1] == NULL);
    CHECK (http_pool_stats (pool).open == 2);

    /* c[0] answered at 103: kept alive to 133.  At 108 c[2]'s 5 s have
       passed (from 102): a newcomer's sweep shuts it as slow, and the
       pool (c[0], c[3]) is not full. */
    http_pool_idle (pool, c[0], 103);
    c[3] = http_pool_open (pool, srv[3], (struct sockaddr *) &peer[3], sizeof peer[3], 108);
    CHECK (shut (cli[2]));
    CHECK (!shut (cli[0]) && !shut (cli[3]));
    st = http_pool_stats (pool);
    CHECK (st.slow == 1 && st.evicted == 1);
    http_pool_close (pool, &c[2]);

    /* A descriptor no longer the peer's (closed and reused by another
       socket) is not shut: c[3]'s fd now another connection's. */
    int cli5, srv5;
    struct sockaddr_in peer5;
    CHECK ((srv5 = pair (&cli5, &peer5)) >= 0);
    CHECK (dup2 (srv5, srv[3]) == srv[3]);
    /* At 200 both deadlines passed: c[0] shut, c[3]'s fd left alone. */
    http_conn_t *c5 = http_pool_open (pool, srv5, (struct sockaddr *) &peer5, sizeof peer5, 200);
    CHECK (shut (cli[0]));
    CHECK (!shut (cli5));
    CHECK (http_pool_stats (pool).slow == 3);
    http_pool_close (pool, &c[0]);
    http_pool_close (pool, &c[3]);
    http_pool_close (pool, &c5);
    CHECK (http_pool_stats (pool).open == 0);
    http_pool_destroy (&pool);
    CHECK (pool == NULL);
    http_pool_destroy (&pool);  /* NULL: a no-op */

    /* A request waiting unread (a real client amid a flood) is passed
       over: the full pool evicts the younger one that sent nothing. */
    pool = http_pool_new (2, 5, 30);
    int fc[3], fs[3];
    struct sockaddr_in fp[3];
    http_conn_t *f[3] = { 0 };
    for (int i = 0; i < 3; i++)
        CHECK ((fs[i] = pair (&fc[i], &fp[i])) >= 0);
    CHECK (write (fc[0], "GET /metrics HTTP/1.1\r\n", 23) == 23);
    f[0] = http_pool_open (pool, fs[0], (struct sockaddr *) &fp[0], sizeof fp[0], 300);
    f[1] = http_pool_open (pool, fs[1], (struct sockaddr *) &fp[1], sizeof fp[1], 301);
    f[2] = http_pool_open (pool, fs[2], (struct sockaddr *) &fp[2], sizeof fp[2], 302);
    CHECK (!shut (fc[0]));
    CHECK (shut (fc[1]));
    CHECK (!shut (fc[2]));
    CHECK (http_pool_stats (pool).evicted == 1);
    for (int i = 0; i < 3; i++) {
        http_pool_close (pool, &f[i]);
        close (fc[i]);
        close (fs[i]);
    }
    http_pool_destroy (&pool);
    for (int i = 0; i < N; i++) {
        close (cli[i]);
        close (srv[i]);
    }
    close (cli5);
    close (srv5);
    close (lsock);
    return TEST_DONE ();
}
