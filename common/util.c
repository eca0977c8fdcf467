/*  util.c: see util.h. */
#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static uint64_t
clock_ns (clockid_t id)
{
    struct timespec ts;
    clock_gettime (id, &ts);
    return (uint64_t) ts.tv_sec * NS_PER_SEC + (uint64_t) ts.tv_nsec;
}

uint64_t clock_real_ns (void) { return clock_ns (CLOCK_REALTIME); }
uint64_t clock_mono_ns (void) { return clock_ns (CLOCK_MONOTONIC); }

void
sleep_ns (uint64_t ns)
{
    struct timespec ts = { .tv_sec = (time_t) (ns / NS_PER_SEC),
                           .tv_nsec = (long) (ns % NS_PER_SEC) };
    while (nanosleep (&ts, &ts) == -1 && errno == EINTR)
        ;
}

int
str_copy (char *dst, size_t cap, const char *src)
{
    size_t n = strlen (src);
    if (cap == 0)
        return -ENAMETOOLONG;
    if (n >= cap) {
        memcpy (dst, src, cap - 1);
        dst[cap - 1] = '\0';
        return -ENAMETOOLONG;
    }
    memcpy (dst, src, n + 1);
    return 0;
}

int
parse_u64 (const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return -EINVAL;
    char *end;
    errno = 0;
    unsigned long long v = strtoull (s, &end, 10);
    if (*end != '\0')
        return -EINVAL;
    if (errno == ERANGE || v < lo || v > hi)
        return -ERANGE;
    *out = v;
    return 0;
}

const char *
fmt_bw (double v, char *buf, size_t cap)
{
    static const char *units[] = { "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s" };
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        u++;
    }
    snprintf (buf, cap, "%.1f %s", v, units[u]);
    return buf;
}

const char *
fmt_size (uint64_t n, char *buf, size_t cap)
{
    static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    if (n < 1024) {
        snprintf (buf, cap, "%llu B", (unsigned long long) n);
        return buf;
    }
    double v = (double) n;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    snprintf (buf, cap, "%.1f %s", v, units[u]);
    return buf;
}

const char *
fmt_size_option (uint64_t n, char *buf, size_t cap)
{
    static const char suffix[] = "kmgtpe";
    int u = -1;
    while (n && u < 5 && n % 1024 == 0) {
        n /= 1024;
        u++;
    }
    if (u < 0)
        snprintf (buf, cap, "%llu", (unsigned long long) n);
    else
        snprintf (buf, cap, "%llu%c", (unsigned long long) n, suffix[u]);
    return buf;
}

const char *
fmt_iops (double v, char *buf, size_t cap)
{
    if (v < 1e4)
        snprintf (buf, cap, "%.0f", v);
    else if (v < 1e6)
        snprintf (buf, cap, "%.1fk", v / 1e3);
    else
        snprintf (buf, cap, "%.2fM", v / 1e6);
    return buf;
}

const char *
fmt_lat (double ns, char *buf, size_t cap)
{
    if (ns < 1e3)
        snprintf (buf, cap, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf (buf, cap, "%.1f us", ns / 1e3);
    else if (ns < 1e9)
        snprintf (buf, cap, "%.2f ms", ns / 1e6);
    else
        snprintf (buf, cap, "%.2f s", ns / 1e9);
    return buf;
}

char *
file_read_all (const char *path, size_t max, size_t *len_out)
{
    FILE *f = fopen (path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc (cap + 1);
    if (!buf) {
        fclose (f);
        errno = ENOMEM;
        return NULL;
    }
    for (;;) {
        if (len == cap) {
            if (cap >= max) {
                free (buf);
                fclose (f);
                errno = EFBIG;
                return NULL;
            }
            cap = cap * 2 > max ? max : cap * 2;
            char *nb = realloc (buf, cap + 1);
            if (!nb) {
                free (buf);
                fclose (f);
                errno = ENOMEM;
                return NULL;
            }
            buf = nb;
        }
        size_t n = fread (buf + len, 1, cap - len, f);
        if (n == 0)
            break;
        len += n;
    }
    int err = ferror (f);
    fclose (f);
    if (err) {
        free (buf);
        errno = EIO;
        return NULL;
    }
    buf[len] = '\0';
    if (len_out)
        *len_out = len;
    return buf;
}

const char *
default_admin_endpoint (char *buf, size_t cap, bool service)
{
    const char *xdg = getenv ("XDG_RUNTIME_DIR");
    /* systemd's RuntimeDirectory=: the controller's own, not that of any
       service that happens to run the CLI */
    const char *rt = service ? getenv ("RUNTIME_DIRECTORY") : NULL;
    if (rt && *rt && !strchr (rt, ':'))
        snprintf (buf, cap, "ipc://%s/admin.sock", rt);
    else if (geteuid () == 0)   /* not a root login's /run/user/0: the service's socket */
        snprintf (buf, cap, "ipc:///run/iofleet/admin.sock");
    else if (xdg && *xdg)
        snprintf (buf, cap, "ipc://%s/iofleet/admin.sock", xdg);
    else
        snprintf (buf, cap, "ipc:///tmp/iofleet-%u/admin.sock", (unsigned) geteuid ());
    return buf;
}

long
utf8_invalid_at (const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *) str;
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t n;
        unsigned min;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            n = 1; min = 0x80; c &= 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            n = 2; min = 0x800; c &= 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            n = 3; min = 0x10000; c &= 0x07;
        } else
            return (long) i;
        if (i + n >= len)
            return (long) i;
        for (size_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return (long) i;
            c = (c << 6) | (s[i + k] & 0x3f);
        }
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
            return (long) i;
        i += n + 1;
    }
    return -1;
}

/* The soft limit before fd_limit_raise first raised it (0: not raised). */
static rlim_t s_fd_soft_before;

long
fd_limit_raise (long want)
{
    struct rlimit rl;
    if (getrlimit (RLIMIT_NOFILE, &rl) != 0)
        return -1;
    if (rl.rlim_cur != RLIM_INFINITY && (long) rl.rlim_cur < want) {
        rlim_t before = rl.rlim_cur;
        rlim_t to = (rlim_t) want;
        if (rl.rlim_max != RLIM_INFINITY && to > rl.rlim_max)
            to = rl.rlim_max;
        rl.rlim_cur = to;
        /* A hard limit of "unlimited" is still capped by fs.nr_open. */
        if (setrlimit (RLIMIT_NOFILE, &rl) != 0 && to > FD_LIMIT_NR_OPEN) {
            rl.rlim_cur = FD_LIMIT_NR_OPEN;
            setrlimit (RLIMIT_NOFILE, &rl);
        }
        getrlimit (RLIMIT_NOFILE, &rl);
        if (!s_fd_soft_before && rl.rlim_cur != before)
            s_fd_soft_before = before;
    }
    return rl.rlim_cur == RLIM_INFINITY ? want : (long) rl.rlim_cur;
}

void
fd_limit_restore (void)
{
    struct rlimit rl;
    if (s_fd_soft_before && getrlimit (RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = s_fd_soft_before;
        setrlimit (RLIMIT_NOFILE, &rl);
    }
}

bool
args_want_help (int argc, char *const argv[], int first)
{
    for (int i = first; i < argc && strcmp (argv[i], "--") != 0; i++)
        if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
            return true;
    return false;
}

const char *
plural (long long n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

void *
array_room (void *p, size_t *cap, size_t n, size_t size, size_t first)
{
    if (n < *cap)
        return p;
    IOF_ASSERT (n == *cap && first > 0 && size > 0);
    if (*cap > SIZE_MAX / 2 / size)
        return NULL;
    size_t want = *cap ? 2 * *cap : first;
    if (want > SIZE_MAX / size)
        return NULL;
    void *q = realloc (p, want * size);
    if (q)
        *cap = want;
    return q;
}

void
hash_text (const char *s, char out[17])
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) {
        h ^= (unsigned char) *s;
        h *= 0x100000001b3ull;
    }
    snprintf (out, 17, "%016llx", (unsigned long long) h);
}

void
iof_assert_failed (const char *what, const char *file, int line)
{
    fprintf (stderr, "iofleet: invariant broken at %s:%d: %s (a bug: please report it)\n",
             file, line, what);
    abort ();
}
