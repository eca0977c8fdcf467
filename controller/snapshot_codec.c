/*  snapshot_codec.c: see snapshot_codec.h. */
#include "snapshot_codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* Dictionaries a codec has loaded: a database trains a handful in its
   life (one today), so a short list. */
#define DICTS_MAX 8

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
    if (!self->cctx || !self->dctx) {
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

int
snapcodec_pack (snapcodec_t *self, const Iofleet__Snapshot *s, const uint8_t **out, size_t *len,
                char *err, size_t errlen)
{
    /* The key's fields are the row's columns; targets in order, so that a
       reader walks a block as the table's order says. */
    Iofleet__Snapshot c = *s;
    c.run = 0;
    c.step = 0;
    c.seq = 0;
    c.spool_dropped = 0;
    /* On the heap: a message's target count is bounded by its size only. */
    Iofleet__TargetSample **sorted = malloc ((s->n_targets ? s->n_targets : 1) * sizeof *sorted);
    if (!sorted) {
        snprintf (err, errlen, "out of memory");
        return -1;
    }
    if (s->n_targets)
        memcpy (sorted, s->targets, s->n_targets * sizeof *sorted);
    qsort (sorted, s->n_targets, sizeof *sorted, by_target);
    c.targets = sorted;
    size_t n = iofleet__snapshot__get_packed_size (&c);
    if (grow (&self->raw, &self->rawcap, n ? n : 1)) {
        free (sorted);
        snprintf (err, errlen, "out of memory");
        return -1;
    }
    iofleet__snapshot__pack (&c, self->raw);
    free (sorted);
    *out = self->raw;
    *len = n;
    return 0;
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

Iofleet__Snapshot *
snapcodec_decode (snapcodec_t *self, int64_t dict_id, const void *data, size_t len, char *err,
                  size_t errlen)
{
    const uint8_t *raw;
    size_t n;
    if (snapcodec_raw (self, dict_id, data, len, &raw, &n, err, errlen))
        return NULL;
    Iofleet__Snapshot *m = iofleet__snapshot__unpack (NULL, n, raw);
    if (!m)
        snprintf (err, errlen, "the decompressed bytes are not a SNAPSHOT message");
    return m;
}
