/*  proto_unknown.h: for tests and fuzzers of the envelope.  True when m or
    a message inside it kept fields this schema does not know.  protobuf-c
    keeps them verbatim and packs them again, but a tag of 2^29 or more
    does not survive that (the key overflows 32 bits); iofleet never
    re-packs what it received, so such envelopes skip re-pack checks. */
#ifndef IOF_PROTO_UNKNOWN_H
#define IOF_PROTO_UNKNOWN_H

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool
proto_has_unknown (const ProtobufCMessage *m)
{
    if (!m)
        return false;
    if (m->n_unknown_fields)
        return true;
    const ProtobufCMessageDescriptor *d = m->descriptor;
    const char *base = (const char *) m;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->type != PROTOBUF_C_TYPE_MESSAGE)
            continue;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *) (base + f->quantifier_offset);
            ProtobufCMessage *const *v = *(ProtobufCMessage *const *const *) (base + f->offset);
            for (size_t k = 0; k < n; k++)
                if (proto_has_unknown (v[k]))
                    return true;
            continue;
        }
        if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
            && *(const uint32_t *) (base + f->quantifier_offset) != f->id)
            continue;
        if (proto_has_unknown (*(ProtobufCMessage *const *) (base + f->offset)))
            return true;
    }
    return false;
}

#endif
