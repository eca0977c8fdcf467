/*  json_text.c: a JSON text built piece by piece, see json_text.h. */
#include "json_text.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define JSON_TEXT_MAPPED ((size_t) 33 << 20)   /* glibc's mmap threshold is at most 32 MiB */

void
json_text_init (json_text_t *t)
{
    memset (t, 0, sizeof *t);
}

int
json_text_add (json_text_t *t, const char *s, size_t n)
{
    if (t->failed)
        return -1;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        /* Past 1 MiB, at least JSON_TEXT_MAPPED: above glibc's largest
           mmap threshold, so the block is mapped on its own whatever
           malloc did before; it then grows by remapping (no copy, and the
           pages not yet written cost no memory) and goes back to the
           system when freed. */
        if (cap > (1u << 20) && cap < JSON_TEXT_MAPPED)
            cap = JSON_TEXT_MAPPED;
        char *d = realloc (t->data, cap);
        if (!d) {
            t->failed = true;
            return -1;
        }
        t->data = d;
        t->cap = cap;
    }
    memcpy (t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
    IOF_ASSERT (t->len < t->cap);
    return 0;
}

int
json_text_prepend (json_text_t *t, const char *s, size_t n)
{
    size_t len = t->len;
    /* Grow by n (a big text's realloc remaps its pages, copying none),
       then shift what it holds. */
    if (json_text_add (t, s, n))
        return -1;
    memmove (t->data + n, t->data, len);
    memcpy (t->data, s, n);
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
    if (json_dump_callback (v, dump_cb, t, JSON_COMPACT | JSON_ENCODE_ANY) != 0) {
        t->failed = true;
        return -1;
    }
    return 0;
}

char *
json_text_take (json_text_t *t)
{
    char *d = t->failed ? NULL : t->data;
    if (!d && !t->failed)
        d = strdup ("");
    if (t->failed)
        free (t->data);
    json_text_init (t);
    return d;
}

void
json_text_fini (json_text_t *t)
{
    free (t->data);
    json_text_init (t);
}
