/*  inventory_host.c: see inventory_host.h.  Every read may fail and
    becomes "unknown" or null in place (inventory.c says why). */
#define _GNU_SOURCE
#include "inventory_host.h"
#include "sysfs.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PRETTY_NAME from os-release, unquoted. */
static void
s_os_pretty_name (const char *etc, char *out, size_t cap)
{
    char path[PATH_MAX];
    out[0] = '\0';
    char *buf = sysfs_pathf (path, sizeof path, "%s/os-release", etc) ? file_read_all (path, SYSFS_ATTR_MAX, NULL) : NULL;
    if (!buf)
        return;
    char *save = NULL;
    for (char *line = strtok_r (buf, "\n", &save); line; line = strtok_r (NULL, "\n", &save)) {
        line = sysfs_trim (line);
        if (strncmp (line, "PRETTY_NAME=", 12))
            continue;
        char *v = line + 12;
        size_t n = strlen (v);
        if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
            v[n - 1] = '\0';
            v++;
        }
        str_copy (out, cap, v);
        break;
    }
    free (buf);
}

json_t *
inventory_host_json (inventory_ctx_t *inv)
{
    json_t *o = inventory_ctx_object (inv);
    if (!o)
        return NULL;
    char hostname[256], kernel[256], osr[256], boot[64], model[256] = "", path[PATH_MAX];
    sysfs_read_strf (hostname, sizeof hostname, "%s/sys/kernel/hostname", inv->proc);
    sysfs_read_strf (kernel, sizeof kernel, "%s/sys/kernel/osrelease", inv->proc);
    sysfs_read_strf (boot, sizeof boot, "%s/sys/kernel/random/boot_id", inv->proc);
    s_os_pretty_name (inv->etc, osr, sizeof osr);

    /* "processor : N" per logical CPU; "model name" on x86 and most arm64
       kernels, "cpu" on POWER. */
    uint64_t ncpu = 0;
    char *buf = sysfs_pathf (path, sizeof path, "%s/cpuinfo", inv->proc) ? file_read_all (path, INVENTORY_PROC_MAX, NULL) : NULL;
    if (buf) {
        char *save = NULL;
        for (char *line = strtok_r (buf, "\n", &save); line; line = strtok_r (NULL, "\n", &save)) {
            char *colon = strchr (line, ':');
            if (!colon)
                continue;
            *colon = '\0';
            const char *key = sysfs_trim (line);
            if (strcmp (key, "processor") == 0)
                ncpu++;
            else if (!model[0] && (strcmp (key, "model name") == 0 || strcmp (key, "cpu") == 0))
                str_copy (model, sizeof model, sysfs_trim (colon + 1));
        }
        free (buf);
    }
    uint64_t memkb = 0;
    bool have_mem = false;
    buf = sysfs_pathf (path, sizeof path, "%s/meminfo", inv->proc) ? file_read_all (path, INVENTORY_PROC_MAX, NULL) : NULL;
    if (buf) {
        unsigned long long kb;
        char *p = strstr (buf, "MemTotal:");
        if (p && sscanf (p, "MemTotal: %llu kB", &kb) == 1 && kb <= UINT64_MAX / 1024) {
            memkb = kb;
            have_mem = true;
        }
        free (buf);
    }
    inventory_ctx_set (inv, o, "hostname", inventory_ctx_str (hostname));
    inventory_ctx_set (inv, o, "kernel", inventory_ctx_str (kernel));
    inventory_ctx_set (inv, o, "os_release", inventory_ctx_str (osr));
    inventory_ctx_set (inv, o, "cpu_model", inventory_ctx_str (model));
    inventory_ctx_set (inv, o, "cpu_count", inventory_ctx_num (ncpu > 0, ncpu));
    inventory_ctx_set (inv, o, "memory_bytes", inventory_ctx_num (have_mem, memkb * 1024));
    inventory_ctx_set (inv, o, "boot_id", inventory_ctx_str (boot));
    return o;
}

