/*  gz.h: an admin reply past GZ_AFTER bytes goes out as gzip (RFC 1952).

    A report of 24,000 targets is about 38 MB of JSON; held whole until
    sent, it was the largest block of the controller's memory while a
    report ran.  Compressed as it is written (deflate level 1, about 7x),
    it is a few MB.  A reply is either plain JSON or gzip, told apart by
    its first byte: JSON text never starts with 0x1f.  A gzip reply may be
    several members end to end (a head put in front of a body already
    compressed); gz_inflate reads them all, as gzip -d does.
*/
#ifndef IOF_GZ_H
#define IOF_GZ_H

#include <stdbool.h>
#include <stddef.h>

#define GZ_AFTER ((size_t) 1 << 20)    /* replies longer than this are compressed */

typedef struct gz_stream gz_stream_t;

/* A deflate stream writing gzip.  NULL when out of memory. */
gz_stream_t *gz_stream_new (void);
/* Compresses n bytes of s (finish: and ends the member) and appends what
   comes out to *out (length *len, capacity *cap, grown with realloc).
   Returns 0, or -1 when out of memory. */
int gz_stream_put (gz_stream_t *z, const char *s, size_t n, bool finish, char **out,
                   size_t *len, size_t *cap);
/* Frees the stream.  Can't fail. */
void gz_stream_free (gz_stream_t **z_p);

/* Whether n bytes at p are gzip (its magic), not JSON text.  Can't fail. */
bool gz_is (const void *p, size_t n);
/* The text n bytes of gzip at p hold (every member), NUL-terminated, the
   caller's to free, its length in *len; NULL with err when it is not
   whole gzip or would be longer than max bytes. */
char *gz_inflate (const void *p, size_t n, size_t max, size_t *len, char *err, size_t errlen);

#endif
