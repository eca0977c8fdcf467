/*  selector.h: drive selectors in plans, an iofleet extension.

    A plan names drives by what they are rather than by a device name that
    differs from host to host:
        filename=@all            every data drive this agent may use
        filename=@nvme           by transport: @nvme @sas @sata @virtio @loop @other
        filename=@model:GLOB     by model (fnmatch), e.g. @model:*PM9A3*
        filename=@serial:GLOB    by serial
    Each agent expands a selector against its own inventory.  Only data
    drives count: not mounted, not the boot device, no holders (LVM, md,
    dm), and allowed by the agent's --allow.  A selector may be one entry
    of a ':'-separated filename list.
*/
#ifndef IOF_SELECTOR_H
#define IOF_SELECTOR_H

#include <jansson.h>
#include <stddef.h>

#include "targets.h"

/* True when name is a selector (starts with '@').  Can't fail. */
int selector_is (const char *name);

/* Expands sel against inv (agent/inventory.h's JSON), appending the
   matching drives' paths (malloc'd; the caller frees them) to out[*n..max).
   Returns the number added (> 0); 0 when nothing matched, with err saying
   which drives there were and why each was left out; -EINVAL for a
   selector that is not one (err names the forms). */
int selector_expand (const char *sel, json_t *inv, const target_policy_t *pol, char **out,
                     int *n, int max, char *err, size_t errlen);

#endif
