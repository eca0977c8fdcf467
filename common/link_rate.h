/*  link_rate.h: what a link moves, from the speed the kernel writes for it
    and its width: the one place iofleet turns a link into bytes per second.

    The speeds, as sysfs gives them:
      PCIe  current_link_speed   "2.5 GT/s PCIe" .. "64.0 GT/s PCIe"
                                 (older kernels: "8 GT/s")
      SAS   negotiated_linkrate  "1.5 Gbit" .. "22.5 Gbit"
      SATA  sata_spd             "1.5 Gbps" .. "6.0 Gbps"
    The payload rate is the line rate x width x the line code's share:
      8b/10b     PCIe 2.5 and 5 GT/s, SAS 1.5..12 Gbit, SATA
      128b/130b  PCIe 8, 16 and 32 GT/s
      128b/150b  SAS-4 22.5 Gbit ("24G SAS")
      236/256    PCIe 64 GT/s (FLIT mode: a 256-byte flit carries 236
                 bytes of TLPs)
    Protocol overhead above the line code (packet headers, credits,
    commands) is not taken off: a drive moves less than this, never more.
*/
#ifndef IOF_LINK_RATE_H
#define IOF_LINK_RATE_H

#include <stddef.h>

/* The payload bytes per second of a link of the given speed text and
   width (lanes, or phys of a SAS port; 0 or less counts as 1), or NAN
   when the text is no speed above (empty, "Unknown", "Phy disabled",
   "<unknown>"). */
double link_rate_bps (const char *speed, long width);

/* "PCIe 16.0 GT/s x16", "SAS 12.0 Gbit x4", "SATA 6.0 Gbps": the link as a
   report names it, into out.  Returns out. */
const char *link_rate_name (const char *speed, long width, char *out, size_t cap);

#endif
