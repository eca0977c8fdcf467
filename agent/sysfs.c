/*  sysfs.c: see sysfs.h. */
#define _GNU_SOURCE
#include "sysfs.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool
sysfs_pathf (char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    int n = vsnprintf (out, cap, fmt, ap);
    va_end (ap);
    return n >= 0 && (size_t) n < cap;
}

char *
sysfs_trim (char *s)
{
    while (isspace ((unsigned char) *s))
        s++;
    size_t n = strlen (s);
    while (n > 0 && isspace ((unsigned char) s[n - 1]))
        s[--n] = '\0';
    return s;
}

bool
sysfs_read_str (const char *path, char *out, size_t cap)
{
    out[0] = '\0';
    char *buf = file_read_all (path, SYSFS_ATTR_MAX, NULL);
    if (!buf)
        return false;
    str_copy (out, cap, sysfs_trim (buf));
    free (buf);
    return out[0] != '\0';
}

bool
sysfs_read_strf (char *out, size_t cap, const char *fmt, ...)
{
    char path[PATH_MAX];
    va_list ap;
    va_start (ap, fmt);
    int n = vsnprintf (path, sizeof path, fmt, ap);
    va_end (ap);
    if (n < 0 || (size_t) n >= sizeof path) {
        out[0] = '\0';
        return false;
    }
    return sysfs_read_str (path, out, cap);
}

bool
sysfs_read_u64f (uint64_t *v, const char *fmt, ...)
{
    char path[PATH_MAX], buf[64];
    va_list ap;
    va_start (ap, fmt);
    int n = vsnprintf (path, sizeof path, fmt, ap);
    va_end (ap);
    if (n < 0 || (size_t) n >= sizeof path || !sysfs_read_str (path, buf, sizeof buf))
        return false;
    return parse_u64 (buf, 0, UINT64_MAX, v) == 0;
}

bool
sysfs_parse_hex (const char *s, unsigned long *v)
{
    if (!isxdigit ((unsigned char) s[s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 2 : 0]))
        return false;
    char *end;
    errno = 0;
    *v = strtoul (s, &end, 16);
    return errno == 0 && *end == '\0';
}

bool
sysfs_exists (const char *path)
{
    struct stat st;
    return stat (path, &st) == 0;
}

bool
sysfs_dir_nonempty (const char *dir)
{
    DIR *d = opendir (dir);
    if (!d)
        return false;
    bool any = false;
    struct dirent *e;
    while (!any && (e = readdir (d)))
        any = strcmp (e->d_name, ".") && strcmp (e->d_name, "..");
    closedir (d);
    return any;
}

bool
sysfs_link_base (const char *path, char *out, size_t cap)
{
    char buf[PATH_MAX];
    out[0] = '\0';
    ssize_t n = readlink (path, buf, sizeof buf - 1);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    const char *b = strrchr (buf, '/');
    str_copy (out, cap, b ? b + 1 : buf);
    return out[0] != '\0';
}

bool
sysfs_is_pci_addr (const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && isxdigit ((unsigned char) s[i]))
        i++;
    if (i < 4 || i > 8 || len != i + 8)
        return false;
    const char *t = s + i;
    return t[0] == ':' && isxdigit ((unsigned char) t[1]) && isxdigit ((unsigned char) t[2])
        && t[3] == ':' && isxdigit ((unsigned char) t[4]) && isxdigit ((unsigned char) t[5])
        && t[6] == '.' && isxdigit ((unsigned char) t[7]);
}

long
sysfs_find_component (const char *rel, bool (*match) (const char *, size_t),
                      const char *prefix, bool last, size_t *len)
{
    long found = -1;
    size_t n = prefix ? strlen (prefix) : 0;
    const char *p = rel;
    while (*p) {
        while (*p == '/')
            p++;
        const char *q = strchrnul (p, '/');
        if (q > p && (match ? match (p, (size_t) (q - p)) : strncmp (p, prefix, n) == 0)) {
            found = p - rel;
            *len = (size_t) (q - p);
            if (!last)
                break;
        }
        p = q;
    }
    return found;
}

long
sysfs_last_component (const char *rel, bool (*match) (const char *, size_t), size_t *len)
{
    return sysfs_find_component (rel, match, NULL, true, len);
}

bool
sysfs_has_component (const char *rel, const char *prefix, bool digit)
{
    size_t n = strlen (prefix);
    const char *p = rel;
    while (*p) {
        while (*p == '/')
            p++;
        if (strncmp (p, prefix, n) == 0 && (!digit || isdigit ((unsigned char) p[n])))
            return true;
        p = strchrnul (p, '/');
    }
    return false;
}

long
sysfs_component_end (const char *rel, const char *prefix, bool last)
{
    size_t len = 0;
    long at = sysfs_find_component (rel, NULL, prefix, last, &len);
    return at < 0 ? -1 : at + (long) len;
}
