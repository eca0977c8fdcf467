/*  sysfs.h: small readers for sysfs and procfs attribute files, and for
    the device paths sysfs links resolve to, shared by the inventory
    (inventory*.c) and the write guard (guard.c).  None can fail worse than
    false / -1: a missing attribute is an answer, not an error. */
#ifndef IOF_SYSFS_H
#define IOF_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Reads a decimal attribute at a formatted path into *v.  Returns false
   when it is missing or not a number. */
bool sysfs_read_u64f (uint64_t *v, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Parses "0x1000"-style hex (the "0x" optional).  Returns false when s is
   not that. */
bool sysfs_parse_hex (const char *s, unsigned long *v);

/* True when path exists (stat follows links). */
bool sysfs_exists (const char *path);

/* True when dir exists and has an entry besides "." and "..". */
bool sysfs_dir_nonempty (const char *dir);

/* The last component of the symlink at path (a driver link), into out.
   Returns false (out "") when it is no symlink. */
bool sysfs_link_base (const char *path, char *out, size_t cap);

/* ---- device paths ("/devices/pci0000:00/0000:00:1f.2/ata1/...") ---- */

/* True for a PCI address component: "0000:01:00.0" (or a wider VMD domain
   such as "10000:e1:00.0"). */
bool sysfs_is_pci_addr (const char *s, size_t len);

/* Finds the first (or the last) component of rel that match() accepts, or
   when match is NULL that starts with prefix.  Returns its offset in rel
   and sets *len, or -1. */
long sysfs_find_component (const char *rel, bool (*match) (const char *, size_t),
                           const char *prefix, bool last, size_t *len);

/* The last component of rel that match() accepts (sysfs_find_component). */
long sysfs_last_component (const char *rel, bool (*match) (const char *, size_t), size_t *len);

/* True when a component of rel starts with prefix (and, with digit, is
   followed by a digit: "ata1" but not "ata_port"). */
bool sysfs_has_component (const char *rel, const char *prefix, bool digit);

/* The offset just past the first (or the last) component of rel that
   starts with prefix, or -1. */
long sysfs_component_end (const char *rel, const char *prefix, bool last);

#endif
