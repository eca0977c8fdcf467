/*  direction.h: the directions of I/O, in the order every per-direction
    array and report uses: reads, writes, trims (fio's DDIR_READ,
    DDIR_WRITE, DDIR_TRIM), and their names in JSON, the database and the
    CLI. */
#ifndef IOF_DIRECTION_H
#define IOF_DIRECTION_H

#define DIR_READ  0
#define DIR_WRITE 1
#define DIR_TRIM  2
#define DIR_COUNT 3

/* "read", "write" or "trim"; "unknown" out of range.  Can't fail. */
const char *dir_name (int d);

/* The direction named s, or -1.  Can't fail. */
int dir_from_name (const char *s);

#endif
