/*  json_check.h: CHECKs (testutil.h) of one member of a JSON object:
    a string, an integer, null, a boolean. */
#ifndef IOF_JSON_CHECK_H
#define IOF_JSON_CHECK_H

#include <jansson.h>
#include <string.h>

#include "testutil.h"

#define CHECK_S(obj, key, want) do {                                        \
    const char *got_ = json_string_value (json_object_get ((obj), (key)));  \
    CHECK_MSG (got_ && strcmp (got_, (want)) == 0, "%s = '%s', want '%s'",  \
               (key), got_ ? got_ : "(none)", (want));                      \
} while (0)

#define CHECK_I(obj, key, want) do {                                        \
    json_t *v_ = json_object_get ((obj), (key));                            \
    CHECK_MSG (json_is_integer (v_) && json_integer_value (v_) == (want),   \
               "%s = %lld, want %lld", (key),                               \
               json_is_integer (v_) ? (long long) json_integer_value (v_) : -1LL, \
               (long long) (want));                                         \
} while (0)

#define CHECK_NULL(obj, key) \
    CHECK_MSG (json_is_null (json_object_get ((obj), (key))), "%s is not null", (key))

#define CHECK_B(obj, key, want) do {                                        \
    json_t *v_ = json_object_get ((obj), (key));                            \
    CHECK_MSG (json_is_boolean (v_) && json_boolean_value (v_) == (want),   \
               "%s is not %s", (key), (want) ? "true" : "false");            \
} while (0)

#endif
