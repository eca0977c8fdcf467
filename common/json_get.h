/*  json_get.h: readers of figures in JSON (reports, comparisons), one home
    for what a missing or mistyped field reads as, in the CLI that renders
    what the controller computed and in the controller's code that builds
    on its own reports (compare.c, qualification.c).  A field that is not
    there is shown as such, never taken for a measured zero unless the
    caller says so.
*/
#ifndef IOF_JSON_GET_H
#define IOF_JSON_GET_H

#include <jansson.h>
#include <math.h>
#include <string.h>

/* o[key] as a number, or NAN when it is missing or not a number. */
static inline double
json_get_num (json_t *o, const char *key)
{
    json_t *v = json_object_get (o, key);
    return json_is_number (v) ? json_number_value (v) : NAN;
}

/* o[key] as a number, or dflt when it is missing or not a number (a
   count that is absent because it is zero, say). */
static inline double
json_get_num_or (json_t *o, const char *key, double dflt)
{
    json_t *v = json_object_get (o, key);
    return json_is_number (v) ? json_number_value (v) : dflt;
}

/* o[key] as a string, or dflt when it is missing or not a string. */
static inline const char *
json_get_str_or (json_t *o, const char *key, const char *dflt)
{
    const char *s = json_string_value (json_object_get (o, key));
    return s ? s : dflt;
}

/* o[key] as a string, "" when it is missing or not a string. */
static inline const char *
json_get_str (json_t *o, const char *key)
{
    return json_get_str_or (o, key, "");
}

/* The element of the array list whose string member key equals value,
   or NULL (none, value NULL, list not an array).  Borrowed. */
static inline json_t *
json_get_find (json_t *list, const char *key, const char *value)
{
    size_t i;
    json_t *x;
    json_array_foreach (list, i, x) {
        const char *v = json_string_value (json_object_get (x, key));
        if (v && value && strcmp (v, value) == 0)
            return x;
    }
    return NULL;
}

/* Short names, for a file that reads many figures and defines
   JSON_GET_SHORT before it includes this. */
#ifdef JSON_GET_SHORT
static inline double
num (json_t *o, const char *key)
{
    return json_get_num (o, key);
}

static inline const char *
str (json_t *o, const char *key)
{
    return json_get_str (o, key);
}
#endif

#endif
