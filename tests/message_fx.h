/*  message_fx.h: the fixture the message tests share (test_message.c,
    test_message_bounds.c, test_message_fuzz.c, each a program of its
    own): a valid message of every kind to break one field of, an
    independent check of the bounds message.h documents, and pack/unpack
    helpers.  Nothing here CHECKs: what hist_setup() encodes, the one
    step of setting up that can fail, test_message checks (once for the
    three).
*/
#ifndef IOF_MESSAGE_FX_H
#define IOF_MESSAGE_FX_H

#include "message.h"
#include "histogram.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

//  ---------------------------------------------------------------------
//  Fixture: one of every sub-message, with room for one entry past every
//  count limit.  The fx_KIND() builders reset it and make env a valid
//  message of that kind; a case then breaks exactly one field.

#define NLABELS     3
#define NFILES      3

typedef struct {
    envelope_t env;
    Iofleet__Hello hello;
    Iofleet__Label label[MSG_LABELS_MAX + 1];
    Iofleet__Label *labelp[MSG_LABELS_MAX + 1];
    Iofleet__Welcome welcome;
    Iofleet__Reject reject;
    Iofleet__Ping ping;
    Iofleet__Pong pong;
    Iofleet__Prepare prepare;
    Iofleet__JobSpec job;
    char *files[MSG_TARGETS_MAX + 1];
    Iofleet__Ready ready;
    char *rtargets[MSG_TARGETS_MAX + 1];
    Iofleet__Refused refused;
    Iofleet__Start start;
    Iofleet__Snapshot snap;
    Iofleet__Done done;
    Iofleet__TargetSample ts[MSG_TARGETS_MAX + 1];
    Iofleet__TargetSample *tsp[MSG_TARGETS_MAX + 1];
    Iofleet__DirStats rd[MSG_TARGETS_MAX + 1];
    Iofleet__DirStats wr[MSG_TARGETS_MAX + 1];
    Iofleet__Ack ack;
    Iofleet__Error error;
    Iofleet__Abort abort;
} fx_t;

extern fx_t fx;

//  The read and write latency histograms every snapshot sample carries
//  (hist_setup), the length of their wire encodings (0: did not encode),
//  and HIST_WIRE_MAX + 1 bytes: one byte past the limit.
extern histogram_t hist_r, hist_w;
extern size_t wire_r_len, wire_w_len;
extern uint8_t big_hist[HIST_WIRE_MAX + 1];

//  A string of n copies of c, from a small ring of buffers (n at most
//  MSG_PATH_MAX + 1).  Can't fail (aborts past that).
char *strn (size_t n, char c);

//  Records and encodes the histograms, names the label keys: once, before
//  any fx_KIND().  Can't fail (an encoding that fails leaves its length 0,
//  which test_message checks).
void hist_setup (void);

//  Every sub-message at its INIT, none in env.  Can't fail.
void fx_reset (void);

//  fx_reset(), then env a valid message of KIND.  Can't fail.
void fx_hello (void);
void fx_welcome (void);
void fx_reject (void);
void fx_ping (void);
void fx_pong (void);
void fx_prepare (void);
void fx_ready (void);
void fx_refused (void);
void fx_start (void);
void fx_snapshot (void);
void fx_ack (void);
void fx_done (void);
void fx_error (void);
void fx_abort (void);

//  Every kind, by name, with its builder, in the order above.
typedef struct {
    const char *kind;
    void (*build) (void);
} fx_kind_t;

#define NKINDS      14
extern const fx_kind_t kinds[NKINDS];

//  Returns NULL when e keeps every bound message.h documents, else the
//  first one broken.
const char *bounds_broken (const envelope_t *e);

//  message_unpack() of len bytes copied to a private malloc of exactly len
//  bytes, so ASan sees any read past the end.  Returns what it returns.
envelope_t *unpack_exact (const uint8_t *bytes, size_t len, int *mm, char *err, size_t errlen);

//  Packs fx.env; the caller frees.  Can't fail (aborts).
uint8_t *pack_fx (size_t *len);

#endif
