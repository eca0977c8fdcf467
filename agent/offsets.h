/*  offsets.h: where the next I/O of a worker goes, as fio chooses it.

    A target's region [start, start + nblocks * unit) is cut into blocks of
    `unit` bytes (the job's smallest block size).  Sequential jobs walk it
    and wrap; random jobs draw a block:
      - uniform with the random map (fio's default): every block is used
        once per pass before any is used again (a hierarchical bitmap finds
        the next free block in O(log64 n));
      - uniform without it (norandommap);
      - fio's other distributions (common/distribution.h), each without the
        random map, as fio turns it off for them: zipf, pareto and normal
        draw a rank and scatter it over the region with fio's hash (so the
        hot blocks are not simply the first ones; a center rotates them);
        zoned and zoned_abs draw a zone by its share of the I/O, then a
        block inside it uniformly.
    The start is chosen first and the I/O's size fitted to the region's end
    after (offsets_start, then offsets_take), as fio's get_next_offset and
    get_next_buflen; with the random map the I/O is then trimmed to the
    free run it landed in, as fio does.
*/
#ifndef IOF_OFFSETS_H
#define IOF_OFFSETS_H

#include <stdbool.h>
#include <stdint.h>

#include "distribution.h"

/* OFF_SKEWED draws from a distribution other than uniform. */
typedef enum { OFF_SEQ = 0, OFF_RANDOM, OFF_RANDOM_NOMAP, OFF_SKEWED } off_mode_t;

typedef struct offsets offsets_t;

/* A generator over nblocks blocks of unit bytes starting at start.  dist
   is used by OFF_SKEWED only (not random; dist_check passed).  Returns
   NULL when out of memory (the random map takes nblocks bits) or on bad
   arguments, among them zoned_abs zones that end past the region (see
   offsets_zones_end). */
offsets_t *offsets_new (off_mode_t mode, uint64_t start, uint64_t nblocks, uint32_t unit,
                        const dist_t *dist);

/* zoned_abs: the byte where its last zone ends (the region must hold it);
   0 for any other distribution.  Can't fail. */
uint64_t offsets_zones_end (const dist_t *dist);

void offsets_destroy (offsets_t **self_p);

/* offsets_start's answer when the pass is over: the sequential position
   is at or past the region's end, or every block of the random map is
   used.  The caller ends the pass or starts another (offsets_wrap). */
#define OFFSETS_END UINT64_MAX

/* Where the next I/O starts, as fio's get_next_offset chooses it before
   its size: the byte offset, with in *room_p the bytes from there to the
   region's end, which the I/O's size is then fitted to (fio's
   get_next_buflen).  minlen is the direction's smallest size: a random
   draw (norandommap, the skewed distributions) starts where it fits.
   Returns OFFSETS_END when the pass is over.  rnd is a fresh 64-bit
   random number.  Can't fail. */
uint64_t offsets_start (offsets_t *self, uint64_t rnd, uint32_t minlen, uint64_t *room_p);

/* The I/O of *len_p bytes at off (offsets_start's) is issued: the
   sequential position moves past it; with the random map its blocks are
   marked and *len_p may come back shorter (a multiple of unit, at least
   one unit): trimmed to the run of unused blocks it landed in, as fio
   trims it.  Can't fail. */
void offsets_take (offsets_t *self, uint64_t off, uint32_t *len_p);

/* Starts another pass: the sequential position at the region's start, the
   random map empty, one more pass counted.  Can't fail. */
void offsets_wrap (offsets_t *self);

/* Both steps for an I/O of *len_p bytes, starting another pass when the
   region is used up or a sequential I/O would pass its end (as
   offsets_start, offsets_take).  Can't fail. */
uint64_t offsets_next (offsets_t *self, uint32_t *len_p, uint64_t rnd);

/* The region's size in bytes when size= is not a multiple of unit (at
   least nblocks * unit): a sequential pass goes on while its position is
   below it, and an I/O is fitted to it.  Can't fail. */
void offsets_set_size (offsets_t *self, uint64_t size);

/* Sequential only: skip blocks after each I/O (fio's rw=write:SIZE), so
   an I/O starts skip blocks after the last one's end.  (A sequential
   generator's position is in bytes: the next I/O starts where the last
   ended, whatever its size.)  Can't fail. */
void offsets_set_skip (offsets_t *self, uint64_t skip);

/* Starts over as a new generator would: the sequential position at the
   region's start, the random map empty (a new loop of fio's loops=).  The
   count of passes goes on.  Can't fail. */
void offsets_rewind (offsets_t *self);

/* Completed passes over the region (random map and sequential only). */
uint64_t offsets_passes (const offsets_t *self);

#endif
