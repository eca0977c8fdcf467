/*  replay.c: see replay.h. */
#include "replay.h"
#include "util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES 4096

static const char *const s_actions[] = {
    [REPLAY_READ] = "read", [REPLAY_WRITE] = "write", [REPLAY_TRIM] = "trim",
    [REPLAY_SYNC] = "sync", [REPLAY_DATASYNC] = "datasync", [REPLAY_WAIT] = "wait",
};

void
replay_free (replay_log_t **self_p)
{
    replay_log_t *r = *self_p;
    if (!r)
        return;
    for (int i = 0; i < r->nfiles; i++)
        free (r->files[i]);
    free (r->files);
    free (r->entries);
    free (r);
    *self_p = NULL;
}

/* The index of file name among those added, or -1.  Can't fail. */
static int
file_index (const replay_log_t *r, const char *name)
{
    for (int i = 0; i < r->nfiles; i++)
        if (strcmp (r->files[i], name) == 0)
            return i;
    return -1;
}

/* Appends e.  Returns 0, or -1 with err set (over the limit, or out of
   memory). */
static int
add_entry (replay_log_t *r, size_t *cap, const replay_entry_t *e, const char *path, long line,
           char *err, size_t errlen)
{
    if (r->n == REPLAY_ENTRIES_MAX) {
        snprintf (err, errlen, "read_iolog '%s' line %ld: more than %u entries, the limit; "
                  "split the log", path, line, REPLAY_ENTRIES_MAX);
        return -1;
    }
    if (r->n == *cap) {
        size_t n = *cap ? *cap * 2 : 1024;
        replay_entry_t *p = realloc (r->entries, n * sizeof *p);
        if (!p) {
            snprintf (err, errlen, "read_iolog '%s': out of memory at line %ld", path, line);
            return -1;
        }
        r->entries = p;
        *cap = n;
    }
    r->entries[r->n++] = *e;
    return 0;
}

/* Parses one line's fields (after the version 3 time) into r.  Returns 0,
   or -1 with err set. */
static int
parse_fields (replay_log_t *r, size_t *cap, char **tok, int ntok, uint64_t usec,
              const char *path, long line, char *err, size_t errlen)
{
    const char *name = tok[0], *act = tok[1];
    if (strlen (name) > REPLAY_NAME_MAX) {
        snprintf (err, errlen, "read_iolog '%s' line %ld: a file name of %zu bytes, limit %d",
                  path, line, strlen (name), REPLAY_NAME_MAX);
        return -1;
    }
    replay_entry_t e = { .usec = usec, .kind = REPLAY_FILE };
    if (ntok == 2) {
        if (strcmp (act, "add") == 0) {
            if (file_index (r, name) < 0) {
                if (r->nfiles == REPLAY_FILES_MAX) {
                    snprintf (err, errlen, "read_iolog '%s' line %ld: more than %d files, the "
                              "limit", path, line, REPLAY_FILES_MAX);
                    return -1;
                }
                char *copy = strdup (name);
                if (!copy) {
                    snprintf (err, errlen, "read_iolog '%s': out of memory", path);
                    return -1;
                }
                r->files[r->nfiles++] = copy;
            }
        }
        else if (strcmp (act, "open") != 0 && strcmp (act, "close") != 0) {
            snprintf (err, errlen, "read_iolog '%s' line %ld: file action '%s' is not add, "
                      "open or close", path, line, act);
            return -1;
        }
        int f = file_index (r, name);
        if (f < 0) {
            snprintf (err, errlen, "read_iolog '%s' line %ld: '%s %s' of a file the log never "
                      "added (an 'add' line must come first)", path, line, name, act);
            return -1;
        }
        e.file = (uint16_t) f;
        return add_entry (r, cap, &e, path, line, err, errlen);
    }
    int kind = -1;
    for (int k = 0; k < (int) (sizeof s_actions / sizeof s_actions[0]); k++)
        if (strcmp (act, s_actions[k]) == 0)
            kind = k;
    if (kind < 0) {
        snprintf (err, errlen, "read_iolog '%s' line %ld: action '%s' is not read, write, trim, "
                  "sync, datasync or wait", path, line, act);
        return -1;
    }
    uint64_t off, len;
    if (parse_u64 (tok[2], 0, UINT64_MAX >> 1, &off) != 0) {
        snprintf (err, errlen, "read_iolog '%s' line %ld: offset '%s' is not a number", path,
                  line, tok[2]);
        return -1;
    }
    if (parse_u64 (tok[3], 0, UINT32_MAX, &len) != 0) {
        snprintf (err, errlen, "read_iolog '%s' line %ld: length '%s' is not a number 0..%u",
                  path, line, tok[3], UINT32_MAX);
        return -1;
    }
    if (kind == REPLAY_WAIT && r->version == 3)
        return 0;                       /* fio: "ignoring wait command with version 3" */
    if (kind != REPLAY_WAIT) {
        int f = file_index (r, name);
        if (f < 0) {
            snprintf (err, errlen, "read_iolog '%s' line %ld: %s of '%s', a file the log never "
                      "added (an 'add' line must come first)", path, line, act, name);
            return -1;
        }
        e.file = (uint16_t) f;
    }
    if (kind <= REPLAY_TRIM) {
        if (len == 0 || len > (64u << 20)) {
            snprintf (err, errlen, "read_iolog '%s' line %ld: a %s of %llu bytes, limit "
                      "1..67108864", path, line, act, (unsigned long long) len);
            return -1;
        }
        if (!r->max_len[kind] || len > r->max_len[kind])
            r->max_len[kind] = (uint32_t) len;
        if (!r->min_len[kind] || len < r->min_len[kind])
            r->min_len[kind] = (uint32_t) len;
    }
    e.kind = (uint8_t) kind;
    e.offset = off;
    e.len = (uint32_t) len;
    return add_entry (r, cap, &e, path, line, err, errlen);
}

replay_log_t *
replay_load (const char *path, char *err, size_t errlen)
{
    FILE *f = fopen (path, "re");
    if (!f) {
        snprintf (err, errlen, "read_iolog '%s': %s", path, strerror (errno));
        return NULL;
    }
    replay_log_t *r = calloc (1, sizeof *r);
    char *buf = malloc (LINE_MAX_BYTES + 2);
    if (!r || !buf || !(r->files = calloc (REPLAY_FILES_MAX, sizeof *r->files))) {
        snprintf (err, errlen, "read_iolog '%s': out of memory", path);
        goto fail;
    }
    size_t cap = 0;
    long line = 0;
    bool io = false;
    while (fgets (buf, LINE_MAX_BYTES + 2, f)) {
        line++;
        size_t len = strlen (buf);
        if (len > LINE_MAX_BYTES || (len == LINE_MAX_BYTES + 1 && buf[len - 1] != '\n')) {
            snprintf (err, errlen, "read_iolog '%s' line %ld: longer than %d bytes", path, line,
                      LINE_MAX_BYTES);
            goto fail;
        }
        if (line == 1) {
            /* fio compares the start of the first line only. */
            if (strncmp (buf, "fio version 2 iolog", 19) == 0)
                r->version = 2;
            else if (strncmp (buf, "fio version 3 iolog", 19) == 0)
                r->version = 3;
            else {
                snprintf (err, errlen, "read_iolog '%s': not an fio iolog of version 2 or 3 "
                          "(its first line is not 'fio version 2 iolog' or 'fio version 3 "
                          "iolog'; fio 3.33 no longer takes version 1)", path);
                goto fail;
            }
            continue;
        }
        char *tok[6], *save = NULL;
        int ntok = 0;
        for (char *t = strtok_r (buf, " \t\r\n", &save); t; t = strtok_r (NULL, " \t\r\n", &save)) {
            if (ntok < 6)
                tok[ntok] = t;
            ntok++;
        }
        if (ntok == 0)
            continue;
        uint64_t usec = 0;
        int first = 0;
        if (r->version == 3) {
            if (parse_u64 (tok[0], 0, UINT64_MAX >> 1, &usec) != 0) {
                snprintf (err, errlen, "read_iolog '%s' line %ld: '%s' is not a time in "
                          "microseconds (version 3 lines start with one)", path, line, tok[0]);
                goto fail;
            }
            first = 1;
        }
        int nf = ntok - first;
        if (nf != 2 && nf != 4) {
            snprintf (err, errlen, "read_iolog '%s' line %ld: %d fields; a version %d line is "
                      "%sFILE ACTION, or %sFILE ACTION OFFSET LENGTH", path, line, ntok,
                      r->version, first ? "USEC " : "", first ? "USEC " : "");
            goto fail;
        }
        if (parse_fields (r, &cap, tok + first, nf, usec, path, line, err, errlen))
            goto fail;
        if (nf == 4 && r->n) {
            uint8_t k = r->entries[r->n - 1].kind;
            io |= k <= REPLAY_TRIM || k == REPLAY_WAIT;
        }
    }
    if (ferror (f)) {
        snprintf (err, errlen, "read_iolog '%s': reading: %s", path, strerror (errno));
        goto fail;
    }
    if (line == 0) {
        snprintf (err, errlen, "read_iolog '%s': empty (an fio iolog starts with 'fio version "
                  "3 iolog')", path);
        goto fail;
    }
    if (!io) {
        /* fio 3.33: "failed initializing iolog" (err 22). */
        snprintf (err, errlen, "read_iolog '%s': no read, write, trim or wait to replay", path);
        goto fail;
    }
    free (buf);
    fclose (f);
    return r;
fail:
    free (buf);
    fclose (f);
    replay_free (&r);
    return NULL;
}
