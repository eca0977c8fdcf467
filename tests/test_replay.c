/*  test_replay.c: reading fio iologs for read_iolog (agent/replay.c).
    Each log is written to a file in a fresh directory under /tmp, which
    is removed at the end. */
#include "replay.h"
#include "testutil.h"

#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

static char s_dir[] = "/tmp/iofleet-test-replay.XXXXXX";
static char s_path[256];

/* Loads text as a log; err gets the refusal. */
static replay_log_t *
load (const char *text, char *err, size_t errlen)
{
    FILE *f = fopen (s_path, "w");
    if (!f)
        return NULL;
    fputs (text, f);
    fclose (f);
    err[0] = '\0';
    return replay_load (s_path, err, errlen);
}

/* text must be refused with a message holding want. */
static void
refused (const char *text, const char *want)
{
    char err[512];
    replay_log_t *r = load (text, err, sizeof err);
    CHECK_MSG (r == NULL, "accepted: %s", text);
    CHECK_MSG (strstr (err, want) != NULL, "'%s' does not contain '%s'", err, want);
    replay_free (&r);
}

static void
test_version3 (void)
{
    char err[512];
    replay_log_t *r = load ("fio version 3 iolog\n"
                            "0 /dev/sdb add\n"
                            "5 /dev/sdb open\n"
                            "100 /dev/sdb read 4096 512\n"
                            "200 /dev/sdb write 0 65536\n"
                            "250 /dev/sdb trim 8192 4096\n"
                            "260 /dev/sdb sync 0 0\n"
                            "270 /dev/sdb wait 10 0\n"
                            "300 /dev/sdb close\n", err, sizeof err);
    CHECK_MSG (r != NULL, "%s", err);
    if (!r)
        return;
    CHECK (r->version == 3 && r->nfiles == 1 && strcmp (r->files[0], "/dev/sdb") == 0);
    /* add, open, 3 I/Os, sync, close: the version 3 wait is ignored, as fio does. */
    CHECK_MSG (r->n == 7, "%zu entries", r->n);
    if (r->n == 7) {
        CHECK (r->entries[0].kind == REPLAY_FILE && r->entries[1].usec == 5);
        CHECK (r->entries[2].kind == REPLAY_READ && r->entries[2].offset == 4096
               && r->entries[2].len == 512 && r->entries[2].usec == 100);
        CHECK (r->entries[3].kind == REPLAY_WRITE && r->entries[3].len == 65536);
        CHECK (r->entries[4].kind == REPLAY_TRIM && r->entries[5].kind == REPLAY_SYNC);
        CHECK (r->entries[6].kind == REPLAY_FILE && r->entries[6].usec == 300);
    }
    CHECK (r->min_len[REPLAY_READ] == 512 && r->max_len[REPLAY_WRITE] == 65536
           && r->max_len[REPLAY_TRIM] == 4096);
    replay_free (&r);
    CHECK (r == NULL);
}

static void
test_version2 (void)
{
    char err[512];
    replay_log_t *r = load ("fio version 2 iolog\n"
                            "a add\nb add\na open\nb open\n"
                            "a read 0 4096\n"
                            "b write 4096 4096\n"
                            "a wait 300 0\n"
                            "\n"
                            "b read 8192 4096\n", err, sizeof err);
    CHECK_MSG (r != NULL, "%s", err);
    if (!r)
        return;
    CHECK (r->version == 2 && r->nfiles == 2);
    CHECK_MSG (r->n == 8, "%zu entries", r->n);
    if (r->n == 8) {
        CHECK (r->entries[5].file == 1 && r->entries[5].kind == REPLAY_WRITE);
        CHECK (r->entries[6].kind == REPLAY_WAIT && r->entries[6].offset == 300);
    }
    replay_free (&r);
}

static void
test_refusals (void)
{
    refused ("fio version 1 iolog\nx read 0 1\n", "not an fio iolog of version 2 or 3");
    refused ("", "empty");
    refused ("fio version 3 iolog\n0 f add\n", "no read, write, trim or wait to replay");
    refused ("fio version 3 iolog\n0 f add\n1 f sync 0 0\n", "no read, write, trim or wait");
    refused ("fio version 3 iolog\n1 f read 0 4096\n",
             "line 2: read of 'f', a file the log never added");
    refused ("fio version 3 iolog\n0 f add\n1 f frob 0 4096\n",
             "line 3: action 'frob' is not read, write");
    refused ("fio version 3 iolog\n0 f add\n1 f read x 4096\n", "line 3: offset 'x'");
    refused ("fio version 3 iolog\n0 f add\n1 f read 0 0\n", "line 3: a read of 0 bytes");
    refused ("fio version 3 iolog\n0 f add\n1 f read 0 4294967296\n", "line 3: length");
    refused ("fio version 3 iolog\n0 f add\nx f read 0 4096\n",
             "line 3: 'x' is not a time in microseconds");
    refused ("fio version 3 iolog\n0 f add\n1 f read 0\n", "line 3: 4 fields");
    refused ("fio version 2 iolog\nf add\nf read 0 4096 9\n", "line 3: 5 fields");
    refused ("fio version 2 iolog\nf move\n", "line 2: file action 'move'");
    /* A line longer than the limit. */
    char big[6000];
    memcpy (big, "fio version 2 iolog\n", 20);
    memset (big + 20, 'x', sizeof big - 22);
    big[sizeof big - 2] = '\n';
    big[sizeof big - 1] = '\0';
    refused (big, "line 2: longer than 4096 bytes");
    char err[512];
    CHECK (replay_load ("/nonexistent/iofleet.log", err, sizeof err) == NULL);
    CHECK_MSG (strstr (err, "No such file") != NULL, "%s", err);
}

int
main (void)
{
    if (!mkdtemp (s_dir)) {
        perror ("mkdtemp");
        return 1;
    }
    snprintf (s_path, sizeof s_path, "%s/r.log", s_dir);
    test_version3 ();
    test_version2 ();
    test_refusals ();
    unlink (s_path);
    rmdir (s_dir);
    return TEST_DONE ();
}
