/*  inventory_ctx.h: what one inventory collection (inventory.c) shares
    between its parts (inventory_host.c, inventory_mounts.c,
    inventory_hba.c, inventory_drives.c): the roots it reads under, the
    mounts and controllers found so far, and whether memory ran out; and
    the JSON values every part builds its objects from. */
#ifndef IOF_INVENTORY_CTX_H
#define IOF_INVENTORY_CTX_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

/* /proc/cpuinfo is about 1 KiB per CPU; mountinfo grows with containers. */
#define INVENTORY_PROC_MAX (16u << 20)

typedef struct {
    char name[NAME_MAX + 1];    /* "sda2" from /dev/sda2, or "" */
    char majmin[32];            /* "8:2" from mountinfo, or "" */
    bool root;                  /* mounted at "/" */
} inventory_mount_t;

typedef struct {
    char addr[64];
    char dir[PATH_MAX];         /* absolute sysfs directory of the function */
} inventory_ctrl_t;

typedef struct {
    char sys[PATH_MAX];         /* sysfs root, realpath'd when possible */
    char proc[PATH_MAX];
    char etc[PATH_MAX];
    char pciids[PATH_MAX];      /* "" when no pci.ids was found */
    inventory_mount_t *mounts;
    int nmounts;
    inventory_ctrl_t *ctrls;
    int nctrls;
    bool oom;                   /* a part failed to allocate: no inventory */
} inventory_ctx_t;

/* A JSON string of s, "unknown" for NULL or "".  jansson refuses invalid
   UTF-8, and sysfs strings are bytes from firmware: such strings keep their
   ASCII and get '?' for the rest.  A string with a control character is
   not text (an HBA once answered "Pmw>\x01V" for its firmware): unknown.
   NULL only when out of memory. */
json_t *inventory_ctx_str (const char *s);

/* v as a JSON integer when ok and it fits, else null.  NULL only when out
   of memory. */
json_t *inventory_ctx_num (bool ok, uint64_t v);

/* Sets o[key] = v, noting out-of-memory in inv (v NULL or the set
   failing). */
void inventory_ctx_set (inventory_ctx_t *inv, json_t *o, const char *key, json_t *v);

/* A new JSON object, or NULL with out-of-memory noted in inv. */
json_t *inventory_ctx_object (inventory_ctx_t *inv);

#endif
