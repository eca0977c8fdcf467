/*  json_text.h: a JSON text built piece by piece, for a reply too big to
    hold as a tree (a report of thousands of targets is written one agent
    at a time, each agent's tree freed once written).
*/
#ifndef IOF_JSON_TEXT_H
#define IOF_JSON_TEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *data;                 /* NUL-terminated while not failed */
    size_t len, cap;
    bool failed;                /* out of memory: the text is incomplete */
} json_text_t;

/* An empty text.  Can't fail. */
void json_text_init (json_text_t *t);
/* Appends n bytes of s.  Returns 0, or -1 when out of memory (then every
   later append fails too). */
int json_text_add (json_text_t *t, const char *s, size_t n);
/* Puts n bytes of s before what t holds, without a second copy of it.
   Returns 0, or -1 when out of memory. */
int json_text_prepend (json_text_t *t, const char *s, size_t n);
/* Appends a NUL-terminated string. */
int json_text_str (json_text_t *t, const char *s);
/* Appends v as compact JSON (JSON_COMPACT, as the admin replies are
   written).  Returns 0, or -1 when out of memory. */
int json_text_dump (json_text_t *t, const json_t *v);
/* The text (NUL-terminated, the caller's to free) and the buffer empty
   again; NULL when an append failed.  Can't fail otherwise. */
char *json_text_take (json_text_t *t);
/* Frees the text.  Can't fail. */
void json_text_fini (json_text_t *t);

#endif
