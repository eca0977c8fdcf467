/*  direction.h: the directions of I/O, in the order every per-direction
    array and report uses: reads, writes, trims (fio's DDIR_READ,
    DDIR_WRITE, DDIR_TRIM), and their names in JSON, the database and the
    CLI. */
#ifndef IOF_DIRECTION_H
#define IOF_DIRECTION_H

#include <stdbool.h>
#include <stdint.h>

#define DIR_READ  0
#define DIR_WRITE 1
#define DIR_TRIM  2
#define DIR_COUNT 3

/* "read", "write" or "trim"; "unknown" out of range.  Can't fail. */
const char *dir_name (int d);

/* The direction named s, or -1.  Can't fail. */
int dir_from_name (const char *s);

/* Is direction d, with these figures, stored and reported?  Reads and
   writes always are (with zeros: reports have always shown both); trims
   only when there were some (ops, or errors: trims that all failed), so a
   step that trims nothing is stored and reported as before trims existed.
   The one rule for results, fleet figures, intervals, groups and
   imports.  Can't fail. */
bool dir_reported (int d, uint64_t ops, uint64_t errors);

#endif
