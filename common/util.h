/*  util.h: clocks, string and path helpers shared by all three programs. */
#ifndef IOF_UTIL_H
#define IOF_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>

#define NS_PER_SEC  1000000000ull
#define NS_PER_MS   1000000ull

#ifndef IOF_VERSION
#error "IOF_VERSION comes from project(VERSION) in CMakeLists.txt"
#endif

/* CLOCK_REALTIME and CLOCK_MONOTONIC in ns.  Can't fail. */
uint64_t clock_real_ns (void);
uint64_t clock_mono_ns (void);

/* Raises this process's open-file limit to at least want (up to the hard
   limit; FD_LIMIT_HARD: to the hard limit, as systemd's LimitNOFILE= would
   set it): a controller holds a socket per agent and --http's pool.
   Returns the soft limit now in force, or -1 when it cannot be read. */
#define FD_LIMIT_NR_OPEN (1L << 20)     /* Linux's default fs.nr_open */
#define FD_LIMIT_HARD    LONG_MAX
long fd_limit_raise (long want);
/* Puts the soft limit back as it was before fd_limit_raise, for a child
   about to exec (programs using select(2) expect 1024).  Only a system
   call: safe between fork and exec.  Can't fail. */
void fd_limit_restore (void);

/* splitmix64: advances *state and returns the next of its well-mixed
   64-bit numbers (seeding generators, keyed draws).  Can't fail. */
static inline uint64_t
splitmix64 (uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Sleeps for ns nanoseconds (restarting on EINTR).  Can't fail. */
void sleep_ns (uint64_t ns);

/* Copies src into dst (capacity cap), always terminated.  Returns -ENAMETOOLONG
   when src did not fit (dst then holds a truncated copy), else 0. */
int str_copy (char *dst, size_t cap, const char *src);

/* Parses a whole decimal string into *out within [lo, hi].  Returns 0,
   -EINVAL (not a number) or -ERANGE. */
int parse_u64 (const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* Returns the offset of the first byte of s (len bytes) that is not part of
   well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF),
   or -1 when all of it is valid.  Can't fail. */
long utf8_invalid_at (const char *s, size_t len);

/* Formats n bytes/second or ops as "1.23 GiB/s"-style text into buf. */
const char *fmt_bw (double bytes_per_s, char *buf, size_t cap);
/* Formats a size in bytes for people: "512 B", "31.2 GiB", "10.0 TiB"
   (powers of 1024).  Can't fail. */
const char *fmt_size (uint64_t n, char *buf, size_t cap);
/* Formats a size as a job file writes it: "10t", "64k" when it is a whole
   number of that unit (powers of 1024), else the bytes.  Can't fail. */
const char *fmt_size_option (uint64_t n, char *buf, size_t cap);
/* Formats a latency in ns with a fitting unit ("812 us", "1.25 ms"). */
const char *fmt_lat (double ns, char *buf, size_t cap);
/* IOPS for people: 812, 45.4k, 1.05M (powers of 1000). */
const char *fmt_iops (double v, char *buf, size_t cap);

/* Reads a whole file (at most max bytes) into a new NUL-terminated buffer.
   Returns NULL with errno set (EFBIG when larger than max). */
char *file_read_all (const char *path, size_t max, size_t *len_out);

/* The admin endpoint used when none is given: an ipc socket in
   $RUNTIME_DIRECTORY/ for the controller (service: its systemd unit's
   RuntimeDirectory=, /run/iofleet when packaged), else /run/iofleet/ for root (whatever its
   login session's $XDG_RUNTIME_DIR), else $XDG_RUNTIME_DIR/iofleet/, else
   /tmp/iofleet-UID/.  Writes "ipc://PATH"
   into buf.  Can't fail. */
const char *default_admin_endpoint (char *buf, size_t cap, bool service);

/* ZMTP heartbeats on an admin connection, set at both ends (the CLI's
   REQ, the controller's admin ROUTER): a PING each ADMIN_PING_MS, and a
   peer that sends nothing for ADMIN_PING_TIMEOUT_MS after one is gone (a
   host that vanished: a process that died is seen at once, its kernel
   closes the connection).  libzmq 4.3 counts only a whole message as a
   sign of life (libzmq#2709): the PONG waits behind a reply in transit,
   so the timeout must outlast the largest reply's transfer (a 38 MB
   report goes gzip'd, about 5 MB: 5 s holds down to 8 Mbit/s).  A
   controller busy computing still answers PINGs (libzmq's I/O thread). */
#define ADMIN_PING_MS         1000
#define ADMIN_PING_TIMEOUT_MS 5000

/* one for n == 1, else many: a count's noun in a message ("1 agent",
   "3 agents").  Can't fail. */
const char *plural (long long n, const char *one, const char *many);

/* True when argv[first..] asks for help: --help or -h anywhere before a
   "--".  Every program and subcommand answers it before acting on any
   other argument.  Can't fail. */
bool args_want_help (int argc, char *const argv[], int first);

/* An invariant, checked in every build (assert is compiled out of the
   release build): a broken one is a bug, reported with where, then abort. */
#define IOF_ASSERT(cond) \
    ((cond) ? (void) 0 : iof_assert_failed (#cond, __FILE__, __LINE__))
void iof_assert_failed (const char *what, const char *file, int line)
    __attribute__ ((noreturn));

/* Room for one more element after n in the array p of capacity *cap
   (elements of size bytes): p itself when n < *cap, else p grown to twice
   *cap (first when empty), *cap updated.  NULL when out of memory (p and
   *cap untouched). */
void *array_room (void *p, size_t *cap, size_t n, size_t size, size_t first);

/* FNV-1a (64-bit) of text as 16 lowercase hex digits.  Can't fail. */
void hash_text (const char *s, char out[17]);

#endif
