/*  snapshot_codec.c: see snapshot_codec.h. */
#include "snapcodec.h"
#include "histogram.h"
#include "message.h"
#include "store.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* Dictionaries a codec has loaded: a database trains a handful in its
   life (one today), so a short list. */
#define DICTS_MAX 8

/* A block's first byte: 1, or 2 when a target of it carries a
   temperature (bit 3 of its direction mask), so that a release before
   temperatures refuses such a block as a format it does not know rather
   than as a bad target; blocks without one stay readable by it. */
#define BLOCK_FORMAT 1
#define BLOCK_FORMAT_TEMP 2
/* A temperature's zigzag varint, at most (message.h's bounds). */
#define TEMP_ZIGZAG_MAX ((uint64_t) 2 * MSG_TEMP_MAX_MC)
enum { S_FIELDS, S_HEAD0, S_GAPS = S_HEAD0 + HIST_WIRE_HEAD, S_COUNTS, S_WHOLE, S_N };

typedef struct {
    uint8_t *b;
    size_t len, cap;
} sbuf_t;

struct snapcodec {
    sqlite3 *db;
    ZSTD_CCtx *cctx;
    ZSTD_DCtx *dctx;
    struct { int64_t id; ZSTD_DDict *dd; } dicts[DICTS_MAX];
    int ndicts;
    int64_t enc_id;             /* the dictionary blocks are written with; 0 none */
    ZSTD_CDict *enc_dict;
    uint8_t *buf, *raw;         /* the compressed and the packed bytes of the last call */
    size_t bufcap, rawcap;
    /* Kept from call to call (ingest encodes a block per message): the
       streams being packed, the targets sorted, and a histogram's gaps
       and counts (HIST_NBUCKETS each). */
    sbuf_t st[S_N];
    Iofleet__TargetSample **sorted;
    size_t sortedcap;
    uint64_t *scratch;
};

static int
grow (uint8_t **b, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16384;
    while (n < need)
        n *= 2;
    uint8_t *nb = realloc (*b, n);
    if (!nb)
        return -1;
    *b = nb;
    *cap = n;
    return 0;
}

snapcodec_t *
snapcodec_new (sqlite3 *db)
{
    snapcodec_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->db = db;
    self->cctx = ZSTD_createCCtx ();
    self->dctx = ZSTD_createDCtx ();
    self->scratch = malloc (2 * HIST_NBUCKETS * sizeof *self->scratch);
    if (!self->cctx || !self->dctx || !self->scratch) {
        snapcodec_free (&self);
        return NULL;
    }
    return self;
}

void
snapcodec_free (snapcodec_t **self_p)
{
    snapcodec_t *self = *self_p;
    if (!self)
        return;
    ZSTD_freeCCtx (self->cctx);
    ZSTD_freeDCtx (self->dctx);
    ZSTD_freeCDict (self->enc_dict);
    for (int i = 0; i < self->ndicts; i++)
        ZSTD_freeDDict (self->dicts[i].dd);
    free (self->buf);
    free (self->raw);
    for (int i = 0; i < S_N; i++)
        free (self->st[i].b);
    free (self->sorted);
    free (self->scratch);
    free (self);
    *self_p = NULL;
}

/* The bytes of dictionary id (id 0: the newest), into *out (malloc'd).
   Returns 1, 0 when there is none, -1 with err. */
static int
dict_read (snapcodec_t *self, int64_t id, int64_t *got, void **out, size_t *len, char *err,
           size_t errlen)
{
    sqlite3_stmt *st;
    const char *sql = id ? "SELECT id, dict FROM snapshot_dicts WHERE id = ?"
                         : "SELECT id, dict FROM snapshot_dicts ORDER BY id DESC LIMIT 1";
    if (sqlite3_prepare_v2 (self->db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf (err, errlen, "read snapshot_dicts: %s", sqlite3_errmsg (self->db));
        return -1;
    }
    if (id)
        sqlite3_bind_int64 (st, 1, id);
    int rc = sqlite3_step (st), found = 0;
    if (rc == SQLITE_ROW) {
        *got = sqlite3_column_int64 (st, 0);
        *len = (size_t) sqlite3_column_bytes (st, 1);
        *out = malloc (*len ? *len : 1);
        if (!*out) {
            snprintf (err, errlen, "out of memory");
            found = -1;
        } else {
            memcpy (*out, sqlite3_column_blob (st, 1), *len);
            found = 1;
        }
    } else if (rc != SQLITE_DONE) {
        snprintf (err, errlen, "read snapshot_dicts: %s", sqlite3_errmsg (self->db));
        found = -1;
    }
    sqlite3_finalize (st);
    return found;
}

int
snapcodec_reload (snapcodec_t *self, char *err, size_t errlen)
{
    void *d = NULL;
    size_t len = 0;
    int64_t id = 0;
    int rc = dict_read (self, 0, &id, &d, &len, err, errlen);
    if (rc < 0)
        return -1;
    if (rc == 0 || id == self->enc_id) {
        free (d);
        return 0;
    }
    ZSTD_CDict *cd = ZSTD_createCDict (d, len, SNAPCODEC_LEVEL);
    free (d);
    if (!cd) {
        snprintf (err, errlen, "snapshot dictionary %lld: zstd refused it", (long long) id);
        return -1;
    }
    ZSTD_freeCDict (self->enc_dict);
    self->enc_dict = cd;
    self->enc_id = id;
    return 0;
}

static int
by_target (const void *a, const void *b)
{
    const Iofleet__TargetSample *x = *(Iofleet__TargetSample *const *) a;
    const Iofleet__TargetSample *y = *(Iofleet__TargetSample *const *) b;
    return x->target < y->target ? -1 : x->target > y->target;
}

/* --- the block's bytes before compression -------------------------------------------

   BLOCK_FORMAT, then for each of the S_N streams its length (varint),
   then the streams end to end.  S_FIELDS holds, as varints: t_start,
   t_end, the target count, and per target (in target order) its index, a
   mask of the directions present (bit 0 read, 1 write, 2 trim; bit 3:
   the drive's temperature follows, zigzag milli-degrees C), per
   direction its ops, bytes and errors, a mask of the non-empty
   histograms (bit 0 clat, 1 slat, 2 lat), and per histogram 0 (split)
   or 1 (whole, in S_WHOLE as length and bytes).  A split histogram's
   header values go to S_HEAD0 + k, its gaps to S_GAPS and its counts to
   S_COUNTS (common/histogram.h, histogram_wire_split): the gaps of one
   agent's drives are alike and compress to little next to one another,
   where the encodings end to end mix them with the counts (measured:
   docs/design.md). */

static int
put_u (sbuf_t *s, uint64_t v)
{
    if (s->len + 10 > s->cap && grow (&s->b, &s->cap, s->len + 10))
        return -1;
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        s->b[s->len++] = c | (v ? 0x80 : 0);
    } while (v);
    return 0;
}

static int
put_bytes (sbuf_t *s, const void *p, size_t n)
{
    if (put_u (s, n) || (s->len + n > s->cap && grow (&s->b, &s->cap, s->len + n)))
        return -1;
    memcpy (s->b + s->len, p, n);
    s->len += n;
    return 0;
}

static const Iofleet__DirStats *
dir_of (const Iofleet__TargetSample *t, int k)
{
    return k == 0 ? t->read : k == 1 ? t->write : t->trim;
}

static const ProtobufCBinaryData *
hist_of (const Iofleet__DirStats *d, int b)
{
    return b == 0 ? &d->histogram : b == 1 ? &d->slat_histogram : &d->lat_histogram;
}

/* The block's fields of one target into the streams.  -1 out of memory. */
static int
pack_target (sbuf_t *st, const Iofleet__TargetSample *t, uint64_t *gaps, uint64_t *counts)
{
    int dmask = t->has_temperature ? 1 << 3 : 0;
    for (int k = 0; k < 3; k++)
        dmask |= dir_of (t, k) ? 1 << k : 0;
    if (put_u (&st[S_FIELDS], t->target) || put_u (&st[S_FIELDS], (uint64_t) dmask))
        return -1;
    if (t->has_temperature) {
        int64_t v = t->temperature_mc;
        if (put_u (&st[S_FIELDS], (uint64_t) (v < 0 ? -2 * v - 1 : 2 * v)))
            return -1;
    }
    for (int k = 0; k < 3; k++) {
        const Iofleet__DirStats *d = dir_of (t, k);
        if (!d)
            continue;
        int hmask = 0;
        for (int b = 0; b < 3; b++)
            hmask |= hist_of (d, b)->len ? 1 << b : 0;
        if (put_u (&st[S_FIELDS], d->ops) || put_u (&st[S_FIELDS], d->bytes)
            || put_u (&st[S_FIELDS], d->errors) || put_u (&st[S_FIELDS], (uint64_t) hmask))
            return -1;
        for (int b = 0; b < 3; b++) {
            const ProtobufCBinaryData *h = hist_of (d, b);
            if (!h->len)
                continue;
            uint64_t head[HIST_WIRE_HEAD];
            int n = histogram_wire_split (h->data, h->len, head, gaps, counts);
            if (put_u (&st[S_FIELDS], n < 0))
                return -1;
            if (n < 0) {
                if (put_bytes (&st[S_WHOLE], h->data, h->len))
                    return -1;
                continue;
            }
            for (int i = 0; i < HIST_WIRE_HEAD; i++)
                if (put_u (&st[S_HEAD0 + i], head[i]))
                    return -1;
            for (int i = 0; i < n; i++)
                if (put_u (&st[S_GAPS], gaps[i]) || put_u (&st[S_COUNTS], counts[i]))
                    return -1;
        }
    }
    return 0;
}

int
snapcodec_pack (snapcodec_t *self, const Iofleet__Snapshot *s, const uint8_t **out, size_t *len,
                char *err, size_t errlen)
{
    /* On the heap: a message's target count is bounded by its size only. */
    size_t need_sorted = (s->n_targets ? s->n_targets : 1) * sizeof *self->sorted;
    sbuf_t *st = self->st;
    for (int i = 0; i < S_N; i++)
        st[i].len = 0;
    int rc = 0;
    if (need_sorted > self->sortedcap) {
        Iofleet__TargetSample **ns = realloc (self->sorted, need_sorted);
        if (ns) {
            self->sorted = ns;
            self->sortedcap = need_sorted;
        } else
            rc = -1;
    }
    Iofleet__TargetSample **sorted = self->sorted;
    uint64_t *gaps = self->scratch;
    if (rc == 0) {
        if (s->n_targets)
            memcpy (sorted, s->targets, s->n_targets * sizeof *sorted);
        qsort (sorted, s->n_targets, sizeof *sorted, by_target);
        rc = put_u (&st[S_FIELDS], s->t_start) || put_u (&st[S_FIELDS], s->t_end)
             || put_u (&st[S_FIELDS], s->n_targets) ? -1 : 0;
    }
    for (size_t i = 0; rc == 0 && i < s->n_targets; i++)
        rc = pack_target (st, sorted[i], gaps, gaps + HIST_NBUCKETS);
    size_t need = 1 + S_N * 10;
    for (int i = 0; i < S_N; i++)
        need += st[i].len;
    if (rc == 0 && grow (&self->raw, &self->rawcap, need) == 0) {
        sbuf_t o = { self->raw, 0, self->rawcap };
        bool temps = false;
        for (size_t i = 0; i < s->n_targets; i++)
            temps |= s->targets[i]->has_temperature;
        o.b[o.len++] = temps ? BLOCK_FORMAT_TEMP : BLOCK_FORMAT;
        for (int i = 0; i < S_N; i++)
            put_u (&o, st[i].len);
        for (int i = 0; i < S_N; i++) {
            if (st[i].len)
                memcpy (o.b + o.len, st[i].b, st[i].len);
            o.len += st[i].len;
        }
        *out = self->raw;
        *len = o.len;
    } else
        rc = -1;
    if (rc)
        snprintf (err, errlen, "out of memory");
    return rc;
}

int
snapcodec_encode (snapcodec_t *self, const Iofleet__Snapshot *s, const uint8_t **out,
                  size_t *len, int64_t *dict_id, char *err, size_t errlen)
{
    const uint8_t *raw;
    size_t n;
    if (snapcodec_pack (self, s, &raw, &n, err, errlen))
        return -1;
    size_t bound = ZSTD_compressBound (n);
    if (grow (&self->buf, &self->bufcap, bound)) {
        snprintf (err, errlen, "out of memory");
        return -1;
    }
    size_t z = self->enc_dict
        ? ZSTD_compress_usingCDict (self->cctx, self->buf, bound, self->raw, n, self->enc_dict)
        : ZSTD_compressCCtx (self->cctx, self->buf, bound, self->raw, n, SNAPCODEC_LEVEL);
    if (ZSTD_isError (z)) {
        snprintf (err, errlen, "zstd: %s", ZSTD_getErrorName (z));
        return -1;
    }
    *out = self->buf;
    *len = z;
    *dict_id = self->enc_dict ? self->enc_id : 0;
    return 0;
}

/* The decoder's dictionary id, loaded on first use.  NULL with err. */
static ZSTD_DDict *
ddict (snapcodec_t *self, int64_t id, char *err, size_t errlen)
{
    for (int i = 0; i < self->ndicts; i++)
        if (self->dicts[i].id == id)
            return self->dicts[i].dd;
    void *d = NULL;
    size_t len = 0;
    int64_t got = 0;
    int rc = dict_read (self, id, &got, &d, &len, err, errlen);
    if (rc <= 0) {
        if (rc == 0)
            snprintf (err, errlen, "snapshot dictionary %lld is not in snapshot_dicts",
                      (long long) id);
        return NULL;
    }
    ZSTD_DDict *dd = ZSTD_createDDict (d, len);
    free (d);
    if (!dd) {
        snprintf (err, errlen, "snapshot dictionary %lld: zstd refused it", (long long) id);
        return NULL;
    }
    if (self->ndicts == DICTS_MAX) {            /* the oldest goes */
        ZSTD_freeDDict (self->dicts[0].dd);
        memmove (self->dicts, self->dicts + 1, (DICTS_MAX - 1) * sizeof self->dicts[0]);
        self->ndicts--;
    }
    self->dicts[self->ndicts].id = id;
    self->dicts[self->ndicts++].dd = dd;
    return dd;
}

int
snapcodec_raw (snapcodec_t *self, int64_t dict_id, const void *data, size_t len,
               const uint8_t **out, size_t *outlen, char *err, size_t errlen)
{
    unsigned long long n = ZSTD_getFrameContentSize (data, len);
    /* A block is one agent's interval: far below this; more is damage. */
    if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN || n > (64u << 20)) {
        snprintf (err, errlen, "not a zstd frame of a known size");
        return -1;
    }
    if (grow (&self->raw, &self->rawcap, n ? n : 1)) {
        snprintf (err, errlen, "out of memory");
        return -1;
    }
    ZSTD_DDict *dd = NULL;
    if (dict_id && !(dd = ddict (self, dict_id, err, errlen)))
        return -1;
    size_t r = dd ? ZSTD_decompress_usingDDict (self->dctx, self->raw, n, data, len, dd)
                  : ZSTD_decompressDCtx (self->dctx, self->raw, n, data, len);
    if (ZSTD_isError (r) || r != n) {
        snprintf (err, errlen, "zstd: %s", ZSTD_isError (r) ? ZSTD_getErrorName (r)
                                                             : "short frame");
        return -1;
    }
    *out = self->raw;
    *outlen = r;
    return 0;
}

/* A stream being read. */
typedef struct {
    const uint8_t *p, *end;
} rd_t;

static int
get_u (rd_t *r, uint64_t *v)
{
    uint64_t x = 0;
    for (int sh = 0; sh < 70; sh += 7) {
        if (r->p == r->end)
            return -1;
        uint8_t c = *r->p++;
        x |= (uint64_t) (c & 0x7f) << sh;
        if (!(c & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* A decoded block: the message first (what callers hold), then what its
   pointers point into. */
typedef struct {
    Iofleet__Snapshot msg;
    uint8_t *blobs;             /* the histograms' bytes */
} decoded_t;

void
snapcodec_release (Iofleet__Snapshot *m)
{
    if (!m)
        return;
    decoded_t *d = (decoded_t *) m;
    free (d->blobs);
    free (d);
}

/* The message of a block's raw bytes, or NULL with err. */
static Iofleet__Snapshot *
unpack (const uint8_t *raw, size_t n, uint64_t *gaps, char *err, size_t errlen)
{
#define BAD(why) do { snprintf (err, errlen, "block: %s", why); goto fail; } while (0)
    rd_t s[S_N], hdr = { raw, raw + n };
    decoded_t *d = NULL;
    sbuf_t blobs = { 0 };
    if (n < 1 || (*hdr.p != BLOCK_FORMAT && *hdr.p != BLOCK_FORMAT_TEMP))
        BAD ("unknown format");
    uint64_t dmask_max = *hdr.p++ == BLOCK_FORMAT_TEMP ? 15 : 7;
    uint64_t lens[S_N], at = 0;
    for (int i = 0; i < S_N; i++)
        if (get_u (&hdr, &lens[i]))
            BAD ("truncated stream lengths");
    for (int i = 0; i < S_N; i++) {
        if (lens[i] > (uint64_t) (hdr.end - hdr.p) - at)
            BAD ("a stream runs past the end");
        s[i].p = hdr.p + at;
        s[i].end = s[i].p + lens[i];
        at += lens[i];
    }
    uint64_t t_start, t_end, nt;
    if (get_u (&s[S_FIELDS], &t_start) || get_u (&s[S_FIELDS], &t_end)
        || get_u (&s[S_FIELDS], &nt) || nt > lens[S_FIELDS])
        BAD ("bad header");
    /* Targets, their pointers and directions in one allocation. */
    size_t sz = sizeof (decoded_t) + nt * (sizeof (Iofleet__TargetSample *)
                                           + sizeof (Iofleet__TargetSample)
                                           + 3 * sizeof (Iofleet__DirStats));
    d = calloc (1, sz);
    if (!d)
        BAD ("out of memory");
    Iofleet__TargetSample **tp = (Iofleet__TargetSample **) (d + 1);
    Iofleet__TargetSample *ts = (Iofleet__TargetSample *) (tp + nt);
    Iofleet__DirStats *ds = (Iofleet__DirStats *) (ts + nt);
    iofleet__snapshot__init (&d->msg);
    d->msg.t_start = t_start;
    d->msg.t_end = t_end;
    d->msg.n_targets = nt;
    d->msg.targets = tp;
    for (uint64_t i = 0; i < nt; i++) {
        Iofleet__TargetSample *t = &ts[i];
        iofleet__target_sample__init (t);
        tp[i] = t;
        uint64_t target, dmask;
        if (get_u (&s[S_FIELDS], &target) || get_u (&s[S_FIELDS], &dmask) || target > UINT32_MAX
            || dmask > dmask_max)
            BAD ("bad target");
        t->target = (uint32_t) target;
        if (dmask & 8) {
            uint64_t z;
            if (get_u (&s[S_FIELDS], &z) || z > TEMP_ZIGZAG_MAX)
                BAD ("bad temperature");
            t->has_temperature = true;
            t->temperature_mc = z & 1 ? -(int32_t) ((z + 1) / 2) : (int32_t) (z / 2);
            if (t->temperature_mc < MSG_TEMP_MIN_MC)
                BAD ("bad temperature");
        }
        for (int k = 0; k < 3; k++) {
            if (!(dmask & (1u << k)))
                continue;
            Iofleet__DirStats *dir = &ds[i * 3 + (uint64_t) k];
            iofleet__dir_stats__init (dir);
            *(k == 0 ? &t->read : k == 1 ? &t->write : &t->trim) = dir;
            uint64_t hmask;
            if (get_u (&s[S_FIELDS], &dir->ops) || get_u (&s[S_FIELDS], &dir->bytes)
                || get_u (&s[S_FIELDS], &dir->errors) || get_u (&s[S_FIELDS], &hmask) || hmask > 7)
                BAD ("bad direction");
            for (int b = 0; b < 3; b++) {
                if (!(hmask & (1u << b)))
                    continue;
                ProtobufCBinaryData *h = (ProtobufCBinaryData *) hist_of (dir, b);
                uint64_t whole, len;
                if (get_u (&s[S_FIELDS], &whole) || whole > 1)
                    BAD ("bad histogram kind");
                size_t off = blobs.len;
                if (whole) {
                    if (get_u (&s[S_WHOLE], &len) || len > (uint64_t) (s[S_WHOLE].end - s[S_WHOLE].p)
                        || (blobs.len + len > blobs.cap && grow (&blobs.b, &blobs.cap, blobs.len + len)))
                        BAD ("bad whole histogram");
                    memcpy (blobs.b + blobs.len, s[S_WHOLE].p, len);
                    s[S_WHOLE].p += len;
                    blobs.len += len;
                } else {
                    uint64_t head[HIST_WIRE_HEAD];
                    for (int k2 = 0; k2 < HIST_WIRE_HEAD; k2++)
                        if (get_u (&s[S_HEAD0 + k2], &head[k2]))
                            BAD ("histogram header missing");
                    uint64_t np = head[HIST_WIRE_HEAD - 1];
                    if (np > HIST_NBUCKETS)
                        BAD ("histogram with too many buckets");
                    for (uint64_t j = 0; j < np; j++)
                        if (get_u (&s[S_GAPS], &gaps[j])
                            || get_u (&s[S_COUNTS], &gaps[HIST_NBUCKETS + j]))
                            BAD ("histogram buckets missing");
                    if (blobs.len + HIST_WIRE_MAX > blobs.cap
                        && grow (&blobs.b, &blobs.cap, blobs.len + HIST_WIRE_MAX))
                        BAD ("out of memory");
                    int m = histogram_wire_join (head, gaps, gaps + HIST_NBUCKETS, np,
                                                 blobs.b + blobs.len, HIST_WIRE_MAX);
                    if (m < 0)
                        BAD ("histogram values out of range");
                    blobs.len += (size_t) m;
                }
                h->len = blobs.len - off;
                h->data = (uint8_t *) (uintptr_t) off;      /* made a pointer below */
            }
        }
    }
    for (int i = 0; i < S_N; i++)
        if (s[i].p != s[i].end)
            BAD ("bytes left over");
    d->blobs = blobs.b;
    for (uint64_t i = 0; i < nt * 3; i++)
        for (int b = 0; b < 3; b++) {
            ProtobufCBinaryData *h = (ProtobufCBinaryData *) hist_of (&ds[i], b);
            if (h->len)
                h->data = blobs.b + (uintptr_t) h->data;
        }
    return &d->msg;
fail:
    free (d);
    free (blobs.b);
    return NULL;
#undef BAD
}

Iofleet__Snapshot *
snapcodec_decode (snapcodec_t *self, int64_t dict_id, const void *data, size_t len, char *err,
                  size_t errlen)
{
    const uint8_t *raw;
    size_t n;
    if (snapcodec_raw (self, dict_id, data, len, &raw, &n, err, errlen))
        return NULL;
    return unpack (raw, n, self->scratch, err, errlen);
}

int
snapcodec_temps (snapcodec_t *self, int64_t dict_id, const void *data, size_t len,
                 uint64_t *span_ns, snapcodec_temp_fn *fn, void *arg, char *err, size_t errlen)
{
#define BAD(why) do { snprintf (err, errlen, "block: %s", why); return -1; } while (0)
    const uint8_t *raw;
    size_t n;
    if (snapcodec_raw (self, dict_id, data, len, &raw, &n, err, errlen))
        return -1;
    rd_t hdr = { raw, raw + n };
    if (n < 1 || (*hdr.p != BLOCK_FORMAT && *hdr.p != BLOCK_FORMAT_TEMP))
        BAD ("unknown format");
    uint64_t dmask_max = *hdr.p++ == BLOCK_FORMAT_TEMP ? 15 : 7;
    uint64_t lens[S_N];
    for (int i = 0; i < S_N; i++)
        if (get_u (&hdr, &lens[i]))
            BAD ("truncated stream lengths");
    /* S_FIELDS is the first stream: nothing else is read. */
    if (lens[S_FIELDS] > (uint64_t) (hdr.end - hdr.p))
        BAD ("a stream runs past the end");
    rd_t f = { hdr.p, hdr.p + lens[S_FIELDS] };
    uint64_t t_start, t_end, nt;
    if (get_u (&f, &t_start) || get_u (&f, &t_end) || get_u (&f, &nt) || t_end < t_start)
        BAD ("bad header");
    *span_ns = t_end - t_start;
    for (uint64_t i = 0; i < nt; i++) {
        uint64_t target, dmask, z, skip;
        if (get_u (&f, &target) || get_u (&f, &dmask) || target > UINT32_MAX
            || dmask > dmask_max)
            BAD ("bad target");
        if (dmask & 8) {
            if (get_u (&f, &z) || z > TEMP_ZIGZAG_MAX)
                BAD ("bad temperature");
            int32_t mc = z & 1 ? -(int32_t) ((z + 1) / 2) : (int32_t) (z / 2);
            if (mc < MSG_TEMP_MIN_MC)
                BAD ("bad temperature");
            fn (arg, (uint32_t) target, mc);
        }
        for (int k = 0; k < 3; k++) {
            if (!(dmask & (1u << k)))
                continue;
            uint64_t hmask;
            if (get_u (&f, &skip) || get_u (&f, &skip) || get_u (&f, &skip)
                || get_u (&f, &hmask) || hmask > 7)
                BAD ("bad direction");
            for (int b = 0; b < 3; b++)
                if ((hmask & (1u << b)) && get_u (&f, &skip))
                    BAD ("bad histogram kind");
        }
    }
    return 0;
#undef BAD
}
