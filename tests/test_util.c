/*  test_util.c: common/util.c's array_room: an array grown by doubling,
    its elements kept, its capacity said, and the array untouched when
    the room can't be had. */
#include "testutil.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>

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
    printf ("test_util: %d checks, %d failed\n", test_checks, test_failures);
    return test_failures ? 1 : 0;
}
