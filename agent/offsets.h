/*  offsets.h: where the next I/O of a worker goes, as fio chooses it.

    A target's region [start, start + nblocks * unit) is cut into blocks of
    `unit` bytes (the job's smallest block size).  Sequential jobs walk it
    and wrap; random jobs draw a block:
      - uniform with the random map (fio's default): every block is used
        once per pass before any is used again (a hierarchical bitmap finds
        the next free block in O(log64 n));
      - uniform without it (norandommap);
      - zipf:THETA (fio disables the random map for it too), with ranks
        scattered over the region by a hash, as fio does, so the hot blocks
        are not simply the first ones.
    An I/O of len bytes starting at block b must fit: b + len/unit <= nblocks;
    with the random map it is trimmed to fit instead, as fio does.
*/
#ifndef IOF_OFFSETS_H
#define IOF_OFFSETS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { OFF_SEQ = 0, OFF_RANDOM, OFF_RANDOM_NOMAP, OFF_ZIPF } off_mode_t;

typedef struct offsets offsets_t;

/* A generator over nblocks blocks of unit bytes starting at start.
   theta is used by OFF_ZIPF only (> 0, != 1).  Returns NULL when out of
   memory (the random map takes nblocks bits) or on bad arguments. */
offsets_t *offsets_new (off_mode_t mode, uint64_t start, uint64_t nblocks, uint32_t unit,
                        double theta);

void offsets_destroy (offsets_t **self_p);

/* The byte offset of the next I/O of *len_p bytes (at most nblocks * unit).
   With the random map, *len_p may come back shorter (a multiple of unit, at
   least one unit): trimmed to the run of unused blocks it landed in, as fio
   trims it.  rnd is a fresh 64-bit random number.  Can't fail. */
uint64_t offsets_next (offsets_t *self, uint32_t *len_p, uint64_t rnd);

/* Sequential only: skip blocks after each I/O (fio's rw=write:SIZE), so
   I/Os land every 1 + skip blocks.  Can't fail. */
void offsets_set_skip (offsets_t *self, uint64_t skip);

/* Starts over as a new generator would: the sequential position at the
   region's start, the random map empty (a new loop of fio's loops=).  The
   count of passes goes on.  Can't fail. */
void offsets_rewind (offsets_t *self);

/* Completed passes over the region (random map and sequential only). */
uint64_t offsets_passes (const offsets_t *self);

#endif
