/*  sysfs.h: small readers for sysfs and procfs attribute files, shared by
    the inventory (inventory.c) and the write guard (guard.c). */
#ifndef IOF_SYSFS_H
#define IOF_SYSFS_H

#include <stdbool.h>
#include <stddef.h>

/* Largest attribute file read (sysfs attributes are a page at most; a few
   procfs files we read are longer). */
#define SYSFS_ATTR_MAX (64u << 10)

/* Formats a path into out.  Returns false when it did not fit. */
bool sysfs_pathf (char *out, size_t cap, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* Trims whitespace at both ends in place.  Returns s. */
char *sysfs_trim (char *s);

/* Reads the file at path, trimmed, into out (truncated to cap).  Returns
   false with out "" when it is missing, unreadable (a directory too) or
   empty. */
bool sysfs_read_str (const char *path, char *out, size_t cap);

/* sysfs_read_str of a formatted path. */
bool sysfs_read_strf (char *out, size_t cap, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

#endif
