/*  inventory_host.h: the inventory's "host": hostname, kernel, OS, CPU,
    memory and boot id, from procfs and os-release. */
#ifndef IOF_INVENTORY_HOST_H
#define IOF_INVENTORY_HOST_H

#include "inventory_ctx.h"

/* The JSON object of the host.  NULL (out of memory noted in inv) only
   when out of memory. */
json_t *inventory_host_json (inventory_ctx_t *inv);

#endif
