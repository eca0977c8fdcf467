/*  json_text.h: a JSON text built piece by piece, for a reply too big to
    hold as a tree (a report of thousands of targets is written one agent
    at a time, each agent's tree freed once written).  A text marked
    compressed (json_text_init_gz: an admin reply) turns into gzip once
    past GZ_AFTER bytes and is compressed as it grows (gz.h).
*/
#ifndef IOF_JSON_TEXT_H
#define IOF_JSON_TEXT_H

#include "gz.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *data;                 /* plain: NUL-terminated while not failed;
                                   once gz: the gzip written so far */
    size_t len, cap;
    bool failed;                /* out of memory: the text is incomplete */
    bool may_gz;                /* becomes gzip past GZ_AFTER bytes */
    gz_stream_t *gz;            /* NULL: data is plain text */
    char *stage;                /* gz: plain text not yet compressed */
    size_t staged;
} json_text_t;

/* An empty text.  Can't fail. */
void json_text_init (json_text_t *t);
/* An empty text that becomes gzip past GZ_AFTER bytes.  Can't fail. */
void json_text_init_gz (json_text_t *t);
/* Appends n bytes of s.  Returns 0, or -1 when out of memory (then every
   later append fails too). */
int json_text_add (json_text_t *t, const char *s, size_t n);
/* Puts n bytes of s before what t holds, without a second copy of it
   (gz: as a gzip member of its own in front).  Returns 0, or -1 when out
   of memory. */
int json_text_prepend (json_text_t *t, const char *s, size_t n);
/* Appends a NUL-terminated string. */
int json_text_str (json_text_t *t, const char *s);
/* Appends v as compact JSON (JSON_COMPACT, as the admin replies are
   written).  Returns 0, or -1 when out of memory. */
int json_text_dump (json_text_t *t, const json_t *v);
/* The text (the caller's to free: plain text NUL-terminated, or gzip when
   it grew past GZ_AFTER bytes), its length in *len, and t empty again;
   NULL when an append failed.  Can't fail otherwise. */
char *json_text_take (json_text_t *t, size_t *len);
/* Frees the text.  Can't fail. */
void json_text_fini (json_text_t *t);

#endif
