/*  json_text.c: a JSON text built piece by piece, see json_text.h. */
#include "json_text.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define JSON_TEXT_MAPPED ((size_t) 33 << 20)   /* glibc's mmap threshold is at most 32 MiB */
#define JSON_TEXT_STAGE  ((size_t) 256 << 10)  /* gz: plain text compressed at a time */

void
json_text_init (json_text_t *t)
{
    memset (t, 0, sizeof *t);
}

void
json_text_init_gz (json_text_t *t)
{
    json_text_init (t);
    t->may_gz = true;
}

/* Marks t failed and returns -1. */
static int
fail (json_text_t *t)
{
    t->failed = true;
    return -1;
}

/* Makes room in a plain text for n more bytes and its NUL.  Returns 0 or
   -1 (t failed). */
static int
plain_room (json_text_t *t, size_t n)
{
    if (t->len + n + 1 <= t->cap)
        return 0;
    size_t cap = t->cap ? t->cap : 4096;
    while (cap < t->len + n + 1) {
        if (cap > SIZE_MAX / 2)
            return fail (t);
        cap *= 2;
    }
    /* Past 1 MiB, at least JSON_TEXT_MAPPED: above glibc's largest mmap
       threshold, so the block is mapped on its own whatever malloc did
       before; it then grows by remapping (no copy, and the pages not yet
       written cost no memory) and goes back to the system when freed.  A
       text that turns to gzip there never gets that big. */
    if (!t->may_gz && cap > (1u << 20) && cap < JSON_TEXT_MAPPED)
        cap = JSON_TEXT_MAPPED;
    char *d = realloc (t->data, cap);
    if (!d)
        return fail (t);
    t->data = d;
    t->cap = cap;
    return 0;
}

/* Turns a plain text past GZ_AFTER into gzip: what it holds is compressed
   and freed.  Returns 0 or -1 (t failed). */
static int
start_gz (json_text_t *t)
{
    char *plain = t->data;
    size_t n = t->len;
    t->data = NULL;
    t->len = t->cap = 0;
    t->stage = malloc (JSON_TEXT_STAGE);
    t->gz = gz_stream_new ();
    int rc = t->stage && t->gz ? gz_stream_put (t->gz, plain, n, false, &t->data, &t->len,
                                                &t->cap) : -1;
    free (plain);
    return rc ? fail (t) : 0;
}

/* Compresses the staged text (finish: and ends the gzip).  Returns 0 or
   -1 (t failed). */
static int
gz_flush (json_text_t *t, bool finish)
{
    if (gz_stream_put (t->gz, t->stage, t->staged, finish, &t->data, &t->len, &t->cap))
        return fail (t);
    t->staged = 0;
    return 0;
}

int
json_text_add (json_text_t *t, const char *s, size_t n)
{
    if (t->failed)
        return -1;
    if (t->gz) {
        while (n) {
            size_t k = JSON_TEXT_STAGE - t->staged < n ? JSON_TEXT_STAGE - t->staged : n;
            memcpy (t->stage + t->staged, s, k);
            t->staged += k;
            s += k;
            n -= k;
            if (t->staged == JSON_TEXT_STAGE && gz_flush (t, false))
                return -1;
        }
        return 0;
    }
    if (plain_room (t, n))
        return -1;
    memcpy (t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
    IOF_ASSERT (t->len < t->cap);
    if (t->may_gz && t->len > GZ_AFTER)
        return start_gz (t);
    return 0;
}

int
json_text_prepend (json_text_t *t, const char *s, size_t n)
{
    if (t->failed)
        return -1;
    if (t->gz) {
        /* A member of its own, in front of the ones being written (a gzip
           reader reads members one after the other). */
        gz_stream_t *head = gz_stream_new ();
        char *m = NULL;
        size_t mlen = 0, mcap = 0;
        int rc = head ? gz_stream_put (head, s, n, true, &m, &mlen, &mcap) : -1;
        gz_stream_free (&head);
        char *d = rc ? NULL : realloc (t->data, t->len + mlen);
        if (!d) {
            free (m);
            return fail (t);
        }
        t->data = d;
        t->cap = t->len + mlen;
        memmove (t->data + mlen, t->data, t->len);
        memcpy (t->data, m, mlen);
        t->len += mlen;
        free (m);
        return 0;
    }
    /* Grow by n (a big text's realloc remaps its pages, copying none),
       then shift what it holds. */
    if (plain_room (t, n))
        return -1;
    memmove (t->data + n, t->data, t->len + 1);
    memcpy (t->data, s, n);
    t->len += n;
    if (t->may_gz && t->len > GZ_AFTER)
        return start_gz (t);
    return 0;
}

int
json_text_str (json_text_t *t, const char *s)
{
    return json_text_add (t, s, strlen (s));
}

/* json_dump_callback's writer. */
static int
dump_cb (const char *buffer, size_t size, void *data)
{
    return json_text_add (data, buffer, size);
}

int
json_text_dump (json_text_t *t, const json_t *v)
{
    if (t->failed)
        return -1;
    if (json_dump_callback (v, dump_cb, t, JSON_COMPACT | JSON_ENCODE_ANY) != 0)
        return fail (t);
    return 0;
}

char *
json_text_take (json_text_t *t, size_t *len)
{
    if (t->gz && !t->failed)
        gz_flush (t, true);
    char *d = NULL;
    *len = 0;
    if (!t->failed) {
        d = t->data ? t->data : strdup ("");
        *len = t->data ? t->len : 0;
        t->data = NULL;
    }
    json_text_fini (t);
    return d;
}

void
json_text_fini (json_text_t *t)
{
    free (t->data);
    free (t->stage);
    gz_stream_free (&t->gz);
    json_text_init (t);
}
