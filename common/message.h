/*  message.h: the one envelope that crosses the agent socket.

    message_pack() stamps the protocol version and serializes; message_unpack()
    parses AND validates every field against the bounds below, because
    protobuf unpack only proves that the bytes parsed (a zero-length buffer
    unpacks to a default envelope with no body).
*/
#ifndef IOF_MESSAGE_H
#define IOF_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

#include "health.h"
#include "iofleet.pb-c.h"

#define IOF_PROTOCOL_VERSION   2      /* 2: Ack.upto counts, Ack.seqs, Hello.job_* */

/* Bounds checked by message_unpack().  Any frame larger than MSG_MAX_BYTES
   is refused by the socket itself (ZMQ_MAXMSGSIZE). */
#define MSG_MAX_BYTES          (16u << 20)
#define MSG_NAME_MAX           64

/* ZMTP heartbeats on both ends of an agent's connection: a PING when
   nothing was sent for MSG_ZMTP_PING_MS; no answer in the timeout drops
   the connection (the agent redials).  No TTL in the PINGs.  Each message
   after a PING makes libzmq 4.3 cancel a timer by walking every timer of
   its I/O thread, one or two for each connection: at 1,500 agents with
   1 s pings (and TTLs) that walk was 27% of the controller's I/O thread
   (perf), growing with the square of the agents. */
#define MSG_ZMTP_PING_MS       5000
#define MSG_ZMTP_AGENT_TIMEOUT_MS 10000   /* the agent waits for a PONG */
#define MSG_ZMTP_CTL_TIMEOUT_MS   15000   /* the controller waits for one */
#define MSG_TEXT_MAX           1024       /* hostname, kernel, reasons */
#define MSG_LABELS_MAX         32
#define MSG_LABEL_VALUE_MAX    256
#define MSG_TARGETS_MAX        256
#define MSG_ACK_SEQS_MAX       4096       /* seqs acknowledged past a gap */
#define MSG_JOBS_MAX           64         /* jobs running together in a step */
#define MSG_PATH_MAX           4096
#define MSG_INVENTORY_MAX      (4u << 20) /* inventory JSON text */
/* A drive's temperature in a snapshot (milli-degrees C): health.h's
   bounds (0 K is -273.15 C). */
#define MSG_TEMP_MIN_MC        (HEALTH_TEMP_MIN_C * 1000 - 150)
#define MSG_TEMP_MAX_MC        (HEALTH_TEMP_MAX_C * 1000)
#define MSG_INTERVAL_MIN_NS    (10ull * 1000000)
#define MSG_INTERVAL_MAX_NS    (60ull * 1000000000)

typedef Iofleet__Envelope envelope_t;

/* Serializes env (version is set here) into a new buffer.  Returns the
   buffer (free()) and its length in *len, or NULL on allocation failure. */
uint8_t *message_pack (envelope_t *env, size_t *len);

/* The protocol version this process speaks: IOF_PROTOCOL_VERSION, unless a
   test set another (iofleet-agent --test-protocol) to play an agent of
   another release.  Can't fail. */
void message_set_protocol (uint32_t version);
uint32_t message_protocol (void);

/* Parses and validates len bytes.  Returns the envelope (free with
   message_free), or NULL with a one-line reason in err naming the field and
   the limit.  A well-formed envelope with another protocol version is
   returned with *version_mismatch set, so the caller can answer REJECT
   (only version and the body case are trustworthy then). */
envelope_t *message_unpack (const uint8_t *buf, size_t len, int *version_mismatch,
                            char *err, size_t errlen);

void message_free (envelope_t *env);

/* The body case of len bytes that parse as an envelope, whatever their
   fields hold (0: they do not parse): for a message message_unpack
   refused, whether it was a HELLO, which is answered with REJECT naming
   the bound it broke rather than dropped.  Can't fail. */
int message_body_case (const uint8_t *buf, size_t len);

/* Name of the body case ("hello", "snapshot", ...), for logs. */
const char *message_kind (const envelope_t *env);

/* A sample's stats of direction d (direction.h), or NULL when absent.
   Can't fail. */
const Iofleet__DirStats *message_sample_dir (const Iofleet__TargetSample *t, int d);

#endif
