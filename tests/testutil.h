/*  testutil.h: the few assertion macros the unit tests share.
    A failed CHECK prints where and why, and the test exits 1 at the end. */
#ifndef IOF_TESTUTIL_H
#define IOF_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One test file, one count.  A program made of several files that CHECK
   (a test and its shared fixture, such as spool_fx.c) is built with
   TEST_SHARED_COUNTS and defines the counts in one of them, so that its
   summary counts every check it ran. */
#ifdef TEST_SHARED_COUNTS
extern int test_failures;
extern int test_checks;
#else
static int test_failures;
static int test_checks;
#endif

#define CHECK(cond) do {                                                   \
    test_checks++;                                                         \
    if (!(cond)) {                                                         \
        fprintf (stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        test_failures++;                                                   \
    }                                                                      \
} while (0)

#define CHECK_MSG(cond, ...) do {                                          \
    test_checks++;                                                         \
    if (!(cond)) {                                                         \
        fprintf (stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
        fprintf (stderr, __VA_ARGS__);                                     \
        fputc ('\n', stderr);                                              \
        test_failures++;                                                   \
    }                                                                      \
} while (0)

#define CHECK_STR_CONTAINS(hay, needle) \
    CHECK_MSG ((hay) && strstr ((hay), (needle)), "'%s' does not contain '%s'", (hay) ? (hay) : "(null)", (needle))

/* splitmix64: a small, good PRNG for reproducible test inputs. */
static inline unsigned long long
test_splitmix64 (unsigned long long *state)
{
    unsigned long long z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Ends main: prints a one-line summary and returns the exit status. */
#define TEST_DONE() (                                                      \
    fprintf (stderr, "%s: %d checks, %d failed\n", __FILE__, test_checks, test_failures), \
    test_failures ? 1 : 0)

#endif
