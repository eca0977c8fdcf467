/*  iogen.c: what a worker's next I/O is: its direction, size, target and
    offset (through offsets.c), its data (fill, stamps, verify headers), and
    the check of what a read-back reads (see iogen.h).
*/
#define _GNU_SOURCE
#include "iogen.h"
#include "job_state.h"
#include "util.h"

#include <string.h>
#include <stdio.h>

#define STAMP_CHUNK 4096

/* Seeds xoshiro256** state s from seed.  Can't fail. */
void
iogen_rng_seed (uint64_t *s, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        s[i] = splitmix64 (&seed);
}

/* True for the random rw modes.  Can't fail. */
bool
iogen_rw_is_random (Iofleet__Rw rw)
{
    return rw == IOFLEET__RW__RW_RANDREAD || rw == IOFLEET__RW__RW_RANDWRITE
        || rw == IOFLEET__RW__RW_RANDRW || rw == IOFLEET__RW__RW_RANDTRIM
        || rw == IOFLEET__RW__RW_RANDTRIMWRITE;
}

/* True when rw (with rwmixread) issues I/Os of direction dir.  Can't fail. */
bool
iogen_rw_has (Iofleet__Rw rw, uint32_t rwmixread, io_dir_t dir)
{
    switch (rw) {
    case IOFLEET__RW__RW_READ:
    case IOFLEET__RW__RW_RANDREAD:
        return dir == IO_READ;
    case IOFLEET__RW__RW_WRITE:
    case IOFLEET__RW__RW_RANDWRITE:
        return dir == IO_WRITE;
    case IOFLEET__RW__RW_TRIM:
    case IOFLEET__RW__RW_RANDTRIM:
        return dir == IO_TRIM;
    case IOFLEET__RW__RW_TRIMWRITE:
    case IOFLEET__RW__RW_RANDTRIMWRITE:
        return dir == IO_TRIM || dir == IO_WRITE;
    default:
        return dir == IO_READ ? rwmixread > 0 : dir == IO_WRITE && rwmixread < 100;
    }
}

/* The size of an I/O of direction d with room bytes left before the
   region's end, as fio's get_next_buflen: a fixed bs as it is (fio does
   not fit it: the last I/O may pass the region's end); a bssplit or
   bsrange size drawn again until it fits.  Returns 0 when not even the
   smallest fits: the pass is over.  Can't fail. */
static uint32_t
pick_bs (worker_t *w, io_dir_t d, uint64_t room)
{
    iojob_t *j = w->job;
    bool split = j->nsplit[d] > 0;
    if (!split && !(j->bsr_min[d] && j->bsr_min[d] != j->bsr_max[d]))
        return j->bs[d];
    if (room < j->min_bs[d])
        return 0;
    /* A bound on the draws: a split whose only size that fits has 0% is
       never drawn (fio would loop). */
    for (int tries = 0; tries < 100000; tries++) {
        uint64_t len;
        if (split) {
            /* fio: the entry the draw falls in, or the first after it that
               fits (an entry of 0% never); else the last entry, which the
               cut below may make fit. */
            uint32_t r = (uint32_t) (rng_next (w->rng) % 100), cum = 0;
            len = 0;
            for (int i = 0; i < j->nsplit[d]; i++) {
                if (j->split_cum[d][i] == cum)
                    continue;
                cum = j->split_cum[d][i];
                len = j->split_bs[d][i];
                if (r < cum && len <= room)
                    break;
            }
        } else {
            /* fio's get_next_buflen: min + max x u, u in [0, 1), cut down
               to a multiple of min (unless blocksize_unaligned), and no
               more than max: with a max that is a multiple of min, the
               multiples are equally likely; with another, max itself is
               one of the sizes. */
            len = j->bsr_min[d] + (uint64_t) ((double) j->bsr_max[d]
                                              * ((double) (rng_next (w->rng) >> 11) * 0x1p-53));
        }
        /* fio cuts a split's size too: bssplit=4k/50:10k/50 reads 4k and
           8k (fio 3.33). */
        if (!j->bs_unaligned)
            len -= len % j->min_bs[d];
        if (!split && len > j->bsr_max[d])
            len = j->bsr_max[d];
        if (len <= room)
            return (uint32_t) len;
    }
    return 0;
}

/* Marks a write buffer so no two written chunks are equal.  Can't fail. */
static inline void
stamp_buffer (worker_t *w, io_unit_t *u)
{
    if (w->job->zero_buffers)
        return;
    uint8_t *p = u->buf;
    for (uint32_t off = 0; off < u->len; off += STAMP_CHUNK) {
        uint64_t v = ++w->stamp ^ ((uint64_t) w->id << 48);
        memcpy (p + off, &v, sizeof v);
    }
}

/* The direction of worker w's next I/O by rw and rwmixread.  Can't fail. */
io_dir_t
iogen_pick_dir (worker_t *w)
{
    iojob_t *j = w->job;
    switch (j->rw) {
    case IOFLEET__RW__RW_READ:
    case IOFLEET__RW__RW_RANDREAD:
        return IO_READ;
    case IOFLEET__RW__RW_WRITE:
    case IOFLEET__RW__RW_RANDWRITE:
        return IO_WRITE;
    case IOFLEET__RW__RW_TRIM:
    case IOFLEET__RW__RW_RANDTRIM:
        return IO_TRIM;
    case IOFLEET__RW__RW_TRIMWRITE:
    case IOFLEET__RW__RW_RANDTRIMWRITE:
        /* A trim, then a write of exactly what it trimmed (fio's
           set_rw_ddir: a trim when the file's last write started where
           its last trim did, which the write repeating it keeps true). */
        return w->last_trim.len ? IO_WRITE : IO_TRIM;
    default:
        return (rng_next (w->rng) % 100) < j->rwmixread ? IO_READ : IO_WRITE;
    }
}

/* Where worker id's region of target t starts: offset_increment puts each
   worker's id x it further on.  Can't fail. */
uint64_t
iogen_region_start (const iojob_t *j, int id, uint32_t t)
{
    return j->region_start[t] + (uint64_t) id * j->offset_increment;
}

/* A write's data: fresh (refill_buffers), stamped unique (scramble_buffers)
   and carrying its verify header.  Can't fail. */
void
iogen_write_data (worker_t *w, io_unit_t *u)
{
    iojob_t *j = w->job;
    if (j->refill)
        iogen_fill_buffer (j, w->drng, u->buf, u->len);
    if (j->scramble)
        stamp_buffer (w, u);
    if (j->verify != VERIFY_NONE)
        verify_stamp (j->verify, u->buf, u->len, u->offset, ++w->wseq, (uint32_t) w->id);
}

/* Whether a pass that is over (its region used up, or its next I/O not
   fitting) is followed by another, as fio's keep_running decides: always
   when time-based; with io_size while at least the largest block is left
   to issue; otherwise the pass, and with it the job's loop, ends (fio
   marks the file done).  Can't fail. */
static bool
pass_goes_on (const worker_t *w)
{
    const iojob_t *j = w->job;
    if (j->time_based)
        return true;
    return j->io_size_set && w->io_limit > w->bytes_issued
        && w->io_limit - w->bytes_issued >= j->max_bs;
}

/* Where and how long worker w's next I/O of direction dir on target t
   from generator o is, fitted to the region as fio's get_next_offset and
   get_next_buflen: *off_p and *len_p.  Another pass is started when one
   is over and the job goes on (pass_goes_on).  Returns false when the
   pass ended instead.  Can't fail. */
static bool
gen_place (worker_t *w, offsets_t *o, uint32_t t, io_dir_t dir, uint64_t *off_p,
           uint32_t *len_p)
{
    iojob_t *j = w->job;
    for (int pass = 0; pass < 2; pass++) {
        if (pass && !pass_goes_on (w))
            return false;
        if (pass)
            offsets_wrap (o);
        uint64_t room, off = offsets_start (o, rng_next (w->rng), j->min_bs[dir], &room);
        if (off == OFFSETS_END)
            continue;
        /* A fixed size that passes the region's end is issued as it is,
           unless it passes the target's (fio's "exceeds file size"). */
        uint32_t len = pick_bs (w, dir, room);
        if (!len || (!j->diskless && off + len > j->targets[t].size))
            continue;
        offsets_take (o, off, &len);
        *off_p = off;
        *len_p = len;
        return true;
    }
    return false;
}

/* rw=randread:N and percentage_random, as fio's get_next_offset and
   get_next_block: whether worker w's next I/O of direction dir is drawn
   (a random offset on the first I/O and every N-th after it, each then at
   random with the direction's percentage) or goes on from where the
   direction's last I/O on the file ended.  Can't fail. */
static bool
seq_mix_draws (worker_t *w, io_dir_t dir)
{
    iojob_t *j = w->job;
    bool hit = true;
    if (j->seq_nr && --w->seq_left == 0)
        w->seq_left = j->seq_nr;
    else if (j->seq_nr)
        hit = false;
    if (hit && j->perc_random[dir] < 100)
        hit = 1 + rng_next (w->srng) % 100 <= j->perc_random[dir];
    return hit;
}

/* See iogen.h.  Returns false, with u not filled, when the pass ended
   instead (its region used up, or a size-bound job whose I/O going on
   from the last would start past its region, as fio's). */
bool
iogen_unit (worker_t *w, io_unit_t *u, io_dir_t dir)
{
    iojob_t *j = w->job;
    bool trimwrite = j->rw == IOFLEET__RW__RW_RANDTRIMWRITE || j->rw == IOFLEET__RW__RW_TRIMWRITE;
    if (trimwrite && dir == IO_WRITE && w->last_trim.len) {
        /* The write goes where the trim went, with its length: fio's
           get_next_block/get_next_buflen for randtrimwrite; for trimwrite
           fio draws the write's size from a stream seeded as the trims',
           so it is the trim's too (fio 3.33, bsrange=512-4k: 448 trims,
           each followed by a write of its range). */
        u->len = w->last_trim.len;
        u->offset = w->last_trim.offset;
        u->target = w->last_trim.target;
        u->fd = j->targets[u->target].fd;
        u->dir = dir;
        u->verify = false;
        w->last_trim.len = 0;
        w->bytes_issued += u->len;
        w->ios_issued++;
        return true;
    }
    uint32_t t = w->next_target;
    /* fio's file_service_type=roundrobin: the next of its files each I/O. */
    if (!j->files_per_worker)
        w->next_target = (t + 1) % (uint32_t) j->ntargets;
    else {
        uint32_t first = (uint32_t) w->id * j->files_per_worker;
        w->next_target = first + (t - first + 1) % j->files_per_worker;
    }
    offsets_t *o = w->offsets[t * DIR_COUNT + (j->offsets_per_dir ? dir : 0)];
    uint64_t off;
    uint32_t len;
    if (j->seq_mix && !seq_mix_draws (w, dir)) {
        /* Going on from the last I/O, without marking the random map:
           fio's get_next_seq_offset.  A time-based job goes back to the
           region's start; a size-bound one ends there (get_next_offset
           fails, and fio's job is done). */
        uint64_t start = iogen_region_start (j, w->id, t);
        uint64_t end = start + j->region_bytes[t];
        off = w->last_end[t * DIR_COUNT + dir];
        len = off < end ? pick_bs (w, dir, end - off) : 0;
        if (!len && j->time_based) {
            off = start;
            len = pick_bs (w, dir, end - start);
        }
        if (!len || (!j->diskless && off + len > j->targets[t].size)) {
            w->seq_done = true;
            return false;
        }
    } else if (!gen_place (w, o, t, dir, &off, &len)) {
        w->seq_done = true;
        return false;
    }
    u->offset = off;
    u->len = len;
    if (j->seq_mix)
        w->last_end[t * DIR_COUNT + dir] = u->offset + u->len;
    w->bytes_issued += u->len;
    w->ios_issued++;
    u->fd = j->targets[t].fd;
    u->target = t;
    u->dir = dir;
    u->verify = false;
    if (dir == IO_TRIM && trimwrite)
        w->last_trim = *u;
    return true;
}

/* Fills u with worker w's next I/O, of direction dir, a write's data
   stamped (and its verify header written).  Returns false when the pass
   ended instead (gen_unit). */
bool
iogen_prep_unit (worker_t *w, io_unit_t *u, io_dir_t dir)
{
    if (!iogen_unit (w, u, dir))
        return false;
    if (dir == IO_WRITE)
        iogen_write_data (w, u);
    return true;
}

/* True when a size-limited job has issued all it may.  Can't fail. */
bool
iogen_limit_reached (const worker_t *w)
{
    const iojob_t *j = w->job;
    if (j->replay)
        return w->replay_next >= j->replay->n;  /* fio replays a log once */
    if (w->seq_done)
        return true;
    return !j->time_based && ((w->io_limit && w->bytes_issued >= w->io_limit)
                              || (j->number_ios && w->ios_issued >= j->number_ios));
}

/* See iogen.h.  Can't fail. */
void
iogen_check_read_back (worker_t *w, io_unit_t *u, dir_stats_t *d)
{
    iojob_t *j = w->job;
    char why[512];
    if (verify_check (j->verify, u->buf, u->len, u->offset, why, sizeof why) == 0)
        return;
    w->verify_errors++;
    if (d)
        d->errors++;
    if (!w->error[0])
        snprintf (w->error, sizeof w->error, JOB_VERIFY_ERROR "%u bytes at offset %llu of '%s': %s",
                  u->len, (unsigned long long) u->offset, j->targets[u->target].path, why);
    if (j->verify_fatal)
        w->stopping = true;
}

/* Remembers a completed write for verify_backlog, and starts reading the
   ring back once it holds verify_backlog writes.  Can't fail (vlog_cap). */
void
iogen_vlog_add (worker_t *w, const io_unit_t *u)
{
    iojob_t *j = w->job;
    IOF_ASSERT (w->vlog_n < w->vlog_cap);
    w->vlog[(w->vlog_head + w->vlog_n) % w->vlog_cap] =
        (struct vlog_entry) { .offset = u->offset, .len = u->len, .target = u->target };
    /* The last writes' batch waits for the pass's end, as fio's (it reads
       them back in its verify phase, which it times as reads). */
    if (++w->vlog_n >= j->verify_backlog && !iogen_limit_reached (w))
        w->vlog_drain = true;
}

/* Write buffers: random data, with buffer_compress_percentage of each
   chunk zeroed so the data compresses about that much; or all zeros. */
void
iogen_fill_buffer (iojob_t *j, uint64_t *rng, uint8_t *buf, uint32_t len)
{
    if (j->zero_buffers) {
        memset (buf, 0, len);
        return;
    }
    for (uint32_t off = 0; off + 8 <= len; off += 8) {
        uint64_t v = rng_next (rng);
        memcpy (buf + off, &v, 8);
    }
    if (j->compress_pct) {
        uint32_t zero = STAMP_CHUNK * j->compress_pct / 100;
        for (uint32_t off = 0; off < len; off += STAMP_CHUNK) {
            uint32_t n = len - off < STAMP_CHUNK ? len - off : STAMP_CHUNK;
            uint32_t z = zero < n ? zero : n;
            /* Zeros at the chunk's end: the stamp at its start stays. */
            memset (buf + off + n - z, 0, z);
        }
    }
}
