/*  store_held.c: why the writer is held, in figures a person can act on
    (store.h: store_held).  */
#include "store.h"
#include "store_internal.h"
#include "util.h"

#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

/* A WAL frame: a 24-byte header and the page (sqlite.org/fileformat2.html). */
#define WAL_FRAME_HEADER 24

bool
store_held (store_t *self, store_held_t *h)
{
    IOF_ASSERT (self && h);
    if (!self->failing)
        return false;
    memset (h, 0, sizeof *h);
    h->rc = self->fail_rc;
    h->disk_full = (self->fail_rc & 0xff) == SQLITE_FULL;
    h->since_s = (double) (clock_mono_ns () - self->failing_since) / 1e9;
    /* What the held writes need, at the least: the database file must
       grow by the pages the WAL holds past its end before the
       checkpointer can copy the WAL in (and the WAL's space be written
       again), and the held transaction needs its frames, taken as many
       as the last transaction stored wrote.  What the rest of the run
       will add comes on top. */
    int64_t pages = 0, page_size = 0;
    store_size (self, &pages, &page_size);
    struct stat sb;
    uint64_t file = stat (self->path, &sb) == 0 ? (uint64_t) sb.st_size : 0;
    uint64_t want = (uint64_t) (pages > 0 ? pages : 0) * (uint64_t) (page_size > 0 ? page_size : 0);
    h->needed_bytes = want > file ? want - file : 0;
    h->needed_bytes += self->tx_pages * (uint64_t) (page_size + WAL_FRAME_HEADER);
    /* What a writer that is not root may still take on the file system. */
    char dir[sizeof self->path];
    snprintf (dir, sizeof dir, "%s", self->path);
    struct statvfs vfs;
    h->free_known = statvfs (dirname (dir), &vfs) == 0;
    if (h->free_known)
        h->free_bytes = (uint64_t) vfs.f_bavail * (uint64_t) vfs.f_frsize;
    return true;
}

void
store_held_text (const store_held_t *h, char *buf, size_t cap)
{
    IOF_ASSERT (h && buf && cap);
    /* Needed rounded up, free rounded down: never "0.0 needed" for a few
       bytes, nor more free than there is. */
    double need = ceil ((double) h->needed_bytes / 104857.6) / 10;
    double avail = floor ((double) h->free_bytes / 104857.6) / 10;
    char free_text[48] = "free space unknown";
    if (h->free_known)
        snprintf (free_text, sizeof free_text, "%.1f MiB free", avail);
    if (h->disk_full)
        snprintf (buf, cap, "held: the database's disk is full (%.1f MiB needed, %s)", need,
                  free_text);
    else
        snprintf (buf, cap, "held: the database cannot be written (%s; %s)",
                  sqlite3_errstr (h->rc), free_text);
}

json_t *
store_held_json (store_t *self)
{
    store_held_t h;
    if (!store_held (self, &h))
        return NULL;
    char text[256];
    store_held_text (&h, text, sizeof text);
    json_t *o = json_pack ("{s:s, s:s, s:I, s:f, s:s}",
                           "reason", h.disk_full ? "disk_full" : "write_error",
                           "error", sqlite3_errstr (h.rc),
                           "needed_bytes", (json_int_t) h.needed_bytes, "since_s", h.since_s,
                           "message", text);
    if (o && h.free_known)
        json_object_set_new (o, "free_bytes", json_integer ((json_int_t) h.free_bytes));
    return o;
}
