/*  gz.c: gzip replies, see gz.h. */
#include "gz.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define GZ_WINDOW (15 + 16)     /* zlib: 32 KiB window, gzip wrapper */

struct gz_stream {
    z_stream z;
    bool open;                  /* deflateInit2 done, deflateEnd not */
};

gz_stream_t *
gz_stream_new (void)
{
    gz_stream_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    if (deflateInit2 (&self->z, Z_BEST_SPEED, Z_DEFLATED, GZ_WINDOW, 8, Z_DEFAULT_STRATEGY)
        != Z_OK) {
        free (self);
        return NULL;
    }
    self->open = true;
    return self;
}

/* Makes room for at least want more bytes in *out.  Returns 0 or -1. */
static int
room (char **out, size_t len, size_t *cap, size_t want)
{
    if (*cap - len >= want)
        return 0;
    size_t c = *cap ? *cap : 64 * 1024;
    while (c - len < want) {
        if (c > SIZE_MAX / 2)
            return -1;
        c *= 2;
    }
    char *d = realloc (*out, c);
    if (!d)
        return -1;
    *out = d;
    *cap = c;
    return 0;
}

int
gz_stream_put (gz_stream_t *self, const char *s, size_t n, bool finish, char **out,
               size_t *len, size_t *cap)
{
    if (!self->open)
        return -1;
    do {
        /* zlib's counters are 32-bit: at most 1 GiB in at a time. */
        size_t chunk = n > ((size_t) 1 << 30) ? (size_t) 1 << 30 : n;
        bool last = chunk == n;
        self->z.next_in = (Bytef *) s;
        self->z.avail_in = (uInt) chunk;
        int rc;
        do {
            if (room (out, *len, cap, 64 * 1024))
                return -1;
            size_t free_bytes = *cap - *len;
            self->z.next_out = (Bytef *) *out + *len;
            self->z.avail_out = (uInt) (free_bytes > UINT32_MAX ? UINT32_MAX : free_bytes);
            uInt before = self->z.avail_out;
            rc = deflate (&self->z, last && finish ? Z_FINISH : Z_NO_FLUSH);
            *len += before - self->z.avail_out;
            if (rc == Z_STREAM_ERROR)
                return -1;
        } while (self->z.avail_out == 0 || self->z.avail_in > 0
                 || (last && finish && rc != Z_STREAM_END));
        s += chunk;
        n -= chunk;
    } while (n > 0);
    if (finish) {
        deflateEnd (&self->z);
        self->open = false;
    }
    return 0;
}

void
gz_stream_free (gz_stream_t **self_p)
{
    if (!*self_p)
        return;
    if ((*self_p)->open)
        deflateEnd (&(*self_p)->z);
    free (*self_p);
    *self_p = NULL;
}

bool
gz_is (const void *p, size_t n)
{
    const unsigned char *b = p;
    return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

char *
gz_inflate (const void *p, size_t n, size_t max, size_t *len, char *err, size_t errlen)
{
    z_stream z;
    memset (&z, 0, sizeof z);
    if (inflateInit2 (&z, GZ_WINDOW) != Z_OK) {
        snprintf (err, errlen, "out of memory reading a compressed reply");
        return NULL;
    }
    char *out = NULL;
    size_t used = 0, cap = 0;
    z.next_in = (Bytef *) p;
    z.avail_in = n > UINT32_MAX ? UINT32_MAX : (uInt) n;
    bool ok = false;
    const char *why = "it ends before its end";
    while (true) {
        if (room (&out, used, &cap, n / 2 + 64 * 1024 + 1)) {
            why = "out of memory";
            break;
        }
        z.next_out = (Bytef *) out + used;
        z.avail_out = (uInt) (cap - used - 1 > UINT32_MAX ? UINT32_MAX : cap - used - 1);
        uInt before = z.avail_out;
        int rc = inflate (&z, Z_NO_FLUSH);
        used += before - z.avail_out;
        if (used > max) {
            snprintf (err, errlen, "a compressed reply is longer than %zu MiB uncompressed "
                      "(the limit)", max >> 20);
            free (out);
            inflateEnd (&z);
            return NULL;
        }
        if (rc == Z_STREAM_END) {
            if (z.avail_in == 0) {
                ok = true;
                break;
            }
            if (inflateReset (&z) != Z_OK)  /* the next member */
                break;
            continue;
        }
        if (rc == Z_OK)
            continue;
        if (rc == Z_BUF_ERROR && z.avail_out > 0)
            break;              /* no input left mid-member: truncated */
        if (rc == Z_BUF_ERROR)
            continue;
        why = z.msg ? z.msg : "it is not gzip";
        break;
    }
    inflateEnd (&z);
    if (!ok) {
        snprintf (err, errlen, "a compressed reply cannot be read: %s", why);
        free (out);
        return NULL;
    }
    out[used] = '\0';
    *len = used;
    return out;
}
