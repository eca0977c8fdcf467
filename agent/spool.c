/*  spool.c: the agent's on-disk spool of unacknowledged messages (see
    spool.h for what it promises).
*/
#define _GNU_SOURCE
#include "spool.h"
#include "lockfile.h"
#include "log.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zlib.h>

#define HDR_BYTES   28
#define MAGIC       0x53464f49u     /* "IOFS" little-endian */
#define SEGS_PER_SPOOL  8

typedef struct {
    uint64_t run;
    uint32_t step, seq;
    uint32_t seg;           /* segment number */
    uint64_t off;           /* of the payload in the segment */
    uint32_t len;
    uint64_t sent_at;       /* monotonic ns, 0 = never */
    uint8_t resends;        /* since the last (re)connection: backs off */
    bool acked;
    uint8_t *mem;           /* the payload, when it could not be written */
} rec_t;

typedef struct {
    uint32_t no;
    int fd;
    uint64_t bytes;
    uint32_t unacked;
    uint32_t nrecs;
    bool created;           /* by this process (else read at open) */
    bool broken;            /* a short write could not be cut: append no more */
} seg_t;

typedef struct {
    uint64_t run;
    uint32_t step;
    uint32_t dropped;
} drops_t;

struct spool {
    char dir[4096];
    bool readonly;
    bool memory;                /* no directory: every record in memory */
    lockfile_t *lock;           /* DIR/lock: one agent per directory */
    uint64_t max_bytes, seg_bytes;
    rec_t *recs;
    size_t nrecs, caprecs;
    seg_t *segs;                /* oldest first; the last one is appended to */
    size_t nsegs, capsegs;
    drops_t *drops;
    size_t ndrops;
    uint8_t *scratch;
    size_t capscratch;
    spool_stats_t st;
    uint64_t write_logged_at, read_logged_at;
    uint64_t mem_bytes;         /* held in memory (writes failed), bounded too */
};

static void
put_le32 (uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t) (v >> (8 * i));
}

static void
put_le64 (uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t) (v >> (8 * i));
}

static uint32_t
get_le32 (const uint8_t *p)
{
    return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static uint64_t
get_le64 (const uint8_t *p)
{
    return (uint64_t) get_le32 (p) | (uint64_t) get_le32 (p + 4) << 32;
}

static uint32_t
record_crc (const uint8_t *hdr, const uint8_t *buf, size_t len)
{
    uLong crc = crc32 (0L, Z_NULL, 0);
    crc = crc32 (crc, hdr, HDR_BYTES - 4);
    /* Not for an empty payload: crc32 () with a NULL buf returns 0, not
       crc, and buf is NULL for an empty record put as (NULL, 0), or read
       back before any other (scratch not allocated yet): the CRC written
       and the one computed at open would differ, and the segment be cut. */
    if (len)
        crc = crc32 (crc, buf, (uInt) len);
    return (uint32_t) crc;
}

static void
seg_path (const spool_t *self, uint32_t no, char *out, size_t cap)
{
    snprintf (out, cap, "%s/seg-%08u.spool", self->dir, no);
}

static seg_t *
find_seg (spool_t *self, uint32_t no)
{
    for (size_t i = 0; i < self->nsegs; i++)
        if (self->segs[i].no == no)
            return &self->segs[i];
    return NULL;
}

/* Appends a segment entry.  Returns it, or NULL when out of memory. */
static seg_t *
add_seg (spool_t *self, uint32_t no, int fd, uint64_t bytes)
{
    if (self->nsegs == self->capsegs) {
        size_t cap = self->capsegs ? self->capsegs * 2 : 16;
        seg_t *s = realloc (self->segs, cap * sizeof *s);
        if (!s)
            return NULL;
        self->segs = s;
        self->capsegs = cap;
    }
    seg_t *s = &self->segs[self->nsegs++];
    *s = (seg_t) { .no = no, .fd = fd, .bytes = bytes };
    self->st.bytes += bytes;
    return s;
}

/* Appends a record entry.  Returns it, or NULL when out of memory. */
static rec_t *
add_rec (spool_t *self)
{
    if (self->nrecs == self->caprecs) {
        size_t cap = self->caprecs ? self->caprecs * 2 : 64;
        rec_t *r = realloc (self->recs, cap * sizeof *r);
        if (!r)
            return NULL;
        self->recs = r;
        self->caprecs = cap;
    }
    rec_t *r = &self->recs[self->nrecs++];
    memset (r, 0, sizeof *r);
    return r;
}

static drops_t *
drops_for (spool_t *self, uint64_t run, uint32_t step, bool create)
{
    for (size_t i = 0; i < self->ndrops; i++)
        if (self->drops[i].run == run && self->drops[i].step == step)
            return &self->drops[i];
    if (!create)
        return NULL;
    drops_t *d = realloc (self->drops, (self->ndrops + 1) * sizeof *d);
    if (!d)
        return NULL;
    self->drops = d;
    d = &self->drops[self->ndrops++];
    *d = (drops_t) { run, step, 0 };
    return d;
}

/* Removes segment i (file and records).  Unacknowledged records in it are
   counted as dropped when count_drops.  Can't fail. */
static void
remove_seg (spool_t *self, size_t i, bool count_drops)
{
    seg_t *s = &self->segs[i];
    size_t j = 0;
    for (size_t k = 0; k < self->nrecs; k++) {
        rec_t *r = &self->recs[k];
        if (r->seg != s->no || r->mem) {
            self->recs[j++] = *r;
            continue;
        }
        if (!r->acked) {
            self->st.unacked--;
            if (count_drops) {
                self->st.dropped++;
                drops_t *d = drops_for (self, r->run, r->step, true);
                if (d)
                    d->dropped++;
            }
        }
        self->st.records--;
    }
    self->nrecs = j;
    if (s->fd >= 0)
        close (s->fd);
    if (!self->readonly) {
        char path[4200];
        seg_path (self, s->no, path, sizeof path);
        unlink (path);
    }
    self->st.bytes -= s->bytes;
    memmove (s, s + 1, (self->nsegs - i - 1) * sizeof *s);
    self->nsegs--;
}

/* Removes every segment but the one appended to whose records are all
   acknowledged, and records kept in memory that are.  Can't fail. */
static void
reclaim (spool_t *self)
{
    for (size_t i = 0; i + 1 < self->nsegs;)
        if (self->segs[i].unacked == 0)
            remove_seg (self, i, false);
        else
            i++;
    /* Everything acknowledged: empty the segment being written too, so the
       directory shows what is really outstanding (iofleet-agent spool). */
    seg_t *last = self->nsegs ? &self->segs[self->nsegs - 1] : NULL;
    if (last && self->st.unacked == 0 && last->nrecs > 0 && !self->readonly
        && ftruncate (last->fd, 0) == 0) {
        size_t j = 0;
        for (size_t k = 0; k < self->nrecs; k++)
            if (self->recs[k].mem || self->recs[k].seg != last->no)
                self->recs[j++] = self->recs[k];
        self->st.records -= self->nrecs - j;
        self->nrecs = j;
        self->st.bytes -= last->bytes;
        last->bytes = 0;
        last->nrecs = 0;
    }
    size_t j = 0;
    for (size_t k = 0; k < self->nrecs; k++) {
        rec_t *r = &self->recs[k];
        if (r->mem && r->acked) {
            free (r->mem);
            self->mem_bytes -= r->len;
            self->st.records--;
            continue;
        }
        self->recs[j++] = *r;
    }
    self->nrecs = j;
}

/* Makes room for len more bytes in memory under max_bytes: the oldest
   records held in memory go first (unacknowledged ones are counted as
   dropped).  The last record (being put) is kept.  Can't fail. */
static void
drop_mem (spool_t *self, size_t len)
{
    size_t j = 0;
    for (size_t k = 0; k < self->nrecs; k++) {
        rec_t *r = &self->recs[k];
        if (r->mem && k + 1 < self->nrecs && self->mem_bytes + len > self->max_bytes) {
            if (!r->acked) {
                self->st.unacked--;
                self->st.dropped++;
                drops_t *d = drops_for (self, r->run, r->step, true);
                if (d)
                    d->dropped++;
            }
            self->mem_bytes -= r->len;
            self->st.records--;
            free (r->mem);
            continue;
        }
        self->recs[j++] = *r;
    }
    self->nrecs = j;
}

/* Opens segment no for appending (created).  Returns 0 or -errno. */
static int
new_segment (spool_t *self, uint32_t no)
{
    char path[4200];
    seg_path (self, no, path, sizeof path);
    int fd = open (path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    seg_t *s = add_seg (self, no, fd, 0);
    if (s)
        s->created = true;
    if (!s) {
        close (fd);
        unlink (path);
        return -ENOMEM;
    }
    return 0;
}

/* Reads the records of segment file no.  A damaged record ends it: the
   rest is cut off (not when readonly).  Returns 0 or -errno. */
static int
load_segment (spool_t *self, uint32_t no)
{
    char path[4200];
    seg_path (self, no, path, sizeof path);
    int fd = open (path, (self->readonly ? O_RDONLY : O_RDWR | O_APPEND) | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat sb;
    if (fstat (fd, &sb) != 0) {
        int e = -errno;
        close (fd);
        return e;
    }
    uint64_t size = (uint64_t) sb.st_size, off = 0;
    seg_t *s = add_seg (self, no, fd, 0);
    if (!s) {
        close (fd);
        return -ENOMEM;
    }
    uint8_t hdr[HDR_BYTES];
    bool oom = false;           /* then nothing is cut: the data may be good */
    while (off + HDR_BYTES <= size) {
        if (pread (fd, hdr, HDR_BYTES, (off_t) off) != HDR_BYTES)
            break;
        uint32_t len = get_le32 (hdr + 4);
        if (get_le32 (hdr) != MAGIC || len > SPOOL_RECORD_MAX || off + HDR_BYTES + len > size)
            break;
        if (len > self->capscratch) {
            uint8_t *b = realloc (self->scratch, len);
            if (!b) {
                oom = true;
                break;
            }
            self->scratch = b;
            self->capscratch = len;
        }
        if (pread (fd, self->scratch, len, (off_t) (off + HDR_BYTES)) != (ssize_t) len
            || record_crc (hdr, self->scratch, len) != get_le32 (hdr + 24))
            break;
        rec_t *r = add_rec (self);
        if (!r) {
            oom = true;
            break;
        }
        r->run = get_le64 (hdr + 8);
        r->step = get_le32 (hdr + 16);
        r->seq = get_le32 (hdr + 20);
        r->seg = no;
        r->off = off + HDR_BYTES;
        r->len = len;
        s = find_seg (self, no);
        s->nrecs++;
        s->unacked++;
        self->st.records++;
        self->st.unacked++;
        self->st.recovered++;
        off += HDR_BYTES + len;
    }
    s = find_seg (self, no);
    if (oom) {
        s->bytes = off;
        self->st.bytes += off;
        return -ENOMEM;
    }
    if (off < size) {
        self->st.torn_bytes += size - off;
        if (!self->readonly) {
            log_warn ("spool %s: a damaged or torn record at byte %llu (the agent stopped "
                      "mid-write?); %llu byte(s) cut off", path, (unsigned long long) off,
                      (unsigned long long) (size - off));
            if (ftruncate (fd, (off_t) off) != 0)
                log_warn ("spool %s: cannot cut it: %s", path, strerror (errno));
        }
    }
    s->bytes = off;
    self->st.bytes += off;
    return 0;
}

static int
cmp_u32 (const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
    return x < y ? -1 : x > y;
}

/* Loads every segment of the directory, oldest first.  Returns the next
   segment number, or -errno. */
static int64_t
load_all (spool_t *self)
{
    DIR *d = opendir (self->dir);
    if (!d)
        return -errno;
    uint32_t *nos = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir (d))) {
        unsigned long long no;
        char name[64];
        /* Only the names seg_path () gives: another spelling of the same
           number (seg-1.spool) would load that segment twice, and the
           second copy, empty, would then be removed with the records and
           the file of the first.  Up to 10 digits: past 99999999 the names
           are wider than 8. */
        if (sscanf (e->d_name, "seg-%10llu", &no) != 1 || no > UINT32_MAX)
            continue;
        snprintf (name, sizeof name, "seg-%08llu.spool", no);
        if (strcmp (name, e->d_name) != 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            uint32_t *p = realloc (nos, cap * sizeof *p);
            if (!p) {
                free (nos);
                closedir (d);
                return -ENOMEM;
            }
            nos = p;
        }
        nos[n++] = (uint32_t) no;
    }
    closedir (d);
    if (n)      /* qsort (NULL, 0, ...) is undefined */
        qsort (nos, n, sizeof *nos, cmp_u32);
    int64_t next = 1;
    for (size_t i = 0; i < n; i++) {
        int rc = load_segment (self, nos[i]);
        if (rc) {
            free (nos);
            return rc;
        }
        next = (int64_t) nos[i] + 1;
    }
    free (nos);
    /* Empty files (and those cut to nothing) are of no use. */
    for (size_t i = 0; i < self->nsegs && !self->readonly;)
        if (self->segs[i].nrecs == 0)
            remove_seg (self, i, false);
        else
            i++;
    return next;
}

/* "spool directory 'DIR' is in use by pid N on HOST (an iofleet-agent
   started S)" into msg: the words of every message about a spool taken.
   Can't fail. */
static void
say_in_use (const char *dir, const lockfile_info_t *holder, char *msg, size_t msglen)
{
    if (holder->n == 0)
        snprintf (msg, msglen, "spool directory '%s' is in use by another iofleet-agent, "
                  "starting", dir);
    else
        snprintf (msg, msglen, "spool directory '%s' is in use by pid %s on %s (an "
                  "iofleet-agent started %s)", dir, lockfile_get (holder, "pid"),
                  lockfile_get (holder, "host"), lockfile_get (holder, "started"));
}

int
spool_check_lock (const char *dir, lockfile_info_t *holder_out, char *msg, size_t msglen)
{
    char path[4200];
    snprintf (path, sizeof path, "%s/lock", dir);
    lockfile_info_t holder;
    int rc = lockfile_holder (path, &holder);
    if (holder_out)
        *holder_out = holder;
    msg[0] = '\0';
    if (rc == 0)
        return 0;
    if (rc < 0)
        snprintf (msg, msglen, "spool directory '%s': cannot tell whether an agent uses it: "
                  "%s: %s", dir, path, strerror (-rc));
    else
        say_in_use (dir, &holder, msg, msglen);
    return -1;
}

spool_t *
spool_new (const char *dir, uint64_t max_bytes, bool readonly, char *err, size_t errlen)
{
    spool_t *self = calloc (1, sizeof *self);
    if (!self) {
        snprintf (err, errlen, "out of memory");
        return NULL;
    }
    self->readonly = readonly;
    self->max_bytes = max_bytes < SPOOL_MAX_MIN ? SPOOL_MAX_MIN : max_bytes;
    if (!dir) {
        self->memory = true;
        return self;
    }
    if (str_copy (self->dir, sizeof self->dir, dir) != 0) {
        snprintf (err, errlen, "spool directory '%.100s...': path too long", dir);
        spool_destroy (&self);
        return NULL;
    }
    self->seg_bytes = self->max_bytes / SEGS_PER_SPOOL;
    if (!readonly) {
        if (mkdir (dir, 0700) != 0 && errno != EEXIST) {
            snprintf (err, errlen, "cannot create spool directory '%s': %s (create it, or pass "
                      "another --spool-dir)", dir, strerror (errno));
            spool_destroy (&self);
            return NULL;
        }
        char path[4200];
        snprintf (path, sizeof path, "%s/lock", dir);
        lockfile_info_t holder;
        int rc;
        self->lock = lockfile_take (path, NULL, &holder, &rc);
        if (!self->lock && rc == -EWOULDBLOCK) {
            say_in_use (dir, &holder, err, errlen);
            size_t n = strlen (err);
            snprintf (err + n, errlen - n, ": give each agent its own --spool-dir");
            spool_destroy (&self);
            return NULL;
        }
        if (!self->lock) {
            snprintf (err, errlen, "cannot use spool directory '%s': %s (it must be writable; "
                      "or pass another --spool-dir)", dir, strerror (-rc));
            spool_destroy (&self);
            return NULL;
        }
    }
    int64_t next = load_all (self);
    if (next < 0) {
        snprintf (err, errlen, "cannot read spool directory '%s': %s", dir,
                  strerror ((int) -next));
        spool_destroy (&self);
        return NULL;
    }
    if (!readonly) {
        int rc = new_segment (self, (uint32_t) next);
        if (rc) {
            snprintf (err, errlen, "cannot write in spool directory '%s': %s (it must be "
                      "writable, on a local file system with free space)", dir, strerror (-rc));
            spool_destroy (&self);
            return NULL;
        }
    }
    return self;
}

void
spool_destroy (spool_t **self_p)
{
    spool_t *self = *self_p;
    if (!self)
        return;
    for (size_t i = 0; i < self->nrecs; i++)
        free (self->recs[i].mem);
    for (size_t i = 0; i < self->nsegs; i++)
        if (self->segs[i].fd >= 0)
            close (self->segs[i].fd);
    /* Leave the segment being written only if it holds something (never
       one read at open: an open that failed half way must not lose it). */
    if (!self->readonly && self->nsegs && self->segs[self->nsegs - 1].nrecs == 0
        && self->segs[self->nsegs - 1].created) {
        char path[4200];
        seg_path (self, self->segs[self->nsegs - 1].no, path, sizeof path);
        unlink (path);
    }
    lockfile_destroy (&self->lock);
    free (self->recs);
    free (self->segs);
    free (self->drops);
    free (self->scratch);
    free (self);
    *self_p = NULL;
}

/* Writes one record at the end of the active segment.  Returns 0 or
   -errno; on failure the segment is as it was. */
static int
write_record (spool_t *self, rec_t *r, const uint8_t *buf)
{
    seg_t *s = &self->segs[self->nsegs - 1];
    if (s->broken)
        return -EIO;
    uint8_t hdr[HDR_BYTES];
    put_le32 (hdr, MAGIC);
    put_le32 (hdr + 4, r->len);
    put_le64 (hdr + 8, r->run);
    put_le32 (hdr + 16, r->step);
    put_le32 (hdr + 20, r->seq);
    put_le32 (hdr + 24, record_crc (hdr, buf, r->len));
    struct iovec iov[2] = { { hdr, HDR_BYTES }, { (void *) buf, r->len } };
    ssize_t n = writev (s->fd, iov, 2);
    if (n == (ssize_t) (HDR_BYTES + r->len)) {
        r->seg = s->no;
        r->off = s->bytes + HDR_BYTES;
        s->bytes += (uint64_t) n;
        self->st.bytes += (uint64_t) n;
        s->nrecs++;
        s->unacked++;
        return 0;
    }
    int e = n < 0 ? errno : ENOSPC;
    if (n > 0 && ftruncate (s->fd, (off_t) s->bytes) != 0) {
        log_warn ("spool %s: cannot cut a short write: %s", self->dir, strerror (errno));
        s->broken = true;
    }
    return -e;
}

int
spool_put (spool_t *self, uint64_t run, uint32_t step, uint32_t seq, const uint8_t *buf,
           size_t len)
{
    IOF_ASSERT (!self->readonly && (self->nsegs > 0 || self->memory));
    if (len > SPOOL_RECORD_MAX)
        return -EMSGSIZE;
    uint64_t need = HDR_BYTES + len;
    seg_t *s = self->memory ? NULL : &self->segs[self->nsegs - 1];
    if (s && ((s->bytes > 0 && s->bytes + need > self->seg_bytes) || s->broken)) {
        uint32_t no = s->no + 1;
        reclaim (self);
        int rc = new_segment (self, no);
        if (rc && log_ratelimit (&self->write_logged_at, 60 * NS_PER_SEC))
            log_warn ("spool %s: cannot start a new segment: %s; appending to the last one",
                      self->dir, strerror (-rc));
    }
    /* The bound: the oldest segments go first, whatever they hold. */
    while (self->st.bytes + need > self->max_bytes && self->nsegs > 1) {
        uint64_t before = self->st.dropped;
        remove_seg (self, 0, true);
        if (self->st.dropped > before)
            log_warn ("spool %s is full (%llu bytes): dropped the oldest %llu unacknowledged "
                      "record(s) (%llu so far); the controller has been away too long for "
                      "--spool-max", self->dir, (unsigned long long) self->max_bytes,
                      (unsigned long long) (self->st.dropped - before),
                      (unsigned long long) self->st.dropped);
    }
    rec_t *r = add_rec (self);
    if (!r)
        return -ENOMEM;
    r->run = run;
    r->step = step;
    r->seq = seq;
    r->len = (uint32_t) len;
    r->sent_at = clock_mono_ns ();
    /* A memory spool keeps each record as a disk spool keeps one it
       could not write. */
    int rc = self->memory ? -ENOENT : write_record (self, r, buf);
    if (rc) {
        drop_mem (self, len);
        r = &self->recs[self->nrecs - 1];   /* drop_mem moves records */
        r->mem = malloc (len ? len : 1);
        if (!r->mem) {
            self->nrecs--;
            return -ENOMEM;
        }
        if (len)    /* buf may be NULL then */
            memcpy (r->mem, buf, len);
        self->mem_bytes += len;
        if (!self->memory)
            self->st.write_errors++;
        if (!self->memory && log_ratelimit (&self->write_logged_at, 60 * NS_PER_SEC))
            log_warn ("spool %s: cannot write: %s; keeping records in memory (%llu so far): "
                      "they do not outlive this process", self->dir, strerror (-rc),
                      (unsigned long long) self->st.write_errors);
    }
    self->st.records++;
    self->st.unacked++;
    return 0;
}

/* Marks r acknowledged (by the controller: counted in acked).  Can't fail. */
static void
ack_rec (spool_t *self, rec_t *r, bool by_controller)
{
    if (r->acked)
        return;
    r->acked = true;
    self->st.acked += by_controller;
    self->st.unacked--;
    if (!r->mem) {
        seg_t *s = find_seg (self, r->seg);
        IOF_ASSERT (s && s->unacked > 0);
        s->unacked--;
    }
}

void
spool_ack (spool_t *self, uint64_t run, uint32_t step, uint32_t upto)
{
    for (size_t i = 0; i < self->nrecs; i++) {
        rec_t *r = &self->recs[i];
        if (r->run == run && r->step == step && r->seq <= upto)
            ack_rec (self, r, true);
    }
    reclaim (self);
}

void
spool_ack_seqs (spool_t *self, uint64_t run, uint32_t step, const uint32_t *seqs, size_t n)
{
    if (n == 0)
        return;
    for (size_t i = 0; i < self->nrecs; i++) {
        rec_t *r = &self->recs[i];
        if (r->run != run || r->step != step || r->acked)
            continue;
        for (size_t k = 0; k < n; k++)
            if (seqs[k] == r->seq) {
                ack_rec (self, r, true);
                break;
            }
    }
    reclaim (self);
}

bool
spool_last_done (spool_t *self, uint64_t *run, uint32_t *step)
{
    for (size_t i = self->nrecs; i-- > 0;) {
        const rec_t *r = &self->recs[i];
        if (r->seq == SPOOL_SEQ_DONE && !r->acked) {
            *run = r->run;
            *step = r->step;
            return true;
        }
    }
    return false;
}

uint64_t
spool_keep_only (spool_t *self, uint64_t run, uint32_t step)
{
    uint64_t n = 0;
    for (size_t i = 0; i < self->nrecs; i++) {
        rec_t *r = &self->recs[i];
        if ((r->run != run || r->step != step) && !r->acked) {
            ack_rec (self, r, false);
            n++;
        }
    }
    reclaim (self);
    return n;
}

uint64_t
spool_resend_wait (uint64_t after_ns, unsigned resends)
{
    uint64_t wait = after_ns << (resends < 5 ? resends : 5);
    if (wait > SPOOL_RESEND_MAX_NS)
        wait = SPOOL_RESEND_MAX_NS > after_ns ? SPOOL_RESEND_MAX_NS : after_ns;
    return wait;
}

int
spool_resend (spool_t *self, uint64_t now, uint64_t after_ns, spool_send_fn *send, void *arg)
{
    int sent = 0;
    for (size_t i = 0; i < self->nrecs; i++) {
        rec_t *r = &self->recs[i];
        /* A controller that is slow to acknowledge is busy, not deaf (a
           connection does not lose messages; a new one resends all):
           after_ns, then twice, four times... up to SPOOL_RESEND_MAX_NS. */
        uint64_t wait = spool_resend_wait (after_ns, r->resends);
        if (r->acked || (r->sent_at && now - r->sent_at < wait))
            continue;
        const uint8_t *buf = r->mem;
        if (!buf) {
            if (r->len > self->capscratch) {
                uint8_t *b = realloc (self->scratch, r->len);
                if (!b)
                    break;
                self->scratch = b;
                self->capscratch = r->len;
            }
            seg_t *s = find_seg (self, r->seg);
            IOF_ASSERT (s);
            if (pread (s->fd, self->scratch, r->len, (off_t) r->off) != (ssize_t) r->len) {
                if (log_ratelimit (&self->read_logged_at, 60 * NS_PER_SEC))
                    log_warn ("spool %s: cannot read back seq %u of run %llu step %u: %s; "
                              "trying again later", self->dir, r->seq,
                              (unsigned long long) r->run, r->step, strerror (errno));
                r->sent_at = now ? now : 1;
                continue;
            }
            buf = self->scratch;
        }
        if (send (arg, buf, r->len) != 0)
            break;
        self->st.resent += r->sent_at != 0;
        if (r->sent_at && r->resends < UINT8_MAX)
            r->resends++;
        r->sent_at = now ? now : 1;
        sent++;
    }
    return sent;
}

void
spool_unsend (spool_t *self)
{
    for (size_t i = 0; i < self->nrecs; i++)
        self->recs[i].sent_at = 0, self->recs[i].resends = 0;
}

uint32_t
spool_dropped (spool_t *self, uint64_t run, uint32_t step)
{
    drops_t *d = drops_for (self, run, step, false);
    return d ? d->dropped : 0;
}

void
spool_stats (spool_t *self, spool_stats_t *out)
{
    *out = self->st;
    out->segments = self->nsegs;
}

json_t *
spool_steps_json (spool_t *self)
{
    json_t *list = json_array ();
    for (size_t i = 0; list && i < self->nrecs; i++) {
        rec_t *r = &self->recs[i];
        json_t *o = NULL;
        size_t k;
        json_array_foreach (list, k, o) {
            if ((uint64_t) json_integer_value (json_object_get (o, "run")) == r->run
                && (uint32_t) json_integer_value (json_object_get (o, "step")) == r->step)
                break;
            o = NULL;
        }
        if (!o) {
            o = json_pack ("{s:I, s:i, s:i, s:i, s:b, s:i, s:I}", "run", (json_int_t) r->run,
                           "step", (int) r->step, "records", 0, "unacked", 0, "done", 0,
                           "dropped", (int) spool_dropped (self, r->run, r->step), "bytes",
                           (json_int_t) 0);
            if (!o || json_array_append_new (list, o) != 0) {
                json_decref (list);
                return NULL;
            }
        }
        json_object_set_new (o, "records",
                             json_integer (json_integer_value (json_object_get (o, "records")) + 1));
        if (!r->acked)
            json_object_set_new (o, "unacked", json_integer (
                json_integer_value (json_object_get (o, "unacked")) + 1));
        json_object_set_new (o, "bytes", json_integer (
            json_integer_value (json_object_get (o, "bytes")) + r->len + HDR_BYTES));
        if (r->seq == SPOOL_SEQ_DONE) {
            json_object_set_new (o, "done", json_true ());
            continue;
        }
        json_t *first = json_object_get (o, "first_seq"), *last = json_object_get (o, "last_seq");
        if (!first || json_integer_value (first) > r->seq)
            json_object_set_new (o, "first_seq", json_integer (r->seq));
        if (!last || json_integer_value (last) < r->seq)
            json_object_set_new (o, "last_seq", json_integer (r->seq));
    }
    return list;
}
