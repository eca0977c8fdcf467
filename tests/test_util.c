/*  test_util.c: common/util.c's array_room: an array grown by doubling,
    its elements kept, its capacity said, and the array untouched when
    the room can't be had; fd_limit_raise to the hard limit and
    fd_limit_restore back (what a controller's hook child gets). */
#include "testutil.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>

/* The soft limit lowered below the hard one, raised to the hard one,
   then put back. */
static void
test_fd_limit (void)
{
    struct rlimit rl;
    CHECK (getrlimit (RLIMIT_NOFILE, &rl) == 0);
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max < 512)
        return;                 /* nothing to raise to, or too little to lower */
    rlim_t hard = rl.rlim_max;
    rl.rlim_cur = 256;
    CHECK (setrlimit (RLIMIT_NOFILE, &rl) == 0);
    long now = fd_limit_raise (FD_LIMIT_HARD);
    CHECK (now == (long) hard || (hard > (rlim_t) FD_LIMIT_NR_OPEN && now == FD_LIMIT_NR_OPEN));
    CHECK (fd_limit_raise (100) == now);        /* never lowered */
    fd_limit_restore ();
    CHECK (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur == 256 && rl.rlim_max == hard);
}

int
main (void)
{
    int *a = NULL;
    size_t cap = 0, n = 0;
    for (int i = 0; i < 1000; i++) {
        int *b = array_room (a, &cap, n, sizeof *a, 16);
        CHECK (b != NULL);
        if (!b)
            break;
        a = b;
        a[n++] = i;
        CHECK (n <= cap);
    }
    CHECK (cap == 1024);                /* 16, doubled six times */
    int ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= a[i] == (int) i;
    CHECK (ok);
    /* Room already: the same array, the same capacity. */
    int *same = array_room (a, &cap, 10, sizeof *a, 16);
    CHECK (same == a && cap == 1024);
    /* Too big to ask for: NULL, the array and its capacity untouched. */
    size_t huge = SIZE_MAX / 2 + 1;
    CHECK (array_room (a, &huge, huge, 1, 16) == NULL && huge == SIZE_MAX / 2 + 1);
    CHECK (a[999] == 999);
    free (a);
    test_fd_limit ();
    printf ("test_util: %d checks, %d failed\n", test_checks, test_failures);
    return test_failures ? 1 : 0;
}
