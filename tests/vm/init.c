/*  init.c: PID 1 of the virtual machine tests/vm/test_format.sh boots
    (built static, alone): mounts /dev, /proc and /sys, loads the kernel
    modules /modules/order lists, waits for the devices /wait lists, runs
    each command of /cmds (one a line, words split at spaces) and prints
    "IOFLEET-VM-RC N RC" for each on the console, then powers off.  All it
    does is start the real agent in a machine with real (emulated) NVMe and
    SCSI drives; the test reads the verdicts from outside.
*/
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORDS_MAX 32

static void
load_modules (void)
{
    FILE *f = fopen ("/modules/order", "r");
    char line[512];
    while (f && fgets (line, sizeof line, f)) {
        line[strcspn (line, "\n")] = '\0';
        if (!line[0])
            continue;
        int fd = open (line, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || (syscall (SYS_finit_module, fd, "", 0) != 0 && errno != EEXIST))
            printf ("IOFLEET-VM module %s: %s\n", line, strerror (errno));
        if (fd >= 0)
            close (fd);
    }
    if (f)
        fclose (f);
}

static void
wait_devices (void)
{
    FILE *f = fopen ("/wait", "r");
    char line[512];
    while (f && fgets (line, sizeof line, f)) {
        line[strcspn (line, "\n")] = '\0';
        struct stat st;
        for (int i = 0; line[0] && i < 200 && stat (line, &st) != 0; i++)
            nanosleep (&(struct timespec) { 0, 100000000 }, NULL);
        if (line[0] && stat (line, &st) != 0)
            printf ("IOFLEET-VM no %s after 20 s\n", line);
    }
    if (f)
        fclose (f);
}

static int
run (char *cmd)
{
    char *argv[WORDS_MAX + 1];
    int n = 0;
    for (char *w = strtok (cmd, " "); w && n < WORDS_MAX; w = strtok (NULL, " "))
        argv[n++] = w;
    argv[n] = NULL;
    if (!n)
        return -1;
    pid_t pid = fork ();
    if (pid == 0) {
        execv (argv[0], argv);
        printf ("IOFLEET-VM exec %s: %s\n", argv[0], strerror (errno));
        _exit (127);
    }
    int status = 0;
    while (pid > 0 && waitpid (pid, &status, 0) < 0 && errno == EINTR)
        ;
    return pid < 0 ? -1 : WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

int
main (void)
{
    mount ("devtmpfs", "/dev", "devtmpfs", 0, NULL);
    mount ("proc", "/proc", "proc", 0, NULL);
    mount ("sysfs", "/sys", "sysfs", 0, NULL);
    mount ("tmpfs", "/tmp", "tmpfs", 0, NULL);
    int c = open ("/dev/console", O_RDWR);
    if (c >= 0) {
        dup2 (c, 0);
        dup2 (c, 1);
        dup2 (c, 2);
    }
    setvbuf (stdout, NULL, _IONBF, 0);
    load_modules ();
    wait_devices ();
    FILE *f = fopen ("/cmds", "r");
    char line[4096];
    for (int k = 1; f && fgets (line, sizeof line, f); k++) {
        line[strcspn (line, "\n")] = '\0';
        printf ("IOFLEET-VM-RUN %d %s\n", k, line);
        int rc = run (line);
        printf ("IOFLEET-VM-RC %d %d\n", k, rc);
    }
    sync ();
    reboot (RB_POWER_OFF);
    return 0;
}
