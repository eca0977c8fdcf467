/*  health_probe.c: a target's drive health, see health_probe.h. */
#define _GNU_SOURCE
#include "health_probe.h"
#include "message.h"
#include "sysfs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <linux/nvme_ioctl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef enum { KIND_NONE, KIND_NVME, KIND_SCSI } kind_t;

struct health_probe {
    char name[NAME_MAX + 1];            /* block device, "" none */
    char why[HEALTH_REASON_MAX + 1];    /* KIND_NONE: why there is no health */
    kind_t kind;
    char node[PATH_MAX];                /* its device node */
    char hwmon[PATH_MAX];               /* its hwmon directory, "" none */
    int temp_fd;                        /* hwmon temp1_input, -1 none */
    uint64_t temp_at;                   /* when it was last read (monotonic ns), 0 never */
    int32_t temp_mc;                    /* ... and what it said */
    bool temp_ok;
};

/* The hwmon directory of the device at dir (NVMe: device/hwmonN; drivetemp:
   device/hwmon/hwmonN) into out; "" when none.  Can't fail. */
static void
find_hwmon (const char *dir, char *out, size_t cap)
{
    static const char *const pats[] = { "%s/device/hwmon[0-9]*/temp1_input",
                                        "%s/device/hwmon/hwmon[0-9]*/temp1_input" };
    out[0] = '\0';
    for (size_t i = 0; i < sizeof pats / sizeof *pats && !out[0]; i++) {
        char pat[PATH_MAX];
        if (!sysfs_pathf (pat, sizeof pat, pats[i], dir))
            continue;
        glob_t g;
        if (glob (pat, 0, NULL, &g) == 0 && g.gl_pathc > 0) {
            const char *p = g.gl_pathv[0];
            size_t n = strlen (p) - strlen ("/temp1_input");
            if (n < cap) {
                memcpy (out, p, n);
                out[n] = '\0';
            }
        }
        globfree (&g);
    }
}

/* Sets what the device name is and where its sensor is. */
static void
classify (health_probe_t *self, const char *dir, const char *dev_root)
{
    const char *n = self->name;
    static const struct { const char *prefix, *why; } none[] = {
        { "loop", "loop device: the file behind it has no SMART" },
        { "ram", "RAM disk: no SMART" },
        { "zram", "compressed RAM disk: no SMART" },
        { "dm-", "device-mapper device: health is its member drives', not followed" },
        { "md", "md RAID device: health is its member drives', not followed" },
        { "vd", "virtio block device: the hypervisor passes no SMART through" },
        { "xvd", "Xen virtual block device: no SMART" },
        { "nbd", "network block device: no SMART" },
        { "rbd", "Ceph RBD device: no SMART" },
    };
    for (size_t i = 0; i < sizeof none / sizeof *none; i++)
        if (strncmp (n, none[i].prefix, strlen (none[i].prefix)) == 0) {
            str_copy (self->why, sizeof self->why, none[i].why);
            return;
        }
    if (strncmp (n, "nvme", 4) == 0)
        self->kind = KIND_NVME;
    else if (strncmp (n, "sd", 2) == 0)
        self->kind = KIND_SCSI;
    else {
        snprintf (self->why, sizeof self->why, "%s: no health source for this kind of device",
                  n);
        return;
    }
    snprintf (self->node, sizeof self->node, "%s/%s", dev_root, n);
    find_hwmon (dir, self->hwmon, sizeof self->hwmon);
    if (self->hwmon[0]) {
        char p[PATH_MAX];
        if (sysfs_pathf (p, sizeof p, "%s/temp1_input", self->hwmon))
            self->temp_fd = open (p, O_RDONLY | O_CLOEXEC);
    }
}

static health_probe_t *
probe_alloc (void)
{
    health_probe_t *self = calloc (1, sizeof *self);
    if (self)
        self->temp_fd = -1;
    return self;
}

health_probe_t *
health_probe_new_dev (const char *name, const char *sysfs_root, const char *dev_root)
{
    health_probe_t *self = probe_alloc ();
    if (!self)
        return NULL;
    char dir[PATH_MAX];
    str_copy (self->name, sizeof self->name, name);
    if (!sysfs_pathf (dir, sizeof dir, "%s/block/%s", sysfs_root, name)
        || access (dir, F_OK) != 0) {
        snprintf (self->why, sizeof self->why, "%s: not a block device in sysfs", name);
        return self;
    }
    classify (self, dir, dev_root);
    return self;
}

health_probe_t *
health_probe_new (const char *path, const char *sysfs_root, const char *dev_root)
{
    struct stat st;
    if (stat (path, &st) != 0) {
        health_probe_t *self = probe_alloc ();
        if (self)
            snprintf (self->why, sizeof self->why, "cannot stat the target: %s",
                      strerror (errno));
        return self;
    }
    dev_t dev = S_ISBLK (st.st_mode) ? st.st_rdev : st.st_dev;
    if (major (dev) == 0) {
        health_probe_t *self = probe_alloc ();
        if (self)
            snprintf (self->why, sizeof self->why, "the target is on a filesystem without a "
                      "single block device (tmpfs, overlay, NFS, btrfs, ZFS): no one drive to "
                      "ask");
        return self;
    }
    /* The device's sysfs directory; a partition's disk is its parent. */
    char link[PATH_MAX], dir[PATH_MAX];
    if (!sysfs_pathf (link, sizeof link, "%s/dev/block/%u:%u", sysfs_root, major (dev),
                      minor (dev))
        || !realpath (link, dir)) {
        health_probe_t *self = probe_alloc ();
        if (self)
            snprintf (self->why, sizeof self->why, "device %u:%u is not in sysfs", major (dev),
                      minor (dev));
        return self;
    }
    char part[PATH_MAX];
    if (sysfs_pathf (part, sizeof part, "%s/partition", dir) && access (part, F_OK) == 0) {
        char *slash = strrchr (dir, '/');
        if (slash)
            *slash = '\0';
    }
    const char *name = strrchr (dir, '/');
    return health_probe_new_dev (name ? name + 1 : dir, sysfs_root, dev_root);
}

void
health_probe_destroy (health_probe_t **self_p)
{
    IOF_ASSERT (self_p);
    health_probe_t *self = *self_p;
    if (self) {
        if (self->temp_fd >= 0)
            close (self->temp_fd);
        free (self);
    }
    *self_p = NULL;
}

const char *
health_probe_device (const health_probe_t *self)
{
    return self->name;
}

bool
health_probe_temp (health_probe_t *self, int32_t *mc)
{
    if (self->temp_fd < 0)
        return false;
    uint64_t now = clock_mono_ns ();
    if (self->temp_at && now - self->temp_at < HEALTH_TEMP_PERIOD_NS) {
        *mc = self->temp_mc;
        return self->temp_ok;
    }
    self->temp_at = now;
    self->temp_ok = false;
    char buf[32];
    ssize_t n = pread (self->temp_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    char *end;
    errno = 0;
    long v = strtol (buf, &end, 10);
    if (errno || end == buf || v < MSG_TEMP_MIN_MC || v > MSG_TEMP_MAX_MC)
        return false;
    *mc = self->temp_mc = (int32_t) v;
    return self->temp_ok = true;
}

/* Reads an hwmon attribute (milli-degrees) rounded to whole degrees into
   *c.  Returns false when it is missing. */
static bool
hwmon_c (const health_probe_t *self, const char *attr, int64_t *c)
{
    char v[32];
    if (!self->hwmon[0] || !sysfs_read_strf (v, sizeof v, "%s/%s", self->hwmon, attr))
        return false;
    char *end;
    long long mc = strtoll (v, &end, 10);
    if (end == v)
        return false;
    *c = (mc >= 0 ? mc + 500 : mc - 500) / 1000;
    return true;
}

/* Runs argv (a tool, found on PATH) with its output into a new buffer
   (*out, NUL-terminated; the caller frees), at most
   HEALTH_TOOL_TIMEOUT_MS.  Returns 0, or -1 with why (not installed,
   killed at the timeout). */
static int
run_tool (char *const argv[], char **out, char *why, size_t whylen)
{
    int pfd[2];
    *out = NULL;
    if (pipe2 (pfd, O_CLOEXEC) != 0) {
        snprintf (why, whylen, "pipe: %s", strerror (errno));
        return -1;
    }
    pid_t pid = fork ();
    if (pid < 0) {
        snprintf (why, whylen, "fork: %s", strerror (errno));
        close (pfd[0]);
        close (pfd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2 (pfd[1], 1);
        int devnull = open ("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2 (devnull, 0);
            dup2 (devnull, 2);
        }
        execvp (argv[0], argv);
        _exit (127);
    }
    close (pfd[1]);
    size_t len = 0, cap = 65536;
    char *buf = malloc (cap + 1);
    struct timespec t0;
    clock_gettime (CLOCK_MONOTONIC, &t0);
    bool timed_out = false;
    while (buf) {
        struct timespec t;
        clock_gettime (CLOCK_MONOTONIC, &t);
        long left = HEALTH_TOOL_TIMEOUT_MS - (long) ((t.tv_sec - t0.tv_sec) * 1000
                                                     + (t.tv_nsec - t0.tv_nsec) / 1000000);
        struct pollfd p = { .fd = pfd[0], .events = POLLIN };
        int pr = left > 0 ? poll (&p, 1, (int) left) : 0;
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0) {
            timed_out = true;
            break;
        }
        if (len == cap) {
            if (cap >= HEALTH_TOOL_OUTPUT_MAX)
                break;
            char *nb = realloc (buf, cap * 2 + 1);
            if (!nb)
                break;
            buf = nb;
            cap *= 2;
        }
        ssize_t n = read (pfd[0], buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t) n;
    }
    close (pfd[0]);
    if (timed_out)
        kill (pid, SIGKILL);
    int status = 0;
    while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (timed_out || !buf || (WIFEXITED (status) && WEXITSTATUS (status) == 127)) {
        snprintf (why, whylen, timed_out ? "%s did not answer in %d s" : !buf
                  ? "%s: out of memory" : "%s is not installed", argv[0],
                  HEALTH_TOOL_TIMEOUT_MS / 1000);
        free (buf);
        return -1;
    }
    buf[len] = '\0';
    *out = buf;
    return 0;
}

/* The NVMe SMART / health log page through the admin ioctl.  Returns 0,
   or -errno. */
static int
nvme_log_page (const char *node, uint8_t page[512])
{
    int fd = open (node, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct nvme_admin_cmd cmd;
    memset (&cmd, 0, sizeof cmd);
    cmd.opcode = 0x02;                          /* Get Log Page */
    cmd.nsid = 0xffffffffu;                     /* the controller's, not a namespace's */
    cmd.addr = (uint64_t) (uintptr_t) page;
    cmd.data_len = 512;
    cmd.cdw10 = 0x02u | ((512u / 4 - 1) << 16); /* LID 02h, NUMDL */
    int r = ioctl (fd, NVME_IOCTL_ADMIN_CMD, &cmd);
    int rc = r < 0 ? -errno : r > 0 ? -EIO : 0;   /* > 0: the command's NVMe status */
    close (fd);
    return rc;
}

/* One tool's JSON through its parser into h.  Returns 0, or -1 with why. */
static int
from_tool (char *const argv[], int (*parse) (const char *, health_t *, char *, size_t),
           health_t *h, char *why, size_t whylen)
{
    char *out;
    if (run_tool (argv, &out, why, whylen))
        return -1;
    char err[256];
    int rc = parse (out, h, err, sizeof err);
    free (out);
    if (rc)
        snprintf (why, whylen, "%s: %s", argv[0], err);
    return rc;
}

void
health_probe_read (health_probe_t *self, health_t *h)
{
    if (self->kind == KIND_NONE) {
        health_unavailable (h, "%s", self->why);
        return;
    }
    if (access (self->node, F_OK) != 0) {
        health_unavailable (h, "%s: no device node", self->node);
        return;
    }
    char why[HEALTH_REASON_MAX + 1] = "", why2[HEALTH_REASON_MAX + 1] = "";
    int rc = -1;
    if (self->kind == KIND_NVME) {
        uint8_t page[512];
        int e = nvme_log_page (self->node, page);
        if (e == 0)
            rc = health_from_nvme_log (page, sizeof page, h, why, sizeof why);
        else if (e == -EACCES || e == -EPERM) {
            health_unavailable (h, "%s: no permission to read SMART (%s); run the agent as "
                                "root or with CAP_SYS_ADMIN", self->node, strerror (-e));
            return;
        } else
            snprintf (why, sizeof why, "admin ioctl: %s", strerror (-e));
        if (rc) {
            char *const argv[] = { "nvme", "smart-log", self->node, "-o", "json", NULL };
            rc = from_tool (argv, health_from_nvme_cli, h, why2, sizeof why2);
        }
    }
    if (rc) {
        char *const argv[] = { "smartctl", "--json", "-a", self->node, NULL };
        char why3[HEALTH_REASON_MAX + 1];
        rc = from_tool (argv, health_from_smartctl, h, why3, sizeof why3);
        if (rc) {
            if (why[0] || why2[0])
                health_unavailable (h, "%s%s%s; %s", why, why[0] && why2[0] ? "; " : "", why2,
                                    why3);
            else
                health_unavailable (h, "%s", why3);
            return;
        }
    }
    /* hwmon fills what the source left out: thresholds, or the
       temperature itself. */
    if (h->available) {
        int64_t c;
        if (!health_has (h, HF_TEMPERATURE_C) && hwmon_c (self, "temp1_input", &c))
            health_set (h, HF_TEMPERATURE_C, c);
        if (!health_has (h, HF_WARNING_TEMP_C) && hwmon_c (self, "temp1_max", &c))
            health_set (h, HF_WARNING_TEMP_C, c);
        if (!health_has (h, HF_CRITICAL_TEMP_C) && hwmon_c (self, "temp1_crit", &c))
            health_set (h, HF_CRITICAL_TEMP_C, c);
    }
}
